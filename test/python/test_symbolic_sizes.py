"""Symbolic sizes (ext.var): one build serves every size, unscheduled (host
loops) or scheduled (a GPU kernel whose grid, decomposition plan and
workspace are computed when it runs); sizes come from the input arrays,
disagreements are errors, and a size a schedule cannot run (split-K with
fewer k-steps than slices) is refused with a message when it runs."""

import numpy as np
import pytest

import ext
from te_helpers import matmul_te

RNG = np.random.default_rng(7)


def test_one_build_serves_every_m():
    M = ext.var("M")
    kernel = ext.matmul(M, 24, 16).build()
    assert "memref<?x16xf32>" in kernel.mlir()
    for m in (1, 2, 7, 15, 16, 17, 33):
        a = RNG.integers(-3, 4, (m, 16)).astype(np.float32)
        b = RNG.integers(-3, 4, (16, 24)).astype(np.float32)
        np.testing.assert_array_equal(kernel.run(a, b), a @ b)


def test_several_symbolic_sizes_and_intermediates():
    M, N = ext.var("M"), ext.var("N")
    X = ext.placeholder((M, N), "float32", name="X")
    k = ext.reduce_axis(N, name="k")
    row_max = ext.compute((M,), lambda i: ext.max(X[i, k], axis=k), name="row_max")
    Y = ext.compute((M, N), lambda i, j: ext.exp(X[i, j] - row_max[i]), name="Y")
    kernel = ext.build(Y)
    for m, n in ((1, 1), (3, 5), (8, 2)):
        x = RNG.standard_normal((m, n)).astype(np.float32)
        np.testing.assert_allclose(kernel.run(x), np.exp(x - x.max(axis=1, keepdims=True)),
                                   rtol=1e-6)


def test_same_name_is_the_same_size():
    A = ext.placeholder((ext.var("M"), 4), "float32", name="A")
    B = ext.placeholder((ext.var("M"), 4), "float32", name="B")
    C = ext.compute((ext.var("M"), 4), lambda i, j: A[i, j] + B[i, j], name="C")
    kernel = ext.build(C)
    a, b = np.ones((3, 4), np.float32), np.full((3, 4), 2.0, np.float32)
    np.testing.assert_array_equal(kernel.run(a, b), a + b)
    with pytest.raises(ValueError, match=r"size M is 3 in dimension 0 of input 'A' but 5 in "
                                         r"dimension 0 of input 'B'"):
        kernel.run(a, np.ones((5, 4), np.float32))


def test_static_dimensions_are_still_checked():
    kernel = ext.matmul(ext.var("M"), 8, 4).build()
    with pytest.raises(ValueError, match=r"input 'A' has shape \(2, 5\), the placeholder "
                                         r"\(M, 4\)"):
        kernel.run(np.ones((2, 5), np.float32), np.ones((4, 8), np.float32))
    with pytest.raises(ValueError, match="sizes must be positive"):
        kernel.run(np.ones((0, 4), np.float32), np.ones((4, 8), np.float32))


def test_a_size_no_input_gives():
    M = ext.var("M")
    X = ext.placeholder((4,), "float32", name="X")
    Y = ext.compute((M,), lambda i: X[0] * 2.0, name="Y")
    with pytest.raises(ValueError, match="size M of 'Y' is given by no input"):
        ext.build(Y).run(np.ones(4, np.float32))


def test_symbolic_axis_in_a_compound_index_is_refused():
    N = ext.var("N")
    X = ext.placeholder((N,), "float32", name="X")
    w = ext.reduce_axis(3, name="w")
    with pytest.raises(ValueError, match="an axis of symbolic extent may only index a "
                                         "dimension alone"):
        ext.compute((N,), lambda o: ext.sum(X[o + w], axis=w), name="Y")


