#!/bin/bash
# One call on a lent GPU machine (see bench/gpu/export.py): replays the
# kernels exported to DIR (default build/gpu-export) against cuBLAS, then
# profiles the first launch of the 128x256 wgmma kernel with Nsight Compute
# where ncu is there. Output under $OUT (or ./gpu-out): log, results.csv,
# ncu.txt. Run from the repository root:
#   bench/gpu/export.py build/gpu-export && carry build/gpu-export && bench/gpu/device.sh
dir=${1:-build/gpu-export}
out=${OUT:-gpu-out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu \
  --format=csv 2>&1 | tee "$out/log"
set -o pipefail
timeout 360 python3 bench/gpu/replay.py "$dir" --out "$out/results.csv" 2>&1 | tee -a "$out/log"
rc=$?
if command -v ncu >/dev/null; then
  timeout 90 ncu --clock-control none -k regex:gemm_kernel -c 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section Occupancy --section LaunchStats \
    python3 bench/gpu/replay.py "$dir" --only '^wgmma_128x256x64_s3$' --no-cublas \
    --batches 1 --batch-ms 1 --out /dev/null >"$out/ncu.txt" 2>&1
  grep -E "Throughput|Pipe|Bank|Occupancy|Registers|Duration|Executed Ipc|Warp Cycles" \
    "$out/ncu.txt" | head -40
fi
exit $rc
