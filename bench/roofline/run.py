#!/usr/bin/env python3
"""Static performance model of ext's GEMM kernels (docs/Performance.md).

    bench/roofline/run.py [--build DIR] [--out bench/roofline/results.md] [KERNEL.mlir ...]

For every kernel (default: examples/kernels/gemm_*.mlir) it compiles the
scheduled compute to PTX for sm_90 (ext-gpu-pipeline + ext-translate) and to
gfx942 code (HSACO, disassembled with llvm-objdump), reads off the main loop
what the hardware will have to do, and predicts, for M = N = K = 4096 on an
H200 and an MI300X, which unit bounds the kernel and at what rate. Prints a
table and writes it (with the per-kernel counts) to --out. No GPU is needed.
The schedules are read through ext's Python bindings (BUILD/python_packages):
each kernel's first scheduled compute and its #ext.schedule, typed.

A kernel whose schedule names a vendor's matrix instruction (#ext.mma<m16n8k16>
is NVIDIA's, #ext.mma<mfma_...> AMD's) is compiled for that vendor only; the
other's columns read "-".
"""

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Machine models (datasheet leads; docs/Performance.md says where each is from).
# tensor_tflops: the dense f16 matrix peak; tensor_fraction: the share of it
# the instruction ext emits can reach (mma.sync on Hopper: an assumption,
# docs/Performance.md).
H200 = dict(name="H200", sms=132, clock=1.98e9, fma_per_clk=128, issue_per_clk=4,
            warp=32, smem_bytes_per_clk=128, l2_bytes_per_s=5.5e12,
            regs=65536, smem=228 * 1024, max_threads=2048, max_ctas=32,
            tensor_tflops=989.4, tensor_fraction=0.5)
MI300X = dict(name="MI300X", sms=304, clock=2.1e9, fma_per_clk=64, issue_per_clk=4,
              warp=64, smem_bytes_per_clk=128, l2_bytes_per_s=14.7e12,
              vgprs=512, smem=64 * 1024, max_threads=2048, max_ctas=32,
              tensor_tflops=1307.4, tensor_fraction=1.0)
SIZE = 4096


def tensor_macs_per_clk(m, fraction=None):
    """The matrix units' multiply-adds per SM clock at the model's clock: the
    datasheet peak is quoted at its own clock (H200: 1.83 GHz), so it is
    converted rather than derived from a per-clock rate. `fraction` (the
    model's tensor_fraction by default) is the share of the peak the
    instruction reaches: wgmma is the instruction the peak is quoted for."""
    fraction = m["tensor_fraction"] if fraction is None else fraction
    return m["tensor_tflops"] * 1e12 * fraction / 2 / (m["sms"] * m["clock"])


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(f"roofline: `{' '.join(cmd)}` failed:\n{p.stderr[-3000:]}")
    return p


def first_scheduled(text):
    """The first scheduled compute of MLIR `text`, as ext's bindings read it
    (`ext.Module.computes()`), and its #ext.schedule as a typed attribute
    (`ext._ext.schedules`); (None, None) without one."""
    import ext
    d = next((d for d in ext.Module.parse(text).computes() if d["schedule"]), None)
    return (d, ext._ext.schedules.parse(d["schedule"])) if d else (None, None)


def schedule_of(path):
    """tile, threads, element bytes of A/B, vector, layout of the first
    scheduled compute in `path`."""
    d, schedule = first_scheduled(open(path).read())
    if d is None:
        return None
    f = schedule.fields()
    ins = [o["dtype"] for o in d["operands"][:d["num_inputs"]]]
    elem = {"f16": 2, "bf16": 2, "f32": 4}.get(ins[0], 4) if len(ins) == 2 else 4
    mma = f["mma"].fields()["shape"] if f["mma"] is not None else None
    if mma:
        warps = ", ".join(map(str, f["warps"]))
        layout_text = f"#ext.mma<{mma}" + (f", warps = [{warps}]>" if warps else ">")
    else:
        layout_text = str(f["layout"]) if f["layout"] is not None else "#ext.cyclic"
    # The matrix instruction names the vendor (ApplySchedule rejects it on
    # the other's chips); element-wise schedules and mma = auto go to both.
    import ext.chips
    row = ext.chips.matrix_instruction(mma)
    targets = ({"nv", "amd"} if row is None
               else {"amd"} if row["vendor"] == "amd" else {"nv"})
    return dict(tile=list(f["tile"]), threads=list(f["threads"]), layout=layout_text,
                vector=f["vector"], stages=f["stages"], elem=elem, mma=mma, targets=targets,
                cluster=tuple(f["cluster"][:2]) if f["cluster"] else (1, 1))


