"""ext.build takes what the helpers return (issue 52): a workload,
scheduled or not, ext.tune's result, and one remade for another chip, with
the kernel `workload.build(...)` gives."""

import re

import numpy as np
import pytest

import ext

pytestmark = pytest.mark.filterwarnings("ignore::ext.ExtRemark")  # unscheduled: host loops


def stages(kernel):
    return [re.sub(r"test_build_workloads.py:\d+", "", kernel.mlir(s)) for s in kernel.stages]


def tiles(kernel):
    return re.findall(r"tile = \[[^\]]*\]", kernel.mlir())


def test_unscheduled_and_scheduled_workloads_build_as_their_build_does():
    a = np.random.default_rng(0).random((40, 24)).astype(np.float32)
    b = np.random.default_rng(1).random((24, 36)).astype(np.float32)
    for w in (ext.matmul(40, 36, 24),
              ext.matmul(40, 36, 24, tile=(32, 32, 8), threads=(8, 8, 1), cache=(0, 1)),
              ext.matmul(40, 36, 24).schedule(tile=(16, 16, 8), threads=(4, 4, 1))):
        kernel = ext.build(w)
        # The same program: the cache's kernel.
        assert kernel is w.build()
        assert [t.name for t in kernel.inputs] == ["A", "B"]
        np.testing.assert_allclose(kernel.run(a, b), a @ b, rtol=1e-5)
    nvvm = ext.build(w, "nvvm", chip="sm_90")
    assert nvvm is w.build("nvvm", chip="sm_90") and nvvm.chip == "sm_90"
    assert ".target sm_90" in nvvm.ptx


def test_workload_chip_is_the_default_and_other_chips_remake_attention():
    w = ext.attention(2, 128, 128, 64, chip="sm_90")
    assert ext.build(w, "nvvm").chip == "sm_90"
    # AMD: 64-query tiles, the workload made again for gfx942.
    amd = ext.build(w, "cpu", chip="gfx942")
    # Remade at each call's line: the same IR at every stage but the lines.
    again = w.build("cpu", chip="gfx942")
    assert stages(amd) == stages(again)
    assert tiles(amd) == ["tile = [1, 64, 64, 64]"]
    assert tiles(ext.build(w, "cpu")) == ["tile = [1, 128, 64, 64]"]


def test_a_tuned_workload_builds():
    w = ext.tune(ext.matmul(64, 64, 64), chip="sm_80", database=False, min_legal=20,
                 trials=1, check=False, plot=False)
    assert isinstance(w, ext.Workload) and w.tuning is not None
    kernel = ext.build(w, "nvvm")
    assert kernel is w.build("nvvm") and kernel.chip == "sm_80"
    a = np.random.default_rng(2).random((64, 64)).astype(np.float32)
    b = np.random.default_rng(3).random((64, 64)).astype(np.float32)
    np.testing.assert_allclose(ext.build(w).run(a, b), a @ b, rtol=1e-4)


def test_a_workload_in_a_list_says_to_build_it_alone():
    w = ext.matmul(8, 8, 8)
    with pytest.raises(TypeError, match=r"test_build_workloads.py:\d+: ext.build takes tensors "
                                        r"and schedules, or one workload, got .*Workload.* "
                                        r"\(a workload is built alone"):
        ext.build([w])
