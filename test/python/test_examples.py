"""The scripts in examples/python run and check themselves against numpy."""

import os
import subprocess
import sys

import pytest

import ext

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples", "python")


def _has_onnx() -> bool:
    try:
        import onnx  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("script,expected", [
    ("gemm.py", [".target sm_90", "shared memory:", "gemm matches numpy"]),
    ("softmax.py", ["kernel entries in the PTX: 1", "softmax matches numpy"]),
    ("layernorm.py", ["kernel entries in the PTX: 1", "layernorm matches numpy"]),
    ("argmax.py", ["argmax matches numpy"]),
    ("attention.py", ["kernel entries in the PTX: 1",
                      "attention matches numpy; ext.attention gives the same numbers"]),
    ("conv2d.py", ["conv2d matches numpy"]),
    ("gemm_bias_relu.py", ["kernels: 1 (unfused: 2), intermediates in memory: []",
                           "gemm + bias + relu matches numpy"]),
    pytest.param("onnx_mlp.py", ["kernels: 2, max error:", "onnx mlp matches numpy"],
                 marks=pytest.mark.skipif(not _has_onnx(), reason="needs the onnx package"))])
def test_example(script, expected):
    env = dict(os.environ)
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(ext.__file__)))
    env["PYTHONPATH"] = package_parent + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, script)], capture_output=True,
                       text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    for text in expected:
        assert text in r.stdout, r.stdout


def test_help_and_docstrings():
    """help(ext) works and every public function has a docstring with an
    example (a line starting with >>>)."""
    import pydoc
    assert "placeholder" in pydoc.render_doc(ext)
    missing = []
    for name in ext.__all__:
        obj = getattr(ext, name)
        if callable(obj) and not isinstance(obj, type) or name in ("schedule", "build"):
            doc = getattr(obj, "__doc__", None) or ""
            if ">>>" not in doc:
                missing.append(name)
    for cls in (ext.Kernel, ext.Workload, ext.Schedule, ext.Expr):
        for name, member in vars(cls).items():
            if name.startswith("_") or not (callable(member) or isinstance(member, property)):
                continue
            if ">>>" not in (member.__doc__ or ""):
                missing.append(f"{cls.__name__}.{name}")
    assert not missing, f"no example in the docstring of {missing}"