def reduce_extent(text):
    """The reduce length of the first scheduled compute in `text`."""
    d, _ = first_scheduled(text)
    return next(extent for _, kind, extent in d["axes"] if kind == "reduce")


def few_k_steps(path, sched):
    """True when the example's k-loop runs no more trips than its pipeline
    is deep: LLVM may peel or reshape so short a loop."""
    k_tile = sched["tile"][-1]
    return math.ceil(reduce_extent(open(path).read()) / k_tile) <= max(sched.get("stages") or 1, 1)


def widen_k(path, out):
    """Writes `path` with the scheduled compute's reduce length (and every
    memref dimension and axis of that length) set to SIZE: at the examples'
    small K (100: 4 k-steps) the AMDGPU backend unrolls the whole k-loop,
    and the model needs one k-step of the loop that runs at K = SIZE."""
    text = open(path).read()
    k = str(reduce_extent(text))
    text = re.sub(r"memref<[^>]*>", lambda m: re.sub(rf"(?<=[<x]){k}(?=x)", str(SIZE), m.group(0)), text)
    text = re.sub(rf'(#ext\.axis<"\w+", \w+, ){k}>', rf"\g<1>{SIZE}>", text)
    with open(out, "w") as f:
        f.write(text)
    return int(k)


def ptx_loops(lines):
    """(start, end) line ranges of loops: a label and the last later branch
    to it (a loop whose copies are skipped on some trips branches back
    twice: both back-edges close one loop)."""
    labels = {}
    loops = {}
    for i, l in enumerate(lines):
        m = re.match(r"^(\$L__BB\d+_\d+):", l)
        if m:
            labels[m.group(1)] = i
        m = re.search(r"\bbra(?:\.uni)?\s+(\$L__BB\d+_\d+);", l)
        if m and m.group(1) in labels and labels[m.group(1)] < i:
            loops[labels[m.group(1)]] = i
    return sorted(loops.items())


