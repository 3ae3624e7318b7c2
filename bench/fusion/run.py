#!/usr/bin/env python3
"""Fusion: kernels and global-memory traffic, fused against unfused.

GEMM + bias + ReLU with an f16 result, D = f16(max(A @ B + bias, 0)), A and B
f16, accumulation in f32, on mma.sync m16n8k16 (128 x 128 x 32 tiles, 2 x 2
warps, 3 stages). Unfused it is two kernels: the GEMM writes C (f32) and the
epilogue kernel reads it back; fused (the GEMM's schedule names the
epilogue with reverse_compute_at) it is one, and C never reaches memory.

1. Model at 4096^3 on an H200: per kernel, the compulsory global traffic
   (every tensor the kernel reads or writes moved once: tile re-reads from
   L2 are not counted) and the time max(bytes / 4.8 TB/s, flops / half the
   989 TFLOP/s f16 peak, as bench/roofline assumes for mma.sync), summed
   over the kernels.
2. Build: the PTX's kernel entries of each variant (sm_80).
3. Emulator: both variants at 100 x 70 x 96 (ragged), against numpy
   (integer data: exact).
4. Static mix (where ptxas and ../shared/tools/sass are present): the
   fused kernel's k-step must be the plain GEMM's (HMMA, LDSM, LDGSTS and
   integer/address instructions per k-step): the epilogue stays out of the
   main loop (checked).

Softmax, row-wise over M x N f32, y = exp(x - max) / sum(exp(x - max)):
fused (the normalization's schedule computes the row max and row sum at its
row tile with compute_at, the exponentials inlined, X cached in shared
memory) against the four kernels of examples' unfused chain (row max,
exponentials, row sum, division: X read twice, the exponentials written once
and read twice).

5. Model at 4096 x {1k, 4k, 16k} on an H200: the compulsory global traffic
   per kernel (the tensors it reads and writes, once each) and the time at
   4.8 TB/s, summed; launch overheads are not counted. The fused kernel must
   move at most 1.1x one read of X plus one write of Y.
6. The fused kernel's global traffic counted from its PTX (sm_90) at each
   size: the bytes of every global load and store times the block's threads
   and the grid (each runs once per thread: none sits in a loop, which is
   checked), against the model; masked lanes of a ragged row count too, so
   the PTX count is an upper bound.
7. Emulator: fused and unfused at 37 x 999 (ragged) against numpy.

LayerNorm (mean and variance at the row tile) against three kernels, and a
3x3 "same" convolution with its padding inlined (ext.pad + compute_inline:
guarded reads, no padded copy) against a padding kernel and the
convolution: the model's bytes at 4096 x 4096 and 32x56x56x64, and both on
the emulator at a small size.

Usage: PYTHONPATH=build/python_packages /usr/bin/python3 bench/fusion/run.py
Writes bench/fusion/results.md; exits 1 if a check fails.
"""
import os
import sys

import numpy as np

import ext

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import kstep_mix  # noqa: E402  (bench/kstep_mix.py)
from ptx_traffic import ptx_global_bytes  # noqa: E402  (bench/ptx_traffic.py)

HBM = 4.8e12
PEAK_F16 = 989.4e12
MMA_SYNC_FRACTION = 0.5
SCHEDULE = dict(tile=(128, 128, 32), mma="m16n8k16", threads=[4, 32, 1], warps=[2, 2],
                stages=3, vector=8)


def workload(m, n, k):
    A = ext.placeholder((m, k), "float16", name="A")
    B = ext.placeholder((k, n), "float16", name="B")
    bias = ext.placeholder((n,), "float32", name="bias")
    r = ext.reduce_axis(k, name="k")
    C = ext.compute((m, n), lambda i, j: ext.sum(ext.cast(A[i, r], "float32") *
                                                 ext.cast(B[r, j], "float32"), axis=r),
                    name="C")
    D = ext.compute((m, n), lambda i, j: ext.cast(ext.max(C[i, j] + bias[j], 0.0), "float16"),
                    name="D")
    return A, B, bias, C, D


