#!/usr/bin/env bash
# The main job: set up, build, and take the example kernel through ext-opt and
# ext-run, then check its numbers against numpy and print a short report.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${EXT_BUILD_DIR:-$ROOT/build}"
KERNEL="$ROOT/examples/kernels/matmul.mlir"

bash "$ROOT/scripts/setup.sh"
bash "$ROOT/scripts/build.sh" --target ext-opt ext-run

echo
echo "== ext-opt --ext-lower-to-loops: the matmul's reduce loop (excerpt)"
"$BUILD/bin/ext-opt" "$KERNEL" --ext-lower-to-loops \
  | grep -B3 -A8 "iter_args" | head -14

echo
echo "== ext-run $(basename "$KERNEL"): C = A B (48x40)"
out="$("$BUILD/bin/ext-run" "$KERNEL")"
echo "$out"

echo
echo "== report"
printf '%s\n' "$out" | /usr/bin/python3 "$ROOT/scripts/check_matmul_example.py"
