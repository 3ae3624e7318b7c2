"""`ext.tune`: a schedule found for a compute and a chip, not copied.

    s = ext.tune(C, chip="sm_90")            # an ext.Schedule
    w = ext.tune(ext.matmul(4096, 4096, 4096), chip="gfx942")  # a Workload
    print(s.tuning.report())

What it does, in order (docs/Tuning.md):
1. Reads the compute (`ext.tuning_space.problem_of`): its family (GEMM,
   contraction, row-wise, reduction), operands, the producers it fuses.
2. Looks the problem up in the tuning database; a record there is the
   answer, nothing is compiled.
3. Generates the family's candidates for the chip and drops those the chip
   cannot hold (threads, shared memory, registers).
4. Ranks the rest by the cost model (`ext.cost_model.predict`).
5. Walks the ranking: each candidate's schedule is made and verified (ext's
   verifiers, in this process), then lowered to the GPU dialect for ext's
   bank analysis (a job on the executor), and re-ranked with its
   bank-conflict degree; it stops when at least `min_legal` candidates are
   legal and no unverified one can beat the best.
6. Compiles the best `trials` for the chip (ptxas checks the PTX: no
   spills) and runs each at a reduced size on ext's emulator against the
   computes without a schedule; times them on a GPU when one is there.
7. Returns the best that passed, records it in the database and plots the
   sweep beside it.

Jobs go through a `concurrent.futures.Executor`: worker processes on this
machine by default (`ext.tuning_pool.WorkerPool`: `python3 -m
ext.tuning_worker` processes, which never import the caller's script, so
`ext.tune` needs no `if __name__ == "__main__":` guard), or any executor
passed as `executor=` (a Dask `distributed.Client(...).get_executor()`
spreads them over a cluster). A job whose worker crashes or runs past its
time fails its candidate, with the reason; a pool that cannot run jobs at
all is an error at once.

An element-wise compute over a GEMM or a contraction (D = relu(C + bias))
tunes that anchor with D fused as its epilogue (`reverse_compute_at`): the
GEMM's candidates, one kernel.
"""

import math
import os
import sys
import time
from collections import Counter
from concurrent.futures import BrokenExecutor, Executor
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from . import cost_model as _model
from .schedule import _set_tuner
from . import te as _te
from . import tuning_jobs as _jobs
from . import tuning_mlir as _mlir
from .tuning_pool import WorkerPool
from . import tuning_space as _space
from .chips import DEFAULT_CHIP, check_chip as _check_chip
from ._ext import Module, chip_info
from ._ext import cuda_device as _cuda_device
from .tuning_db import TuningDatabase, key_of, key_text, problem_key


@dataclass
class Ranked:
    """A candidate in the sweep: its model prediction (refined by the bank
    analysis once it was verified), what happened to it."""
    candidate: _space.Candidate
    prediction: _model.Prediction
    status: str = "ranked"  # ranked, illegal, legal, checked, failed
    reason: str = ""
    text: Optional[str] = None  # its module, once verified
    bank: Optional[dict] = None
    check: Optional[dict] = None
    measured_seconds: Optional[float] = None


@dataclass
class TuningReport:
    """What `ext.tune` did: `best` (a Ranked), `ranking` (the legal
    candidates, best first), counts, and where the record and plot went."""
    problem: str
    chip: str
    key: dict
    best: Ranked
    ranking: List[Ranked] = field(default_factory=list)
    generated: int = 0
    pruned: dict = field(default_factory=dict)
    illegal: int = 0
    legal: int = 0
    checked: int = 0
    from_database: bool = False
    seconds: float = 0.0
    database: Optional[str] = None
    plot: Optional[str] = None
    fused: str = ""  # what the anchor tuned fuses, said in words
    timing: str = ""  # timed on which GPU, or why not

    def report(self, top: int = 10) -> str:
        lines = [f"tune {self.problem} on {self.chip}"]
        if self.fused:
            lines.append(f"  {self.fused}")
        if self.from_database:
            lines.append(f"  from the database {self.database}: {key_text(self.key)}")
        else:
            pruned = sum(self.pruned.values())
            lines.append(f"  {self.generated} candidates, {pruned} beyond the chip's limits, "
                         f"{self.illegal} refused by the verifiers or the lowering, "
                         f"{self.legal} legal, {self.checked} compiled and checked, "
                         f"{self.seconds:.1f} s")
            if self.timing:
                lines.append(f"  {self.timing}")
        lines.append(f"  best: {self.best.candidate.short()}")
        lines.append(f"        {self.best.prediction.line()}")
        for i, r in enumerate(self.ranking[:top]):
            mark = {"checked": "ok", "failed": "FAIL"}.get(r.status, "")
            lines.append(f"  {i:3d} {r.prediction.line()}  {r.candidate.short()} {mark}")
        return "\n".join(lines)


