"""Schedules worth running for the importers' GEMMs (issue 55 item 4):
`ext.tune`'s pick for a contraction kernel, its fusions (inlined
producers, the epilogue) then applied on top.

- By default a contraction of f16 or bf16 inputs takes the tuner's model
  pick (no candidate compiled or run, no database): the chip's tensor-core
  instruction (mma.sync, wgmma, MFMA) with its tiles, where the default
  schedule would use the CUDA cores.
- `tune=True` (or a database: a path or an `ext.TuningDatabase`) tunes every
  contraction as `ext.tune` does (candidates compiled and checked on the
  emulator at a reduced size, timed on a GPU where one is), its picks kept
  in the database for the next load.

A tuned schedule that the kernel's fusions do not build with (checked
before the model is built) gives way to the default one; `report()` says
which kernels use which."""

from typing import Optional

from .accesses import operands
from .chips import DEFAULT_CHIP

_TENSOR_CORE_TYPES = ("f16", "bf16")


def wants_tuning(imp, op, tune) -> bool:
    """Whether contraction `op` takes a tuned schedule: under `tune`, or by
    default for f16/bf16 inputs (tensor cores)."""
    if imp.role.get(id(op)) != "contraction" or any(
            not isinstance(a.extent, int) for a in op.all_axes):
        return False
    if tune:
        return True
    inputs = {t.dtype for t, _ in operands(op)}
    return bool(inputs) and inputs <= set(_TENSOR_CORE_TYPES)


def tuned_schedule(imp, op, kernel, tune) -> Optional[object]:
    """`ext.tune`'s schedule for contraction `op` (its fusions not yet
    applied), or None where the tuner finds none."""
    from .tuning import _TeSubject, _tune
    chip = imp.chip or DEFAULT_CHIP
    if tune:
        database = None if tune is True else tune
        args = dict(trials=2, database=database, check=True, min_legal=50)
    else:  # the model's pick: nothing run, no database
        args = dict(trials=1, database=False, check=False, min_legal=20)
    try:
        # Alone: the kernels before it (its producers) are its inputs.
        return _tune(_TeSubject(op.outputs[0], None, fuse=False), chip, args["trials"], None,
                     args["database"], args["min_legal"], args["check"], False, False, None,
                     None)
    except (RuntimeError, ValueError) as e:
        kernel.tuning = f"not tuned: {e}".splitlines()[0]
        return None
