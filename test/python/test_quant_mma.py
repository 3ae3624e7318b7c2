"""The dequantization in the operand path (issue 54 item 3): a W4A16 GEMM
whose inlined producer dequantizes packed weights, scheduled with
mma="m16n8k16", runs on mma.sync with the weight's fragment built a register
at a time in the instruction's B layout (the packed byte and the group's
scale read from shared memory once per register, the two nibbles converted
by the magic-number trick, f16x2 arithmetic); A keeps ldmatrix. One build
over a symbolic M is right against numpy's dequantization at M = 1, 5, 16,
33 with f16 and bf16 activations, for int4, int2, int8, NF4, FP4 and FP8
weights, and on gfx942's MFMA; the kernel stores only C and reads W's packed
bytes once."""

import os
import re
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import ext
from te_helpers import PTXAS, ptxas_verbose
from ext import quant

N, K = 64, 256
# Warp tiles of 16 x 16 (two n8 tiles per warp), two 16-deep steps per k tile.
MMA = dict(tile=(16, 64, 32), threads=(4, 32, 1), mma="m16n8k16", warps=(1, 4))
ZEROS = {"int4": "original", "int8": None, "nf4": None, "fp8_e4m3": None, "int2": None,
         "fp4_e2m1": None, "fp8_e5m2": None}
OBJDUMP = next((p for p in ("/usr/lib/llvm-22/bin/llvm-objdump",
                            shutil.which("llvm-objdump-22")) if p and os.path.exists(p)), None)


def weights(fmt, seed=1, dtype="float16"):
    w = np.random.default_rng(seed).standard_normal((N, K)).astype(np.float32) * 0.05
    return quant.quantize(w, fmt, group_size=128, zeros=ZEROS[fmt], dtype=dtype)


