"""`pip install .`: ext's Python package, built with CMake against the
installed LLVM/MLIR 22 (Debian's /usr/lib/llvm-22), no network needed.

    python3 -m venv --system-site-packages /tmp/venv   # numpy from Debian
    /tmp/venv/bin/pip install .     # no network; pips newer than Debian 12's: --no-build-isolation

There is no pyproject.toml on purpose: with one, pip builds in an isolated
environment and downloads setuptools, which an offline machine cannot.

The extension module `ext._ext` links ext's shared libraries, which are
installed beside it in `ext/_lib` (they find each other through $ORIGIN),
and libMLIR.so from the system: one copy of MLIR per process.

EXT_BUILD_DIR names a configured build tree to reuse (default: ./build when
it is configured, else ./build-pip is configured with scripts/build.sh).
"""

import glob
import os
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


def _build_dir():
    given = os.environ.get("EXT_BUILD_DIR")
    if given:
        return os.path.abspath(given)
    default = os.path.join(ROOT, "build")
    if os.path.exists(os.path.join(default, "CMakeCache.txt")):
        return default
    return os.path.join(ROOT, "build-pip")


class BuildWithCMake(build_py):
    """Builds `_ext` with CMake, then adds it and ext's libraries to the
    package."""

    def run(self):
        super().run()
        build = _build_dir()
        env = dict(os.environ, EXT_BUILD_DIR=build)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        subprocess.check_call(["bash", os.path.join(ROOT, "scripts", "build.sh"),
                               "-j", jobs, "--target", "_ext"], env=env)
        package = os.path.join(self.build_lib, "ext")
        libdir = os.path.join(package, "_lib")
        os.makedirs(libdir, exist_ok=True)
        modules = glob.glob(os.path.join(build, "python_packages", "ext", "_ext*.so"))
        if not modules:
            raise RuntimeError(f"the build in {build} made no ext/_ext*.so (are "
                               "python3-dev and pybind11-dev installed?)")
        for m in modules:
            shutil.copy(m, package)
        # The files the loader asks for: libExtFoo.so.22.1 (the soname), not
        # the libExtFoo.so link beside it (a wheel would hold a second copy).
        for lib in (glob.glob(os.path.join(build, "lib", "libExt*.so*"))
                    + glob.glob(os.path.join(build, "lib", "libext_*.so*"))):
            if os.path.islink(lib):
                continue
            shutil.copy(lib, os.path.join(libdir, os.path.basename(lib)))


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


os.makedirs(os.path.join(ROOT, "build-python"), exist_ok=True)
setup(
    name="ext",
    version="0.1.0",
    description="TVM-style scheduling for MLIR: TE computes, schedules, PTX/HSACO, CPU emulation",
    packages=["ext"],
    package_dir={"ext": "python/ext"},
    python_requires=">=3.9",
    install_requires=[],  # numpy: Debian's python3-numpy (a --system-site-packages venv)
    cmdclass={"build_py": BuildWithCMake},
    distclass=BinaryDistribution,
    zip_safe=False,
    # setuptools' own scratch space, apart from CMake's build/.
    options={"build": {"build_base": "build-python"},
             "egg_info": {"egg_base": "build-python"}},
)
