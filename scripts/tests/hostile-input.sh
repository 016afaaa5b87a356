#!/usr/bin/env bash
# Hostile input, tried: results files, signals and smoke runs that once got
# through, each asserting the safe outcome.
#   scripts/tests/hostile-input.sh SMOKE_RESULTS WORK_DIR
# SMOKE_RESULTS is a results folder a smoke run just wrote (scripts/test
# makes one); WORK_DIR a scratch folder. Needs the release binaries built.
source "$(dirname "$0")/../lib.sh"
smoke=${1:?usage: hostile-input.sh SMOKE_RESULTS WORK_DIR}
work=${2:?usage: hostile-input.sh SMOKE_RESULTS WORK_DIR}/hostile
rm -rf "$work" && mkdir -p "$work"
passed=0
ok() { passed=$((passed + 1)); echo "    ok: $*" >&2; }

file=$(ls "$smoke/alloc-probe/"*.json | grep -v /published- | head -n 1)
machine=$(basename "$file" .json)

# copy_as_quick DIR: the smoke results as a quick run in DIR (import refuses
# smoke runs, which is tested on its own below).
copy_as_quick() {
    mkdir -p "$1"
    cp -r "$smoke/." "$1/"
    find "$1" -name "$machine.json" -exec sed -i 's/"profile": "smoke"/"profile": "quick"/' {} +
}

# 1. Markup in the machine's free text is escaped on every page and runs no
#    script; markup in an id or architecture is refused, naming the field.
inject="$work/inject"
copy_as_quick "$inject"
sed -i 's|"cpu": "[^"]*"|"cpu": "<script>alert(1)</script><img src=x onerror=alert(2)>"|' \
    "$inject/alloc-probe/$machine.json"
grep -q '<script>alert(1)' "$inject/alloc-probe/$machine.json" || die "the injection did not land in the file"
build_book "$work/book-inject" "$inject" 2>"$work/inject.log" || die "the book with escaped markup did not build: $(tail -5 "$work/inject.log")"
page="$work/book-inject/alloc-probe.html"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$page" || die "$page does not show the escaped CPU name"
! grep -q '<script>alert(1)' "$page" || die "$page carries the raw script"
! grep -q '<img src=x' "$page" || die "$page carries the raw img tag"
ok "markup in the CPU name is escaped on the page"
if [ -x "${CHROMIUM:-/usr/bin/chromium}" ] && [ -d "$ROOT/scripts/browser/node_modules/playwright-core" ]; then
    CHROMIUM="${CHROMIUM:-/usr/bin/chromium}" node "$ROOT/scripts/browser/check-book.mjs" \
        "$work/book-inject" "$work/shots" --page alloc-probe.html >"$work/browser.log" 2>&1 \
        || die "headless Chromium found a problem on the page with escaped markup: $(tail -5 "$work/browser.log")"
    ok "no dialog or foreign script in headless Chromium"
fi
sed -i 's|"arch": "[^"]*"|"arch": "x86<script>alert(3)</script>"|' "$inject/alloc-probe/$machine.json"
if build_book "$work/book-inject" "$inject" 2>"$work/arch.log"; then
    die "a book was built from a results file with markup in its architecture"
fi
grep -q 'architecture "x86<script>alert(3)</script>" must be lowercase' "$work/arch.log" \
    || die "the refused architecture was not named: $(grep -m3 -i error "$work/arch.log")"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$page" || die "the failed build touched the previous book"
ok "markup in the architecture stops the build, naming it; the previous book stays"

# 2. Impossible numbers are refused on import, naming file, field and value.
target="$work/imported"
mkdir -p "$target"
bad="$work/impossible"
for case in 'created|"created": 18446744073709551615|data.grid[0].footprint.created = 18446744073709551615' \
            'steal|"steal_share": 7.5|provenance.steal_share = 7.5: a share of time' \
            'load|"load_average_at_start": -5|provenance.load_average_at_start = -5'; do
    IFS='|' read -r name replacement expected <<<"$case"
    rm -rf "$bad" && copy_as_quick "$bad"
    key=${replacement%%:*}
    sed -i "0,/$key: [^,]*/s//$replacement/" "$bad/alloc-probe/$machine.json"
    grep -qF "$replacement" "$bad/alloc-probe/$machine.json" || die "case $name: the edit did not land"
    if "$HARNESS" import --results "$target" "$bad/alloc-probe/$machine.json" 2>"$work/import.err"; then
        die "case $name: an impossible value was imported"
    fi
    grep -qF "$expected" "$work/import.err" || die "case $name: the error does not name the field: $(cat "$work/import.err")"
    grep -qF "$bad/alloc-probe/$machine.json" "$work/import.err" || die "case $name: the error does not name the file"
    [ "$(grep -o "$bad/alloc-probe/$machine.json" "$work/import.err" | wc -l)" -eq 1 ] \
        || die "case $name: the error repeats its prefix: $(cat "$work/import.err")"
done
[ -z "$(ls -A "$target")" ] || die "a refused import wrote into the results folder"
ok "impossible values refused on import, naming file, field and value, once"

# 3. Smoke runs are never published: import refuses them, and a smoke run
#    leaves the committed results alone.
if "$HARNESS" import --results "$target" "$file" 2>"$work/smoke.err"; then
    die "a smoke run was imported"
