"""ext.attention's serving form (issue 58 items 2 and 4): grouped-query heads
as the rows of one tile, a KV cache with a length per sequence (a ragged
batch), a symbolic batch, the keys split over CTAs by `auto`; right against
numpy on the emulator."""

import numpy as np
import pytest

import ext
from te_helpers import needs_ptxas, ptxas_verbose


def reference(q4, k, v, lens, causal=False):
    """q4 (B, Hkv, G * Sq, D), k and v (B, S, Hkv, D): softmax over each
    sequence's first lens[b] keys (aligned at their end when causal)."""
    B, hkv, rows, d = q4.shape
    seq_q = rows if not causal else causal
    out = np.zeros(q4.shape)
    for b in range(B):
        n = int(lens[b])
        for h in range(hkv):
            s = q4[b, h].astype(np.float64) @ k[b, :n, h].astype(np.float64).T / np.sqrt(d)
            if causal:
                i = np.arange(rows)[:, None] % seq_q
                s = np.where(np.arange(n)[None, :] <= i + n - seq_q, s, -np.inf)
            m = s.max(-1, keepdims=True) if n else np.zeros((rows, 1))
            m = np.where(np.isinf(m), 0.0, m)
            p = np.exp(s - m)
            l = p.sum(-1, keepdims=True)
            out[b, h] = np.where(l > 0, (p @ v[b, :n, h].astype(np.float64)) / np.where(l > 0, l, 1), 0)
    return out


def cache(batch, capacity, kv_heads, group, rows, d, seed):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((batch, kv_heads, rows, d)).astype(np.float16)
    k = rng.standard_normal((batch, capacity, kv_heads, d)).astype(np.float16)
    v = rng.standard_normal((batch, capacity, kv_heads, d)).astype(np.float16)
    return q, k, v


def test_decode_gqa_ragged_one_build():
    """One build (a symbolic batch, capacity 4160 keys) serves sequences of
    1, 17, 1000 and 4097 keys in one batch, and a batch of one, GQA 4:1."""
    B = ext.var("B")
    kernel = ext.attention(B, 1, 4160, 64, heads=8, kv_heads=2).build(chip="sm_80")
    q, k, v = cache(4, 4160, 2, 4, 4, 64, seed=0)
    lens = np.array([1, 17, 1000, 4097], np.int32)
    out = kernel.run(q, k, v, lens)
    np.testing.assert_allclose(out.astype(np.float64), reference(q, k, v, lens), atol=2e-3, rtol=2e-3)
    one = kernel.run(q[2:3], k[2:3], v[2:3], lens[2:3])
    np.testing.assert_allclose(one.astype(np.float64), reference(q[2:3], k[2:3], v[2:3], lens[2:3]),
                               atol=2e-3, rtol=2e-3)


def test_empty_sequence_gives_zero():
    q, k, v = cache(2, 128, 1, 4, 4, 64, seed=1)
    lens = np.array([0, 77], np.int32)
    out = ext.attention(2, 1, 128, 64, heads=4, kv_heads=1).run(q, k, v, lens)
    assert np.all(out[0] == 0)
    np.testing.assert_allclose(out.astype(np.float64), reference(q, k, v, lens), atol=2e-3, rtol=2e-3)


@pytest.mark.parametrize("decomposition", ["data_parallel", ("split_k", {"slices": 4}), "stream_k"],
                         ids=str)
def test_speculative_causal_end_aligned(decomposition):
    """Three queries per sequence (speculative decoding), causal aligned to
    the end of each sequence's keys: query i sees j <= i + len - 3."""
    q, k, v = cache(2, 640, 2, 2, 2 * 3, 64, seed=2)
    lens = np.array([5, 600], np.int32)
    w = ext.attention(2, 3, 640, 64, heads=4, kv_heads=2, causal=True, decomposition=decomposition)
    out = w.run(q, k, v, lens)
    np.testing.assert_allclose(out.astype(np.float64), reference(q, k, v, lens, causal=3),
                               atol=2e-3, rtol=2e-3)


@pytest.mark.parametrize("chip", ["sm_90a", "gfx942"])
def test_other_chips(chip):
    q, k, v = cache(2, 512, 2, 4, 4, 128, seed=3)
    lens = np.array([300, 511], np.int32)
    out = ext.attention(2, 1, 512, 128, heads=8, kv_heads=2, chip=chip).run(q, k, v, lens)
    np.testing.assert_allclose(out.astype(np.float64), reference(q, k, v, lens), atol=2e-3, rtol=2e-3)


def test_uneven_groups_refused():
    with pytest.raises(ValueError, match="do not share"):
        ext.attention(2, 1, 512, 64, heads=6, kv_heads=4)


