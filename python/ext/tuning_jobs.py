"""The tuner's jobs: plain functions of plain data (MLIR text, chip names,
shapes), so any `concurrent.futures.Executor` can run them in another
process or on another machine (a local process pool, a Dask cluster's
`client.get_executor()`): each parses its module, does one thing and
returns a dict.

* `bank_job`: the schedule lowered to the GPU dialect and ext's bank
  analysis (ext-gpu-bank-conflicts) over its shared-memory accesses.
* `check_job`: the kernel compiled for its target (PTX checked by ptxas
  where it is installed: registers, spills; HSACO made), then the same
  schedule at a reduced size run on ext's emulator against the computes
  without a schedule, with the same inputs.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time

import numpy as np

_DEGREE = re.compile(r"(\d+)-way bank conflict")


def bank_job(text: str, chip: str) -> dict:
    """Worst and mean bank-conflict degree of the kernel's shared accesses
    (1: conflict-free), and how many the analysis could not model."""
    from ._ext import Module
    start = time.perf_counter()
    try:
        module = Module.parse(text)
        messages = module.run_pipeline(
            f"ext-schedule-to-gpu,ext-gpu-bank-conflicts{{chip={chip}}}")
    except Exception as e:  # noqa: BLE001 (a job reports, the tuner decides)
        return {"ok": False, "error": _first_line(e), "seconds": time.perf_counter() - start}
    degrees, unknown = [], 0
    for _, _, _, message in messages:
        if "bank conflicts unknown" in message:
            unknown += 1
        elif "conflict-free" in message:
            degrees.append(1)
        else:
            m = _DEGREE.search(message)
            if m:
                degrees.append(int(m.group(1)))
    return {"ok": True, "worst": max(degrees, default=1),
            "mean": sum(degrees) / len(degrees) if degrees else 1.0,
            "accesses": len(degrees), "unknown": unknown,
            "seconds": time.perf_counter() - start}


def _first_line(e) -> str:
    text = str(e).strip()
    for line in text.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    return text.splitlines()[0] if text else type(e).__name__


def _ptxas():
    found = shutil.which("ptxas")
    if found:
        return found
    cuda = "/usr/local/cuda/bin/ptxas"
    return cuda if os.path.exists(cuda) else None


def ptxas_report(ptx: str, chip: str) -> dict:
    """ptxas -v on `ptx`: registers and spill bytes of each entry, and
    whether it assembled; {"ptxas": None} where ptxas is absent."""
    exe = _ptxas()
    if exe is None:
        return {"ptxas": None}
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        p = subprocess.run([exe, f"-arch={chip}", "-v", src, "-o", os.path.join(d, "k.cubin")],
                           capture_output=True, text=True)
    out = p.stdout + p.stderr
    regs = [int(x) for x in re.findall(r"Used (\d+) registers", out)]
    spills = sum(int(a) + int(b) for a, b in
                 re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", out))
    return {"ptxas": exe, "ok": p.returncode == 0, "registers": max(regs, default=0),
            "spill_bytes": spills, "serialized": "C7510" in out,
            "log": out[-2000:] if p.returncode else ""}


def _inputs(specs, family, seed=0):
    rng = np.random.default_rng(seed)
    from . import dtypes as _dt
    arrays = []
    for shape, dtype in specs:
        if family in ("gemm", "contraction"):
            # Small integers: every sum is exact in any order.
            a = rng.integers(-2, 3, size=shape).astype(np.float32)
        else:
            a = rng.standard_normal(shape).astype(np.float32)
        if dtype == "bf16":
            arrays.append(_dt.to_bf16_bits(a))
        else:
            arrays.append(a.astype(_dt.numpy_dtype(dtype)))
    return arrays


def _run(text, entry, args, inputs, chip):
    """Runs @entry of `text` on the CPU (kernels on the emulator): its
    arguments are `args` ((shape, dtype, is_input) each), the inputs
    copies of `inputs` in order, the others zeros. Returns every array."""
    from ._ext import Module
    from . import dtypes as _dt
    module = Module.parse(text)
    given = iter(inputs)
    arrays = [next(given).copy() if is_input else np.zeros(shape, _dt.numpy_dtype(dtype))
              for shape, dtype, is_input in args]
    module.executable(entry, "cpu", 2, chip)(arrays)
    return arrays


def check_job(job: dict) -> dict:
    """Compiles `job["text"]` for `job["target"]` and `job["chip"]`, then runs
    @`job["entry"]` of `job["reduced"]` (the schedule at a reduced size) and
    of `job["reference"]` (the same computes without schedules) on the CPU,
    their arguments `job["args"]` and `job["reference_args"]` ((shape,
    dtype, is_input): the same inputs, in order, to both), and compares the
    arrays `job["compare"]` pairs."""
    from ._ext import Module
    start = time.perf_counter()
    out = {"ok": False}
    try:
        module = Module.parse(job["text"])
        compiled = module.compile(job["target"], job["chip"], "", 2, False)
    except Exception as e:  # noqa: BLE001
        out.update(stage="compile", error=_first_line(e))
        return out
    out["compile_seconds"] = time.perf_counter() - start
    binaries = compiled["binaries"]
    out["shared_memory"] = dict(compiled["shared_memory"])
    if job["target"] == "nvvm":
        # One PTX file per gpu.module: each is assembled on its own.
        ptxs = [b.decode() for b in binaries.values()]
        out["entries"] = sum(p.count(".entry") for p in ptxs)
        reports = [ptxas_report(p, job["chip"]) for p in ptxs]
        report = reports[0] if len(reports) == 1 else {
            "ptxas": reports[0]["ptxas"] if reports else None,
            "ok": all(r.get("ok", True) for r in reports),
            "registers": max((r.get("registers", 0) for r in reports), default=0),
            "spill_bytes": sum(r.get("spill_bytes", 0) for r in reports),
            "serialized": any(r.get("serialized") for r in reports),
            "log": "".join(r.get("log", "") for r in reports)}
        out["ptxas"] = report
        if report.get("ptxas") and not report["ok"]:
            out.update(stage="ptxas", error=report["log"].strip().splitlines()[-1]
                       if report["log"].strip() else "ptxas failed")
            return out
        if report.get("spill_bytes"):
            out.update(stage="ptxas", error=f"{report['spill_bytes']} bytes of spills")
            return out
    else:
        hsaco = b"".join(binaries.values())
        out["hsaco_bytes"] = len(hsaco)
        if not hsaco.startswith(b"\x7fELF"):
            out.update(stage="compile", error="no HSACO")
            return out
    if job.get("reduced") is None:
        out.update(ok=True, checked=False, seconds=time.perf_counter() - start)
        return out
    t = time.perf_counter()
    try:
        inputs = _inputs([(shape, dtype) for shape, dtype, is_input in job["args"] if is_input],
                         job["family"], job.get("seed", 0))
        got_all = _run(job["reduced"], job["entry"], job["args"], inputs, job["chip"])
        want_all = _run(job["reference"], job["entry"], job["reference_args"], inputs,
                        job["chip"])
        got = [got_all[i] for i, _ in job["compare"]]
        want = [want_all[j] for _, j in job["compare"]]
    except Exception as e:  # noqa: BLE001
        out.update(stage="emulator", error=_first_line(e))
        return out
    out["check_seconds"] = time.perf_counter() - t
    rtol, atol = job["tolerance"]
    worst = 0.0
    for g, w in zip(got, want):
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        if not np.allclose(g64, w64, rtol=rtol, atol=atol):
            bad = np.argmax(np.abs(g64 - w64) - rtol * np.abs(w64))
            idx = np.unravel_index(bad, g.shape)
            out.update(stage="emulator", error=f"wrong result at {tuple(int(i) for i in idx)}: "
                       f"{g64[idx]} against {w64[idx]}")
            return out
        worst = max(worst, float(np.max(np.abs(g64 - w64))) if g.size else 0.0)
    out.update(ok=True, checked=True, max_abs_error=worst,
               seconds=time.perf_counter() - start)
    return out
