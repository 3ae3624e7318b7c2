#!/usr/bin/env python3
"""The SASS audit of the GEMM examples' main loops, as issue 36 counts it:
each example compiled at M = N = K = 4096 (its own schedule, the function
remade at that size with ext.Module.resized), assembled by ptxas, and its
k-step read by ../shared/tools/sass/sass_mix.py (the instructions of the
loop that holds the barrier); beside it the nvcc anchors of
../shared/tools/anchors (built with `nvcc -arch=sm_90 -O3 -cubin`).

    PYTHONPATH=build/python_packages /usr/bin/python3 bench/kstep/run.py [--out bench/kstep/results.md]

Columns: SASS instructions per k-step, the math (FFMA, HMMA, HGMMA), shared
reads (LDS, LDSM), integer and address instructions, barriers, SASS per
HMMA, WARPGROUP instructions of the whole kernel (wgmma's arrive/wait), and
whether ptxas serialized wgmma (C7510). Needs ptxas (and nvcc for the
anchors); says what is missing otherwise. No GPU is needed.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from kstep_mix import PTXAS, SASS_MIX, sass_mix_of  # noqa: E402

NVCC = os.path.join(os.path.dirname(PTXAS), "nvcc")
SHARED = os.path.join(ROOT, "..", "shared", "tools")

EXAMPLES = [
    ("gemm_f32", "gemm", "sm_90"),
    ("gemm_f16_mma", "gemm_f16", "sm_90"),
    ("gemm_f16_wgmma", "gemm_f16", "sm_90a"),
]
ANCHORS = [("sgemm.cu (anchor)", "sgemm.cu"), ("hgemm_mma.cu (anchor)", "hgemm_mma.cu")]


def row(name, cubin, log):
    m = sass_mix_of(cubin)
    k = m["kstep"] or m["hot"] or m["whole"]
    math = k["FFMA"] + k["HMMA"] + k["HGMMA"]
    per_hmma = f"{k['total'] / k['HMMA']:.2f}" if k["HMMA"] else "-"
    regs = re.search(r"Used (\d+) registers", log)
    spill = re.search(r"(\d+) bytes spill stores", log)
    return (f"| {name} | {k['total']} | {k['FFMA']}/{k['HMMA']}/{k['HGMMA']} | "
            f"{k['LDS']}/{k['LDSM']} | {k['int/addr']} | {k['BAR']} | {per_hmma} | "
            f"{m['whole']['WARPGROUP']} | {'yes' if 'C7510' in log else 'no'} | "
            f"{regs.group(1) if regs else '?'} | {spill.group(1) if spill else '?'} |"), k, math


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results.md"))
    args = ap.parse_args()
    for path, what in ((PTXAS, "ptxas"), (SASS_MIX, "sass_mix.py")):
        if not os.path.exists(path):
            print(f"bench/kstep: needs {what} ({path})")
            return 0
    import ext
    header = ("| kernel (4096^3) | SASS/k-step | FFMA/HMMA/HGMMA | LDS/LDSM | int+addr | BAR | "
              "SASS/HMMA | WARPGROUP | C7510 | registers | spill B |")
    rows, ints = [], {}
    tmp = tempfile.mkdtemp(prefix="ext-kstep-")
    for example, function, chip in EXAMPLES:
        m = ext.Module.parse(open(os.path.join(ROOT, "examples", "kernels", example + ".mlir")).read())
        m = m.resized(function, {"i": 4096, "j": 4096, "k": 4096})
        ptx = b"".join(m.compile("nvvm", chip, "", 2, False)["binaries"].values()).decode()
        src = os.path.join(tmp, example + ".ptx")
        open(src, "w").write(ptx)
        p = subprocess.run([PTXAS, f"-arch={chip}", "-v", src, "-o", src + ".cubin"],
                           capture_output=True, text=True)
        line, k, _ = row(f"{example} ({chip})", src + ".cubin", p.stdout + p.stderr)
        ints[example] = k
        rows.append(line)
    if os.path.exists(NVCC):
        for name, source in ANCHORS:
            cubin = os.path.join(tmp, source + ".cubin")
            p = subprocess.run([NVCC, "-arch=sm_90", "-O3", "-cubin", "-Xptxas", "-v",
                                os.path.join(SHARED, "anchors", source), "-o", cubin],
                               capture_output=True, text=True)
            if p.returncode == 0:
                line, k, _ = row(name, cubin, p.stdout + p.stderr)
                ints[source] = k
                rows.append(line)
    print(header)
    print("|" + "---|" * 11)
    print("\n".join(rows))
    notes = []
    if "sgemm.cu" in ints:
        a, o = ints["sgemm.cu"]["int/addr"], ints["gemm_f32"]["int/addr"]
        notes.append(f"gemm_f32's k-step has {o} integer and address instructions, "
                     f"{o / a:.2f}x the anchor's {a} (the issue asks at most 1.3x).")
    k = ints["gemm_f16_mma"]
    notes.append(f"gemm_f16_mma issues {k['total'] / k['HMMA']:.2f} SASS instructions per HMMA "
                 "per k-step (the issue asks at most 4).")
    print("\n".join(notes))
    with open(args.out, "w") as f:
        f.write("# The GEMM examples' k-steps in SASS (bench/kstep/run.py)\n\n")
        f.write("ptxas and sass_mix.py on this machine; no GPU. The k-step is the loop holding "
                "the barrier; a column a/b/c counts each of those instructions.\n\n")
        f.write(header + "\n|" + "---|" * 11 + "\n" + "\n".join(rows) + "\n\n")
        f.write("\n".join(notes) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