@needs_ptxas
@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_ptxas_accepts_the_decode_kernel(chip, tmp_path):
    """Batch symbolic, 32 query heads over 8 KV heads, head 128: one warp's
    16 rows hold a group's 4 queries; mma.sync, no spills."""
    B = ext.var("B")
    ptx = ext.attention(B, 1, 8192, 128, heads=32, kv_heads=8).build("nvvm", chip=chip).ptx
    assert "mma.sync" in ptx and "cp.async" in ptx
    r = ptxas_verbose(ptx, chip, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "0 bytes spill stores" in r.stderr and "C7510" not in r.stderr, r.stderr


@pytest.mark.parametrize("decomposition", ["data_parallel", ("split_k", {"slices": 4})], ids=str)
def test_key_loop_stops_at_the_length(decomposition):
    """Each sequence's key loop stops after the last step holding one of
    its keys (the length read once per tile): the cache past that step is
    NaN here, which any read of it would carry into the output (0 x NaN);
    a unit of a split whose range starts past the length runs no step."""
    q, k, v = cache(2, 256, 1, 4, 4, 64, seed=4)
    lens = np.array([5, 70], np.int32)
    for b, n in enumerate(lens):
        end = -(-int(n) // 64) * 64
        k[b, end:] = np.nan
        v[b, end:] = np.nan
    out = ext.attention(2, 1, 256, 64, heads=4, kv_heads=1, decomposition=decomposition,
                        chip="sm_80").run(q, k, v, lens)
    assert np.isfinite(out.astype(np.float64)).all()
    np.testing.assert_allclose(out.astype(np.float64), reference(q, k, v, lens), atol=2e-3, rtol=2e-3)


def paged(k, v, page, rng):
    """The cache in pages of `page` keys, shuffled in memory: (pages, page,
    kv_heads, head) arrays and the block table that finds them."""
    nb, cap = k.shape[:2]
    per = cap // page
    table = rng.permutation(nb * per).astype(np.int32).reshape(nb, per)
    kc = np.empty((nb * per, page) + k.shape[2:], k.dtype)
    vc = np.empty_like(kc)
    for b in range(nb):
        for p in range(per):
            kc[table[b, p]] = k[b, p * page:(p + 1) * page]
            vc[table[b, p]] = v[b, p * page:(p + 1) * page]
    return kc, vc, table


def test_issue_58_paged_gqa_ragged_one_build(monkeypatch):
    """Issue 58's must-show, written through ext.attention's keywords: one
    build (a symbolic batch) serves KV lengths 1, 17, 1000 and 4097 in one
    ragged batch, the cache in shuffled pages of 16 read through the block
    table (Kc[T[b, j // 16], j % 16, h, d]), GQA 4:1, the keys split over
    CTAs by auto; right against numpy, racecheck clean, the same bits
    across emulator threads and interleaving seeds."""
    B = ext.var("B")
    kernel = ext.attention(B, 1, 4160, 64, heads=8, kv_heads=2, page_size=16).build(chip="sm_80")
    rng = np.random.default_rng(5)
    q, k, v = cache(4, 4160, 2, 4, 4, 64, seed=5)
    kc, vc, table = paged(k, v, 16, rng)
    lens = np.array([1, 17, 1000, 4097], np.int32)
    outs = []
    monkeypatch.setenv("EXT_EMU_RACECHECK", "1")
    for threads, seed in ((2, 0), (1, 11)):
        monkeypatch.setenv("EXT_EMU_THREADS", str(threads))
        monkeypatch.setenv("EXT_EMU_SEED", str(seed))
        outs.append(kernel.run(q, kc, vc, table, lens))
    np.testing.assert_allclose(outs[0].astype(np.float64), reference(q, k, v, lens),
                               atol=2e-3, rtol=2e-3)
    assert np.array_equal(outs[0].view(np.uint16), outs[1].view(np.uint16))


def _bf16(x):
    u = np.asarray(x, np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).view(np.float32)


@pytest.mark.parametrize("head,dtype,page,chip,seq_q", [
    (256, "bfloat16", None, "sm_80", 1), (128, "float16", 128, "sm_80", 1),
    (64, "float16", 16, "sm_80", 2), (128, "bfloat16", 64, "sm_90a", 1),
    (64, "float16", 64, "gfx942", 1)], ids=str)
def test_heads_types_pages_chips(head, dtype, page, chip, seq_q):
    """Heads of 64, 128 and 256, f16 and bf16, dense and paged (16, 64,
    128), mma.sync and MFMA; two causal queries per sequence on pages of 16."""
    rng = np.random.default_rng(head + seq_q)
    b, cap, hkv, group = 3, 1024, 2, 4
    q = rng.standard_normal((b, hkv, group * seq_q, head)).astype(np.float32)
    k = rng.standard_normal((b, cap, hkv, head)).astype(np.float32)
    v = rng.standard_normal((b, cap, hkv, head)).astype(np.float32)
    q, k, v = ((x.astype(np.float16) if dtype == "float16" else _bf16(x)) for x in (q, k, v))
    lens = np.array([3, 500, 1024], np.int32)
    args = [q, k, v] if page is None else [q, *paged(k, v, page, rng)]
    w = ext.attention(b, seq_q, cap, head, heads=hkv * group, kv_heads=hkv, page_size=page,
                      dtype=dtype, causal=seq_q > 1)
    out = w.build(chip=chip).run(*args, lens)
    tol = 2e-3 if dtype == "float16" else 1.5e-2
    np.testing.assert_allclose(np.asarray(out, np.float64),
                               reference(q, k, v, lens, causal=seq_q if seq_q > 1 else False),
                               atol=tol, rtol=tol)


def test_symbolic_capacity_dense_cache():
    """A dense cache's capacity may be an ext.var too (bound by K's shape):
    one build for caches of 100 and 1000 keys; a paged cache's capacity is
    the table's width, an int, and a var there is refused with the reason."""
    S, B = ext.var("S"), ext.var("B")
    kernel = ext.attention(B, 1, S, 64, heads=8, kv_heads=2).build(chip="sm_80")
    for cap, lens in ((100, [1, 99]), (1000, [17, 1000, 3])):
        q, k, v = cache(len(lens), cap, 2, 4, 4, 64, seed=cap)
        lens = np.array(lens, np.int32)
        np.testing.assert_allclose(kernel.run(q, k, v, lens).astype(np.float64),
                                   reference(q, k, v, lens), atol=2e-3, rtol=2e-3)
    with pytest.raises(NotImplementedError, match="paged cache's capacity must be an int"):
        ext.attention(B, 1, S, 64, heads=8, kv_heads=2, page_size=16)
