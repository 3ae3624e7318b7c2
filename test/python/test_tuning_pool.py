"""ext.tune's default executor (ext.tuning_pool.WorkerPool): its workers
are `python3 -m ext.tuning_worker` processes, so a script may call
ext.tune at its top level (no `if __name__ == "__main__":`), from a file,
`python3 -c` or stdin; a worker that crashes, hangs or cannot start is an
error that names it, never a hang."""

import math
import os
import subprocess
import sys
import time

import pytest

import ext
from ext import tuning, tuning_pool
from ext.tuning_pool import BrokenWorkerPool, WorkerCrashed, WorkerPool

# The directory `ext` was imported from, as the scripts' PYTHONPATH.
PACKAGES = os.path.dirname(os.path.dirname(os.path.abspath(ext.__file__)))

SCRIPT = """\
import ext
s = ext.tune(ext.matmul(64, 64, 64).output, chip="sm_80", database=False, plot=False,
             min_legal=8, trials=1, max_workers=2)
print("tuned:", s.tuning.best.status, s.tuning.best.check["checked"])
"""


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([PACKAGES] + [p for p in env.get("PYTHONPATH", "")
                                                      .split(os.pathsep) if p])
    return env


@pytest.mark.parametrize("how", ["file", "-c", "stdin"])
def test_tune_at_the_top_level_of_a_script(how, tmp_path):
    # Without the __main__ guard: spawned ProcessPoolExecutor workers import
    # the script again and the pool broke (BrokenProcessPool).
    script = tmp_path / "tune_me.py"
    script.write_text(SCRIPT)
    args = {"file": [str(script)], "-c": ["-c", SCRIPT], "stdin": ["-"]}[how]
    start = time.perf_counter()
    out = subprocess.run(["/usr/bin/python3"] + args, input=SCRIPT if how == "stdin" else None,
                         capture_output=True, text=True, env=_env(), cwd=tmp_path, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.count("tuned: checked True") == 1, out.stdout
    print(f"{how}: {time.perf_counter() - start:.1f} s")


def test_pool_runs_jobs_and_survives_a_crash_and_a_timeout():
    with WorkerPool(2, job_timeout=2) as pool:
        assert list(pool.map(math.sqrt, [4, 9, 16])) == [2, 3, 4]
        with pytest.raises(ValueError, match="math domain error"):
            pool.submit(math.sqrt, -1).result()  # the job's own error
        with pytest.raises(WorkerCrashed, match=r"exited with status 3 while it ran "
                                                r"posix\._exit"):
            pool.submit(os._exit, 3).result(timeout=60)
        start = time.perf_counter()
        with pytest.raises(TimeoutError, match="ran past 2 s"):
            pool.submit(time.sleep, 60).result(timeout=60)
        assert time.perf_counter() - start < 30
        # The workers were replaced.
        assert pool.submit(math.sqrt, 25).result(timeout=60) == 5


def test_a_pool_whose_workers_keep_dying_or_never_start_is_broken(monkeypatch):
    pool = WorkerPool(1, max_crashes=2)
    futures = [pool.submit(os._exit, 1) for _ in range(4)]
    errors = [type(f.exception(timeout=60)) for f in futures]
    assert errors[:2] == [WorkerCrashed] * 2 and errors[2:] == [BrokenWorkerPool] * 2
    with pytest.raises(BrokenWorkerPool, match="2 jobs in a row lost their tuning workers"):
        pool.submit(abs, 1)
    pool.shutdown()
    monkeypatch.setattr(tuning_pool, "_python", lambda: "/bin/false")
    with WorkerPool(2) as pool:
        with pytest.raises(BrokenWorkerPool, match="could not start: it exited"):
            pool.submit(abs, -1).result(timeout=60)


def test_a_crashing_check_fails_its_candidates_with_the_reason(tmp_path, monkeypatch):
    # Every check job segfaults its worker: the sweep ends with the reason,
    # not a hang. (The crashing job is a module the workers import too.)
    (tmp_path / "crashing_job.py").write_text(
        "import os, signal\n\ndef check_job(job):\n    os.kill(os.getpid(), signal.SIGSEGV)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), PACKAGES]))
    import crashing_job
    monkeypatch.setattr(tuning._jobs, "check_job", crashing_job.check_job)
    start = time.perf_counter()
    with pytest.raises(RuntimeError, match=r"failed their checks.*WorkerCrashed: tuning worker "
                                           r"\d+ was killed by signal SIGSEGV while it ran "
                                           r"crashing_job\.check_job"):
        ext.tune(ext.matmul(64, 64, 64).output, chip="sm_80", database=False, plot=False,
                 min_legal=8, trials=1, max_workers=2)
    assert time.perf_counter() - start < 300


def test_the_default_pool_never_imports_the_callers_main():
    # A worker's __main__ is ext's worker module, never this process's.
    with WorkerPool(1) as pool:
        main = pool.submit(eval, "__import__('sys').modules['__main__'].__file__").result(60)
    assert main.endswith(os.path.join("ext", "tuning_worker.py"))
    assert main != getattr(sys.modules["__main__"], "__file__", None)
