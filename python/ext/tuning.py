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

Jobs go through a `concurrent.futures.Executor`: a process pool on this
machine by default, or any executor passed as `executor=` (a Dask
`distributed.Client(...).get_executor()` spreads them over a cluster).
"""

import math
import os
import sys
import time
from collections import Counter
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import List, Optional, Tuple

from . import cost_model as _model
from .schedule import _set_tuner
from . import te as _te
from . import tuning_jobs as _jobs
from . import tuning_space as _space
from ._ext import Module, chip_info
from .tuning_db import TuningDatabase, key_text, problem_key


@dataclass
class Ranked:
    """A candidate in the sweep: its model prediction (refined by the bank
    analysis once it was verified), what happened to it."""
    candidate: _space.Candidate
    prediction: _model.Prediction
    status: str = "ranked"  # ranked, illegal, legal, checked, failed
    reason: str = ""
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

    def report(self, top: int = 10) -> str:
        lines = [f"tune {self.problem} on {self.chip}"]
        if self.from_database:
            lines.append(f"  from the database {self.database}: {key_text(self.key)}")
        else:
            pruned = sum(self.pruned.values())
            lines.append(f"  {self.generated} candidates, {pruned} beyond the chip's limits, "
                         f"{self.illegal} refused by the verifiers or the lowering, "
                         f"{self.legal} legal, {self.checked} compiled and checked, "
                         f"{self.seconds:.1f} s")
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


def _specs(tensors):
    return [(tuple(int(d) for d in t.shape), t.dtype) for t in tensors]


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


def _check_job(problem, workload, tensor, c, info, target, check):
    """The job dict for `check_job`: the full-size kernel to compile, the
    reduced one to run and its reference."""
    s = _space.schedule_of(problem, c)
    text, _, _, _ = _module_text(s, workload.inputs if workload else None)
    job = {"text": text, "target": target, "chip": info["name"], "reduced": None,
           "family": problem.family, "entry": "kernel"}
    if not check:
        return job
    small = None
    if workload is not None and workload.resizable:
        small = workload.resized(_reduced_extents(problem, c))
    elif problem.points * problem.reduce_points <= 2e6:
        small = workload  # small enough to run as it is
    if small is None and workload is None and problem.points * problem.reduce_points <= 2e6:
        small_tensor, small_inputs = tensor, None
    elif small is not None:
        small_tensor, small_inputs = small.output, small.inputs
    else:
        return job  # compiled, not run: no reduced size is known
    small_problem = _space.problem_of(small_tensor)
    s_small = _space.schedule_of(small_problem, c)
    reduced, inputs, outputs, scratch = _module_text(s_small, small_inputs)
    reference, _, r_outputs, r_scratch = _module_text(small_tensor, small_inputs)
    # Without schedules the intermediates are arguments too: compare the
    # fused kernel's outputs with the reference's of the same names.
    r_names = [t.name for t in r_outputs + r_scratch]
    if any(t.name not in r_names for t in outputs):
        return job
    job.update(reduced=reduced, reference=reference, inputs=_specs(inputs),
               outputs=_specs(outputs), scratch=_specs(scratch),
               reference_outputs=_specs(r_outputs + r_scratch),
               compare=[r_names.index(t.name) for t in outputs],
               tolerance=(1e-6, 1e-6) if problem.family in ("gemm", "contraction") else
               ((2e-2, 2e-3) if problem.in_dtype in ("f16", "bf16") else (1e-4, 1e-6)))
    return job


def _gpu_timer():
    """Times a kernel on the CUDA device if there is one, else None."""
    try:
        import ctypes
        cuda = ctypes.CDLL(os.environ.get("EXT_CUDA_DRIVER", "libcuda.so.1"))
        count = ctypes.c_int(0)
        if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0 \
                or count.value == 0:
            return None
    except OSError:
        return None

    def timer(kernel, arrays, reps=10):
        kernel.run(*arrays, target="cuda")
        start = time.perf_counter()
        for _ in range(reps):
            kernel.run(*arrays, target="cuda")
        return (time.perf_counter() - start) / reps
    return timer


def tune(target, chip="sm_80", trials: int = 3, executor: Optional[Executor] = None,
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
      beside the database (needs matplotlib).

        >>> s = ext.tune(C, chip="sm_90", trials=2)
        >>> print(s.tuning.report())
    """
    started = time.perf_counter()
    tensor, workload = _target(target)
    info = dict(chip) if isinstance(chip, dict) else chip_info(chip)
    gpu_target = "nvvm" if info["vendor"] == "nvidia" else "rocdl"
    problem = _space.problem_of(tensor)
    db = _database(database)
    key = problem_key(problem, info["name"])
    bar = _Progress(progress)

    if db is not None:
        record = db.lookup(key)
        if record is not None:
            c = _space.Candidate.from_json(record["candidate"])
            p = _model.Prediction(**record["prediction"])
            best = Ranked(c, p, record.get("status", "checked"))
            rep = TuningReport(problem.describe(), info["name"], key, best,
                               from_database=True, database=db.path,
                               seconds=time.perf_counter() - started)
            return _result(problem, workload, best, rep)

    # The space, pruned by the chip's limits, ranked by the model.
    fitting, pruned = [], Counter()
    generated = 0
    for c, why in _space.candidates(problem, info):
        generated += 1
        if why is None:
            fitting.append(c)
        else:
            pruned[_category(why)] += 1
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
        workers = max_workers or os.cpu_count() or 1
        executor = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"))
    else:
        workers = max_workers or 4
    try:
        legal, illegal = _legalize(problem, workload, ranked, info, executor, workers,
                                   min_legal, bar)
        if not legal:
            reasons = Counter(r.reason for _, _, r in ranked if r.status == "illegal")
            raise ValueError(f"ext.tune: no legal candidate for {problem.describe()} on "
                             f"{info['name']}; the verifiers said: "
                             f"{reasons.most_common(3)}")
        best, checked = _check(problem, workload, tensor, legal, info, gpu_target, executor,
                               trials, check, measure, bar)
    finally:
        if own:
            executor.shutdown()
    rep = TuningReport(problem.describe(), info["name"], key, best,
                       ranking=legal, generated=generated, pruned=dict(pruned),
                       illegal=illegal, legal=len(legal), checked=checked,
                       seconds=time.perf_counter() - started,
                       database=db.path if db else None)
    if db is not None:
        db.commit(key, _record(best, rep))
    if plot:
        rep.plot = _plot(rep, db)
    return _result(problem, workload, best, rep)


