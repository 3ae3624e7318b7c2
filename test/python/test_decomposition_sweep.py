"""Every example's schedule under every tile decomposition and many grids,
racecheck on, against its unscheduled reference (scripts/decomposition_sweep.py):
each variant must be right or refused by the compiler with a message, never
a wrong number, a race or a hang. Issue 59: the fused softmax under
stream_k<grid = 5> (a CTA running several rows through one shared copy of
X) printed a wrong result and exited 0; conv2d_padded raced the same way."""

import importlib.util
import os

import pytest

import ext

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The build whose python_packages this ext comes from (as test_demo.py).
BUILD = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(ext.__file__))))


def _sweep():
    spec = importlib.util.spec_from_file_location(
        "decomposition_sweep", os.path.join(ROOT, "scripts", "decomposition_sweep.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_example_under_every_decomposition(capsys):
    if not os.path.exists(os.path.join(BUILD, "bin", "ext-run")):
        pytest.skip(f"no ext tools in {BUILD}/bin")
    rc = _sweep().main(["--build", BUILD, "--python"])
    out = capsys.readouterr().out
    with capsys.disabled():
        print("\n" + out.strip().splitlines()[-1])
    assert rc == 0, out
    # Each schedule runs somewhere: data-parallel takes every example.
    for line in out.splitlines():
        if " tiles: " in line:
            assert " 0 right" not in line, out
    assert "0 wrong" in out.splitlines()[-1], out
