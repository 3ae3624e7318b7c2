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
from te_helpers import needs_ptxas, ptxas_verbose
from ext.chips import check_chip
from ext.helpers import _attention_fields

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



def scheduled(shape, chip=None, **fields):
    """The paged computes under ext.attention's schedule for `chip` (its
    tile, warps, stages and mma = auto), the heads blocked as the batch."""
    (_, _, _, _), (S, Ts, M, L, O, out) = paged_attention(**shape)
    f = _attention_fields(shape["page"] * shape["pages_per_seq"], shape["head_dim"], "f16",
                          check_chip(chip))
    f["tile"] = (1, 1) + tuple(f["tile"][1:])
    f["blocks"] = ["b", "h", "i"]
    f.update(fields)
    s = ext.schedule(O, **f)
    s.compute_at(S, "j3").compute_inline(Ts).online_softmax(M, L).reverse_compute_at(out, "e")
    return s


# Pages shorter than the key step of 64 (each step copies 4 pages, each
# from its table entry), as long (one page a step), and longer (each step
# one copy at its row of the page).
PAGES = [dict(page=16, pages_per_seq=8, num_pages=19), dict(page=64, pages_per_seq=2, num_pages=7),
         dict(page=128, pages_per_seq=1, num_pages=5)]


@pytest.mark.parametrize("pages", PAGES, ids=["P16", "P64", "P128"])
def test_scheduled_as_ext_attention_matches_numpy(pages, monkeypatch):
    """One kernel with the online softmax, K and V copied page by page a
    step ahead (cp.async on sm_80), racecheck on; a table entry outside the
    pages fails the launch with the check's message."""
    shape = dict(SHAPE, **pages)
    kernel = ext.build(scheduled(shape))
    q, kc, vc, table = inputs(**shape, seed=pages["page"])
    monkeypatch.setenv("EXT_EMU_RACECHECK", "1")
    ref = reference(q, kc, vc, table, SHAPE["group"])
    check(kernel.run(q, kc, vc, table), ref)
    # The kernel reads the table: the pages in memory order are another answer.
    straight = np.arange(table.size, dtype=np.int32).reshape(table.shape)
    assert np.abs(kernel.run(q, kc, vc, straight).astype(np.float64) - ref).max() > 0.05
    table[1, -1] = pages["num_pages"]
    with pytest.raises(RuntimeError, match=r"an entry of table input #\d \('T'\) indexes dimension "
                                           rf"#0 of input #\d \('[KV]c'\) outside \[0, "
                                           rf"{pages['num_pages']}\)"):
        kernel.run(q, kc, vc, table)


