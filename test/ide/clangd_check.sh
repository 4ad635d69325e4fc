#!/usr/bin/env bash
# clangd_check.sh TLC KERNEL SCRATCH: clangd-22 checks KERNEL with the entry tlc wrote for it, and
# finds no error; a copy with an error in a kernel's body gets that error (so the bodies are
# parsed, and the check can fail); a header the kernels share gets a CUDA entry of its own, which
# clangd uses rather than borrow a C file's command. Exit 77 (skipped) without clangd-22.
set -euo pipefail
tlc=$1 kernel=$2 scratch=$3
clangd=${TLC_CLANGD:-clangd-22}
if ! command -v "$clangd" >/dev/null; then
  echo "SKIPPED: $clangd is not installed (Debian package clangd-22; scripts/bootstrap installs it)"
  exit 77
fi
rm -rf "$scratch" && mkdir -p "$scratch"
export TLC_CACHE_DIR=$scratch/cache

# check FILE DB: clangd's --check run; its log in $scratch/clangd.log, its error count printed.
check() {
  local status=0
  "$clangd" --check="$1" --compile-commands-dir="$2" >"$scratch/clangd.log" 2>&1 || status=$?
  sed -n 's/.*All checks completed, \([0-9]*\) errors.*/\1/p' "$scratch/clangd.log"
  grep '^E\[' "$scratch/clangd.log" >&2 || true
  return 0
}

"$tlc" build "$kernel" -o "$scratch/out" --arch sm_90a -q \
  --compile-commands-out "$scratch/db/compile_commands.json"
db=$scratch/db/compile_commands.json
grep -q "\"file\": \"$kernel\"" "$db" || { echo "FAIL: no entry for $kernel in $db"; cat "$db"; exit 1; }
errors=$(check "$kernel" "$scratch/db")
echo "clangd on $(basename "$kernel") with tlc's entry: ${errors:-no summary} errors"
if [ "$errors" != 0 ]; then
  echo "FAIL: clangd found errors (log: $scratch/clangd.log)"
  cat "$scratch/clangd.log"
  exit 1
fi

# The same file with one more kernel, whose body names something undeclared: tlc's build fails
# (nvcc refuses it), the entry is written all the same (before the build), and clangd reports the
# error.
broken=$scratch/broken/$(basename "$kernel")
mkdir -p "$(dirname "$broken")"
cp "$kernel" "$broken"
printf '\n__global__ void broken_kernel(int* out) { *out = not_declared_here; }\n' >>"$broken"
if "$tlc" build "$broken" -o "$scratch/broken/out" --arch sm_90a -q \
     --compile-commands-out "$scratch/broken/db/compile_commands.json" 2>"$scratch/broken/tlc.log"; then
  echo "FAIL: tlc built a kernel calling an undeclared function"
  exit 1
fi
errors=$(check "$broken" "$scratch/broken/db")
echo "clangd on the broken copy: ${errors:-no summary} errors"
if [ -z "$errors" ] || [ "$errors" = 0 ] || ! grep -q "not_declared_here" "$scratch/clangd.log"; then
  echo "FAIL: clangd did not report the undeclared name (log: $scratch/clangd.log)"
  cat "$scratch/clangd.log"
  exit 1
fi

# A shared header in a -I folder, and a C file of the project named like it, whose entry follows
# tlc's in the database (as CMake's merge puts them): without an entry of its own, clangd borrows
# the C file's command for the header (-x c-header: 'cstdint' file not found, __device__ unknown).
project=$scratch/header
mkdir -p "$project/include" "$project/kernels"
printf '#pragma once\n#include <cstdint>\nstruct Tile { int32_t w; };\n__device__ inline int twice(int x) { return 2 * x; }\n' >"$project/include/tile.h"
printf '#include "tile.h"\n__global__ void k(Tile t, int* o) { *o = twice(t.w); }\n' >"$project/kernels/k.cu"
printf 'int tile_count(void) { return 1; }\n' >"$project/tile.c"
(cd "$project" && "$tlc" build kernels/k.cu -I include -o out --arch sm_90a -q \
  --compile-commands-out "$project/db/compile_commands.json")
python3 - "$project" <<'PYTHON'
import json, sys
project = sys.argv[1]
path = project + "/db/compile_commands.json"
entries = json.load(open(path))
entries.append({"directory": project, "file": project + "/tile.c",
                "arguments": ["cc", "-I", project + "/include", "-c", "tile.c", "-o", "tile.o"]})
json.dump(entries, open(path, "w"), indent=2)
PYTHON
errors=$(check "$project/include/tile.h" "$project/db")
echo "clangd on the shared header: ${errors:-no summary} errors"
grep -q "Compile command from CDB is: .*-x cuda" "$scratch/clangd.log" || {
  echo "FAIL: clangd did not use a CUDA entry for the shared header (log: $scratch/clangd.log)"
  cat "$scratch/clangd.log"
  exit 1
}
if [ "$errors" != 0 ]; then
  echo "FAIL: clangd found errors in the shared header (log: $scratch/clangd.log)"
  cat "$scratch/clangd.log"
  exit 1
fi
echo "PASS"
