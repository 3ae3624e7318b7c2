#!/usr/bin/env python3
"""Low-bit weights for LLM decode: bytes, SASS per dequantized weight and a
bound-based model time (issue 54 item 6).

C[M, N] = A[M, K] @ W[N, K]^T with f16 activations, f32 sums and C in f32,
W stored as int4 (group 128, zeros "original": an f16 scale and an f16 zero
per group, in rows), int4/frag (GPTQ's storage: an f16 scale and a uint8
zero per group, packed in ext.quant's fragment layout), int2, int8, NF4, FP4 E2M1 or FP8 E4M3 (group 128, an f16 scale,
no zeros), and the f16 GEMM of the same shape and schedule as the baseline
(W[N, K] in f16, the same TE product without a dequantization). Shapes
N x K = 4096 x 4096, 8192 x 8192 and 28672 x 8192 (a LLaMA-2-70B FFN
matrix), M = 1, 4, 16, 64, 256.

1. Build: per shape and weight type one kernel,
   `ext.quant.quantized_matmul(ext.var("M"), q, mma="m16n8k16", ...)` over a
   symbolic M with decomposition auto on 132 SMs, compiled for sm_80
   (mma.sync); the schedule is Marlin's decode tile: 16 x 256 x 64,
   4 warps of 16 x 64, 3 stages, 8-element copies (bench/decode's 16 x 128
   x 64 spends the same per weight on the conversion but twice as much of
   the loop's fixed cost per weight: int4/frag 1.28-1.35x the roofline). Only shapes matter to
   the build, so the weights are zero-stride numpy arrays of the dtypes and
   shapes `ext.quant.quantize` gives (`spec`; no 235M-weight quantization).
2. Static mix (where ptxas and ../shared/tools/sass are present): ptxas 13
   compiles the PTX for sm_80, sass_mix.py (through bench/kstep_mix.py)
   finds the k-step (the barrier loop around the HMMA loop), and its SASS is
   counted per warp (the loop is one warp's instruction stream) by opcode:
   * HMMA (checked: 32 per k-step, 8 n8 tiles x 4 k16 steps of a 16 x 64
     warp tile over a 64-deep k tile; another count means the k-step found
     is not the main loop);
   * memory (LDS, LDSM, STS, LDG, LDGSTS, LDGDEPBAR, DEPBAR, LDL, STL) and
     control (BAR, BRA);
   * ALU: everything else (integer, conversions, f16/f32 arithmetic,
     selects, the addresses of the copies).
   SASS per dequantized weight = ALU per warp / (the weights one warp
   dequantizes per k-step / 32) = ALU / (64 x 64 / 32) = ALU / 128: what
   one thread issues per weight it converts. It is reported two ways: all
   of the k-step's ALU (an upper bound on the conversion's share), and the
   ALU beyond the f16 GEMM's k-step of the same schedule (which builds B's
   fragments with ldmatrix and no conversion: the conversion's cost,
   assuming the rest of the loop is the same). The anchor is BitBLAS's int4
   to f16 conversion: one lop3.b32 and one sub.f16x2 per two values, 1 SASS
   per weight before the scale (its scale adds one HFMA2/HMUL2 per two
   values). Shared loads building B are counted beside it (LDS per weight).
   Opcodes sass_mix.py leaves unnamed are named where one-instruction PTX
   probes compiled by ptxas 13 for sm_80 showed them (OPCODE_NAMES).
3. Model (every shape, type and M; bound-based: the largest of three lower
   bounds, no latency, no overlap losses), on an H200 SXM (132 SMs; HBM
   4.8 TB/s, ext.chip_info("sm_90")'s product):
   * bytes moved: the compulsory traffic, q.nbytes() (codes, scales, zeros)
     + A (M x K x 2) + C (M x N x 4), each read or written once. At M > 16
     the kernel reads W once per 16-row tile; the model takes those re-reads
     as L2 hits (optimistic where W exceeds the 50 MB L2: the f16 8192^2 and
     28672 x 8192 weights at M = 64, 256). Stream-K's fixups (a 16 x 128
     f32 partial tile written and read per fixup, 128 of them: 2 MB) are
     taken as L2 traffic too.
   * HBM time = bytes / 4.8 TB/s; the HBM roofline of a type is the same.
   * issue time = the k-step's SASS per warp (all of it: HMMA, loads and
     the dequantization's ALU) x the warp-steps (tiles x k-steps x 4 warps)
     / (132 SMs x 4 schedulers x 1 instruction per clock x 1.7 GHz). 1.7
     GHz is the sustained clock of an H100/H200 under load (1.6-1.75 GHz
     measured, boost 1.98: DESIGN.md section 11's calibration points).
   * tensor time = the k-step's HMMA per warp x the warp-steps x 4096
     flops (m16n8k16: M padded to 16 by the tile) / (132 SMs x 2048 flops
     per clock x 1.7 GHz): the dense f16 peak is 4096 flops per clock per
     SM (989.4 TFLOP/s at 1.83 GHz) and mma.sync reaches half of it on
     sm_90 (bench/decode's and bench/roofline's assumption).
     Under Stream-K's 132 CTAs of 4 warps each scheduler holds one warp,
     which cannot issue every clock through its dependences: the issue term
     is a lower bound, like the others.
   * model time = the largest term / the SM utilization predicted for the
     decomposition auto picks at that M (ext.choose_at_launch on 132 SMs:
     the function the kernel's host code calls); the SMs share HBM evenly
     (as bench/decode assumes).
   Checks, at M <= 16 on every shape (the issue's bar for W4):
   * int4/frag's bytes <= 0.3 x the f16 GEMM's;
   * int4/frag's model time <= 1.25 x its HBM roofline (needs the static mix:
     without ptxas it is reported as not evaluated, never as holding).
   The issue budget says how many SASS per warp a k-step may hold for the
   second to hold (the tightest shape and M).
4. Emulator (unless --no-emulate): every type's kernel, the same schedule
   over a symbolic M, at N = 256, K = 512 and M = 1, 17 against numpy's
   dequantization (ext.quant.dequantize) within 1e-5 of the largest |C|.

Usage: PYTHONPATH=build/python_packages /usr/bin/python3 bench/quant/run.py
           [--sms 132] [--clock 1.7e9] [--arch sm_80] [--no-emulate]
Writes bench/quant/results.md; exits 1 if a check fails.
"""
import argparse
import collections
import importlib.util
import math
import os
import re
import subprocess
import sys
import tempfile
import warnings

