"""Chip names are checked where they are given (issue 59, item 6): every
Python entry point that takes a chip refuses one ext does not compile for
with a ValueError at the caller's line naming the valid chips, before any
pipeline string is made of it (not `bad pipeline '...{chip=gfx942;rm -rf}'`)
and before any tuning sweep."""

import time
import warnings

import numpy as np
import pytest

import ext

BAD = ["gfx942;rm -rf", "sm_9999", "gfx0", "banana", "sm_80 ", "SM_80"]


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ext.ExtWarning)
        yield


def _onnx_model():
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    return helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 20)])


ENTRY_POINTS = {
    "build": lambda chip: ext.build(ext.matmul(64, 64, 32, tile=(32, 32, 8)), "cpu",
                                    chip=chip),
    "build_nvvm": lambda chip: ext.build(ext.matmul(64, 64, 32, tile=(32, 32, 8)), "nvvm",
                                         chip=chip),
    "workload_build": lambda chip: ext.matmul(64, 64, 32, tile=(32, 32, 8)).build(
        "rocdl", chip=chip),
    "tune": lambda chip: ext.tune(ext.matmul(256, 256, 256), chip=chip, database=False),
    "tune_module": lambda chip: ext.tune_module(ext.matmul(64, 64, 64).mlir(), chip=chip,
                                                database=False),
    "schedule_tuned": lambda chip: ext.schedule(ext.matmul(64, 64, 64).output, tuned=True,
                                                chip=chip),
    "matmul": lambda chip: ext.matmul(64, 64, 64, chip=chip),
    "attention": lambda chip: ext.attention(1, 64, 64, 64, chip=chip),
    "onnx_load": lambda chip: ext.onnx.load(_onnx_model(), chip=chip),
}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
@pytest.mark.parametrize("chip", BAD)
def test_unknown_chips_are_refused_at_the_call(entry, chip):
    started = time.perf_counter()
    with pytest.raises(ValueError) as refused:
        ENTRY_POINTS[entry](chip)
    message = str(refused.value)
    # At the caller's line (the lambda above), naming the chip and the valid ones.
    assert message.startswith(f"{__file__}:"), message
    assert f"unknown chip {chip!r}: " in message, message
    assert "valid chips" in message and "sm_90a" in message and "gfx942" in message, message
    assert "pipeline" not in message, message
    # Before any sweep or compile.
    assert time.perf_counter() - started < 5, entry


def test_what_is_wrong_is_said():
    with pytest.raises(ValueError, match=r"unknown chip 'gfx942;rm -rf': LLVM's AMDGPU back "
                                         r"end does not know it; valid chips"):
        ext.build(ext.matmul(8, 8, 8), "cpu", chip="gfx942;rm -rf")
    with pytest.raises(ValueError, match=r"unknown chip 'banana': it is neither sm_NN "
                                         r"\(NVIDIA\) nor gfxNNN \(AMD\)"):
        ext.build(ext.matmul(8, 8, 8), "cpu", chip="banana")
    with pytest.raises(ValueError, match=r"chip must be a chip's name such as 'sm_90a' or "
                                         r"'gfx942', got 90 \(int\)"):
        ext.matmul(8, 8, 8, chip=90)


def test_a_chip_of_the_other_vendor_for_the_target():
    w = ext.matmul(64, 64, 32, tile=(32, 32, 8))
    with pytest.raises(ValueError, match=r"chip 'gfx942' is an AMD chip; target='nvvm' builds "
                                         r"for an NVIDIA chip \(use target='rocdl' for it\)"):
        ext.build(w, "nvvm", chip="gfx942")
    with pytest.raises(ValueError, match=r"chip 'sm_90' is an NVIDIA chip; target='rocdl'"):
        ext.build(w, "rocdl", chip="sm_90")


def test_known_chips_still_build():
    w = ext.matmul(64, 64, 32, tile=(32, 32, 8))
    a = np.ones((64, 32), np.float32)
    b = np.ones((32, 64), np.float32)
    for chip in ("sm_80", "sm_90a", "gfx942", "gfx1100", None, ""):
        assert (ext.build(w, "cpu", chip=chip).run(a, b) == 32).all()
    assert ".entry" in ext.build(w, "nvvm", chip="sm_89").ptx
    assert ext.build(w, "rocdl", chip="gfx90a").hsaco
    assert ext.chips.check_chip("sm_90a") == "sm_90a"
