"""Attention as a serving engine calls it (issue 58): grouped-query heads,
a KV cache with a length per sequence (ragged batches), optionally in pages
found through a block table, written as computes and scheduled as one
online-softmax kernel whose keys `auto` may split over CTAs.

The query heads that share a KV head are the rows of one tile: Q is read as
(batch, kv_heads, group * seq_q, head_dim), a free view of the usual
(batch, heads, seq_q, head_dim) layout (heads = kv_heads * group), so each
CTA reads its KV head's keys once for all of its query heads."""

from typing import Optional

import numpy as np

from . import dtypes as _dt
from . import te as _te
from .chips import DEFAULT_CHIP, check_chip as _check_chip
from .schedule import schedule as _schedule
from .te import _error, _where
from ._ext import chip_info as _chip_info

_LOG2E = 1.4426950408889634


def _fields(rows, head_dim, elem_bytes, chip_info):
    """The tile: all rows of the group (16 a warp on mma.sync's m16, 32 a
    64-lane wave on MFMA), the head, and a key step whose K and V stages
    fit the chip's shared memory (3 stages where they do: decode streams
    the cache, so the copies run ahead; AMD: 64 keys, one stage)."""
    amd = chip_info["vendor"] == "amd"
    per_warp = 32 if amd else 16
    warps = max(1, -(-rows // per_warp))
    limit = chip_info["max_shared_bytes_per_block"]
    head = -(-head_dim // (64 if amd else 32)) * (64 if amd else 32)
    # AMD: 64-lane fragments need 64 columns of keys; no cp.async to stage.
    steps = ((64, 1), (128, 1)) if amd else ((64, 3), (64, 2), (32, 2), (32, 1))
    for keys, stages in steps:
        smem = (2 * stages * keys * head + warps * per_warp * (head + keys)) * elem_bytes
        if smem <= limit:
            return {"tile": (1, 1, warps * per_warp, head, keys), "blocks": ["b", "h"],
                    "mma": "auto", "warps": (warps, 1), "vector": 8, "stages": stages,
                    "decomposition": "auto"}
    raise _error(_where(), f"ext.attention: a head of {head_dim} does not fit "
                           f"{chip_info['name']}'s shared memory")


def serving_attention(workload, batch, seq_q, capacity, head_dim, heads, kv_heads, dtype, causal,
                      scale, chip, page_size: Optional[int], num_pages, **schedule_fields):
    """See ext.attention's `heads`/`kv_heads`/`page_size`; `workload` is
    helpers.Workload (passed in: helpers imports this module)."""
    if not isinstance(seq_q, int) or not isinstance(head_dim, int):
        raise _error(_where(), "ext.attention(heads=...): seq_q and head_dim must be ints "
                               "(one query per sequence at decode, a few when speculating)",
                     NotImplementedError)
    if heads % kv_heads:
        raise _error(_where(), f"ext.attention: {heads} query heads do not share "
                               f"{kv_heads} KV heads evenly")
    group = heads // kv_heads
    rows = group * seq_q
    chip = _check_chip(chip)
    dtype = _dt.canonical(dtype)
    if scale is None:
        scale = 1.0 / float(np.sqrt(head_dim))
    Q = _te.placeholder((batch, kv_heads, rows, head_dim), dtype, name="Q")
    if page_size is not None:
        if not isinstance(capacity, int):
            raise _error(_where(), f"ext.attention: a paged cache's capacity must be an int "
                                   f"(the block table's width x {page_size}), not "
                                   f"{capacity!r}: its lengths are kv_lens, known at run time; "
                                   f"a symbolic capacity is given by a dense cache",
                         NotImplementedError)
        if capacity % page_size:
            raise _error(_where(), f"ext.attention: a paged cache's capacity ({capacity}) must "
                                   f"be a whole number of pages of {page_size}")
        pages = num_pages if num_pages is not None else _te.var("pages")
        K = _te.placeholder((pages, page_size, kv_heads, head_dim), dtype, name="K_cache")
        V = _te.placeholder((pages, page_size, kv_heads, head_dim), dtype, name="V_cache")
        table = _te.placeholder((batch, capacity // page_size), "int32", name="block_table")

        def key(b, h, j, d):
            return K[table[b, j // page_size], j % page_size, h, d]

        def value(b, h, j, e):
            return V[table[b, j // page_size], j % page_size, h, e]
        cache = [K, V, table]
    else:
        K = _te.placeholder((batch, capacity, kv_heads, head_dim), dtype, name="K")
        V = _te.placeholder((batch, capacity, kv_heads, head_dim), dtype, name="V")

        def key(b, h, j, d):
            return K[b, j, h, d]

        def value(b, h, j, e):
            return V[b, j, h, e]
        cache = [K, V]
    lens = _te.placeholder((batch,), "int32", name="kv_lens")
    f32 = "float32"
    d = _te.reduce_axis(head_dim, name="d")
    j1, j2, j3 = (_te.reduce_axis(capacity, name=n) for n in ("j1", "j2", "j3"))
    shape = (batch, kv_heads, rows, capacity)
    S = _te.compute(shape, lambda b, h, r, j: _te.sum(
        _te.cast(Q[b, h, r, d], f32) * _te.cast(key(b, h, j, d), f32), axis=d), name="scores")

    def scaled(b, h, r, j):
        length = _te.cast(lens[b], "int64")
        visible = _te.cast(j, "int64") < length
        if causal and seq_q > 1:
            # Aligned to the end of each sequence's keys: query i sees
            # j <= i + len - seq_q.
            i = _te.cast(r % seq_q, "int64")
            visible = visible & (_te.cast(j, "int64") <= i + length - seq_q)
        return _te.if_then_else(visible, S[b, h, r, j] * (scale * _LOG2E), _te.const(float("-inf")))

    T = _te.compute(shape, scaled, name="scaled")
    M = _te.compute(shape[:3], lambda b, h, r: _te.max(T[b, h, r, j1], axis=j1), name="row_max")
    L = _te.compute(shape[:3], lambda b, h, r: _te.sum(_te.exp2(T[b, h, r, j2] - M[b, h, r]),
                                                        axis=j2), name="row_sum")
    O = _te.compute((batch, kv_heads, rows, head_dim), lambda b, h, r, e: _te.sum(
        _te.exp2(T[b, h, r, j3] - M[b, h, r]) * _te.cast(value(b, h, j3, e), f32), axis=j3),
        name="acc")
    # A sequence with no keys (length 0) gives 0, as FlashAttention does.
    out = _te.compute((batch, kv_heads, rows, head_dim), lambda b, h, r, e: _te.cast(
        _te.if_then_else(L[b, h, r] > 0.0, O[b, h, r, e] / L[b, h, r], 0.0), dtype), name="out")
    info = _chip_info(chip or DEFAULT_CHIP)
    fields = _fields(rows, head_dim, _dt.numpy_dtype(dtype).itemsize, info)
    fields.update(schedule_fields)
    s = _schedule(O, **fields)
    s.compute_at(S, "j3").compute_inline(T).online_softmax(M, L).reverse_compute_at(out, "e")
    w = workload([Q, *cache, lens], out, s, chip)
    w._retarget = lambda c: serving_attention(workload, batch, seq_q, capacity, head_dim, heads,
                                              kv_heads, dtype, causal, scale, c, page_size,
                                              num_pages, **schedule_fields)
    return w