def test_mismatched_sizes_in_the_compute_are_refused():
    M = ext.var("M")
    X = ext.placeholder((M,), "float32", name="X")
    with pytest.raises(ValueError, match=r"index #0 is axis 'i' of extent 8, but X has size M "
                                         r"in dimension 0"):
        ext.compute((8,), lambda i: X[i] + 1.0, name="Y")


MS = (1, 2, 7, 15, 16, 17, 33, 100, 257)


@pytest.mark.parametrize("tile", [(32, 32, 16), (64, 64, 16)])
def test_one_scheduled_kernel_serves_every_m(tile):
    """A GPU kernel built once (one PTX entry) runs every M on the emulator;
    the grid, ceil(M / BM) x ceil(N / BN), is computed when it runs."""
    kernel = ext.matmul(ext.var("M"), 130, 97, tile=tile).build()
    assert "memref<?x97xf32>" in kernel.mlir()
    b = RNG.integers(-3, 4, (97, 130)).astype(np.float32)
    for m in MS:
        a = RNG.integers(-3, 4, (m, 97)).astype(np.float32)
        np.testing.assert_array_equal(kernel.run(a, b), a @ b, err_msg=f"M = {m}")
    ptx = ext.matmul(ext.var("M"), 130, 97, tile=tile).build("nvvm", chip="sm_80").ptx
    assert ptx.count(".entry") == 1


def test_one_tensor_core_kernel_serves_every_m():
    w = ext.matmul(ext.var("M"), 130, 96, dtype="float16", tile=(64, 64, 32), mma="m16n8k16",
                   threads=[4, 32, 1], warps=[2, 2], cache=[0, 1], stages=3, vector=8)
    kernel = w.build()
    b = RNG.integers(-3, 4, (96, 130)).astype(np.float16)
    for m in (1, 7, 16, 17, 100):
        a = RNG.integers(-3, 4, (m, 96)).astype(np.float16)
        ref = a.astype(np.float32) @ b.astype(np.float32)
        np.testing.assert_array_equal(kernel.run(a, b), ref, err_msg=f"M = {m}")


# Every decomposition over a symbolic M, planned at launch. Small SM counts
# and grids so that the small problems still split tiles, fill full waves
# and leave partial ones.
DECOMPOSITIONS = {
    "data_parallel": dict(decomposition="data_parallel"),
    "persistent": dict(decomposition="persistent", sms=3),
    "split_k serial": dict(decomposition="split_k", split_k=3),
    "split_k parallel": dict(decomposition="split_k", split_k=2, split_k_mode="parallel"),
    "stream_k": dict(decomposition="stream_k", grid=5),
    "stream_k_dp": dict(decomposition="stream_k_dp", sms=3),
    "stream_k_2tile": dict(decomposition="stream_k_2tile", sms=3),
    "auto": dict(decomposition="auto", sms=4),
}


def entries(workload):
    return workload.build("nvvm", chip="sm_80").ptx.count(".entry")


@pytest.mark.parametrize("name", sorted(DECOMPOSITIONS))
def test_every_decomposition_plans_every_m_at_launch(name):
    """One build per decomposition serves every M: the host computes the
    grid, the Stream-K region and the workspace from M when it runs."""
    w = ext.matmul(ext.var("M"), 40, 64, tile=(16, 16, 8), **DECOMPOSITIONS[name])
    kernel = w.build()
    b = RNG.integers(-3, 4, (64, 40)).astype(np.float32)
    for m in MS:
        a = RNG.integers(-3, 4, (m, 64)).astype(np.float32)
        np.testing.assert_array_equal(kernel.run(a, b), a @ b, err_msg=f"M = {m}")
    # One kernel entry (and the reduction launch's for parallel split-K).
    assert entries(w) == (2 if name == "split_k parallel" else 1)
    # The workspace's size is the host's business at launch.
    whole_tiles = name in ("data_parallel", "persistent")
    assert kernel.workspace_bytes == (0 if whole_tiles else None)
    if not whole_tiles:
        assert "workspace: sized at launch" in kernel.report()


