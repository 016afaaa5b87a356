# The step runner of scripts/test. Source it after lib.sh. A suite is a list
# of steps, one line each:
#   alone NAME COMMAND...   a step that times something (or needs the whole
#                           machine, or its own process names): it waits for
#                           the side steps running, then runs by itself, its
#                           output printed as it comes
#   side NAME COMMAND...    a step that times nothing: it starts at once, beside
#                           the other side steps (at most $STEP_JOBS at a
#                           time, the long ones apart), its output kept and
#                           printed under its name when it ends
#   long NAME COMMAND...    a side step that runs on past the joins: only the
#                           next alone step (or steps_end) waits for it
#   join                    waits for every side step but the long ones (before
#                           a side step that needs what an earlier one made)
#   steps_end               waits, prints each step's time (wall clock and the
#                           CPU time of the processes it waited for: not the
#                           ones that leave their parent, as a browser's do;
#                           the last line is the whole machine's) as a table,
#                           and exits 1 naming the steps that failed
# A step passes when COMMAND exits 0; it runs with `set -e` in a subshell, so
# a shell function works as a step. After a failure no further step starts
# (the ones running finish); the table marks them "not run".
# shellcheck shell=bash

# At most this many side steps at a time (the suite's measured default on two
# cores; BOOK_TEST_JOBS=1 runs every step one after the other).
STEP_JOBS=${BOOK_TEST_JOBS:-3}
[[ $STEP_JOBS =~ ^[1-9][0-9]*$ ]] || die "BOOK_TEST_JOBS=$STEP_JOBS: expected a whole number from 1"
# `wait -n -p` (which side step ended) came with bash 5.1; before it, side
# steps run one at a time.
if (( BASH_VERSINFO[0] < 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] < 1) )); then
    STEP_JOBS=1
fi
STEP_LOGS=$(mktemp -d)
step_names=() step_kinds=() step_us=() step_cpu_ms=() step_state=()
step_failed=0
declare -A step_pid=() step_long=()
steps_started=${EPOCHREALTIME/./}

# _busy_ms: the CPU time the whole machine has spent busy since boot, in
# milliseconds (Linux: /proc/stat); empty elsewhere. Unlike a step's own
# count it includes the processes no step waits for (Chromium's renderers).
_busy_ms() {
    local hz
    [ -r /proc/stat ] && hz=$(getconf CLK_TCK 2>/dev/null) || return 0
    awk -v hz="$hz" '$1 == "cpu" { printf "%d\n", ($2 + $3 + $4 + $7 + $8) * 1000 / hz; exit }' /proc/stat
}
steps_busy_started=$(_busy_ms)

# _step_new NAME KIND: registers a step (the last one in the lists).
_step_new() {
    step_names+=("$1") step_kinds+=("$2") step_us+=(0) step_cpu_ms+=(0) step_state+=(running)
}

# _step_skip NAME KIND: after a failure, the step is listed but not run.
_step_skip() {
    _step_new "$1" "$2"
    step_state[-1]="not run"
}

# _cpu_ms FILE [FIRST]: CPU time (user and system, in milliseconds) from
# what `times` wrote into FILE (run as `times >FILE` in the shell measured:
# a command substitution would be a fresh process with nothing counted yet).
# Line 1 is the shell's own, line 2 its children's (those it waited for);
# FIRST=1 counts both, FIRST=2 the children only.
_cpu_ms() {
    awk -v first="${2:-2}" 'BEGIN { ms = 0 }
    NR >= first {
        for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); ms += t[1] * 60000 + t[2] * 1000 }
    }
    END { printf "%d\n", ms }' "$1" 2>/dev/null || echo 0
}

# _step_done I RC: records how step I ended.
_step_done() {
    local i=$1 rc=$2
    if [ "$rc" = 0 ]; then
        step_state[i]=passed
    else
        step_state[i]="FAILED ($rc)"
        step_failed=1
    fi
}

