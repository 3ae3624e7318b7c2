"""A worker process of `ext.tuning_pool.WorkerPool`:

    python3 -m ext.tuning_worker

It imports ext (and what each job's function needs), never the script that
started the pool, then answers frames on stdin (a pickled (function, args,
kwargs)) with frames on stdout ((True, result) or (False, the exception))
until stdin ends. The jobs' own prints go to stderr: stdout is the pipe.
"""

import os
import pickle
import signal
import sys


def main() -> int:
    from .tuning_pool import _READY, recv_frame, send_frame
    # The protocol keeps the original descriptors; fd 1 becomes stderr, so
    # whatever a job (or the C++ below it) prints cannot corrupt a frame.
    inp, out = os.dup(0), os.dup(1)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdout = sys.stderr
    # Ctrl-C is the caller's: it stops the sweep, and the workers end when
    # their stdin does.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from . import tuning_jobs  # noqa: F401 (ext and its jobs, before the handshake)
    send_frame(out, _READY)
    while True:
        try:
            fn, args, kwargs = recv_frame(inp)
        except EOFError:
            return 0
        except Exception as e:  # noqa: BLE001 (a job that does not unpickle here)
            send_frame(out, (False, RuntimeError(f"the job did not unpickle in the tuning "
                                                 f"worker: {type(e).__name__}: {e}")))
            continue
        try:
            reply = (True, fn(*args, **kwargs))
        except BaseException as e:  # noqa: BLE001 (sent back to the caller)
            reply = (False, e)
        try:
            send_frame(out, reply)
        except (pickle.PicklingError, TypeError, AttributeError) as e:
            what = reply[1] if not reply[0] else e
            send_frame(out, (False, RuntimeError(f"{type(what).__name__}: {what} "
                                                 "(the job's answer did not pickle)")))


if __name__ == "__main__":
    sys.exit(main())
