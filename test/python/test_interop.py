"""linalg and transform scripts from Python: Module.run_pipeline with an
anchored pipeline runs on the module (it used to nest into inner modules
and silently run nothing), and a module holding linalg and its transform
script compiles and runs through ext's pipelines."""

import os

import numpy as np
import pytest

import ext

ROOT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
MATMUL = os.path.join(ROOT, "examples", "linalg", "matmul.mlir")
SOFTMAX = os.path.join(ROOT, "examples", "linalg", "softmax.mlir")

FOLDABLE = """func.func @f() -> f32 {
  %a = arith.constant 1.0 : f32
  %b = arith.addf %a, %a : f32
  return %b : f32
}"""


@pytest.mark.parametrize("pipeline", ["canonicalize", "builtin.module(canonicalize)",
                                      "  builtin.module(func.func(canonicalize))"])
def test_pipeline_runs_on_the_module(pipeline):
    m = ext.Module.parse(FOLDABLE)
    m.run_pipeline(pipeline)
    assert "arith.addf" not in m.to_string()


def test_bad_anchored_pipeline_is_an_error():
    m = ext.Module.parse(FOLDABLE)
    with pytest.raises(ValueError, match="bad pipeline"):
        m.run_pipeline("builtin.module(no-such-pass)")


def test_from_linalg_in_python():
    m = ext.Module.parse(open(SOFTMAX).read())
    m.run_pipeline("builtin.module(ext-from-linalg)")
    names = [c["name"] for c in m.computes() if c["function"] == "softmax"]
    assert names == ["generic_0", "generic_1", "generic_2", "generic_3"]
    assert "linalg.softmax" not in m.to_string()


def test_script_schedules_the_linalg_matmul():
    text = open(MATMUL).read()
    for target, chip in (("nvvm", "sm_90"), ("rocdl", "gfx942")):
        out = ext.Module.parse(text).compile(target, chip=chip)
        assert list(out["binaries"]) == ["matmul_kernel"]
    rng = np.random.default_rng(0)
    a = rng.standard_normal((200, 100), dtype=np.float32)
    b = rng.standard_normal((100, 130), dtype=np.float32)
    c = np.full((200, 130), 7.0, np.float32)  # overwritten: the fill is the sum's identity
    ext.Module.parse(text).run_cpu("matmul", [a, b, c])
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
