#!/usr/bin/env bash
# clangd_cmake_check.sh PACKAGE_DIR CONSUMER SCRATCH [GENERATOR]: a copy of the CMake consumer
# project (test/cmake/consumer) is configured with CMAKE_EXPORT_COMPILE_COMMANDS=ON against tlc's
# package in PACKAGE_DIR and built; then clangd-22, run in the project as an editor would (no
# --compile-commands-dir: it finds build/compile_commands.json itself), checks the kernel file with
# tlc's entry and finds no error. A build with nothing to do stays one, and after CMake rewrote
# the database (a re-configure) the build puts the kernel back, once. Exit 77 (skipped) without
# clangd-22.
set -euo pipefail
package=$1 consumer=$2 scratch=$3 generator=${4:-Ninja}
clangd=${TLC_CLANGD:-clangd-22}
if ! command -v "$clangd" >/dev/null; then
  echo "SKIPPED: $clangd is not installed (Debian package clangd-22; scripts/bootstrap installs it)"
  exit 77
fi
rm -rf "$scratch" && mkdir -p "$scratch"
export TLC_CACHE_DIR=$scratch/cache
project=$scratch/project
cp -r "$consumer" "$project"
db=$project/build/compile_commands.json
kernel=$project/kernels/fill.cu

fail() {
  echo "FAIL: $*"
  exit 1
}
# entries FILE: how many entries of the database are for FILE.
entries() {
  python3 -c 'import json, sys; print(sum(e["file"] == sys.argv[2] for e in json.load(open(sys.argv[1]))))' "$db" "$1"
}

cmake -S "$project" -B "$project/build" -G "$generator" -Dtlc_DIR="$package" \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$scratch/configure.log"
cmake --build "$project/build" >"$scratch/build.log" 2>&1 || { cat "$scratch/build.log"; fail "the build failed"; }
[ "$(entries "$kernel")" = 1 ] || { cat "$db"; fail "no single entry for the kernel in $db"; }
[ "$(entries "$project/main.c")" = 1 ] || { cat "$db"; fail "CMake's entry for main.c is gone"; }

# clangd as an editor starts it: in the project, on the kernel file.
(cd "$project" && "$clangd" --check=kernels/fill.cu >"$scratch/clangd.log" 2>&1) || true
grep -q "Compile command from CDB is: .*--cuda-device-only" "$scratch/clangd.log" ||
  { cat "$scratch/clangd.log"; fail "clangd did not use tlc's entry for the kernel"; }
errors=$(sed -n 's/.*All checks completed, \([0-9]*\) errors.*/\1/p' "$scratch/clangd.log")
echo "clangd on the consumer's kernel: ${errors:-no summary} errors"
[ "$errors" = 0 ] || { cat "$scratch/clangd.log"; fail "clangd found errors"; }

# Nothing to do: nothing runs, the database is left as it is.
before=$(stat -c %Y.%s "$db")
cmake --build "$project/build" >"$scratch/rebuild.log" 2>&1
if grep -q "compile_commands.json" "$scratch/rebuild.log"; then
  cat "$scratch/rebuild.log"
  fail "a build with nothing to do merged the database again"
fi
[ "$(stat -c %Y.%s "$db")" = "$before" ] || fail "a build with nothing to do rewrote $db"

# A re-configure rewrites the database without the kernel; the next build merges it in again.
cmake "$project/build" >"$scratch/reconfigure.log"
cmake --build "$project/build" >"$scratch/rebuild.log" 2>&1
[ "$(entries "$kernel")" = 1 ] || { cat "$db"; fail "after a re-configure, no single entry for the kernel"; }
[ "$(entries "$project/main.c")" = 1 ] || { cat "$db"; fail "after a re-configure, no single entry for main.c"; }
echo "PASS"