def variants(m, n, k):
    """(name, build items): fused, and unfused (the GEMM scheduled, the
    epilogue its own default-scheduled kernel)."""
    A, B, bias, C, D = workload(m, n, k)
    fused = ext.schedule(C, cache=[A, B], **SCHEDULE).reverse_compute_at(D, "j")
    A, B, bias, C, D = workload(m, n, k)
    gemm = ext.schedule(C, cache=[A, B], **SCHEDULE)
    epilogue = ext.schedule(D, tile=(16, 128), threads=(16, 8))
    return [("fused", [fused]), ("unfused", [gemm, epilogue])]


def model(m, n, k):
    """Per variant: kernels, compulsory bytes, model seconds."""
    a, b, bias, c, d = 2 * m * k, 2 * k * n, 4 * n, 4 * m * n, 2 * m * n
    flops = 2 * m * n * k
    gemm_time = lambda nbytes: max(nbytes / HBM, flops / (PEAK_F16 * MMA_SYNC_FRACTION))
    fused = [(a + b + bias + d, gemm_time(a + b + bias + d))]
    unfused = [(a + b + c, gemm_time(a + b + c)), (c + bias + d, (c + bias + d) / HBM)]
    return {"fused": fused, "unfused": unfused}


def softmax_workload(m, n):
    X = ext.placeholder((m, n), "float32", name="X")
    k1, k2 = ext.reduce_axis(n, name="k1"), ext.reduce_axis(n, name="k2")
    row_max = ext.compute((m,), lambda i: ext.max(X[i, k1], axis=k1), name="row_max")
    e = ext.compute((m, n), lambda i, j: ext.exp(X[i, j] - row_max[i]), name="e")
    row_sum = ext.compute((m,), lambda i: ext.sum(e[i, k2], axis=k2), name="row_sum")
    y = ext.compute((m, n), lambda i, j: e[i, j] / row_sum[i], name="y")
    return X, row_max, e, row_sum, y


SOFTMAX_THREADS = 256


def softmax_variants(m, n):
    """(name, build items, block threads): fused, and the unfused chain."""
    width = 1 << (n - 1).bit_length()
    X, row_max, e, row_sum, y = softmax_workload(m, n)
    fused = ext.schedule(y, tile=(1, width), blocks=["i"], threads=(1, SOFTMAX_THREADS),
                         cache=[e], vector=4)
    fused.compute_at(row_max, "i").compute_inline(e).compute_at(row_sum, "i")
    X, row_max, e, row_sum, y = softmax_workload(m, n)
    rows = dict(tile=(8, n), threads=(8, 1))
    unfused = [ext.schedule(row_max, **rows), ext.schedule(e), ext.schedule(row_sum, **rows),
               ext.schedule(y)]
    return [("fused", [fused]), ("unfused", unfused)]


def softmax_model(m, n):
    """Per variant: (bytes, seconds) per kernel."""
    x, row = 4 * m * n, 4 * m
    mem = lambda nbytes: (nbytes, nbytes / HBM)
    return {"fused": [mem(x + x)],
            "unfused": [mem(x + row), mem(x + row + x), mem(x + row), mem(x + row + x)]}