def test_dense_gqa_reads_the_blocks_kv_head():
    """Without pages: K[b, h // G, j, d], an expression of the axis the
    tile fixes (one head a block), read at the block's KV head."""
    B, H, G, SQ, SKV, D = 2, 8, 4, 5, 128, 64
    Q = ext.placeholder((B, H, SQ, D), "float16", name="Q")
    K, V = (ext.placeholder((B, H // G, SKV, D), "float16", name=n) for n in "KV")
    d = ext.reduce_axis(D, name="d")
    j1, j2, j3 = (ext.reduce_axis(SKV, name=n) for n in ("j1", "j2", "j3"))
    f32 = "float32"
    S = ext.compute((B, H, SQ, SKV), lambda b, h, i, j: ext.sum(
        ext.cast(Q[b, h, i, d], f32) * ext.cast(K[b, h // G, j, d], f32), axis=d),
        name="scores")
    Ts = ext.compute((B, H, SQ, SKV), lambda b, h, i, j: S[b, h, i, j] * (LOG2E / 8.0),
                     name="scaled")
    M = ext.compute((B, H, SQ), lambda b, h, i: ext.max(Ts[b, h, i, j1], axis=j1), name="m")
    L = ext.compute((B, H, SQ), lambda b, h, i: ext.sum(ext.exp2(Ts[b, h, i, j2] - M[b, h, i]),
                                                         axis=j2), name="l")
    O = ext.compute((B, H, SQ, D), lambda b, h, i, e: ext.sum(
        ext.exp2(Ts[b, h, i, j3] - M[b, h, i]) * ext.cast(V[b, h // G, j3, e], f32), axis=j3),
        name="acc")
    out = ext.compute((B, H, SQ, D), lambda b, h, i, e: ext.cast(O[b, h, i, e] / L[b, h, i],
                                                                 "float16"), name="out")
    s = ext.schedule(O, tile=(1, 1, 128, D, 64), blocks=["b", "h", "i"], mma="auto",
                     warps=(8, 1), vector=8, stages=2)
    s.compute_at(S, "j3").compute_inline(Ts).online_softmax(M, L).reverse_compute_at(out, "e")
    rng = np.random.default_rng(5)
    q = rng.standard_normal((B, H, SQ, D)).astype(np.float16)
    k, v = (rng.standard_normal((B, H // G, SKV, D)).astype(np.float16) for _ in "kv")
    # The reference's pages: one per sequence, all its keys, in order.
    kc, vc = (x.transpose(0, 2, 1, 3) for x in (k, v))
    table = np.arange(B, dtype=np.int32)[:, None]
    check(ext.build(s).run(q, k, v), reference(q, kc, vc, table, G))


@pytest.mark.parametrize("pages", [PAGES[0], PAGES[2]], ids=["P16", "P128"])
def test_keys_split_over_ctas_read_their_pages(pages):
    """Split-K over the keys (two CTAs a tile, each its half of the steps):
    each reads the entries of its own steps' pages."""
    shape = dict(SHAPE, **pages)
    kernel = ext.build(scheduled(shape, decomposition=("split_k", {"slices": 2})))
    q, kc, vc, table = inputs(**shape, seed=1)
    check(kernel.run(q, kc, vc, table), reference(q, kc, vc, table, SHAPE["group"]))


def test_page_copies_each_load_their_entry():
    """Pages of 16 under key steps of 64: each step copies K and V as four
    pages into consecutive rows of the shared tile, each page's entry
    loaded from the table once, checked, before its copy; nothing of the
    scores' size is a kernel argument."""
    shape = dict(SHAPE, **PAGES[0])
    kernel = ext.build(scheduled(shape, stages=1))
    ir = kernel.mlir("ext-apply-schedule")
    copies = [line for line in ir.splitlines() if "ext.copy " in line]
    paged = [line for line in copies if "to memref<16x64xf16" in line]
    assert len(paged) == 8, copies  # 4 pages of K and 4 of V per step
    assert sum("offset: 1152" in line for line in paged) == 2, paged  # page 1: row 16 of 72
    assert ir.count("memref.load") == 8 and ir.count("cf.assert") >= 8
    assert "ext.compute [" not in ir


def test_gqa_and_pages_on_wgmma():
    """sm_90a: wgmma over swizzled tiles with pages as long as a step."""
    shape = dict(SHAPE, **PAGES[1])
    kernel = ext.build(scheduled(shape, chip="sm_90a"), chip="sm_90a")
    q, kc, vc, table = inputs(**shape, seed=3)
    check(kernel.run(q, kc, vc, table), reference(q, kc, vc, table, SHAPE["group"]))


@pytest.mark.parametrize("pages,chip,message", [
    (dict(page=48, pages_per_seq=2, num_pages=5), None,
     "tile 64 of axis 'j3' is not a multiple of 48, the divisor in access 'd4 floordiv 48' "
     "of input #2, nor does each tile lie inside one multiple of it"),
    (PAGES[0], "sm_90a", "pages of 16 keys are shorter than the key step of 64, whose "
                         "swizzled wgmma tile is not copied by pages")],
    ids=["P48", "wgmma_P16"])
def test_pages_the_kernel_cannot_copy_are_refused(pages, chip, message):
    shape = dict(SHAPE, **pages)
    s = scheduled(shape, chip=chip, **({"tile": (1, 1, 128, 64, 64)} if pages["page"] == 48
                                       else {}))
    with pytest.raises(RuntimeError, match=message):
        ext.build(s, chip=chip) if chip else ext.build(s)


def test_other_schedules_over_paged_reads_are_refused_by_name():
    """A schedule without the online softmax has no paged copies: refused,
    naming the compute and its inputs (never a kernel that reads page 0)."""
    (_, _, _, _), (S, *_rest) = paged_attention(**SHAPE)
    s = ext.schedule(S, tile=(1, 1, 5, 64, 64), blocks=["b", "h"])
    with pytest.raises(RuntimeError, match=r"'ext.compute' op schedule: reads input #2 \('Kc'\) "
                                           r"at an entry of input #1 \('T'\) \(`indirect`\), "
                                           r"which a scheduled kernel cannot read yet"):
        ext.build(s)


@needs_ptxas
@pytest.mark.parametrize("pages", PAGES[:2], ids=["P16", "P64"])
def test_ptxas_accepts(pages, tmp_path):
    """sm_80: one kernel, the pages copied by cp.async, each entry's check a
    call to __assertfail; ptxas takes it without spills."""
    ptx = ext.build(scheduled(dict(SHAPE, **pages)), "nvvm", chip="sm_80").ptx
    assert ptx.count(".entry") == 1 and "cp.async" in ptx and "__assertfail" in ptx
    r = ptxas_verbose(ptx, "sm_80", tmp_path)
    assert r.returncode == 0, r.stderr
    assert "0 bytes spill stores" in r.stderr, r.stderr
