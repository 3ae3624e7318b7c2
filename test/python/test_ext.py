"""pytest for ext's Python bindings: built computes run on the CPU and agree
with numpy; errors surface as exceptions with MLIR's diagnostics."""

import numpy as np
import pytest

import ext

RNG = np.random.default_rng(0)


def small_ints(shape, dtype=np.float32):
    return RNG.integers(-4, 5, size=shape).astype(dtype)


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (20, 13, 10), (37, 5, 64)])
def test_matmul_matches_numpy(m, n, k):
    a, b = small_ints((m, k)), small_ints((k, n))
    c = ext.matmul(m, n, k).run_cpu(a, b)
    np.testing.assert_array_equal(c, a @ b)


def test_f16_inputs_f32_accumulation():
    a, b = small_ints((9, 33), np.float16), small_ints((33, 7), np.float16)
    c = ext.matmul(9, 7, 33, dtype="f16", acc="f32").run_cpu(a, b)
    assert c.dtype == np.float32
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("decomposition,params", [
    ("data_parallel", {}), ("split_k", {"split_k": 3}),
    ("split_k", {"split_k": 4, "split_k_mode": "parallel"}), ("stream_k", {"grid": 7}),
    ("stream_k", {"grid": 6}), ("stream_k_dp", {"sms": 5}), ("stream_k_2tile", {"sms": 5}),
    ("persistent", {"grid": 4}), ("persistent", {"chip": "sm_80"}),
    ("auto", {"sms": 132}), ("auto", {"chip": "sm_90"})])
def test_matmul_decompositions(dtype, decomposition, params):
    # Issue 15's one-call form: a ragged 150x130x200 GEMM (5 x 5 tiles of 32,
    # 13 k-steps of 16) on the emulator, f16 inputs accumulated in f32.
    m, n, k = 150, 130, 200
    a, b = small_ints((m, k), dtype), small_ints((k, n), dtype)
    kernel = ext.matmul(m, n, k, dtype=dtype, tile=(32, 32, 16), decomposition=decomposition,
                        **params)
    c = kernel.run(a, b)
    assert c.dtype == np.float32
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))


def test_matmul_decomposition_keywords():
    s = ext.matmul(64, 64, 64, split_k=4).mlir()  # split_k alone implies split-K
    assert "decomposition = #ext.split_k<slices = 4>" in s  # serial: the default
    assert "#ext.stream_k<grid = 9>" in ext.matmul(64, 64, 64, grid=9).mlir()
    assert "#ext.persistent<grid = 9>" in ext.matmul(64, 64, 64, decomposition="persistent",
                                                      grid=9).mlir()
    with pytest.raises(ValueError, match="grid = 3 is the CTA count of Stream-K or the "
                                         "persistent grid; decomposition 'split_k' does not "
                                         "take it"):
        ext.matmul(64, 64, 64, decomposition="split_k", grid=3)
    with pytest.raises(ValueError, match="split_k = 2 is split-K's slice count"):
        ext.matmul(64, 64, 64, decomposition="auto", split_k=2)
    # Without a chip, `auto` plans for ext's default chip (sm_80, 108 SMs),
    # as ext-opt's and ext-run's pipelines do.
    a, b = small_ints((64, 64)), small_ints((64, 64))
    np.testing.assert_array_equal(
        ext.matmul(64, 64, 64, decomposition="auto").run(a, b),
        a.astype(np.float32) @ b.astype(np.float32))


def test_scheduled_matmul_matches_numpy():
    a, b = small_ints((20, 10)), small_ints((10, 13))
    k = ext.matmul(20, 13, 10).schedule(tile=(16, 8, 4), threads=(4, 8, 1),
                                        cache=(0, 1), storage_align={0: [(0, 32, 1)]})
    assert '#ext.schedule<tile = [16, 8, 4], blocks = ["i", "j"]' in k.mlir()
    np.testing.assert_array_equal(k.run_cpu(a, b), a @ b)


