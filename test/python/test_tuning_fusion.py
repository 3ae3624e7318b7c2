"""ext.tune of a GEMM's epilogue, as a user calls it: D = relu(C + bias)
over an f16 GEMM C is tuned as C with D fused (reverse_compute_at), so the
candidates are the GEMM's tensor-core ones and the result is one kernel;
the same through the database, `tuned=True` and MLIR (`ext.tune_module`,
`ext-tune`)."""

import numpy as np
import pytest

import ext
from ext import tuning_cli, tuning_db, tuning_space
from test_fusion import gemm_bias_relu as _gemm_bias_relu

M, N, K = 256, 256, 128


def gemm_bias_relu(m=M, n=N, k=K):
    """A, B, bias, C (an f16 GEMM, f32 sums), D = f16(relu(C + bias))."""
    return _gemm_bias_relu(m, n, k, "float16", "float16")


def inputs(m=M, n=N, k=K, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)
    b = rng.integers(-3, 4, (k, n)).astype(np.float16)
    t = rng.integers(-3, 4, (n,)).astype(np.float32)
    ref = np.maximum(a.astype(np.float32) @ b.astype(np.float32) + t, 0).astype(np.float16)
    return a, b, t, ref


def test_an_epilogue_is_its_gemms_problem():
    A, B, bias, C, D = gemm_bias_relu()
    p = tuning_space.problem_of(D)
    assert p.family == "gemm" and p.op is C.op and p.in_dtype == "f16"
    assert [(t.op.name, axis) for t, axis in p.epilogue] == [("D", "j")]
    assert "epilogue D@j" in p.describe()
    assert tuning_space.problem_of(C).epilogue == []
    # Its own key: ext.tune(C) and ext.tune(D) are different kernels.
    assert tuning_db.problem_key(p, "sm_80") != \
        tuning_db.problem_key(tuning_space.problem_of(C), "sm_80")
    # No candidate stages the accumulators the epilogue runs on.
    fitting, _ = ext.search_space(D, "sm_80")
    assert fitting and not any(o >= len(p.operands) for c in fitting for o, _ in c.cache)
    # sm_90a's warpgroup MMAs take the epilogue too: one kernel, right.
    hopper, _ = ext.search_space(D, "sm_90a")
    wgmma = next(c for c in hopper if c.mma == "wgmma_k16")
    gpu = ext.build(tuning_space.schedule_of(p, wgmma), "nvvm", chip="sm_90a")
    assert gpu.ptx.count(".entry") == 1 and "wgmma.mma_async" in gpu.ptx
    a, b, t, ref = inputs()
    np.testing.assert_array_equal(gpu.run(a, b, t), ref)
    # Consumers that are no epilogue: a transposed read, another extent.
    Dt = ext.compute((N, M), lambda j, i: C[i, j] + bias[j], name="Dt")
    assert tuning_space.problem_of(Dt).epilogue == []
    Dh = ext.compute((M // 2, N), lambda i, j: C[2 * i, j], name="Dh")
    assert tuning_space.problem_of(Dh).epilogue == []


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_tune_of_gemm_bias_relu_picks_a_tensor_core_gemm_with_it_fused(chip, tmp_path,
                                                                        monkeypatch):
    db = str(tmp_path / "tuning.json")
    A, B, bias, C, D = gemm_bias_relu()
    s = ext.tune(D, chip=chip, database=db, min_legal=30, trials=1, plot=False)
    rep = s.tuning
    text = rep.report(3)
    print(text)
    assert "tuned 'C' (f16 GEMM) with 'D' fused as its epilogue" in text
    assert rep.problem.startswith("gemm 'C'")
    assert s.op is C.op and [t.op for t in s.attached] == [D.op]
    mma = rep.best.candidate.mma
    assert mma in ("m16n8k16", "wgmma_k16")
    assert "reverse_compute_at" in s.text() and "mma = #ext.mma" in s.text()
    assert rep.best.check["ok"] and rep.best.check["entries"] == 1
    # One kernel with tensor-core instructions; C never reaches memory.
    gpu = ext.build(s, "nvvm", chip=chip)
    instruction = {"m16n8k16": "mma.sync.aligned.m16n8k16", "wgmma_k16": "wgmma.mma_async"}[mma]
    assert gpu.ptx.count(".entry") == 1 and instruction in gpu.ptx
    assert gpu.intermediates == []
    # It runs right on ext's emulator, at the tuned size.
    a, b, t, ref = inputs()
    np.testing.assert_array_equal(gpu.run(a, b, t), ref)
    # The second call and tuned=True come from the database.
    again = ext.tune(gemm_bias_relu()[4], chip=chip, database=db)
    assert again.tuning.from_database and again.tuning.best.candidate == rep.best.candidate
    assert "fused as its epilogue" in again.tuning.report()
    monkeypatch.setenv("EXT_TUNING_DB", db)
    *_, D2 = gemm_bias_relu()
    tuned = ext.schedule(D2, tuned=True, chip=chip)
    assert tuned.text() == s.text() and tuned.tuning.from_database


def test_a_small_epilogue_is_checked_on_the_emulator(tmp_path):
    # Small enough for the check to run the fused kernel against the
    # computes without a schedule.
    *_, D = gemm_bias_relu(64, 96, 64)
    s = ext.tune(D, chip="sm_80", database=False, min_legal=20, trials=1, plot=False)
    check = s.tuning.best.check
    assert check["ok"] and check["checked"], check
    assert s.tuning.best.candidate.mma == "m16n8k16"


LINALG = """
#bias = affine_map<(i, j) -> (j)>
#id = affine_map<(i, j) -> (i, j)>
func.func @gemm_bias_relu(%A: memref<128x64xf16>, %B: memref<64x128xf16>, %bias: memref<128xf32>,
                          %C: memref<128x128xf32>, %D: memref<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<128x128xf32>)
  linalg.matmul ins(%A, %B : memref<128x64xf16>, memref<64x128xf16>)
                outs(%C : memref<128x128xf32>)
  linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%C, %bias : memref<128x128xf32>, memref<128xf32>) outs(%D : memref<128x128xf32>) {
  ^bb0(%c: f32, %b: f32, %out: f32):
    %s = arith.addf %c, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}
"""


def test_tune_module_fuses_the_epilogue_of_computes_written_in_mlir():
    from ext.build import lower
    *_, D = gemm_bias_relu(128, 128, 64)
    text = str(ext.Module.build(None, lower(D, "kernel")[0]))
    tuned, results = ext.tune_module(text, chip="sm_80", database=False, min_legal=20,
                                     trials=1, plot=False)
    (function, index, rep), = results
    assert function == "kernel" and "fused as its epilogue" in rep.report()
    schedules = {d["name"]: d["schedule"] for d in tuned.computes()}
    assert schedules["D"] is None
    assert '#ext.at<"D", "j">' in schedules["C"] and "m16n8k16" in schedules["C"]
    assert rep.best.check["ok"] and rep.best.check["checked"], rep.best.check


def test_ext_tune_of_linalg_matmul_and_bias_relu(tmp_path, capsys):
    # A linalg file as a front end hands it over: imported (ext-from-linalg),
    # the matmul tuned with the generic as its epilogue, checked.
    path = tmp_path / "gemm_bias_relu.mlir"
    path.write_text(LINALG)
    out = tmp_path / "tuned.mlir"
    assert tuning_cli.main([str(path), "--chip=sm_80", "--no-database", "--min-legal=20",
                            "--trials=1", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "tuned 'matmul_0' (f16 GEMM) with 'generic_1' fused as its epilogue" in err, err
    tuned = ext.Module.parse(out.read_text())
    schedules = {d["name"]: d["schedule"] for d in tuned.computes()}
    assert '#ext.at<"generic_1", "d1">' in schedules["matmul_0"]
    assert "mma = #ext.mma<m16n8k16>" in schedules["matmul_0"]
    assert schedules["generic_1"] is None
    # One kernel, right on the emulator against numpy.
    a, b, t, ref = inputs(128, 128, 64)
    c = np.zeros((128, 128), np.float32)
    d = np.zeros((128, 128), np.float32)
    tuned.executable("gemm_bias_relu", "cpu", 2, "sm_80")([a, b, t, c, d])
    np.testing.assert_array_equal(d, ref.astype(np.float32))
    compiled = tuned.compile("nvvm", "sm_80", "", 2, False)
    ptx = b"".join(compiled["binaries"].values()).decode()
    assert ptx.count(".entry") == 1 and "mma.sync.aligned.m16n8k16" in ptx