import numpy as np

import ext
from ext import quant

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import kstep_mix  # noqa: E402  (bench/kstep_mix.py)

SHAPES = [(4096, 4096), (8192, 8192), (28672, 8192)]
MS = [1, 4, 16, 64, 256]
# (label, ext.quant format, zeros mode, packed layout); "f16" is the
# baseline GEMM. "int4/frag": GPTQ's storage (integer zeros, uint8 per group)
# packed once, ahead of time, in ext.quant's fragment layout (one 32-bit
# shared load per eight codes; the code and the zero convert alike, so x - z
# needs no magic-number subtraction).
TYPES = [("int4", "int4", "original", "rows"), ("int4/frag", "int4", "quantized", "fragment"),
         ("int2", "int2", None, "rows"), ("int8", "int8", None, "rows"),
         ("nf4", "nf4", None, "rows"), ("fp4_e2m1", "fp4_e2m1", None, "rows"),
         ("fp8_e4m3", "fp8_e4m3", None, "rows")]
F16 = "f16"
W4 = "int4/frag"
GROUP = 128
BM, BN, BK = 16, 256, 64
WARPS = (1, 4)
NWARPS = WARPS[0] * WARPS[1]
SCHEDULE = dict(tile=(BM, BN, BK), threads=(4, 32, 1), mma="m16n8k16", warps=WARPS, stages=3,
                vector=8)
