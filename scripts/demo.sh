#!/usr/bin/env bash
# The main job: set up, build, and take a real kernel from examples/ through
# the whole pipeline: the scheduled f32 GEMM to PTX (sm_90) and HSACO
# (gfx942), run on the CPU emulator against the unscheduled reference, with
# a short report (tiles, launch, shared memory with and without reuse, PTX
# registers from ptxas where present).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${EXT_BUILD_DIR:-$ROOT/build}"
KERNEL="${1:-$ROOT/examples/kernels/gemm_f32.mlir}"

bash "$ROOT/scripts/setup.sh"
bash "$ROOT/scripts/build.sh"

echo
echo "== report: $(basename "$KERNEL")"
/usr/bin/python3 "$ROOT/scripts/report.py" "$KERNEL" --build "$BUILD"