def softmax_rows(out, failures):
    out += ["\n# Softmax (f32), fused (compute_at) vs unfused (4 kernels)\n",
            "## Model on an H200 (4.8 TB/s), and the fused kernel's traffic counted from "
            "its PTX (sm_90)\n",
            "| M x N | variant | kernels | compulsory global bytes | model time (us) | "
            "vs fused | vs one read of X + one write of Y | PTX-counted bytes |",
            "|---|---|---|---|---|---|---|---|"]
    for n in (1024, 4096, 16384):
        m = 4096
        per = softmax_model(m, n)
        floor = 2 * 4 * m * n
        fused_t = sum(t for _, t in per["fused"])
        for name, kernels in per.items():
            nbytes, t = sum(b for b, _ in kernels), sum(t for _, t in kernels)
            counted = ""
            if name == "fused":
                items = softmax_variants(m, n)[0][1]
                per_thread, why = ptx_global_bytes(ext.build(items, "nvvm", chip="sm_90").ptx)
                if per_thread is None:
                    failures.append(f"softmax {m}x{n}: the PTX's traffic is not countable: {why}")
                    counted = why
                else:
                    ptx_bytes = per_thread * SOFTMAX_THREADS * m
                    counted = f"{ptx_bytes / 2**20:.1f} MiB ({ptx_bytes / nbytes:.3f}x model)"
                    if not 1.0 <= ptx_bytes / nbytes <= 1.1:
                        failures.append(f"softmax {m}x{n}: PTX counts {ptx_bytes} bytes, "
                                        f"the model {nbytes}")
                if nbytes > 1.1 * floor:
                    failures.append(f"softmax {m}x{n}: fused moves {nbytes / floor:.2f}x "
                                    "one read of X + one write of Y")
            out.append(f"| {m} x {n} | {name} | {len(kernels)} | {nbytes / 2**20:.1f} MiB | "
                       f"{t * 1e6:.1f} | {t / fused_t:.2f} | {nbytes / floor:.2f} | {counted} |")

    m, n = 37, 999
    rng = np.random.default_rng(1)
    x = rng.standard_normal((m, n)).astype(np.float32)
    ref = np.exp(x - x.max(axis=1, keepdims=True))
    ref /= ref.sum(axis=1, keepdims=True)
    out += [f"\n## Build (sm_80) and emulator ({m} x {n})\n",
            "| variant | PTX kernel entries | max abs error |", "|---|---|---|"]
    for name, items in softmax_variants(m, n):
        entries = ext.build(items, "nvvm", chip="sm_80").ptx.count(".entry")
        err = float(np.abs(ext.build(items).run(x) - ref).max())
        out.append(f"| {name} | {entries} | {err:.2g} |")
        if err > 1e-6:
            failures.append(f"softmax {name}: max error {err}")
        if (name == "fused") != (entries == 1):
            failures.append(f"softmax {name}: {entries} kernel entries")


def layernorm_variants(m, n):
    """(name, build items): the normalization computing the mean and the
    variance at its row tile, and three kernels."""
    def workload():
        X = ext.placeholder((m, n), "float32", name="X")
        g = ext.placeholder((n,), "float32", name="g")
        b = ext.placeholder((n,), "float32", name="b")
        k1, k2 = ext.reduce_axis(n, name="k1"), ext.reduce_axis(n, name="k2")
        mean = ext.compute((m,), lambda i: ext.sum(X[i, k1] / float(n), axis=k1), name="mean")
        var = ext.compute((m,), lambda i: ext.sum((X[i, k2] - mean[i]) * (X[i, k2] - mean[i]) /
                                                  float(n), axis=k2), name="var")
        y = ext.compute((m, n), lambda i, j: (X[i, j] - mean[i]) * ext.rsqrt(var[i] + 1e-5) *
                        g[j] + b[j], name="y")
        return X, mean, var, y
    width = 1 << (n - 1).bit_length()
    X, mean, var, y = workload()
    fused = ext.schedule(y, tile=(1, width), blocks=["i"], threads=(1, SOFTMAX_THREADS),
                         cache=[X], vector=4).compute_at(mean, "i").compute_at(var, "i")
    X, mean, var, y = workload()
    rows = dict(tile=(8, n), threads=(8, 1))
    return [("fused", [fused]), ("unfused", [ext.schedule(mean, **rows),
                                              ext.schedule(var, **rows), ext.schedule(y)])]


