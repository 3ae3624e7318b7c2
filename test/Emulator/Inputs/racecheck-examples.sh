#!/usr/bin/env bash
# Runs every kernel under examples/kernels on the CPU emulator with race
# detection, shared-memory reuse on and off; prints one line per run and a
# summary. Kernels added to examples/kernels are covered without new tests.
# Usage: racecheck-examples.sh EXT-RUN EXAMPLES-DIR
set -u
run=$1 dir=$2 n=0 bad=0
for f in "$dir"/*.mlir; do
  # AMD matrix-core kernels run on 64-lane waves: the chip says so.
  chip=()
  case "$(basename "$f")" in *_mfma.mlir) chip=(--chip=gfx942) ;; esac
  for reuse in true false; do
    n=$((n + 1))
    if "$run" "${chip[@]}" --racecheck --reuse-shared-memory=$reuse "$f" >/dev/null 2>"${TMPDIR:-/tmp}/racecheck.$$.err"; then
      echo "race-free: $(basename "$f") reuse=$reuse"
    else
      bad=$((bad + 1))
      echo "FAILED: $(basename "$f") reuse=$reuse"
      cat "${TMPDIR:-/tmp}/racecheck.$$.err"
    fi
  done
done
rm -f "${TMPDIR:-/tmp}/racecheck.$$.err"
echo "racecheck: $n runs, $bad failed"
[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
