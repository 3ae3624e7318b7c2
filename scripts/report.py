#!/usr/bin/env python3
"""The main job's report: takes one example kernel through the whole
pipeline and prints what a kernel engineer looks at first.

    report.py KERNEL.mlir [--build DIR] [--chip sm_90] [--amd gfx942] [--ptxas PATH|none]

1. ext-apply-schedule: tile grid, reduce iterations, threads per CTA; the
   decomposition's grid, work units and fixups per CTA, and its predicted
   SM utilization on the chip against data-parallel's; workspace bytes.
2. ext-schedule-to-gpu + ext-gpu-reuse-shared-memory: shared-memory bytes with
   and without the reuse pass; ext-gpu-bank-conflicts: the worst bank conflict
   of the shared accesses and the bytes of storage_align padding.
3. ext-gpu-pipeline (nvvm) + ext-translate --ext-to-ptx: the kernels, their
   PTX, and the global bytes each moves per launch counted from its global
   loads and stores (where none is in a loop); ptxas -v for registers,
   static shared memory, spills and barriers as far as it prints them, when
   CUDA's ptxas is present, and the dynamic shared memory the launch asks for.
4. ext-gpu-pipeline (rocdl) + ext-translate --ext-to-hsaco: HSACO and its
   kernel symbols (llvm-readelf).
5. ext-run: the kernel on the CPU emulator against the unscheduled reference
   (the example's @main prints max |kernel - reference|).
Exits non-zero, saying why, if a step fails or the numbers differ
(test/python/test_demo.py runs it as scripts/demo.sh does).
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
    """Runs a step; exits with its command and stderr when it fails."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    except OSError as e:
        hint = "; build first: bash scripts/build.sh" if "/bin/ext-" in cmd[0] else ""
        sys.exit(f"report: cannot run `{cmd[0]}`: {e.strerror}{hint}")
    if p.returncode != 0:
        sys.exit(f"report: `{' '.join(cmd)}` failed (exit {p.returncode}):\n{p.stderr[-3000:]}")
    return p


def plural(n, word):
    return f"{n} {word}" + ("" if str(n) == "1" else "s")


def ptxas_usage(out):
    """ptxas -v's resource usage in words, one clause per entry function,
    each figure only as ptxas printed it: it leaves out shared memory when a
    kernel declares none statically (0 B static: dynamic shared memory is the
    launch's, which ptxas does not see), and older versions leave out
    barriers when there are none."""
    entries = re.split(r"Compiling entry function '([^']*)'", out)[1:]
    if not entries:
        return "no entry function in its output"
    words = []
    for name, text in zip(entries[0::2], entries[1::2]):
        regs = re.search(r"Used (\d+) registers", text)
        smem = re.search(r"(\d+) bytes smem", text)
        spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", text)
        barriers = re.search(r"used (\d+) barriers", text)
        clause = [plural(regs.group(1), "register") if regs else "registers not reported",
                  f"{smem.group(1) if smem else 0} B static smem",
                  (f"{spills.group(1)} B spill stores, {spills.group(2)} B spill loads"
                   if spills and (spills.group(1) != "0" or spills.group(2) != "0")
                   else "0 B spills" if spills else "spills not reported"),
                  plural(barriers.group(1), "barrier") if barriers else "barriers not reported"]
        words.append((f"{name}: " if len(entries) > 2 else "") + ", ".join(clause))
    return "; ".join(words)


def read(path):
    with open(path) as f:
        return f.read()


def find_ptxas(given):
    if given:
        return None if given == "none" else given
    cuda = "/usr/local/cuda/bin/ptxas"
    return shutil.which("ptxas") or (cuda if os.path.exists(cuda) else None)


