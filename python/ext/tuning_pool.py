"""The tuner's default executor: worker processes of their own.

`ext.tune` runs its jobs (`ext.tuning_jobs`: plain functions of MLIR text)
in other processes. `concurrent.futures.ProcessPoolExecutor` cannot start
them safely from any script: forking after MLIR's context and threads exist
is unsafe under pybind11, and its "spawn" and "forkserver" workers import
the user's `__main__` again, so a script calling `ext.tune` at its top level
(no `if __name__ == "__main__":`) dies with BrokenProcessPool. The workers
here are `python3 -m ext.tuning_worker` processes (as TVM's popen pool
starts its own): they import ext and nothing of the caller's, and receive
each job as a pickled (function, arguments) frame on a pipe.

* A worker that dies during a job (a crash in the compiler, `os._exit`)
  fails that job's future with `WorkerCrashed` (its exit status and the
  end of its stderr) and is replaced for the next job.
* A job running past `job_timeout` seconds (default 600,
  `$EXT_TUNING_JOB_TIMEOUT`) has its worker killed and fails with
  `TimeoutError`.
* A worker that cannot start (ext fails to import), or `max_crashes` jobs
  in a row that crash their workers, break the pool: every pending and
  later job fails with `BrokenWorkerPool`, at once, never a hang.

Any other `concurrent.futures.Executor` (a Dask client's) can be passed to
`ext.tune(executor=...)` instead.
"""

import os
import pickle
import queue
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Executor, Future
from concurrent.futures._base import BrokenExecutor
from typing import Optional

_HEADER = struct.Struct("<Q")
_READY = "ext.tuning_worker ready"


class WorkerCrashed(RuntimeError):
    """A worker process died while it ran a job."""


class BrokenWorkerPool(BrokenExecutor):
    """The pool cannot run jobs: its workers do not start, or keep dying."""


def _env():
    """The workers' environment: ext importable from where this one was."""
    env = dict(os.environ)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = [here] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    return env


def _python():
    exe = sys.executable
    if exe and os.path.basename(exe).startswith("python"):
        return exe
    return shutil.which("python3") or exe or "python3"


