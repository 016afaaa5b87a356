# Shared by the scripts: paths, pinned tools, phase timing. Source it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CODE="$ROOT/code"
# The harness finds code/ at run time (never from a path compiled into it):
# this checkout's, wherever the script is run from.
export BOOK_CODE_DIR="$CODE"
HARNESS="$CODE/target/release/harness"
MDBOOK_VERSION="0.4.52"
CMDRUN_VERSION="0.7.3"
# The pinned tools' folder; tests point BOOK_TOOLS_DIR at a temporary one.
TOOLS="${BOOK_TOOLS_DIR:-$ROOT/.tools}"
[[ $TOOLS = /* ]] || TOOLS="$PWD/$TOOLS"
# Run by absolute path: whatever mdbook comes first on PATH is not the pinned one.
MDBOOK="$TOOLS/bin/mdbook"
CMDRUN="$TOOLS/bin/mdbook-cmdrun"
# mdbook finds a preprocessor by its command name on PATH unless the config
# names the command; it splits that string like a shell, hence the quotes.
export MDBOOK_PREPROCESSOR__CMDRUN__COMMAND="'$CMDRUN'"

die() { echo "error: $*" >&2; exit 1; }

# phase NAME COMMAND...: runs a step and prints how long it took.
phase() {
    local name=$1; shift
    local start=$SECONDS
    echo "==> $name" >&2
    "$@"
    echo "    $name took $((SECONDS - start)) s" >&2
}

sha256_of() {
    if command -v sha256sum >/dev/null; then sha256sum <"$1"; else shasum -a 256 <"$1"; fi | cut -d' ' -f1
}

# reported_version TOOL BINARY: the version the binary itself says it is.
# mdbook answers --version. mdbook-cmdrun has no --version, but the panic
# locations compiled into it name the crate's source folder, version included
# ("mdbook-cmdrun-0.7.3/src/main.rs").
reported_version() {
    local tool=$1 bin=$2 out
    if [ ! -f "$bin" ]; then echo "missing"; return; fi
    case $tool in
        mdbook)
            # A binary that hangs is as wrong as one that lies.
            local limit=()
            if command -v timeout >/dev/null; then limit=(timeout 10); fi
            out=$(${limit[@]+"${limit[@]}"} "$bin" --version 2>/dev/null | head -n 1 || true)
            if [[ $out =~ ^mdbook\ v([0-9][0-9A-Za-z.+-]*)$ ]]; then
                echo "${BASH_REMATCH[1]}"
            else
                echo "unknown (\`mdbook --version\` printed \"${out:0:60}\")"
            fi ;;
        mdbook-cmdrun)
            out=$(grep -aoE 'mdbook-cmdrun-[0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+-]*/src/' "$bin" \
                | sed -E 's|^mdbook-cmdrun-(.*)/src/$|\1|' | sort -u || true)
            if [ -n "$out" ] && [ "$(wc -l <<<"$out")" -eq 1 ]; then
                echo "$out"
            else
                echo "unknown (no single mdbook-cmdrun-<version>/src/ path inside the binary)"
            fi ;;
        *) die "no version check for $tool" ;;
    esac
}

# tool_problem TOOL VERSION BINARY [built]: nothing when BINARY is the pinned
# tool, else what is wrong with it. BINARY is never run before its SHA-256
# matches the one recorded when the pinned copy was kept ($TOOLS/pinned/):
# a binary that merely claims the right version does not get to run. Only
# one cargo has just built in this run ("built"), before any record exists,
# is asked its version unchecked.
tool_problem() {
    local tool=$1 version=$2 bin=$3 built=${4:-} found record="$TOOLS/pinned/$1-$2.sha256"
    if [ ! -f "$bin" ]; then
        echo "is missing (expected version $version)"
        return
    fi
    if [ "$built" != built ]; then
        if [ ! -f "$record" ]; then
            echo "has no recorded SHA-256 ($record is missing), so it was not run"
            return
        fi
        if [ "$(sha256_of "$bin")" != "$(cat "$record")" ]; then
            echo "is not the binary installed for version $version (its SHA-256 differs from $record), so it was not run"
            return
        fi
    fi
    found=$(reported_version "$tool" "$bin")
    [ "$found" = "$version" ] || echo "reports version $found, expected $version"
}

