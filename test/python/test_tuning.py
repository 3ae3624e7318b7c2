"""ext.tune: the search space, the cost model, legality, checks on the
emulator, the database, executors (a Dask LocalCluster), the report.
The whole matrix (four workloads on three chips, timed) is
bench/tuning/run.py; these run the cheaper corners of it."""

import math
import os
import re

import numpy as np
import pytest

import ext
from ext import cost_model, tuning, tuning_space

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "tuning.json")


def test_chip_model():
    h = ext.chip_info("sm_90")
    assert h["multiprocessors"] == 132 and h["warp_size"] == 32 and h["product"] == "H200 SXM"
    assert math.isclose(h["tensor_f16_tflops"], 989.4)
    assert not h["has_warpgroup_mma"] and ext.chip_info("sm_90a")["has_warpgroup_mma"]
    m = ext.chip_info("gfx942")
    assert m["warp_size"] == 64 and m["has_mfma"] and m["multiprocessors"] == 304
    with pytest.raises(ValueError, match="neither sm_NN"):
        ext.chip_info("k80")


def test_bank_cost_is_the_analysis_rule():
    # 32 lanes reading consecutive words: one wavefront; a stride of 32
    # words puts every lane in bank 0: a 32-way conflict.
    assert ext.bank_cost([4 * l for l in range(32)], 4, "sm_80")["degree"] == 1
    assert ext.bank_cost([128 * l for l in range(32)], 4, "sm_80")["degree"] == 32
    with pytest.raises(ValueError, match="64 lane addresses"):
        ext.bank_cost([0] * 32, 4, "gfx942")


def test_space_is_pruned_by_the_chip():
    problem = tuning_space.problem_of(ext.matmul(4096, 4096, 4096, dtype="float16").output)
    assert problem.family == "gemm"
    info = ext.chip_info("sm_80")
    fitting, pruned = ext.search_space(ext.matmul(4096, 4096, 4096, dtype="float16"), "sm_80")
    assert len(fitting) > 1000
    assert any("shared memory" in why for why in pruned)
    assert any("registers" in why for why in pruned)
    for c in fitting[:2000:37]:
        assert tuning_space.shared_bytes(problem, c) <= info["max_shared_bytes_per_block"]
        assert math.prod(c.threads) <= 1024
    # Only the chip's instructions: mma.sync on sm_80, wgmma on sm_90a
    # too, MFMA on gfx942; never another vendor's.
    mmas = {c.mma for c in fitting}
    assert "m16n8k16" in mmas and not any(m and ("mfma" in m or "wgmma" in m) for m in mmas)
    amd, _ = ext.search_space(ext.matmul(4096, 4096, 4096, dtype="float16"), "gfx942")
    assert {c.mma for c in amd} >= {"mfma_32x32x8", "mfma_16x16x16"}
    hopper, _ = ext.search_space(ext.matmul(4096, 4096, 4096, dtype="float16"), "sm_90a")
    assert "wgmma_k16" in {c.mma for c in hopper}


def test_families():
    assert tuning_space.problem_of(ext.softmax(64, 1000).output).family == "rowwise"
    p = tuning_space.problem_of(ext.conv2d(1, 8, 18, 18, 16).output)
    assert p.family == "contraction" and [t.op.name for t in p.inline] == ["X_pad"]
    assert tuning_space.problem_of(ext.row_reduce(64, 100, "max").output).family == "reduction"
    s = tuning_space.problem_of(ext.softmax(64, 1000).output)
    assert [t.op.name for t, _ in s.compute_at] == ["row_max", "row_sum"]
    assert [t.op.name for t in s.inline] == ["e"]


