"""pytest for ext's TE level: computes built through the C++ API run on the
CPU (as plain loops and as scheduled GPU kernels on the emulator) and agree
with numpy for every reducer and dtype on ragged shapes; bad input raises a
Python exception naming the user's line."""

import os
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import pytest

import ext
from te_helpers import line_of, matmul_te

RNG = np.random.default_rng(1)
HERE = os.path.abspath(__file__)


def ints(shape, dtype=np.float32, lo=-4, hi=5):
    return RNG.integers(lo, hi, size=shape).astype(dtype)


# --- numbers ------------------------------------------------------------------

@pytest.mark.parametrize("scheduled", [False, True])
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (37, 19, 23), (70, 33, 40)])
def test_matmul_te(m, n, k, scheduled):
    A, B, C = matmul_te(m, n, k)
    item = ext.schedule(C, tile=(16, 16, 8), threads=(8, 8, 1),
                        cache=[(A, [(0, 8, 1)]), B]) if scheduled and m > 16 else C
    kernel = ext.build(item)
    a, b = ints((m, k)), ints((k, n))
    np.testing.assert_array_equal(kernel.run(a, b), a @ b)


@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("m,n,k", [(37, 19, 23), (70, 33, 40)])
def test_pipelined_stages(m, n, k, stages):
    # k-steps of 8 over a ragged K (23 = 2 x 8 + 7): 3 or 5 steps, fewer
    # than 4 stages in the first case.
    A, B, C = matmul_te(m, n, k)
    s = ext.schedule(C, tile=(16, 16, 8), threads=(8, 8, 1),
                     cache=[(A, [(0, 8, 1)]), B], stages=stages)
    assert f"stages = {stages}" in s.text()
    kernel = ext.build(s)
    a, b = ints((m, k)), ints((k, n))
    np.testing.assert_array_equal(kernel.run(a, b), a @ b)


@pytest.mark.parametrize("mma,target,chip,tile,threads,stages", [
    ("m16n8k16", "nvvm", "sm_80", (32, 32, 16), (4, 32, 1), 2),
    ("auto", "nvvm", "sm_90", (32, 32, 16), (4, 32, 1), None),
    ("mfma_32x32x8", "rocdl", "gfx942", (64, 64, 16), (4, 64, 1), None),
    ("mfma_16x16x16", "rocdl", "gfx90a", (32, 64, 16), (4, 64, 1), 2)])
def test_tensor_cores(mma, target, chip, tile, threads, stages):
    # f16 in, f32 accumulate on a ragged 70x75x50 problem; the emulator runs
    # the matrix instructions with their lane layouts (64-lane waves for the
    # AMD chips, as the kernel was built for them).
    m, n, k = 70, 75, 50
    A, B, C = matmul_te(m, n, k, "float16", acc="float32")
    s = ext.schedule(C, tile=tile, threads=threads, cache=[A, B], mma=mma, warps=(2, 2),
                     stages=stages)
    assert "warps = [2, 2]" in s.text()
    kernel = ext.build(s, target=target, chip=chip)
    if target == "nvvm":
        assert "mma.sync.aligned.m16n8k16" in kernel.ptx and "ldmatrix" in kernel.ptx
    else:
        assert kernel.hsaco[:4] == b"\x7fELF"
    a, b = ints((m, k), np.float16), ints((k, n), np.float16)
    c = kernel.run(a, b)
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))


@pytest.mark.parametrize("mma,target,chip,tile,threads", [
    ("m16n8k16", "nvvm", "sm_80", (32, 32, 16), [4, 32, 1]),
    ("mfma_32x32x8", "rocdl", "gfx942", (64, 64, 16), [4, 64, 1])])
def test_tensor_core_threads_from_warps(mma, target, chip, tile, threads):
    # Without `threads`, the block is the warps' lanes.
    m, n, k = 70, 75, 50
    A, B, C = matmul_te(m, n, k, "float16", acc="float32")
    s = ext.schedule(C, tile=tile, cache=[A, B], mma=mma, warps=(2, 2))
    assert f"threads = {threads}" in s.text()
    a, b = ints((m, k), np.float16), ints((k, n), np.float16)
    np.testing.assert_array_equal(ext.build(s, target=target, chip=chip).run(a, b),
                                  a.astype(np.float32) @ b.astype(np.float32))


@pytest.mark.parametrize("b_transposed", [False, True])
def test_tensor_cores_ldmatrix_pairs(b_transposed):
    # Warp tiles of 32x24: three n8 tiles, so B's fragments come as one
    # ldmatrix.x4 (two tiles) and one .x2; B given as [k][n] (ldmatrix
    # .trans) or as [n][k].
    m, n, k = 70, 100, 50
    A, B, C = matmul_te(m, n, k, "float16", acc="float32", b_transposed=b_transposed)
    s = ext.schedule(C, tile=(32, 96, 16), threads=(4, 32, 1), cache=[A, B], mma="m16n8k16",
                     warps=(1, 4))
    kernel = ext.build(s, target="nvvm", chip="sm_80")
    assert kernel.ptx.count("ldmatrix.sync.aligned.m8n8.x4") == 3
    assert kernel.ptx.count("ldmatrix.sync.aligned.m8n8.x2") == 1
    a = ints((m, k), np.float16)
    b = ints((n, k) if b_transposed else (k, n), np.float16)
    bb = b.astype(np.float32).T if b_transposed else b.astype(np.float32)
    np.testing.assert_array_equal(kernel.run(a, b), a.astype(np.float32) @ bb)


