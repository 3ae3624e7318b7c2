#!/usr/bin/env python3
"""Racecheck slowdown: each README example kernel (examples/kernels/*.mlir)
runs under ext-run --target=cpu plain and with --racecheck (shared-memory
reuse on); prints a table of wall times (best of N runs, compile included,
since ext-run JIT-compiles each time) and writes it to bench/racecheck/results.txt.

Usage: bench/racecheck/run.py [--build build] [--repeat 3] [--out FILE]
"""
import argparse
import glob
import os
import subprocess
import sys
import time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def best(cmd, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        times.append(time.perf_counter() - start)
        if r.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr}")
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(root, "bench", "racecheck", "results.txt"))
    args = ap.parse_args()
    run = os.path.join(args.build, "bin", "ext-run")
    rows = []
    for f in sorted(glob.glob(os.path.join(root, "examples", "kernels", "*.mlir"))):
        plain = best([run, f], args.repeat)
        checked = best([run, "--racecheck", f], args.repeat)
        note = "" if "schedule" in open(f).read() else "  (no kernel: unscheduled, runs as loops)"
        rows.append((os.path.basename(f), plain, checked, checked / plain, note))
    lines = [f"{'kernel':<16} {'plain s':>9} {'racecheck s':>12} {'slowdown':>9}"]
    for name, p, c, s, note in rows:
        lines.append(f"{name:<16} {p:>9.3f} {c:>12.3f} {s:>8.2f}x{note}")
    total_p = sum(r[1] for r in rows)
    total_c = sum(r[2] for r in rows)
    lines.append(f"{'total':<16} {total_p:>9.3f} {total_c:>12.3f} {total_c / total_p:>8.2f}x")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    with open(args.out, "w") as out:
        out.write(f"# bench/racecheck/run.py (best of {args.repeat}, wall time of ext-run, JIT included)\n")
        out.write(text)


if __name__ == "__main__":
    main()
