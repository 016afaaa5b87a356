# Shared by the shell tests under scripts/tests/: the scripts' own helpers
# plus assertions. Source it.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# ok WHAT: one case held; `passed` counts them, for the test's last line.
passed=0
ok() { passed=$((passed + 1)); echo "    ok: $*" >&2; }

# folder_sum DIR: one checksum over every name, type, mode and file content
# under DIR, so "unchanged" means byte for byte.
folder_sum() {
    (
        cd "$1" || exit 1
        find . -printf '%y %m %p -> %l\n' | LC_ALL=C sort
        find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
    ) | sha256_of /dev/stdin
}

# expect_in FILE TEXT WHAT: FILE holds TEXT (a fixed string), else fail naming WHAT.
expect_in() {
    grep -qF -- "$2" "$1" || die "$3: expected \"$2\" in:
$(cat "$1")"
}

# expect_not_in FILE TEXT WHAT
expect_not_in() {
    ! grep -qF -- "$2" "$1" || die "$3: did not expect \"$2\" in:
$(cat "$1")"
}

# no_partials OUT: build_book left nothing beside OUT.
no_partials() {
    local left
    left=$(ls -d "$1".partial-* 2>/dev/null || true)
    [ -z "$left" ] || die "build_book left folders behind: $left"
}
