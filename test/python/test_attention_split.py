"""ext.attention with its keys split over CTAs (issue 58 item 1): split-KV
(FlashDecoding's) as the decomposition family applied to the key axis of the
online softmax. Each work unit leaves its state (accumulator, row max, row
sum), the decomposition's deterministic fixup combines them with the
kernel's reducer over whole fragments, and `auto` chooses at launch from the
batch-heads, the query tiles and the key steps."""


import numpy as np
import pytest

import ext
from te_helpers import needs_ptxas, ptxas_verbose



def reference(q, k, v, causal=False):
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    s = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    if causal:
        sq, skv = s.shape[1], s.shape[2]
        visible = np.arange(skv)[None, :] <= np.arange(sq)[:, None] + skv - sq
        s = np.where(visible, s, -np.inf)
    m = s.max(-1, keepdims=True)
    m = np.where(np.isinf(m), 0.0, m)
    p = np.exp(s - m)
    l = p.sum(-1, keepdims=True)
    return np.where(l > 0, (p @ v) / np.where(l > 0, l, 1.0), 0.0)


def inputs(bh, sq, skv, d, seed):
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal((bh, n, d)).astype(np.float16)
                 for n in (sq, skv, skv))


def check(out, q, k, v, causal=False):
    ref = reference(q, k, v, causal)
    # f16 output: half an ulp of the largest |out| (~1), plus the f32 sums.
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, atol=2e-3, rtol=2e-3)


def test_decode_one_build_every_length():
    """One query per batch-head, a symbolic KV length: `auto` plans at
    launch, and one build is right at 1, 17, 1000 and 4097 keys."""
    S = ext.var("S")
    kernel = ext.attention(4, 1, S, 64).build(chip="sm_80")
    for n in (1, 17, 1000, 4097):
        q, k, v = inputs(4, 1, n, 64, seed=n)
        check(kernel.run(q, k, v), q, k, v)


@pytest.mark.parametrize("decomposition", [
    ("split_k", {"slices": 3}), ("split_k", {"slices": 16}), "stream_k",
    ("stream_k", {"grid": 5}), "auto", ("split_k", {"slices": 2, "mode": "parallel"}),
    ("stream_k_2tile", {"sms": 5}), ("stream_k_dp", {"sms": 3}), ("persistent", {"grid": 3})],
    ids=str)
def test_explicit_splits(decomposition):
    """Every decomposition agrees with numpy: slices that leave some units
    no keys (16 slices of 16 key steps), Stream-K's uneven shares, the
    hybrids, split-K's separate reduction launch, a persistent grid (a CTA
    running several whole tiles)."""
    q, k, v = inputs(2, 1, 1000, 64, seed=1)
    w = ext.attention(2, 1, 1000, 64, decomposition=decomposition)
    check(w.run(q, k, v), q, k, v)


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a", "gfx942"])
def test_causal_prefill_split(chip):
    """Causal prefill split over the keys: units of key tiles the mask
    skips leave the identity (max -inf, sums 0); mma.sync, wgmma, MFMA."""
    q, k, v = inputs(2, 200, 300, 64, seed=2)
    w = ext.attention(2, 200, 300, 64, causal=True, decomposition=("split_k", {"slices": 3}))
    check(w.build(chip=chip).run(q, k, v), q, k, v, causal=True)


def test_head_128_bf16_stream_k():
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((2, n, 128)).astype(np.float32) for n in (3, 777, 777))
    w = ext.attention(2, 3, 777, 128, dtype="bfloat16", decomposition="stream_k")
    out = w.run(q, k, v)
    # bf16 inputs: compared with the inputs rounded as the kernel reads them;
    # the output is bf16 (8 bits of mantissa).
    np.testing.assert_allclose(np.asarray(out, np.float64),
                               reference(*(_bf16(x) for x in (q, k, v))), atol=1e-2, rtol=1e-2)


def _bf16(x):
    """x rounded to bfloat16 (nearest even), kept as float32."""
    b = np.asarray(x, np.float32).view(np.uint32)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return b.view(np.float32)


