#!/usr/bin/env python3
"""bench/smem_reuse/tiles.py: the largest GEMM tile that fits each chip's
shared memory, with and without ext-gpu-reuse-shared-memory, for 1 to 4
pipeline stages.

For f16 (f32 accumulation) and f32 GEMMs whose output is staged through
shared memory (`#ext.cache<operand = 2>`: the epilogue writes the tile to
shared memory, then stores it in coalesced rows) and whose A and B tiles
are cached, every tile BM x BN x BK with BM, BN in {32, ..., 256} and BK in
{8, ..., 64}, with `stages` 1 to 4, is lowered (ext-schedule-to-gpu) and
packed with the report on: the footprint without reuse is the sum of the
buffers (A and B once per stage, and the staging tile), with reuse the
k-loop tiles share the staging tile's bytes, so the footprint is the larger
of the stages' A and B and the staging tile. A tile
fits a chip when the footprint is within its per-block limit (sm_80 163 KB,
sm_90 227 KB: dynamic shared memory above 48 KB; gfx90a, gfx942 64 KB of
LDS; the numbers of include/ext/Model/Chip.h). The table gives, per chip,
the largest tile (most output points, then deepest k step) and its
footprint; the winning tiles are then checked against the real pipeline
(ext-gpu-pipeline's resource check accepts the tile with reuse, and
refuses it without reuse where the table says it does not fit).

Usage: bench/smem_reuse/tiles.py [OUT] [--build DIR]
Writes bench/smem_reuse/tiles.txt (or OUT).
"""

import argparse
import itertools
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KB = 1024
CHIPS = [("sm_80", "nvvm", 163 * KB), ("sm_90", "nvvm", 227 * KB),
         ("gfx90a", "rocdl", 64 * KB), ("gfx942", "rocdl", 64 * KB)]
SIZES_MN = [32, 64, 128, 256]
SIZES_K = [8, 16, 32, 64]
STAGES = [1, 2, 3, 4]

KERNEL = """
func.func @gemm(%A: memref<1024x1024x{t}>, %B: memref<1024x1024x{t}>, %C: memref<1024x1024xf32>) {{
  ext.compute [#ext.axis<"i", spatial, 1024>, #ext.axis<"j", spatial, 1024>,
               #ext.axis<"k", reduce, 1024>]
      ins(%A, %B : memref<1024x1024x{t}>, memref<1024x1024x{t}>) outs(%C : memref<1024x1024xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {{schedule = #ext.schedule<
        tile = [{bm}, {bn}, {bk}], blocks = ["i", "j"], threads = [16, 16, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>, #ext.cache<operand = 2>]{stages}>}} {{
  ^bb0(%a: {t}, %b: {t}):
    {body}
    ext.yield %p : f32
  }}
  return
}}
"""
BODY = {"f32": "%p = arith.mulf %a, %b : f32",
        "f16": "%a32 = arith.extf %a : f16 to f32\n    %b32 = arith.extf %b : f16 to f32\n"
               "    %p = arith.mulf %a32, %b32 : f32"}


def kernel_text(t, bm, bn, bk, stages):
    return KERNEL.format(t=t, bm=bm, bn=bn, bk=bk, body=BODY[t],
                         stages=f", stages = {stages}" if stages > 1 else "")


def footprint(ext_opt, path):
    """(with reuse, without reuse) bytes from the pass's report."""
    p = subprocess.run([ext_opt, path, "--ext-schedule-to-gpu",
                        "--ext-gpu-reuse-shared-memory=report=true", "-o", os.devnull],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{path}: ext-opt failed:\n{p.stderr[-2000:]}")
    m = re.search(r"footprint (\d+) B with reuse, (\d+) B without", p.stderr)
    if not m:
        raise RuntimeError(f"{path}: no footprint in the report:\n{p.stderr[-2000:]}")
    return int(m.group(1)), int(m.group(2))


def pipeline_accepts(ext_opt, path, target, chip, reuse):
    p = subprocess.run([ext_opt, path, f"--ext-gpu-pipeline=target={target} chip={chip} "
                        f"reuse-shared-memory={'true' if reuse else 'false'}", "-o", os.devnull],
                       capture_output=True, text=True)
    return p.returncode == 0, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default=os.path.join(ROOT, "bench", "smem_reuse", "tiles.txt"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    ext_opt = os.path.join(args.build, "bin", "ext-opt")
    lines = []
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        measured = {}
        for t, stages in itertools.product(["f16", "f32"], STAGES):
            for bm, bn, bk in itertools.product(SIZES_MN, SIZES_MN, SIZES_K):
                path = os.path.join(tmp, f"{t}_{bm}_{bn}_{bk}_{stages}.mlir")
                with open(path, "w") as f:
                    f.write(kernel_text(t, bm, bn, bk, stages))
                measured[(t, stages, bm, bn, bk)] = (path, *footprint(ext_opt, path))
        header = (f"{'inputs':6}  {'stages':>6}  {'chip':6}  {'limit B':>7}  {'largest without reuse':>22}  "
                  f"{'B':>6}  {'largest with reuse':>19}  {'B':>6}  {'without':>7}  pipeline")
        lines += [header, "-" * len(header)]
        for t, stages in itertools.product(["f16", "f32"], STAGES):
            for chip, target, limit in CHIPS:
                def best(index):
                    fits = [(bm * bn, bk, bm, bn) for (tt, ss, bm, bn, bk), v in measured.items()
                            if tt == t and ss == stages and v[index] <= limit]
                    return max(fits) if fits else None
                plain, reused = best(2), best(1)
                def show(b):
                    return "-" if not b else f"{b[2]}x{b[3]}x{b[1]}"
                check = "-"
                if reused:
                    path, packed, naive = measured[(t, stages, reused[2], reused[3], reused[1])]
                    ok, err = pipeline_accepts(ext_opt, path, target, chip, True)
                    refused, _ = pipeline_accepts(ext_opt, path, target, chip, False)
                    expect_refused = naive > limit
                    good = ok and (refused != expect_refused)
                    failures += not good
                    check = ("ok" if good else "MISMATCH") + (
                        ", refused without reuse" if expect_refused else "")
                    if not ok:
                        check += ": " + err.strip().splitlines()[0][:120]
                at = lambda b, i: measured[(t, stages, b[2], b[3], b[1])][i] if b else "-"
                lines.append(
                    f"{t:6}  {stages:>6}  {chip:6}  {limit:>7}  {show(plain):>22}  {at(plain, 2):>6}  "
                    f"{show(reused):>19}  {at(reused, 1):>6}  {at(reused, 2):>7}  {check}")
    lines.append("")
    lines.append("B: the footprint of the tile to its left; 'without': the tile chosen with "
                 "reuse, without reuse. Threads 16x16. Stages: the A and B buffers per "
                 "cached operand (stages >= 2: the pipelined k-loop).")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    with open(args.out, "w") as f:
        f.write(text)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
