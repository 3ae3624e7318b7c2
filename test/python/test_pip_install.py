"""`pip install .` into a fresh virtual environment, with no network, then
`import ext` outside the source tree. Reuses the build tree the tests run
from, so only the packaging is exercised (seconds, not a rebuild)."""

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

import pytest

import ext

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _build_dir():
    package = os.path.dirname(os.path.abspath(ext.__file__))
    build = os.path.dirname(os.path.dirname(package))
    return build if os.path.exists(os.path.join(build, "CMakeCache.txt")) else None


def test_pip_install_into_venv():
    build = _build_dir()
    if build is None:
        pytest.skip("ext is not imported from a CMake build tree")
    try:
        import ensurepip  # noqa: F401
        import venv  # noqa: F401
    except ImportError:
        pytest.skip("python3-venv is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        env_dir = os.path.join(tmp, "venv")
        r = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", env_dir],
                           capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip("cannot make a virtual environment: " + r.stderr[-300:])
        python = os.path.join(env_dir, "bin", "python")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env.update(EXT_BUILD_DIR=build, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
                   CMAKE_BUILD_PARALLEL_LEVEL=os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2"))
        r = subprocess.run([python, "-m", "pip", "install", "--no-build-isolation", "-q", ROOT],
                           capture_output=True, text=True, env=env, timeout=900)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        check = textwrap.dedent("""
            import os, numpy as np, ext
            print(ext.__file__)
            X = ext.placeholder((5,), "float32", name="X")
            Y = ext.compute((5,), lambda i: X[i] * 3.0, name="Y")
            x = np.arange(5, dtype=np.float32)
            assert (ext.build(ext.schedule(Y)).run(x) == x * 3).all()
            libs = os.listdir(os.path.join(os.path.dirname(ext.__file__), "_lib"))
            assert any(l.startswith("libExtCpuEmulationRuntime") for l in libs), libs
            print("installed ext works")
        """)
        r = subprocess.run([python, "-c", check], capture_output=True, text=True, env=env,
                           cwd=tmp, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        assert r.stdout.splitlines()[0].startswith(env_dir)
        assert "installed ext works" in r.stdout
        shutil.rmtree(os.path.join(ROOT, "build-python"), ignore_errors=True)
