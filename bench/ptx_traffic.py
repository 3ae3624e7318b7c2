"""Global-memory traffic counted from a kernel's PTX: shared by bench/fusion
and scripts/report.py.

Every `ld.global` and `st.global` (with its vector width and type) is
counted once per thread. That is the kernel's traffic per thread when none
of them sits in a loop (a backward branch around it), whose trip count the
text does not give: then the count is refused with the reason. Masked lanes
of a ragged tile count too, so the figure is an upper bound of what moves.
"""
import re

_SIZES = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "bf16": 2,
          "b32": 4, "u32": 4, "s32": 4, "f32": 4, "b64": 8, "u64": 8, "s64": 8, "f64": 8}


def ptx_global_bytes(ptx):
    """(bytes one thread moves, "") or (None, why not)."""
    lines = ptx.splitlines()
    labels = {}
    for i, line in enumerate(lines):
        match = re.match(r"^(\$L\w+):", line.strip())
        if match:
            labels[match.group(1)] = i
    loops = []
    for i, line in enumerate(lines):
        match = re.search(r"\bbra(?:\.uni)?\s+(\$L\w+);", line)
        if match and labels.get(match.group(1), i + 1) <= i:
            loops.append((labels[match.group(1)], i))
    total = 0
    for i, line in enumerate(lines):
        match = re.search(r"\b(?:ld|st)\.global(?:\.\w+)*?(?:\.v(\d))?\.(\w+)\s", line)
        if not match:
            continue
        if any(lo <= i <= hi for lo, hi in loops):
            return None, f"a global access in a loop (PTX line {i + 1})"
        total += int(match.group(1) or 1) * _SIZES[match.group(2)]
    return total, ""
