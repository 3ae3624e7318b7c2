"""Computes written in MLIR, for the tuner: `Node`s of a function's
`ext.compute`s (`ext.Module.computes()`'s descriptions), and a candidate as
a typed `#ext.schedule` (`ext._ext.schedules`), fusions included: what
`tuning_space.schedule_of` makes through Python, for a compute written in
MLIR."""

from dataclasses import dataclass
from typing import List

from ._ext import schedules as _cpp
from .tuning_problem import Node, Problem
from .tuning_space import Candidate


@dataclass(eq=False)
class Ref:
    """An input or output of an MLIR compute, for the analysis: a name, a
    dtype, and (outputs) the compute that writes it as `op`."""
    name: str
    dtype: str
    op: object = None


def nodes_of_module(descriptions: List[dict]) -> List[Node]:
    """Nodes for the computes of one function (`ext.Module.computes()`'s
    entries of that function, in order). A producer without a `name`
    cannot be fused (a schedule names what it fuses): it is read as an
    input."""
    nodes: List[Node] = []
    for d in descriptions:
        for name, kind, extent in d["axes"]:
            if extent is None:
                raise ValueError(f"axis '{name}' of compute #{d['index']} of @{d['function']} "
                                 "is symbolic: tune at concrete sizes")
        node = Node(d["name"] or f"#{d['index']}", [tuple(a) for a in d["axes"]], d["product"],
                    [], [], None)
        node.op = node
        for k in range(d["num_inputs"]):
            o = d["operands"][k]
            p = o["producer"]
            if p >= 0 and descriptions[p]["name"]:
                source = nodes[p]
            else:
                source = Ref(f"arg{o['arg']}" if o["arg"] >= 0 else f"buffer{o['value']}",
                             o["dtype"])
            node.reads.append((source, [tuple(x) for x in o["dims"]], o["window"], o["dtype"]))
        out = d["operands"][d["num_inputs"]]
        node.outputs = [Ref(node.name, out["dtype"], node)]
        node.writes = [tuple(x) for x in out["dims"]]
        nodes.append(node)
    return nodes


def schedule_attr(problem: Problem, c: Candidate, num_inputs: int):
    """`c` as an `#ext.schedule` for the problem's compute (whose first
    `num_inputs` operands are its inputs), fusions included: what
    `schedule_of` makes through Python, for a compute written in MLIR. A
    typed attribute (`ext._ext.schedules`, made and verified by ext's C++
    core); `str()` prints it."""
    entries, seen = [], set()
    for operand, layout in c.cache:
        n = num_inputs if operand >= len(problem.operands) else problem.operands[operand].via
        if n in seen:
            continue
        seen.add(n)
        fields = {}
        if layout and layout[0] == "align":
            fields["align"] = [_cpp.storage_align(dim=d, factor=f, offset=o)
                               for d, f, o in layout[1]]
        elif layout:
            bits, base, shift, *panel = layout[1]
            fields["swizzle"] = _cpp.swizzle(bits=bits, base=base, shift=shift,
                                             panel=panel[0] if panel else 0)
        entries.append(_cpp.cache(operand=n, **fields))
    fields = dict(tile=list(c.tile), blocks=list(c.blocks), threads=list(c.threads),
                  cache=entries, swizzle=c.swizzle, vector=c.vector, stages=c.stages)
    if c.decomposition:
        name, params = c.decomposition
        fields["decomposition"] = _cpp.decomposition(name, **dict(params))
    if c.thread_tile:
        fields["layout"] = _cpp.blocked(thread_tile=list(c.thread_tile))
    if c.mma:
        fields["mma"] = _cpp.mma(shape=c.mma)
        fields["warps"] = list(c.warps)
    return _cpp.schedule(
        **fields,
        compute_at=[_cpp.at(compute=t.op.name, axis=a) for t, a in problem.compute_at],
        reverse_compute_at=[_cpp.at(compute=t.op.name, axis=a) for t, a in problem.epilogue],
        compute_inline=[t.op.name for t in problem.inline])
