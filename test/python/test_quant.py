"""ext.quant (issue 54 item 5): weights quantized and packed in numpy the way
the kernels read them, and `quantized_matmul`, the GEMM whose inlined
producer dequantizes them, right against numpy's dequantization for every
format and zeros mode, at several M, on the CPU emulator (CUDA cores; the
tensor-core operand path is item 3)."""

import warnings

import numpy as np
import pytest

import ext
from ext import quant

N, K = 64, 256


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ext.ExtRemark)
        yield


def weights(seed):
    return np.random.default_rng(seed).standard_normal((N, K)).astype(np.float32) * 0.05


def check(q, m, seed, **kw):
    a = np.random.default_rng(seed).standard_normal((m, K)).astype(np.float16)
    c = quant.quantized_matmul(m, q, **kw).run(a, *q.arrays())
    ref = a.astype(np.float32) @ quant.dequantize(q).T
    err = float(np.abs(c.astype(np.float32) - ref).max())
    return err, float(np.abs(ref).max())


CASES = [("int4", "original"), ("int4", None), ("uint4", "rescale"), ("uint4", "quantized"),
         ("int2", "original"), ("int2", None), ("int8", None), ("uint8", "original"),
         ("nf4", None), ("fp4_e2m1", None), ("fp8_e4m3", None), ("fp8_e5m2", None)]


@pytest.mark.parametrize("fmt,zeros", CASES)
def test_every_format_matches_numpys_dequantization(fmt, zeros):
    q = quant.quantize(weights(1), fmt, group_size=128, zeros=zeros)
    err, scale = check(q, 5, 2)
    # The same W in both (each op rounded to f16 alike); f32 sums in
    # another order.
    assert err <= 1e-5 * scale, (fmt, zeros, err, scale)


@pytest.mark.parametrize("m", [1, 16, 33])
def test_w4a16_at_every_m(m):
    q = quant.quantize(weights(3), "int4", group_size=128, zeros="original")
    err, scale = check(q, m, m)
    assert err <= 1e-5 * scale


def test_per_channel_scales_and_f16_output():
    q = quant.quantize(weights(4), "int4", group_size=-1, zeros="original")
    assert q.scales.shape == (N, 1)
    err, scale = check(q, 7, 5, out="float16")
    assert err <= 2e-3 * scale


def test_quantization_is_close_to_the_weights():
    # The numpy side itself: int8 and fp8 lose little, int4 more, int2 most.
    w = weights(6)
    def rel(fmt, zeros):
        return np.abs(quant.dequantize(quant.quantize(w, fmt, zeros=zeros)) - w).max() / \
            np.abs(w).max()
    assert rel("int8", None) < 0.01
    assert rel("fp8_e4m3", None) < 0.07
    assert rel("int4", "original") < 0.1
    assert rel("int2", "original") < 0.4


def test_packing_and_bytes():
    q = quant.quantize(weights(7), "int4", group_size=128, zeros="original")
    assert q.packed.shape == (N, K // 2) and q.packed.dtype == np.uint8
    codes = quant.unpack(q.packed, 4, K)
    assert np.array_equal(quant.pack(codes, 4), q.packed)
    assert (codes[:, 0] == (q.packed[:, 0] & 15)).all() and (codes[:, 1] == q.packed[:, 0] >> 4).all()
    # 0.5 bytes per weight plus an f16 scale and zero per 128: 0.531.
    assert q.nbytes() / (N * K) == pytest.approx(0.5 + 4 / 128)
    q2 = quant.quantize(weights(7), "int2", group_size=64, zeros="original")
    assert q2.packed.shape == (N, K // 4)


def test_only_the_packed_weight_is_read_and_only_c_stored():
    q = quant.quantize(weights(8), "int4", zeros="original")
    kernel = quant.quantized_matmul(5, q).build("cpu", chip="sm_80")
    assert kernel.intermediates == []
    tiled = kernel.mlir("ext-apply-schedule")
    assert "ext.alloc_shared : memref<32x16xi8" in tiled


@pytest.mark.parametrize("args,message", [
    (dict(fmt="int5"), "unknown weight format"),
    (dict(fmt="uint4", zeros=None), "unsigned"),
    (dict(fmt="nf4", zeros="original"), "integer codes"),
    (dict(fmt="int4", group_size=96), "does not divide"),
    (dict(fmt="int4", zeros="sometimes"), "zeros="),
])
def test_bad_arguments_are_refused(args, message):
    with pytest.raises(ValueError, match=message):
        quant.quantize(weights(9), **args)