class _Progress:
    """A one-line progress bar on stderr (when it is a terminal, or asked)."""

    def __init__(self, enabled):
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.last = 0.0

    def __call__(self, phase, done, total, force=False):
        if not self.enabled:
            return
        now = time.perf_counter()
        if not force and now - self.last < 0.2 and done < total:
            return
        self.last = now
        width = 30
        filled = int(width * done / max(total, 1))
        sys.stderr.write(f"\r{phase:<10} [{'#' * filled}{'.' * (width - filled)}] "
                         f"{done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _chip_model(chip) -> dict:
    """ext's model of `chip`: a name, or a dict of it with rates of one's own
    (either's name checked: ValueError at the user's line)."""
    if isinstance(chip, dict):
        _check_chip(chip.get("name"))
        return dict(chip)
    return chip_info(_check_chip(chip, allow_default=False))


def _fitting(problem, info):
    """The candidates that fit the chip, and a count of the others by reason."""
    fitting, pruned = [], Counter()
    for c, why in _space.candidates(problem, info):
        if why is None:
            fitting.append(c)
        else:
            pruned[why] += 1
    return fitting, pruned


def _category(why: str) -> str:
    for word in ("registers", "shared memory", "threads over", "threads"):
        if word in why:
            return "tile" if word == "threads over" else word
    return "other"


def _target(target):
    """(the output tensor, the workload or None) of what `tune` was given."""
    from .helpers import Workload
    from .schedule import Schedule
    if isinstance(target, Workload):
        return target.output, target
    if isinstance(target, Schedule):
        return target.op.outputs[0], None
    if isinstance(target, _te.Tensor):
        return target, None
    if isinstance(target, _te.ComputeOp):
        return target.outputs[0], None
    raise TypeError(f"ext.tune takes a compute's tensor, a Workload or a Schedule, "
                    f"got {target!r}")


def _database(database):
    if database is False:
        return None
    if database is None or isinstance(database, (str, os.PathLike)):
        return TuningDatabase(database)
    if isinstance(database, TuningDatabase):
        return database
    raise TypeError(f"database= takes a path, a TuningDatabase, None (the default file) "
                    f"or False (none), got {database!r}")


def _module_text(items, args=None):
    from .build import lower
    program, inputs, outputs, intermediates = lower(items, "kernel", args)
    module = Module.build(None, program)
    return str(module), inputs, outputs, intermediates


def _specs(tensors, is_input):
    return [(tuple(int(d) for d in t.shape), t.dtype, is_input) for t in tensors]


def _reduced_extents(problem, c: _space.Candidate):
    """Extents at which to check `c`: every axis at most about two tiles
    (plus the residue, so ragged edges and divisibility stay as they are),
    the stepped reduce axis a few steps, whole-row tiles whole."""
    out = {}
    for d, (name, kind, extent) in enumerate(problem.axes):
        t = c.tile[d]
        if t >= extent:
            out[name] = extent
        elif kind == "spatial":
            out[name] = min(extent, 2 * t + extent % t)
        else:
            steps = max(3, (c.stages or 1) + 1)
            out[name] = min(extent, steps * t + extent % t)
    return out


def _tolerance(problem):
    # Integer inputs: exact sums, unless an input is computed (tuned alone).
    if problem.family in ("gemm", "contraction") and all(
            getattr(r.tensor, "op", None) is None for r in problem.operands):
        return (1e-6, 1e-6)
    return (2e-2, 2e-3) if problem.in_dtype in ("f16", "bf16") else (1e-4, 1e-6)


_SMALL = 2e6  # multiply-adds (or points) the emulator runs in a moment


class _TeSubject:
    """A compute of a TE graph (or a Workload's): schedules are ext.Schedule
    objects, modules are built by `ext.lower`."""

    def __init__(self, tensor, workload, fuse=True):
        self.tensor, self.workload, self.fuse = tensor, workload, fuse
        self.problem = _space.problem_of(tensor, fuse)
        self.inputs = workload.inputs if workload is not None else None

    def key(self, chip):
        return problem_key(self.problem, chip)

    def text(self, c):
        return _module_text(_space.schedule_of(self.problem, c), self.inputs)[0]

    def check_job(self, c, job):
        problem, workload = self.problem, self.workload
        if workload is not None and workload.resizable:
            small = workload.resized(_reduced_extents(problem, c))
            tensor, inputs = small.output, small.inputs
        elif problem.points * problem.reduce_points <= _SMALL:
            tensor, inputs = self.tensor, self.inputs  # small enough as it is
        else:
            return job  # compiled, not run: no reduced size is known
        s_small = _space.schedule_of(_space.problem_of(tensor, self.fuse), c)
        reduced, ins, outs, scratch = _module_text(s_small, inputs)
        reference, r_ins, r_outs, r_scratch = _module_text(tensor, inputs)
        # Without schedules the intermediates are arguments too: compare
        # the fused kernel's outputs with the reference's of the same names.
        args = _specs(ins, True) + _specs(outs + scratch, False)
        r_args = _specs(r_ins, True) + _specs(r_outs + r_scratch, False)
        r_names = [t.name for t in r_ins + r_outs + r_scratch]
        if any(t.name not in r_names for t in outs):
            return job
        job.update(reduced=reduced, reference=reference, args=args, reference_args=r_args,
                   compare=[(len(ins) + i, r_names.index(t.name)) for i, t in enumerate(outs)])
        return job

    def timing_arrays(self):
        return _specs(self.inputs, True) if self.inputs else None

    def kernel(self, c, target, chip):
        from .build import build
        return build(_space.schedule_of(self.problem, c), target=target, chip=chip,
                     args=self.inputs)

    def result(self, best, rep):
        s = _space.schedule_of(self.problem, best.candidate)
        s.tuning = rep
        if self.workload is None:
            return s
        from .helpers import Workload
        w = Workload(self.workload.inputs, self.workload.output, s,
                     self.workload.chip or rep.chip)
        w._sized_by(self.workload._factory, self.workload._axis_params)
        w.tuning = rep
        return w


class _Classes:
    """Union-find over (compute, axis) and (memref, dimension): which axes
    of a function's computes must keep one extent."""

    def __init__(self):
        self.parent = {}

    def find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b):
        self.parent[self.find(a)] = self.find(b)


