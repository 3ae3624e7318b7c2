"""`OnnxModule.report()` (issue 55 item 6): per kernel of an imported model
its fusions, the schedule it runs with (the default, or the tuner's: see
onnx_tuning.py) and the bytes it must move at least (every tensor it reads
from outside it once, what it stores once; tiles re-read inputs, mostly
from L2, on top of that). A symbolic dim (an `ext.var` from a `dim_param`)
takes its size from `sizes`."""

from dataclasses import dataclass
from typing import Dict, List, Optional

import numpy as np

from . import dtypes as _dt
from . import te as _te
from .accesses import operands


def _nbytes(tensor, sizes: Dict[str, int]) -> int:
    dims = []
    for d in tensor.shape:
        if isinstance(d, _te.Var):
            if d.name not in sizes:
                raise ValueError(f"ext.onnx: report() of a model with the symbolic dim "
                                 f"'{d.name}': give its size, report(sizes={{'{d.name}': n}})")
            d = sizes[d.name]
        dims.append(int(d))
    return int(np.prod(dims, dtype=np.int64)) * _dt.storage_bytes(tensor.dtype)


@dataclass
class ModelReport:
    """`OnnxModule.report()`: per kernel (a `FusedKernel`, how many
    computes are fused into it, the bytes it moves at least)."""
    name: str
    rows: list

    @property
    def kernels(self) -> int:
        return sum(1 for k, _, _ in self.rows if k.schedule is not None)

    @property
    def host_loops(self) -> List[str]:
        return [k.anchor for k, _, _ in self.rows if k.schedule is None]

    @property
    def fused(self) -> int:
        return sum(n for _, n, _ in self.rows)

    @property
    def bytes_moved(self) -> int:
        return sum(b for _, _, b in self.rows)

    @property
    def tuned(self) -> List[str]:
        """The kernels whose schedule is the tuner's (tensor cores included)."""
        return [k.anchor for k, _, _ in self.rows
                if k.tuning and not k.tuning.startswith(("not tuned", "the tuned"))]

    def __str__(self):
        lines = [f"{self.name}: {self.kernels} kernels, {len(self.host_loops)} host loops, "
                 f"{self.fused} computes fused, {self.bytes_moved} bytes moved at least"]
        for k, n, b in self.rows:
            what = "host loops" if k.schedule is None else "kernel"
            how = f", schedule: {k.tuning}" if k.tuning else \
                (", default schedule" if k.schedule is not None else "")
            lines.append(f"  {what} {k.anchor} (node '{k.node}'): {n} fused, {b} bytes{how}")
        return "\n".join(lines)


def model_report(module, sizes: Optional[Dict[str, int]]) -> ModelReport:
    by_name = {op.name: op for op in module.computes}
    sizes = dict(sizes or {})
    rows = []
    for k in module.kernels:
        members = {k.anchor, *k.inlined, *k.computed_at}
        if k.epilogue:
            members.add(k.epilogue)
        read = {}
        for name in members:
            for src, _ in operands(by_name[name]):
                if src.op is None or src.op.name not in members:
                    read[id(src)] = src
        stored = by_name[k.epilogue or k.anchor].outputs[0]
        moved = sum(_nbytes(t, sizes) for t in read.values()) + _nbytes(stored, sizes)
        rows.append((k, len(members) - 1, moved))
    return ModelReport(module.name, rows)
