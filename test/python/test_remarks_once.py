"""Each compiler remark reaches Python once per build (issue 52): a
pipelined copy (stages=2) is lowered from a copy per stage, and each used
to report the same remark at the schedule's line; running the kernel adds
none."""

import collections
import warnings

import numpy as np

import ext

M, N, K = 62, 66, 30


def caught(call):
    with warnings.catch_warnings(record=True) as found:
        warnings.simplefilter("always")  # no dedup by Python's registry
        result = call()
    return result, [(w.category, str(w.message), w.filename, w.lineno) for w in found
                    if issubclass(w.category, ext.ExtWarning)]


def pipelined_gemm():
    # f16 rows of 30 (A) and 66 (B) elements: 4-byte copies, too narrow for
    # cp.async, so each stage's copy goes through registers and says so.
    return ext.matmul(M, N, K, dtype="float16", tile=(32, 32, 16), cache=(0, 1), mma="auto",
                      warps=(2, 2), stages=2)


def test_each_remark_once_per_build_and_none_from_run():
    ext.clear_cache()
    w = pipelined_gemm()
    for target, chip in (("nvvm", "sm_90"), ("cpu", None)):
        kernel, remarks = caught(lambda: ext.build(w, target, chip=chip))
        staged = [r for r in remarks if "stages its copy through registers" in r[1]]
        assert len(staged) == 1, remarks
        assert staged[0][0] is ext.ExtRemark and staged[0][2] == __file__
        counts = collections.Counter(remarks)
        assert all(n == 1 for n in counts.values()), counts
        assert len(kernel.messages) == len(set(kernel.messages)) == len(remarks)
        a = np.random.default_rng(0).random((M, K)).astype(np.float16)
        b = np.random.default_rng(1).random((K, N)).astype(np.float16)
        out, from_run = caught(lambda: kernel.run(a, b))
        assert from_run == []
        np.testing.assert_allclose(out, a.astype(np.float32) @ b.astype(np.float32), rtol=2e-2)
        # A cached build reports its remarks again, each once.
        _, again = caught(lambda: ext.build(w, target, chip=chip))
        assert sorted(again) == sorted(remarks)