def build(workload, target, chip):
    """The kernel, and the remarks its build made."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ext.ExtRemark)
        kernel = workload.build(target, chip=chip)
    return kernel, [str(w.message) for w in caught if issubclass(w.category, ext.ExtRemark)]


def activations(m, seed, act="float16"):
    """A as passed (f16, or bf16's bits) and as float32 values."""
    a = np.random.default_rng(seed).standard_normal((m, K)).astype(np.float32)
    if act == "bfloat16":
        bits = ext.dtypes.to_bf16_bits(a)
        return bits, ext.dtypes.from_bf16_bits(bits)
    return a.astype(np.float16), a.astype(np.float16).astype(np.float32)


def check(kernel, q, m, seed, act="float16"):
    a, values = activations(m, seed, act)
    c = kernel.run(a, *q.arrays())
    ref = values @ quant.dequantize(q).T
    # The same f16 W (each op rounded alike), exact f16 products; f32 sums
    # in another order.
    err = float(np.abs(c - ref).max())
    assert err <= 1e-5 * float(np.abs(ref).max()), (m, err)


@pytest.mark.parametrize("act", ["float16", "bfloat16"])
def test_one_build_serves_every_m(act):
    # W4A16 (and W4A16 in bf16: the weight dequantized in bf16, bf16 scales
    # and zeros) over a symbolic M: the same kernel at M = 1, 5, 16, 33.
    q = weights("int4", dtype=act)
    kernel, remarks = build(quant.quantized_matmul(ext.var("M"), q, act=act, **MMA),
                            "cpu", "sm_80")
    assert not any("without tensor cores" in r for r in remarks), remarks
    for m in (1, 5, 16, 33):
        check(kernel, q, m, m, act)


@pytest.mark.parametrize("fmt", ["int2", "int8", "nf4", "fp4_e2m1", "fp8_e4m3", "fp8_e5m2"])
@pytest.mark.parametrize("act", ["float16", "bfloat16"])
def test_other_formats_take_the_same_path(fmt, act):
    q = weights(fmt, 2, dtype=act)
    kernel, remarks = build(quant.quantized_matmul(ext.var("M"), q, act=act, **MMA),
                            "cpu", "sm_80")
    assert not any("without tensor cores" in r for r in remarks), remarks
    for m in (1, 33):
        check(kernel, q, m, 3, act)


def test_only_c_is_stored_and_w_is_read_packed():
    # Nothing but C is stored to global memory (no dequantized W, which
    # exists only as the dead buffer of its inlined compute until
    # canonicalization), and the packed bytes move into shared memory once:
    # a 64 x 16-byte tile per 32-deep k-step per 64-column block, N x K / 2
    # bytes per launch, plus the scales' and zeros' 64 x 1 tiles.
    q = weights("int4")
    kernel, _ = build(quant.quantized_matmul(16, q, **MMA), "nvvm", "sm_80")
    lowered = kernel.mlir("canonicalize")
    assert f"memref<{N}x{K}xf16>" not in lowered
    stores = re.findall(r"(?:memref|vector)\.store [^,]+, (%\w+)\[.*: (memref<.*)", lowered)
    globals_ = {dest for dest, t in stores if "address_space" not in t}
    assert globals_ == {"%arg4"}, stores  # C; A, Wq, S, Z are %arg0-3
    scheduled = kernel.mlir("ext-apply-schedule")
    copies = re.findall(r"ext\.copy (%arg\d)\[.*?: memref<[^>]*> to memref<(\d+)x(\d+)x(\w+)",
                        scheduled)
    tiles = {src: (int(r), int(c), t) for src, r, c, t in copies}
    assert tiles["%arg1"] == (64, 16, "i8"), tiles
    steps, blocks = K // 32, N // 64
    assert 64 * 16 * steps * blocks == N * K // 2
    assert tiles["%arg2"][:2] == tiles["%arg3"][:2] == (64, 1), tiles


def test_ptx_has_mma_sync_and_ldmatrix_for_a_only(tmp_path):
    q = weights("int4")
    kernel, remarks = build(quant.quantized_matmul(16, q, **MMA), "nvvm", "sm_80")
    assert remarks == [], remarks
    ptx = kernel.ptx
    # Per k tile: two 16-deep steps, each one ldmatrix.x4 of A and two
    # mma.sync (two n8 tiles); B's fragments are built in registers.
    assert ptx.count("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") == 4
    assert ptx.count("ldmatrix.sync.aligned.m8n8.x4") == 2
    assert "ldmatrix.sync.aligned.m8n8.x2" not in ptx
    # The conversion: two nibbles ORed into 0x6400 (1024.0) halves, one
    # f16x2 subtraction; no integer-to-float converts.
    assert "cvt.rn.f16.u" not in ptx and "cvt.rn.f16.s" not in ptx
    # Per register one lop3.b32 ((w & 0x000F000F) | 0x64006400, BitBLAS's
    # form) and one f16x2 subtraction: four registers per k tile and warp.
    assert ptx.count("lop3.b32") == 8 and "983055, 1677747200, 0xEA" in ptx, ptx
    assert "sub.rn.f16x2" in ptx or "add.rn.f16x2" in ptx
    if not os.path.exists(PTXAS):
        pytest.skip("needs ptxas")
    r = ptxas_verbose(ptx, "sm_80", tmp_path, "w4a16")
    assert r.returncode == 0, r.stderr
    assert "warning" not in r.stderr and "0 bytes spill stores" in r.stderr, r.stderr


@pytest.mark.parametrize("fmt", ["int4", "int2", "int8", "nf4", "fp4_e2m1", "fp8_e4m3"])
def test_gfx942_mfma(fmt):
    # MFMA's per-lane operand items (four consecutive k) are built the same
    # way, for every format.
    q = weights(fmt)
    schedule = dict(tile=(16, 64, 32), threads=(4, 64, 1), mma="mfma_16x16x16", warps=(1, 4))
    kernel, remarks = build(quant.quantized_matmul(5, q, **schedule), "rocdl", "gfx942")
    assert remarks == [], remarks
    check(kernel, q, 5, 4)
    if OBJDUMP is None:
        return
    path = f"/tmp/test_quant_mma_gfx942_{fmt}_{os.getpid()}.hsaco"
    with open(path, "wb") as f:
        f.write(kernel.hsaco)
    r = subprocess.run([OBJDUMP, "-d", "--mcpu=gfx942", path], capture_output=True, text=True)
    os.remove(path)
    assert r.returncode == 0, r.stderr
    assert "v_mfma_f32_16x16x16_f16" in r.stdout


def test_wgmma_refuses_with_a_remark():
    # wgmma reads B from shared memory through descriptors: a dequantized B
    # runs on CUDA cores, and the remark says why.
    q = weights("int4")
    schedule = dict(tile=(64, 64, 32), threads=None, mma="wgmma_k16", warps=(4, 1))
    _, remarks = build(quant.quantized_matmul(16, q, **schedule), "nvvm", "sm_90a")
    assert any("a factor computed from its inputs (a dequantized operand) is built in "
               "registers" in r for r in remarks), remarks


def test_mma_auto_picks_mma_sync_on_sm_90a_and_says_why():
    # mma = "auto" takes a dequantized operand: mma.sync on sm_80 and, with
    # the reason wgmma cannot take it, on sm_90a; MFMA on gfx942.
    q = weights("int4")
    auto = dict(MMA, mma="auto")
    kernel, remarks = build(quant.quantized_matmul(ext.var("M"), q, **auto), "nvvm", "sm_90a")
    assert remarks == ["mma = auto uses mma.sync (m16n8k16) on sm_90a, not wgmma: a factor "
                       "computed from its inputs (a dequantized operand) is built in registers, "
                       "and wgmma reads B from shared memory"], remarks
    assert kernel.ptx.count("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") == 4
    kernel, remarks = build(quant.quantized_matmul(ext.var("M"), q, **auto), "cpu", "sm_80")
    assert remarks == [], remarks
    check(kernel, q, 5, 6)
    amd = dict(auto, threads=(4, 64, 1))
    kernel, remarks = build(quant.quantized_matmul(5, q, **amd), "rocdl", "gfx942")
    assert remarks == [], remarks
    check(kernel, q, 5, 7)


def test_fp8_nan_stays_nan():
    # E4M3FN's NaN (S.1111.111) is selected, not read as 480: the row of C
    # that meets it is NaN, the others are right.
    q = weights("fp8_e4m3")
    q.packed[3, 17] = 0x7F
    kernel, _ = build(quant.quantized_matmul(5, q, **MMA), "cpu", "sm_80")
    a, values = activations(5, 8)
    c = kernel.run(a, *q.arrays())
    assert np.isnan(c[:, 3]).all()
    ref = values @ quant.dequantize(q).T
    others = np.arange(N) != 3
    assert np.abs(c[:, others] - ref[:, others]).max() <= 1e-5 * np.abs(ref[:, others]).max()


@pytest.mark.parametrize("fmt", ["int4", "nf4"])
def test_fragment_layout(fmt):
    # The weight packed once, ahead of time, in the order mma.sync's B
    # fragments take it (ext.quant's "fragment" layout): uint32 words, the
    # word index (k mod 8) floordiv 2 (a window of whole periods), one
    # 32-bit shared load per eight codes, both codes of a register out of the
    # word by one shift and one mask. The same numbers as the row layout.
    rows = weights(fmt)
    q = rows.with_layout("fragment")
    assert q.packed.dtype == np.uint32 and q.packed.shape == (N, K // 32, 4)
    assert (q.codes() == rows.codes()).all() and q.nbytes() == rows.nbytes()
    assert (quant.dequantize(q) == quant.dequantize(rows)).all()
    kernel, remarks = build(quant.quantized_matmul(ext.var("M"), q, **MMA), "cpu", "sm_80")
    assert remarks == [], remarks
    for m in (1, 33):
        check(kernel, q, m, 9)
    ptx = build(quant.quantized_matmul(16, q, **MMA), "nvvm", "sm_80")[0].ptx
    assert "ld.shared.b8" not in ptx and "ld.shared.u8" not in ptx
    assert re.search(r"ld\.shared\.(b|u)32", ptx)
    if fmt == "int4":  # a register's pair: one mask and magic OR (one lop3)
        assert "lop3.b32" in ptx and "983055, 1677747200, 0xEA" in ptx


def test_fragment_layout_needs_whole_periods():
    # A k tile of 4 splits the eight codes of a word: refused, saying why.
    q = weights("int4").with_layout("fragment")
    with pytest.raises(RuntimeError, match=r"its tiles must cover whole periods of 8"):
        quant.quantized_matmul(5, q, tile=(16, 32, 4), threads=(4, 32, 1)).build("cpu")
    with pytest.raises(ValueError, match=r"fragment layout holds 4-bit codes"):
        weights("int8").with_layout("fragment")


@pytest.mark.parametrize("layout", ["rows", "fragment"])
def test_integer_zeros(layout):
    # GPTQ's zeros are integers (zeros="quantized", uint8): the code and the
    # zero convert alike (x + 1024, z + 1024) and x - z is one exact f16x2
    # subtraction, without the magic number's.
    w = np.random.default_rng(5).standard_normal((N, K)).astype(np.float32) * 0.05
    q = quant.quantize(w, "int4", group_size=128, zeros="quantized", layout=layout)
    kernel, remarks = build(quant.quantized_matmul(ext.var("M"), q, **MMA), "cpu", "sm_80")
    assert remarks == [], remarks
    for m in (1, 5, 33):
        check(kernel, q, m, 10 + m)


@pytest.mark.parametrize("decomposition", [("split_k", {"slices": 4}), ("stream_k", {"grid": 3}),
                                           ("auto", {"sms": 132})])
def test_every_decomposition_from_one_build(decomposition):
    # Split-K's and Stream-K's partial tiles meet in the deterministic fixup;
    # auto picks at launch: one build over a symbolic M serves every M.
    q = weights("int4").with_layout("fragment")
    kernel, _ = build(quant.quantized_matmul(ext.var("M"), q, decomposition=decomposition,
                                             **MMA), "cpu", "sm_80")
    for m in (1, 16, 33):
        check(kernel, q, m, 20 + m)