def count_ptx(lines):
    c = dict(fma=0, unfused=0, lds=0, lds_bytes=0, lds_widths=set(), sts=0, ldg=0,
             ldg_bytes=0, ldg_widths=set(), bar=0, branches=0, instrs=0, cp_async=0,
             cp_async_bytes=0, cp_wait=0, tma=0, mma=0, mma_macs=0, wgmma=0, wgmma_bytes=0,
             ldmatrix=0, ldmatrix_bytes=0,
             ldmatrix_kinds={}, wgmma_waits={})
    for l in lines:
        t = l.strip()
        if not t or t.startswith(("//", "$", ".", "{", "}")):
            continue
        c["instrs"] += 1
        op = t.split()[0] if not t.startswith("@") else t.split()[1]
        if op.startswith("fma.rn.f32") or op.startswith("fma.rn.f16"):
            c["fma"] += 1
        elif op.startswith(("mul.rn.f32", "add.rn.f32")):
            c["unfused"] += 1
        elif op.startswith("mma.sync"):
            # A warp instruction: mma.sync.aligned.m16n8k16... does m*n*k
            # multiply-adds for the whole warp.
            c["mma"] += 1
            m, n, k = map(int, re.search(r"\.m(\d+)n(\d+)k(\d+)", op).groups())
            c["mma_macs"] += m * n * k
        elif op.startswith("wgmma.mma_async"):
            # A warpgroup instruction: wgmma.mma_async...m64nNk16.f32.f16.f16
            # does m*n*k multiply-adds for 4 warps and reads its 16-bit A
            # (m x k) and B (k x n) from shared memory: a quarter per warp.
            c["mma"] += 1
            c["wgmma"] += 1
            m, n, k = map(int, re.search(r"\.m(\d+)n(\d+)k(\d+)", op).groups())
            c["mma_macs"] += m * n * k / 4
            c["wgmma_bytes"] += (m * k + k * n) * 2 / 4
        elif op.startswith("ldmatrix"):
            # .xN moves N 8x8 matrices of 16-bit elements: 128 bytes each
            # per warp, read from shared memory.
            c["ldmatrix"] += 1
            n = int(re.search(r"\.x(\d)", op).group(1))
            c["ldmatrix_bytes"] += n * 128
            kind = f"x{n}" + (".trans" if ".trans" in op else "")
            c["ldmatrix_kinds"][kind] = c["ldmatrix_kinds"].get(kind, 0) + 1
        width = 1
        m = re.search(r"\.v(\d)", op)
        if m:
            width = int(m.group(1))
        bits = re.search(r"\.[bfsu](\d+)$", op)
        bytes_ = width * (int(bits.group(1)) // 8 if bits else 4)
        if op.startswith("ld.shared"):
            c["lds"] += 1
            c["lds_bytes"] += bytes_
            c["lds_widths"].add(bytes_)
        elif op.startswith("st.shared"):
            c["sts"] += 1
        elif op.startswith("ld.global"):
            c["ldg"] += 1
            c["ldg_bytes"] += bytes_
            c["ldg_widths"].add(bytes_)
        elif op.startswith("bar.sync") or op.startswith("barrier.sync"):
            c["bar"] += 1
        elif op.startswith(("cp.async.ca", "cp.async.cg")):
            # cp.async.cg.shared.global [dst], [src], 16, n: 16 bytes.
            c["cp_async"] += 1
            size = re.search(r"\],\s*(\d+)", t)
            c["cp_async_bytes"] += int(size.group(1)) if size else 0
        elif op.startswith("cp.async.bulk.tensor"):
            # A TMA copy: one thread's instruction moves a whole box.
            c["tma"] += 1
        elif op.startswith("cp.async.wait"):
            c["cp_wait"] += 1
        elif op.startswith("wgmma.wait_group"):
            # The audit's count: how many groups each wait leaves in flight
            # (0: the tensor cores idle until the next k-step's MMAs issue).
            depth = re.search(r"wait_group\.sync\.aligned\s+(\d+)", t)
            key = f"wait_group {depth.group(1) if depth else '?'}"
            c["wgmma_waits"][key] = c["wgmma_waits"].get(key, 0) + 1
        if t.startswith("@") and " bra" in t:
            c["branches"] += 1
    return c


def analyze_ptx(ptx):
    lines = open(ptx).read().splitlines()
    loops = ptx_loops(lines)
    if not loops:
        return None
    # The main loop: the loop holding the most matrix instructions, else
    # multiply-adds; the k-step loop is the innermost loop around it that
    # holds a barrier.
    scored = [(count_ptx(lines[a:b + 1]), (a, b)) for a, b in loops]
    inner_c, (ia, ib) = max(scored, key=lambda x: (x[0]["mma"], x[0]["fma"], -(x[1][1] - x[1][0])))
    ksteps = [(c, r) for c, r in scored if r[0] <= ia and r[1] >= ib and c["bar"] > 0]
    kstep_c, (ka, kb) = min(ksteps, key=lambda x: x[1][1] - x[1][0]) if ksteps else (inner_c, (ia, ib))
    inner_c["branches"] -= 1  # the loop's own back-edge
    return dict(inner=inner_c, kstep=kstep_c, kernel=count_ptx(lines))


def ptxas_info(ptxas, ptx, chip):
    out = run([ptxas, f"-arch={chip}", "-v", ptx, "-o", os.devnull]).stderr
    regs = re.search(r"Used (\d+) registers", out)
    smem = re.search(r"(\d+) bytes smem", out)
    spill = re.search(r"(\d+) bytes spill stores", out)
    return dict(regs=int(regs.group(1)) if regs else 0, smem=int(smem.group(1)) if smem else 0,
                spills=int(spill.group(1)) if spill else 0,
                # ptxas wraps each wgmma in its own warpgroup arrive/wait when
                # it cannot prove the pipeline safe (a call in the loop...).
                serialized="C7510" in out)


LDS_BYTES = {"u8": 1, "i8": 1, "u16": 2, "i16": 2, "b32": 4, "b64": 8, "b96": 12, "b128": 16}


def count_gfx(insts):
    """Counts over (op, text) pairs of gfx942 disassembly; LDS bytes are per
    lane."""
    c = dict(fma=0, unfused=0, lds=0, lds_b128=0, lds_bytes=0, ldg=0, ldg_x4=0,
             mma=0, mma_macs=0, mma_kinds={}, bar=0, instrs=0)
    for op, _ in insts:
        c["instrs"] += 1
        if op.startswith(("v_fma_f32", "v_fmac_f32", "v_pk_fma_f32", "v_fma_mix", "v_fmac_f16", "v_fma_f16")):
            c["fma"] += 1
        elif op.startswith(("v_mul_f32", "v_add_f32")):
            c["unfused"] += 1
        elif op.startswith("v_mfma"):
            # v_mfma_f32_32x32x8_f16: a wave instruction of 32*32*8 multiply-
            # adds; a _Nb suffix (v_mfma_f32_32x32x4_2b_f16) is N blocks.
            m = re.match(r"v_mfma_\w+?_(\d+)x(\d+)x(\d+)(?:_(\d+)b)?", op)
            blocks = int(m.group(4) or 1)
            c["mma"] += 1
            c["mma_macs"] += int(m.group(1)) * int(m.group(2)) * int(m.group(3)) * blocks
            c["mma_kinds"][op] = c["mma_kinds"].get(op, 0) + 1
        elif op.startswith("ds_read"):
            c["lds"] += 1
            c["lds_b128"] += op.startswith("ds_read_b128")
            size = re.search(r"_([biu]\d+)", op)
            # ds_read2_*: two values of the named size.
            c["lds_bytes"] += LDS_BYTES.get(size.group(1), 4) * (2 if op.startswith("ds_read2") else 1)
        elif op.startswith(("global_load", "buffer_load")):
            c["ldg"] += 1
            c["ldg_x4"] += "dwordx4" in op
        elif op == "s_barrier":
            c["bar"] += 1
    return c


def analyze_gfx(objdump, readelf, hsaco):
    """Whole-kernel counts, and the main and k-step loops' counts (found as
    in the PTX: a backward branch, llvm-objdump naming its target
    <symbol+0xoffset>)."""
    text = run([objdump, "-d", hsaco]).stdout
    insts, addr_index, base, loops = [], {}, {}, {}
    sym = None
    for l in text.splitlines():
        h = re.match(r"^([0-9a-f]+) <(\S+)>:", l)
        if h:
            sym = h.group(2)
            base[sym] = int(h.group(1), 16)
            continue
        m = re.match(r"\s+([a-z]\w*)\b.*//\s*([0-9A-F]+):", l)
        if not m:
            continue
        addr = int(m.group(2), 16)
        addr_index[addr] = len(insts)
        insts.append((m.group(1), l))
        t = re.search(r"<(\S+)\+0x([0-9a-f]+)>", l)
        if m.group(1).startswith(("s_branch", "s_cbranch")) and t and t.group(1) in base:
            target = base[t.group(1)] + int(t.group(2), 16)
            if target <= addr and target in addr_index:
                loops[addr_index[target]] = len(insts) - 1
    c = count_gfx(insts)
    notes = run([readelf, "--notes", hsaco]).stdout
    v = re.search(r"\.vgpr_count:\s+(\d+)", notes)
    a = re.search(r"\.agpr_count:\s+(\d+)", notes)
    lds = re.search(r"\.group_segment_fixed_size:\s+(\d+)", notes)
    c["vgprs"] = int(v.group(1)) if v else 0
    c["agprs"] = int(a.group(1)) if a else 0
    c["lds_size"] = int(lds.group(1)) if lds else 0
    c["inner"] = c["kstep"] = None
    if loops:
        scored = [(count_gfx(insts[a:b + 1]), (a, b)) for a, b in sorted(loops.items())]
        inner, (ia, ib) = max(scored, key=lambda x: (x[0]["mma"], x[0]["fma"], -(x[1][1] - x[1][0])))
        ksteps = [(k, r) for k, r in scored if r[0] <= ia and r[1] >= ib and k["bar"] > 0]
        c["inner"] = inner
        c["kstep"] = min(ksteps, key=lambda x: x[1][1] - x[1][0])[0] if ksteps else inner
    return c


def occupancy_nv(m, threads, regs, smem):
    warps = math.ceil(threads / m["warp"])
    regs_per_cta = warps * math.ceil(max(regs, 1) * m["warp"] / 256) * 256
    by_regs = m["regs"] // regs_per_cta if regs_per_cta else m["max_ctas"]
    by_smem = m["smem"] // smem if smem else m["max_ctas"]
    by_threads = m["max_threads"] // threads
    return max(0, min(by_regs, by_smem, by_threads, m["max_ctas"]))


def model(m, sched, inner, kstep, ctas_per_sm, multicast=False):
    """Per SM clock cycles of one k-step of one CTA on each unit; the largest
    bounds the kernel (docs/Performance.md). `inner` and `kstep` are the
    main and k-step loops' counts (PTX, or gfx942 for AMD matrix kernels).
    `multicast`: the kernel's PTX multicasts its tiles over the schedule's
    cluster, so a tile shared by a cluster's CTAs is read from L2 once."""
    ti, tj, tk = sched["tile"][:3]
    threads = math.prod(sched["threads"])
    warps = threads / m["warp"]
    macs_step = ti * tj * tk                              # per CTA
    # Trips of the main loop per k-step: from the matrix instructions'
    # multiply-adds (one instruction per warp) or the per-thread fma.
    if inner["mma"]:
        trips = macs_step / warps / inner["mma_macs"]
    else:
        trips = macs_step / threads / inner["fma"] if inner["fma"] else 0
    # Instructions: the inner loop's mix scaled to the k-step's work, plus
    # what the k-step loop does besides its inner loop (copies, barrier).
    outside = max(0, kstep["instrs"] - inner["instrs"]) if kstep is not inner else 0
    instrs_step = trips * inner["instrs"] + outside
    t = {}
    fraction = 1.0 if inner.get("wgmma") else m["tensor_fraction"]
    if inner["mma"]:
        t["tensor"] = macs_step / tensor_macs_per_clk(m, fraction)
    else:
        t["fma"] = macs_step / m["fma_per_clk"]
    t["issue"] = instrs_step * warps / m["issue_per_clk"]
    # Shared memory: one wavefront moves 128 bytes; a warp's vector load of
    # w bytes per lane takes 32 * w / 128 wavefronts (no broadcast assumed,
    # an upper bound), an ldmatrix .xN N wavefronts (conflict-free rows
    # assumed: the examples pad them), and the copies' stores as many as
    # their bytes.
    copy_bytes = (ti * tk + tk * tj) * sched["elem"]
    read_bytes = trips * (inner["lds_bytes"] * threads + (inner.get("ldmatrix_bytes", 0) +
                                                          inner.get("wgmma_bytes", 0)) * warps)
    t["shared"] = (read_bytes + copy_bytes) / m["smem_bytes_per_clk"]
    # L2 reads: A's tile is shared by the CN CTAs of a cluster row, B's by
    # the CM of a cluster column (TMA multicast); each CTA's shared memory
    # still receives both.
    cm, cn = sched.get("cluster", (1, 1)) if multicast else (1, 1)
    l2_bytes = (ti * tk / cn + tk * tj / cm) * sched["elem"]
    l2_per_clk = m["l2_bytes_per_s"] / (m["sms"] * m["clock"])
    t["L2"] = l2_bytes * ctas_per_sm / l2_per_clk / max(ctas_per_sm, 1)
    # A k-step that waits for all its wgmma groups (wait_group 0) leaves the
    # tensor cores idle while the next step's waits, copies and address math
    # issue: the two do not overlap.
    waits = kstep.get("wgmma_waits", {})
    if "tensor" in t and waits and set(waits) == {"wait_group 0"}:
        t["tensor"] += t["issue"]
    bound = max(t, key=t.get)
    tiles = math.ceil(SIZE / ti) * math.ceil(SIZE / tj)
    wave = m["sms"] * max(ctas_per_sm, 1)
    wave_eff = tiles / (math.ceil(tiles / wave) * wave)
    # The peak the kernel is measured against: the matrix units' dense f16
    # peak for matrix kernels (not the lower mma.sync rate the bound uses),
    # FP32 for the others.
    if inner["mma"]:
        peak, peak_name = m["tensor_tflops"], "dense f16 matrix"
    else:
        peak, peak_name = 2 * m["sms"] * m["fma_per_clk"] * m["clock"] / 1e12, "FP32"
    tflops = 2 * macs_step * m["sms"] * m["clock"] / t[bound] * wave_eff / 1e12
    # The L2 bandwidth the kernel would need for 70% of the peak (None when
    # another unit's bound keeps it below that whatever the L2 moves).
    target = 2 * macs_step * m["sms"] * m["clock"] * wave_eff / (0.7 * peak * 1e12)
    others = max(v for k, v in t.items() if k != "L2")
    l2_for_70 = l2_bytes * m["sms"] * m["clock"] / target / 1e12 if others <= target else None
    return dict(t=t, bound=bound, wave_eff=wave_eff, peak=peak, peak_name=peak_name,
                tflops=tflops, trips=trips, fraction=fraction, l2_for_70=l2_for_70,
                l2_bytes=l2_bytes, cluster=(cm, cn))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernels", nargs="*")
    ap.add_argument("--build", default=os.environ.get("EXT_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "roofline", "results.md"))
    ap.add_argument("--h200-l2-tbps", type=float, default=H200["l2_bytes_per_s"] / 1e12,
                    help="the H200's L2 bandwidth the model assumes, TB/s (cuBLAS's "
                         "256x128 f16 kernel at 754 TFLOP/s pulls more than 5.5)")
    args = ap.parse_args()
    try:  # ext's Python bindings read the kernels' schedules
        import ext  # noqa: F401
    except ImportError:
        sys.path.insert(0, os.path.join(args.build, "python_packages"))
    H200["l2_bytes_per_s"] = args.h200_l2_tbps * 1e12
    kernels = args.kernels or sorted(
        os.path.join(ROOT, "examples", "kernels", k)
        for k in os.listdir(os.path.join(ROOT, "examples", "kernels")) if k.startswith("gemm"))
    bindir = os.path.join(args.build, "bin")
    opt, translate = os.path.join(bindir, "ext-opt"), os.path.join(bindir, "ext-translate")
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    objdump = shutil.which("llvm-objdump-22") or "/usr/lib/llvm-22/bin/llvm-objdump"
    readelf = "/usr/lib/llvm-22/bin/llvm-readelf"

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        def compile_to(src, target, chip, flag, binary):
            """Lowers `src` for `chip` and translates its kernel module into
            `binary`; returns the lowered IR's text and the module's name."""
            lowered = os.path.join(tmp, f"{target}.mlir")
            run([opt, src, f"--ext-gpu-pipeline=target={target} chip={chip}", "-o", lowered])
            text = open(lowered).read()
            mod = re.findall(r"gpu\.module @(\w+)", text)[0]
            run([translate, lowered, flag, f"--ext-gpu-module={mod}", "-o", binary])
            return text, mod

        for path in kernels:
            r = dict(name=os.path.basename(path), sched=schedule_of(path))
            sched = r["sched"]
            threads = math.prod(sched["threads"])
            if "nv" in sched["targets"]:
                ptx = os.path.join(tmp, "k.ptx")
                # wgmma is an sm_90a instruction.
                chip = "sm_90a" if "wgmma" in open(path).read() else "sm_90"
                nv, mod = compile_to(path, "nvvm", chip, "--ext-to-ptx", ptx)
                a = analyze_ptx(ptx)
                if a is None or few_k_steps(path, sched):
                    # The k-loop was unrolled whole (K of two tiles under
                    # three stages), or runs so few trips that LLVM gave
                    # it another shape: count the same kernel at K = SIZE.
                    wide = os.path.join(tmp, "wide.mlir")
                    r["k_example"] = widen_k(path, wide)
                    nv, mod = compile_to(wide, "nvvm", chip, "--ext-to-ptx", ptx)
                    a = analyze_ptx(ptx)
                r["info"] = ptxas_info(ptxas, ptx, chip) if os.path.exists(ptxas) else dict(regs=0, smem=0, spills=-1)
                # Above 48 KB the tiles are dynamic shared memory, which
                # ptxas does not see: the launch says how much.
                dyn = re.search(rf"gpu\.launch_func\s+@{mod}::.*dynamic_shared_memory_size %c(\d+)_i32",
                                nv)
                r["info"]["smem"] += int(dyn.group(1)) if dyn else 0
                r["occ"] = occupancy_nv(H200, threads, r["info"]["regs"], r["info"]["smem"])
                r["inner"], r["kstep"] = a["inner"], a["kstep"]
                r["multicast"] = open(ptx).read().count("multicast::cluster")
                r["mh"] = model(H200, sched, r["inner"], r["kstep"], r["occ"],
                                multicast=r["multicast"] > 0)

            if "amd" in sched["targets"]:
                hsaco = os.path.join(tmp, "k.hsaco")
                compile_to(path, "rocdl", "gfx942", "--ext-to-hsaco", hsaco)
                g = r["g"] = analyze_gfx(objdump, readelf, hsaco)
                if g["mma"] and not (g["inner"] and g["inner"]["mma"]):
                    # The k-loop was unrolled whole: take the loop counts
                    # from the same kernel at K = SIZE.
                    wide = os.path.join(tmp, "wide.mlir")
                    r["k_example"] = widen_k(path, wide)
                    compile_to(wide, "rocdl", "gfx942", "--ext-to-hsaco", hsaco)
                    w = analyze_gfx(objdump, readelf, hsaco)
                    g["inner"], g["kstep"] = w["inner"], w["kstep"]
                # MI300X: occupancy from the registers (512 VGPRs and AGPRs
                # together per lane per SIMD, 4 SIMDs, wave64) and the code
                # object's LDS. The
                # LDS traffic and instruction mix come from the PTX main loop
                # where the kernel has one without matrix instructions (the
                # FMA kernels: the same schedule counts), else from the
                # gfx942 main loop (matrix kernels: v_mfma, ds_read).
                waves = math.ceil(threads / 64)
                regs = -(-g["vgprs"] // 4) * 4 + g["agprs"]
                r["aocc"] = max(1, min(4 * (512 // max(regs, 1)) // max(waves, 1), 65536 // max(g["lds_size"], 1)))
                if "inner" in r and not r["inner"]["mma"]:
                    r["ma"] = model(MI300X, sched, r["inner"], r["kstep"], r["aocc"])
                    r["amd_counts"] = "PTX"
                elif g["inner"]:
                    r["ma"] = model(MI300X, sched, g["inner"], g["kstep"], r["aocc"])
                    r["amd_counts"] = "gfx942"
            rows.append(r)

    def fmt(x, spec=".1f"):
        return "-" if x is None else format(x, spec)

    hdr = ("| kernel | layout | vector | stages | FMA/ld.shared | FMA share | ld.shared widths (B) | "
           "ld.global widths (B) | MACs per global byte | barriers/k-step | cp.async/k-step (B) | "
           "mma.sync/k-step per CTA (per warp) | ldmatrix/k-step per CTA (per warp; B per CTA) | bounds branches | "
           "regs | spills | CTAs/SM | H200 bound | H200 TFLOP/s (% of peak) | "
           "gfx942 FMA/ds_read | v_mfma/k-step per CTA (per wave) | gfx942 VGPRs+AGPRs | MI300X bound | "
           "MI300X TFLOP/s (% of peak) | peak (TFLOP/s) |")
    sep = "|" + "---|" * (hdr.count("|") - 1)
    out = [f"Static model, M = N = K = {SIZE} (docs/Performance.md). Counts are per thread, per trip of the "
           "PTX main loop; matrix instructions per k-step. \"-\": the kernel's matrix "
           "instruction does not exist on that vendor's chips, so it is not compiled for them. "
           "% of peak: of the FP32 peak for FMA kernels, of the dense f16 matrix peak for "
           "tensor-core kernels (the peak column). L2 bandwidth assumed: H200 "
           f"{H200['l2_bytes_per_s'] / 1e12:g} TB/s (--h200-l2-tbps), MI300X "
           f"{MI300X['l2_bytes_per_s'] / 1e12:g} TB/s.", "", hdr, sep]
    for r in rows:
        sched, tile = r["sched"], r["sched"]["tile"]
        threads = math.prod(sched["threads"])
        warps, waves = threads // H200["warp"], threads // MI300X["warp"]
        gbytes = (tile[0] * tile[2] + tile[2] * tile[1]) * sched["elem"]
        cells = [r["name"], sched["layout"], str(sched["vector"]), str(sched["stages"])]
        inner, kstep, mh = r.get("inner"), r.get("kstep"), r.get("mh")
        if inner:
            fma_lds = fmt(inner["fma"] / inner["lds"]) if inner["fma"] and inner["lds"] else "-"
            share = (f"{inner['fma'] / (inner['fma'] + inner['unfused'] / 2):.0%}"
                     if inner["fma"] + inner["unfused"] else "-")
            cells += [fma_lds, share, ",".join(map(str, sorted(inner["lds_widths"]))) or "-",
                      ",".join(map(str, sorted(kstep["ldg_widths"]))) or "-"]
        else:
            cells += ["-"] * 4
        cells.append(fmt(tile[0] * tile[1] * tile[2] / gbytes))
        if inner:
            trips = mh["trips"]
            cells += [str(kstep["bar"]), f"{kstep['cp_async']} ({kstep['cp_async_bytes']})",
                      f"{trips * inner['mma'] * warps:g} ({trips * inner['mma']:g})" if inner["mma"] else "-",
                      f"{trips * inner['ldmatrix'] * warps:g} ({trips * inner['ldmatrix']:g}; "
                      f"{trips * inner['ldmatrix_bytes'] * warps:g})" if inner["ldmatrix"] else "-",
                      str(inner["branches"]), str(r["info"]["regs"]), str(r["info"]["spills"]),
                      str(r["occ"]), mh["bound"], f"{mh['tflops']:.1f} ({mh['tflops'] / mh['peak']:.0%})"]
        else:
            cells += ["-"] * 10
        g, ma = r.get("g"), r.get("ma")
        if ma:
            gi = g["inner"] if r["amd_counts"] == "gfx942" else None
            cells += [fmt(g["fma"] / g["lds"]) if g["fma"] and g["lds"] else "-",
                      f"{ma['trips'] * gi['mma'] * waves:g} ({ma['trips'] * gi['mma']:g})"
                      if gi and gi["mma"] else "-",
                      f"{g['vgprs']}+{g['agprs']}", ma["bound"],
                      f"{ma['tflops']:.1f} ({ma['tflops'] / ma['peak']:.0%})"]
        else:
            cells += ["-"] * 5
        peaks = [f"{x['peak_name']} {x['peak']:.1f} ({mm['name']}"
                 + (f"; bound uses {x['fraction']:.0%} of it, {x['peak'] * x['fraction']:.1f}, "
                    "for mma.sync)" if x["peak_name"] != "FP32" and x["fraction"] < 1 else ")")
                 for x, mm in ((mh, H200), (ma, MI300X)) if x]
        cells.append(", ".join(peaks))
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    for r in rows:
        line = [f"{r['name']}:"]
        inner, kstep, mh = r.get("inner"), r.get("kstep"), r.get("mh")
        if inner:
            lm = ", ".join(f"{v} {k}" for k, v in sorted(inner["ldmatrix_kinds"].items()))
            lm = f" ({lm}; {inner['ldmatrix_bytes']} B per warp)" if lm else ""
            line.append(
                f"PTX main loop {inner['fma']} fma, {inner['unfused']} mul.rn/add.rn, "
                + (f"{inner['mma']} wgmma.mma_async ({inner['mma_macs']:g} MACs per warp, "
                   f"{inner['wgmma_bytes']:g} B of shared memory per warp), " if inner["wgmma"]
                   else f"{inner['mma']} mma.sync ({inner['mma_macs']} MACs per warp), "
                   f"{inner['ldmatrix']} ldmatrix{lm}, " if inner["mma"] else "")
                + f"{inner['lds']} ld.shared ({inner['lds_bytes']} B), {inner['instrs']} instructions, "
                f"{inner['branches']} conditional branches besides the back-edge, {mh['trips']:g} trips per k-step; "
                f"k-step loop {kstep['ldg']} ld.global ({kstep['ldg_bytes']} B), {kstep['bar']} bar.sync, "
                f"{kstep['cp_async']} cp.async ({kstep['cp_async_bytes']} B), {kstep['cp_wait']} "
                f"cp.async.wait_group, {kstep['tma']} cp.async.bulk.tensor"
                + "".join(f", {v} wgmma.{k}" for k, v in sorted(kstep["wgmma_waits"].items()))
                + ("; ptxas serializes the wgmmas (C7510)" if r["info"].get("serialized") else "")
                + (f"; {r['multicast']} bulk copies multicast over a {mh['cluster'][0]}x"
                   f"{mh['cluster'][1]} cluster" if r.get("multicast") else "")
                + f"; {mh['l2_bytes']:.0f} B read from L2 per k-step and CTA"
                + "; H200 clocks per k-step and CTA: "
                + ", ".join(f"{k} {v:.0f}" for k, v in mh["t"].items())
                + f"; wave efficiency {mh['wave_eff']:.2f}; 70% of peak "
                + (f"at an L2 of {mh['l2_for_70']:.1f} TB/s or more." if mh["l2_for_70"]
                   else "out of reach whatever the L2 moves (another unit bounds it)."))
        else:
            line.append("not compiled for sm_90 (AMD matrix instruction).")
        g, ma = r.get("g"), r.get("ma")
        if g:
            line.append(f"gfx942 (whole kernel): {g['fma']} FMA, {g['unfused']} v_mul/v_add, "
                        + "".join(f"{v} {k}, " for k, v in sorted(g["mma_kinds"].items()))
                        + f"{g['lds']} ds_read ({g['lds_b128']} b128), "
                        f"{g['ldg']} global loads ({g['ldg_x4']} dwordx4), {g['lds_size']} B LDS.")
            if not ma:
                line.append("No gfx942 main loop found: no MI300X prediction.")
            elif r["amd_counts"] == "gfx942":
                gi, gk = g["inner"], g["kstep"]
                if "k_example" in r:
                    line.append(f"(The k-loop is unrolled whole at the example's K = {r['k_example']}; "
                                f"the loop counts are of the same kernel at K = {SIZE}.)")
                line.append(f"gfx942 main loop {gi['mma']} v_mfma ({gi['mma_macs']} MACs per wave), "
                            f"{gi['lds']} ds_read ({gi['lds_bytes']} B per lane), {gi['instrs']} instructions, "
                            f"{ma['trips']:g} trips per k-step; k-step loop {gk['bar']} s_barrier, "
                            f"{gk['ldg']} global loads.")
            if ma:
                line.append(f"MI300X ({r['amd_counts']} counts, {r['aocc']} CTAs/CU) clocks per k-step and CTA: "
                            + ", ".join(f"{k} {v:.0f}" for k, v in ma["t"].items())
                            + f"; wave efficiency {ma['wave_eff']:.2f}.")
        else:
            line.append("Not compiled for gfx942 (NVIDIA matrix instruction).")
        out.append(" ".join(line))
    text = "\n".join(out) + "\n"
    print(text)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
