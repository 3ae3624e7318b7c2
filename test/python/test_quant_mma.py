"""The dequantization in the operand path (issue 54 item 3, first step): a
W4A16 GEMM whose inlined producer dequantizes packed weights, scheduled with
mma="m16n8k16", runs on mma.sync with the weight's fragment built element by
element in the instruction's B layout (the packed byte and the group's scale
read from shared memory, the dequantization in registers); A keeps ldmatrix.
Right against numpy's dequantization at M = 1, 5, 16, 33 on the emulator,
for int4, int8, NF4 and FP8 E4M3 weights, and on gfx942's MFMA."""

import os
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import ext
from ext import quant

N, K = 64, 256
# Warp tiles of 16 x 16 (two n8 tiles per warp), two 16-deep steps per k tile.
MMA = dict(tile=(16, 64, 32), threads=(4, 32, 1), mma="m16n8k16", warps=(1, 4))
ZEROS = {"int4": "original", "int8": None, "nf4": None, "fp8_e4m3": None}
PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
OBJDUMP = next((p for p in ("/usr/lib/llvm-22/bin/llvm-objdump",
                            shutil.which("llvm-objdump-22")) if p and os.path.exists(p)), None)


def weights(fmt, seed=1):
    w = np.random.default_rng(seed).standard_normal((N, K)).astype(np.float32) * 0.05
    return quant.quantize(w, fmt, group_size=128, zeros=ZEROS[fmt])


def build(workload, target, chip):
    """The kernel, and the remarks its build made."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ext.ExtRemark)
        kernel = workload.build(target, chip=chip)
    return kernel, [str(w.message) for w in caught if issubclass(w.category, ext.ExtRemark)]


def check(kernel, q, m, seed):
    a = np.random.default_rng(seed).standard_normal((m, K)).astype(np.float16)
    c = kernel.run(a, *q.arrays())
    ref = a.astype(np.float32) @ quant.dequantize(q).T
    # The same f16 W (each op rounded alike), exact f16 products; f32 sums
    # in another order.
    err = float(np.abs(c - ref).max())
    assert err <= 1e-5 * float(np.abs(ref).max()), (m, err)


@pytest.mark.parametrize("m", [1, 5, 16, 33])
def test_w4a16_on_mma_sync_at_every_m(m):
    q = weights("int4")
    kernel, remarks = build(quant.quantized_matmul(m, q, **MMA), "cpu", "sm_80")
    assert not any("without tensor cores" in r for r in remarks), remarks
    check(kernel, q, m, m)


@pytest.mark.parametrize("fmt", ["int8", "nf4", "fp8_e4m3"])
def test_other_formats_take_the_same_path(fmt):
    q = weights(fmt, 2)
    kernel, remarks = build(quant.quantized_matmul(5, q, **MMA), "cpu", "sm_80")
    assert not any("without tensor cores" in r for r in remarks), remarks
    check(kernel, q, 5, 3)


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
    if not os.path.exists(PTXAS):
        pytest.skip("needs ptxas")
    path = tmp_path / "w4a16.ptx"
    path.write_text(ptx)
    r = subprocess.run([PTXAS, "-arch=sm_80", "-v", str(path), "-o", "/dev/null"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "warning" not in r.stderr and "0 bytes spill stores" in r.stderr, r.stderr


def test_gfx942_mfma():
    # MFMA's per-lane operand items are built the same way.
    q = weights("int4")
    schedule = dict(tile=(16, 64, 32), threads=(4, 64, 1), mma="mfma_16x16x16", warps=(1, 4))
    kernel, remarks = build(quant.quantized_matmul(5, q, **schedule), "rocdl", "gfx942")
    assert remarks == [], remarks
    check(kernel, q, 5, 4)
    if OBJDUMP is None:
        return
    path = "/tmp/test_quant_mma_gfx942.hsaco"
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
