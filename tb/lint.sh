#!/bin/sh
# verilator --lint-only -Wall on every RTL block, once per preset (cosim and synth lists) so every
# parameter point that is tested or measured is lint clean. Usage: lint.sh <source dir>
set -e
SRC=${1:-$(dirname "$0")/..}
PY=${PYTHON:-python3}
P="$PY $SRC/synth/rtl_presets.py"
fail=0
n=0
for use in cosim synth; do
  $P list $use | while read -r block preset; do
    [ -f "$SRC/rtl/$block.v" ] || continue
    args=$($P vargs "$preset" | tr ';' ' ')
    if ! verilator --lint-only -Wall $args --top-module "$block" "$SRC/rtl/$block.v"; then
      echo "lint FAILED: $block $preset" >&2
      exit 1
    fi
    echo "lint ok: $block $preset"
  done || fail=1
done
[ $fail -eq 0 ] || exit 1
# default parameters too
for v in "$SRC"/rtl/*.v; do
  verilator --lint-only -Wall "$v" || exit 1
  n=$((n+1))
done
echo "lint: $n RTL files clean"
