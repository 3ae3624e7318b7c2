"""Builders for ext.compute ops and their schedules."""

from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ._ext import Context, Module

_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64,
           "i8": np.int8, "i32": np.int32, "i64": np.int64}
_COMBINERS = ("sum", "prod", "max", "min")

_context = None


def _ctx() -> Context:
    global _context
    if _context is None:
        _context = Context()
    return _context


@dataclass(frozen=True)
class Axis:
    name: str
    kind: str  # "spatial" or "reduce"
    extent: int

    def mlir(self) -> str:
        return f'#ext.axis<"{self.name}", {self.kind}, {self.extent}>'


def _memref(shape: Sequence[int], dtype: str) -> str:
    dims = "x".join(str(s) for s in shape)
    return f"memref<{dims}x{dtype}>" if shape else f"memref<{dtype}>"


@dataclass(frozen=True)
class Compute:
    """One ext.compute in a function `@kernel(inputs..., outputs...)`.

    `maps` are the access expressions of each operand in the axis names
    (e.g. ["i, k", "k, j", "i, j"]); `body` is the MLIR of the body block
    without its terminator, with %in0, %in1, ... as the input elements; it
    yields %out0, %out1, ... (one per output) unless `yields` names other
    values."""
    axes: Tuple[Axis, ...]
    inputs: Tuple[Tuple[Tuple[int, ...], str], ...]
    outputs: Tuple[Tuple[Tuple[int, ...], str], ...]
    maps: Tuple[str, ...]
    body: str
    combiner: Optional[str] = None
    yields: Optional[Tuple[str, ...]] = None  # default %out0, %out1, ...
    schedule_attr: Optional[str] = None

    # --- schedules ---------------------------------------------------------
    def schedule(self, tile: Sequence[int], threads: Sequence[int],
                 blocks: Optional[Sequence[str]] = None,
                 cache: Sequence[int] = (),
                 storage_align: Optional[Dict[int, List[Tuple[int, int, int]]]] = None,
                 raster: str = "row", swizzle: int = 1, vector: int = 1,
                 unroll: int = 1,
                 xor_swizzle: Optional[Dict[int, Tuple[int, int, int]]] = None) -> "Compute":
        """A copy with a #ext.schedule: per-axis tile sizes and thread counts,
        the axes bound to blocks (default: the spatial axes tiled below their
        extent), cached inputs with TVM storage_align triples
        (dim, factor, offset) or, instead, an XOR swizzle of their shared
        tile as (bits, base, shift) (`#ext.swizzle`). `swizzle` is the
        grouping of tiles for L2 reuse, not a shared-memory layout."""
        if blocks is None:
            blocks = [a.name for a, t in zip(self.axes, tile)
                      if a.kind == "spatial" and t < a.extent]
        parts = [f"tile = [{', '.join(map(str, tile))}]"]
        if blocks:
            parts.append("blocks = [" + ", ".join(f'"{b}"' for b in blocks) + "]")
        parts.append(f"threads = [{', '.join(map(str, threads))}]")
        if cache:
            entries = []
            for operand in cache:
                aligns = (storage_align or {}).get(operand, [])
                layout = ""
                if aligns:
                    a = ", ".join(f"#ext.storage_align<dim = {d}, factor = {f}, offset = {o}>"
                                  for d, f, o in aligns)
                    layout += f", align = [{a}]"
                if operand in (xor_swizzle or {}):
                    bits, base, shift = xor_swizzle[operand]
                    layout += (f", swizzle = #ext.swizzle<bits = {bits}, base = {base}, "
                               f"shift = {shift}>")
                entries.append(f"#ext.cache<operand = {operand}{layout}>")
            parts.append("cache = [" + ", ".join(entries) + "]")
        if raster != "row":
            parts.append(f"raster = {raster}")
        for key, value in (("swizzle", swizzle), ("vector", vector), ("unroll", unroll)):
            if value != 1:
                parts.append(f"{key} = {value}")
        return replace(self, schedule_attr="#ext.schedule<" + ", ".join(parts) + ">")

    # --- text -------------------------------------------------------------
    def mlir(self) -> str:
        names = ", ".join(a.name for a in self.axes)
        operands = list(self.inputs) + list(self.outputs)
        args = ", ".join(f"%arg{i}: {_memref(s, t)}" for i, (s, t) in enumerate(operands))
        ins = ", ".join(f"%arg{i}" for i in range(len(self.inputs)))
        outs = ", ".join(f"%arg{len(self.inputs) + i}" for i in range(len(self.outputs)))
        in_types = ", ".join(_memref(s, t) for s, t in self.inputs)
        out_types = ", ".join(_memref(s, t) for s, t in self.outputs)
        maps = ", ".join(f"affine_map<({names}) -> ({m})>" for m in self.maps)
        block_args = ", ".join(f"%in{i}: {t}" for i, (_, t) in enumerate(self.inputs))
        yields = ", ".join(self.yields or [f"%out{i}" for i in range(len(self.outputs))])
        yield_types = ", ".join(t for _, t in self.outputs)
        text = [f"func.func @kernel({args}) {{",
                f"  ext.compute [{', '.join(a.mlir() for a in self.axes)}]"]
        if self.inputs:
            text.append(f"      ins({ins} : {in_types})")
        text.append(f"      outs({outs} : {out_types})")
        text.append(f"      maps [{maps}]")
        if self.combiner:
            text.append(f"      combiner({self.combiner})")
        if self.schedule_attr:
            text.append(f"      attributes {{schedule = {self.schedule_attr}}}")
        text[-1] += " {"
        text.append(f"  ^bb0({block_args}):")
        text.extend("    " + line for line in self.body.strip().splitlines() if line)
        text.append(f"    ext.yield {yields} : {yield_types}")
        text.append("  }")
        text.append("  return")
        text.append("}")
        return "\n".join(text) + "\n"

    def module(self) -> Module:
        return Module.parse(_ctx(), self.mlir())

    # --- execution ----------------------------------------------------------
    def run_cpu(self, *inputs: np.ndarray):
        """Runs the compute on the CPU (ext-cpu-pipeline) and returns its
        outputs as new numpy arrays (one array, or a tuple for several)."""
        if len(inputs) != len(self.inputs):
            raise ValueError(f"expected {len(self.inputs)} inputs, got {len(inputs)}")
        arrays = []
        for a, (shape, t) in zip(inputs, self.inputs):
            arrays.append(np.ascontiguousarray(a, dtype=_DTYPES[t]))
        outs = [np.zeros(shape, dtype=_DTYPES[t]) for shape, t in self.outputs]
        self.module().run_cpu("kernel", arrays + outs)
        return outs[0] if len(outs) == 1 else tuple(outs)