def test_model_pick_beats_the_hand_written_example():
    # The must-show: gemm_f32 at 4096^3 on sm_90, the model's best against
    # examples/kernels/gemm_f32.mlir's schedule, both by the model.
    w = ext.matmul(4096, 4096, 4096)
    text = open(os.path.join(ROOT, "examples/kernels/gemm_f32.mlir")).read()
    example = tuning_space.candidate_of(tuning_space.problem_of(w.output),
                                        text[text.index("#ext.schedule<"):])
    assert example.tile == (128, 128, 8) and example.thread_tile == (4, 4)
    assert example.stages == 3 and example.swizzle == 2
    hand = ext.predict(w, example, "sm_90")
    fitting, _ = ext.search_space(w, "sm_90")
    assert example in fitting  # the space holds the example
    seconds = np.array([ext.predict(w, c, "sm_90").seconds for c in fitting])
    best = seconds.min()
    # A known-good schedule: the model puts the hand-tuned example in the
    # top 5% of the space, within 1.1x of its pick.
    assert np.mean(seconds < hand.seconds) < 0.05 and hand.seconds <= 1.1 * best
    # Known-bad ones: 16x16 tiles, one output per thread (cyclic), read 8x
    # the bytes per multiply-add from L2 and 4x from shared memory (2 words,
    # not 8 per 16): at least 3x the example's time.
    bad = seconds[[c.tile[:2] == (16, 16) and c.thread_tile is None for c in fitting]]
    assert len(bad) and bad.min() > 3 * hand.seconds
    # Over the whole space, the model's times rank like the bytes a tile
    # reads through L2 per multiply-add, 4 (1/BM + 1/BN), a big GEMM's
    # first-order cost, computed here from the tile alone (a model with
    # random times: a correlation near 0).
    l2_bytes = np.array([4 * (1 / c.tile[0] + 1 / c.tile[1]) for c in fitting])
    assert _spearman(seconds, l2_bytes) > 0.6
    print(f"model: example {hand.line()}\n       best {best * 1e6:.1f} us")


def _spearman(x, y):
    """Spearman's rank correlation, ties at their average rank."""
    def ranks(v):
        _, inverse, counts = np.unique(v, return_inverse=True, return_counts=True)
        return (np.cumsum(counts) - (counts + 1) / 2)[inverse]
    return float(np.corrcoef(ranks(x), ranks(y))[0, 1])


