"""Guarded reads: a tensor read in one branch of if_then_else happens only
when that branch is taken, so padding (ext.pad, inlined) and stencils are
one compute that never reads outside its inputs; the verifier proves each
read in bounds under its condition."""

import numpy as np
import pytest

import ext

RNG = np.random.default_rng(11)


def conv_reference(x, w):
    n, h, wd, c = x.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    ref = np.zeros((n, h, wd, w.shape[3]), np.float32)
    for dy in range(3):
        for dx in range(3):
            ref += np.einsum("nhwc,ck->nhwk", xp[:, dy:dy + h, dx:dx + wd, :], w[dy, dx])
    return ref


def padded_conv(n, h, w, c, k, direct=False):
    X = ext.placeholder((n, h, w, c), "float32", name="X")
    Wt = ext.placeholder((3, 3, c, k), "float32", name="Wt")
    rh, rw, rc = (ext.reduce_axis(3, name="rh"), ext.reduce_axis(3, name="rw"),
                  ext.reduce_axis(c, name="rc"))
    if direct:
        inside = lambda v, size: (v >= 0) & (v < size)
        Y = ext.compute((n, h, w, k), lambda b, y, x, f: ext.sum(ext.if_then_else(
            inside(y + rh - 1, h) & inside(x + rw - 1, w), X[b, y + rh - 1, x + rw - 1, rc],
            0.0) * Wt[rh, rw, rc, f], axis=[rh, rw, rc]), name="Y")
        return X, Wt, None, Y
    Xp = ext.pad(X, (0, 1, 1, 0))
    Y = ext.compute((n, h, w, k), lambda b, y, x, f: ext.sum(
        Xp[b, y + rh, x + rw, rc] * Wt[rh, rw, rc, f], axis=[rh, rw, rc]), name="Y")
    return X, Wt, Xp, Y


@pytest.mark.parametrize("cached", [False, True])
def test_padded_conv_is_one_compute(cached):
    n, h, w, c, k = 2, 9, 7, 3, 4
    X, Wt, Xp, Y = padded_conv(n, h, w, c, k)
    s = ext.schedule(Y, tile=(1, 4, 4, 4, 3, 3, c), blocks=["b", "y", "x"],
                     threads=(1, 4, 4, 4, 1, 1, 1), cache=[Xp, Wt] if cached else [])
    s.compute_inline(Xp)
    x = RNG.integers(-3, 4, (n, h, w, c)).astype(np.float32)
    wt = RNG.integers(-3, 4, (3, 3, c, k)).astype(np.float32)
    kernel = ext.build(s)
    np.testing.assert_array_equal(kernel.run(x, wt), conv_reference(x, wt))
    # X itself is the argument: no padded copy.
    assert [t.name for t in kernel.inputs] == ["X", "Wt"]
    ptx = ext.build(s, "nvvm", chip="sm_80").ptx
    assert ptx.count(".entry") == 1


def test_if_then_else_conv_unscheduled_and_scheduled():
    n, h, w, c, k = 1, 6, 5, 2, 3
    X, Wt, _, Y = padded_conv(n, h, w, c, k, direct=True)
    x = RNG.integers(-3, 4, (n, h, w, c)).astype(np.float32)
    wt = RNG.integers(-3, 4, (3, 3, c, k)).astype(np.float32)
    np.testing.assert_array_equal(ext.build(Y).run(x, wt), conv_reference(x, wt))
    s = ext.schedule(Y, tile=(1, 4, 4, 3, 3, 3, c), blocks=["b", "y", "x"],
                     threads=(1, 4, 4, 3, 1, 1, 1), cache=[X])
    np.testing.assert_array_equal(ext.build(s).run(x, wt), conv_reference(x, wt))


def test_stencil():
    m = 50
    A = ext.placeholder((m,), "float32", name="A")
    B = ext.compute((m,), lambda i: ext.if_then_else(i >= 1, A[i - 1], 0.0) + A[i] +
                    ext.if_then_else(i < m - 1, A[i + 1], 0.0), name="B")
    a = RNG.integers(-5, 6, m).astype(np.float32)
    ref = a + np.concatenate([[0], a[:-1]]) + np.concatenate([a[1:], [0]])
    np.testing.assert_array_equal(ext.build(B).run(a), ref)
    s = ext.schedule(B, tile=(16,), threads=(16,), cache=[A])
    np.testing.assert_array_equal(ext.build(s).run(a), ref)


def test_weak_guard_is_refused():
    A = ext.placeholder((10,), "float32", name="A")
    B = ext.compute((10,), lambda i: ext.if_then_else(i >= 0, A[i - 1], 0.0), name="B")
    with pytest.raises(ValueError, match=r"leaves \[0, 10\) under the branch that reads "
                                         r"it, at i = 0"):
        ext.build(B)