def _legalize(problem, workload, ranked, info, executor, workers, min_legal, bar):
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
        texts = []
        for r in chunk:
            try:
                s = _space.schedule_of(problem, r.candidate)
                text, _, _, _ = _module_text(s, workload.inputs if workload else None)
                texts.append(text)
            except (ValueError, RuntimeError, TypeError) as e:
                r.status, r.reason = "illegal", _jobs._first_line(e)
                texts.append(None)
        todo = [(r, t) for r, t in zip(chunk, texts) if t is not None]
        if bank and todo:
            results = list(executor.map(_jobs.bank_job, [t for _, t in todo],
                                        [info["name"]] * len(todo)))
        else:
            results = [{"ok": True, "mean": 1.0, "worst": 1} for _ in todo]
        for (r, _), res in zip(todo, results):
            if not res["ok"]:
                r.status, r.reason = "illegal", res["error"]
                continue
            r.bank = res
            refined = _model.predict(problem, r.candidate, info, bank_factor=res["mean"])
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


def _check(problem, workload, tensor, legal, info, gpu_target, executor, trials, check,
           measure, bar):
    """Compiles and checks the best `trials` (more while they fail);
    returns the best passing one and how many were checked."""
    timer = measure if measure is not None else _gpu_timer()
    checked = 0
    passed = []
    pos = 0
    while pos < len(legal) and len(passed) < max(1, trials):
        chunk = legal[pos:pos + max(1, trials - len(passed))]
        pos += len(chunk)
        jobs = [_check_job(problem, workload, tensor, r.candidate, info, gpu_target, check)
                for r in chunk]
        results = list(executor.map(_jobs.check_job, jobs))
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
    if timer is not None and workload is not None:
        from .build import build
        for r in passed:
            kernel = build(_space.schedule_of(problem, r.candidate), target=gpu_target,
                           chip=info["name"], args=workload.inputs)
            arrays = _jobs._inputs(_specs(workload.inputs), problem.family)
            r.measured_seconds = timer(kernel, arrays)
        passed.sort(key=lambda r: r.measured_seconds)
    return passed[0], checked


def _record(best: Ranked, rep: TuningReport) -> dict:
    from dataclasses import asdict
    return {"candidate": best.candidate.to_json(), "prediction": asdict(best.prediction),
            "status": best.status, "measured_seconds": best.measured_seconds,
            "legal": rep.legal, "generated": rep.generated, "seconds": rep.seconds,
            "top": [{"candidate": r.candidate.short(), "seconds": r.prediction.seconds,
                     "status": r.status} for r in rep.ranking[:20]]}


def _plot(rep: TuningReport, db) -> Optional[str]:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    directory = os.path.dirname(db.path) if db else os.getcwd()
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


def _result(problem, workload, best: Ranked, rep: TuningReport):
    s = _space.schedule_of(problem, best.candidate)
    s.tuning = rep
    if workload is None:
        return s
    from .helpers import Workload
    w = Workload(workload.inputs, workload.output, s, workload.chip or rep.chip)
    w._factory = workload._factory
    w._axis_params = workload._axis_params
    w.tuning = rep
    return w


def predict(target, schedule_or_candidate, chip="sm_80"):
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
    info = dict(chip) if isinstance(chip, dict) else chip_info(chip)
    problem = _space.problem_of(tensor)
    c = schedule_or_candidate
    if not isinstance(c, _space.Candidate):
        c = _space.candidate_of(problem, c)
    return _model.predict(problem, c, info)


def search_space(target, chip="sm_80") -> Tuple[list, Counter]:
    """Every candidate for `target` on `chip` that fits its limits, and a
    count of the others by reason: what `tune` ranks.

        >>> fitting, pruned = ext.search_space(ext.matmul(4096, 4096, 4096), "sm_90")
        >>> len(fitting), sum(pruned.values())
    """
    tensor, _ = _target(target)
    info = dict(chip) if isinstance(chip, dict) else chip_info(chip)
    problem = _space.problem_of(tensor)
    fitting, pruned = [], Counter()
    for c, why in _space.candidates(problem, info):
        if why is None:
            fitting.append(c)
        else:
            pruned[why] += 1
    return fitting, pruned


_set_tuner(tune)
