#!/usr/bin/env python3
"""bench/smem_reuse: footprint of ext-gpu-reuse-shared-memory against the naive
sum, best-fit decreasing and the clique lower bound, with the pass's time.

Rows: every lit case under test/GPU/ReuseSharedMemory, every example
kernel under examples/kernels (after ext-schedule-to-gpu), and random
synthetic kernels of 4 to 32 buffers (random lifetimes over phases separated
by barriers). Prints a table and writes it to bench/smem_reuse/results.txt
(or the path given as the first argument).

Usage: bench/smem_reuse/run.py [OUT] [--build DIR] [--seed N]
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_pass(ext_opt, path, pre=()):
    """Runs the pass with its report; returns [(kernel, stats)] and seconds."""
    args = [ext_opt, path, "--split-input-file", *pre,
            "--ext-gpu-reuse-shared-memory=report=true", "-o", os.devnull,
            "--mlir-timing", "--mlir-timing-display=list"]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{path}: ext-opt failed:\n{p.stderr[-2000:]}")
    rows = []
    kernel = None
    nbuf = 0
    for line in p.stderr.splitlines():
        m = re.match(r"ext-gpu-reuse-shared-memory: kernel @(\S+?)(:.*)?$", line)
        if m:
            kernel = m.group(1)
            nbuf = 0
            if m.group(2):  # "nothing to share" line
                rows.append((kernel, None))
            continue
        if re.match(r"\s+\d+\s+memref<", line):
            nbuf += 1
        m = re.search(r"total (\d+) B, lower bound (\d+) B, naive sum (\d+) B, "
                      r"best-fit decreasing (\d+) B; ([a-z -]+), (proved optimal|not proved optimal)", line)
        if m and kernel:
            rows.append((kernel, dict(buffers=nbuf, total=int(m.group(1)), bound=int(m.group(2)),
                                      naive=int(m.group(3)), bfd=int(m.group(4)), method=m.group(5),
                                      proved=m.group(6) == "proved optimal")))
    seconds = 0.0
    for line in p.stderr.splitlines():
        m = re.search(r"([\d.]+)\s+\(\s*[\d.]+%\)\s+ExtGPUReuseSharedMemory", line)
        if m:
            seconds += float(m.group(1))
    return rows, seconds


def synthetic_kernel(name, n, rng):
    """A gpu.launch with n workgroup buffers of random sizes and element
    types, each live over a random run of phases (barrier-separated)."""
    phases = max(3, n // 2)
    types = [("f32", 4), ("f16", 2), ("i8", 1), ("f64", 8)]
    bufs = []
    for i in range(n):
        t, _ = rng.choice(types)
        elems = rng.choice([16, 32, 48, 64, 96, 128, 256, 512])
        start = rng.randrange(phases)
        length = rng.randint(1, max(1, phases // 2))
        bufs.append((t, elems, start, min(phases - 1, start + length - 1)))
    attrs = ", ".join(f"%B{i} : memref<{e}x{t}, #gpu.address_space<workgroup>>"
                      for i, (t, e, _, _) in enumerate(bufs))
    body = []
    consts = {"f32": "1.0 : f32", "f16": "1.0 : f16", "i8": "1 : i8", "f64": "1.0 : f64"}
    for t in sorted({b[0] for b in bufs}):
        body.append(f"    %k{t} = arith.constant {consts[t]}")
    for ph in range(phases):
        for i, (t, e, s, en) in enumerate(bufs):
            if s == ph:
                body.append(f"    memref.store %k{t}, %B{i}[%tx] : memref<{e}x{t}, #gpu.address_space<workgroup>>")
            if en == ph:
                body.append(f"    %v{i} = memref.load %B{i}[%tx] : memref<{e}x{t}, #gpu.address_space<workgroup>>")
                body.append(f"    memref.store %v{i}, %out{t}[%tx] : memref<512x{t}>")
        body.append("    gpu.barrier")
    outs = ", ".join(f"%out{t}: memref<512x{t}>" for t in sorted({b[0] for b in bufs}))
    return f"""func.func @{name}({outs}) {{
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup({attrs}) {{
{chr(10).join(body)}
    gpu.terminator
  }}
  return
}}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default=os.path.join(ROOT, "bench/smem_reuse/results.txt"))
    ap.add_argument("--build", default=os.environ.get("EXT_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    ext_opt = os.path.join(args.build, "bin", "ext-opt")
    rng = random.Random(args.seed)

    table = []

    def add(source, rows, seconds):
        for kernel, st in rows:
            if st is None:
                table.append((source, kernel, "-", "-", "-", "-", "-", "-", "1 buffer or none", f"{seconds * 1e3:.2f}"))
                continue
            ratio = st["total"] / st["bound"] if st["bound"] else 1.0
            table.append((source, kernel, str(st["buffers"]), str(st["naive"]), str(st["bfd"]),
                          str(st["total"]), str(st["bound"]), f"{ratio:.3f}",
                          st["method"] + (" (optimal)" if st["proved"] else ""), f"{seconds * 1e3:.2f}"))

    lit_dir = os.path.join(ROOT, "test/GPU/ReuseSharedMemory")
    for f in sorted(os.listdir(lit_dir)):
        if f.endswith(".mlir"):
            rows, sec = run_pass(ext_opt, os.path.join(lit_dir, f))
            add("lit/" + f, rows, sec)
    ex_dir = os.path.join(ROOT, "examples/kernels")
    for f in sorted(os.listdir(ex_dir)):
        if f.endswith(".mlir"):
            rows, sec = run_pass(ext_opt, os.path.join(ex_dir, f), pre=("--ext-schedule-to-gpu",))
            add("example/" + f, rows, sec)
    with tempfile.TemporaryDirectory() as tmp:
        for n in [4, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32]:
            for rep in range(3):
                path = os.path.join(tmp, f"synthetic_{n}_{rep}.mlir")
                with open(path, "w") as fh:
                    fh.write(synthetic_kernel(f"synthetic_{n}_{rep}", n, rng))
                rows, sec = run_pass(ext_opt, path)
                add(f"synthetic n={n}", rows, sec)

    header = ("source", "kernel", "bufs", "naive B", "BFD B", "ext B", "bound B", "ext/bound", "method", "pass ms")
    widths = [max(len(str(r[i])) for r in [header] + table) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in [header] + table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    out = "\n".join(lines) + "\n"
    print(out, end="")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        fh.write(out)
    print(f"written to {args.out}")


if __name__ == "__main__":
    sys.exit(main())