def dynamic_smem(host, mod):
    """The dynamic shared memory the host's launch of `mod` asks for, in
    words (ext-gpu-dynamic-shared-memory sets it to the footprint
    ext-gpu-reuse-shared-memory packed), or "" when it asks for none."""
    launch = re.search(r"gpu\.launch_func\s+@" + re.escape(mod) +
                       r"::@\w+[^\n]*?dynamic_shared_memory_size\s+(%[\w.$-]+)", host)
    if not launch:
        return ""
    value = re.search(re.escape(launch.group(1)) + r"\s*=\s*arith\.constant\s+(\d+)", host)
    size = f"{value.group(1)} B" if value else f"{launch.group(1)} (computed at run time)"
    return f"; launch: {size} dynamic smem (ext-gpu-reuse-shared-memory's footprint)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel")
    ap.add_argument("--build", default=os.environ.get("EXT_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--chip", default="sm_90")
    ap.add_argument("--amd", default="gfx942")
    ap.add_argument("--ptxas", default=os.environ.get("EXT_PTXAS"),
                    help="CUDA's ptxas (default: on PATH or /usr/local/cuda/bin; "
                         "'none': report without it, as where it is not installed)")
    args = ap.parse_args()
    bindir = os.path.join(args.build, "bin")
    opt, translate, extrun = (os.path.join(bindir, t) for t in ("ext-opt", "ext-translate", "ext-run"))
    name = os.path.basename(args.kernel)
    print(f"kernel        {name}")

    # 1. the tile level, and the decomposition on the chip's SMs: work per
    # CTA, fixups and the predicted utilization against data-parallel's
    # (ext-apply-schedule's report, the cost model of ext/Model/TileWork.h).
    tiled = run([opt, args.kernel, "--ext-apply-schedule"]).stdout
    rem = run([opt, args.kernel, f"--ext-apply-schedule=report=true chip={args.chip}",
               "--mlir-print-op-on-diagnostic=false", "-o", os.devnull]).stderr
    decomps = list(re.finditer(
        r"remark: decomposition (.*?) for (\d+) tiles of (\d+) iterations on (\d+) SMs: "
        r"grid (\d+), waves (\d+), at most (\d+) units and (\d+) iterations per CTA, "
        r"(\d+) fixups, predicted utilization ([\d.]+)(?: \(data_parallel: ([\d.]+)\))?", rem))
    kernels = list(re.finditer(r"ext\.kernel tiles \[([\d, ]+)\] iters (\d+) threads (\d+) "
                               r"decomposition (#ext\.\w+(?:<[^>]*>)?)", tiled))
    if not kernels:
        sys.exit(f"report: ext-apply-schedule made no ext.kernel of {name} (no scheduled ext.compute?)")
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
            print(f"decomposition {d.group(1)}: at most {plural(d.group(7), 'work unit')} and "
                  f"{plural(d.group(8), 'iteration')} per CTA, {plural(d.group(9), 'fixup')}")
            print(f"utilization   predicted on {d.group(4)} SMs ({args.chip}): {d.group(10)}"
                  + (f" (data-parallel: {d.group(11)})" if d.group(11) else ""))
    for m in re.finditer(r"schedule = (#ext\.schedule<.*?>)\}", read(args.kernel).replace("\n", " ")):
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
    rep = run([opt, args.kernel, "--ext-schedule-to-gpu",
               "--ext-gpu-reuse-shared-memory=report=true", "-o", os.devnull]).stderr
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
    conf = run([opt, args.kernel, "--ext-schedule-to-gpu",
                "--ext-gpu-bank-conflicts=summary=true", "--mlir-print-op-on-diagnostic=false",
                "-o", os.devnull]).stderr
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
        host = read(nv)
        modules = re.findall(r"gpu\.module @(\w+)", host)
        if not modules:
            sys.exit(f"report: ext-gpu-pipeline made no gpu.module of {name}: no kernel to report")
        print(f"kernels       {len(modules)} (one gpu.module each)")
        ptxas = find_ptxas(args.ptxas)
        for mod in modules:
            ptx = os.path.join(tmp, mod + ".ptx")
            run([translate, nv, "--ext-to-ptx", f"--ext-gpu-module={mod}", "-o", ptx])
            text = read(ptx)
            lines = len(text.splitlines())
            # Global bytes per launch, counted from the PTX where no global
            # access sits in a loop (bench/ptx_traffic.py).
            per_thread, why = ptx_global_bytes(text)
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
                print(f"PTX {args.chip:9} @{mod}: {lines} lines; ptxas: {ptxas_usage(out)}"
                      f"{dynamic_smem(host, mod)}")
            else:
                print(f"PTX {args.chip:9} @{mod}: {lines} lines (ptxas not found: not assembled)"
                      f"{dynamic_smem(host, mod)}")
        # 4. HSACO
        amd = os.path.join(tmp, "amd.mlir")
        run([opt, args.kernel, f"--ext-gpu-pipeline=target=rocdl chip={args.amd}", "-o", amd])
        readelf = os.path.join(os.path.dirname(shutil.which("FileCheck") or "/usr/lib/llvm-22/bin/x"), "llvm-readelf")
        if not os.path.exists(readelf):
            readelf = "/usr/lib/llvm-22/bin/llvm-readelf"
        for mod in re.findall(r"gpu\.module @(\w+)", read(amd)):
            hsaco = os.path.join(tmp, mod + ".hsaco")
            run([translate, amd, "--ext-to-hsaco", f"--ext-gpu-module={mod}", "-o", hsaco])
            syms = run([readelf, "--symbols", hsaco]).stdout
            kernels = sorted(set(re.findall(r"FUNC\s+GLOBAL\s+\w+\s+\d+\s+(\w+)$", syms, re.M)))
            print(f"HSACO {args.amd:7} @{mod}: {os.path.getsize(hsaco)} bytes, kernel symbol {', '.join(kernels)}")

    # 5. CPU emulator against the reference
    start = time.time()
    out = run([extrun, args.kernel]).stdout
    seconds = time.time() - start
    values = re.findall(r"data =\s*\n\[\s*([-+]?(?:[\d.]+(?:e[-+]?\d+)?|nan|inf))\s*\]", out)
    if not values:
        sys.exit(f"report: ext-run {name} printed no max |kernel - reference| "
                 f"(a memref of one value):\n{out[-2000:]}")
    err = float(values[0])
    print(f"CPU emulator  max |kernel - reference| = {err:g} ({seconds:.1f} s, ext-run --target=cpu)")
    if not err < 1e-5:
        sys.exit(f"report: the kernel differs from the reference by {err:g} on the emulator")
    return 0


if __name__ == "__main__":
    sys.exit(main())