def test_deterministic_across_threads_and_seeds(monkeypatch):
    """The fixup's tree is fixed: the same bits whatever order the
    emulator runs the CTAs in (interleaving seeds, worker threads), racecheck
    on."""
    S = ext.var("S")
    kernel = ext.attention(2, 1, S, 64, decomposition=("split_k", {"slices": 5})).build(chip="sm_80")
    q, k, v = inputs(2, 1, 1000, 64, seed=4)
    outs = []
    monkeypatch.setenv("EXT_EMU_RACECHECK", "1")
    for threads, seed in ((1, 0), (2, 7), (3, 123)):
        monkeypatch.setenv("EXT_EMU_THREADS", str(threads))
        monkeypatch.setenv("EXT_EMU_SEED", str(seed))
        outs.append(kernel.run(q, k, v))
    check(outs[0], q, k, v)
    for o in outs[1:]:
        assert np.array_equal(o.view(np.uint16), outs[0].view(np.uint16))


def test_auto_fills_the_sms_at_decode():
    """Issue 58's point: batch 1, 32 heads, 8k keys, head 128 on 132 SMs.
    Data-parallel runs 32 CTAs (one per batch-head); `auto` picks a split
    of the keys over >= 120 CTAs, predicted, with the function the host
    code of a launch calls."""
    w = ext.attention(32, 1, 8192, 128, chip="sm_90a")
    s = w._schedule
    rows, keys = s.tile[1], s.tile[3]
    tiles, iters = 32 * -(-1 // rows), 8192 // keys
    name, prediction = ext.choose_at_launch(tiles, iters, 132, keys)
    assert name != "data_parallel" and prediction["grid"] >= 120, (name, prediction)
    assert prediction["utilization"] >= 0.9, prediction


def test_auto_at_launch_reports_its_choice(monkeypatch, capfd):
    """At a launch over a symbolic length the planner's choice is the one
    test_auto_fills_the_sms_at_decode predicts (EXT_REPORT_LAUNCH_PLANS)."""
    S = ext.var("S")
    kernel = ext.attention(8, 1, S, 64).build(chip="sm_80")
    q, k, v = inputs(8, 1, 2048, 64, seed=5)
    monkeypatch.setenv("EXT_REPORT_LAUNCH_PLANS", "1")
    check(kernel.run(q, k, v), q, k, v)
    err = capfd.readouterr().err
    keys = 64  # ext.attention's key step at a head of 64
    name, prediction = ext.choose_at_launch(8, 2048 // keys, 108, keys)
    assert f"#ext.auto at launch: {name} for 8 tiles of {2048 // keys} iterations on 108 SMs" in err, err
    assert name != "data_parallel"


def test_combine_costs_per_row_not_per_score():
    """The split adds the combine's rescales per row (two per row a lane
    holds), not per score: the key step is the data-parallel kernel's."""
    dp = ext.attention(1, 256, 256, 64, decomposition="data_parallel").build("nvvm", chip="sm_80").ptx
    sk = ext.attention(1, 256, 256, 64, decomposition="stream_k").build("nvvm", chip="sm_80").ptx
    assert "fence.acq_rel.gpu" in sk and "fence.acq_rel.gpu" not in dp
    assert 0 < sk.count("ex2.approx") - dp.count("ex2.approx") <= 4


@needs_ptxas
@pytest.mark.parametrize("chip,d", [("sm_80", 128), ("sm_90a", 128)])
def test_ptxas_accepts_split(chip, d, tmp_path):
    S = ext.var("S")
    ptx = ext.attention(32, 1, S, d).build("nvvm", chip=chip).ptx
    r = ptxas_verbose(ptx, chip, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "0 bytes spill stores" in r.stderr and "C7510" not in r.stderr, r.stderr


def test_explicit_split_without_registers_is_refused():
    """f32 attention runs its GEMMs on the threads with the row statistics
    in shared memory: an explicit split is refused with the reason, `auto`
    keeps each tile's keys in one CTA."""
    with pytest.raises(Exception, match="needs the row statistics in registers"):
        ext.attention(2, 1, 300, 32, dtype="float32", decomposition="stream_k").build(chip="sm_80")
    rng = np.random.default_rng(6)
    q, k, v = (rng.standard_normal((2, n, 32)).astype(np.float32) for n in (1, 300, 300))
    out = ext.attention(2, 1, 300, 32, dtype="float32").run(q, k, v)
    np.testing.assert_allclose(out, reference(q, k, v), atol=1e-4, rtol=1e-4)


def test_choose_at_launch_rejects_empty_problems():
    """The planner divides by each count: a clear error, not an abort."""
    for args in ((0, 8, 132), (8, 0, 132), (8, 8, 0)):
        with pytest.raises(ValueError, match="must be at least 1"):
            ext.choose_at_launch(*args)