class _MlirSubject:
    """Compute #index of @function of an MLIR module: schedules are typed
    #ext.schedule attributes (`tuning_mlir.schedule_attr`) set on a copy of
    the module."""

    def __init__(self, module, function, index):
        self.module, self.function, self.index = module, function, index
        self.descs = [d for d in module.computes() if d["function"] == function]
        nodes = _mlir.nodes_of_module(self.descs)
        self.problem = _space.problem_of_node(nodes[index])
        # An epilogue's schedule is its anchor's (reverse_compute_at).
        self.index = nodes.index(self.problem.op)
        self.num_inputs = self.descs[self.index]["num_inputs"]

    def key(self, chip):
        fused = {self.problem.op.name} | {t.op.name for t, _ in self.problem.compute_at} | \
            {t.op.name for t in self.problem.inline} | {t.op.name for t, _ in self.problem.epilogue}
        structure = [dict(name=d["name"], axes=[a[:2] for a in d["axes"]],
                          operands=[(o["dtype"], o["dims"], o["window"]) for o in d["operands"]],
                          combiner=d["combiner"], product=d["product"])
                     for d in self.descs if (d["name"] or "") in fused or d is self.descs[self.index]]
        return key_of(structure, self.problem, chip)

    def attr(self, c):
        return _mlir.schedule_attr(self.problem, c, self.num_inputs)

    def scheduled(self, c, module=None):
        return (module or self.module).with_schedule(self.function, self.index, self.attr(c))

    def text(self, c):
        return str(self.scheduled(c))

    def _extents(self, wanted):
        """Per-compute extents ("N.axis") for the anchor's axes at `wanted`,
        carried to every axis that shares a memref dimension with them."""
        classes = _Classes()
        for ci, d in enumerate(self.descs):
            for o in d["operands"]:
                for j, dims in enumerate(o["dims"]):
                    if len(dims) == 1:
                        classes.union(("ax", ci, dims[0]), ("mem", o["value"], j))
        sizes = {}
        for pos, (name, _, _) in enumerate(self.problem.axes):
            sizes[classes.find(("ax", self.index, pos))] = wanted[name]
        out = {}
        for ci, d in enumerate(self.descs):
            for pos, (name, _, _) in enumerate(d["axes"]):
                root = classes.find(("ax", ci, pos))
                if root in sizes:
                    out[f"{ci}.{name}"] = sizes[root]
        return out

    def _args(self, module):
        """(shape, dtype, is_input) per argument of the function, and the
        arguments its computes write; None if a compute does not touch one."""
        descs = [d for d in module.computes() if d["function"] == self.function]
        args = {}
        written = set()
        for d in descs:
            for k, o in enumerate(d["operands"]):
                if o["arg"] < 0:
                    continue
                if k >= d["num_inputs"]:
                    written.add(o["arg"])
                shape, dtype, is_input = args.get(o["arg"], (tuple(o["shape"]), o["dtype"], False))
                args[o["arg"]] = (shape, dtype, is_input or k < d["num_inputs"])
        if sorted(args) != list(range(len(args))):
            return None, None
        return [args[i] for i in range(len(args))], sorted(written)

    def check_job(self, c, job):
        job["entry"] = self.function
        try:
            small = self.module.resized(self.function,
                                        self._extents(_reduced_extents(self.problem, c)))
        except ValueError:
            if self.problem.points * self.problem.reduce_points > _SMALL:
                return job  # compiled, not run
            small = self.module
        reduced = self.scheduled(c, small)
        reference = small.with_schedule(self.function, 0, "")
        args, written = self._args(reference)
        if args is None:
            return job
        job.update(reduced=str(reduced), reference=str(reference), args=args,
                   reference_args=args, compare=[(i, i) for i in written])
        return job

    def timing_arrays(self):
        return None

    def result(self, best, rep):
        self.report = rep
        return self.scheduled(best.candidate)


