#!/usr/bin/env python3
"""bench/bank_conflicts: per example kernel, the worst bank conflict of its
shared-memory accesses (ext-gpu-bank-conflicts, static worst case over a warp)
and its shared-memory bytes, with the cached operands laid out

  as written   the example's own schedule;
  none         row-major, unpadded;
  padding      every row padded by one 4-byte word (storage_align);
  swizzle      an XOR swizzle of the row into the 4-byte-word column
               (#ext.swizzle<bits, base, shift>, CUTLASS's Swizzle<B, M, S>).

Columns: worst n-way over the kernel's shared accesses, the sum over its
access sites of the wavefronts one warp request takes (32 banks x 4 B; a
site counts once, not per execution), the number of accesses whose
conflict is unknown, and the workgroup bytes of the launch (the
attributions ext-schedule-to-gpu gives it, before ext-gpu-reuse-shared-memory).
Kernels without cached operands (GEMV, softmax: only reduction scratch)
have one row.

Prints the table and writes it to bench/bank_conflicts/results.txt (or the
path given as the first argument).

Usage: bench/bank_conflicts/run.py [OUT] [--build DIR] [--chip sm_80]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ELEM_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "i16": 2,
              "i32": 4, "i64": 8}


def align(factor, offset):
    return ("align = [#ext.storage_align<dim = 0, factor = %d, offset = %d>]"
            % (factor, offset))


def swizzle(bits, base, shift):
    return "swizzle = #ext.swizzle<bits = %d, base = %d, shift = %d>" % (bits, base, shift)


# Per example: the cached operands' layouts for each variant. Tiles: gemm_f32
# A 64x16, B 16x64 (f32); gemm_f16 A 64x32, B 32x64 (f16). One word of
# padding per row; the swizzle XORs the row's low bits into the word index
# (base = log2(4 / element bytes), shift = log2(row elements) - base).
EXAMPLES = {
    "gemm_f32": {
        "none": [None, None],
        "padding": [align(16, 1), align(32, 1)],
        "swizzle": [swizzle(4, 0, 4), swizzle(5, 0, 6)],
    },
    "gemm_f16": {
        "none": [None, None],
        "padding": [align(32, 2), align(32, 2)],
        "swizzle": [swizzle(4, 1, 4), swizzle(5, 1, 5)],
    },
    "gemv": {},
    "softmax": {},
    # Not an example: bench/bank_conflicts/transpose.mlir, a 32x32 f32 tile
    # written by rows and read down its columns.
    "transpose": {
        "none": [None],
        "padding": [align(32, 1)],
        "swizzle": [swizzle(5, 0, 5)],
    },
}


def cache_list(layouts):
    items = []
    for i, layout in enumerate(layouts):
        items.append("#ext.cache<operand = %d%s>" % (i, ", " + layout if layout else ""))
    return "cache = [" + ", ".join(items) + "]"


def replace_cache(text, layouts):
    """Replaces the (single) `cache = [...]` list of the example."""
    start = text.index("cache = [")
    depth, i = 0, start + len("cache = ")
    while True:
        if text[i] == "[":
            depth += 1
        elif text[i] == "]":
            depth -= 1
            if depth == 0:
                break
        i += 1
    if text.count("cache = [", i) != 0:
        raise RuntimeError("more than one cache list")
    return text[:start] + cache_list(layouts) + text[i + 1:]


def memref_bytes(t):
    m = re.match(r"memref<([0-9x]*)([a-z0-9]+)", t)
    dims = [int(d) for d in m.group(1).split("x") if d]
    n = 1
    for d in dims:
        n *= d
    return n * ELEM_BYTES[m.group(2)]


def measure(ext_opt, text, chip):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        p = subprocess.run([ext_opt, path, "--ext-schedule-to-gpu",
                            "--ext-gpu-bank-conflicts=summary=true chip=" + chip,
                            "--mlir-print-op-on-diagnostic=false"],
                           capture_output=True, text=True)
    finally:
        os.unlink(path)
    if p.returncode != 0:
        raise RuntimeError("ext-opt failed:\n" + p.stderr[-2000:])
    # Kernels in order: the summaries (stderr) and the launches (stdout).
    kernels = []
    for block in re.split(r"^ext-gpu-bank-conflicts: ", p.stderr, flags=re.M)[1:]:
        name = block.splitlines()[0].split(" (")[0]
        wave = 0
        for line in block.splitlines()[2:]:
            m = re.match(r"\s+(\d+|unknown)\s+(\d+|-)\s+(\d+)\s+\S+", line)
            if m and m.group(2) != "-":
                wave += int(m.group(2))
        m = re.search(r"worst: (\d+)-way, (\d+) accesses, (\d+) unknown", block)
        kernels.append(dict(name=name, worst=int(m.group(1)), accesses=int(m.group(2)),
                            unknown=int(m.group(3)), wavefronts=wave))
    launches = [l for l in p.stdout.splitlines() if "gpu.launch blocks" in l]
    smem = []
    for l in launches:
        m = re.search(r"workgroup\((.*?)\)( private| \{)", l)
        total = 0
        if m:
            for t in re.findall(r"memref<[^>]*>", m.group(1)):
                total += memref_bytes(t)
        smem.append(total)
    # Launches without shared accesses print no summary; keep those that do.
    with_access = [s for s, l in zip(smem, launches) if "workgroup(" in l]
    for k, s in zip(kernels, with_access):
        k["smem"] = s
    return kernels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default=os.path.join(ROOT, "bench", "bank_conflicts", "results.txt"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--chip", default="sm_80")
    args = ap.parse_args()
    ext_opt = os.path.join(args.build, "bin", "ext-opt")
    lines = ["ext-gpu-bank-conflicts over examples/kernels (chip=%s: 32 banks x 4 B)" % args.chip,
             "%-10s %-12s %-22s %6s %10s %8s %9s" % ("example", "layout", "kernel", "n-way",
                                                    "wavefronts", "unknown", "shared B")]
    for example, variants in EXAMPLES.items():
        path = os.path.join(ROOT, "examples", "kernels", example + ".mlir")
        if not os.path.exists(path):
            path = os.path.join(ROOT, "bench", "bank_conflicts", example + ".mlir")
        src = open(path).read()
        runs = [("as written", src)]
        for name, layouts in variants.items():
            runs.append((name, replace_cache(src, layouts)))
        for layout, text in runs:
            for k in measure(ext_opt, text, args.chip):
                lines.append("%-10s %-12s %-22s %6d %10d %8d %9d" % (
                    example, layout, k["name"].replace("gpu.launch in ", ""), k["worst"],
                    k["wavefronts"], k["unknown"], k.get("smem", 0)))
    table = "\n".join(lines) + "\n"
    sys.stdout.write(table)
    with open(args.out, "w") as f:
        f.write(table)


if __name__ == "__main__":
    main()
