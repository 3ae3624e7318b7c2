"""Chip names, checked where the user gives them (`ext.build`, `ext.tune`,
`ext.schedule(tuned=True)`, `ext.onnx.load`, the helpers' `chip=`) before
any pipeline is made of them: a name ext does not compile for is a
ValueError at the user's line naming the valid chips, not a malformed
pipeline string or a failure after a whole tuning sweep.

What is valid is ext's C++ answer, not a table of this module's: the
binding's list of chips where it has one (`ext._ext.known_chips`), else
ext's chip model (`ext.chip_info`: sm_NN[a|f] or gfxNNN) and the GPU
pipeline's own check that LLVM's NVPTX or AMDGPU back end knows the chip,
asked once per name on an empty module.
"""

import functools
import re
from typing import Optional

from . import _ext
from ._ext import Module, chip_info
from .te import _error, _where

# The chip ext compiles for when none is given (ext/Model/Chip.h).
DEFAULT_CHIP = _ext.default_chip()

# Chips named as examples when the binding cannot list them all (each is
# checked like any other name before it is shown).
_EXAMPLES = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_120",
             "gfx90a", "gfx942", "gfx950", "gfx1100")
_VENDORS = {"nvidia": "an NVIDIA", "amd": "an AMD"}


def _listed():
    """The binding's list of chips, or None where it has none."""
    lister = getattr(_ext, "known_chips", None)
    return list(lister()) if lister is not None else None


@functools.lru_cache(maxsize=256)
def _problem(chip: str) -> Optional[str]:
    """Why ext does not compile for `chip` (None when it does)."""
    listed = _listed()
    if listed is not None:
        return None if chip in listed else "ext does not know it"
    try:
        info = chip_info(chip)
    except ValueError as e:
        return str(e)
    target = "nvvm" if info["vendor"] == "nvidia" else "rocdl"
    try:
        Module.parse("module {}").compile(target, chip, "", 2, False)
    except ValueError as e:
        return str(e).replace("ext-gpu-pipeline: ", "")
    return None


def valid_chips_text() -> str:
    """The valid chips, for messages."""
    listed = _listed()
    if listed is not None:
        nvidia = [c for c in listed if c.startswith("sm_")]
        amd = [c for c in listed if not c.startswith("sm_")]
        return f"valid chips: NVIDIA {', '.join(nvidia)}; AMD {', '.join(amd)}"
    examples = [c for c in _EXAMPLES if _problem(c) is None]
    return ("valid chips are the NVIDIA sm_NN[a] and AMD gfxNNN names LLVM's back ends "
            f"know, e.g. {', '.join(examples)}")


def check_chip(chip, target: Optional[str] = None, loc=None, allow_default: bool = True):
    """`chip` if ext compiles for it (and for `target`, "nvvm" or "rocdl",
    when given); None or "" (the default chip) where `allow_default`.
    Otherwise a ValueError at `loc` (default: the user's line) naming the
    valid chips.

        >>> ext.chips.check_chip("sm_90a")
        'sm_90a'
    """
    if chip is None or (chip == "" and allow_default):
        return chip
    loc = loc or _where()
    if not isinstance(chip, str):
        raise _error(loc, f"chip must be a chip's name such as 'sm_90a' or 'gfx942', got "
                          f"{chip!r} ({type(chip).__name__})")
    why = _problem(chip)
    if why is not None:
        why = why.replace(f"chip {chip!r}", "it").replace(f"chip '{chip}'", "it")
        raise _error(loc, f"unknown chip {chip!r}: {why}; {valid_chips_text()}")
    vendor = chip_info(chip)["vendor"]
    want = {"nvvm": "nvidia", "rocdl": "amd"}.get(target)
    if want is not None and vendor != want:
        other = "rocdl" if target == "nvvm" else "nvvm"
        raise _error(loc, f"chip {chip!r} is {_VENDORS[vendor]} chip; target={target!r} "
                          f"builds for {_VENDORS[want]} chip (use target={other!r} for it)")
    return chip


@functools.lru_cache(maxsize=1)
def _instructions():
    return {row["name"]: row for row in _ext.matrix_instructions()}


def matrix_instruction(mma) -> Optional[dict]:
    """The hardware model's row of the matrix instruction `mma` names (a
    name such as "m16n8k16", or `#ext.mma<NAME, ...>` text); None for
    "auto" and anything else."""
    if not isinstance(mma, str):
        return None
    m = re.match(r"\s*#ext\.mma<\s*(\w+)", mma)
    return _instructions().get(m.group(1) if m else mma)


def matrix_instructions() -> list:
    """Every row of the hardware model's matrix instruction table."""
    return list(_instructions().values())