@pytest.mark.parametrize("b_transposed,tile", [(False, (64, 64, 64)), (False, (128, 128, 64)),
                                               (True, (128, 128, 64))])
def test_warpgroup_mma(b_transposed, tile):
    # sm_90a's wgmma: warps = [M / 16, 1] (whole warpgroups), A and B cached
    # in the 128-byte swizzled layout whose rows are 128 bytes: k tile 64;
    # an N-major B (given [k][n]) wider than one such row (64 columns) is
    # column panels of 64, a K-major one (given [n][k]) takes any width.
    # Ragged 150x130x100, 2 stages.
    m, n, k = 150, 130, 100
    A, B, C = matmul_te(m, n, k, "float16", acc="float32", b_transposed=b_transposed)
    sw = {"swizzle": (3, 3, 3)}
    sw_b = {"swizzle": (3, 3, 3, 64)} if not b_transposed and tile[1] > 64 else sw
    s = ext.schedule(C, tile=tile, cache=[(A, sw), (B, sw_b)], mma="wgmma_k16",
                     warps=(tile[0] // 16, 1), vector=8, stages=2)
    kernel = ext.build(s, target="nvvm", chip="sm_90a")
    assert f"wgmma.mma_async.sync.aligned.m64n{tile[1]}k16.f32.f16.f16" in kernel.ptx
    a = ints((m, k), np.float16)
    b = ints((n, k) if b_transposed else (k, n), np.float16)
    bb = b.astype(np.float32).T if b_transposed else b.astype(np.float32)
    np.testing.assert_array_equal(kernel.run(a, b), a.astype(np.float32) @ bb)
    # wgmma is an sm_90a instruction.
    with pytest.raises(RuntimeError, match="does not exist on chip sm_90"):
        ext.build(s, target="nvvm", chip="sm_90")


def test_blocked_layout():
    A, B, C = matmul_te(37, 45, 23)
    s = ext.schedule(C, tile=(32, 32, 8), threads=(8, 8, 1), layout=("blocked", [4, 4]))
    assert "layout = #ext.blocked<thread_tile = [4, 4]>" in s.text()
    a, b = ints((37, 23)), ints((23, 45))
    np.testing.assert_array_equal(ext.build(s).run(a, b), a @ b)


def test_register_blocking_reads_stay_in_runs():
    # thread_tile [4, 6] with vector = 4: B's shared reads along the runs of 6
    # go as pairs (a 4-wide read would start at 6t + 4, unaligned, and run
    # into the next thread's points), A's along K as 4-wide vectors.
    A, B, C = matmul_te(100, 96, 40)
    s = ext.schedule(C, tile=(32, 48, 8), threads=(8, 8, 1), layout=("blocked", [4, 6]),
                     cache=[A, B], vector=4)
    kernel = ext.build(s)
    reads = [line for line in kernel.mlir("ext-tile-ops-to-threads").splitlines()
             if "vector.load" in line and "workgroup" in line]
    b_reads = [line for line in reads if "memref<8x48xf32" in line]
    a_reads = [line for line in reads if "memref<32x8xf32" in line]
    assert b_reads and all("vector<2xf32>" in line for line in b_reads)
    assert a_reads and all("vector<4xf32>" in line for line in a_reads)
    a, b = ints((100, 40)), ints((40, 96))
    np.testing.assert_array_equal(kernel.run(a, b), a @ b)


@pytest.mark.parametrize("thread_tile,tile,width", [
    ((4, 4), (32, 32, 8), 4), ((4, 6), (32, 48, 8), 2), ((2, 3), (16, 24, 8), None)])
def test_staged_epilogue_vectors(thread_tile, tile, width):
    # The epilogue writes a thread's runs of consecutive points into the
    # staged output tile as vectors that never cross a run: a run of 6 goes
    # as pairs, a run of 3 element by element.
    A, B, C = matmul_te(100, 90, 40)
    s = ext.schedule(C, tile=tile, threads=(8, 8, 1), layout=("blocked", list(thread_tile)),
                     cache=[A, B, C])
    kernel = ext.build(s)
    stores = [line for line in kernel.mlir("ext-tile-ops-to-threads").splitlines()
              if "vector.store" in line and "workgroup" in line]
    if width is None:
        assert not stores
    else:
        assert stores and all(f"vector<{width}xf32>" in line for line in stores)
    a, b = ints((100, 40)), ints((40, 90))
    np.testing.assert_array_equal(kernel.run(a, b), a @ b)


@pytest.mark.parametrize("dtype,np_dtype", [
    ("float32", np.float32), ("f64", np.float64), ("float16", np.float16),
    ("int32", np.int32), ("int8", np.int8), ("i64", np.int64), ("int16", np.int16)])
@pytest.mark.parametrize("scheduled", [False, True])
def test_dtypes(dtype, np_dtype, scheduled):
    m, n, k = 21, 13, 7
    A, B, C = matmul_te(m, n, k, dtype)
    kernel = ext.build(ext.schedule(C, tile=(8, 8, 4)) if scheduled else C)
    a, b = ints((m, k), np_dtype, -3, 4), ints((k, n), np_dtype, -3, 4)
    c = kernel.run(a, b)
    assert c.dtype == np_dtype
    np.testing.assert_array_equal(c, (a.astype(np.int64) @ b.astype(np.int64)).astype(np_dtype))
    if np.dtype(np_dtype).kind == "i":
        assert "arith.muli" in kernel.mlir() and "arith.mulf" not in kernel.mlir()


def test_bf16():
    A, B, C = matmul_te(9, 11, 5, "bfloat16", acc="float32")
    a, b = ints((9, 5)), ints((5, 11))
    c = ext.build(C).run(a, b)
    assert c.dtype == np.float32
    np.testing.assert_array_equal(c, a @ b)
    X = ext.placeholder((6,), "bf16", name="X")
    Y = ext.compute((6,), lambda i: X[i] * 2.0, name="Y")
    x = np.array([1.0, 1.5, -3.0, 0.0078125, 256.0, 3.0], np.float32)
    np.testing.assert_array_equal(ext.build(Y).run(x), x * 2)


@pytest.mark.parametrize("reducer,reference", [
    (ext.sum, np.sum), (ext.prod, np.prod), (ext.max, np.max), (ext.min, np.min)])
@pytest.mark.parametrize("scheduled", [False, True])
def test_reducers(reducer, reference, scheduled):
    m, k = 13, 9
    X = ext.placeholder((m, k), "float32", name="X")
    r = ext.reduce_axis(k, name="k")
    Y = ext.compute((m,), lambda i: reducer(X[i, r], axis=r), name="Y")
    x = ints((m, k), lo=-2, hi=3)
    item = ext.schedule(Y, tile=(8, 4), threads=(8, 1)) if scheduled else Y
    np.testing.assert_array_equal(ext.build(item).run(x), reference(x, axis=1))


def test_row_max_over_threads():
    """A row max whose reduce axis runs on 32 threads (a tree reduction)."""
    X = ext.placeholder((37, 64), "float32", name="X")
    k = ext.reduce_axis(64, name="k")
    Y = ext.compute((37,), lambda i: ext.max(X[i, k], axis=k), name="Y")
    s = ext.schedule(Y, tile=(4, 64), threads=(4, 32))
    x = RNG.standard_normal((37, 64)).astype(np.float32)
    np.testing.assert_array_equal(ext.build(s).run(x), x.max(axis=1))


def test_two_reduce_axes():
    X = ext.placeholder((5, 6, 7), "int32", name="X")
    r1, r2 = ext.reduce_axis(6, name="r1"), ext.reduce_axis(7, name="r2")
    Y = ext.compute((5,), lambda i: ext.sum(X[i, r1, r2], axis=[r1, r2]), name="Y")
    x = ints((5, 6, 7), np.int32)
    np.testing.assert_array_equal(ext.build(Y).run(x), x.sum(axis=(1, 2)))


def argmax_reducer():
    def combine(x, y):
        take_x = x[1] >= y[1]
        return ext.if_then_else(take_x, x[0], y[0]), ext.max(x[1], y[1])

    def identity(t0, t1):
        return ext.const(-1, t0), ext.min_value(t1)
    return ext.comm_reducer(combine, identity, name="argmax")


@pytest.mark.parametrize("scheduled", [False, True])
def test_argmax_comm_reducer(scheduled):
    m, k = 11, 29
    X = ext.placeholder((m, k), "float32", name="X")
    r = ext.reduce_axis(k, name="k")
    idx, val = ext.compute((m,), lambda i: argmax_reducer()((r, X[i, r]), axis=r), name="am")
    x = RNG.permutation(m * k).reshape(m, k).astype(np.float32)
    item = ext.schedule(idx, tile=(4, 8), threads=(4, 1)) if scheduled else [idx, val]
    i, v = ext.build(item).run(x)
    np.testing.assert_array_equal(i, x.argmax(axis=1))
    np.testing.assert_array_equal(v, x.max(axis=1))


def test_softmax_chain():
    m, n = 9, 23
    X = ext.placeholder((m, n), "float32", name="X")
    k1, k2 = ext.reduce_axis(n, name="k1"), ext.reduce_axis(n, name="k2")
    mx = ext.compute((m,), lambda i: ext.max(X[i, k1], axis=k1), name="row_max")
    e = ext.compute((m, n), lambda i, j: ext.exp(X[i, j] - mx[i]), name="e")
    sm = ext.compute((m,), lambda i: ext.sum(e[i, k2], axis=k2), name="row_sum")
    y = ext.compute((m, n), lambda i, j: e[i, j] / sm[i], name="softmax")
    kernel = ext.build([ext.schedule(mx), e, ext.schedule(sm), y])
    assert [t.name for t in kernel.outputs] == ["softmax"]
    x = RNG.standard_normal((m, n)).astype(np.float32)
    ref = np.exp(x - x.max(axis=1, keepdims=True))
    ref /= ref.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(kernel.run(x), ref, rtol=1e-5, atol=1e-6)


def test_expressions():
    n = 17
    X = ext.placeholder((n,), "float32", name="X")
    Y = ext.compute((n,), lambda i: ext.if_then_else(X[i] > 0, ext.sqrt(X[i]), -X[i] * 2.0)
                    + ext.tanh(X[i]) + ext.log(ext.abs(X[i]) + 1.0)
                    + i.astype("float32") + X[i] ** 2.0 + ext.sigmoid(X[i]), name="Y")
    x = RNG.standard_normal(n).astype(np.float32)
    ref = (np.where(x > 0, np.sqrt(np.abs(x)), -x * 2) + np.tanh(x) + np.log(np.abs(x) + 1)
           + np.arange(n) + x ** 2 + 1 / (1 + np.exp(-x)))
    np.testing.assert_allclose(ext.build(Y).run(x), ref, rtol=1e-5)


def test_integer_expressions():
    X = ext.placeholder((12,), "int32", name="X")
    Y = ext.compute((12,), lambda i: (X[i] // 3) * 10 + X[i] % 3 + ext.max(X[i], 0)
                    + ext.if_then_else((X[i] > 2) & (X[i] < 5), 100, 0), name="Y")
    x = np.arange(-6, 6, dtype=np.int32)
    ref = (x // 3) * 10 + x % 3 + np.maximum(x, 0) + np.where((x > 2) & (x < 5), 100, 0)
    np.testing.assert_array_equal(ext.build(Y).run(x), ref)


def test_conv2d_affine_access():
    n, c, h, w, f, kh, kw = 2, 3, 9, 8, 4, 3, 3
    X = ext.placeholder((n, c, h, w), "float32", name="X")
    W = ext.placeholder((f, c, kh, kw), "float32", name="W")
    rc, ry, rx = (ext.reduce_axis(c, "rc"), ext.reduce_axis(kh, "ry"),
                  ext.reduce_axis(kw, "rx"))
    oh, ow = h - kh + 1, w - kw + 1
    Y = ext.compute((n, f, oh, ow), lambda b, o, y, x: ext.sum(
        X[b, rc, y + ry, x + rx] * W[o, rc, ry, rx], axis=[rc, ry, rx]), name="Y")
    x, wt = ints((n, c, h, w)), ints((f, c, kh, kw))
    ref = np.zeros((n, f, oh, ow), np.float32)
    for dy in range(kh):
        for dx in range(kw):
            ref += np.einsum("bchw,oc->bohw", x[:, :, dy:dy + oh, dx:dx + ow], wt[:, :, dy, dx])
    for item in (Y, ext.schedule(Y)):
        np.testing.assert_array_equal(ext.build(item).run(x, wt), ref)


def test_gpu_targets():
    A, B, C = matmul_te(64, 48, 32)
    s = ext.schedule(C, tile=(32, 16, 8), threads=(8, 16, 1), cache=[(A, [(0, 8, 1)]), B],
                     decomposition="data_parallel", raster="col", swizzle=2)
    k = ext.build(s, target="nvvm", chip="sm_90")
    assert ".target sm_90" in k.ptx and ".entry" in k.ptx
    assert k.shared_memory_bytes > 0 and k.workspace_bytes == 0
    assert "ext.kernel" in k.mlir("ext-apply-schedule")
    assert "#ext.schedule" in k.mlir() and "gpu.module" in k.mlir("final")
    assert "shared memory" in k.report()
    with pytest.raises(ValueError, match="no stage 'nope'; stages: input"):
        k.mlir("nope")
    with pytest.raises(ValueError, match="no HSACO"):
        k.hsaco
    ptxas = "/usr/local/cuda/bin/ptxas"
    if os.path.exists(ptxas):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "k.ptx")
            with open(path, "w") as f:
                f.write(k.ptx)
            r = subprocess.run([ptxas, "-arch=sm_90", "-v", path, "-o", path + ".cubin"],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            assert f"{k.shared_memory_bytes} bytes smem" in r.stderr
    amd = ext.build(s, target="rocdl", chip="gfx942")
    assert amd.hsaco[:4] == b"\x7fELF"
    a, b = ints((64, 32)), ints((32, 48))
    np.testing.assert_array_equal(k.run(a, b), a @ b)  # the CPU emulator
    assert ext.build(s, target="nvvm", chip="sm_90") is k  # cached


def test_cuda_without_driver_is_an_error():
    A, B, C = matmul_te(8, 8, 8)
    k = ext.build(ext.schedule(C))
    try:
        k.run(ints((8, 8)), ints((8, 8)), target="cuda")
    except RuntimeError as e:
        assert "needs an NVIDIA GPU" in str(e) or "CUDA" in str(e)
    with pytest.raises(ValueError, match="unknown run target"):
        k.run(ints((8, 8)), ints((8, 8)), target="tpu")


@pytest.mark.parametrize("decomposition", ext.decomposition_names())
@pytest.mark.parametrize("m,n,k", [(45, 37, 29), (8, 130, 64)])
def test_every_decomposition(decomposition, m, n, k):
    A, B, C = matmul_te(m, n, k)
    s = ext.schedule(C, tile=(min(m, 16), 16, 8), threads=(8, 8, 1), cache=[A, B],
                     decomposition=decomposition)
    a, b = ints((m, k)), ints((k, n))
    # The chip sizes the persistent grids of the Stream-K family and auto.
    np.testing.assert_array_equal(ext.build(s, chip="sm_80").run(a, b), a @ b)


@pytest.mark.parametrize("decomposition", [
    ("split_k", {"slices": 3}), ("split_k", {"slices": 2, "mode": "parallel"}),
    ("stream_k", {"grid": 7}), ("stream_k_dp", {"sms": 5}),
    ("stream_k_2tile", {"sms": 5}), ("auto", {"sms": 5})])
def test_decomposition_parameters(decomposition):
    # 45x37 in 16x16 tiles is 9 tiles of 4 k-steps: grids of 5 and 7 CTAs
    # split tiles unevenly, so the fixup runs.
    A, B, C = matmul_te(45, 37, 29)
    s = ext.schedule(C, tile=(16, 16, 8), threads=(8, 8, 1), cache=[A, B],
                     decomposition=decomposition)
    a, b = ints((45, 29)), ints((29, 37))
    kernel = ext.build(s)
    np.testing.assert_array_equal(kernel.run(a, b), a @ b)
    assert kernel.workspace_bytes > 0 or decomposition[0] == "auto"
    assert ext.build(ext.schedule(C, tile=(16, 16, 8))).workspace_bytes == 0
    with pytest.raises(ValueError, match="decomposition 'split_k': .*unexpected keyword"):
        ext.schedule(C, decomposition=("split_k", {"grid": 3}))


def test_constant_out_of_range():
    X = ext.placeholder((4,), "float32", name="X")
    with pytest.raises(ValueError, match="constant 1e\\+300 does not fit in f32"):
        ext.compute((4,), lambda i: X[i] + 1e300)
    with pytest.raises(ValueError, match="constant 1000 does not fit in i8"):
        ext.compute((4,), lambda i: i.astype("int8") + 1000)


def test_default_schedule_builds_and_runs():
    A, B, C = matmul_te(45, 300, 20)
    s = ext.schedule(C)
    assert "blocks" in s.text()
    a, b = ints((45, 20)), ints((20, 300))
    np.testing.assert_array_equal(ext.build(s).run(a, b), a @ b)


def test_helpers_on_te():
    a, b = ints((20, 10)), ints((10, 13))
    w = ext.matmul(20, 13, 10).schedule(tile=(16, 8, 4), threads=(4, 8, 1), cache=(0, 1),
                                        storage_align={0: [(0, 32, 1)]})
    np.testing.assert_array_equal(w.run_cpu(a, b), a @ b)
    with pytest.raises(ValueError, match=r"storage_align or xor_swizzle given for input\(s\) \[1\], which "
                                         "are not cached"):
        ext.matmul(20, 13, 10).schedule(tile=(16, 8, 4), threads=(4, 8, 1), cache=(0,),
                                        storage_align={1: [(0, 32, 1)]})


# --- layouts (issue 14 item 1) -----------------------------------------------

def layouts():
    big = ints((40, 64))
    base = ints((24, 16))
    return {
        "C": base,
        "Fortran": np.asfortranarray(base),
        "sliced": big[3:27, 5:53:3],
        "negative": base[::-1, ::-1],
    }


@pytest.mark.parametrize("layout", ["C", "Fortran", "sliced", "negative"])
def test_layouts_module_run_cpu(layout):
    """Module.run_cpu with outputs and inputs in every layout."""
    a = layouts()[layout]
    b = ints((16, 8))
    ref = a @ b
    m = ext.matmul(24, 8, 16).module()
    out = {"C": np.zeros((24, 8), np.float32),
           "Fortran": np.zeros((24, 8), np.float32, order="F"),
           "sliced": np.zeros((30, 20), np.float32)[2:26, 4:20:2],
           "negative": np.zeros((24, 8), np.float32)[::-1, ::-1]}[layout]
    m.run_cpu("kernel", [a, b, out])
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("layout", ["C", "Fortran", "sliced", "negative"])
def test_layouts_kernel_run(layout):
    a = layouts()[layout]
    b = ints((16, 8))
    A, B, C = matmul_te(24, 8, 16)
    kernel = ext.build(ext.schedule(C, tile=(8, 8, 4)))
    np.testing.assert_array_equal(kernel.run(a, b), a @ b)


# --- bad input (issue 20 "must show", issue 14 item 3) -----------------------


def test_reduce_axis_outside_reduction_names_the_line():
    X = ext.placeholder((4, 5), "float32", name="X")
    k = ext.reduce_axis(5, name="k")
    with pytest.raises(ValueError, match=rf"test_te.py:{line_of('# reduce-outside')}: "
                                         "reduce axis 'k' used outside a reduction"):
        ext.compute((4,), lambda i: X[i, k] * 2.0)  # reduce-outside


def test_shape_mismatch():
    A = ext.placeholder((8, 5), "float32", name="A")
    B = ext.placeholder((6, 7), "float32", name="B")
    k = ext.reduce_axis(6, name="k")
    with pytest.raises(ValueError, match=r"A\[i, k\]: index #1 ranges over \[0, 5\] but A "
                                         "has extent 5 in dimension 1"):
        ext.compute((8, 7), lambda i, j: ext.sum(A[i, k] * B[k, j], axis=k))
    with pytest.raises(IndexError, match="A has 2 dimensions, indexed with 1"):
        ext.compute((8,), lambda i: A[i])


def test_unknown_decomposition_and_fields():
    A, B, C = matmul_te(32, 32, 32)
    with pytest.raises(ValueError, match="unknown decomposition 'streamk'; valid "
                                         "decompositions: auto, data_parallel, persistent, split_k, "
                                         "stream_k, stream_k_2tile, stream_k_dp"):
        ext.schedule(C, decomposition="streamk")
    with pytest.raises(ValueError, match="schedule field 'num_stages' does not exist in this "
                                         "build of ext; valid fields: tile, threads"):
        ext.schedule(C, num_stages=3)
    with pytest.raises(ValueError, match="cache field 'padding' does not exist"):
        ext.schedule(C, cache=[(A, {"padding": 3})])
    with pytest.raises(ValueError, match=r"swizzle takes \(bits, base, shift\)"):
        ext.schedule(C, cache=[(A, {"swizzle": 3})])
    with pytest.raises(ValueError, match="is not a tile decomposition"):
        ext.build(ext.schedule(C, decomposition="#ext.storage_align<dim = 0, factor = 2, "
                                                 "offset = 0>"))
    with pytest.raises(ValueError, match="schedule mma must be 'auto', an instruction such as "
                                         "'m16n8k16'"):
        ext.schedule(C, mma="wmma")
    with pytest.raises(ValueError, match="expected ::ext::MmaShape to be one of: auto, m16n8k16"):
        ext.build(ext.schedule(C, mma="m16n8k32", warps=(1, 1)))
    with pytest.raises(ValueError, match=r"schedule warps takes 2 positive integers, got \(2,\)"):
        ext.schedule(C, warps=(2,))
    with pytest.raises(ValueError, match="schedule layout must be 'cyclic', \\('blocked'"):
        ext.schedule(C, layout="blocky")


def test_zero_tile_and_verifier_messages():
    A, B, C = matmul_te(20, 13, 10)
    with pytest.raises(ValueError, match="tile of axis 'j' must be a positive integer, got 0"):
        ext.schedule(C, tile=(16, 0, 8))
    bad = ext.schedule(C, tile=(16, 16, 8), threads=(4, 7, 1))  # bad-tile
    with pytest.raises(ValueError, match=rf"test_te.py:{line_of('# bad-tile')}: invalid "
                                         "schedule for compute 'C': tile size 16 of axis 'j' "
                                         "is not a multiple of its 7 threads"):
        ext.build(bad)
    with pytest.raises(ValueError, match=r"storage_align of input #1 names dimension 5 of a "
                                         r"rank-2 operand \(input #0 is A\[i, k\], #1 is "
                                         r"B\[k, j\]\)"):
        ext.build(ext.schedule(C, tile=(16, 13, 8), threads=(4, 13, 1), cache=[(B, (5, 2, 1))]))
    with pytest.raises(ValueError, match="invalid schedule: schedule vector width must be 1, "
                                         "2, 4 or 8, got 3$"):
        ext.build(ext.schedule(C, vector=3))
    D = ext.placeholder((4,), "float32", name="D")
    with pytest.raises(ValueError, match="cache names 'D'"):
        ext.schedule(C, cache=[D])


def test_dtype_errors():
    with pytest.raises(ValueError, match="unknown dtype 'float8'; valid dtypes: f16"):
        ext.placeholder((4,), "float8")
    X = ext.placeholder((4,), "float32", name="X")
    I = ext.placeholder((4,), "int32", name="I")
    with pytest.raises(TypeError, match="'add' of f32 and i32; cast one with .astype"):
        ext.compute((4,), lambda i: X[i] + I[i])
    with pytest.raises(TypeError, match="use // for integer division"):
        ext.compute((4,), lambda i: I[i] / 2)
    with pytest.raises(TypeError, match="ext.exp needs a floating-point value"):
        ext.compute((4,), lambda i: ext.exp(I[i]))
    with pytest.raises(TypeError, match="no truth value"):
        ext.compute((4,), lambda i: X[i] if X[i] > 0 else 0.0)
    k = ext.build(ext.compute((4,), lambda i: X[i] * 2.0))
    with pytest.raises(ValueError, match=r"input 'X' has dtype float64, the placeholder f32"):
        k.run(np.zeros(4))  # f64 is not silently cast to f32
    with pytest.raises(ValueError, match=r"input 'X' has shape \(5,\)"):
        k.run(np.zeros(5, np.float32))
    with pytest.raises(ValueError, match="takes 1 arrays"):
        k.run()


def test_reduction_must_be_whole_value():
    X = ext.placeholder((4, 5), "float32", name="X")
    k = ext.reduce_axis(5, name="k")
    with pytest.raises(ValueError, match="a reduction must be the whole value"):
        ext.compute((4,), lambda i: ext.sum(X[i, k], axis=k) * 2.0)


def test_garbage_ir_to_parse():
    for text in ["func.func @f( {", "%0 = ", "\x00\xff", "module { module {",
                 '"test.op"() {a = array<index: 1>} : () -> ()',
                 "func.func @f() { ext.compute [] outs() maps [] {} }"]:
        with pytest.raises(ValueError, match="could not parse"):
            ext.Module.parse(text)  # the default context


def test_risky_input_does_not_kill_the_interpreter():
    """Inputs near the parser's and verifier's edges, in a subprocess: it must
    exit normally (exceptions are fine, signals are not)."""
    script = textwrap.dedent("""
        import ext, numpy as np
        bad = [
            lambda: ext.Module.parse('!t = index\\n"test.op"() {a = array<!t: 1>} : () -> ()'),
            lambda: ext.Module.parse("func.func @f(%a: memref<?xf32>) { return }").run_cpu(
                "f", [np.zeros(3, np.float32)]),
            lambda: ext.build(ext.schedule(ext.compute((4,), lambda i: ext.placeholder(
                (4,), "f32", name="P")[i] + 1.0), tile=(4,), threads=(2000,))),
            lambda: ext.build(ext.schedule(ext.compute((4,), lambda i: ext.placeholder(
                (4,), "f32", name="Q")[i] + 1.0), decomposition="#ext.nope")),
            lambda: ext.Module.parse("func.func @f() { return }").run_pipeline("canonicalize{"),
            lambda: ext.build(ext.schedule(ext.compute((4,), lambda i: ext.placeholder(
                (4,), "f32", name="R")[i]), decomposition=
                '#ext.data_parallel> }, ext.junk = array<index: 1')),
            lambda: ext.build(ext.compute((4,), lambda i: ext.placeholder((4,), "f32")[i]),
                              target="nvvm", chip="sm_1000"),
            lambda: ext.Module.parse(
                "func.func @k(%a: memref<4xf32, strided<[2]>>) { return }").run_cpu(
                "k", [np.zeros(4, np.float32)]),
            lambda: ext.Module.parse("func.func @k(%a: memref<4xf32>) { return }").run_cpu(
                "k", [[1.0, 2.0, 3.0, 4.0]]),
            lambda: ext.build(ext.compute((4,), lambda i: ext.comm_reducer(
                lambda x, y: x + ext.placeholder((4,), "f32")[0], lambda t: 0.0)(
                ext.placeholder((4,), "f32")[i], axis=ext.reduce_axis(4))))
        ]
        for f in bad:
            try:
                f()
            except Exception as e:
                print(type(e).__name__, str(e).splitlines()[0][:80])
        print("survived")
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert "survived" in r.stdout


def test_locations_name_the_python_line():
    X = ext.placeholder((4,), "float32", name="X")
    Y = ext.compute((4,), lambda i: X[i] + 1.0, name="Y")  # loc-line
    text = ext.build(Y).module.to_string(locations=True)
    line = line_of("# loc-line")
    assert f'loc("{HERE}":{line}:0)' in text and 'loc("Y"(' in text, text
    assert "ext.compute" in text
    kernel = ext.build(Y)
    assert kernel.mlir() == str(kernel.module)
    # The locations are printed with the debug info, e.g. in verifier errors.
    with pytest.raises(ValueError, match=rf"test_te.py:{line_of('# loc-sched')}"):
        ext.build(ext.schedule(Y, tile=(4,), threads=(3,)))  # loc-sched


def test_random_schedules_match_numpy():
    """Random valid schedules (tiles, thread counts, caches with
    storage_align, vector, unroll, raster, swizzle) of ragged sum/max/min
    matmuls on the emulator: right numbers or a ValueError, never a crash."""
    import random
    rng = random.Random(7)
    built = 0
    for _ in range(12):
        m, n, k = rng.randint(1, 50), rng.randint(1, 50), rng.randint(1, 30)
        A = ext.placeholder((m, k), "float32", name="A")
        B = ext.placeholder((k, n), "float32", name="B")
        r = ext.reduce_axis(k, "k")
        red, ref = rng.choice([(ext.sum, np.sum), (ext.max, np.max), (ext.min, np.min)])
        C = ext.compute((m, n), lambda i, j: red(A[i, r] * B[r, j], axis=r), name="C")

        def pick(e):
            return min(e, rng.choice([1, 3, 4, 8, 16, 32, e, rng.randint(1, e)]))

        def divisor(t):
            return rng.choice([d for d in range(1, min(t, 32) + 1) if t % d == 0])
        tile = [pick(m), pick(n), pick(k)]
        threads = [divisor(tile[0]), divisor(tile[1]), 1]
        if rng.random() < 0.3:
            tile[2], threads[2] = k, rng.choice([1, 2, 4, 8])
        cache = rng.choice([[], [A], [B], [(A, [(0, rng.choice([2, 8, 32]), 1)]), (B, (1, 4, 0))]])
        s = ext.schedule(C, tile=tuple(tile), threads=tuple(threads), cache=cache,
                         vector=rng.choice([1, 2, 4]), unroll=rng.choice([1, 2]),
                         raster=rng.choice(["row", "col"]), swizzle=rng.choice([1, 2, 3]))
        try:
            kernel = ext.build(s, keep_stages=False)
        except ValueError:
            continue
        a, b = ints((m, k), lo=-3, hi=4), ints((k, n), lo=-3, hi=4)
        np.testing.assert_array_equal(kernel.run(a, b), ref(a[:, :, None] * b[None], axis=1))
        built += 1
    assert built >= 8


@pytest.mark.parametrize("decomposition", ["data_parallel", ("split_k", {"slices": 3}),
                                           ("stream_k", {"grid": 7})])
def test_staged_output(decomposition):
    # Caching C itself stages the output through a shared tile (ragged
    # edges included); the k-loop tiles share its bytes.
    A, B, C = matmul_te(45, 37, 29)
    s = ext.schedule(C, tile=(16, 16, 8), threads=(8, 8, 1), cache=[A, B, C],
                     decomposition=decomposition)
    assert "#ext.cache<operand = 2>" in str(s)
    a, b = ints((45, 29)), ints((29, 37))
    np.testing.assert_array_equal(ext.build(s).run(a, b), a @ b)


def test_tuple_of_sums_is_one_multi_output_reduction():
    """(ext.sum(x), ext.sum(x * x)) over one axis is one compute with two
    outputs, as combiner(sum) yielding two values is in MLIR (LayerNorm's
    statistics in one pass)."""
    X = ext.placeholder((8, 50), "float32", name="X")
    k = ext.reduce_axis(50, name="k")
    s1, s2 = ext.compute((8,), lambda i: (ext.sum(X[i, k], axis=k),
                                          ext.sum(X[i, k] * X[i, k], axis=k)), name="stats")
    assert s1.op is s2.op
    x = np.random.default_rng(4).integers(-4, 5, (8, 50)).astype(np.float32)
    for items in ([s1, s2], ext.schedule(s1, tile=(1, 50), threads=(1, 32))):
        a, b = ext.build(items).run(x)
        np.testing.assert_array_equal(a, x.sum(1))
        np.testing.assert_array_equal(b, (x * x).sum(1))
    # Different kinds or axes still need a comm_reducer.
    k2 = ext.reduce_axis(50, name="k2")
    with pytest.raises(ValueError, match="must all come from one reduction"):
        ext.compute((8,), lambda i: (ext.sum(X[i, k], axis=k), ext.max(X[i, k2], axis=k2)))


@pytest.mark.parametrize("dtype,fields,vector_store", [
    ("float16", dict(tile=(64, 64, 32), threads=(4, 32, 1), mma="m16n8k16", warps=(2, 2),
                     vector=8, stages=2), "st.global.v2.b32"),
    ("float32", dict(tile=(128, 128, 8), threads=(16, 16, 1), layout=("blocked", [4, 4]),
                     vector=4, stages=2), "st.global.v4.b32"),
])
def test_whole_output_tiles_store_vectors(dtype, fields, vector_store):
    # Tiles that divide the output are stored with vectors (accumulator
    # pairs, runs of 4); the numbers stay exact on the emulator.
    m, n, k = 256, 256, 64
    A, B, C = matmul_te(m, n, k, dtype, acc="float32")
    s = ext.schedule(C, cache=[A, B], **fields)
    assert vector_store in ext.build(s, "nvvm", chip="sm_80").ptx
    a, b = ints((m, k), np.dtype(dtype)), ints((k, n), np.dtype(dtype))
    np.testing.assert_array_equal(ext.build(s).run(a, b),
                                  a.astype(np.float32) @ b.astype(np.float32))


def test_stream_k_partials_move_as_vectors():
    # Stream-K's partial tiles are stored and combined 16 bytes at a time
    # (a thread's runs of 4); the fixup stays exact on the emulator.
    w = ext.matmul(512, 512, 512, decomposition="stream_k", grid=7, cache=(0, 1),
                   tile=(128, 128, 8), threads=(16, 16, 1), layout=("blocked", [4, 4]),
                   vector=4, stages=2)
    ptx = w.build("nvvm", chip="sm_80").ptx
    assert ptx.count("ld.global.v4") >= 16 and ptx.count("st.global.v4") >= 16
    a, b = ints((512, 512)), ints((512, 512))
    np.testing.assert_array_equal(w.run(a, b), a @ b)
