"""ext.attention: FlashAttention's forward pass as one kernel (the online
softmax over computes), right against numpy on the emulator on NVIDIA's and
AMD's instructions, one kernel entry, and nothing of the scores' size in
global memory."""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import ext
from te_helpers import needs_ptxas, ptxas_verbose


def reference(q, k, v, causal=False, scale=None):
    d = q.shape[-1]
    scale = 1 / np.sqrt(d) if scale is None else scale
    x = np.einsum("bid,bjd->bij", q.astype(np.float64), k.astype(np.float64)) * scale
    if causal:
        sq, skv = q.shape[1], k.shape[1]
        i, j = np.arange(sq)[:, None], np.arange(skv)[None, :]
        x = np.where(j <= i + skv - sq, x, -np.inf)
    p = np.exp(x - x.max(-1, keepdims=True))
    return np.einsum("bij,bjd->bid", p, v.astype(np.float64)) / p.sum(-1, keepdims=True)


def inputs(bh, sq, skv, d, seed=0):
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal((bh, n, d)).astype(np.float16) for n in (sq, skv, skv))


def check(out, ref):
    # f16 inputs, P rounded to f16 for the second GEMM, the output in f16.
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=1e-2, atol=2e-3)


@pytest.mark.parametrize("shape,causal", [((8, 1000, 1000, 64), False),
                                          ((4, 512, 777, 128), True)])
def test_matches_numpy(shape, causal):
    q, k, v = inputs(*shape)
    out = ext.attention(*shape, causal=causal).run(q, k, v)
    assert out.dtype == np.float16 and out.shape == q.shape
    check(out, reference(q, k, v, causal))


@pytest.mark.parametrize("chip", ["sm_90a", "gfx942"])
def test_other_instructions_on_the_emulator(chip):
    """wgmma (sm_90a) and MFMA (gfx942) give the same answers; ragged rows
    and keys, causal with more queries than keys (fully masked rows: 0)."""
    shape = (2, 100, 70, 64)
    q, k, v = inputs(*shape, seed=1)
    out = ext.attention(*shape, causal=True, chip=chip).run(q, k, v)
    ref = reference(q, k, v, causal=True)
    masked = np.isnan(ref)
    assert masked.any() and (out[masked] == 0).all()
    check(out[~masked], ref[~masked])


@pytest.mark.parametrize("shape,causal,chip", [
    ((1, 1, 1000, 64), False, None),    # decoding: one query
    ((2, 1, 1, 64), True, None),        # one query, one key
    ((1, 33, 17, 32), True, None),      # more queries than keys, a head of 32
    ((1, 40, 70, 256), False, None),    # a head of 256 (wgmma's widest N)
    ((3, 5, 200, 128), True, "gfx942")])
def test_edge_shapes(shape, causal, chip):
    q, k, v = inputs(*shape, seed=7)
    out = ext.attention(*shape, causal=causal, chip=chip).run(q, k, v)
    ref = reference(q, k, v, causal)
    seen = ~np.isnan(ref)
    assert (out[~seen] == 0).all()
    check(out[seen], ref[seen])


def test_head_dim_the_lanes_do_not_divide():
    """A head of 80 under mma = auto: the lanes on the head (32) do not
    divide it, so the default tile pads it to 96 (on mma.sync); a tile of
    80 given explicitly is refused as the schedule says (pass threads= to
    choose)."""
    assert ext.attention(1, 64, 64, 80)._schedule.tile[2] == 96
    assert ext.attention(1, 64, 64, 80, chip="gfx942")._schedule.tile[2] == 128
    with pytest.raises(ValueError, match="tile size 80 of axis 'e' is not a multiple of its 32 "
                                         "threads"):
        ext.attention(1, 64, 64, 80, tile=(1, 128, 80, 32)).build("cpu")


# Shapes whose defaults did not build (issue 59, item 3): all the keys in one
# step of the tile (stages = 2 with no k-loop, or a key tile equal to the
# keys, which the online softmax does not step through), heads the lanes do
# not divide, and AMD's heads above 128 whose doubled key step would not fit
# the LDS (on the threads instead).
@pytest.mark.parametrize("shape,causal,chip,dtype", [
    ((1, 64, 64, 32), False, None, "float16"),      # the issue's: 64 keys, one step
    ((2, 33, 64, 64), True, None, "float16"),       # 64 keys: two steps of 32
    ((1, 20, 32, 128), True, "sm_90a", "float16"),  # 32 keys: one step of 64
    ((1, 24, 40, 16), False, None, "float16"),      # a head of 16, padded to 32
    ((1, 17, 45, 80), True, "gfx942", "float16"),   # a head of 80, padded to 128
    ((1, 9, 64, 256), True, "gfx942", "float16"),   # 64 keys of a head of 256 on AMD
    ((1, 10, 32, 64), False, None, "float32"),      # f32 on the threads, 32 keys
])
def test_shapes_the_defaults_refused(shape, causal, chip, dtype):
    q, k, v = (x.astype(dtype) for x in inputs(*shape, seed=12))
    out = ext.attention(*shape, causal=causal, chip=chip, dtype=dtype).run(q, k, v)
    ref = reference(q, k, v, causal)
    seen = ~np.isnan(ref)
    assert (out[~seen] == 0).all()
    if dtype == "float32":
        np.testing.assert_allclose(out[seen], ref[seen], rtol=1e-4, atol=1e-5)
    else:
        check(out[seen], ref[seen])


