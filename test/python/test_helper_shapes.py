"""The helpers' defaults are legal for every shape they accept (issue 59,
item 3): a build-only sweep of ext.attention over key counts around its key
steps (one step, exactly a step, just past it), heads the lanes do not
divide, and chips; ext.matmul with K at or below its k tile (split-K's
default slices, stages with a single k-step), against numpy; and a clear
refusal, at the caller's line, of a convolution with no output."""

import warnings

import numpy as np
import pytest

import ext


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ext.ExtWarning)
        yield


def _builds(cases):
    """The cases (attention args, chip) whose default schedule does not
    compile for their chip (PTX or HSACO, stages not kept)."""
    failed = []
    for args, kwargs in cases:
        chip = kwargs.get("chip")
        target = "rocdl" if chip and chip.startswith("gfx") else "nvvm"
        try:
            ext.build(ext.attention(*args, **kwargs), target, chip=chip, keep_stages=False)
        except Exception as e:  # noqa: BLE001 (each listed)
            failed.append(f"attention{args} {kwargs}: {type(e).__name__}: {str(e)[:300]}")
    return failed


# Around NVIDIA's key steps (64 keys up to a head of 64, 32 above) and AMD's
# (64): one key, a step, one past, two steps, and more.
KEYS = (1, 31, 32, 33, 63, 64, 65, 129)


@pytest.mark.parametrize("head,chip", [(32, None), (64, None), (128, None), (128, "sm_90a"),
                                       (64, "gfx942"), (256, "gfx942")])
def test_attention_builds_for_any_number_of_keys(head, chip):
    cases = [((1, 40, keys, head), dict(causal=keys % 2 == 0, chip=chip)) for keys in KEYS]
    failed = _builds(cases)
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("chip", [None, "sm_90a", "gfx942"])
def test_attention_builds_for_any_head(chip):
    """Heads the lanes do not divide (padded tiles), small and large ones,
    f16 and f32."""
    heads = (1, 16, 24, 48, 72, 200, 320)
    cases = [((2, 33, 45, head), dict(causal=True, chip=chip)) for head in heads]
    cases += [((2, 33, 45, head), dict(dtype="float32", chip=chip)) for head in (2, 24, 100)]
    failed = _builds(cases)
    assert not failed, "\n".join(failed)


def test_attention_tiles_fit_the_chip():
    """Chips with less shared memory (sm_86's 99 KB, sm_75's and RDNA's 64
    KB) or no tensor cores for the inputs (sm_75, gfx1100: on the threads)
    get tiles that fit them; where none does, a ValueError at the call."""
    cases = [((1, 33, 45, 256), dict(chip="sm_86")), ((1, 33, 45, 128), dict(chip="sm_75")),
             ((1, 33, 45, 100), dict(chip="gfx1100")),
             ((1, 33, 45, 384), dict(chip="gfx942", dtype="float32"))]
    failed = _builds(cases)
    assert not failed, "\n".join(failed)
    assert ext.attention(1, 33, 45, 256, chip="sm_86")._schedule.tile[1] == 64
    assert ext.attention(1, 33, 45, 256, chip="sm_90a")._schedule.tile[1] == 128
    with pytest.raises(ValueError) as refused:
        ext.attention(1, 33, 45, 512, dtype="float32", chip="gfx942")
    assert str(refused.value) == (
        f"{__file__}:{refused.tb.tb_lineno}: ext.attention: a head of 512 f32 values does not "
        "fit gfx942's 64 KB of shared memory in any tile it chooses; pass tile= (and warps=, "
        "threads=) to choose one")


def _operands(m, n, k, seed=3):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (m, k)).astype(np.float32)
    b = rng.integers(-3, 4, (k, n)).astype(np.float32)
    return a, b, a @ b


@pytest.mark.parametrize("k", [1, 8, 16, 17])
def test_matmul_split_k_default_slices_fit_k(k):
    """split-K's 2 default slices need 2 k-steps: with fewer, as many slices
    as there are steps."""
    a, b, ref = _operands(5, 40, k)
    w = ext.matmul(5, 40, k, decomposition="split_k")
    np.testing.assert_array_equal(w.run(a, b), ref)


@pytest.mark.parametrize("k,tile", [(16, (32, 32, 16)), (8, None), (12, (32, 32, 16))])
def test_matmul_stages_with_one_k_step(k, tile):
    """stages = 2 pipelines a k-loop: with one k-step (the k tile covers K)
    there is nothing to pipeline and it builds with 1."""
    a, b, ref = _operands(7, 40, k)
    w = ext.matmul(7, 40, k, tile=tile, stages=2, cache=(0, 1))
    np.testing.assert_array_equal(w.run(a, b), ref)


def test_conv2d_without_output_is_refused_at_the_call():
    with pytest.raises(ValueError) as refused:
        ext.conv2d(1, 2, 2, 2, 4, padding=0)
    assert str(refused.value) == (
        f"{__file__}:{refused.tb.tb_lineno}: ext.conv2d: a 3 x 3 kernel over 2 x 2 with "
        "padding 0 has no output (0 x 0)")