def conv_variants(n, h, w, c, k):
    """(name, build items): the 3x3 "same" convolution with its padding
    inlined (guarded reads), and the padding as a kernel of its own."""
    def workload():
        X = ext.placeholder((n, h, w, c), "float32", name="X")
        Wt = ext.placeholder((3, 3, c, k), "float32", name="Wt")
        Xp = ext.pad(X, (0, 1, 1, 0))
        rh, rw, rc = (ext.reduce_axis(3, name="rh"), ext.reduce_axis(3, name="rw"),
                      ext.reduce_axis(c, name="rc"))
        Y = ext.compute((n, h, w, k), lambda b, y, x, f: ext.sum(
            Xp[b, y + rh, x + rw, rc] * Wt[rh, rw, rc, f], axis=[rh, rw, rc]), name="Y")
        return Xp, Wt, Y
    conv = dict(tile=(1, 4, 4, k, 3, 3, c), blocks=["b", "y", "x"],
                threads=(1, 4, 4, k, 1, 1, 1))
    Xp, Wt, Y = workload()
    fused = ext.schedule(Y, cache=[Xp, Wt], **conv).compute_inline(Xp)
    Xp, Wt, Y = workload()
    return [("fused", [fused]), ("unfused", [ext.schedule(Xp), ext.schedule(Y, cache=[Xp, Wt],
                                                                            **conv)])]


def more_rows(out, failures):
    """LayerNorm and the padded convolution: model bytes on an H200, the
    emulator against numpy at a small size."""
    out += ["\n# LayerNorm (compute_at) and padded 3x3 convolution (pad inlined: guarded "
            "reads)\n",
            "## Model (compulsory bytes, 4.8 TB/s; the convolution's halo re-reads are not "
            "counted)\n",
            "| workload | variant | kernels | compulsory global bytes | model time (us) | "
            "vs fused |", "|---|---|---|---|---|---|"]
    m, n = 4096, 4096
    x, row, vec = 4 * m * n, 4 * m, 4 * n
    rows = {"fused": [x + 2 * vec + x],
            "unfused": [x + row, x + 2 * row, x + 2 * row + 2 * vec + x]}
    bn, h, w, c, k = 32, 56, 56, 64, 64
    xb, xp, wb, yb = 4 * bn * h * w * c, 4 * bn * (h + 2) * (w + 2) * c, 4 * 9 * c * k, \
        4 * bn * h * w * k
    convs = {"fused": [xb + wb + yb], "unfused": [xb + xp, xp + wb + yb]}
    for label, per in ((f"LayerNorm {m} x {n} f32", rows),
                       (f"conv 3x3 same, {bn}x{h}x{w}x{c} -> {k} f32", convs)):
        fused_t = sum(per["fused"]) / HBM
        for name, kernels in per.items():
            t = sum(kernels) / HBM
            out.append(f"| {label} | {name} | {len(kernels)} | {sum(kernels) / 2**20:.1f} MiB | "
                       f"{t * 1e6:.1f} | {t / fused_t:.2f} |")

    out += ["\n## Build (sm_80) and emulator\n",
            "| workload | variant | PTX kernel entries | max abs error |", "|---|---|---|---|"]
    rng = np.random.default_rng(2)
    lm, ln = 37, 768
    xv = rng.standard_normal((lm, ln)).astype(np.float32)
    g, b = rng.standard_normal(ln).astype(np.float32), rng.standard_normal(ln).astype(np.float32)
    mu = xv.mean(axis=1, keepdims=True)
    ref = (xv - mu) / np.sqrt(((xv - mu) ** 2).mean(axis=1, keepdims=True) + 1e-5) * g + b
    cases = [(f"LayerNorm {lm} x {ln}", layernorm_variants(lm, ln), (xv, g, b), ref, 1e-4)]
    cn, ch, cw, cc, ck = 2, 9, 7, 3, 4
    xc = rng.integers(-3, 4, (cn, ch, cw, cc)).astype(np.float32)
    wc = rng.integers(-3, 4, (3, 3, cc, ck)).astype(np.float32)
    xpad = np.pad(xc, ((0, 0), (1, 1), (1, 1), (0, 0)))
    cref = np.zeros((cn, ch, cw, ck), np.float32)
    for dy in range(3):
        for dx in range(3):
            cref += np.einsum("nhwc,ck->nhwk", xpad[:, dy:dy + ch, dx:dx + cw, :], wc[dy, dx])
    cases.append((f"conv {cn}x{ch}x{cw}x{cc} -> {ck}", conv_variants(cn, ch, cw, cc, ck),
                  (xc, wc), cref, 0.0))
    for label, variants, args, expect, tol in cases:
        for name, items in variants:
            entries = ext.build(items, "nvvm", chip="sm_80").ptx.count(".entry")
            err = float(np.abs(ext.build(items).run(*args) - expect).max())
            out.append(f"| {label} | {name} | {entries} | {err:.2g} |")
            if err > tol:
                failures.append(f"{label} {name}: max error {err}")
            if (name == "fused") != (entries == 1):
                failures.append(f"{label} {name}: {entries} kernel entries")


