"""Attention over a paged KV cache (issue 58): K and V live in fixed-size
pages found through a block table, read in computes as
`Kc[T[b, j // P], j % P, h // G, d]` (an indirect read: the table's element
is a symbol of Kc's map, bound by the compute's `indirect`). Grouped-query
heads (G query heads per KV head), f16, pages shuffled in memory by a
random permutation; right against numpy on the CPU, and a table entry
outside the pages is reported by the run, never read."""

import numpy as np
import pytest

import ext

LOG2E = 1.4426950408889634


def paged_attention(batch, heads, group, seq_q, pages_per_seq, page, head_dim, num_pages):
    """The computes of attention over a paged cache: scores, their base-2
    scaling, row max, row sum, accumulator and output (as ext.attention
    writes them), K and V read through the block table."""
    B, H, G, D, P = batch, heads, group, head_dim, page
    skv = P * pages_per_seq
    Q = ext.placeholder((B, H, seq_q, D), "float16", name="Q")
    Kc = ext.placeholder((num_pages, P, H // G, D), "float16", name="Kc")
    Vc = ext.placeholder((num_pages, P, H // G, D), "float16", name="Vc")
    T = ext.placeholder((B, pages_per_seq), "int32", name="T")
    d = ext.reduce_axis(D, name="d")
    j1, j2, j3 = (ext.reduce_axis(skv, name=n) for n in ("j1", "j2", "j3"))
    f32 = "float32"
    S = ext.compute((B, H, seq_q, skv), lambda b, h, i, j: ext.sum(
        ext.cast(Q[b, h, i, d], f32) * ext.cast(Kc[T[b, j // P], j % P, h // G, d], f32),
        axis=d), name="scores")
    scale = LOG2E / np.sqrt(D)
    Ts = ext.compute((B, H, seq_q, skv), lambda b, h, i, j: S[b, h, i, j] * scale,
                     name="scaled")
    M = ext.compute((B, H, seq_q), lambda b, h, i: ext.max(Ts[b, h, i, j1], axis=j1),
                    name="row_max")
    L = ext.compute((B, H, seq_q), lambda b, h, i: ext.sum(
        ext.exp2(Ts[b, h, i, j2] - M[b, h, i]), axis=j2), name="row_sum")
    O = ext.compute((B, H, seq_q, D), lambda b, h, i, e: ext.sum(
        ext.exp2(Ts[b, h, i, j3] - M[b, h, i]) *
        ext.cast(Vc[T[b, j3 // P], j3 % P, h // G, e], f32), axis=j3), name="acc")
    out = ext.compute((B, H, seq_q, D), lambda b, h, i, e: ext.cast(
        O[b, h, i, e] / L[b, h, i], "float16"), name="out")
    return (Q, Kc, Vc, T), (S, Ts, M, L, O, out)


def inputs(batch, heads, group, seq_q, pages_per_seq, page, head_dim, num_pages, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((batch, heads, seq_q, head_dim)).astype(np.float16)
    shape = (num_pages, page, heads // group, head_dim)
    kc = (rng.standard_normal(shape) + 0.5).astype(np.float16)
    vc = rng.standard_normal(shape).astype(np.float16)
    # Every sequence's pages somewhere in the pool, in shuffled order.
    table = rng.permutation(num_pages)[:batch * pages_per_seq]
    return q, kc, vc, table.reshape(batch, pages_per_seq).astype(np.int32)


def reference(q, kc, vc, table, group):
    """Dense K and V gathered from the pages, each KV head serving `group`
    query heads; softmax(Q K^T / sqrt(d)) V in float64."""
    b, ppb = table.shape
    k, v = (np.repeat(c[table].reshape(b, ppb * c.shape[1], c.shape[2], c.shape[3]),
                      group, axis=2).transpose(0, 2, 1, 3).astype(np.float64) for c in (kc, vc))
    x = np.einsum("bhid,bhjd->bhij", q.astype(np.float64), k) / np.sqrt(q.shape[-1])
    p = np.exp(x - x.max(-1, keepdims=True))
    return np.einsum("bhij,bhjd->bhid", p, v) / p.sum(-1, keepdims=True)


SHAPE = dict(batch=2, heads=8, group=4, seq_q=5, pages_per_seq=4, page=16, head_dim=64,
             num_pages=11)


def check(out, ref):
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=1e-2, atol=2e-3)


def test_unscheduled_matches_numpy():
    (_, _, _, _), tensors = paged_attention(**SHAPE)
    with pytest.warns(ext.ExtRemark):
        kernel = ext.build(tensors[-1])
    assert [t.name for t in kernel.inputs] == ["Q", "Kc", "Vc", "T"]
    q, kc, vc, table = inputs(**SHAPE)
    out = kernel.run(q, kc, vc, table)
    assert out.dtype == np.float16 and out.shape == q.shape
    ref = reference(q, kc, vc, table, SHAPE["group"])
    check(out, ref)
    # The table matters: the pages in memory order give another answer.
    straight = np.arange(table.size, dtype=np.int32).reshape(table.shape)
    assert np.abs(kernel.run(q, kc, vc, straight).astype(np.float64) - ref).max() > 0.05


def test_the_read_is_a_symbol_bound_to_the_table():
    (_, _, _, _), (S, *_rest) = paged_attention(**SHAPE)
    with pytest.warns(ext.ExtRemark):
        mlir = ext.build(S).mlir()
    assert "(d0, d1, d2, d3, d4)[s0] -> (s0, d3 mod 16, d1 floordiv 4, d4)" in mlir
    assert "(d0, d1, d2, d3, d4) -> (d0, d3 floordiv 16)" in mlir
    assert "indirect [#ext.indirect<input = 2, symbol = 0, table = 1>]" in mlir


@pytest.mark.parametrize("entry", [11, -1, 1 << 20])
def test_an_entry_outside_the_pages_is_reported(entry):
    (_, _, _, _), tensors = paged_attention(**SHAPE)
    with pytest.warns(ext.ExtRemark):
        kernel = ext.build(tensors[-1])
    q, kc, vc, table = inputs(**SHAPE)
    table[1, 2] = entry
    with pytest.raises(RuntimeError, match=r"ext.compute 'scores': an entry of table input #1 "
                                           r"\('T'\) indexes dimension #0 of input #2 \('Kc'\) "
                                           r"outside \[0, 11\)"):
        kernel.run(q, kc, vc, table)


def test_tables_are_integers_and_read_at_affine_places():
    X = ext.placeholder((8, 4), "float32", name="X")
    F = ext.placeholder((2,), "float32", name="F")
    T = ext.placeholder((2,), "int32", name="T")
    U = ext.placeholder((8,), "int32", name="U")
    with pytest.raises(TypeError, match="index #0 of X is f32, not an integer"):
        ext.compute((4,), lambda i: X[F[i // 2], i])
    with pytest.raises(ValueError, match="a table's index reads U; the index of a tensor read "
                                         "as an index is affine in the axes alone"):
        ext.compute((4,), lambda i: X[T[U[i] // 4], i])
    # A table read outside its own shape is refused where it is written.
    with pytest.raises(ValueError, match=r"T\[i\]: index #0 ranges over \[0, 3\] but T has "
                                         r"extent 2"):
        ext.compute((4,), lambda i: X[T[i], i])


def test_a_symbol_in_an_affine_index():
    """A flat page pool: row T[i // 4] * 4 + i % 4 of X, and two reads of
    the same table element are one symbol."""
    X = ext.placeholder((16, 3), "float32", name="X")
    T = ext.placeholder((2,), "int32", name="T")
    Y = ext.compute((8, 3), lambda i, c: X[T[i // 4] * 4 + i % 4, c] +
                    X[T[i // 4] * 4 + i % 4, c] * 2.0, name="Y")
    with pytest.warns(ext.ExtRemark):
        kernel = ext.build(Y)
    assert "[s0] -> (d0 mod 4 + s0 * 4, d1)" in kernel.mlir()
    x = np.arange(48, dtype=np.float32).reshape(16, 3)
    t = np.array([3, 1], np.int32)
    rows = np.concatenate([np.arange(12, 16), np.arange(4, 8)])
    np.testing.assert_array_equal(kernel.run(x, t), x[rows] * 3)


def test_a_schedule_over_paged_reads_is_refused_by_name():
    """ext.attention's schedule over the paged computes: no tiled copy reads
    a table yet, so the build says which compute and inputs it cannot tile
    (never a kernel that reads page 0)."""
    (_, _, _, _), (S, Ts, M, L, O, out) = paged_attention(**SHAPE)
    s = ext.schedule(O, tile=(1, 1, 16, 64, 64), blocks=["b", "h", "i"], mma="auto",
                     warps=(1, 1), vector=8)
    s.compute_at(S, "j3").compute_inline(Ts).online_softmax(M, L).reverse_compute_at(out, "e")
    with pytest.raises(RuntimeError, match=r"fused compute 'scores' reads input #2 \('Kc'\) at "
                                           r"an entry of input #1 \('T'\) \(`indirect`\), which "
                                           r"a scheduled kernel cannot read yet"):
        ext.build(s)