@pytest.mark.parametrize("head,dtype", [(8, "float16"), (8, "bfloat16"), (4, "float32")])
def test_heads_of_16_bytes(head, dtype):
    """Rows of exactly 16 bytes: ext-online-softmax leaves them unpadded (it
    asserted, building a storage_align whose offset was its factor)."""
    rng = np.random.default_rng(5)
    w = ext.attention(2, 33, 40, head, dtype=dtype)
    np_dtype = np.float32 if dtype != "float16" else np.float16
    q, k, v = (rng.standard_normal((2, n, head)).astype(np.float32) for n in (33, 40, 40))
    args = [x.astype(np_dtype) for x in (q, k, v)]
    got = np.asarray(w.build().run(*args), np.float32)
    s = np.einsum("bqd,bkd->bqk", *[np.asarray(a, np.float32) for a in args[:2]]) / np.sqrt(head)
    p = np.exp(s - s.max(-1, keepdims=True))
    ref = np.einsum("bqk,bkd->bqd", p / p.sum(-1, keepdims=True), np.asarray(args[2], np.float32))
    np.testing.assert_allclose(got, ref, rtol=2e-2, atol=2e-2)


def test_float32_on_the_threads():
    """f32 inputs: no tensor-core instruction, the GEMMs on the threads."""
    q, k, v = (x.astype(np.float32) for x in inputs(2, 70, 50, 64, seed=3))
    w = ext.attention(2, 70, 50, 64, dtype="float32", causal=True)
    out = w.run(q, k, v)
    ref = reference(q, k, v, causal=True)
    masked = np.isnan(ref)
    assert (out[masked] == 0).all()
    np.testing.assert_allclose(out[~masked], ref[~masked], rtol=1e-4, atol=1e-5)
    assert w.build("nvvm", chip="sm_80").ptx.count(".entry") == 1


def test_scale_and_non_causal_rows():
    q, k, v = inputs(1, 65, 63, 64, seed=2)
    out = ext.attention(1, 65, 63, 64, scale=0.3).run(q, k, v)
    check(out, reference(q, k, v, scale=0.3))


def _kernel_stores(ptx):
    return len(re.findall(r"\bst\.global", ptx))


@pytest.mark.parametrize("chip,instruction", [("sm_80", "mma.sync.aligned.m16n8k16"),
                                              ("sm_90a", "wgmma.mma_async")])
def test_ptx_one_entry_on_tensor_cores(chip, instruction):
    w = ext.attention(8, 1000, 1000, 64, decomposition="data_parallel")
    ptx = w.build("nvvm", chip=chip).ptx
    assert ptx.count(".entry") == 1
    assert instruction in ptx
    # The only global stores are the output's: its 64 x 64 tile over 128
    # threads is 32 values a thread (no S- or P-sized store).
    assert 0 < _kernel_stores(ptx) <= 32
    if chip == "sm_90a":
        assert "wgmma.wait_group" in ptx