# One warp's tile: 16 x 32 of C, so per k-step 4 n8 tiles x 4 k16 steps of
# HMMA and 32 x 64 weights dequantized (64 per thread).
HMMA_PER_KSTEP = (BM // 16) * (BN // WARPS[1] // 8) * (BK // 16)
WEIGHTS_PER_THREAD = (BN // WARPS[1]) * BK // 32

# H200 SXM (ext.chip_info("sm_90")): HBM bytes/s; SM issue and tensor rates.
HBM = 4.8e12
SCHEDULERS = 4
TENSOR_FLOPS_PER_CLOCK = 4096  # dense f16 per SM per clock (989.4 TFLOP/s at 1.83 GHz)
MMA_SYNC_FRACTION = 0.5
HMMA_FLOPS = 2 * 16 * 8 * 16
# The bars (issue 54's must-show).
BYTES_BAR = 0.3
ROOFLINE_BAR = 1.25
# BitBLAS: lop3.b32 + sub.f16x2 per two int4 values.
ANCHOR_SASS_PER_WEIGHT = 1.0

# sm_80 opcodes (low 9 bits) sass_mix.py leaves unnamed, as one-instruction
# PTX probes compiled by ptxas 13 showed them. 0x030, which sass_mix names
# HADD2, is also HADD2.F32 (f16 -> f32: cvt.f32.f16 compiles to it).
OPCODE_NAMES = {"op016": "PRMT", "op017": "IMNMX", "op031": "HFMA2", "op032": "HMUL2",
                "op035": "HFMA2.MMA", "op03e": "F2FP", "op104": "F2F", "op106": "I2F"}
EMULATED_MS = [1, 17]


def spec(fmt, zeros, n, k, group=GROUP, layout="rows"):
    """A QuantizedWeight with the shapes and dtypes `ext.quant.quantize`
    gives, over zero-stride arrays (the build reads only shapes; nbytes is
    the full size)."""
    f = quant.FORMATS[fmt]
    z = lambda shape, dt: np.broadcast_to(np.zeros((), dt), shape)  # noqa: E731
    code = np.int8 if f.bits == 8 and f.integer and f.signed else np.uint8
    packed = z((n, k * f.bits // 8), code)
    if layout == "fragment":
        packed = z((n, k // 32, 4), np.uint32)
    g = k // group
    zeros_arr = None
    if zeros is not None:
        zeros_arr = z((n, g), np.uint8 if zeros == "quantized" else np.float16)
    return quant.QuantizedWeight(fmt, n, k, group, zeros, packed, z((n, g), np.float16),
                                 zeros_arr, layout=layout)


def weight_bytes(label, n, k):
    """Bytes of W a GEMM reads: codes, scales and zeros (f16: N x K x 2)."""
    if label == F16:
        return n * k * 2
    _, fmt, zeros, layout = next(t for t in TYPES if t[0] == label)
    return spec(fmt, zeros, n, k, layout=layout).nbytes()


def bytes_moved(label, m, n, k):
    """The compulsory traffic: W, A (f16) read once, C (f32) written once."""
    return weight_bytes(label, n, k) + m * k * 2 + m * n * 4


def f16_matmul(m, n, k, decomposition=None, **schedule_fields):
    """The baseline: the same product with an f16 W[N, K], the same
    schedule (A and W cached; W's fragments by ldmatrix)."""
    A = ext.placeholder((m, k), "float16", name="A")
    W = ext.placeholder((n, k), "float16", name="W")
    r = ext.reduce_axis(k, name="k")
    C = ext.compute((m, n), lambda i, j: ext.sum(
        A[i, r].astype("float32") * W[j, r].astype("float32"), axis=r), name="C")
    s = ext.schedule(C, cache=[A, W], decomposition=decomposition, **schedule_fields)
    return ext.Workload([A, W], C, s)


def workload(label, m, n, k, sms):
    decomposition = ("auto", {"sms": sms})
    if label == F16:
        return f16_matmul(m, n, k, decomposition, **SCHEDULE)
    _, fmt, zeros, layout = next(t for t in TYPES if t[0] == label)
    return quant.quantized_matmul(m, spec(fmt, zeros, n, k, layout=layout),
                                  decomposition=decomposition, **SCHEDULE)


def build(w, target="nvvm"):
    """The kernel, and its build's remarks."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ext.ExtRemark)
        kernel = w.build(target, chip="sm_80")
    return kernel, [str(c.message) for c in caught if issubclass(c.category, ext.ExtRemark)]


def _sass_mix_module():
    spec_ = importlib.util.spec_from_file_location("sass_mix", kstep_mix.SASS_MIX)
    sm = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(sm)
    return sm


def classify(opcodes):
    """HMMA, memory, control and ALU counts of a k-step's opcode Counter."""
    hmma = opcodes.get("HMMA", 0)
    memory = sum(v for n, v in opcodes.items() if n.startswith(("LD", "ST", "DEPBAR")))
    control = sum(v for n, v in opcodes.items() if n in ("BAR", "BRA", "EXIT"))
    total = sum(v for n, v in opcodes.items() if n != "NOP")
    ldsm = sum(v for n, v in opcodes.items() if n.startswith("LDSM"))
    lds = sum(v for n, v in opcodes.items() if n.startswith("LDS")) - ldsm
    return dict(total=total, HMMA=hmma, memory=memory, control=control, LDS=lds, LDSM=ldsm,
                ALU=total - hmma - memory - control)


def kstep_sass(ptx, arch="sm_80"):
    """The k-step of the kernel in `ptx` compiled by ptxas: its opcode
    Counter (sass_mix names, OPCODE_NAMES for the rest), the classes of
    `classify`, registers and spill bytes; or a string saying why not."""
    why = kstep_mix.available()
    if why:
        return why
    sm = _sass_mix_module()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "k.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        p = subprocess.run([kstep_mix.PTXAS, f"-arch={arch}", "-v", path, "-o", path + ".cubin"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            return "ptxas failed: " + (p.stderr.strip().splitlines() or ["?"])[-1][:120]
        analysis = kstep_mix.sass_mix_of(path + ".cubin")
        kstep = analysis.get("kstep") if isinstance(analysis, dict) else None
        if kstep is None:
            return "sass_mix found no k-step"
        a, z = (int(x, 16) for x in kstep["range"])
        code = next(iter(sm.text(path + ".cubin").values()))
        opcodes = collections.Counter(OPCODE_NAMES.get(n, n) for pc, n, _ in sm.decode(code)
                                      if a <= pc <= z)
    regs = re.search(r"Used (\d+) registers", p.stderr)
    spills = [int(x) for x in re.findall(r"(\d+) bytes spill (?:stores|loads)", p.stderr)]
    out = classify(opcodes)
    out.update(opcodes=opcodes, registers=int(regs.group(1)) if regs else None,
               spills=sum(spills))
    return out


def per_weight(mix, base=None):
    """SASS per dequantized weight: the k-step's ALU per warp over the
    weights one thread converts per k-step; beyond `base` (the f16 GEMM's
    k-step) when given."""
    alu = mix["ALU"] - (base["ALU"] if base else 0)
    return alu / WEIGHTS_PER_THREAD


def model(label, m, n, k, mix, sms=132, clock=1.7e9):
    """The bound-based model at one shape and M: bytes, the three terms (s),
    auto's pick and utilization, model time and its ratio to the HBM
    roofline. `mix` (the k-step's classes) None: no issue term."""
    tiles = -(-m // BM) * -(-n // BN)
    iters = -(-k // BK)
    pick, pred = ext.choose_at_launch(tiles, iters, sms, BK)
    util = pred["utilization"]
    warp_steps = tiles * iters * NWARPS
    nbytes = bytes_moved(label, m, n, k)
    hmma = mix["HMMA"] if mix else HMMA_PER_KSTEP
    terms = dict(hbm=nbytes / HBM,
                 tensor=hmma * warp_steps * HMMA_FLOPS
                 / (sms * TENSOR_FLOPS_PER_CLOCK * MMA_SYNC_FRACTION * clock))
    if mix:
        terms["issue"] = mix["total"] * warp_steps / (sms * SCHEDULERS * clock)
    bound = max(terms, key=terms.get)
    time = terms[bound] / util
    roofline = nbytes / HBM
    # The k-step SASS per warp at which the issue term alone would reach
    # the roofline bar.
    budget = ROOFLINE_BAR * roofline * util * sms * SCHEDULERS * clock / warp_steps
    return dict(bytes=nbytes, terms=terms, bound=bound, pick=pick, util=util,
                fixups=pred.get("fixups", 0), time=time, roofline=roofline,
                vs_roofline=time / roofline, budget=budget)


def emulate(label, failures):
    """The bench's schedule at N = 256, K = 512 over a symbolic M on the
    emulator: max |C - reference| / max |reference| per M of EMULATED_MS."""
    n, k = 256, 512
    rng = np.random.default_rng(7)
    w = rng.standard_normal((n, k)).astype(np.float32) * 0.05
    if label == F16:
        kernel, _ = build(f16_matmul(ext.var("M"), n, k, ("auto", {"sms": 132}), **SCHEDULE),
                          "cpu")
        w16 = w.astype(np.float16)
        arrays, wref = (w16,), w16.astype(np.float32)
    else:
        _, fmt, zeros, layout = next(t for t in TYPES if t[0] == label)
        q = quant.quantize(w, fmt, group_size=GROUP, zeros=zeros, layout=layout)
        kernel, _ = build(quant.quantized_matmul(ext.var("M"), q,
                                                 decomposition=("auto", {"sms": 132}),
                                                 **SCHEDULE), "cpu")
        arrays, wref = q.arrays(), quant.dequantize(q)
    errs = []
    for m in EMULATED_MS:
        a = rng.standard_normal((m, k)).astype(np.float16)
        c = kernel.run(a, *arrays)
        ref = a.astype(np.float32) @ wref.T
        err = float(np.abs(c - ref).max()) / float(np.abs(ref).max())
        errs.append(err)
        if not err <= 1e-5:
            failures.append(f"emulator, {label}, M = {m}: relative error {err:.2e}")
    return errs


def source_state():
    """The commit measured, and whether the tree had uncommitted changes
    (the installed ext is what was measured; this says what it came from)."""
    def git(*a):
        p = subprocess.run(["git", "-C", HERE] + list(a), capture_output=True, text=True)
        return p.stdout.strip() if p.returncode == 0 else None
    head = git("rev-parse", "--short", "HEAD")
    if head is None:
        return "unknown (no git)"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return head + (" with uncommitted changes" if dirty else "")


def ptxas_version():
    if kstep_mix.available():
        return "absent"
    p = subprocess.run([kstep_mix.PTXAS, "--version"], capture_output=True, text=True)
    release = re.search(r"release ([\d.]+)", p.stdout)
    return f"{release.group(1) if release else '?'} ({kstep_mix.PTXAS})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sms", type=int, default=132)
    ap.add_argument("--clock", type=float, default=1.7e9, help="sustained SM clock, Hz")
    ap.add_argument("--arch", default="sm_80", help="ptxas -arch for the static mix")
    ap.add_argument("--no-emulate", action="store_true")
    args = ap.parse_args()
    sms, clock, failures, unchecked, out = args.sms, args.clock, [], [], []
    labels = [t[0] for t in TYPES] + [F16]

    # 1-2. Build each kernel once over a symbolic M; its k-step's SASS.
    mixes = {}
    out.append(f"## Kernels: one per shape and weight type over a symbolic M (sm_80, mma.sync "
               f"m16n8k16, tile {BM}x{BN}x{BK}, warps {WARPS[0]}x{WARPS[1]}, 3 stages, auto on "
               f"{sms} SMs); the k-step's SASS per warp (ptxas -arch={args.arch}, sass_mix.py)\n")
    out.append("SASS per weight: the k-step's ALU per warp / the "
               f"{WEIGHTS_PER_THREAD} weights a thread dequantizes per k-step; 'beyond f16': "
               "less the f16 GEMM's ALU (same schedule). Anchor (BitBLAS int4, lop3 + "
               f"sub.f16x2 per two values): {ANCHOR_SASS_PER_WEIGHT:g}.\n")
    out.append("| N x K | W | registers | spill bytes | k-step SASS | HMMA | LDS | LDSM | "
               "ALU | SASS per weight | beyond f16 | anchor | LDS per weight | top ALU opcodes |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n, k in SHAPES:
        for label in [F16] + [t[0] for t in TYPES]:
            kernel, remarks = build(workload(label, ext.var("M"), n, k, sms))
            entries = kernel.ptx.count(".entry")
            if entries != 1:
                failures.append(f"{n}x{k} {label}: {entries} PTX entries, expected 1")
            if "mma.sync.aligned.m16n8k16" not in kernel.ptx or any(
                    "without tensor cores" in r for r in remarks):
                failures.append(f"{n}x{k} {label}: not on mma.sync ({remarks})")
            mix = kstep_sass(kernel.ptx, args.arch)
            if isinstance(mix, str):
                mixes[(n, k, label)] = None
                out.append(f"| {n} x {k} | {label} | not measured: {mix} |" + " |" * 11)
                print(out[-1], flush=True)
                continue
            if mix["HMMA"] != HMMA_PER_KSTEP:
                failures.append(f"{n}x{k} {label}: {mix['HMMA']} HMMA in the k-step found, "
                                f"expected {HMMA_PER_KSTEP} (not the main loop?)")
            mixes[(n, k, label)] = mix
            base = mixes.get((n, k, F16))
            known = {"HMMA", "BAR", "BRA", "EXIT", "NOP"}
            alu_ops = [(o, c) for o, c in mix["opcodes"].most_common()
                       if o not in known and not o.startswith(("LD", "ST", "DEPBAR"))]
            top = ", ".join(f"{o} {c}" for o, c in alu_ops[:6])
            if label == F16:
                cells = ["-", "-", "-", "-"]
            else:
                cells = [f"{per_weight(mix):.2f}",
                         f"{per_weight(mix, base):.2f}" if base else "?",
                         f"{ANCHOR_SASS_PER_WEIGHT:g}",
                         f"{mix['LDS'] / WEIGHTS_PER_THREAD:.2f}"]
            out.append(f"| {n} x {k} | {label} | {mix['registers']} | {mix['spills']} | "
                       f"{mix['total']} | {mix['HMMA']} | {mix['LDS']} | {mix['LDSM']} | "
                       f"{mix['ALU']} | " + " | ".join(cells) + f" | {top} |")
            print(out[-1], flush=True)
    measured = all(v is not None for v in mixes.values())

    # 3. Model at every shape and M.
    out.append(f"\n## Model: H200 SXM ({sms} SMs, HBM {HBM / 1e12:g} TB/s, {clock / 1e9:g} GHz "
               f"sustained, 4 schedulers per SM, mma.sync at {MMA_SYNC_FRACTION:g} of the "
               "dense f16 peak); bound-based: the largest term / auto's predicted "
               "utilization")
    budgets = []
    for n, k in SHAPES:
        out.append(f"\n### N x K = {n} x {k}\n")
        out.append("| W | M | MB moved | / f16 bytes | auto (util) | issue us | tensor us | "
                   "HBM us | bound | model us | / HBM roofline | f16 model / model |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for label in labels:
            for m in MS:
                r = model(label, m, n, k, mixes.get((n, k, label)), sms, clock)
                f = model(F16, m, n, k, mixes.get((n, k, F16)), sms, clock)
                ratio = r["bytes"] / f["bytes"]
                t = r["terms"]
                issue = f"{t['issue'] * 1e6:.2f}" if "issue" in t else "n/a"
                out.append(f"| {label} | {m} | {r['bytes'] / 1e6:.2f} | {ratio:.3f} | "
                           f"{r['pick']} ({r['util']:.3f}) | {issue} | "
                           f"{t['tensor'] * 1e6:.2f} | {t['hbm'] * 1e6:.2f} | {r['bound']} | "
                           f"{r['time'] * 1e6:.2f} | {r['vs_roofline']:.2f} | "
                           f"{f['time'] / r['time']:.2f} |")
                if label != W4 or m > 16:
                    continue
                where = f"{n}x{k}, M = {m}"
                if ratio > BYTES_BAR:
                    failures.append(f"{where}: {W4} moves {ratio:.3f}x the f16 GEMM's bytes "
                                    f"(> {BYTES_BAR})")
                if "issue" not in t:
                    unchecked.append(f"{where}: {W4}'s model time against the roofline "
                                     "(no issue term without the static mix)")
                elif r["vs_roofline"] > ROOFLINE_BAR:
                    failures.append(
                        f"{where}: {W4}'s model time {r['time'] * 1e6:.2f} us is "
                        f"{r['vs_roofline']:.2f}x its HBM roofline (> {ROOFLINE_BAR}; bound by "
                        f"{r['bound']}: {mixes[(n, k, W4)]['total']} SASS per warp per k-step, "
                        f"the bar allows {r['budget']:.0f})")
                if "issue" in t:
                    budgets.append((r["budget"], where))
        print("\n".join(out[-len(labels) * len(MS) - 3:]), flush=True)

    if budgets:
        tight = min(budgets)
        w4 = [mixes.get((n, k, W4)) for n, k in SHAPES]
        f16 = [mixes.get((n, k, F16)) for n, k in SHAPES]
        out.append(
            f"\nThe {W4} k-step may hold at most {tight[0]:.0f} SASS per warp for its model time "
            f"to stay within {ROOFLINE_BAR}x the HBM roofline at every M <= 16 (tightest: "
            f"{tight[1]}); today it holds "
            + ", ".join(str(x["total"]) if x else "?" for x in w4)
            + " (the f16 GEMM's: " + ", ".join(str(x["total"]) if x else "?" for x in f16)
            + f"), by shape. The k-step converts {WEIGHTS_PER_THREAD} weights per thread: "
              f"at the anchor's {ANCHOR_SASS_PER_WEIGHT:g} SASS per weight the conversion is "
              f"{WEIGHTS_PER_THREAD * ANCHOR_SASS_PER_WEIGHT:.0f} of them"
            + (f"; on the f16 GEMM's k-step the bar leaves "
               f"{(tight[0] - f16[0]['total']) / WEIGHTS_PER_THREAD:.2f} SASS per weight for "
               "the conversion (its loads of B included)." if f16[0] else "."))
    elif not measured:
        out.append("\nNo static mix here: the model has no issue term (tensor and HBM only).")

    # 4. Emulator.
    if not args.no_emulate:
        out.append(f"\n## Emulator: N = 256, K = 512, the same schedule over a symbolic M; "
                   "max |C - reference| / max |reference|\n")
        out.append("| W | " + " | ".join(f"M = {m}" for m in EMULATED_MS) + " |")
        out.append("|---|" + "---|" * len(EMULATED_MS))
        for label in labels:
            try:
                errs = emulate(label, failures)
                out.append(f"| {label} | " + " | ".join(f"{e:.1e}" for e in errs) + " |")
            except Exception as e:  # a build or run failure is a finding, not a crash
                failures.append(f"emulator, {label}: {str(e).splitlines()[0][:160]}")
                out.append(f"| {label} | failed |")
            print(out[-1], flush=True)

    out.append("")
    out += ["CHECK NOT EVALUATED: " + u for u in unchecked]
    out += ["CHECK FAILED: " + f for f in failures] or [
        "All evaluated checks hold." if unchecked else "All checks hold."]
    text = ("# bench/quant\n\nMeasured on " + source_state() + " (the ext installed in "
            + os.path.dirname(os.path.dirname(os.path.abspath(ext.__file__)))
            + "), ptxas " + ptxas_version()
            + ".\n\n" + "\n".join(out) + "\n")
    with open(os.path.join(HERE, "results.md"), "w") as f:
        f.write(text)
    print("\n".join(out[-max(1, len(failures) + len(unchecked)):]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