def cuda_device() -> dict:
    """CUDA device 0 as ext's runner (ext-run, `Kernel.run(target="cuda")`)
    finds it: `available`, `name`, `chip` or the `error` saying why not."""
    return _cuda_device()


def _gpu_timer():
    """(a timer for the CUDA device, what the report says of it): no timer
    where the runner finds no device, and why."""
    device = cuda_device()
    if not device["available"]:
        return None, f"not timed: no CUDA device here ({device['error']})"

    def timer(kernel, arrays, reps=10):
        kernel.run(*arrays, target="cuda")
        start = time.perf_counter()
        for _ in range(reps):
            kernel.run(*arrays, target="cuda")
        return (time.perf_counter() - start) / reps
    return timer, f"timed on {device['name']} ({device['chip']})"


def tune(target, chip=DEFAULT_CHIP, trials: int = 3, executor: Optional[Executor] = None,
         database=None, min_legal: int = 100, check: bool = True, progress=None,
         plot: bool = True, measure=None, max_workers: Optional[int] = None):
    """Finds a schedule for `target` (a compute's tensor, an `ext.Workload`,
    or an `ext.Schedule` whose compute is tuned) on `chip` (a chip name, or
    `ext.chip_info(...)` with rates of your own) and returns it: an
    `ext.Schedule` (a Workload in gives the Workload with it). Its
    `.tuning` is a `TuningReport` (`.report()` prints the sweep).

    * `trials`: how many of the best legal candidates are compiled and
      checked (and timed, on a GPU).
    * `min_legal`: at least this many candidates are verified legal (or all
      there are) before the model's best is taken.
    * `executor`: where jobs run (a `concurrent.futures.Executor`; default a
      process pool on this machine's cores; a Dask client's
      `get_executor()` for a cluster).
    * `database`: None (the default file, `$EXT_TUNING_DB` or
      ~/.cache/ext/tuning.json), a path, an `ext.TuningDatabase`, or False.
    * `check`: run the candidates on the emulator at a reduced size (a
      Workload from `ext.matmul`, `ext.softmax`, `ext.conv2d`, ... knows how
      to make one; a plain compute is run at its own size when that is
      small, else only compiled).
    * `measure`: a function (kernel, arrays) -> seconds timing a built
      kernel; by default the CUDA device's when one is present.
    * `progress`: a progress bar on stderr (default: when it is a terminal).
    * `plot`: a PNG of predicted (and measured) performance per candidate
      beside the database (none without a database; needs matplotlib).

        >>> s = ext.tune(C, chip="sm_90", trials=2)
        >>> print(s.tuning.report())
    """
    tensor, workload = _target(target)
    return _tune(_TeSubject(tensor, workload), chip, trials, executor, database, min_legal,
                 check, progress, plot, measure, max_workers)


