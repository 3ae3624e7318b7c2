"""Tiling accesses that divide the axes by constants (issue 54, item 2): a
W4A16 GEMM written as a TE user writes it (weights packed two per byte read
at `k // 2`, a scale and a zero per `k // 128` group), the dequantization
inlined, scheduled on CUDA cores: the copies move the packed bytes, and the
kernel is right at every M on the emulator for NVIDIA and AMD lanes. Tiles
that would cut a byte or a group are refused with the axis, its tile and the
divisor."""

import os
import subprocess
import tempfile
import warnings

import numpy as np
import pytest

import ext

N, K, G = 64, 256, 128
PTXAS = "/usr/local/cuda/bin/ptxas"


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ext.ExtRemark)
        yield


def w4a16(m, out="float32", tile=(16, 32, 32), threads=(4, 32, 1), vector=None):
    """C = A @ dequant(Wq).T with W = ((Wq[n, k // 2] >> 4 (k % 2)) & 15 - Z) * S
    per group of G, inlined; A cached, and W's inputs through it; summed in
    f32, rounded to `out` by a fused epilogue."""
    A = ext.placeholder((m, K), "float16", name="A")
    Wq = ext.placeholder((N, K // 2), "uint8", name="Wq")
    S = ext.placeholder((N, K // G), "float16", name="S")
    Z = ext.placeholder((N, K // G), "float16", name="Z")

    def dequant(n, k):
        q = (Wq[n, k // 2] >> (4 * (k % 2))) & 15
        return (q.astype("float16") - Z[n, k // G]) * S[n, k // G]

    W = ext.compute((N, K), dequant, name="W")
    k = ext.reduce_axis(K, name="k")
    C = ext.compute((m, N), lambda i, n: ext.sum(
        A[i, k].astype("float32") * W[n, k].astype("float32"), axis=k), name="C")
    s = ext.schedule(C, tile=tile, threads=threads, cache=[A, W], vector=vector)
    s = s.compute_inline(W)
    if out == "float32":
        return s
    # f32 sums rounded to f16 in the epilogue, in the same kernel.
    D = ext.compute((m, N), lambda i, n: C[i, n].astype(out), name="D")
    return s.reverse_compute_at(D, "n")


def data(m, seed):
    rng = np.random.default_rng(seed)
    q = rng.integers(0, 16, (N, K)).astype(np.uint8)
    arrays = dict(A=rng.standard_normal((m, K)).astype(np.float16),
                  Wq=(q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8),
                  S=(rng.random((N, K // G)) * 0.1 + 0.01).astype(np.float16),
                  Z=rng.integers(0, 16, (N, K // G)).astype(np.float16))
    # numpy's dequantization in f16, as the kernel's: exact products and
    # differences of f16 values rounded once.
    deq = (q.astype(np.float16) - np.repeat(arrays["Z"], G, 1)) * np.repeat(arrays["S"], G, 1)
    ref = arrays["A"].astype(np.float32) @ deq.astype(np.float32).T
    return arrays, ref


def run(kernel, arrays):
    return kernel.run(*(arrays[t.name] for t in kernel.inputs))


@pytest.mark.parametrize("chip", ["sm_80", "gfx942"])
@pytest.mark.parametrize("m", [1, 5, 16, 33])
def test_w4a16_on_cuda_cores_at_every_m(m, chip):
    arrays, ref = data(m, m)
    c = run(ext.build(w4a16(m), "cpu", chip=chip), arrays)
    # f32 sums in another order than numpy's.
    err = np.abs(c - ref).max()
    assert err <= 1e-5 * np.abs(ref).max(), (m, chip, err)


@pytest.mark.parametrize("m", [1, 33])
def test_w4a16_f16_output(m):
    arrays, ref = data(m, 40 + m)
    c = run(ext.build(w4a16(m, out="float16", vector=8), "cpu", chip="sm_80"), arrays)
    assert c.dtype == np.float16
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=2e-3, atol=2e-3 * np.abs(ref).max())


def test_the_copies_move_packed_bytes():
    # A k tile of 32 reads 16 bytes of each weight row (two nibbles a byte)
    # and one group's scale and zero; the copies start at k0 // 2, k0 // 128.
    kernel = ext.build(w4a16(5), "cpu", chip="sm_80")
    tiled = kernel.mlir("ext-apply-schedule")
    assert "ext.alloc_shared : memref<32x16xi8" in tiled
    assert tiled.count("ext.alloc_shared : memref<32x1xf16") == 2
    assert "memref<64x128xi8> to memref<32x16xi8" in tiled
    # Nothing but C is stored: W never exists.
    assert kernel.intermediates == []
    # The byte window starts at k0 / 2, exactly: a multiple of 16 that the
    # copies read 8 bytes at a time.
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ext.build(w4a16(5, vector=8), "cpu", chip="sm_80")
    assert not [w for w in seen if "column offset is not known" in str(w.message)]
    assert [w for w in seen if "reads input #1 from shared memory 1 element(s) at a time "
            "instead of 8: its innermost index is a floordiv or mod" in str(w.message)]


def test_ptx_for_sm80_assembles():
    kernel = ext.build(w4a16(33), "nvvm", chip="sm_80")
    assert kernel.ptx.count(".entry") == 1
    if not os.path.exists(PTXAS):
        pytest.skip("no ptxas")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.ptx")
        with open(path, "w") as f:
            f.write(kernel.ptx)
        subprocess.run([PTXAS, "-arch=sm_80", path, "-o", os.path.join(d, "k.cubin")],
                       check=True, capture_output=True)


def test_gfx942_builds_hsaco():
    assert ext.build(w4a16(5), "rocdl", chip="gfx942").hsaco[:4] == b"\x7fELF"


def test_two_groups_per_k_tile():
    # A k tile of 256 covers both groups: the scale's tile is two wide.
    arrays, ref = data(5, 9)
    kernel = ext.build(w4a16(5, tile=(16, 32, 256)), "cpu", chip="sm_80")
    assert "ext.alloc_shared : memref<32x2xf16" in kernel.mlir("ext-apply-schedule")
    assert np.abs(run(kernel, arrays) - ref).max() <= 1e-5 * np.abs(ref).max()


def test_a_group_the_tile_does_not_divide_is_refused():
    with pytest.raises(RuntimeError, match=r"tile 48 of axis 'k' is not a multiple of 128, "
                                           r"the divisor in access 'd2 floordiv 128' of input "
                                           r"#\d, nor does each tile lie inside one multiple of it"):
        ext.build(w4a16(5, tile=(16, 32, 48)), "cpu", chip="sm_80")


def test_a_tile_that_splits_bytes_is_refused():
    # A k tile of 3 starts every other tile in the middle of a byte.
    with pytest.raises(RuntimeError, match=r"tile 3 of axis 'k' is not a multiple of 2, "
                                           r"the divisor in access 'd2 floordiv 2'"):
        ext.build(w4a16(5, tile=(16, 32, 3)), "cpu", chip="sm_80")


def test_offsets_and_remainders_on_the_emulator():
    """Windows that start past a multiple of the divisor ((j + 3) // 4 over
    tiles of 8), runs of remainders from the tile's (j % 16 over tiles of 8)
    and a whole period that wraps ((j + 3) % 8 over tiles of 16)."""
    X = ext.placeholder((16, 9), "float32", name="X")
    T = ext.placeholder((16,), "float32", name="T")
    U = ext.placeholder((8,), "float32", name="U")
    Y = ext.compute((16, 32), lambda i, j: X[i, (j + 3) // 4] * T[j % 16] + U[(j + 3) % 8],
                    name="Y")
    rng = np.random.default_rng(5)
    x, t, u = (rng.standard_normal(s).astype(np.float32) for s in [(16, 9), (16,), (8,)])
    j = np.arange(32)
    want = x[:, (j + 3) // 4] * t[j % 16] + u[(j + 3) % 8]
    for tile, threads in [((4, 8), (4, 8)), ((4, 16), (4, 16))]:
        # Bit for bit against numpy's separately rounded multiply and add:
        # fast_math=False (by default x * t + u would be one FMA, whose one
        # rounding differs in the last bit). The reads are what is tested.
        s = ext.schedule(Y, tile=tile, threads=threads, cache=[X, T, U], fast_math=False)
        np.testing.assert_array_equal(ext.build(s, "cpu", chip="sm_80").run(x, t, u), want)


def test_tma_boxes_of_packed_bytes():
    # sm_90a's copy engine loads the weight's byte box (32 rows of 32 bytes
    # for a k tile of 64) at k0 / 2, as the copies do.
    m = 33
    A = ext.placeholder((m, K), "float16", name="A")
    Wq = ext.placeholder((N, K // 2), "uint8", name="Wq")
    S = ext.placeholder((N, K // G), "float16", name="S")
    k = ext.reduce_axis(K, name="k")
    C = ext.compute((m, N), lambda i, n: ext.sum(A[i, k].astype("float32") * (
        ((Wq[n, k // 2] >> (4 * (k % 2))) & 15).astype("float32") *
        S[n, k // G].astype("float32")), axis=k), name="C")
    s = ext.schedule(C, tile=(16, 32, 64), threads=(4, 32, 1), cache=[A, Wq], tma=True,
                     stages=2)
    assert "cp.async.bulk.tensor" in ext.build(s, "nvvm", chip="sm_90a").ptx
    rng = np.random.default_rng(11)
    q = rng.integers(0, 16, (N, K)).astype(np.uint8)
    a = rng.standard_normal((m, K)).astype(np.float16)
    sc = rng.random((N, K // G)).astype(np.float16)
    c = ext.build(s, "cpu", chip="sm_90a").run(a, (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8),
                                               sc)
    ref = a.astype(np.float32) @ (q.astype(np.float32) *
                                  np.repeat(sc, G, 1).astype(np.float32)).T
    assert np.abs(c - ref).max() <= 1e-5 * np.abs(ref).max()
