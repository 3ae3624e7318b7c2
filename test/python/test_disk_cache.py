"""ext.build's disk cache (issue 52): a kernel one process compiled, the
next loads (no compile, the same PTX, its remarks again, right results);
processes filling one folder at once; a corrupt entry is compiled again; a
change of chip, options or compiler misses; the switches that turn it off.
The suite runs with it off (conftest.py); these tests turn it on in folders
of their own."""

import json
import os
import subprocess
import sys
import warnings
import zlib

import numpy as np
import pytest

import ext
from ext import disk_cache

# A GEMM with three remarks (copies narrower than vector=4), built for
# sm_90 (or argv[1]) and run on the emulator; with EXT_TEST_GO set, it
# builds once that file exists (processes started together build at once).
JOB = r"""
import json, os, sys, time, warnings
import numpy as np
import ext
M, N, K = 62, 66, 30
w = ext.matmul(M, N, K, tile=(32, 32, 8), threads=(8, 8, 1), cache=(0, 1), vector=4)
go = os.environ.get("EXT_TEST_GO")
while go and not os.path.exists(go):
    time.sleep(0.01)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    kernel = ext.build(w, "nvvm", chip=sys.argv[1])
rng = np.random.default_rng(0)
a, b = rng.random((M, K), np.float32), rng.random((K, N), np.float32)
print(json.dumps({"info": ext.cache_info(), "ptx": kernel.ptx,
                  "error": float(np.abs(kernel.run(a, b) - a @ b).max()),
                  "remarks": sorted(str(r.message) for r in caught
                                    if issubclass(r.category, ext.ExtRemark)),
                  "stages": [kernel.mlir(s) for s in kernel.stages],
                  "shared": kernel.shared_memory_bytes}))
"""


def job_env(folder, **more):
    env = {k: v for k, v in os.environ.items() if k != "EXT_DISABLE_DISK_CACHE"}
    env.update(EXT_CACHE_DIR=str(folder), **more)
    return env