def _tune(subject, chip, trials, executor, database, min_legal, check, progress, plot, measure,
          max_workers):
    started = time.perf_counter()
    info = _chip_model(chip)
    gpu_target = "nvvm" if info["vendor"] == "nvidia" else "rocdl"
    problem = subject.problem
    db = _database(database)
    key = subject.key(info["name"])
    bar = _Progress(progress)

    if db is not None:
        record = db.lookup(key)
        if record is not None:
            c = _space.Candidate.from_json(record["candidate"])
            p = _model.Prediction(**record["prediction"])
            best = Ranked(c, p, record.get("status", "checked"))
            rep = TuningReport(problem.describe(), info["name"], key, best,
                               from_database=True, database=db.path,
                               seconds=time.perf_counter() - started,
                               fused=_fused_words(problem))
            return subject.result(best, rep)

    # The space, pruned by the chip's limits, ranked by the model.
    fitting, reasons = _fitting(problem, info)
    generated = len(fitting) + sum(reasons.values())
    pruned = Counter()
    for why, n in reasons.items():
        pruned[_category(why)] += n
    ranked = []
    for i, c in enumerate(fitting):
        p = _model.predict(problem, c, info)
        if p is not None:
            ranked.append((p.seconds, i, Ranked(c, p)))
        else:
            pruned["occupancy"] += 1
    ranked.sort(key=lambda t: (t[0], t[1]))
    if not ranked:
        raise ValueError(f"ext.tune: no candidate of {problem.describe()} fits {info['name']} "
                         f"({dict(pruned)})")

    own = executor is None
    if own:
        executor = WorkerPool(max_workers=max_workers or os.cpu_count() or 1)
    try:
        legal, illegal = _legalize(subject, ranked, info, executor, min_legal, bar)
        if not legal:
            reasons = Counter(r.reason for _, _, r in ranked if r.status == "illegal")
            raise ValueError(f"ext.tune: no legal candidate for {problem.describe()} on "
                             f"{info['name']}; the verifiers said: "
                             f"{reasons.most_common(3)}")
        best, checked, timing = _check(subject, legal, info, gpu_target, executor, trials, check,
                               measure, bar)
    except BaseException:
        if own:  # Ctrl-C or an error: no waiting for the jobs in flight
            executor.shutdown(wait=False, cancel_futures=True)
            own = False
        raise
    finally:
        if own:
            executor.shutdown()
    rep = TuningReport(problem.describe(), info["name"], key, best,
                       ranking=legal, generated=generated, pruned=dict(pruned),
                       illegal=illegal, legal=len(legal), checked=checked,
                       seconds=time.perf_counter() - started,
                       database=db.path if db else None, fused=_fused_words(problem),
                       timing=timing)
    if db is not None:
        db.commit(key, _record(best, rep))
    if plot:
        rep.plot = _plot(rep, db)
    return subject.result(best, rep)


