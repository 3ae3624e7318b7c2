#!/usr/bin/env python3
"""Static performance model of ext's GEMM kernels (docs/Performance.md).

    bench/roofline/run.py [--build DIR] [--out bench/roofline/results.md] [KERNEL.mlir ...]

For every kernel (default: examples/kernels/gemm_*.mlir) it compiles the
scheduled compute to PTX for sm_90 (ext-gpu-pipeline + ext-translate) and to
gfx942 code (HSACO, disassembled with llvm-objdump), reads off the main loop
what the hardware will have to do, and predicts, for M = N = K = 4096 on an
H200 and an MI300X, which unit bounds the kernel and at what rate. Prints a
table and writes it (with the per-kernel counts) to --out. No GPU is needed.
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
H200 = dict(name="H200", sms=132, clock=1.98e9, fma_per_clk=128, issue_per_clk=4,
            warp=32, smem_bytes_per_clk=128, l2_bytes_per_s=5.5e12,
            regs=65536, smem=228 * 1024, max_threads=2048, max_ctas=32)
MI300X = dict(name="MI300X", sms=304, clock=2.1e9, fma_per_clk=64, issue_per_clk=4,
              warp=64, smem_bytes_per_clk=128, l2_bytes_per_s=14.7e12,
              vgprs=512, smem=64 * 1024, max_threads=2048, max_ctas=32)
SIZE = 4096


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(f"roofline: `{' '.join(cmd)}` failed:\n{p.stderr[-3000:]}")
    return p


def schedule_of(path):
    """tile, threads, element bytes of A/B, vector, layout of the first
    scheduled compute in `path`."""
    text = open(path).read().replace("\n", " ")
    m = re.search(r"#ext\.schedule<(.*?)>\s*\}", text)
    if not m:
        return None
    s = m.group(1)
    tile = [int(x) for x in re.search(r"tile = \[([\d, ]+)\]", s).group(1).split(",")]
    threads = [int(x) for x in re.search(r"threads = \[([\d, ]+)\]", s).group(1).split(",")]
    layout = re.search(r"layout = (#ext\.\w+(<[^>]*>)?)", s)
    vector = re.search(r"vector = (\d+)", s)
    stages = re.search(r"stages = (\d+)", s)
    ins = re.search(r"ins\(%\w+, %\w+ : memref<[\dx]+x(f16|f32|bf16)>, memref<[\dx]+x(f16|f32|bf16)>\)", text)
    elem = {"f16": 2, "bf16": 2, "f32": 4}[ins.group(1)] if ins else 4
    return dict(tile=tile, threads=threads, layout=layout.group(1) if layout else "#ext.cyclic",
                vector=int(vector.group(1)) if vector else 1,
                stages=int(stages.group(1)) if stages else 1, elem=elem)


def ptx_loops(lines):
    """(start, end) line ranges of loops: a label and a later branch to it."""
    labels = {}
    loops = []
    for i, l in enumerate(lines):
        m = re.match(r"^(\$L__BB\d+_\d+):", l)
        if m:
            labels[m.group(1)] = i
        m = re.search(r"\bbra(?:\.uni)?\s+(\$L__BB\d+_\d+);", l)
        if m and m.group(1) in labels and labels[m.group(1)] < i:
            loops.append((labels[m.group(1)], i))
    return loops


def count_ptx(lines):
    c = dict(fma=0, unfused=0, lds=0, lds_bytes=0, lds_widths=set(), sts=0, ldg=0,
             ldg_bytes=0, ldg_widths=set(), bar=0, branches=0, instrs=0, cp_async=0,
             cp_async_bytes=0, cp_wait=0)
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
        elif op.startswith("cp.async.wait"):
            c["cp_wait"] += 1
        if t.startswith("@") and " bra" in t:
            c["branches"] += 1
    return c


def analyze_ptx(ptx):
    lines = open(ptx).read().splitlines()
    loops = ptx_loops(lines)
    if not loops:
        return None
    # The main loop: the loop holding the most multiply-adds; the k-step loop
    # is the innermost loop around it that holds a barrier.
    scored = [(count_ptx(lines[a:b + 1]), (a, b)) for a, b in loops]
    inner_c, (ia, ib) = max(scored, key=lambda x: (x[0]["fma"], -(x[1][1] - x[1][0])))
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
                spills=int(spill.group(1)) if spill else 0)


def analyze_gfx(objdump, readelf, hsaco):
    text = run([objdump, "-d", hsaco]).stdout
    c = dict(fma=0, unfused=0, lds=0, lds_b128=0, ldg=0, ldg_x4=0)
    for l in text.splitlines():
        m = re.match(r"\s+(v_\w+|ds_\w+|global_\w+|buffer_\w+)", l)
        if not m:
            continue
        op = m.group(1)
        if op.startswith(("v_fma_f32", "v_fmac_f32", "v_pk_fma_f32", "v_fma_mix", "v_fmac_f16", "v_fma_f16")):
            c["fma"] += 1
        elif op.startswith(("v_mul_f32", "v_add_f32")):
            c["unfused"] += 1
        elif op.startswith("ds_read"):
            c["lds"] += 1
            c["lds_b128"] += op.startswith("ds_read_b128")
        elif op.startswith(("global_load", "buffer_load")):
            c["ldg"] += 1
            c["ldg_x4"] += "dwordx4" in op
    notes = run([readelf, "--notes", hsaco]).stdout
    v = re.search(r"\.vgpr_count:\s+(\d+)", notes)
    c["vgprs"] = int(v.group(1)) if v else 0
    return c


def occupancy_nv(m, threads, regs, smem):
    warps = math.ceil(threads / m["warp"])
    regs_per_cta = warps * math.ceil(max(regs, 1) * m["warp"] / 256) * 256
    by_regs = m["regs"] // regs_per_cta if regs_per_cta else m["max_ctas"]
    by_smem = m["smem"] // smem if smem else m["max_ctas"]
    by_threads = m["max_threads"] // threads
    return max(0, min(by_regs, by_smem, by_threads, m["max_ctas"]))


def model(m, sched, inner, kstep, ctas_per_sm):
    """Per SM clock cycles of one k-step of one CTA on each unit; the largest
    bounds the kernel (docs/Performance.md)."""
    ti, tj, tk = sched["tile"][:3]
    threads = math.prod(sched["threads"])
    warps = threads / m["warp"]
    fma_step = ti * tj * tk / threads                     # per thread
    per_fma = lambda x: x / inner["fma"] if inner["fma"] else 0
    lds_step = fma_step * per_fma(inner["lds"])
    lds_bytes_step = fma_step * per_fma(inner["lds_bytes"])
    # Instructions: the inner loop's mix scaled to the k-step's multiply-adds,
    # plus what the k-step loop does besides its inner loop (copies, barrier).
    outside = max(0, kstep["instrs"] - inner["instrs"]) if kstep is not inner else 0
    instrs_step = fma_step * per_fma(inner["instrs"]) + outside
    t = {}
    t["fma"] = fma_step * threads / m["fma_per_clk"]
    t["issue"] = instrs_step * warps / m["issue_per_clk"]
    # Shared memory: one wavefront moves 128 bytes; a warp's vector load of
    # w bytes per lane takes 32 * w / 128 wavefronts (no broadcast assumed,
    # an upper bound), and the copies' stores as many as their bytes.
    copy_bytes = (ti * tk + tk * tj) * sched["elem"]
    t["shared"] = (lds_bytes_step * threads + copy_bytes) / m["smem_bytes_per_clk"]
    l2_per_clk = m["l2_bytes_per_s"] / (m["sms"] * m["clock"])
    t["L2"] = copy_bytes * ctas_per_sm / l2_per_clk / max(ctas_per_sm, 1)
    bound = max(t, key=t.get)
    eff = t["fma"] / t[bound]
    tiles = math.ceil(SIZE / ti) * math.ceil(SIZE / tj)
    wave = m["sms"] * max(ctas_per_sm, 1)
    wave_eff = tiles / (math.ceil(tiles / wave) * wave)
    peak = 2 * m["sms"] * m["fma_per_clk"] * m["clock"] / 1e12
    return dict(t=t, bound=bound, eff=eff, wave_eff=wave_eff, peak=peak,
                tflops=peak * eff * wave_eff, lds_step=lds_step, fma_step=fma_step)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernels", nargs="*")
    ap.add_argument("--build", default=os.environ.get("EXT_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "roofline", "results.md"))
    args = ap.parse_args()
    kernels = args.kernels or sorted(
        os.path.join(ROOT, "examples", "kernels", k)
        for k in os.listdir(os.path.join(ROOT, "examples", "kernels")) if k.startswith("gemm"))
    bindir = os.path.join(args.build, "bin")
    opt, translate = os.path.join(bindir, "ext-opt"), os.path.join(bindir, "ext-translate")
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    objdump = shutil.which("llvm-objdump-22") or "/usr/lib/llvm-22/bin/llvm-objdump"
    readelf = "/usr/lib/llvm-22/bin/llvm-readelf"

    rows, details = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for path in kernels:
            name = os.path.basename(path)
            sched = schedule_of(path)
            nv = os.path.join(tmp, "nv.mlir")
            run([opt, path, "--ext-gpu-pipeline=target=nvvm chip=sm_90", "-o", nv])
            mod = re.findall(r"gpu\.module @(\w+)", open(nv).read())[0]
            ptx = os.path.join(tmp, "k.ptx")
            run([translate, nv, "--ext-to-ptx", f"--ext-gpu-module={mod}", "-o", ptx])
            a = analyze_ptx(ptx)
            info = ptxas_info(ptxas, ptx, "sm_90") if os.path.exists(ptxas) else dict(regs=0, smem=0, spills=-1)
            threads = math.prod(sched["threads"])
            occ = occupancy_nv(H200, threads, info["regs"], info["smem"])
            inner, kstep = a["inner"], a["kstep"]
            mh = model(H200, sched, inner, kstep, occ)

            amd = os.path.join(tmp, "amd.mlir")
            run([opt, path, "--ext-gpu-pipeline=target=rocdl chip=gfx942", "-o", amd])
            hsaco = os.path.join(tmp, "k.hsaco")
            run([translate, amd, "--ext-to-hsaco", f"--ext-gpu-module={mod}", "-o", hsaco])
            g = analyze_gfx(objdump, readelf, hsaco)
            # MI300X: LDS traffic and instruction mix from the PTX model's
            # schedule counts; occupancy from the VGPRs (512 per lane per SIMD,
            # 4 SIMDs, wave64).
            waves = math.ceil(threads / 64)
            amd_occ = max(1, min(4 * (512 // max(g["vgprs"], 1)) // max(waves, 1), 65536 // max(info["smem"], 1)))
            ma = model(MI300X, sched, inner, kstep, amd_occ)

            fma_per_lds = inner["fma"] / inner["lds"] if inner["lds"] else float("inf")
            fma_share = inner["fma"] / (inner["fma"] + inner["unfused"] / 2) if inner["fma"] + inner["unfused"] else 0
            gbytes = (sched["tile"][0] * sched["tile"][2] + sched["tile"][2] * sched["tile"][1]) * sched["elem"]
            fma_per_gbyte = sched["tile"][0] * sched["tile"][1] * sched["tile"][2] / gbytes
            rows.append((name, sched, inner, kstep, info, occ, mh, g, ma, fma_per_lds, fma_share, fma_per_gbyte, amd_occ))

    hdr = ("| kernel | layout | vector | stages | FMA/ld.shared | FMA share | ld.shared widths (B) | "
           "ld.global widths (B) | FMA per global byte | barriers/k-step | cp.async/k-step (B) | bounds branches | "
           "regs | spills | "
           "CTAs/SM | H200 bound | H200 TFLOP/s (% of FP32 peak) | gfx942 FMA/ds_read | gfx942 VGPRs | MI300X bound | MI300X TFLOP/s |")
    sep = "|" + "---|" * (hdr.count("|") - 1)
    out = [f"Static model, M = N = K = {SIZE} (docs/Performance.md). Counts are per thread, per trip of the PTX main loop.", "", hdr, sep]
    for (name, sched, inner, kstep, info, occ, mh, g, ma, fpl, share, fpg, aocc) in rows:
        out.append(
            f"| {name} | {sched['layout']} | {sched['vector']} | {sched['stages']} | {fpl:.1f} | {share:.0%} | "
            f"{','.join(map(str, sorted(inner['lds_widths']))) or '-'} | "
            f"{','.join(map(str, sorted(kstep['ldg_widths']))) or '-'} | {fpg:.1f} | {kstep['bar']} | "
            f"{kstep['cp_async']} ({kstep['cp_async_bytes']}) | "
            f"{inner['branches']} | {info['regs']} | {info['spills']} | {occ} | {mh['bound']} | "
            f"{mh['tflops']:.1f} ({mh['tflops'] / mh['peak']:.0%}) | "
            f"{g['fma'] / g['lds'] if g['lds'] else 0:.1f} | {g['vgprs']} | {ma['bound']} | {ma['tflops']:.1f} |")
    out.append("")
    for (name, sched, inner, kstep, info, occ, mh, g, ma, *_rest) in rows:
        out.append(f"{name}: PTX main loop {inner['fma']} fma, {inner['unfused']} mul.rn/add.rn, "
                   f"{inner['lds']} ld.shared ({inner['lds_bytes']} B), {inner['instrs']} instructions, "
                   f"{inner['branches']} conditional branches besides the back-edge; k-step loop "
                   f"{kstep['ldg']} ld.global ({kstep['ldg_bytes']} B), {kstep['bar']} bar.sync, "
                   f"{kstep['cp_async']} cp.async ({kstep['cp_async_bytes']} B), {kstep['cp_wait']} "
                   f"cp.async.wait_group; H200 clocks per k-step and CTA: "
                   + ", ".join(f"{k} {v:.0f}" for k, v in mh["t"].items())
                   + f"; wave efficiency {mh['wave_eff']:.2f}. gfx942 (whole kernel): {g['fma']} FMA, "
                   f"{g['unfused']} v_mul/v_add, {g['lds']} ds_read ({g['lds_b128']} b128), "
                   f"{g['ldg']} global loads ({g['ldg_x4']} dwordx4).")
    text = "\n".join(out) + "\n"
    print(text)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
