#!/usr/bin/env python3
"""Time and peak memory of resolving #ext.auto as the tile count grows.

For 2^16 to 2^40 tiles (a square grid of 16x16 tiles, 8 iterations of 32
each, 132 SMs), runs `ext-opt --ext-apply-schedule` on one GEMM whose
decomposition is #ext.auto: every candidate is predicted by
ext/Model/TileWork.h's model. Prints wall time (best of --repeat), the
peak RSS of ext-opt and the decomposition auto picks; with --before, the
same for another build's ext-opt (one run each, cut off after --timeout
seconds).

Usage: bench/decompositions/scale.py [--build build] [--before OTHER_BUILD]
           [--repeat 3] [--timeout 120]
Writes bench/decompositions/scale.txt.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LOG_TILES = [16, 20, 24, 32, 40]
SMS = 132

TEMPLATE = """
func.func @gemm(%A: memref<{M}x{K}xf32>, %B: memref<{K}x{N}xf32>, %C: memref<{M}x{N}xf32>) {{
  ext.compute [#ext.axis<"i", spatial, {M}>, #ext.axis<"j", spatial, {N}>, #ext.axis<"k", reduce, {K}>]
      ins(%A, %B : memref<{M}x{K}xf32>, memref<{K}x{N}xf32>) outs(%C : memref<{M}x{N}xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {{schedule = #ext.schedule<tile = [16, 16, 32], blocks = ["i", "j"],
        threads = [16, 16, 1], decomposition = #ext.auto>}} {{
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }}
  return
}}
"""
CHOICE = re.compile(r"ext\.kernel tiles \[\d+, \d+\] iters \d+ .*?decomposition "
                    r"(#ext\.[a-z_0-9]+(?:<[^>]*>)?)")


def run(ext_opt, path, timeout):
    """(seconds, peak RSS in MiB, stdout or why it has none) of one run;
    wait4 reads the child's own peak RSS."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [ext_opt, f"--ext-apply-schedule=sms={SMS}", path],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    timer.cancel()
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    rss = usage.ru_maxrss / 1024.0  # KiB on Linux
    if code == -9:
        return None, rss, "timeout"
    if code != 0:
        return None, rss, f"exit {code}"
    return seconds, rss, out


def measure(ext_opt, path, repeat, timeout):
    """Best time of `repeat` runs (or why there is none), largest peak RSS,
    the decomposition auto picked."""
    best, peak, choice = None, 0.0, "-"
    for _ in range(repeat):
        seconds, rss, out = run(ext_opt, path, timeout)
        peak = max(peak, rss)
        if seconds is None:
            return out, peak, "-"
        best = seconds if best is None else min(best, seconds)
        m = CHOICE.search(out)
        choice = m.group(1) if m else "?"
    return best, peak, choice


def cell(seconds, rss):
    time_text = seconds if isinstance(seconds, str) else f"{seconds:.2f}"
    return f"{time_text:>8} {rss:>8.0f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--before", help="another build to compare with")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    header = f"{'tiles':>6} {'s':>8} {'MiB':>8}"
    if args.before:
        header += f"  {'before s':>8} {'MiB':>8}"
    header += "  auto picks"
    lines = [header]
    print(header, flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for log in LOG_TILES:
            rows, cols = 1 << (log // 2), 1 << (log - log // 2)
            path = os.path.join(tmp, f"tiles{log}.mlir")
            with open(path, "w") as f:
                f.write(TEMPLATE.format(M=16 * rows, N=16 * cols, K=256))
            seconds, rss, choice = measure(
                os.path.join(args.build, "bin", "ext-opt"), path, args.repeat,
                args.timeout)
            line = f"{'2^' + str(log):>6} {cell(seconds, rss)}"
            if args.before:
                before = measure(os.path.join(args.before, "bin", "ext-opt"),
                                 path, 1, args.timeout)
                line += f"  {cell(before[0], before[1])}"
            line += f"  {choice}"
            lines.append(line)
            print(line, flush=True)
    lines.append("")
    lines.append(f"ext-opt --ext-apply-schedule=sms={SMS} on a GEMM of 16x16 "
                 "tiles, 8 iterations each, decomposition #ext.auto: wall "
                 f"time (best of {args.repeat}) and peak RSS"
                 + (f"; before: {args.before}, one run, cut off after "
                    f"{args.timeout:.0f} s" if args.before else "") + ".")
    with open(os.path.join(HERE, "scale.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
