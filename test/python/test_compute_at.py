"""Fusion: a schedule's compute_at computes producers (reductions too)
inside the scheduled compute's kernel, for the region each tile reads:
softmax and LayerNorm as one kernel each."""

import numpy as np
import pytest

import ext

RNG = np.random.default_rng(5)


def softmax(m, n, rows=1, materialize_e=False, threads=256):
    X = ext.placeholder((m, n), "float32", name="X")
    k1, k2 = ext.reduce_axis(n, name="k1"), ext.reduce_axis(n, name="k2")
    row_max = ext.compute((m,), lambda i: ext.max(X[i, k1], axis=k1), name="row_max")
    e = ext.compute((m, n), lambda i, j: ext.exp(X[i, j] - row_max[i]), name="e")
    row_sum = ext.compute((m,), lambda i: ext.sum(e[i, k2], axis=k2), name="row_sum")
    y = ext.compute((m, n), lambda i, j: e[i, j] / row_sum[i], name="y")
    width = 1 << (n - 1).bit_length()
    # y reads e: with e inlined, a cache of e caches what e reads, X; kept
    # in shared memory by compute_at, e is the cache.
    s = ext.schedule(y, tile=(rows, width), blocks=["i"], threads=(1, threads),
                     cache=[] if materialize_e else [e])
    s.compute_at(row_max, "i")
    if materialize_e:
        s.compute_at(e, "i")
    else:
        s.compute_inline(e)
    s.compute_at(row_sum, "i")
    return s


def softmax_reference(x):
    r = np.exp(x - x.max(axis=1, keepdims=True))
    return r / r.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("m,n,rows,materialize_e", [
    (64, 1000, 1, False),
    (37, 999, 4, False),
    (37, 999, 2, True),
])
def test_softmax_is_one_kernel(m, n, rows, materialize_e):
    s = softmax(m, n, rows, materialize_e)
    kernel = ext.build(s)
    x = RNG.standard_normal((m, n)).astype(np.float32)
    np.testing.assert_allclose(kernel.run(x), softmax_reference(x), rtol=1e-5, atol=1e-7)
    ptx = ext.build(s, "nvvm", chip="sm_80").ptx
    assert ptx.count(".entry") == 1
    if not materialize_e:
        # X is read once, by the copy into shared memory before the first
        # barrier; the row max, row sum and normalization read the copy.
        first, *rest = ptx.split("bar.sync")
        assert "ld.global" in first and not any("ld.global" in r for r in rest)


@pytest.mark.parametrize("chip,threads", [("gfx942", 64), ("gfx942", 256), ("gfx90a", 512),
                                          ("sm_80", 64)])
def test_softmax_on_every_wave_width(chip, threads):
    # A row's threads span whole 64-lane waves on AMD: its shuffles must
    # too (they once had width 32, which leaves lanes 32..63 out).
    s = softmax(5, 300, 1, threads=threads)
    x = RNG.standard_normal((5, 300)).astype(np.float32)
    np.testing.assert_allclose(ext.build(s, "cpu", chip=chip).run(x), softmax_reference(x),
                               rtol=1e-5, atol=1e-7)


def test_layernorm_is_one_kernel():
    m, n = 32, 768
    X = ext.placeholder((m, n), "float32", name="X")
    g = ext.placeholder((n,), "float32", name="g")
    b = ext.placeholder((n,), "float32", name="b")
    k1, k2 = ext.reduce_axis(n, name="k1"), ext.reduce_axis(n, name="k2")
    mean = ext.compute((m,), lambda i: ext.sum(X[i, k1] / float(n), axis=k1), name="mean")
    var = ext.compute((m,), lambda i: ext.sum((X[i, k2] - mean[i]) * (X[i, k2] - mean[i]) / float(n),
                                              axis=k2), name="var")
    y = ext.compute((m, n), lambda i, j: (X[i, j] - mean[i]) * ext.rsqrt(var[i] + 1e-5) * g[j] + b[j],
                    name="y")
    s = ext.schedule(y, tile=(2, n), blocks=["i"], threads=(1, 256), cache=[X])
    s.compute_at(mean, "i").compute_at(var, "i")
    x = RNG.standard_normal((m, n)).astype(np.float32)
    gv = RNG.standard_normal(n).astype(np.float32)
    bv = RNG.standard_normal(n).astype(np.float32)
    mu = x.mean(axis=1, keepdims=True)
    ref = (x - mu) / np.sqrt(((x - mu) ** 2).mean(axis=1, keepdims=True) + 1e-5) * gv + bv
    np.testing.assert_allclose(ext.build(s).run(x, gv, bv), ref, rtol=1e-4, atol=1e-5)
    assert ext.build(s, "nvvm", chip="sm_80").ptx.count(".entry") == 1


def test_region_spanning_an_inner_tile_loop_is_refused():
    m, n = 16, 64
    X = ext.placeholder((m, n), "float32", name="X")
    r = ext.reduce_axis(m, name="r")
    col_max = ext.compute((n,), lambda j: ext.max(X[r, j], axis=r), name="col_max")
    y = ext.compute((m, n), lambda i, j: X[i, j] - col_max[j], name="y")
    s = ext.schedule(y, tile=(4, 16), blocks=["i", "j"], threads=(4, 16)).compute_at(col_max, "i")
    with pytest.raises(RuntimeError, match="compute_at 'col_max' at 'i': 'y' reads it at points "
                                           "that change with 'j', a tile loop inside 'i'"):
        ext.build(s)
    # At its own tile loop it builds, and is right.
    s = ext.schedule(y, tile=(4, 16), blocks=["i", "j"], threads=(4, 16)).compute_at(col_max, "j")
    x = RNG.standard_normal((m, n)).astype(np.float32)
    np.testing.assert_array_equal(ext.build(s).run(x), x - x.max(axis=0))


def test_compute_at_is_the_method_not_a_field():
    X = ext.placeholder((4, 4), "float32", name="X")
    y = ext.compute((4, 4), lambda i, j: X[i, j] * 2.0, name="y")
    with pytest.raises(ValueError, match=r"compute_at\(P, axis\)"):
        ext.schedule(y, compute_at=[X])