def main():
    failures, out = [], ["# bench/fusion: fused vs unfused\n",
                         "# GEMM + bias + ReLU (f16 out)\n"]
    m = n = k = 4096
    per = model(m, n, k)
    out += [f"## Model at {m} x {n} x {k}, H200 (4.8 TB/s, mma.sync at half of 989 TFLOP/s)\n",
            "| variant | kernels | compulsory global bytes | model time (us) | vs fused |",
            "|---|---|---|---|---|"]
    fused_t = sum(t for _, t in per["fused"])
    for name, kernels in per.items():
        nbytes, t = sum(b for b, _ in kernels), sum(t for _, t in kernels)
        out.append(f"| {name} | {len(kernels)} | {nbytes / 2**20:.1f} MiB | {t * 1e6:.1f} | "
                   f"{t / fused_t:.3f} |")

    out += ["\n## Build (sm_80) and emulator (100 x 70 x 96, exact)\n",
            "| variant | PTX kernel entries | max abs error |", "|---|---|---|"]
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, (100, 96)).astype(np.float16)
    b = rng.integers(-3, 4, (96, 70)).astype(np.float16)
    t = rng.integers(-3, 4, (70,)).astype(np.float32)
    ref = np.maximum(a.astype(np.float32) @ b.astype(np.float32) + t, 0).astype(np.float16)
    ptx = {}
    for name, items in variants(100, 70, 96):
        gpu = ext.build(items, "nvvm", chip="sm_80")
        ptx[name] = gpu.ptx
        entries = gpu.ptx.count(".entry")
        got = ext.build(items).run(a, b, t)
        err = float(np.abs(got.astype(np.float32) - ref.astype(np.float32)).max())
        out.append(f"| {name} | {entries} | {err:g} |")
        if err != 0:
            failures.append(f"{name}: max error {err}")
        if name == "fused" and entries != 1:
            failures.append(f"fused: {entries} kernel entries")

    why = kstep_mix.available()
    if why:
        out.append(f"\n## Static mix: not measured ({why})\n")
    else:
        out += ["\n## Static mix: k-step SASS per CTA at 4096^3 (ptxas, sm_80)\n",
                "| kernel | registers | HMMA | LDSM | LDGSTS | int/addr | STL |",
                "|---|---|---|---|---|---|---|"]
        rows = {}
        for name, items in variants(m, n, k):
            # The unfused variant's first kernel is the plain GEMM.
            mix = kstep_mix.kstep_mix(ext.build(items[:1], "nvvm", chip="sm_80").ptx)
            label = "GEMM + epilogue (fused)" if name == "fused" else "GEMM alone"
            if mix is None:
                out.append(f"| {label} | ptxas/sass_mix failed | | | | | |")
                failures.append(f"{label}: no k-step mix")
                continue
            rows[name] = {c: mix.get(c, 0) for c in ("HMMA", "LDSM", "LDGSTS", "int/addr", "STL")}
            r = rows[name]
            out.append(f"| {label} | {mix['registers']} | {r['HMMA']} | {r['LDSM']} | "
                       f"{r['LDGSTS']} | {r['int/addr']} | {r['STL']} |")
        if len(rows) == 2 and rows["fused"] != rows["unfused"]:
            failures.append(f"the fused k-step {rows['fused']} differs from the GEMM's "
                            f"{rows['unfused']}")

    softmax_rows(out, failures)
    more_rows(out, failures)

    out.append("\n" + ("All checks hold." if not failures else
                       "FAILED:\n" + "\n".join(f"- {f}" for f in failures)))
    text = "\n".join(out) + "\n"
    print(text)
    with open(os.path.join(HERE, "results.md"), "w") as f:
        f.write(text)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