@pytest.mark.parametrize("name", sorted(DECOMPOSITIONS))
def test_every_decomposition_plans_every_m_on_tensor_cores(name):
    w = ext.matmul(ext.var("M"), 130, 96, dtype="float16", tile=(64, 64, 32), mma="m16n8k16",
                   threads=[4, 32, 1], warps=[2, 2], cache=[0, 1], **DECOMPOSITIONS[name])
    kernel = w.build()
    b = RNG.integers(-3, 4, (96, 130)).astype(np.float16)
    for m in MS:
        a = RNG.integers(-3, 4, (m, 96)).astype(np.float16)
        ref = a.astype(np.float32) @ b.astype(np.float32)
        np.testing.assert_array_equal(kernel.run(a, b), ref, err_msg=f"M = {m}")
    assert entries(w) == (2 if name == "split_k parallel" else 1)


KS = (1, 2, 15, 16, 17, 33, 97)


def test_one_scheduled_kernel_serves_every_k():
    """A symbolic reduce extent: the host counts the k-steps, the kernel's
    k-loop runs to that count and masks the ragged last step."""
    w = ext.matmul(64, 40, ext.var("K"), tile=(32, 32, 16))
    kernel = w.build()
    assert "memref<64x?xf32>" in kernel.mlir()
    for k in KS:
        a = RNG.integers(-3, 4, (64, k)).astype(np.float32)
        b = RNG.integers(-3, 4, (k, 40)).astype(np.float32)
        np.testing.assert_array_equal(kernel.run(a, b), a @ b, err_msg=f"K = {k}")
    assert entries(w) == 1


def least_k(name, tile_k):
    """The least K a decomposition runs: split-K needs a k-step per slice."""
    fields = DECOMPOSITIONS[name]
    return (fields.get("split_k", 1) - 1) * tile_k + 1


@pytest.mark.parametrize("name", sorted(DECOMPOSITIONS))
def test_every_decomposition_plans_every_m_and_k_at_launch(name):
    """Symbolic M and K together: the grid, the k-steps, the Stream-K region
    and the workspace all come from the arrays when the kernel runs; split-K
    with fewer k-steps than slices is refused then, with a message."""
    w = ext.matmul(ext.var("M"), 40, ext.var("K"), tile=(16, 16, 8), **DECOMPOSITIONS[name])
    kernel = w.build()
    least = least_k(name, 8)
    for m, k in ((1, 1), (7, 8), (16, 9), (17, 33), (100, 64), (33, 97)):
        a = RNG.integers(-3, 4, (m, k)).astype(np.float32)
        b = RNG.integers(-3, 4, (k, 40)).astype(np.float32)
        if k < least:
            with pytest.raises(RuntimeError, match=r"fewer than \d reduce iterations per tile "
                                                   r"at launch \(each slice needs one\)"):
                kernel.run(a, b)
            continue
        np.testing.assert_array_equal(kernel.run(a, b), a @ b, err_msg=f"M = {m}, K = {k}")
    assert entries(w) == (2 if name == "split_k parallel" else 1)


@pytest.mark.parametrize("name", sorted(DECOMPOSITIONS))
def test_every_decomposition_plans_every_k_on_tensor_cores(name):
    """f16 on mma.sync over a symbolic K: the zero-filled copies make a
    ragged last step a full one, so the fragments need no k mask."""
    w = ext.matmul(ext.var("M"), 130, ext.var("K"), dtype="float16", tile=(64, 64, 32),
                   mma="m16n8k16", threads=[4, 32, 1], warps=[2, 2], cache=[0, 1], stages=3,
                   **DECOMPOSITIONS[name])
    kernel = w.build()
    least = least_k(name, 32)
    for m, k in ((1, 1), (7, 40), (17, 96), (100, 100)):
        if k < least:
            continue
        a = RNG.integers(-3, 4, (m, k)).astype(np.float16)
        b = RNG.integers(-3, 4, (k, 130)).astype(np.float16)
        ref = a.astype(np.float32) @ b.astype(np.float32)
        np.testing.assert_array_equal(kernel.run(a, b), ref, err_msg=f"M = {m}, K = {k}")