def test_swizzled_matmul_matches_numpy():
    # A's 16x4 and B's 4x8 shared tiles permuted by XOR swizzles: the same
    # numbers as unpadded tiles.
    a, b = small_ints((20, 10)), small_ints((10, 13))
    k = ext.matmul(20, 13, 10).schedule(tile=(16, 8, 4), threads=(4, 8, 1), cache=(0, 1),
                                        xor_swizzle={0: (2, 0, 2), 1: (2, 1, 2)})
    assert "#ext.cache<operand = 0, swizzle = #ext.swizzle<bits = 2, base = 0, shift = 2>>" in k.mlir()
    np.testing.assert_array_equal(k.run_cpu(a, b), a @ b)


def test_gemv():
    a, x = small_ints((30, 17)), small_ints((17,))
    np.testing.assert_array_equal(ext.gemv(30, 17).run_cpu(a, x), a @ x)


@pytest.mark.parametrize("combiner,reference", [
    ("sum", np.sum), ("max", np.max), ("min", np.min), ("prod", np.prod)])
def test_row_reductions(combiner, reference):
    x = small_ints((6, 5))
    y = ext.row_reduce(6, 5, combiner).run_cpu(x)
    np.testing.assert_array_equal(y, reference(x, axis=1))


def test_round_trip_and_pipeline():
    k = ext.matmul(64, 64, 32).schedule(tile=(32, 32, 8), threads=(8, 8, 1), cache=(0, 1))
    m = k.module()
    again = ext.Module.parse(ext.Context.default(), str(m))
    assert str(again) == str(m)
    m.run_pipeline("ext-apply-schedule")
    text = str(m)
    assert "ext.kernel tiles [2, 2] iters 4 threads 64" in text
    assert "ext.compute" not in text


def test_verifier_errors_are_exceptions():
    bad = ext.matmul(20, 13, 10).schedule(tile=(16, 16, 8), threads=(4, 7, 1))
    with pytest.raises(ValueError, match="tile size 16 of axis 'j' is not a multiple of its 7 threads"):
        bad.module()
    with pytest.raises(ValueError, match="could not parse"):
        ext.Module.parse(ext.Context(), "func.func @f( {")
    # The installed parser would crash (llvm/llvm-project#179045): rejected
    # first, so Python gets an exception, not a SIGSEGV.
    with pytest.raises(ValueError, match="line 2: a dense array of 'index'"):
        ext.Module.parse('!t = index\n"test.op"() {a = array<!t: 1>} : () -> ()')


def test_bad_arguments():
    k = ext.matmul(4, 4, 4)
    with pytest.raises(ValueError, match="takes 2 arrays"):
        k.run_cpu(np.zeros((4, 4), np.float32))
    m = k.module()
    with pytest.raises(ValueError, match="dimension 0 is 5"):
        m.run_cpu("kernel", [np.zeros((5, 4), np.float32), np.zeros((4, 4), np.float32),
                             np.zeros((4, 4), np.float32)])
    with pytest.raises(ValueError, match="does not match the element type f32"):
        m.run_cpu("kernel", [np.zeros((4, 4), np.float64), np.zeros((4, 4), np.float32),
                             np.zeros((4, 4), np.float32)])
    with pytest.raises(ValueError, match="no func.func @nope"):
        m.run_cpu("nope", [])
    with pytest.raises(ValueError, match="bad pipeline"):
        m.run_pipeline("no-such-pass")
    with pytest.raises(ValueError, match="combiner must be one of"):
        ext.row_reduce(2, 2, "mean")


def test_emulator_error_is_an_exception():
    # A launch the emulator refuses (here a misaligned 16-byte shared load,
    # which faults on a GPU) raises instead of ending the interpreter, and
    # the next runs work.
    bad = ext.Module.parse("""
func.func @bad(%out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %tile = memref.alloc() : memref<16xf32, #gpu.address_space<workgroup>>
    %v = vector.load %tile[%c1] : memref<16xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.store %v, %out[%c0] : memref<16xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}
""")
    out = np.zeros(16, np.float32)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="running @bad on ext's emulator failed: kernel "
                                               "'bad_kernel' .* the 16-byte shared-memory "
                                               "access at .* is misaligned"):
            bad.run_cpu("bad", [out])
    a, b = small_ints((8, 8)), small_ints((8, 8))
    np.testing.assert_array_equal(ext.matmul(8, 8, 8).run(a, b), a @ b)