def test_unguarded_read_outside_is_refused_where_written():
    A = ext.placeholder((10,), "float32", name="A")
    with pytest.raises(ValueError, match=r"index #0 ranges over \[-1, 8\] but A has extent 10"):
        ext.compute((10,), lambda i: A[i - 1], name="B")


def test_pad_checks_its_widths():
    A = ext.placeholder((4, 4), "float32", name="A")
    with pytest.raises(ValueError, match="pad of a 2-d tensor needs 2 widths"):
        ext.pad(A, (1, 1, 1))
    with pytest.raises(ValueError, match="pad widths are non-negative integers"):
        ext.pad(A, (-1, 0))
    P = ext.pad(A, 1, value=7.0)
    a = RNG.standard_normal((4, 4)).astype(np.float32)
    np.testing.assert_array_equal(ext.build(P).run(a), np.pad(a, 1, constant_values=7.0))


def test_first_rows_of_a_tensor():
    """An axis shorter than the dimension it indexes (a slice from 0): the
    first 5 rows of 8, unscheduled on the CPU and scheduled (tiles of 4
    that do not divide 5) on the emulator."""
    A = ext.placeholder((8, 16), "float32", name="A")
    Y = ext.compute((5, 16), lambda i, j: A[i, j] * 2.0, name="Y")
    a = RNG.standard_normal((8, 16)).astype(np.float32)
    np.testing.assert_array_equal(ext.build(Y).run(a), a[:5] * 2)
    for cache in ([], [A]):
        s = ext.schedule(Y, tile=(4, 16), blocks=["i"], threads=(4, 16), cache=cache)
        np.testing.assert_array_equal(ext.build(s).run(a), a[:5] * 2)


def test_gemm_over_first_columns():
    """A reduce axis shorter than the dimension: the ragged last k-step
    reads data past the axis (not zeros), so it is peeled."""
    A = ext.placeholder((8, 8), "float32", name="A")
    B = ext.placeholder((8, 8), "float32", name="B")
    k = ext.reduce_axis(5, name="k")
    C = ext.compute((8, 8), lambda i, j: ext.sum(A[i, k] * B[k, j], axis=[k]), name="C")
    a = RNG.integers(-3, 4, (8, 8)).astype(np.float32)
    b = RNG.integers(-3, 4, (8, 8)).astype(np.float32)
    np.testing.assert_array_equal(ext.build(C).run(a, b), a[:, :5] @ b[:5])
    s = ext.schedule(C, tile=(4, 4, 4), blocks=["i", "j"], threads=(4, 4, 1), cache=[A, B])
    np.testing.assert_array_equal(ext.build(s).run(a, b), a[:, :5] @ b[:5])


@pytest.mark.parametrize("cached", [False, True])
def test_concat_reads_its_first_input_with_a_longer_axis(cached):
    """Concat: A's 8 elements read by the output's axis of 16, only where a
    guard keeps it inside."""
    A = ext.placeholder((8,), "float32", name="A")
    C = ext.placeholder((8,), "float32", name="C")
    Y = ext.compute((16,), lambda j: ext.if_then_else(j < 8, A[j], C[j - 8]), name="Y")
    a, c = RNG.standard_normal(8).astype(np.float32), RNG.standard_normal(8).astype(np.float32)
    np.testing.assert_array_equal(ext.build(Y).run(a, c), np.concatenate([a, c]))
    s = ext.schedule(Y, tile=(4,), blocks=["j"], threads=(4,), cache=[A, C] if cached else [])
    np.testing.assert_array_equal(ext.build(s).run(a, c), np.concatenate([a, c]))


@pytest.mark.parametrize("cached", [False, True])
def test_inline_a_producer_read_under_a_guard(cached):
    """Y[j] = 0 if j < 8 else B[j - 8], B = A * 2 inlined: B's body reads A
    in the branch that read B, where j >= 8 keeps A[j - 8] inside."""
    A = ext.placeholder((8,), "float32", name="A")
    B = ext.compute((8,), lambda x: A[x] * 2.0, name="B")
    Y = ext.compute((16,), lambda j: ext.if_then_else(j < 8, 0.0, B[j - 8]), name="Y")
    a = RNG.standard_normal(8).astype(np.float32)
    ref = np.concatenate([np.zeros(8, np.float32), a * 2])
    s = ext.schedule(Y, tile=(4,), blocks=["j"], threads=(4,), cache=[B] if cached else [])
    s.compute_inline(B)
    kernel = ext.build(s)
    np.testing.assert_array_equal(kernel.run(a), ref)
    assert [t.name for t in kernel.inputs] == ["A"]
    assert ext.build(s, "nvvm", chip="sm_80").ptx.count(".entry") == 1
