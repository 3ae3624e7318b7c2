"""One schedule for every vendor: mma="auto" with warps and no threads takes
the instruction and the lanes of the chip it is built for."""

import numpy as np
import pytest

import ext


def gemm_f16(m=64, n=64, k=32):
    A = ext.placeholder((m, k), "float16", name="A")
    B = ext.placeholder((k, n), "float16", name="B")
    r = ext.reduce_axis(k, name="k")
    C = ext.compute((m, n), lambda i, j: ext.sum(ext.cast(A[i, r], "float32") *
                                                 ext.cast(B[r, j], "float32"), axis=r), name="C")
    return A, B, C


def test_one_auto_schedule_builds_and_runs_everywhere():
    A, B, C = gemm_f16()
    s = ext.schedule(C, tile=(64, 64, 16), cache=[A, B], mma="auto", warps=(2, 2))
    rng = np.random.default_rng(2)
    a = rng.integers(-3, 4, (64, 32)).astype(np.float16)
    b = rng.integers(-3, 4, (32, 64)).astype(np.float16)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    expected = {"sm_80": "mma.sync", "sm_90a": "mma.sync", "gfx942": "mfma"}
    for chip, instruction in expected.items():
        target = "rocdl" if chip.startswith("gfx") else "nvvm"
        kernel = ext.build(s, target, chip=chip)
        assert any(instruction in kernel.mlir(stage) for stage in kernel.stages), chip
        # The emulator with the chip's lanes (64 on gfx942).
        np.testing.assert_array_equal(ext.build(s, "cpu", chip=chip).run(a, b), ref)
    # The block is the 4 warps x the chip's lanes.
    amd = ext.build(s, "rocdl", chip="gfx942")
    assert "threads = [4, 64, 1]" in amd.mlir(amd.stages[0])
    assert "threads = [4, 32, 1]" in s.text()


def test_vendor_instruction_on_the_wrong_chip_names_auto():
    A, B, C = gemm_f16()
    s = ext.schedule(C, tile=(64, 64, 16), cache=[A, B], mma="m16n8k16", warps=(2, 2))
    with pytest.raises(RuntimeError, match=r"mma #ext.mma<m16n8k16> does not exist on chip "
                                           r"gfx942; mma = auto picks the chip's instruction"):
        ext.build(s, "rocdl", chip="gfx942")