@pytest.mark.parametrize("make,chip,family", [
    (lambda: ext.matmul(4096, 4096, 4096), "sm_80", "gemm"),
    (lambda: ext.matmul(4096, 4096, 4096, dtype="float16"), "sm_90a", "gemm"),
    (lambda: ext.softmax(4096, 4096), "gfx942", "rowwise"),
    (lambda: ext.conv2d(8, 64, 56, 56, 64), "sm_90a", "contraction"),
])
def test_tune_returns_the_models_best_legal_checked_schedule(make, chip, family, db):
    w = ext.tune(make(), chip=chip, database=db, trials=2)
    rep = w.tuning
    assert isinstance(w, ext.Workload) and rep.chip == chip and family in rep.problem
    assert rep.legal >= 100
    # The pick is the model's best legal candidate that passed its check:
    # everything ranked above it failed a check.
    i = rep.ranking.index(rep.best)
    assert all(r.status == "failed" for r in rep.ranking[:i])
    assert rep.best.prediction.seconds <= min(r.prediction.seconds for r in rep.ranking[i:])
    check = rep.best.check
    assert check["ok"] and check["checked"], check
    if chip.startswith("sm"):
        assert check["entries"] == 1
        if check["ptxas"]["ptxas"]:
            assert check["ptxas"]["ok"] and check["ptxas"]["spill_bytes"] == 0
    else:
        assert check["hsaco_bytes"] > 0
    # The schedule builds for the chip and runs right (at a size the
    # emulator takes in a moment): about one and a half tiles along each
    # spatial axis (a full tile and an edge one), two steps of each reduce
    # axis, on the emulator as the chip (its lanes, its MMA), against numpy.
    c = rep.best.candidate
    sizes = {}
    for (name, kind, extent), t in zip(tuning_space.problem_of(w.output).axes, c.tile):
        sizes[name] = min(extent, t + t // 2 + 1 if kind == "spatial" else 2 * t)
    small = w.resized(sizes)
    s = tuning_space.schedule_of(tuning_space.problem_of(small.output), c)
    target = "nvvm" if chip.startswith("sm") else "rocdl"
    assert ext.build(s, target, chip=chip, args=small.inputs)
    rng = np.random.default_rng(0)
    arrays = [(rng.standard_normal(t.shape) if family == "rowwise" else
               rng.integers(-3, 4, t.shape)).astype(np.float16 if t.dtype == "f16" else np.float32)
              for t in small.inputs]
    out = ext.build(s, "cpu", chip=chip, args=small.inputs).run(*arrays)
    np.testing.assert_allclose(out, _numpy_reference(family, arrays), rtol=1e-5, atol=1e-7)
    print(rep.report(5))


def _numpy_reference(family, arrays):
    """The workloads of the test above, in numpy (float64)."""
    x = [a.astype(np.float64) for a in arrays]
    if family == "gemm":
        return x[0] @ x[1]
    if family == "rowwise":
        e = np.exp(x[0] - x[0].max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    # conv2d, padding 1: sum over (c, ry, rx) of Xp[n, c, y + ry, x + rx] W[f, c, ry, rx]
    xp = np.pad(x[0], ((0, 0), (0, 0), (1, 1), (1, 1)))
    windows = np.lib.stride_tricks.sliding_window_view(xp, x[1].shape[2:], axis=(2, 3))
    return np.einsum("ncyxij,fcij->nfyx", windows, x[1])


def test_second_call_comes_from_the_database(db, monkeypatch):
    w = ext.matmul(512, 512, 512)
    first = ext.tune(w, chip="sm_80", database=db, min_legal=20, trials=1)
    assert not first.tuning.from_database

    def no_compiling(*args, **kwargs):
        raise AssertionError("compiled although the database has the answer")
    monkeypatch.setattr(tuning, "_legalize", no_compiling)
    monkeypatch.setattr(tuning, "_check", no_compiling)
    second = ext.tune(ext.matmul(512, 512, 512), chip="sm_80", database=db)
    assert second.tuning.from_database
    assert second.tuning.best.candidate == first.tuning.best.candidate
    assert second._schedule.text() == first._schedule.text()
    # Another chip, dtype or shape is another key.
    with pytest.raises(AssertionError, match="compiled although"):
        ext.tune(ext.matmul(512, 512, 256), chip="sm_80", database=db)
    # ext.schedule(C, tuned=True) reads the default database.
    monkeypatch.setenv("EXT_TUNING_DB", db)
    s = ext.schedule(ext.matmul(512, 512, 512).output, tuned=True, chip="sm_80")
    assert s.text() == first._schedule.text()
    with pytest.raises(ValueError, match="tuned=True finds the whole schedule"):
        ext.schedule(w.output, tuned=True, tile=(64, 64, 8))


def test_dask_local_cluster_gives_the_same_ranking(db):
    distributed = pytest.importorskip("distributed")
    w = ext.matmul(1000, 700, 300)
    local = ext.tune(w, chip="sm_80", database=False, min_legal=100, trials=1, plot=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = ext.tune(w, chip="sm_80", database=False, min_legal=100, trials=1,
                          executor=client.get_executor(), plot=False)
    key = [(r.candidate, r.status, round(r.prediction.seconds, 12)) for r in local.tuning.ranking]
    assert key == [(r.candidate, r.status, round(r.prediction.seconds, 12))
                   for r in remote.tuning.ranking]
    assert len(key) >= 100


def test_progress_bar_and_plot(db, capsys):
    pytest.importorskip("matplotlib")
    s = ext.tune(ext.softmax(256, 1000).output, chip="sm_80", database=db, progress=True,
                 min_legal=30, trials=1)
    err = capsys.readouterr().err
    assert "verify" in err and "check" in err and "#" in err
    assert s.tuning.plot and os.path.getsize(s.tuning.plot) > 1000
    assert os.path.dirname(s.tuning.plot) == os.path.dirname(db)
    # A plain compute's schedule runs right.
    x = np.random.default_rng(1).standard_normal((256, 1000)).astype(np.float32)
    ref = np.exp(x - x.max(1, keepdims=True))
    ref /= ref.sum(1, keepdims=True)
    np.testing.assert_allclose(ext.build(s).run(x), ref, rtol=1e-5, atol=1e-7)


def test_refusals(db):
    A = ext.placeholder((64, 64), "float32", name="A")
    with pytest.raises(ValueError, match="is a placeholder"):
        ext.tune(A, chip="sm_80", database=db)
    with pytest.raises(ValueError, match="neither sm_NN"):
        ext.tune(ext.matmul(64, 64, 64), chip="v100", database=db)
    with pytest.raises(TypeError, match="takes a compute's tensor"):
        ext.tune("C", chip="sm_80", database=db)
    M = ext.var("M")
    X = ext.placeholder((M, 64), "float32", name="X")
    k = ext.reduce_axis(64, name="k")
    Y = ext.compute((M,), lambda i: ext.sum(X[i, k], axis=k), name="Y")
    with pytest.raises(ValueError, match="symbolic"):
        ext.tune(Y, chip="sm_80", database=db)
    with pytest.raises(TypeError, match="database= takes"):
        ext.tune(ext.matmul(64, 64, 64), chip="sm_80", database=3)


def test_cost_model_is_a_function_printed_per_candidate():
    w = ext.matmul(2048, 2048, 2048, dtype="float16")
    p = tuning_space.problem_of(w.output)
    info = ext.chip_info("sm_80")
    big = tuning_space.Candidate((128, 128, 32), (4, 32, 1), ("i", "j"), None, 8, 3,
                                 "m16n8k16", (2, 2), ((0, ""), (1, "")))
    small = tuning_space.Candidate((32, 32, 32), (4, 32, 1), ("i", "j"), None, 8, 3,
                                   "m16n8k16", (2, 2), ((0, ""), (1, "")))
    a, b = cost_model.predict(p, big, info), cost_model.predict(p, small, info)
    # Larger tiles move fewer bytes per multiply-add through L2.
    assert a.units["l2"] / (128 * 128) < b.units["l2"] / (32 * 32)
    # A 4-way bank conflict costs shared-memory clocks.
    c = cost_model.predict(p, big, info, bank_factor=4.0)
    assert c.units["shared"] > a.units["shared"]
    assert re.search(r"TFLOP/s .*occ=\d+ waves=", a.line())
    # The L2 bandwidth is a stated parameter.
    slow = dict(info, l2_bytes_per_second=info["l2_bytes_per_second"] / 10)
    assert cost_model.predict(p, small, slow).seconds > b.seconds


def test_mlir_computes_tune_like_te_ones(db):
    # The same candidate as #ext.schedule text for a compute written in
    # MLIR and as an ext.Schedule of the TE graph: one attribute.
    w = ext.softmax(64, 1000)
    te_problem = tuning_space.problem_of(w.output)
    text = str(w.module())
    m = ext.Module.parse(text)
    subject = tuning._MlirSubject(m, "kernel", 3)
    assert subject.problem.family == "rowwise"
    assert [t.op.name for t, _ in subject.problem.compute_at] == ["row_max", "row_sum"]
    fitting, _ = ext.search_space(w, "sm_80")
    for c in fitting[::40]:
        te_text = tuning_space.schedule_of(te_problem, c).text()
        mlir_text = [d for d in subject.scheduled(c).computes() if d["index"] == 3][0]["schedule"]
        assert " ".join(te_text.split()) == mlir_text
    g = ext.matmul(300, 200, 100, dtype="float16")
    gm = ext.Module.parse(str(g.module()))
    gs = tuning._MlirSubject(gm, "kernel", 0)
    assert gs.problem.family == "gemm" and gs.problem.gemm == \
        tuning_space.problem_of(g.output).gemm
    for c in ext.search_space(g, "sm_90a")[0][::500]:
        te_text = tuning_space.schedule_of(tuning_space.problem_of(g.output), c).text()
        assert " ".join(te_text.split()) == gs.scheduled(c).computes()[0]["schedule"]


def test_tune_module_checks_at_a_reduced_size_and_runs_right(db):
    text = open(os.path.join(ROOT, "test/Tools/Inputs/tune-computes.mlir")).read()
    tuned, results = ext.tune_module(text, chip="gfx942", database=db, min_legal=30, trials=1)
    reports = {f: r for f, _, r in results}
    for f in ("gemm", "softmax"):
        check = reports[f].best.check
        assert check["ok"] and check["checked"], (f, check)
    # Run the tuned softmax (kernels on the emulator, gfx942's waves).
    x = np.random.default_rng(3).standard_normal((300, 1000)).astype(np.float32)
    y = np.zeros_like(x)
    tuned.executable("softmax", "cpu", 2, "gfx942")([x, y])
    ref = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, ref / ref.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)
    # The second run comes from the database.
    again, results = ext.tune_module(text, chip="gfx942", database=db)
    assert all(r.from_database for _, _, r in results)
    assert str(again) == str(tuned)
    with pytest.raises(ValueError, match="has no compute 'nope'"):
        ext.tune_module(text, chip="gfx942", function="gemm", compute="nope", database=db)