def test_a_multiple_of_k_keeps_vector_copies():
    """A's rows are K long: without a fact their length is unknown and the
    copies move one element at a time; multiple_of = 8 gives back the
    16-byte cp.async of the static kernel (same count) and is checked."""
    def ptx(k):
        return ext.matmul(ext.var("M"), 128, k, dtype="float16", tile=(64, 64, 32),
                          mma="m16n8k16", threads=[4, 32, 1], warps=[2, 2], cache=[0, 1],
                          stages=3, vector=8).build("nvvm", chip="sm_80").ptx
    wide = "cp.async.cg.shared.global"
    static, plain, fact = ptx(96), ptx(ext.var("K")), ptx(ext.var("K", multiple_of=8))
    assert fact.count(wide) == static.count(wide) > 0
    assert plain.count(wide) < static.count(wide)
    kernel = ext.matmul(4, 16, ext.var("K", multiple_of=8), tile=(4, 16, 8)).build()
    with pytest.raises(ValueError, match=r"size K is 12 in dimension 1 of input 'A', not a "
                                         r"multiple of 8"):
        kernel.run(np.ones((4, 12), np.float32), np.ones((12, 16), np.float32))


def test_a_decomposition_no_size_can_run_is_refused_at_build():
    with pytest.raises(RuntimeError, match=r"'ext.compute' op decomposition "
                                           r"#ext.split_k<slices = 3> cannot split 2 "
                                           r"iterations into 3 slices"):
        ext.matmul(ext.var("M"), 64, 32, tile=(32, 32, 16), decomposition="split_k",
                   split_k=3).build()


def test_var_names_are_identifiers():
    with pytest.raises(ValueError, match="ext.var takes an identifier"):
        ext.var("not a name")


def test_a_stated_multiple_is_guard_free_and_checked():
    """ext.var("M", multiple_of=16) with 16-row tiles: the row bound of the
    tile folds (no min(16, M - offset) in the kernel), and a size that is
    not a multiple is refused before anything runs."""
    b = RNG.integers(-3, 4, (64, 128)).astype(np.float32)
    kernel = ext.matmul(ext.var("M", multiple_of=16), 128, 64, tile=(16, 32, 16)).build()
    assert "multiple_of = 16" in kernel.mlir()
    for m in (16, 48):
        a = RNG.integers(-3, 4, (m, 64)).astype(np.float32)
        np.testing.assert_array_equal(kernel.run(a, b), a @ b, err_msg=f"M = {m}")
    with pytest.raises(ValueError, match=r"size M is 33 in dimension 0 of input 'A', not a "
                                         r"multiple of 16 as ext.var\('M', multiple_of=16\) "
                                         r"states"):
        kernel.run(np.ones((33, 64), np.float32), b)
    plain = ext.matmul(ext.var("M"), 128, 64, tile=(16, 32, 16)).build()
    gpu = "ext-tile-ops-to-threads"
    assert kernel.mlir(gpu).count("arith.minsi") < plain.mlir(gpu).count("arith.minsi")


def test_a_fact_stated_on_the_compute_is_checked_at_launch():
    """The fact belongs to the name: stated on the compute's size only, the
    kernel's own check refuses M = 20 when it runs."""
    M = ext.var("M")
    A = ext.placeholder((M, 32), "float32", name="A")
    B = ext.placeholder((32, 64), "float32", name="B")
    k = ext.reduce_axis(32, name="k")
    C = ext.compute((ext.var("M", multiple_of=8), 64),
                    lambda i, j: ext.sum(A[i, k] * B[k, j], axis=k), name="C")
    kernel = ext.build(ext.schedule(C, tile=(8, 32, 16)))
    a, b = np.ones((16, 32), np.float32), np.ones((32, 64), np.float32)
    np.testing.assert_array_equal(kernel.run(a, b), a @ b)
    with pytest.raises(RuntimeError, match=r"the extent of axis 'i' is not a multiple of 8, "
                                           r"as its #ext.axis states"):
        kernel.run(np.ones((20, 32), np.float32), b)