# _reap_one [PID...]: waits for one side step (one of PIDs, else any) to end
# and prints its output.
_reap_one() {
    local pid="" rc=0 i p
    [ $# -gt 0 ] || set -- "${!step_pid[@]}"
    while [ -z "${pid-}" ]; do
        # A step that ended while this shell was busy elsewhere is no job
        # to `wait -n` any more (bash keeps only its status, which a plain
        # `wait` returns): such a step is taken first.
        for p in "$@"; do
            if ! kill -0 "$p" 2>/dev/null; then
                pid=$p
                wait "$pid" || rc=$?
                break
            fi
        done
        [ -z "${pid-}" ] || break
        rc=0
        wait -n -p pid "$@" 2>/dev/null || rc=$?
    done
    i=${step_pid[$pid]}
    unset "step_pid[$pid]" "step_long[$pid]"
    step_us[i]=$(cat "$STEP_LOGS/$i.us" 2>/dev/null || echo 0)
    step_cpu_ms[i]=$(_cpu_ms "$STEP_LOGS/$i.times" 1)
    _step_done "$i" "$rc"
    echo "==> ${step_names[i]} (beside other steps)" >&2
    sed 's/^/  /' "$STEP_LOGS/$i.log" >&2
    echo "    ${step_names[i]}: ${step_state[i]} in $(_secs "${step_us[i]}") s" >&2
}

# _short: the side steps running that are not long ones, into `short`.
_short() {
    local pid
    short=()
    for pid in "${!step_pid[@]}"; do
        [ -n "${step_long[$pid]-}" ] || short+=("$pid")
    done
}

# join: waits for every side step but the long ones.
join() {
    local short
    while _short; [ ${#short[@]} -gt 0 ]; do _reap_one "${short[@]}"; done
}

# join_all: waits for every side step, the long ones too.
join_all() {
    while [ ${#step_pid[@]} -gt 0 ]; do _reap_one; done
}

# long NAME COMMAND...
long() {
    side "$@"
    local pid
    for pid in "${!step_pid[@]}"; do
        if [ "${step_pid[$pid]}" = $((${#step_names[@]} - 1)) ]; then
            step_long[$pid]=1 step_kinds[-1]=long
        fi
    done
}

# side NAME COMMAND...
side() {
    local name=$1; shift
    if [ $step_failed = 1 ]; then _step_skip "$name" side; return 0; fi
    if [ "$STEP_JOBS" = 1 ]; then alone_ "$name" side "$@"; return 0; fi
    local short
    while _short; [ ${#short[@]} -ge "$STEP_JOBS" ]; do _reap_one "${short[@]}"; done
    _step_new "$name" side
    local i=$((${#step_names[@]} - 1)) log="$STEP_LOGS/$((${#step_names[@]} - 1))"
    # Its own process group (set -m), so that an interrupted suite can end
    # the step with everything it started.
    set -m
    (
        start=${EPOCHREALTIME/./}
        trap 'echo $((${EPOCHREALTIME/./} - start)) >"$log.us"; times >"$log.times"' EXIT
        set -e
        "$@"
    ) >"$log.log" 2>&1 </dev/null &
    step_pid[$!]=$i
    set +m
}

# alone NAME COMMAND...
alone() {
    local name=$1; shift
    join_all
    if [ $step_failed = 1 ]; then _step_skip "$name" alone; return 0; fi
    alone_ "$name" alone "$@"
}

# alone_ NAME KIND COMMAND...: runs a step in the foreground.
alone_() {
    local name=$1 kind=$2 start rc; shift 2
    _step_new "$name" "$kind"
    echo "==> $name" >&2
    start=${EPOCHREALTIME/./}
    # No side step runs now (alone waited for them), so what this shell's
    # children used meanwhile is this step's.
    times >"$STEP_LOGS/alone.times"
    local cpu_before
    cpu_before=$(_cpu_ms "$STEP_LOGS/alone.times")
    set +e
    (
        set -e
        "$@"
    )
    rc=$?
    set -e
    step_us[-1]=$((${EPOCHREALTIME/./} - start))
    times >"$STEP_LOGS/alone.times"
    step_cpu_ms[-1]=$(($(_cpu_ms "$STEP_LOGS/alone.times") - cpu_before))
    _step_done $((${#step_names[@]} - 1)) "$rc"
    echo "    $name: ${step_state[-1]} in $(_secs "${step_us[-1]}") s" >&2
}

# _secs MICROSECONDS: seconds with one decimal.
_secs() {
    local us=$(($1 + 50000))
    echo "$((us / 1000000)).$((us / 100000 % 10))"
}

# steps_kill: ends the side steps still running (an interrupted suite).
steps_kill() {
    local pid
    for pid in "${!step_pid[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
    rm -rf "$STEP_LOGS"
}

# steps_end TITLE: the table, then the verdict; exits 1 when a step failed.
steps_end() {
    local title=$1 i n=${#step_names[@]} passed=0 failed=() skipped=0 width=24
    join_all
    for ((i = 0; i < n; i++)); do
        ((${#step_names[i]} > width)) && width=${#step_names[i]}
    done
    {
        echo
        printf '%-*s  %8s  %8s  %-5s  %s\n' "$width" step seconds "cpu s" how result
        for ((i = 0; i < n; i++)); do
            printf '%-*s  %8s  %8s  %-5s  %s\n' "$width" "${step_names[i]}" \
                "$(_secs "${step_us[i]}")" "$(_secs $((step_cpu_ms[i] * 1000)))" \
                "${step_kinds[i]}" "${step_state[i]}"
            case ${step_state[i]} in
                passed) passed=$((passed + 1)) ;;
                FAILED*) failed+=("${step_names[i]}") ;;
                *) skipped=$((skipped + 1)) ;;
            esac
        done
        times >"$STEP_LOGS/all.times"
        printf '%-*s  %8s  %8s\n' "$width" "whole suite (wall clock, CPU)" \
            "$(_secs $((${EPOCHREALTIME/./} - steps_started)))" \
            "$(_secs $(($(_cpu_ms "$STEP_LOGS/all.times") * 1000)))"
        local busy
        busy=$(_busy_ms)
        if [ -n "$busy" ] && [ -n "$steps_busy_started" ]; then
            printf '%-*s  %8s  %8s\n' "$width" "the machine meanwhile (every process)" "" \
                "$(_secs $(((busy - steps_busy_started) * 1000)))"
        fi
        echo
    } >&2
    rm -rf "$STEP_LOGS"
    if [ ${#failed[@]} -gt 0 ]; then
        echo "$title: $passed passed, ${#failed[@]} failed, $skipped not run; failed:" >&2
        printf '  %s\n' "${failed[@]}" >&2
        echo "$title: $passed passed, ${#failed[@]} failed, $skipped not run"
        exit 1
    fi
    echo "$title: $passed passed, 0 failed"
}
