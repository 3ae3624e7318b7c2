"""ext.attention over a symbolic sequence length (`ext.var`, issue 58): one
build serves every length, causal and not, right against numpy on the
emulator at lengths that are no multiple of the tiles (the ragged last key
step masked to -inf before the row max, the ragged last query tile not
stored), and the same kernel compiles for sm_80 (ptxas accepts it)."""


import numpy as np
import pytest

import ext
from te_helpers import needs_ptxas, ptxas_verbose
from test_attention import reference

LENGTHS = (1, 17, 100, 257)


def inputs(bh, sq, skv, d, seed):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((bh, sq, d)).astype(np.float16)
    # Keys with a large mean: a key past the length that leaked into the
    # softmax (a zero-filled score of 0 where the others are far from it)
    # would show in every row.
    k = (rng.standard_normal((bh, skv, d)) + 1.5).astype(np.float16)
    v = rng.standard_normal((bh, skv, d)).astype(np.float16)
    return q, k, v


def check(out, ref):
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=1e-2, atol=2e-3)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_one_build_serves_every_length(causal):
    S = ext.var("S")
    kernel = ext.attention(2, S, S, 64, causal=causal).build()
    for n in LENGTHS:
        q, k, v = inputs(2, n, n, 64, seed=n)
        out = kernel.run(q, k, v)
        assert out.dtype == np.float16 and out.shape == q.shape
        check(out, reference(q, k, v, causal))


def test_lengths_that_disagree_are_refused_when_it_runs():
    S = ext.var("S")
    kernel = ext.attention(2, S, S, 64).build()
    q, k, v = inputs(2, 17, 20, 64, seed=0)
    with pytest.raises(ValueError, match=r"size S is 17 in dimension 1 of input 'Q' but 20 "
                                         r"in dimension 1 of input 'K'"):
        kernel.run(q, k, v)


@pytest.mark.parametrize("sq,skv", [(1, 257), (17, 100), (100, 17), (257, 1)])
def test_separate_query_and_key_lengths(sq, skv):
    """Two vars: the query tiles and the key steps each ragged on their own."""
    kernel = _separate_kernel()
    q, k, v = inputs(3, sq, skv, 64, seed=sq + skv)
    check(kernel.run(q, k, v), reference(q, k, v, False))


_SEPARATE = []


def _separate_kernel():
    if not _SEPARATE:
        _SEPARATE.append(ext.attention(3, ext.var("Sq"), ext.var("Skv"), 64).build())
    return _SEPARATE[0]


def test_a_symbolic_query_length_over_static_keys():
    kernel = ext.attention(2, ext.var("S"), 300, 64).build()
    for n in (1, 100):
        q, k, v = inputs(2, n, 300, 64, seed=n)
        check(kernel.run(q, k, v), reference(q, k, v, False))


def test_head_of_128_and_a_stated_multiple():
    """A head of 128 (32-key steps on NVIDIA), and a length stated a multiple
    of the key step (ext.var(multiple_of=64)): no mask on the keys; a length
    that is not one is refused at the call."""
    S = ext.var("S", multiple_of=64)
    kernel = ext.attention(1, S, S, 128, causal=True).build()
    for n in (64, 192):
        q, k, v = inputs(1, n, n, 128, seed=n)
        check(kernel.run(q, k, v), reference(q, k, v, True))
    q, k, v = inputs(1, 100, 100, 128, seed=0)
    with pytest.raises(ValueError, match="multiple of 64"):
        kernel.run(q, k, v)


def test_symbolic_batch():
    B, S = ext.var("B"), ext.var("S")
    kernel = ext.attention(B, S, S, 64, causal=True).build()
    for b, n in ((1, 17), (5, 100)):
        q, k, v = inputs(b, n, n, 64, seed=b * n)
        check(kernel.run(q, k, v), reference(q, k, v, True))


@pytest.mark.parametrize("chip", ["sm_90a", "gfx942"])
def test_other_instructions(chip):
    """wgmma (sm_90a) and MFMA (gfx942) over a symbolic length."""
    S = ext.var("S")
    kernel = ext.attention(2, S, S, 64, causal=True, chip=chip).build()
    for n in (17, 100):
        q, k, v = inputs(2, n, n, 64, seed=n)
        check(kernel.run(q, k, v), reference(q, k, v, True))


def test_one_kernel_and_nothing_of_the_scores_size():
    """The size checks read Q, K, V and the output only (the fused
    computes' buffers stay dead): one launch whose memrefs are those four,
    the row statistics not stored, nothing computed outside it. `auto`
    may split the keys at launch: then a fifth, the fixup's workspace of
    bytes (partial states and flags), sized at launch."""
    S = ext.var("S")
    k = ext.attention(2, S, S, 64, causal=True).build("nvvm", chip="sm_80")
    gpu = next(k.mlir(stage) for stage in k.stages if "gpu.launch_func" in k.mlir(stage))
    launches = [line for line in gpu.splitlines() if "gpu.launch_func" in line]
    assert len(launches) == 1
    assert launches[0].count("memref<") == 5 and "xf32>" not in launches[0], launches[0]
    assert launches[0].count("memref<?xi8>") == 1, launches[0]
    assert "ext.compute [" not in k.mlir("ext-apply-schedule")


@needs_ptxas
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_ptxas_accepts(causal, tmp_path):
    S = ext.var("S")
    ptx = ext.attention(4, S, S, 128, causal=causal).build("nvvm", chip="sm_80").ptx
    assert ptx.count(".entry") == 1 and "mma.sync" in ptx
    r = ptxas_verbose(ptx, "sm_80", tmp_path)
    assert r.returncode == 0, r.stderr
    assert "0 bytes spill stores" in r.stderr, r.stderr


@pytest.mark.parametrize("sizes,message", [
    (lambda: (2, ext.var("Sq"), ext.var("Skv"), 64),
     "causal=True with seq_q = Sq and seq_kv = Skv is not supported yet"),
    (lambda: (2, ext.var("S"), 300, 64),
     "causal=True with seq_q = S and seq_kv = 300 is not supported yet")],
    ids=["two_vars", "var_and_int"])
def test_causal_over_two_lengths_is_refused_at_the_call(sizes, message):
    """Bottom-right alignment needs seq_kv - seq_q in the mask: a size the
    compute's body would read, which computes cannot yet."""
    with pytest.raises(NotImplementedError) as refused:
        ext.attention(*sizes(), causal=True)
    line = refused.tb.tb_lineno
    assert str(refused.value).startswith(f"{__file__}:{line}: ext.attention: {message}")


def test_symbolic_head_is_refused_at_the_call():
    with pytest.raises(NotImplementedError) as refused:
        ext.attention(2, 256, 256, ext.var("D"))
    line = refused.tb.tb_lineno
    assert str(refused.value).startswith(
        f"{__file__}:{line}: ext.attention: a symbolic head size is not supported "
        "(head_dim = D)")