def test_multiple_of_must_be_a_positive_int():
    with pytest.raises(ValueError, match=r"ext.var\('M'\): multiple_of must be a positive int"):
        ext.var("M", multiple_of=0)


def _warp_specialized_gemm(m, n, k, tile, warps, **fields):
    """C = A B^T in f16 (f32 accumulation) on sm_90a: a producer warpgroup
    loading both operands by TMA into 128-byte swizzled tiles, wgmma
    consumers, 3 stages; `fields` the rest of the schedule."""
    A, B, C = matmul_te(m, n, k, "float16", acc="float32", b_transposed=True)
    sw = {"swizzle": (3, 3, 3)}
    s = ext.schedule(C, tile=tile, cache=[(A, sw), (B, sw)], mma="wgmma_k16", warps=warps,
                     vector=8, stages=3, tma=True, **fields)
    return ext.build(s, chip="sm_90a")


def test_cluster_rows_of_a_symbolic_n_plan_at_launch():
    """1x2 clusters over a symbolic N: the cluster grid is planned at launch,
    and a single column tile (N = 8) leaves each cluster's second CTA past
    the edge (it computes zeros, stores nothing, and still releases its
    peer's stages)."""
    kernel = _warp_specialized_gemm(200, ext.var("N"), 136, (128, 64, 64), (8, 1),
                                    specialize="cooperative", cluster=(1, 2),
                                    decomposition=("persistent", {"sms": 3}))
    a = RNG.integers(-3, 4, (200, 136)).astype(np.float16)
    for n in (8, 72, 300):
        b = RNG.integers(-3, 4, (n, 136)).astype(np.float16)
        np.testing.assert_array_equal(kernel.run(a, b),
                                      a.astype(np.float32) @ b.astype(np.float32).T,
                                      err_msg=f"N = {n}")


@pytest.mark.parametrize("specialize,decomposition,cluster", [
    ("cooperative", "data_parallel", None), ("cooperative", ("stream_k", {"grid": 3}), None),
    ("pingpong", ("persistent", {"sms": 3}), None),
    ("cooperative", "data_parallel", (2, 1)), ("cooperative", ("persistent", {"sms": 4}), (2, 2))])
def test_warp_specialized_kernels_plan_every_m_at_launch(specialize, decomposition, cluster):
    """A producer warpgroup loading by TMA, the consumers on wgmma (two per
    tile, or one per tile taking turns), alone or in thread block clusters
    multicasting their shared tiles: one build serves every M, the tensor
    maps and the grid (of clusters) made at launch."""
    tile, warps = ((128, 64, 64), (8, 1)) if specialize == "cooperative" else ((64, 64, 64), (4, 1))
    kernel = _warp_specialized_gemm(ext.var("M"), 136, 200, tile, warps, specialize=specialize,
                                    decomposition=decomposition,
                                    **({"cluster": cluster} if cluster else {}))
    b = RNG.integers(-3, 4, (136, 200)).astype(np.float16)
    for m in (1, 70, 300):
        a = RNG.integers(-3, 4, (m, 200)).astype(np.float16)
        np.testing.assert_array_equal(kernel.run(a, b),
                                      a.astype(np.float32) @ b.astype(np.float32).T,
                                      err_msg=f"M = {m}")


