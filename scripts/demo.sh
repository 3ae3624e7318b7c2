#!/usr/bin/env bash
# The main job: set up, build, and take a real kernel from examples/ through
# the whole pipeline: the scheduled f32 GEMM and the Stream-K GEMM to PTX
# (sm_90) and HSACO (gfx942), run on the CPU emulator against the
# unscheduled reference, with a short report (tiles, launch, decomposition
# and its predicted SM utilization, workspace, shared memory with and
# without reuse, PTX registers from ptxas where present), and a fused
# softmax (one kernel, its global bytes counted from the PTX).
#
#   bash scripts/demo.sh [--no-build] [KERNEL.mlir]
#
# --no-build skips setup and build and reports on the tools already built:
# test/python/test_demo.py runs the demo so, and fails when a report breaks.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${EXT_BUILD_DIR:-$ROOT/build}"
build=1
if [ "${1:-}" = "--no-build" ]; then
  build=0
  shift
fi
KERNEL="${1:-$ROOT/examples/kernels/gemm_f32.mlir}"

if [ "$build" -eq 1 ]; then
  bash "$ROOT/scripts/setup.sh"
  bash "$ROOT/scripts/build.sh"
fi

echo
echo "== report: $(basename "$KERNEL")"
/usr/bin/python3 "$ROOT/scripts/report.py" "$KERNEL" --build "$BUILD"

if [ $# -eq 0 ]; then
  # The work-centric decomposition: a Stream-K GEMM whose tiles are split
  # at arbitrary iterations, with its fixup, through the same pipeline.
  echo
  echo "== report: gemm_streamk.mlir"
  /usr/bin/python3 "$ROOT/scripts/report.py" "$ROOT/examples/kernels/gemm_streamk.mlir" --build "$BUILD"
  # Fusion: softmax's row max and row sum computed inside the normalizing
  # kernel (compute_at): one kernel that reads X once.
  echo
  echo "== report: softmax.mlir"
  /usr/bin/python3 "$ROOT/scripts/report.py" "$ROOT/examples/kernels/softmax.mlir" --build "$BUILD"
fi

echo
echo "== ext-run examples/kernels/matmul.mlir: C = A B (48x40, first rows), checked against numpy"
out="$("$BUILD/bin/ext-run" "$ROOT/examples/kernels/matmul.mlir")"
printf '%s\n' "$out" | sed -n '2,4p' | cut -c1-120
printf '%s\n' "$out" | /usr/bin/python3 "$ROOT/scripts/check_matmul_example.py"