# copy_binary SRC DEST: a rename, so a running copy of DEST is never overwritten in place.
copy_binary() {
    cp "$1" "$2.tmp-$$" && chmod 755 "$2.tmp-$$" && mv -f "$2.tmp-$$" "$2"
}

# keep_pristine TOOL VERSION: keeps a copy of the checked binary and its
# checksum under $TOOLS/pinned/, to restore it from in seconds, not minutes.
keep_pristine() {
    local pristine="$TOOLS/pinned/$1-$2"
    mkdir -p "$TOOLS/pinned"
    copy_binary "$TOOLS/bin/$1" "$pristine" || die "could not keep a copy of $1 in $TOOLS/pinned"
    sha256_of "$pristine" >"$pristine.sha256.tmp-$$" && mv -f "$pristine.sha256.tmp-$$" "$pristine.sha256"
}

# ensure_tool TOOL VERSION: makes $TOOLS/bin/TOOL the pinned version: the
# binary whose checksum was recorded when these scripts installed it, and
# which reports that version (not cargo's install records: those only say
# what cargo once put there). A wrong or unrecorded binary is restored from
# the pristine copy, or reinstalled when that copy is missing or wrong too.
ensure_tool() {
    local tool=$1 version=$2 bin="$TOOLS/bin/$1" pristine="$TOOLS/pinned/$1-$2" problem
    problem=$(tool_problem "$tool" "$version" "$bin")
    if [ -z "$problem" ]; then
        [ -f "$pristine" ] || keep_pristine "$tool" "$version"
        return 0
    fi
    echo "    $tool: $bin $problem" >&2
    if [ -f "$pristine" ] && [ -z "$(tool_problem "$tool" "$version" "$pristine")" ]; then
        copy_binary "$pristine" "$bin" || die "$tool: could not restore $bin from $pristine"
        echo "    $tool: restored version $version from $pristine" >&2
        return 0
    fi
    command -v cargo >/dev/null || die "$tool: $bin $problem, and cargo is not there to reinstall it: install a Rust toolchain (https://rustup.rs)"
    echo "    $tool: reinstalling version $version into $TOOLS (takes a few minutes)" >&2
    # One target folder for both tools: mdbook-cmdrun is built on the
    # mdbook library, and most of the two lock files' crates are the same
    # releases, which then compile once.
    cargo install --locked --force --root "$TOOLS" --target-dir "$TOOLS/build" "$tool@$version" >&2 \
        || die "$tool: $bin $problem, and reinstalling $tool $version with cargo failed"
    # A rebuild need not be byte for byte the old one: record the new binary,
    # the one binary asked its version before its checksum is recorded.
    rm -f "$pristine.sha256"
    problem=$(tool_problem "$tool" "$version" "$bin" built)
    [ -z "$problem" ] || die "$tool: after reinstalling, $bin $problem"
    keep_pristine "$tool" "$version"
}

ensure_tools() {
    [[ $TOOLS != *"'"* ]] || die "the tools folder $TOOLS has a quote in its path; mdbook cannot run mdbook-cmdrun from there"
    # Both pinned and kept: nothing to write (a read-only checkout whose
    # tools were installed builds without touching them).
    if [ -f "$TOOLS/pinned/mdbook-$MDBOOK_VERSION" ] && [ -f "$TOOLS/pinned/mdbook-cmdrun-$CMDRUN_VERSION" ] \
        && [ -z "$(tool_problem mdbook "$MDBOOK_VERSION" "$MDBOOK")" ] \
        && [ -z "$(tool_problem mdbook-cmdrun "$CMDRUN_VERSION" "$CMDRUN")" ]; then
        return 0
    fi
    writable "$TOOLS"
    mkdir -p "$TOOLS/bin"
    # One script at a time: two cargo installs into one folder collide.
    (
        if command -v flock >/dev/null; then flock 9; fi
        ensure_tool mdbook "$MDBOOK_VERSION"
        # mdbook-cmdrun 0.7.x is built on mdBook 0.4; it fails on mdBook 0.5.
        ensure_tool mdbook-cmdrun "$CMDRUN_VERSION"
        # What the installs compiled (a few hundred MB) is not kept.
        rm -rf "$TOOLS/build"
    ) 9>"$TOOLS/.lock" || exit 1
}