@needs_ptxas
@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_ptxas_accepts_without_spills(chip, tmp_path):
    w = ext.attention(4, 512, 777, 128, causal=True)
    r = ptxas_verbose(w.build("nvvm", chip=chip).ptx, chip, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "0 bytes spill stores" in r.stderr and "C7510" not in r.stderr, r.stderr


# LLVM 22's (the system's may lack the AMDGPU target).
OBJDUMP = next((p for p in ("/usr/lib/llvm-22/bin/llvm-objdump",
                            shutil.which("llvm-objdump-22")) if p and os.path.exists(p)), None)


@pytest.mark.skipif(OBJDUMP is None, reason="needs llvm-objdump")
def test_hsaco_has_mfma(tmp_path):
    k = ext.attention(4, 512, 777, 128, causal=True, chip="gfx942").build("rocdl")
    path = tmp_path / "attention.hsaco"
    path.write_bytes(k.hsaco)
    r = subprocess.run([OBJDUMP, "-d", "--mcpu=gfx942", str(path)], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert "v_mfma_f32_16x16x16_f16" in r.stdout


def test_intermediates_stay_on_chip():
    """S, P, M and L are buffers of the function that the kernel never
    touches: the launch's operands are Q, K, V and the output only."""
    w = ext.attention(2, 100, 100, 64)
    program, _, outs, inter = ext.lower(w._items(), args=w.inputs)
    assert [t.name for t in outs] == ["out"] and inter == []
    assert {a["name"] for a in program["locals"]} == {"scores", "scaled", "row_max",
                                                      "row_sum", "acc"}
    k = w.build("nvvm", chip="sm_80")
    gpu = next(k.mlir(stage) for stage in k.stages if "gpu.launch_func" in k.mlir(stage))
    launch = next(line for line in gpu.splitlines() if "gpu.launch_func" in line)
    assert "2x100x100" not in launch and "2x100x64xf16" in launch, launch


def _bf16(x):
    """x rounded to bfloat16 (nearest even), kept as float32."""
    u = x.astype(np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).view(np.float32)


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_heads_inside_rows_bf16_with_bias(chip):
    """Attention written another way: Q, K, V as (batch, seq, heads, dim)
    in bf16, heads an axis of their own (a tile of 1), an additive bias over
    (query, key) read each key step, 32-key steps, stages 2; mma.sync on
    sm_80, wgmma on sm_90a."""
    B, S, H, D = 2, 96, 2, 64
    Q = ext.placeholder((B, S, H, D), "bfloat16", name="Q")
    K = ext.placeholder((B, S, H, D), "bfloat16", name="K")
    V = ext.placeholder((B, S, H, D), "bfloat16", name="V")
    bias = ext.placeholder((S, S), "float32", name="bias")
    d = ext.reduce_axis(D, name="d")
    j1, j2, j3 = (ext.reduce_axis(S, name=n) for n in ("j1", "j2", "j3"))
    f32 = "float32"
    Sc = ext.compute((B, H, S, S), lambda b, h, i, j: ext.sum(
        ext.cast(Q[b, i, h, d], f32) * ext.cast(K[b, j, h, d], f32), axis=d), name="scores")
    T = ext.compute((B, H, S, S), lambda b, h, i, j: Sc[b, h, i, j] * 0.1 + bias[i, j],
                    name="scaled")
    M = ext.compute((B, H, S), lambda b, h, i: ext.max(T[b, h, i, j1], axis=j1), name="m")
    L = ext.compute((B, H, S), lambda b, h, i: ext.sum(ext.exp(T[b, h, i, j2] - M[b, h, i]),
                                                       axis=j2), name="l")
    O = ext.compute((B, H, S, D), lambda b, h, i, e: ext.sum(
        ext.exp(T[b, h, i, j3] - M[b, h, i]) * ext.cast(V[b, j3, h, e], f32), axis=j3),
        name="o")
    out = ext.compute((B, H, S, D), lambda b, h, i, e: O[b, h, i, e] / L[b, h, i], name="out")
    s = ext.schedule(O, tile=(1, 1, 64, D, 32), blocks=["b", "h", "i"], mma="auto",
                     warps=(4, 1), vector=8, stages=2)
    s.compute_at(Sc, "j3").compute_inline(T).online_softmax(M, L).reverse_compute_at(out, "e")
    rng = np.random.default_rng(4)
    q, k, v = (rng.standard_normal((B, S, H, D)).astype(np.float32) for _ in range(3))
    bb = rng.standard_normal((S, S)).astype(np.float32)
    got = ext.build(s, "cpu", chip=chip).run(q, k, v, bb)
    x = np.einsum("bihd,bjhd->bhij", _bf16(q), _bf16(k)) * 0.1 + bb
    p = np.exp(x - x.max(-1, keepdims=True))
    ref = np.einsum("bhij,bjhd->bhid", p, _bf16(v)) / p.sum(-1)[..., None]
    np.testing.assert_allclose(got, ref, rtol=2e-2, atol=5e-3)
    ptx = ext.build(s, "nvvm", chip=chip).ptx
    assert ptx.count(".entry") == 1
    assert ("wgmma.mma_async" if chip == "sm_90a" else "mma.sync") in ptx


@pytest.mark.parametrize("chip,d", [("sm_80", 64), ("sm_90a", 64), ("sm_90a", 128)])
def test_one_exp_per_score(chip, d):
    """P is computed once, into registers: the row sum folds it from there
    and P's shared tile for the second GEMM is written from it. So a thread
    runs one ex2 per score of its key step (128 rows x 64 keys, 32 above a
    head of 64, over 256 threads) and one rescale for each of the two rows
    its lane holds (the row statistics live in registers, each lane of a
    row computing them). Data-parallel: a split of the keys adds the
    combine's rescales (test_attention_split.py)."""
    ptx = ext.attention(1, 256, 256, d, decomposition="data_parallel").build("nvvm", chip=chip).ptx
    keys = 64 if d == 64 else 32
    assert ptx.count("ex2.approx") == 128 * keys // 256 + 2


def _softmax_computes(n, d, half_sum):
    """Attention's computes; with `half_sum` the row sum is of P / 2 (not P
    itself) and the output divides by twice it."""
    Q, K, V = (ext.placeholder((1, n, d), "float16", name=x) for x in "QKV")
    dd = ext.reduce_axis(d, name="d")
    j1, j2, j3 = (ext.reduce_axis(n, name=x) for x in ("j1", "j2", "j3"))
    f32 = "float32"
    S = ext.compute((1, n, n), lambda b, i, j: ext.sum(
        ext.cast(Q[b, i, dd], f32) * ext.cast(K[b, j, dd], f32), axis=dd), name="scores")
    T = ext.compute((1, n, n), lambda b, i, j: S[b, i, j] * 0.125, name="scaled")
    M = ext.compute((1, n), lambda b, i: ext.max(T[b, i, j1], axis=j1), name="m")
    half = 0.5 if half_sum else 1.0

    def term(b, i):
        p = ext.exp2(T[b, i, j2] - M[b, i])
        return p * half if half_sum else p

    L = ext.compute((1, n), lambda b, i: ext.sum(term(b, i), axis=j2), name="l")
    O = ext.compute((1, n, d), lambda b, i, e: ext.sum(
        ext.exp2(T[b, i, j3] - M[b, i]) * ext.cast(V[b, j3, e], f32), axis=j3), name="o")
    out = ext.compute((1, n, d), lambda b, i, e: O[b, i, e] / (L[b, i] / half), name="out")
    s = ext.schedule(O, tile=(1, 64, d, 64), blocks=["b", "i"], mma="auto", warps=(4, 1),
                     vector=8)
    s.compute_at(S, "j3").compute_inline(T).online_softmax(M, L).reverse_compute_at(out, "e")
    return s


@pytest.mark.parametrize("half_sum", [False, True])
def test_row_sum_from_p_only_when_it_is_p(half_sum):
    """The row sum is folded from P's fragment only when its summand is the
    same value as P; another summand (P / 2) keeps its own exp, and both are
    right."""
    n, d = 100, 64
    s = _softmax_computes(n, d, half_sum)
    q, k, v = inputs(1, n, n, d, seed=5)
    out = ext.build(s, "cpu", chip="sm_80").run(q, k, v)
    x = np.einsum("bid,bjd->bij", q.astype(np.float64), k.astype(np.float64)) * 0.125
    p = np.exp2(x - x.max(-1, keepdims=True))
    ref = np.einsum("bij,bjd->bid", p, v.astype(np.float64)) / p.sum(-1, keepdims=True)
    check(out, ref)
    # The kernel: P's fragment (one exp2), the rescales of the accumulator
    # and of the sum (one each), and the sum's own exp2 when its summand is
    # not P. (In the PTX, LLVM may still merge that one with P's.)
    kernel = ext.build(s, "nvvm", chip="sm_80")
    assert kernel.mlir("ext-apply-schedule").count("math.exp2") == (4 if half_sum else 3)
    # 64 x 64 scores over 128 threads: 32 a thread, and a rescale for each
    # of the lane's two rows.
    assert kernel.ptx.count("ex2.approx") == 32 + 2


def test_head_256_on_amd_value_over_keys():
    """A head of 256 on gfx942: Q, K, V and P would take 87 KB of the 64 KB
    of LDS, so the kernel copies V after the scores and V's tile takes K's
    bytes (54 KB); right against numpy."""
    shape = (1, 70, 90, 256)
    w = ext.attention(*shape, causal=True, chip="gfx942")
    assert w.build("rocdl", chip="gfx942").shared_memory_bytes <= 64 * 1024
    q, k, v = inputs(*shape, seed=9)
    out = w.run(q, k, v)
    ref = reference(q, k, v, causal=True)
    seen = ~np.isnan(ref)
    assert (out[~seen] == 0).all()
    check(out[seen], ref[seen])


def test_built_for_another_chip_than_made_for():
    """The tiles depend on the chip: a workload made without one (NVIDIA's
    128 x 32 tile at a head of 128) built for gfx942 is made again for it
    (64 x 64 on 4 wavefronts) instead of failing on MFMA's 64 lanes."""
    w = ext.attention(1, 256, 256, 128)
    k = w.build("rocdl", chip="gfx942")
    made_for = ext.attention(1, 256, 256, 128, chip="gfx942").build("rocdl", chip="gfx942")
    assert k.shared_memory_bytes == made_for.shared_memory_bytes
    assert k.mlir(k.stages[0]) == made_for.mlir(made_for.stages[0])
