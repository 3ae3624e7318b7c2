"""Computes written in MLIR, for the tuner: `Node`s of a function's
`ext.compute`s (`ext.Module.computes()`'s descriptions), and a candidate as
`#ext.schedule` text, fusions included: what `tuning_space.schedule_of`
makes through Python, for a compute written in MLIR."""

from dataclasses import dataclass
from typing import List

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


def schedule_text(problem: Problem, c: Candidate, num_inputs: int) -> str:
    """`c` as `#ext.schedule` text for the problem's compute (whose first
    `num_inputs` operands are its inputs), fusions included: what
    `schedule_of` makes through Python, for a compute written in MLIR."""
    def ints(xs):
        return "[" + ", ".join(str(int(x)) for x in xs) + "]"
    parts = [f"tile = {ints(c.tile)}",
             "blocks = [" + ", ".join(f'"{b}"' for b in c.blocks) + "]",
             f"threads = {ints(c.threads)}"]
    entries, seen = [], set()
    for operand, layout in c.cache:
        n = num_inputs if operand >= len(problem.operands) else problem.operands[operand].via
        if n in seen:
            continue
        seen.add(n)
        text = f"#ext.cache<operand = {n}"
        if layout and layout[0] == "align":
            text += ", align = [" + ", ".join(
                f"#ext.storage_align<dim = {d}, factor = {f}, offset = {o}>"
                for d, f, o in layout[1]) + "]"
        elif layout:
            bits, base, shift, *panel = layout[1]
            text += f", swizzle = #ext.swizzle<bits = {bits}, base = {base}, shift = {shift}" + \
                (f", panel = {panel[0]}" if panel else "") + ">"
        entries.append(text + ">")
    if entries:
        parts.append("cache = [" + ", ".join(entries) + "]")
    if c.decomposition:
        name, params = c.decomposition
        parts.append(f"decomposition = #ext.{name}" + (
            "<" + ", ".join(f"{k} = {v}" for k, v in params) + ">" if params else ""))
    if c.swizzle is not None:
        parts.append(f"swizzle = {c.swizzle}")
    if c.vector is not None:
        parts.append(f"vector = {c.vector}")
    if c.thread_tile:
        parts.append(f"layout = #ext.blocked<thread_tile = {ints(c.thread_tile)}>")
    if c.mma:
        parts.append(f"mma = #ext.mma<{c.mma}>")
        parts.append(f"warps = {ints(c.warps)}")
    if c.stages is not None:
        parts.append(f"stages = {c.stages}")
    if problem.compute_at:
        parts.append("compute_at = [" + ", ".join(
            f'#ext.at<"{t.op.name}", "{axis}">' for t, axis in problem.compute_at) + "]")
    if problem.epilogue:
        parts.append("reverse_compute_at = [" + ", ".join(
            f'#ext.at<"{t.op.name}", "{axis}">' for t, axis in problem.epilogue) + "]")
    if problem.inline:
        parts.append("compute_inline = [" + ", ".join(f'"{t.op.name}"' for t in problem.inline)
                     + "]")
    return "#ext.schedule<" + ", ".join(parts) + ">"