def _decode_gemm_silu(M):
    """A decode GEMM (f16 on mma.sync) with a bias + SiLU epilogue fused by
    reverse_compute_at, as an inference engineer writes it."""
    N, K = 256, 128
    A = ext.placeholder((M, K), "float16", name="A")
    B = ext.placeholder((K, N), "float16", name="B")
    bias = ext.placeholder((N,), "float32", name="bias")
    k = ext.reduce_axis(K, name="k")
    C = ext.compute((M, N), lambda i, j: ext.sum(ext.cast(A[i, k], "float32") *
                                                 ext.cast(B[k, j], "float32"), axis=k), name="C")
    D = ext.compute((M, N), lambda i, j: ext.cast((C[i, j] + bias[j]) *
                                                  ext.sigmoid(C[i, j] + bias[j]), "float16"),
                    name="D")
    return ext.schedule(C, tile=(64, 64, 32), mma="m16n8k16", threads=[4, 32, 1], warps=[2, 2],
                        cache=[A, B], stages=3, vector=8).reverse_compute_at(D, "j")


def _global_stores(ptx):
    return len([line for line in ptx.splitlines() if "st.global" in line])


def test_a_symbolic_m_keeps_a_fused_intermediate_in_the_kernel():
    """C is read only by the epilogue fused into its kernel: with a symbolic
    M it is a buffer of the function as with a static one, never an argument
    the kernel writes (issue 52: it cost a decode step an M x N f32 store)."""
    kernel = ext.build(_decode_gemm_silu(ext.var("M")), target="nvvm", chip="sm_80")
    assert kernel.intermediates == []
    assert "mma.sync" in kernel.ptx
    # As many global stores as a static, ragged M's (both mask the edge),
    # and as a static tile-multiple M's when M is stated a multiple.
    assert _global_stores(kernel.ptx) == _global_stores(
        ext.build(_decode_gemm_silu(300), target="nvvm", chip="sm_80").ptx)
    aligned = ext.build(_decode_gemm_silu(ext.var("M", multiple_of=64)), target="nvvm",
                        chip="sm_80")
    assert _global_stores(aligned.ptx) == _global_stores(
        ext.build(_decode_gemm_silu(64), target="nvvm", chip="sm_80").ptx)
    for m in (1, 5, 70):
        a = RNG.standard_normal((m, 128)).astype(np.float16)
        b = RNG.standard_normal((128, 256)).astype(np.float16)
        t = RNG.standard_normal(256).astype(np.float32)
        c = a.astype(np.float32) @ b.astype(np.float32) + t
        ref = c / (1 + np.exp(-c))
        np.testing.assert_allclose(kernel.run(a, b, t).astype(np.float32), ref,
                                   rtol=5e-3, atol=5e-3)


def _rms_norm(M, N=512):
    X = ext.placeholder((M, N), "float32", name="X")
    g = ext.placeholder((N,), "float32", name="g")
    k = ext.reduce_axis(N, name="k")
    ms = ext.compute((M,), lambda i: ext.sum(X[i, k] * X[i, k] / float(N), axis=k), name="ms")
    y = ext.compute((M, N), lambda i, j: X[i, j] * ext.rsqrt(ms[i] + 1e-6) * g[j], name="y")
    s = ext.schedule(y, tile=(1, N), blocks=["i"], threads=(1, 128), cache=[X], vector=4)
    return s.compute_at(ms, "i")


def test_a_symbolic_rms_norm_keeps_its_row_statistic_in_the_kernel():
    kernel = ext.build(_rms_norm(ext.var("M")), target="nvvm", chip="sm_80")
    assert kernel.intermediates == []
    assert kernel.ptx.count(".entry") == 1
    assert _global_stores(kernel.ptx) == _global_stores(
        ext.build(_rms_norm(17), target="nvvm", chip="sm_80").ptx)
    for m in (1, 3, 17):
        x = RNG.standard_normal((m, 512)).astype(np.float32)
        gv = RNG.standard_normal(512).astype(np.float32)
        ref = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * gv
        np.testing.assert_allclose(kernel.run(x, gv), ref, rtol=1e-4, atol=1e-5)
