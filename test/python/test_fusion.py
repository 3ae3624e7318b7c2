"""Fusion: a schedule's reverse_compute_at runs an element-wise consumer
(bias, activation, cast) on the scheduled compute's output tile in
registers, so GEMM + bias + ReLU is one kernel."""

import numpy as np
import pytest

import ext

RNG = np.random.default_rng(3)


def gemm_bias_relu(m, n, k, dtype="float32", out_dtype="float32"):
    A = ext.placeholder((m, k), dtype, name="A")
    B = ext.placeholder((k, n), dtype, name="B")
    bias = ext.placeholder((n,), "float32", name="bias")
    r = ext.reduce_axis(k, name="k")
    acc = "float32"
    C = ext.compute((m, n), lambda i, j: ext.sum(ext.cast(A[i, r], acc) * ext.cast(B[r, j], acc),
                                                 axis=r), name="C")
    D = ext.compute((m, n), lambda i, j: ext.cast(ext.max(C[i, j] + bias[j], 0.0), out_dtype),
                    name="D")
    return A, B, bias, C, D


def reference(a, b, bias, out_dtype):
    c = a.astype(np.float32) @ b.astype(np.float32)
    return np.maximum(c + bias, 0.0).astype(out_dtype)


def check(s, m, n, k, dtype, out_dtype):
    """Runs the fused kernel against numpy (integer data: exact) and counts
    the kernel entries of its PTX."""
    a = RNG.integers(-3, 4, (m, k)).astype(dtype)
    b = RNG.integers(-3, 4, (k, n)).astype(dtype)
    t = RNG.integers(-3, 4, (n,)).astype(np.float32)
    d = ext.build(s).run(a, b, t)
    assert d.dtype == out_dtype
    np.testing.assert_array_equal(d, reference(a, b, t, out_dtype))
    assert ext.build(s, "nvvm", chip="sm_80").ptx.count(".entry") == 1


def test_gemm_bias_relu_is_one_kernel():
    A, B, bias, C, D = gemm_bias_relu(100, 70, 90)
    s = ext.schedule(C, tile=(32, 32, 16), cache=[A, B], vector=4).reverse_compute_at(D, "j")
    check(s, 100, 70, 90, np.float32, np.float32)


def test_tensor_core_epilogue_casts_to_f16():
    A, B, bias, C, D = gemm_bias_relu(100, 70, 96, "float16", "float16")
    s = ext.schedule(C, tile=(64, 64, 32), mma="m16n8k16", threads=[4, 32, 1], warps=[2, 2],
                     cache=[A, B], stages=3, vector=8).reverse_compute_at(D, "i")
    check(s, 100, 70, 96, np.float16, np.float16)


def test_a_reduction_is_not_fused_as_an_epilogue():
    A, B, bias, C, D = gemm_bias_relu(32, 32, 32)
    q = ext.reduce_axis(32, name="q")
    E = ext.compute((32,), lambda i: ext.sum(C[i, q], axis=q), name="E")
    s = ext.schedule(C, tile=(16, 16, 16)).reverse_compute_at(E, "j")
    with pytest.raises(RuntimeError, match="reverse_compute_at 'E': it is a reduction "
                                           r"\(axis 'q'\); reverse_compute_at fuses an "
                                           "element-wise consumer"):
        ext.build(s)


def test_the_axis_must_be_spatial():
    A, B, bias, C, D = gemm_bias_relu(32, 32, 32)
    s = ext.schedule(C, tile=(16, 16, 16)).reverse_compute_at(D, "k")
    with pytest.raises(RuntimeError, match="'k' is not a spatial axis of 'C'"):
        ext.build(s)


def test_one_tile_larger_than_the_problem():
    """Tiles larger than both axes: no axis indexes the grid, one tile."""
    A, B, bias, C, D = gemm_bias_relu(20, 12, 24)
    s = ext.schedule(C, tile=(32, 32, 16)).reverse_compute_at(D, "j")
    check(s, 20, 12, 24, np.float32, np.float32)


def test_reverse_compute_at_is_the_method_not_a_field():
    A, B, bias, C, D = gemm_bias_relu(32, 32, 32)
    with pytest.raises(ValueError, match=r"reverse_compute_at\(D, axis\), \.compute_inline\(T\) or \.online_softmax\(M, L\)"):
        ext.schedule(C, reverse_compute_at=[D])


def test_a_fused_intermediate_is_not_written():
    """C, read only by the consumer fused into its kernel, is a buffer of the
    function, not an argument: the kernel stores D alone."""
    A, B, bias, C, D = gemm_bias_relu(64, 64, 32)
    s = ext.schedule(C, tile=(32, 32, 16)).reverse_compute_at(D, "j")
    kernel = ext.build(s)
    assert kernel.intermediates == []
    gpu = kernel.mlir("ext-kernel-to-gpu")
    assert gpu.count("gpu.launch") == 1
    # Unfused, C is an argument the first kernel writes.
    plain = ext.build(D)
    assert [t.name for t in plain.intermediates] == ["C"]


def test_an_inlined_dequantization():
    """W = f32(Wq) * scale[j] inlined into C = A @ W: the kernel reads the
    int8 weight and the scale, W is never computed or stored."""
    A = ext.placeholder((48, 64), "float32", name="A")
    Wq = ext.placeholder((64, 40), "int8", name="Wq")
    scale = ext.placeholder((40,), "float32", name="scale")
    W = ext.compute((64, 40), lambda k, j: ext.cast(Wq[k, j], "float32") * scale[j], name="W")
    r = ext.reduce_axis(64, name="r")
    C = ext.compute((48, 40), lambda i, j: ext.sum(A[i, r] * W[r, j], axis=r), name="C")
    s = ext.schedule(C, tile=(16, 16, 16), cache=[A, W]).compute_inline(W)
    kernel = ext.build(s)
    assert kernel.intermediates == []
    assert kernel.mlir("ext-kernel-to-gpu").count("gpu.launch") == 1
    a = RNG.integers(-3, 4, (48, 64)).astype(np.float32)
    q = RNG.integers(-100, 100, (64, 40)).astype(np.int8)
    sc = RNG.integers(1, 4, (40,)).astype(np.float32)
    np.testing.assert_array_equal(kernel.run(a, q, sc), a @ (q.astype(np.float32) * sc))


def test_inlining_a_reduction_is_refused():
    A, B, bias, C, D = gemm_bias_relu(32, 32, 32)
    E = ext.compute((32, 32), lambda i, j: C[i, j] * 2.0, name="E")
    s = ext.schedule(E, tile=(16, 16)).compute_inline(C)
    with pytest.raises(RuntimeError, match="compute_inline 'C': it is a reduction "
                                           r"\(axis 'k'\); compute_inline substitutes an "
                                           "element-wise compute"):
        ext.build(s)
