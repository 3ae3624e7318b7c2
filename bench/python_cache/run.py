#!/usr/bin/env python3
"""Python kernel cache memory: N distinct builds (an elementwise kernel on
the CPU emulator, one size per build, each run once and dropped), resident
memory (VmRSS) every 100 builds, for the default cache (64 kernels), a cache
of 8, and the cache off; writes the table to bench/python_cache/results.txt.
Run with the build's Python package on the path:

    PYTHONPATH=build/python_packages /usr/bin/python3 bench/python_cache/run.py [--builds 1000]

Each configuration runs in its own process, so one's memory does not count
in the next's.
"""
import argparse
import os
import subprocess
import sys
import time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHILD = r"""
import sys, time, numpy as np, ext
def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
limit, builds, step = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
if limit >= 0:
    ext.set_cache_limit(limit)
start = time.perf_counter()
samples = [rss_mb()]
for i in range(builds):
    n = 64 + i
    A = ext.placeholder((n,), "float32", name="A")
    C = ext.compute((n,), lambda j: A[j] * 2.0 + 1.0, name="C")
    kernel = ext.build(ext.schedule(C, tile=(32,), threads=(32,)))
    assert np.allclose(kernel.run(np.ones(n, np.float32)), 3.0)
    del kernel
    if (i + 1) % step == 0:
        samples.append(rss_mb())
print(" ".join(map(str, samples)), f"{time.perf_counter() - start:.1f}")
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builds", type=int, default=1000)
    ap.add_argument("--step", type=int, default=100)
    ap.add_argument("--out", default=os.path.join(root, "bench", "python_cache", "results.txt"))
    args = ap.parse_args()
    configs = [("default (64)", -1), ("limit 8", 8), ("off (0)", 0)]
    cols = [0] + list(range(args.step, args.builds + 1, args.step))
    lines = [f"RSS in MB after N distinct builds ({args.builds} builds per row)",
             f"{'cache':<14}" + "".join(f"{c:>7}" for c in cols) + f"{'s':>8}"]
    for name, limit in configs:
        # Every build compiles: the disk cache (ext.build's, across
        # processes) would turn a rerun into disk reads.
        r = subprocess.run([sys.executable, "-c", CHILD, str(limit), str(args.builds),
                            str(args.step)], capture_output=True, text=True,
                           env=dict(os.environ, EXT_DISABLE_DISK_CACHE="1"))
        if r.returncode != 0:
            sys.exit(f"{name}: failed\n{r.stderr}")
        *rss, seconds = r.stdout.split()
        lines.append(f"{name:<14}" + "".join(f"{v:>7}" for v in rss) + f"{seconds:>8}")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
