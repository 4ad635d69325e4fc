#!/usr/bin/env bash
# clangd_check.sh TLC KERNEL SCRATCH: clangd-22 checks KERNEL with the entry tlc wrote for it, and
# finds no error; a copy with an error in a kernel's body gets that error (so the bodies are
# parsed, and the check can fail). Exit 77 (skipped) without clangd-22.
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
echo "PASS"