def start(folder, chip="sm_90", **more):
    return subprocess.Popen([sys.executable, "-c", JOB, chip], env=job_env(folder, **more),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def result(process):
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err
    return json.loads(out)


def entries(folder):
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def test_a_second_process_loads_instead_of_compiling(tmp_path):
    folder = tmp_path / "kernels"
    first = result(start(folder))
    assert first["info"]["compiles"] == 1 and first["info"]["disk_hits"] == 0
    assert len(first["remarks"]) == 3 and first["error"] < 1e-4
    [entry] = entries(folder)
    assert entry.endswith(".kernel")
    second = result(start(folder))
    assert second["info"]["compiles"] == 0 and second["info"]["disk_hits"] == 1
    # The same build: PTX, every stage, shared memory; its remarks again.
    for field in ("ptx", "stages", "shared", "remarks"):
        assert second[field] == first[field], field
    assert second["error"] < 1e-4
    assert entries(folder) == [entry]


def test_processes_filling_one_folder_at_once(tmp_path):
    folder, go = tmp_path / "kernels", tmp_path / "go"
    jobs = [start(folder, EXT_TEST_GO=str(go)) for _ in range(3)]
    go.touch()
    results = [result(j) for j in jobs]
    assert all(r["error"] < 1e-4 for r in results)
    assert all(r["ptx"] == results[0]["ptx"] for r in results)
    assert sum(r["info"]["compiles"] + r["info"]["disk_hits"] for r in results) == 3
    # One whole entry, no temporary file left; the next process loads it.
    [entry] = entries(folder)
    assert entry.endswith(".kernel")
    after = result(start(folder))
    assert after["info"]["disk_hits"] == 1 and after["ptx"] == results[0]["ptx"]


@pytest.fixture
def disk(tmp_path):
    """The disk cache on, in a folder of this test's; the process's cache
    empty."""
    folder = tmp_path / "kernels"
    ext.set_cache_dir(folder)
    ext.clear_cache()
    yield folder
    disk_cache._reset_cache_dir()
    ext.clear_cache()


def scaled(n=96):
    A = ext.placeholder((n,), "float32", name="A")
    C = ext.compute((n,), lambda j: A[j] * 2.0 + 1.0, name="C")
    return ext.schedule(C, tile=(32,), threads=(32,))


def build_again(s, *args, **kw):
    """A build after forgetting the process's kernels: from disk or compiled."""
    ext.clear_cache()
    kernel = ext.build(s, *args, **kw)
    info = ext.cache_info()
    return kernel, (info["disk_hits"], info["compiles"])


def corrupt_entry(path):
    data = path.read_bytes()
    entry = json.loads(zlib.decompress(data))
    return {
        "cut short": data[:len(data) // 2],
        "empty": b"",
        "not zlib": b"\x00garbage" * 100,
        "not json": zlib.compress(b"{\"format\": 1, \"key\""),
        "a list": zlib.compress(b"[1, 2]"),
        "another key": zlib.compress(json.dumps(dict(entry, key="0" * 64)).encode()),
        "another format": zlib.compress(json.dumps(dict(entry, format=0)).encode()),
        "a bad binary": zlib.compress(json.dumps(dict(entry, compiled=dict(
            entry["compiled"], binaries=[["m", "!not base64!"]]))).encode()),
        "no stages": zlib.compress(json.dumps(dict(entry, compiled=dict(
            entry["compiled"], stages=[]))).encode()),
        "a number for text": zlib.compress(json.dumps(dict(entry, compiled=dict(
            entry["compiled"], stages=[["input", 7]]))).encode()),
    }


def test_a_corrupt_entry_is_compiled_again(disk):
    s = scaled()
    good = ext.build(s, "nvvm")
    [name] = entries(disk)
    path = disk / name
    x = np.arange(96, dtype=np.float32)
    for what, data in corrupt_entry(path).items():
        path.write_bytes(data)
        kernel, counts = build_again(s, "nvvm")
        assert counts == (0, 1), what
        assert kernel.ptx == good.ptx, what
        np.testing.assert_allclose(kernel.run(x), 2 * x + 1)
        # Written again, whole: the next build reads it.
        assert build_again(s, "nvvm")[1] == (1, 0), what


def test_another_chip_option_or_target_misses(disk):
    s = scaled()
    builds = [("nvvm", dict(chip="sm_90")), ("nvvm", dict(chip="sm_80")),
              ("nvvm", dict(chip="sm_90", opt=3)), ("nvvm", dict(chip="sm_90", keep_stages=False)),
              ("nvvm", dict(chip="sm_90", features="+ptx80")), ("cpu", dict(chip="sm_90"))]
    for target, kw in builds:
        assert build_again(s, target, **kw)[1] == (0, 1), (target, kw)
    assert len(entries(disk)) == len(builds)
    for target, kw in builds:
        assert build_again(s, target, **kw)[1] == (1, 0), (target, kw)
    kept = build_again(s, "nvvm", chip="sm_90", keep_stages=False)[0]
    assert kept.stages == ["input"]


def test_another_compiler_misses(disk, monkeypatch):
    s = scaled()
    first = disk_cache.compiler_id()
    own = dict(first[0])
    # ext's module and the libraries of ext it runs, by content.
    assert os.path.basename(ext._ext.__file__) in own
    for lib in ("libExtTransforms", "libExtGPUTransforms", "libExtPipelines",
                "libExtGPUTarget"):
        assert any(name.startswith(lib + ".so") for name in own), lib
    ext.build(s, "nvvm")
    ext.build(s, "cpu").run(np.ones(96, np.float32))
    # Running loads run-time libraries, which compile nothing: not in the
    # key, so a process that ran kernels finds the same entries.
    assert any("CpuEmulationRuntime" in path for path in disk_cache._mapped_files())
    assert not any("Runtime" in name for name in dict(disk_cache.compiler_id()[0]))
    assert disk_cache.compiler_id() == first
    assert build_again(s, "nvvm")[1] == (1, 0)
    # A rebuilt ext (other bytes): another key, compiled again.
    digest = disk_cache._digest
    monkeypatch.setattr(disk_cache, "_digest",
                        lambda path, st: digest(path, st) if "libExtTransforms" not in path
                        else "rebuilt")
    assert build_again(s, "nvvm")[1] == (0, 1)
    assert len(entries(disk)) == 3
    # A library replaced on disk since this process loaded it: what runs
    # is unknown, so the disk cache is not used (nothing read or written).
    mapped = disk_cache._mapped_files()
    moved = {p: ((dev, ino + 1) if "libExtTransforms" in p else (dev, ino))
             for p, (dev, ino) in mapped.items()}
    monkeypatch.setattr(disk_cache, "_mapped_files", lambda: moved)
    assert disk_cache.compiler_id() is None
    assert build_again(s, "nvvm")[1] == (0, 1)
    assert build_again(s, "nvvm")[1] == (0, 1)
    assert len(entries(disk)) == 3


def test_the_same_compute_at_another_line_misses(disk):
    """Its remarks point at its line: the module's locations are in the key."""
    A = ext.placeholder((64,), "float32", name="A")
    for at in (0, 1):
        if at == 0:
            C = ext.compute((64,), lambda j: A[j] + 1.0, name="C")
        else:
            C = ext.compute((64,), lambda j: A[j] + 1.0, name="C")
        assert build_again(ext.schedule(C, tile=(32,), threads=(32,)), "nvvm")[1] == (0, 1)
    assert len(entries(disk)) == 2


def test_a_changed_file_has_another_digest(tmp_path):
    lib = tmp_path / "libExtFake.so"
    lib.write_bytes(b"one")
    before = disk_cache._digest(str(lib), os.stat(lib))
    lib.write_bytes(b"two")
    os.utime(lib, ns=(os.stat(lib).st_atime_ns, os.stat(lib).st_mtime_ns + 1))
    assert disk_cache._digest(str(lib), os.stat(lib)) != before


def test_where_it_is_and_how_to_turn_it_off(tmp_path, monkeypatch):
    disk_cache._reset_cache_dir()
    try:
        monkeypatch.delenv("EXT_DISABLE_DISK_CACHE")
        monkeypatch.delenv("EXT_CACHE_DIR", raising=False)
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
        assert ext.cache_dir() == str(tmp_path / "xdg" / "ext" / "kernels")
        monkeypatch.setenv("EXT_CACHE_DIR", "")  # empty: unset, as XDG's
        assert ext.cache_dir() == str(tmp_path / "xdg" / "ext" / "kernels")
        monkeypatch.delenv("XDG_CACHE_HOME")
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        assert ext.cache_dir() == str(tmp_path / "home" / ".cache" / "ext" / "kernels")
        monkeypatch.setenv("EXT_CACHE_DIR", str(tmp_path / "mine"))
        assert ext.cache_dir() == str(tmp_path / "mine")
        for off in ("1", "yes"):
            monkeypatch.setenv("EXT_DISABLE_DISK_CACHE", off)
            assert ext.cache_dir() is None
        monkeypatch.setenv("EXT_DISABLE_DISK_CACHE", "0")
        assert ext.cache_dir() == str(tmp_path / "mine")
        # Python's setting wins over the environment's.
        ext.set_cache_dir(tmp_path / "set")
        assert ext.cache_dir() == str(tmp_path / "set")
        ext.set_cache_dir(None)
        assert ext.cache_dir() is None
        ext.clear_cache()
        build_again(scaled(), "nvvm")
        assert not (tmp_path / "set").exists() and not (tmp_path / "mine").exists()
        with pytest.raises(TypeError, match="a path or None"):
            ext.set_cache_dir(3)
    finally:
        disk_cache._reset_cache_dir()
        ext.clear_cache()


def test_a_folder_that_cannot_be_written_is_said_once(tmp_path):
    (tmp_path / "file").write_text("")
    ext.set_cache_dir(tmp_path / "file" / "kernels")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for n in (97, 98):
                kernel, counts = build_again(scaled(n), "nvvm")
                assert counts == (0, 1) and ".entry" in kernel.ptx
        said = [w for w in caught if issubclass(w.category, RuntimeWarning)]
        assert len(said) == 1 and "kernels are not kept in" in str(said[0].message)
    finally:
        disk_cache._reset_cache_dir()
        ext.clear_cache()


def test_clear_cache_disk_deletes_the_entries(disk):
    ext.build(scaled(), "nvvm")
    assert len(entries(disk)) == 1
    ext.clear_cache(disk=True)
    assert entries(disk) == []
    assert build_again(scaled(), "nvvm")[1] == (0, 1)
