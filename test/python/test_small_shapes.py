"""Tiles larger than their axes are masked, not refused (issue: decode GEMMs
with M = 1). Every number is checked against numpy on the emulator; inputs are
small integers, so f32 accumulation is exact."""

import numpy as np
import pytest

import ext

RNG = np.random.default_rng(29)


def operands(m, n, k, dtype):
    a = RNG.integers(-3, 4, (m, k)).astype(dtype)
    b = RNG.integers(-3, 4, (k, n)).astype(dtype)
    return a, b, a.astype(np.float32) @ b.astype(np.float32)


@pytest.mark.parametrize("m", [1, 5])
@pytest.mark.parametrize("tile", [(32, 32, 16), (64, 64, 16)])
def test_scalar_tiles_larger_than_m(m, tile):
    a, b, ref = operands(m, 130, 97, np.float32)
    np.testing.assert_array_equal(ext.matmul(m, 130, 97, tile=tile).run(a, b), ref)


@pytest.mark.parametrize("decomposition", ["stream_k", "stream_k_dp", "auto"])
def test_decompositions_with_one_row(decomposition):
    a, b, ref = operands(1, 130, 97, np.float32)
    w = ext.matmul(1, 130, 97, tile=(64, 64, 16), decomposition=decomposition)
    np.testing.assert_array_equal(w.run(a, b), ref)


def test_k_smaller_than_its_tile():
    a, b, ref = operands(3, 40, 8, np.float32)
    np.testing.assert_array_equal(ext.matmul(3, 40, 8, tile=(64, 64, 16)).run(a, b), ref)


# M = 1 and 7 on every vendor's tensor cores, without padding A on the host:
# the rows past M are zero-filled in shared memory and never stored.
TENSOR_CORES = {
    "mma.sync": dict(n=130, k=96, tile=(64, 64, 32), mma="m16n8k16", threads=[4, 32, 1],
                     warps=[2, 2], cache=[0, 1], chip=None),
    "mfma": dict(n=130, k=96, tile=(64, 64, 32), mma="mfma_32x32x8", threads=[4, 64, 1],
                 warps=[2, 2], cache=[0, 1], chip="gfx942"),
    "wgmma": dict(n=256, k=128, tile=(128, 256, 64), mma="wgmma_k16", threads=[8, 32, 1],
                  warps=[8, 1], cache=[0, 1], vector=8, chip="sm_90a",
                  xor_swizzle={0: (3, 3, 3), 1: (3, 3, 3, 64)}),
}


@pytest.mark.parametrize("m", [1, 7])
@pytest.mark.parametrize("instruction", sorted(TENSOR_CORES))
def test_tensor_cores_with_fewer_rows_than_a_fragment(instruction, m):
    fields = dict(TENSOR_CORES[instruction])
    n, k = fields.pop("n"), fields.pop("k")
    a, b, ref = operands(m, n, k, np.float16)
    w = ext.matmul(m, n, k, dtype="float16", **fields)
    np.testing.assert_array_equal(w.run(a, b), ref)