def _fused_words(problem) -> str:
    """The report's line for a compute tuned through its anchor."""
    if not problem.epilogue:
        return ""
    kind = "GEMM" if problem.family == "gemm" else problem.family
    consumers = ", ".join(f"'{t.op.name}'" for t, _ in problem.epilogue)
    axes = ", ".join(f"'{a}'" for _, a in problem.epilogue)
    return (f"tuned '{problem.op.name}' ({problem.in_dtype} {kind}) with {consumers} fused as "
            f"its epilogue (reverse_compute_at at {axes}): one kernel")


def _gather(executor, fn, calls) -> List[dict]:
    """`fn(*args)` for each of `calls` on the executor, in order. A job that
    raises (its worker crashed or ran past its time) gives a failed result
    with the reason; an executor that cannot run jobs at all is an error."""
    futures = [executor.submit(fn, *args) for args in calls]
    results = []
    for f in futures:
        try:
            results.append(f.result())
        except BrokenExecutor:
            for g in futures:
                g.cancel()
            raise
        except Exception as e:  # noqa: BLE001 (one candidate's job, not the sweep)
            first = (str(e).strip().splitlines() or [""])[0]
            results.append({"ok": False, "stage": "job", "error": f"{type(e).__name__}: {first}"})
    return results


def _legalize(subject, ranked, info, executor, min_legal, bar):
    """Verifies candidates in model order, the bank analysis on the
    executor, until `min_legal` are legal and none left can beat the best."""
    legal: List[Ranked] = []
    illegal = 0
    bank = bool(info.get("has_bank_model"))
    # A fixed batch: where the walk stops must not depend on the executor.
    batch = 16
    pos = 0
    total = min(len(ranked), max(min_legal, 1))
    while pos < len(ranked):
        best = min((r.prediction.seconds for r in legal), default=math.inf)
        if len(legal) >= min_legal and ranked[pos][0] >= best:
            break
        chunk = [r for _, _, r in ranked[pos:pos + batch]]
        pos += len(chunk)
        for r in chunk:
            try:
                r.text = subject.text(r.candidate)
            except (ValueError, RuntimeError, TypeError) as e:
                r.status, r.reason = "illegal", _jobs._first_line(e)
        todo = [(r, r.text) for r in chunk if r.text is not None]
        if bank and todo:
            results = _gather(executor, _jobs.bank_job, [(t, info["name"]) for _, t in todo])
        else:
            results = [{"ok": True, "mean": 1.0, "worst": 1} for _ in todo]
        for (r, _), res in zip(todo, results):
            if not res["ok"]:
                r.status, r.reason = "illegal", res["error"]
                continue
            r.bank = res
            refined = _model.predict(subject.problem, r.candidate, info,
                                     bank_factor=res["mean"])
            r.prediction = refined or r.prediction
            r.status = "legal"
            legal.append(r)
        illegal += sum(1 for r in chunk if r.status == "illegal")
        bar("verify", min(len(legal), total), total)
    bar("verify", total, total, force=True)
    # Stable: equal predictions keep the model's first order.
    order = {id(r): i for i, (_, _, r) in enumerate(ranked)}
    legal.sort(key=lambda r: (r.prediction.seconds, order[id(r)]))
    return legal, illegal


