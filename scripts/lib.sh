# Shared by the scripts: paths, pinned tools, phase timing. Source it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CODE="$ROOT/code"
TOOLS="$ROOT/.tools"
HARNESS="$CODE/target/release/harness"
MDBOOK_VERSION="0.4.52"
CMDRUN_VERSION="0.7.3"
export PATH="$TOOLS/bin:$PATH"

die() { echo "error: $*" >&2; exit 1; }

# phase NAME COMMAND...: runs a step and prints how long it took.
phase() {
    local name=$1; shift
    local start=$SECONDS
    echo "==> $name" >&2
    "$@"
    echo "    $name took $((SECONDS - start)) s" >&2
}

# Installs one pinned tool into .tools/ when it is missing or of another version.
install_pinned() {
    local crate=$1 version=$2
    if cargo install --list --root "$TOOLS" 2>/dev/null | grep -q "^$crate v$version:"; then
        return
    fi
    echo "    installing $crate $version into .tools/ (once; takes a few minutes)" >&2
    cargo install --locked --force --quiet --root "$TOOLS" "$crate@$version"
}

ensure_tools() {
    command -v cargo >/dev/null || die "cargo not found: install a Rust toolchain (https://rustup.rs)"
    install_pinned mdbook "$MDBOOK_VERSION"
    # mdbook-cmdrun 0.7.x is built on mdBook 0.4; it fails on mdBook 0.5.
    install_pinned mdbook-cmdrun "$CMDRUN_VERSION"
}

# Builds the harness, then every chapter binary the book renders.
build_code() {
    (cd "$CODE" && cargo build --release --quiet -p harness)
    local pkgs=()
    for c in $("$HARNESS" chapters --written); do pkgs+=(-p "$c"); done
    if [ ${#pkgs[@]} -gt 0 ]; then
        (cd "$CODE" && cargo build --release --quiet --bins "${pkgs[@]}")
    fi
}

# build_book OUT [RESULTS]: mdbook build into OUT, then check the HTML.
build_book() {
    local out=$1 results=${2:-}
    (cd "$ROOT" && BOOK_RESULTS_DIR="$results" mdbook build --dest-dir "$out" 2>&1 | grep -v '^\s*$' >&2) \
        || die "mdbook build failed"
    # Raw results and tables for download; the build writes them into the
    # output, never under src/ (mdbook serve would rebuild forever).
    BOOK_RESULTS_DIR="$results" "$HARNESS" export "$out" >&2
    "$HARNESS" check-book "$out" --src "$ROOT/src" \
        || die "the built book at $out has problems (listed above)"
}