fi
grep -q "never published" "$work/smoke.err" || die "the smoke refusal gives no reason: $(cat "$work/smoke.err")"
before=$(cd "$CODE/results" && find . -type f -exec sha256sum {} + | sort | sha256sum)
"$HARNESS" measure alloc-probe --profile smoke >"$work/smoke-run.log" 2>&1 || die "the smoke run failed: $(tail -5 "$work/smoke-run.log")"
after=$(cd "$CODE/results" && find . -type f -exec sha256sum {} + | sort | sha256sum)
[ "$before" = "$after" ] || die "a smoke run changed code/results"
grep -q "smoke runs are never published: writing into $CODE/target/smoke-results" "$work/smoke-run.log" \
    || die "the smoke run did not say where it wrote: $(cat "$work/smoke-run.log")"
ok "smoke runs are refused on import and never touch code/results"

# 4. A copy under another name is refused, not shown as a second machine.
renamed="$work/renamed"
copy_as_quick "$renamed"
cp "$renamed/alloc-probe/$machine.json" "$renamed/alloc-probe/another-machine.json"
if "$CODE/target/release/alloc-probe" render verdicts --results "$renamed" >"$work/renamed.md" 2>&1; then
    die "a renamed copy rendered"
fi
grep -q 'a results file must be named after its machine' "$work/renamed.md" || die "the renamed copy was not named: $(cat "$work/renamed.md")"
if "$HARNESS" import --results "$target" "$renamed/alloc-probe/another-machine.json" 2>"$work/rename.err"; then
    die "a renamed copy was imported"
fi
ok "a renamed copy is refused on load and on import"

# 5. Data edited after measurement is flagged on the page and by --status.
edited="$work/edited"
copy_as_quick "$edited"
sed -i '0,/"channels": \([0-9]*\)/s//"channels": \11/' "$edited/alloc-probe/$machine.json"
cmp -s "$edited/alloc-probe/$machine.json" "$smoke/alloc-probe/$machine.json" && die "the edit did not land"
"$HARNESS" list --results "$edited" >"$work/list.txt" 2>&1 || die "list failed: $(cat "$work/list.txt")"
grep -A3 '^alloc-probe' "$work/list.txt" | grep -q "EDITED after measurement" || die "--status does not flag the edit: $(cat "$work/list.txt")"
"$CODE/target/release/alloc-probe" render provenance --results "$edited" >"$work/edited.md" 2>&1 || die "an edited file did not render: $(cat "$work/edited.md")"
grep -q 'badge edited' "$work/edited.md" || die "the page does not flag the edit"
ok "an edited file is flagged on the page and by --status"

# 6. A broken replicate file is named in the page, not "did not render".
reps="$work/replicates-broken"
copy_as_quick "$reps"
mkdir -p "$reps/replicates/a/alloc-probe" "$reps/replicates/b/alloc-probe"
echo '{' >"$reps/replicates/a/alloc-probe/$machine.json"
cp "$reps/alloc-probe/$machine.json" "$reps/replicates/b/alloc-probe/"
"$HARNESS" render method agreement --results "$reps" >"$work/agreement.md" 2>/dev/null || true
grep -q "render error.*replicates/a/alloc-probe/$machine.json" "$work/agreement.md" \
    || die "the broken replicate file is not named: $(cat "$work/agreement.md")"
ok "a broken replicate file is named on the page"

# 7. A signal to the parent alone: the measuring child ends with it and the
#    results it would have written never appear.
(cd "$CODE" && cargo build --release --quiet -p chapter-template) || die "cannot build the template chapter"
registry="$work/chapters.toml"
cat "$CODE/chapters.toml" >"$registry"
printf '\n[[chapter]]\nname = "chapter-template"\ntitle = "Template chapter"\nsearch = "template"\n' >>"$registry"
export BOOK_CHAPTERS="$registry"
orphan="$work/orphan"
"$HARNESS" measure chapter-template --profile smoke --results "$orphan" >"$work/orphan-first.log" 2>&1 \
    || die "the template's first run failed: $(tail -5 "$work/orphan-first.log")"
old=$(ls "$orphan/chapter-template/"*.json)
cp "$old" "$work/orphan-before.json"
# wait_for_child: until the template's measuring process runs (30 s at most).
wait_for_child() {
    for _ in $(seq 1 300); do
        pgrep -f "chapter-template measure" >/dev/null && return 0
        sleep 0.1
    done
    die "the template never started measuring"
}
no_orphan_left() {
    sleep 12 # the quick run would have finished and written by now
    ! pgrep -f "chapter-template measure" >/dev/null || die "$1: the measuring process outlived its parent"
    cmp -s "$old" "$work/orphan-before.json" || die "$1: the orphaned run replaced the results file"
}
"$HARNESS" measure chapter-template --profile quick --results "$orphan" >/dev/null 2>&1 &
parent=$!
wait_for_child
kill -KILL "$parent"
wait "$parent" 2>/dev/null || true
no_orphan_left "SIGKILL to harness measure"
ok "SIGKILL to harness measure alone: no orphan, the old file byte for byte"
"$ROOT/scripts/fresh" chapter-template --profile quick --results "$orphan" >/dev/null 2>&1 &
parent=$!
wait_for_child
kill -TERM "$parent"
wait "$parent" 2>/dev/null || true
no_orphan_left "SIGTERM to scripts/fresh"
ok "SIGTERM to scripts/fresh alone: no orphan, the old file byte for byte"
unset BOOK_CHAPTERS

echo "    hostile input: $passed cases held" >&2
