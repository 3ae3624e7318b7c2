"""One schedule for every vendor: mma="auto" with warps and no threads takes
the instruction and the lanes of the chip it is built for."""

import re
import warnings

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


def test_auto_on_sm90a_lays_out_default_caches_for_wgmma():
    """mma="auto" on sm_90a with plain caches: the caches get the swizzle
    wgmma's descriptors read, and the kernel runs on wgmma (issue 52: it
    used mma.sync without a word unless the user swizzled by hand)."""
    m, n, k = 128, 192, 96
    A, B, C = gemm_f16(m, n, k)
    s = ext.schedule(C, tile=(64, 64, 32), cache=[A, B], mma="auto", warps=(4, 1))
    with warnings_recorded() as seen:
        kernel = ext.build(s, "nvvm", chip="sm_90a")
    assert "wgmma.mma_async" in kernel.ptx and "mma.sync" not in kernel.ptx
    assert not [w for w in seen if "mma = auto" in str(w.message)]
    applied = kernel.mlir("ext-apply-schedule")
    assert "#ext.swizzle<bits = 2, base = 3, shift = 3>" in applied  # 32 f16 = 64-byte rows
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)
    b = rng.integers(-3, 4, (k, n)).astype(np.float16)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_array_equal(ext.build(s, "cpu", chip="sm_90a").run(a, b), ref)


def test_auto_on_sm90a_says_why_it_keeps_mma_sync():
    """Where wgmma cannot take the schedule, auto keeps mma.sync and a
    remark names the reason: its warps, or a layout the user chose."""
    A, B, C = gemm_f16()
    cases = [
        (ext.schedule(C, tile=(64, 64, 16), cache=[A, B], mma="auto", warps=(2, 2)),
         r"wgmma_k16 needs warps = \[WM, 1\]"),
        (ext.schedule(C, tile=(64, 64, 16), cache=[(A, [(0, 16, 8)]), B], mma="auto",
                      warps=(4, 1)),
         r"input #0 is not cached with a swizzle"),
    ]
    for s, why in cases:
        with warnings_recorded() as seen:
            kernel = ext.build(s, "nvvm", chip="sm_90a")
        assert "mma.sync" in kernel.ptx and "wgmma" not in kernel.ptx
        said = [str(w.message) for w in seen if "mma = auto" in str(w.message)]
        assert len(said) == 1, said
        assert said[0].startswith("mma = auto uses mma.sync (m16n8k16) on sm_90a, not wgmma: ")
        assert "'ext.compute' op" not in said[0]
        assert re.search(why, said[0]), said[0]


class warnings_recorded(warnings.catch_warnings):
    """Every warning of the block, repeats included."""

    def __init__(self):
        super().__init__(record=True)

    def __enter__(self):
        seen = super().__enter__()
        warnings.simplefilter("always")
        return seen