def _check(subject, legal, info, gpu_target, executor, trials, check, measure, bar):
    """Compiles and checks the best `trials` (more while they fail);
    returns the best passing one and how many were checked."""
    timer, timing = (measure, "timed by measure=") if measure is not None else _gpu_timer()
    checked = 0
    passed = []
    pos = 0
    while pos < len(legal) and len(passed) < max(1, trials):
        chunk = legal[pos:pos + max(1, trials - len(passed))]
        pos += len(chunk)
        jobs = []
        for r in chunk:
            job = {"text": r.text, "target": gpu_target,
                   "chip": info["name"], "reduced": None, "family": subject.problem.family,
                   "entry": "kernel", "tolerance": _tolerance(subject.problem)}
            jobs.append(subject.check_job(r.candidate, job) if check else job)
        results = _gather(executor, _jobs.check_job, [(j,) for j in jobs])
        checked += len(chunk)
        for r, res in zip(chunk, results):
            r.check = res
            if res["ok"]:
                r.status = "checked"
                passed.append(r)
            else:
                r.status, r.reason = "failed", f"{res.get('stage')}: {res.get('error')}"
        bar("check", len(passed), max(1, trials))
        if pos >= 4 * max(1, trials) + len(passed):
            break
    if not passed:
        worst = legal[0]
        raise RuntimeError(f"ext.tune: the best candidates failed their checks; the best "
                           f"({worst.candidate.short()}) {worst.reason}")
    specs = subject.timing_arrays()
    if timer is not None and specs is None:
        timing = "not timed: no input arrays to time a compute written in MLIR with"
    if timer is not None and specs is not None:
        for r in passed:
            kernel = subject.kernel(r.candidate, gpu_target, info["name"])
            arrays = _jobs._inputs([(sh, dt) for sh, dt, _ in specs], subject.problem.family)
            r.measured_seconds = timer(kernel, arrays)
        passed.sort(key=lambda r: r.measured_seconds)
    return passed[0], checked, timing


def _record(best: Ranked, rep: TuningReport) -> dict:
    from dataclasses import asdict
    return {"candidate": best.candidate.to_json(), "prediction": asdict(best.prediction),
            "status": best.status, "measured_seconds": best.measured_seconds,
            "legal": rep.legal, "generated": rep.generated, "seconds": rep.seconds,
            "top": [{"candidate": r.candidate.short(), "seconds": r.prediction.seconds,
                     "status": r.status} for r in rep.ranking[:20]]}


