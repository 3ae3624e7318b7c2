"""The compiler's warnings and remarks reach Python as warnings of ext's
classes at the line of the compute they are about; strict=True makes a
warning an error."""

import warnings

import pytest

import ext


def spilling_gemm():
    m = 256
    A = ext.placeholder((m, m), "float32", name="A")
    B = ext.placeholder((m, m), "float32", name="B")
    k = ext.reduce_axis(m, name="k")
    C = ext.compute((m, m), lambda i, j: ext.sum(A[i, k] * B[k, j], axis=k), name="C")  # line 17
    # 256 x 256 points on 16 threads: 16 KB of accumulators per thread.
    return ext.schedule(C, tile=(256, 256, 8), threads=(4, 4, 1))


@pytest.mark.parametrize("target", ["cpu", "nvvm"])
def test_spilling_schedule_warns_at_its_compute(target):
    s = spilling_gemm()
    ext.clear_cache()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ext.build(s, target, chip="sm_80")
    found = [w for w in caught if issubclass(w.category, ext.ExtWarning) and
             not issubclass(w.category, ext.ExtRemark)]
    assert found, [str(w.message) for w in caught]
    assert found[0].filename == __file__ and found[0].lineno == 17
    assert "16384 bytes (16.0 KB) of private buffers per thread" in str(found[0].message)
    # From the cache too.
    with warnings.catch_warnings(record=True) as again:
        warnings.simplefilter("always")
        ext.build(s, target, chip="sm_80")
    assert any(issubclass(w.category, ext.ExtWarning) for w in again)


def test_strict_raises_on_a_warning():
    with pytest.raises(RuntimeError, match=r"strict build: the compiler warns:\n.*"
                                           r"test_warnings.py:17: the kernel in @kernel keeps "
                                           r"16384 bytes"):
        ext.build(spilling_gemm(), strict=True)


def test_unscheduled_compute_is_a_remark():
    A = ext.placeholder((8, 8), "float32", name="A")
    B = ext.compute((8, 8), lambda i, j: A[i, j] * 2.0, name="B")
    ext.clear_cache()
    with pytest.warns(ext.ExtRemark, match="this ext.compute has no schedule: it becomes loops "
                                           "in the host code"):
        ext.build(B)
    # A remark is no warning for strict.
    ext.build(B, strict=True)


def test_remarks_can_be_silenced():
    A = ext.placeholder((8, 8), "float32", name="A")
    B = ext.compute((8, 8), lambda i, j: A[i, j] + 1.0, name="B")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ext.ExtRemark)
        ext.build(B)
    assert not [w for w in caught if issubclass(w.category, ext.ExtWarning)]
