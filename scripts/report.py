#!/usr/bin/env python3
"""The main job's report: takes one example kernel through the whole
pipeline and prints what a kernel engineer looks at first.

    report.py KERNEL.mlir [--build DIR] [--chip sm_90] [--amd gfx942]

1. ext-apply-schedule: tile grid, reduce iterations, threads per CTA; the
   decomposition's grid, work units and fixups per CTA, and its predicted
   SM utilization on the chip against data-parallel's; workspace bytes.
2. ext-schedule-to-gpu + ext-gpu-reuse-shared-memory: shared-memory bytes with
   and without the reuse pass; ext-gpu-bank-conflicts: the worst bank conflict
   of the shared accesses and the bytes of storage_align padding.
3. ext-gpu-pipeline (nvvm) + ext-translate --ext-to-ptx: the kernels, their
   PTX, and the global bytes each moves per launch counted from its global
   loads and stores (where none is in a loop); ptxas -v for registers and
   shared memory, when CUDA's ptxas is present.
4. ext-gpu-pipeline (rocdl) + ext-translate --ext-to-hsaco: HSACO and its
   kernel symbols (llvm-readelf).
5. ext-run: the kernel on the CPU emulator against the unscheduled reference
   (the example's @main prints max |kernel - reference|).
Exits non-zero if a step fails or the numbers differ.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from ptx_traffic import ptx_global_bytes  # noqa: E402  (bench/ptx_traffic.py)


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(f"report: `{' '.join(cmd)}` failed:\n{p.stderr[-3000:]}")
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel")
    ap.add_argument("--build", default=os.environ.get("EXT_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--chip", default="sm_90")
    ap.add_argument("--amd", default="gfx942")
    args = ap.parse_args()
    bindir = os.path.join(args.build, "bin")
    opt, translate, extrun = (os.path.join(bindir, t) for t in ("ext-opt", "ext-translate", "ext-run"))
    name = os.path.basename(args.kernel)
    print(f"kernel        {name}")

    # 1. the tile level, and the decomposition on the chip's SMs: work per
    # CTA, fixups and the predicted utilization against data-parallel's
    # (ext-apply-schedule's report, the cost model of ext/Support/TileWork.h).
    tiled = run([opt, args.kernel, "--ext-apply-schedule"]).stdout
    rem = run([opt, args.kernel, f"--ext-apply-schedule=report=true chip={args.chip}",
               "--mlir-print-op-on-diagnostic=false", "-o", os.devnull]).stderr
    decomps = list(re.finditer(
        r"remark: decomposition (.*?) for (\d+) tiles of (\d+) iterations on (\d+) SMs: "
        r"grid (\d+), waves (\d+), at most (\d+) units and (\d+) iterations per CTA, "
        r"(\d+) fixups, predicted utilization ([\d.]+)(?: \(data_parallel: ([\d.]+)\))?", rem))
    kernels = list(re.finditer(r"ext\.kernel tiles \[([\d, ]+)\] iters (\d+) threads (\d+) "
                               r"decomposition (#ext\.\w+(?:<[^>]*>)?)", tiled))
    # Per kernel, in order: (CTAs, threads per CTA), for the traffic below.
    launches = []
    for i, m in enumerate(kernels):
        tiles = [int(t) for t in m.group(1).split(",")]
        count = 1
        for t in tiles:
            count *= t
        print(f"tiles         {' x '.join(map(str, tiles))} = {count} output tiles, "
              f"{m.group(2)} reduce iterations each")
        d = decomps[i] if i < len(decomps) else None
        grid = d.group(5) if d else count
        launches.append((int(grid), int(m.group(3))))
        print(f"launch        grid {grid} CTAs x block {m.group(3)} threads")
        if d:
            plural = lambda n, word: f"{n} {word}" + ("" if n == "1" else "s")
            print(f"decomposition {d.group(1)}: at most {plural(d.group(7), 'work unit')} and "
                  f"{plural(d.group(8), 'iteration')} per CTA, {plural(d.group(9), 'fixup')}")
            print(f"utilization   predicted on {d.group(4)} SMs ({args.chip}): {d.group(10)}"
                  + (f" (data-parallel: {d.group(11)})" if d.group(11) else ""))
    for m in re.finditer(r"schedule = (#ext\.schedule<.*?>)\}", open(args.kernel).read().replace("\n", " ")):
        sched = re.sub(r"\s+", " ", m.group(1))
        print("schedule      " + sched)
        layout = re.search(r"layout = (#ext\.\w+(<[^>]*>)?)", sched)
        vector = re.search(r"vector = (\d+)", sched)
        stages = re.search(r"stages = (\d+)", sched)
        print(f"mainloop      layout {layout.group(1) if layout else '#ext.cyclic'}, "
              f"vector {vector.group(1) if vector else 1}, "
              f"stages {stages.group(1) if stages else 1}")

    # 2. shared memory with and without reuse, per kernel, from the pass's
    # report (its footprint line says why when the bytes are the largest
    # buffer's rather than the sum)
    lowered = run([opt, args.kernel, "--ext-schedule-to-gpu"]).stdout
    for ws in re.findall(r"ext\.workspace_bytes = (-?\d+)", lowered):
        size = "sized at launch from the problem" if ws == "-1" else f"{ws} B"
        print(f"workspace     {size} of global memory for partial tiles and flags (zeroed per launch)")
    rep = subprocess.run([opt, args.kernel, "--ext-schedule-to-gpu",
                          "--ext-gpu-reuse-shared-memory=report=true", "-o", os.devnull],
                         capture_output=True, text=True).stderr
    for m in re.finditer(r"kernel @(\S+?)(?::[^\n]*)?\n(?:.*\n)*?  footprint (\d+) B with reuse, "
                         r"(\d+) B without([^\n]*)", rep):
        why = m.group(4).strip(" :")
        why = re.sub(r"the largest buffer, #\d+ \((\d+) B\), holds the bytes of all the others: "
                     r"the footprint is the largest buffer \(plus alignment\), not the sum",
                     r"the largest buffer, not the sum: the k-loop tiles share the bytes of the \1-byte one", why)
        print(f"shared memory @{m.group(1)}: {m.group(3)} B without ext-gpu-reuse-shared-memory, "
              f"{m.group(2)} B with it" + (f" ({why})" if why else ""))

    # 2b. bank conflicts: the worst over the kernels' shared accesses, and
    # the bytes storage_align pads the tiles with (strides of the views).
    conf = subprocess.run([opt, args.kernel, "--ext-schedule-to-gpu",
                           "--ext-gpu-bank-conflicts=summary=true", "--mlir-print-op-on-diagnostic=false",
                           "-o", os.devnull], capture_output=True, text=True).stderr
    worsts = re.findall(r"worst: (\d+)-way, (\d+) accesses, (\d+) unknown", conf)
    padding = 0
    for m in re.finditer(r"memref\.reinterpret_cast %\w+ to offset: \[0\], sizes: \[([\d, ]+)\], "
                         r"strides: \[([\d, ]+)\] : memref<\d+x(f16|f32|f64|i8|i32|i64)", lowered):
        sizes = [int(v) for v in m.group(1).split(",")]
        strides = [int(v) for v in m.group(2).split(",")]
        elems = 1
        for v in sizes:
            elems *= v
        padding += (sizes[0] * strides[0] - elems) * {"f16": 2, "f32": 4, "f64": 8, "i8": 1,
                                                      "i32": 4, "i64": 8}[m.group(3)]
    if worsts:
        print(f"bank conflicts worst {max(int(w[0]) for w in worsts)}-way over "
              f"{sum(int(w[1]) for w in worsts)} shared accesses "
              f"({sum(int(w[2]) for w in worsts)} unknown), {padding} B of padding "
              f"(ext-gpu-bank-conflicts, sm_80 model)")

    with tempfile.TemporaryDirectory() as tmp:
        # 3. PTX
        nv = os.path.join(tmp, "nv.mlir")
        run([opt, args.kernel, f"--ext-gpu-pipeline=target=nvvm chip={args.chip}", "-o", nv])
        modules = re.findall(r"gpu\.module @(\w+)", open(nv).read())
        print(f"kernels       {len(modules)} (one gpu.module each)")
        ptxas = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
        for mod in modules:
            ptx = os.path.join(tmp, mod + ".ptx")
            run([translate, nv, "--ext-to-ptx", f"--ext-gpu-module={mod}", "-o", ptx])
            lines = sum(1 for _ in open(ptx))
            # Global bytes per launch, counted from the PTX where no global
            # access sits in a loop (bench/ptx_traffic.py).
            per_thread, why = ptx_global_bytes(open(ptx).read())
            k = modules.index(mod)
            if per_thread is not None and k < len(launches):
                grid, threads = launches[k]
                moved = per_thread * grid * threads
                print(f"global bytes  @{mod}: {moved} B per launch ({per_thread} B per thread x "
                      f"{threads} threads x {grid} CTAs, from the PTX's global loads and stores)")
            else:
                print(f"global bytes  @{mod}: not counted from the PTX ({why or 'no launch'})")
            if ptxas:
                out = run([ptxas, f"-arch={args.chip}", "-v", ptx, "-o", os.devnull]).stderr
                used = re.search(r"Used (\d+) registers.*?(\d+) bytes smem", out)
                spill = re.search(r"(\d+) bytes spill stores", out)
                print(f"PTX {args.chip:9} @{mod}: {lines} lines; ptxas: {used.group(1)} registers, "
                      f"{used.group(2)} B smem, {spill.group(1) if spill else 0} B spills")
            else:
                print(f"PTX {args.chip:9} @{mod}: {lines} lines (ptxas not found: not assembled)")
        # 4. HSACO
        amd = os.path.join(tmp, "amd.mlir")
        run([opt, args.kernel, f"--ext-gpu-pipeline=target=rocdl chip={args.amd}", "-o", amd])
        readelf = os.path.join(os.path.dirname(shutil.which("FileCheck") or "/usr/lib/llvm-22/bin/x"), "llvm-readelf")
        if not os.path.exists(readelf):
            readelf = "/usr/lib/llvm-22/bin/llvm-readelf"
        for mod in re.findall(r"gpu\.module @(\w+)", open(amd).read()):
            hsaco = os.path.join(tmp, mod + ".hsaco")
            run([translate, amd, "--ext-to-hsaco", f"--ext-gpu-module={mod}", "-o", hsaco])
            syms = run([readelf, "--symbols", hsaco]).stdout
            kernels = sorted(set(re.findall(r"FUNC\s+GLOBAL\s+\w+\s+\d+\s+(\w+)$", syms, re.M)))
            print(f"HSACO {args.amd:7} @{mod}: {os.path.getsize(hsaco)} bytes, kernel symbol {', '.join(kernels)}")

    # 5. CPU emulator against the reference
    start = time.time()
    out = run([extrun, args.kernel]).stdout
    seconds = time.time() - start
    values = re.findall(r"data =\s*\n\[([^\]]*)\]", out)
    err = float(values[0]) if values else float("nan")
    print(f"CPU emulator  max |kernel - reference| = {err:g} ({seconds:.1f} s, ext-run --target=cpu)")
    return 0 if err == 0 or (err < 1e-5) else 1


if __name__ == "__main__":
    sys.exit(main())