def send_frame(fd, obj):
    """Writes `obj` pickled, after its length, to the file descriptor."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _read_exact(fd, n, deadline):
    chunks, got = [], 0
    while got < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def recv_frame(fd, deadline=None):
    """Reads one frame of `send_frame` (EOFError at the end, TimeoutError
    past `deadline`, a time.monotonic() value)."""
    (n,) = _HEADER.unpack(_read_exact(fd, _HEADER.size, deadline))
    return pickle.loads(_read_exact(fd, n, deadline))


def _name(fn):
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


class _Worker:
    """One `python3 -m ext.tuning_worker` process and its pipes."""

    def __init__(self, start_timeout):
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([_python(), "-m", "ext.tuning_worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, env=_env(), close_fds=True)
        try:
            hello = recv_frame(self.proc.stdout.fileno(), time.monotonic() + start_timeout)
        except (EOFError, TimeoutError, pickle.UnpicklingError) as e:
            why = "did not answer in time" if isinstance(e, TimeoutError) else "exited"
            self.stop(keep_log=True)
            raise BrokenWorkerPool(f"an ext tuning worker ({_python()} -m ext.tuning_worker) "
                                   f"could not start: it {why}{self._tail()}") from None
        if hello != _READY:
            self.stop()
            raise BrokenWorkerPool(f"an ext tuning worker answered {hello!r}")

    def _tail(self):
        try:
            self.log.seek(0)
            text = self.log.read().decode(errors="replace").strip()
        except (OSError, ValueError):
            return ""
        lines = text.splitlines()[-8:]
        return ("; its stderr ended:\n  " + "\n  ".join(lines)) if lines else ""

    def _status(self):
        rc = self.proc.wait()
        if rc < 0:
            try:
                return f"was killed by signal {signal.Signals(-rc).name}"
            except ValueError:
                return f"was killed by signal {-rc}"
        return f"exited with status {rc}"

    def call(self, payload, timeout, what):
        try:
            os.write(self.proc.stdin.fileno(), payload)
            deadline = time.monotonic() + timeout if timeout else None
            ok, value = recv_frame(self.proc.stdout.fileno(), deadline)
        except TimeoutError:
            pid = self.proc.pid
            self.stop()
            raise TimeoutError(f"{what} ran past {timeout:g} s in tuning worker {pid}; "
                               "the worker was stopped") from None
        except (EOFError, BrokenPipeError, pickle.UnpicklingError):
            status = self._status()
            raise WorkerCrashed(f"tuning worker {self.proc.pid} {status} while it ran "
                                f"{what}{self._tail()}") from None
        return ok, value

    def alive(self):
        return self.proc.poll() is None

    def stop(self, grace=0.0, keep_log=False):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()  # the worker's loop ends at EOF
            except OSError:
                pass
            try:
                self.proc.wait(grace)
            except subprocess.TimeoutExpired:
                pass
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout) + (() if keep_log else (self.log,)):
            try:
                f.close()
            except OSError:
                pass


class WorkerPool(Executor):
    """A `concurrent.futures.Executor` over `max_workers` worker processes
    started as `python3 -m ext.tuning_worker` when the jobs need them (see
    the module's docstring). Functions and arguments must pickle by
    reference (module-level functions of importable modules).

        >>> with WorkerPool(2) as pool:
        ...     print(list(pool.map(abs, [-1, -2])))
        [1, 2]
    """

    def __init__(self, max_workers: Optional[int] = None, job_timeout: Optional[float] = None,
                 start_timeout: float = 120.0, max_crashes: Optional[int] = None):
        self.max_workers = max(1, max_workers or os.cpu_count() or 1)
        if job_timeout is None:
            job_timeout = float(os.environ.get("EXT_TUNING_JOB_TIMEOUT", 600))
        self.job_timeout = job_timeout
        self.start_timeout = start_timeout
        self.max_crashes = max_crashes or 2 * self.max_workers + 2
        self._queue: "queue.SimpleQueue" = queue.SimpleQueue()
        self._threads = []
        self._lock = threading.Lock()
        self._shutdown = False
        self._broken: Optional[str] = None
        self._crashes = 0

    def submit(self, fn, /, *args, **kwargs) -> Future:
        # Pickled here, so what cannot travel fails in the caller.
        payload = pickle.dumps((fn, args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
        future: Future = Future()
        with self._lock:
            if self._broken:
                raise BrokenWorkerPool(self._broken)
            if self._shutdown:
                raise RuntimeError("cannot submit to a WorkerPool after shutdown")
            self._queue.put((future, _HEADER.pack(len(payload)) + payload, _name(fn)))
            if len(self._threads) < self.max_workers:
                t = threading.Thread(target=self._serve, name="ext-tuning-worker", daemon=True)
                self._threads.append(t)
                t.start()
        return future

    def _serve(self):
        worker = None
        try:
            while True:
                item = self._queue.get()
                if item is None:
                    return
                future, payload, what = item
                if not future.set_running_or_notify_cancel():
                    continue
                if self._broken:
                    future.set_exception(BrokenWorkerPool(self._broken))
                    continue
                try:
                    if worker is None or not worker.alive():
                        if worker is not None:
                            worker.stop()
                        worker = _Worker(self.start_timeout)
                    ok, result = worker.call(payload, self.job_timeout, what)
                except BrokenWorkerPool as e:
                    worker = None
                    self._break(str(e))
                    future.set_exception(e)
                    continue
                except Exception as e:  # noqa: BLE001 (died, ran too long, a pipe failed)
                    if worker is not None:
                        worker.stop()
                    worker = None
                    with self._lock:
                        self._crashes += 1
                        many = self._crashes >= self.max_crashes
                    if many:
                        self._break(f"{self._crashes} jobs in a row lost their tuning "
                                    f"workers; the last: {e}")
                    future.set_exception(e)
                    continue
                with self._lock:
                    self._crashes = 0
                if ok:
                    future.set_result(result)
                else:
                    future.set_exception(result)  # the job's own error
        finally:
            if worker is not None:
                worker.stop(grace=5.0)

    def _break(self, why):
        with self._lock:
            if self._broken is None:
                self._broken = why
        # Fail what is queued at once rather than start more workers.
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is None:
                self._queue.put(None)
                break
            future, _, _ = item
            if future.set_running_or_notify_cancel():
                future.set_exception(BrokenWorkerPool(why))

    def shutdown(self, wait=True, *, cancel_futures=False):
        with self._lock:
            self._shutdown = True
            threads = list(self._threads)
        if cancel_futures:
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    item[0].cancel()
        for _ in threads:
            self._queue.put(None)
        if wait:
            for t in threads:
                t.join()
