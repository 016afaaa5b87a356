#!/usr/bin/env bash
# A sixth chapter, added the way CONTRIBUTING.md says (its crate, its page,
# one registry line): the template chapter, in a copy of the book's sources.
# It must render (measured on the fly, no results committed), pass the book
# checks and the browser checks, and be listed by `scripts/fresh --status`.
#   scripts/tests/sixth-chapter.sh WORK_DIR
source "$(dirname "$0")/../lib.sh"
work=${1:?usage: sixth-chapter.sh WORK_DIR}/sixth-chapter
rm -rf "$work" && mkdir -p "$work"

(cd "$CODE" && cargo build --release --quiet -p chapter-template) || die "cannot build the template chapter"

# The book's sources, with the template's page and the lists that name it.
cp "$ROOT/book.toml" "$work/"
cp -r "$ROOT/src" "$ROOT/theme" "$work/"
ln -s "$CODE" "$work/code"
cp "$CODE/chapter-template/page.md" "$work/src/chapter-template.md"
sed -i 's|^- \[Cross-arch latency\](channel-latency.md)$|&\n- [Template chapter](chapter-template.md)|' "$work/src/SUMMARY.md"
grep -q 'chapter-template.md' "$work/src/SUMMARY.md" || die "the template did not get into SUMMARY.md"
registry="$work/chapters.toml"
cp "$CODE/chapters.toml" "$registry"
printf '\n[[chapter]]\nname = "chapter-template"\ntitle = "Template chapter"\nsearch = "template"\n' >>"$registry"
export BOOK_CHAPTERS="$registry"

# No committed results: the page measures a smoke run on the fly and says so.
empty="$work/results"
mkdir -p "$empty"
cp -r "$CODE/results/." "$empty/"
rm -rf "$empty/chapter-template" "$CODE/target/smoke-results/chapter-template"
(cd "$work" && BOOK_RESULTS_DIR="$empty" "$MDBOOK" build --dest-dir "$work/book" >"$work/mdbook.log" 2>&1) \
    || die "mdbook build of the book with a sixth chapter failed: $(tail -5 "$work/mdbook.log")"
page="$work/book/chapter-template.html"
[ -f "$page" ] || die "the sixth chapter has no page"
grep -q 'data-claim="TPL-1"' "$page" || die "the sixth chapter shows no verdict"
grep -q '<svg class="figure-svg"' "$page" || die "the sixth chapter shows no figure"
grep -q 'badge smoke' "$page" || die "the sixth chapter does not say it was measured on the fly"
BOOK_RESULTS_DIR="$empty" "$HARNESS" export "$work/book" >&2
"$HARNESS" check-book "$work/book" --src "$work/src" >&2 || die "the book checks failed on the sixth chapter"
ls "$work/book/results/chapter-template/"timings.csv >/dev/null || die "the sixth chapter's table was not exported"

# The browser checks walk the registry, so they visit the new page too.
"$ROOT/scripts/browser-test" "$work/book" >"$work/browser.log" 2>&1 \
    || die "the browser checks failed on the book with a sixth chapter: $(tail -5 "$work/browser.log")"
grep -q 'chapter-template' "$work/browser.log" || die "the browser checks did not visit the sixth chapter"

# And --status lists it (no results here, so none to call current).
"$HARNESS" list --results "$empty" >"$work/status.txt"
grep -q '^chapter-template *Template chapter$' "$work/status.txt" || die "--status does not list the sixth chapter: $(cat "$work/status.txt")"
echo "    a sixth chapter renders, passes the book and browser checks, and is listed" >&2