def _plot(rep: TuningReport, db) -> Optional[str]:
    if db is None:
        return None  # a plot lives beside its database, never in the cwd
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    directory = os.path.dirname(db.path)
    name = key_text(rep.key).replace("/", "_").replace(">", "")
    path = os.path.join(directory, f"tuning-{name}.png")
    fig, ax = plt.subplots(figsize=(8, 4))
    xs = list(range(len(rep.ranking)))
    ax.plot(xs, [r.prediction.tflops for r in rep.ranking], ".", label="predicted", ms=3)
    done = [(i, r) for i, r in enumerate(rep.ranking) if r.status in ("checked", "failed")]
    ax.plot([i for i, _ in done], [r.prediction.tflops for _, r in done], "o", mfc="none",
            label="compiled and checked")
    timed = [(i, r) for i, r in enumerate(rep.ranking) if r.measured_seconds]
    if timed:
        flops = rep.best.prediction.tflops * rep.best.prediction.seconds
        ax.plot([i for i, _ in timed], [flops / r.measured_seconds for _, r in timed], "x",
                label="measured")
    ax.set_xlabel("legal candidates, by the model's rank")
    ax.set_ylabel("TFLOP/s")
    ax.set_title(f"{rep.problem[:70]} on {rep.chip}", fontsize=8)
    ax.legend(fontsize=7)
    fig.tight_layout()
    os.makedirs(directory, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def tune_module(module, chip=DEFAULT_CHIP, function: Optional[str] = None, compute=None,
                trials: int = 3, executor: Optional[Executor] = None, database=None,
                min_legal: int = 100, check: bool = True, progress=None, plot: bool = True,
                max_workers: Optional[int] = None):
    """`ext.tune` for computes written in MLIR: `module` is an `ext.Module`
    or its text; `compute` (a name or an index) of `function`, or else every
    compute without a schedule that no other compute of its function reads
    (its named producers are fused into it as in Python; an element-wise
    consumer of a GEMM tunes the GEMM with it as the epilogue). A module of
    linalg ops without ext.computes is imported first (`ext-from-linalg`).
    Returns the module with the schedules set and a list of (function,
    compute, report or the reason it was skipped).

        >>> tuned, reports = ext.tune_module(open("gemm.mlir").read(), chip="sm_90a")
        >>> print(tuned)
    """
    if isinstance(module, str):
        module = Module.parse(module)
    if not isinstance(chip, dict):
        _check_chip(chip, allow_default=False)  # an error before anything runs
    descs = module.computes()
    if not descs:
        imported = module.clone()
        imported.run_pipeline("builtin.module(ext-from-linalg)")
        if imported.computes():
            module, descs = imported, imported.computes()
    functions = [function] if function else list(dict.fromkeys(d["function"] for d in descs))
    targets = []
    for f in functions:
        fd = [d for d in descs if d["function"] == f]
        if not fd:
            raise ValueError(f"@{f} has no ext.compute")
        if compute is not None:
            picked = [d["index"] for d in fd
                      if d["name"] == compute or (isinstance(compute, int) and
                                                  d["index"] == compute)]
            if not picked:
                names = [d["name"] or f"#{d['index']}" for d in fd]
                raise ValueError(f"@{f} has no compute {compute!r} (it has {names})")
            targets += [(f, i) for i in picked]
        else:
            read = {o["producer"] for d in fd for o in d["operands"][:d["num_inputs"]]}
            targets += [(f, d["index"]) for d in fd
                        if d["index"] not in read and d["schedule"] is None]
    results = []
    for f, i in targets:
        try:
            subject = _MlirSubject(module, f, i)
        except ValueError as e:
            results.append((f, i, str(e)))
            continue
        try:
            module = _tune(subject, chip, trials, executor, database, min_legal, check,
                           progress, plot, None, max_workers)
        except _space.NoSearchSpace as e:
            if compute is not None:
                raise
            results.append((f, i, str(e)))
            continue
        results.append((f, i, subject.report))
    return module, results


def predict(target, schedule_or_candidate, chip=DEFAULT_CHIP):
    """The cost model's prediction for a candidate (or a hand-written
    `ext.Schedule` of the same compute, or its `#ext.schedule` text) on
    `chip`: time, TFLOP/s, the bounding unit, occupancy, waves and each
    unit's clocks per k-step (`.line()` prints them).

        >>> w = ext.matmul(4096, 4096, 4096)
        >>> s = ext.schedule(w.output, tile=(128, 128, 8), threads=(16, 16, 1),
        ...                  layout=("blocked", [4, 4]), cache=w.inputs, stages=3)
        >>> print(ext.predict(w, s, "sm_90").line())
    """
    tensor, _ = _target(target)
    info = _chip_model(chip)
    problem = _space.problem_of(tensor)
    c = schedule_or_candidate
    if not isinstance(c, _space.Candidate):
        c = _space.candidate_of(problem, c)
    return _model.predict(problem, c, info)


def search_space(target, chip=DEFAULT_CHIP) -> Tuple[list, Counter]:
    """Every candidate for `target` on `chip` that fits its limits, and a
    count of the others by reason: what `tune` ranks.

        >>> fitting, pruned = ext.search_space(ext.matmul(4096, 4096, 4096), "sm_90")
        >>> len(fitting), sum(pruned.values())
    """
    tensor, _ = _target(target)
    info = _chip_model(chip)
    return _fitting(_space.problem_of(tensor), info)


_set_tuner(tune)
