#!/usr/bin/env bash
# make test: `make install PREFIX=…` puts a working seedkit at PREFIX/bin/seedkit and `make
# uninstall` removes it; the install line of the CI workflow `seedkit init` writes works with this
# Makefile. Installs the debug binary make test has just built (CONFIGURATION=debug), so no
# release build is needed; the release path differs only in `-c release`. make test runs it beside
# the tests with SWIFT=true (the install recipe's `swift build` is then a no-op: its build step
# built that binary, and the tests hold SwiftPM's lock on .build).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
prefix=$(mktemp -d "${TMPDIR:-/tmp}/seedkit-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
fail() { echo "check-install: FAILED: $*" >&2; exit 1; }
make --no-print-directory install PREFIX="$prefix/usr" CONFIGURATION=debug SWIFT="${SWIFT:-swift}" > "$prefix/install.log" 2>&1 \
  || { cat "$prefix/install.log"; fail "make install PREFIX=$prefix/usr exited non-zero"; }
binary="$prefix/usr/bin/seedkit"
[ -x "$binary" ] || fail "make install did not write an executable $binary"
# Stripped: the symbol table is two fifths of a release binary and nothing at run time reads it.
if command -v readelf > /dev/null && readelf -S "$binary" | grep -q '\.symtab'; then fail "make install wrote $binary with its symbol table (not stripped)"; fi
# Run from elsewhere, with the build folder off PATH: the installed file stands on its own.
cd "$prefix"
version=$(env PATH=/usr/bin:/bin "$binary" --version) || fail "$binary --version exited non-zero"
[ "$version" = "$("$root/.build/debug/seedkit" --version)" ] || fail "$binary --version printed '$version', not the built seedkit's version"
help=$(env PATH=/usr/bin:/bin "$binary" --help) || fail "$binary --help exited non-zero"
grep -q "^USAGE: seedkit " <<< "$help" || fail "$binary --help printed no usage line: $help"
grep -q "check-upgrade" <<< "$help" || fail "$binary --help lists no check-upgrade command"
# And does a command's work (no resource left behind in .build that it needs): init, then build.
env PATH=/usr/bin:/bin "$binary" init "$prefix/project" > /dev/null || fail "$binary init exited non-zero"
(cd "$prefix/project" && env PATH=/usr/bin:/bin "$binary" build > /dev/null) || fail "$binary build of the project init wrote exited non-zero"
cd "$root"
make --no-print-directory uninstall PREFIX="$prefix/usr" > /dev/null || fail "make uninstall exited non-zero"
[ ! -e "$binary" ] || fail "make uninstall left $binary"

# The install line of the workflow that init wrote, `make -C .build/checkouts/seedkit install
# PREFIX=/usr/local`, run against this checkout, staged under DESTDIR (which that line does not
# set, so the environment's counts).
line=$(grep -m 1 -E '^ +make -C [^ ]+ install PREFIX=[^ ]+$' "$prefix/project/.github/workflows/seedkit.yml") \
  || fail "the workflow seedkit init writes has no 'make -C DIR install PREFIX=…' line"
read -r _ _ _ target variable <<< "$line"
staged="$prefix/stage"
env CONFIGURATION=debug DESTDIR="$staged" SWIFT="${SWIFT:-swift}" make --no-print-directory -C "$root" "$target" "$variable" > "$prefix/install.log" 2>&1 \
  || { cat "$prefix/install.log"; fail "the workflow's install line ($line) fails against this Makefile"; }
installed="$staged${variable#PREFIX=}/bin/seedkit"
env PATH=/usr/bin:/bin "$installed" --version > /dev/null || fail "the workflow's install line did not install a working $installed"
echo "make install: PREFIX/bin/seedkit runs (--version $version, --help, init, build), make uninstall removes it; the CI workflow's install line works"
