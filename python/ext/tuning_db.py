"""The tuning database: one JSON file of records keyed by what a schedule
is valid for (the compute's structure, its shape, dtypes and the chip), so
the second `ext.tune` or `ext.schedule(C, tuned=True)` of the same problem
returns at once.

The key's structure part is a hash of the computes the kernel holds (the
anchor, the producers it fuses and its epilogue) with their names, axes, accesses,
bodies and combiners, without sizes or source locations; the shape part
lists the anchor's extents. Writers merge under an exclusive lock on a
side file, so processes tuning in parallel keep each other's records.
"""

import contextlib
import fcntl
import hashlib
import json
import os
import time
from typing import Optional

DEFAULT_PATH_ENV = "EXT_TUNING_DB"


def default_path() -> str:
    """$EXT_TUNING_DB, else ~/.cache/ext/tuning.json."""
    path = os.environ.get(DEFAULT_PATH_ENV)
    if path:
        return path
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ext", "tuning.json")


def _strip(value):
    """The program description without sizes, locations and schedules."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in sorted(value.items())
                if k not in ("loc", "shape", "schedule", "locals")}
    if isinstance(value, (list, tuple)):
        return [_strip(v) for v in value]
    return value


def problem_key(problem, chip: str) -> dict:
    """The fields a record is found by."""
    from .build import lower
    # The epilogue's consumer (reverse_compute_at) is part of the kernel.
    program, _, _, _ = lower([problem.outputs[0]] + [t for t, _ in problem.epilogue])
    computes = []
    for c in program["computes"]:
        c = dict(c)
        c["axes"] = [(name, kind) for name, kind, *_ in c["axes"]]
        # Expression nodes are (op, dtype, args, attr, loc): drop the loc.
        for region in ("body", "reducer"):
            if c.get(region):
                c[region] = dict(c[region], nodes=[list(n[:4]) for n in c[region]["nodes"]])
        computes.append(_strip(c))
    return key_of(computes, problem, chip)


def key_of(structure, problem, chip: str) -> dict:
    """The key of `problem` on `chip`: a hash of `structure` (plain data
    describing the fused computes without sizes), the anchor's name, shape
    and dtypes."""
    digest = hashlib.sha256(json.dumps(structure, sort_keys=True, default=str)
                            .encode()).hexdigest()[:16]
    return {"structure": digest, "compute": problem.op.name,
            "shape": [a[2] for a in problem.axes],
            "dtype": f"{problem.in_dtype}->{problem.out_dtype}", "chip": chip}


def key_text(key: dict) -> str:
    return (f"{key['structure']}/{key['compute']}/{'x'.join(map(str, key['shape']))}/"
            f"{key['dtype']}/{key['chip']}")


class TuningDatabase:
    """Records in a JSON file (`path`, default `default_path()`):
    `lookup(key)`, `commit(key, record)`, `records()`."""

    def __init__(self, path: Optional[str] = None):
        self.path = os.path.abspath(path or default_path())

    def __repr__(self):
        return f"TuningDatabase({self.path!r})"

    def _read(self) -> dict:
        try:
            with open(self.path) as f:
                data = json.load(f)
        except FileNotFoundError:
            return {"version": 1, "records": {}}
        except json.JSONDecodeError as e:
            raise ValueError(f"tuning database {self.path} is not JSON ({e}); move it away "
                             "or pass another database=") from None
        if not isinstance(data, dict) or "records" not in data:
            raise ValueError(f"tuning database {self.path} has no records")
        return data

    def records(self) -> dict:
        return self._read()["records"]

    def lookup(self, key: dict) -> Optional[dict]:
        return self.records().get(key_text(key))

    @contextlib.contextmanager
    def _locked(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        with open(self.path + ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def commit(self, key: dict, record: dict) -> None:
        with self._locked():
            data = self._read()
            data["records"][key_text(key)] = dict(record, key=key, saved=time.time())
            tmp = self.path + f".tmp{os.getpid()}"
            with open(tmp, "w") as f:
                json.dump(data, f, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