# writable PATH...: each PATH (or the nearest folder above it that exists,
# when it does not yet) is a folder this script can write into; else one
# message naming every one that is not and what each is for. A build writes
# into three places only: the tools folder, code/target and the book's.
writable() {
    local p probe bad=()
    for p in "$@"; do
        probe=$p
        while [ ! -e "$probe" ] && [ "$probe" != / ]; do probe=$(dirname "$probe"); done
        { [ -d "$probe" ] && [ -w "$probe" ]; } || bad+=("$p")
    done
    [ ${#bad[@]} = 0 ] && return 0
    die "cannot write into $(printf '%s, ' "${bad[@]}" | sed 's/, $//') (a read-only checkout?).
A build writes into three folders, and only these:
  the pinned tools:  $TOOLS (set BOOK_TOOLS_DIR to another folder; not written once installed)
  cargo's builds:    $CODE/target (the pages run code/target/release/harness; mount or link a writable folder there)
  the book:          the folder it is built into and the one beside it (scripts/build --out DIR)"
}

# ensure_valgrind: valgrind on PATH, for the instruction counts (the harness
# runs chapter binaries under callgrind, `harness::counts`). When it is
# missing, installs Debian's package with apt-get, through sudo unless root.
ensure_valgrind() {
    command -v valgrind >/dev/null && return 0
    command -v apt-get >/dev/null \
        || die "valgrind is not on PATH and there is no apt-get to install it with: install valgrind with this system's package manager (the instruction counts run under it)"
    local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -y -q)
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null \
            || die "valgrind is not on PATH, and installing it needs root: run 'apt-get install valgrind' as root"
        apt=(sudo "${apt[@]}")
    fi
    echo "    valgrind: not on PATH; installing Debian's package (${apt[*]} install valgrind)" >&2
    # A fresh container has no package lists yet: if the first try fails,
    # update them once and try again.
    if ! "${apt[@]}" install --no-install-recommends valgrind >&2; then
        "${apt[@]}" update >&2 && "${apt[@]}" install --no-install-recommends valgrind >&2 \
            || die "installing valgrind with apt-get failed (its output is above): install it by hand (apt-get install valgrind)"
    fi
    command -v valgrind >/dev/null \
        || die "apt-get installed valgrind, but it is still not on PATH ($PATH)"
    echo "    valgrind: $(valgrind --version) installed" >&2
}

# Builds the harness, then every chapter binary the book renders.
# BOOK_BINARIES_BUILT=1: the caller built them a moment ago (scripts/test, in
# its first step) and runs this beside a compile that holds code/target, which
# cargo would wait for even to find nothing to do; they are only looked for.
build_code() {
    if [ "${BOOK_BINARIES_BUILT-}" = 1 ]; then
        local bin
        for bin in harness $("$HARNESS" chapters 2>/dev/null); do
            [ -x "$CODE/target/release/$bin" ] \
                || die "BOOK_BINARIES_BUILT=1, but $CODE/target/release/$bin is not built (run scripts/build)"
        done
        return 0
    fi
    (cd "$CODE" && cargo build --release --quiet -p harness)
    local pkgs=() names
    # Every chapter in the registry (code/chapters.toml) has a crate.
    names=$("$HARNESS" chapters) || die "harness chapters failed: cannot tell which chapter binaries to build"
    for c in $names; do pkgs+=(-p "$c"); done
    if [ ${#pkgs[@]} -gt 0 ]; then
        (cd "$CODE" && cargo build --release --quiet --bins "${pkgs[@]}")
    fi
}

# build_into DIR RESULTS: mdbook build into DIR, the raw results beside the
# pages, then the HTML checks. Fails naming the step.
build_into() {
    local dir=$1 results=$2
    (cd "$ROOT" && BOOK_RESULTS_DIR="$results" "$MDBOOK" build --dest-dir "$dir" 2>&1 \
        | { grep -v '^\s*$' || true; } >&2) || die "mdbook build failed"
    # Raw results and tables for download; the build writes them into the
    # output, never under src/ (mdbook serve would rebuild forever).
    BOOK_RESULTS_DIR="$results" "$HARNESS" export "$dir" >&2 \
        || die "exporting the raw results into the book failed"
    "$HARNESS" check-book "$dir" --src "$ROOT/src" \
        || die "the built book has problems (listed above)"
}

# swap_into_place NEW OUT: NEW takes OUT's place; the previous OUT is deleted
# only once NEW is in, and put back if NEW cannot be moved in.
swap_into_place() {
    local new=$1 out=$2 old="$1-old"
    if [ -e "$out" ] || [ -L "$out" ]; then
        mv "$out" "$old" || die "could not move the previous $out aside"
        # Something writing into OUT meanwhile (mdbook serve?) would get the
        # new book moved inside it: leave both as they are, and say where.
        [ ! -e "$out" ] || die "$out came back while the new book was being moved in; the previous book is at $old"
        if ! mv "$new" "$out"; then
            mv "$old" "$out" || die "could not move the new book into $out; the previous book is at $old"
            die "could not move the new book into $out"
        fi
        rm -rf "$old"
    else
        mv "$new" "$out" || die "could not move the new book into $out"
    fi
}

# build_book OUT [RESULTS]: builds and checks the book in a fresh folder beside
# OUT (OUT.partial-XXXXXX); only a book that passed every check replaces OUT.
# On any failure OUT stays as it was and the partial folder is removed.
build_book() {
    local out=$1 results=${2:-} partial
    [[ $out = /* ]] || out="$PWD/$out"
    while [[ $out = */ && $out != / ]]; do out=${out%/}; done
    [ "$out" != / ] || die "build_book: refusing to build into /"
    writable "$(dirname "$out")" "$CODE/target"
    ensure_tools
    mkdir -p "$(dirname "$out")"
    partial=$(mktemp -d "$out.partial-XXXXXX") || die "could not create a folder beside $out"
    # mktemp's folder is private (0700); the book is served and read by others.
    chmod "$(printf '%o' $((0777 & ~$(umask))))" "$partial"
    (
        trap 'rm -rf "$partial"' EXIT
        trap 'exit 130' INT TERM
        build_into "$partial" "$results"
        swap_into_place "$partial" "$out"
    ) || die "the book was not built; ${out} is as it was before"
}

# check_release_spec CRATE@VERSION: fails naming the argument unless it is a
# crate name and a full version (what `cargo update --precise` takes).
check_release_spec() {
    [[ $1 =~ ^[A-Za-z0-9_-]+@[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]] \
        || die "--with $1: expected CRATE@VERSION with a full version, e.g. tokio@1.37.0"
}

# release_workspace WS: a copy of code/ (without target/ and results/) in
# WS whose workspace members are the harness's crates and `chapters`, with
# the releases of `with` resolved by `cargo update --precise`: everything of
# a --with run before building. Fails naming the release cargo cannot
# resolve.
release_workspace() {
    local ws=$1 spec name version out
    tar -C "$CODE" --exclude=./target --exclude=./results -cf - . | tar -C "$ws" -xf - \
        || die "could not copy $CODE into $ws"
    # Published datasets are read from code/results; measurements go to $scratch.
    ln -s "$CODE/results" "$ws/results"
    # Only the harness's crates and the chapters measured stay members, so
    # that no other chapter's dependencies (fan-in's `futures` pins
    # futures-channel) keep cargo from resolving an older release of a crate
    # these chapters measure. The fingerprint finds harness-measure among the
    # members, so every harness crate stays one.
    local members="" c
    for c in $(sed -nE '/^members = \[/,/^\]/ s/^[[:space:]]*"(harness[^"]*)",?$/\1/p' "$ws/Cargo.toml"); do
        members+="${members:+, }\"$c\""
    done
    [[ $members == *'"harness/measure"'* ]] \
        || die "the workspace copy's Cargo.toml lists no harness/measure member: $ws/Cargo.toml"
    for c in "${chapters[@]}"; do members+=", \"$c\""; done
    sed -i -E "/^members = \[/,/^\]/c\\members = [$members]" "$ws/Cargo.toml"
    grep -qF "members = [$members]" "$ws/Cargo.toml" \
        || die "could not narrow the workspace copy's members in $ws/Cargo.toml"
    for spec in "${with[@]}"; do
        name=${spec%@*} version=${spec#*@}
        out=$(cd "$ws" && cargo update --quiet -p "$name" --precise "$version" 2>&1) \
            || die "--with $spec: cargo cannot resolve $name $version for this workspace; nothing was measured:
$out"
    done
}

# template_registry FILE: FILE made the chapter registry with the template
# chapter added (the smallest chapter that times, 2 s in the smoke profile),
# and the template's binary built, for a test to run `harness measure
# chapter-template` with BOOK_CHAPTERS=FILE.
template_registry() {
    (cd "$CODE" && cargo build --release --quiet -p chapter-template) || die "cannot build the template chapter"
    { cat "$CODE/chapters.toml"
      printf '\n[[chapter]]\nname = "chapter-template"\ntitle = "Template chapter"\nsearch = "template"\n'
    } >"$1" || die "could not write $1"
}

# seed_target TARGET: TARGET/release made a copy of what the release build
# compiled (code/target/release), for a copy of the workspace to build in
# without compiling again what it has in common, and without waiting for a
# cargo that holds code/target: cargo tells path packages apart by their
# path relative to the workspace. Copied, never hard-linked: cargo rewrites
# what it rebuilds. Of the executables in deps/ only the binaries (which
# cargo hard-links into release/) are taken: the test binaries (several GB
# after `cargo test --release`) are no build's input. A half-made copy is
# never taken for one; without the release build, TARGET builds from nothing.
# A compile may be running in code/target meanwhile (scripts/test's): the
# fingerprints are copied before the artifacts, so a unit it finishes during
# the copy is one the seed has no fingerprint of (cargo builds it again if it
# needs it), and its temporary files that vanish mid-copy are no failure.
seed_target() {
    local target=$1 seed="$1/release.seed-$$" files
    [ -d "$CODE/target/release/deps" ] || return 0
    mkdir -p "$target" || die "could not create $target"
    mapfile -d '' files < <(cd "$CODE/target/release/deps" \
        && find . -maxdepth 1 -type f \( -name '*.*' -o -links +1 \) -print0)
    rm -rf "$seed" && mkdir -p "$seed/deps" \
        && copy_present "$seed" "$CODE/target/release/build" "$CODE/target/release/.fingerprint" \
        && (cd "$CODE/target/release/deps" && copy_present "$seed/deps" ${files[@]+"${files[@]}"}) \
        && mv "$seed" "$target/release" \
        || { rm -rf "$seed"; echo "    could not seed $target from $CODE/target/release; building from nothing" >&2; }
}

# copy_present DEST PATH...: `cp -a` of each PATH into DEST, where a file
# that vanished while it was copied fails nothing; any other error does.
copy_present() {
    local dest=$1 err; shift
    [ $# -gt 0 ] || return 0
    err=$(LC_ALL=C cp -a -t "$dest" "$@" 2>&1) && return 0
    if grep -Ev "^cp: cannot (stat|open) '.*'( for reading)?: No such file or directory$" <<<"$err" | grep -q .; then
        echo "$err" >&2
        return 1
    fi
}

# measure_release: `scripts/fresh CHAPTER... --with CRATE@VERSION...`, from
# fresh's variables (chapters, args, results, with, invocation), checked by
# fresh before anything was built. Copies code/ without target/ and results/
# into code/target/releases/ws-<releases>, keeps only the harness and those
# chapters as the copy's workspace members, resolves the releases there with
# `cargo update --precise`, builds (in a target folder shared by every
# release, one build at a time) and measures in the copy into a scratch
# folder, and hands each file to `harness adopt-release`, which checks the
# releases measured and writes the file to results/<chapter>/releases/.
# One run per set of releases: a second is refused, naming the first, and
# deletes nothing. The committed Cargo.lock and results are never written;
# the copy and the scratch folder go when the run ends, however it ends.
measure_release() {
    local spec name version slug="" out
    for spec in "${with[@]}"; do slug+="${slug:++}${spec/@/-}"; done
    local base="$CODE/target/releases"
    local ws="$base/ws-$slug" scratch="$base/results-$slug" target="$base/target"
    local lock="$base/ws-$slug.lock" built="$base/target.lock" fd
    command -v flock >/dev/null || die "--with: flock (util-linux) is needed to keep two runs apart"
    mkdir -p "$base" || die "could not create $base"
    exec {fd}>>"$lock" || die "could not open $lock"
    flock -n "$fd" || die "--with ${with[*]}: another run is measuring against the same releases in $ws: $(head -c 500 "$lock" | head -n 1) (it holds $lock); wait for it to end (or stop it) and run again"
    printf 'pid %s, started %s: %s\n' "$$" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$invocation" >"$lock"
    trap "rm -rf $(printf '%q ' "$ws" "$scratch")" EXIT
    trap 'exit 130' INT TERM
    # What a run killed outright (SIGKILL) left.
    rm -rf "$ws" "$scratch"
    mkdir -p "$ws" "$scratch" "$target"
    release_workspace "$ws"
    local pkgs=(-p harness) c
    for c in "${chapters[@]}"; do pkgs+=(-p "$c"); done
    # The target folder is shared (a sweep reuses what every release has in
    # common): one run builds at a time and takes its binaries into its own
    # copy, so another release's build cannot replace them while it measures.
    local bfd
    exec {bfd}>>"$built" || die "could not open $built"
    if ! flock -n "$bfd"; then
        echo "    waiting for another --with run building in $target: $(head -c 500 "$built" | head -n 1)" >&2
        flock "$bfd"
    fi
    printf 'pid %s, started %s: %s\n' "$$" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$invocation" >"$built"
    # The first --with build starts from the release build's (seed_target),
    # so only the releases changed, what depends on them and the workspace
    # copy compile.
    [ -d "$target/release" ] || seed_target "$target"
    (cd "$ws" && CARGO_TARGET_DIR="$target" cargo build --release --quiet "${pkgs[@]}") \
        || die "--with ${with[*]}: ${chapters[*]} does not build against ${with[*]} (cargo's errors are above); nothing was measured"
    mkdir -p "$ws/bin"
    for c in harness "${chapters[@]}"; do
        cp "$target/release/$c" "$ws/bin/$c" || die "could not copy the $c binary into $ws/bin"
    done
    exec {bfd}>&-
    # BOOK_CODE_DIR: the copy's lock and sources are what the run records and
    # fingerprints, not this checkout's code/ (which the scripts export).
    BOOK_CODE_DIR="$ws" "$ws/bin/harness" measure "${chapters[@]}" ${args[@]+"${args[@]}"} --results "$scratch" \
        || die "--with ${with[*]}: measuring failed (above); nothing was written"
    local adopt=() file
    for spec in "${with[@]}"; do adopt+=(--with "$spec"); done
    for c in "${chapters[@]}"; do
        for file in "$scratch/$c"/*.json; do
            [ -f "$file" ] || die "--with ${with[*]}: the run left no results file for $c in $scratch"
            case $(basename "$file") in published-*) continue ;; esac
            "$HARNESS" ${results:+--results "$results"} adopt-release "$file" --code "$ws" "${adopt[@]}" \
                || die "--with ${with[*]}: $file was not adopted (above); nothing was written for $c"
        done
    done
}

# apt_install WHAT PACKAGE: Debian's PACKAGE installed with apt-get as root,
# or a message that says what to install.
apt_install() {
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        die "$1 is missing; install it (Debian: apt-get install $2) and run again"
    fi
    echo "    installing $2 with apt-get" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2") >&2 \
        || die "apt-get could not install $2"
}

# registry_releases NAME: every release of crate NAME in the registry's
# sparse index that is neither yanked nor a pre-release, one a line.
registry_releases() {
    command -v curl >/dev/null || die "curl is needed to read the registry's index"
    local n=${1,,} path
    case ${#n} in
        1) path="1/$n" ;;
        2) path="2/$n" ;;
        3) path="3/${n:0:1}/$n" ;;
        *) path="${n:0:2}/${n:2:2}/$n" ;;
    esac
    # One JSON object a line; some mirrors put a space after each colon.
    curl -fsSL "${CRATES_INDEX:-https://index.crates.io}/$path" \
        | grep -E '"yanked": ?false' \
        | grep -oE '"vers": ?"[0-9]+\.[0-9]+\.[0-9]+"' \
        | sed -E 's/.*"([0-9.]+)"$/\1/'
}