def matmul(m: int, n: int, k: int, dtype: str = "f32", acc: str = "f32") -> Compute:
    """C[m, n] = sum over k of A[m, k] * B[k, n], products in `acc`."""
    if dtype == acc:
        body = "%out0 = arith.mulf %in0, %in1 : " + acc
    else:
        body = (f"%a = arith.extf %in0 : {dtype} to {acc}\n"
                f"%b = arith.extf %in1 : {dtype} to {acc}\n"
                f"%out0 = arith.mulf %a, %b : {acc}")
    return Compute(
        axes=(Axis("i", "spatial", m), Axis("j", "spatial", n), Axis("k", "reduce", k)),
        inputs=(((m, k), dtype), ((k, n), dtype)),
        outputs=(((m, n), acc),),
        maps=("i, k", "k, j", "i, j"),
        body=body, combiner="sum")


def gemv(m: int, k: int, dtype: str = "f32") -> Compute:
    """y[m] = sum over k of A[m, k] * x[k]."""
    return Compute(
        axes=(Axis("i", "spatial", m), Axis("k", "reduce", k)),
        inputs=(((m, k), dtype), ((k,), dtype)),
        outputs=(((m,), dtype),),
        maps=("i, k", "k", "i"),
        body=f"%out0 = arith.mulf %in0, %in1 : {dtype}", combiner="sum")


def row_reduce(m: int, k: int, combiner: str = "sum", dtype: str = "f32") -> Compute:
    """y[m] = combiner over k of X[m, k] (sum, prod, max or min)."""
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of {_COMBINERS}, got {combiner!r}")
    return Compute(
        axes=(Axis("i", "spatial", m), Axis("k", "reduce", k)),
        inputs=(((m, k), dtype),),
        outputs=(((m,), dtype),),
        maps=("i, k", "i"),
        body="", yields=("%in0",), combiner=combiner)
