#!/usr/bin/env bash
# A chapter binary in a few lines of shell, for the conformance suite's own
# tests: it conforms unless FAULT (set on the line below) names a way not to.
FAULT=none
PRISTINE=pristine.json
set -u
here=$(dirname "$0")
name=fake
is() { [ "$FAULT" = "$1" ]; }
results_of() { # the results folder after --results
    while [ $# -gt 0 ]; do [ "$1" = --results ] && { echo "$2"; return; }; shift; done
}
render() { # render EXHIBIT RESULTS
    local file
    file=$(ls "$2/$name/"*.json | head -n 1)
    local blocks=text
    case $1 in
    table | releases | precision) blocks=table ;;
    verdicts) blocks=verdicts:FK-1 ;;
    provenance) blocks=provenance ;;
    esac
    is wrong-kind && [ "$1" = table ] && blocks=text
    is no-verdict && [ "$1" = verdicts ] && blocks=verdicts:
    echo "<div class=\"exhibit-marker\" data-exhibit=\"$name/$1\" data-blocks=\"$blocks\"></div>"
    case $1 in
    in-short)
        is answer-none && echo "<div class=\"answer-first\" data-answer=\"$name\"> 2.00×</div>" && return
        is answer-wrong && echo "<div class=\"answer-first\" data-answer=\"$name\"> <span data-estimate=\"FK-1\">2.50×</span></div>" && return
        echo "<div class=\"answer-first\" data-answer=\"$name\"> <span data-estimate=\"FK-1\">2.00×</span></div>" ;;
    table)
        is render-error && { echo "**render error** in chapter $name, exhibit table: broken"; return; }
        echo "| x | 1.50 ns |" ;;
    provenance)
        if grep -q '"id": "x<' "$file"; then
            echo "**render error** in chapter $name: machine id must be lowercase letters"
            return 1
        fi
        local cpu
        cpu=$(sed -n 's/.*"cpu": "\(.*\)",\{0,1\}$/\1/p' "$file")
        is hostile-raw || cpu=$(printf '%s' "$cpu" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')
        echo "CPU: $cpu"
        if ! grep -Eq '"time": 1.5,?$' "$file" && ! is no-edited-badge; then
            echo '<span class="badge edited">edited</span>'
        fi ;;
    *) echo "the $1 exhibit" ;;
    esac
}
exhibits() {
    printf 'in-short\tText\tthe answer\ntable\tTable\ta table\nverdicts\tVerdicts\tclaims\n'
    is no-built-in || printf 'answer\tText\tbuilt in\nreleases\tTable\tbuilt in\nprovenance\tText\tbuilt in\nprecision\tTable\tbuilt in\n'
    printf 'claim\tFK-1\tA claim.\n'
}
json_string() { # the text on stdin as a JSON string
    local s
    s=$(cat)
    s=${s//\\/\\\\}
    s=${s//\"/\\\"}
    s=${s//$'\n'/\\n}
    printf '"%s"' "$s"
}
case $1 in
measure)
    is hang-measure && sleep 600
    results=$(results_of "$@")
    mkdir -p "$results/$name"
    cp "$here/$PRISTINE" "$results/$name/m.json" ;;
exhibits) exhibits ;;
render)
    is hang && { sleep 600 & sleep 600; }
    render "$2" "$(results_of "$@")" ;;
render-all)
    results=$(results_of "$@")
    printf '{"exhibits": {'
    sep=
    for e in $(exhibits | grep -v '^claim' | cut -f1); do
        printf '%s"%s": {"Ok": %s}' "$sep" "$e" "$(render "$e" "$results" | json_string)"
        sep=,
    done
    printf '}, "findings": {"Ok": []}}\n' ;;
judge)
    [ "$2" = --write ] && exit 0
    by=h
    is judge-random && by="h$RANDOM$$"
    evidence='2.00×'
    is judge-stale && evidence='2.10×'
    printf '{"judged_by": "%s", "estimates": {"FK-1": {"point": 2.0, "lower": 1.5, "upper": 2.5, "unit": "ratio", "method": "m"}}, "verdicts": [{"claim": "FK-1", "machine": "m", "outcome": "holds", "evidence": "%s", "conditions": [], "qualifier": null, "reading": {}, "estimates": ["FK-1"]}], "headline": ["FK-1"]}\n' "$by" "$evidence" ;;
headline)
    point=2.0
    is headline-outside && point=3.0
    is headline-nan && point=null
    extra=
    is headline-unshown && extra=', {"name": "FK-2", "estimate": {"point_ns": 7.0, "lower_ns": 6.5, "upper_ns": 7.5}}'
    echo "{\"estimates\": [{\"name\": \"FK-1\", \"estimate\": {\"point_ns\": $point, \"lower_ns\": 1.5, \"upper_ns\": 2.5}}$extra], \"verdicts\": []}" ;;
check)
    if grep -q '"id": "x<' "$2" && ! is id-accepted; then
        echo "error: machine id must be lowercase letters" >&2
        exit 1
    fi
    if grep -q 'edited by hand' "$2" && ! is analysis-edit-accepted; then
        echo "error: its analysis is not what judging its data gives" >&2
        exit 1
    fi
    if ! grep -q '"count": 10' "$2" && ! is count-accepted; then
        echo "error: the chapter's checks: count" >&2
        exit 1
    fi
    echo "ok: $2" ;;
export)
    mkdir -p "$2"
    cp "$BOOK_RESULTS_DIR/$name/"m.json "$2/"
    if is csv-text; then
        printf 'name,time,time unit\nx,1.5 ns,ns\n' >"$2/table.csv"
    else
        printf 'name,time,time low,time high,time unit\nx,1.5,1.4,1.6,ns\ny,baseline,,,\n' >"$2/table.csv"
    fi ;;
*) echo "error: unknown command $1" >&2; exit 2 ;;
esac
