"""What a compute is, for the tuner (`ext.tuning_space`'s problems): a
`Problem` read from a TE graph (`problem_of`) or from a function's computes
written in MLIR (`problem_of_node` over `ext.tuning_mlir.nodes_of_module`):
the anchor's axes, its operands and the axes each dimension reads, the
producers it fuses (element-wise ones inlined, reductions computed at its
row), the element-wise consumer it runs as its epilogue, and its family
("gemm", "contraction", "rowwise", "reduction" or "generic")."""

import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from . import te as _te
from .accesses import operands as _operands


@dataclass
class Operand:
    """One distinct read of the anchor: its tensor, dtype, the axes (by
    position) each of its dimensions depends on, and whether the read is a
    window (an index that adds two axes: a convolution's y + ry)."""
    tensor: object
    dtype: str
    dims: List[Tuple[int, ...]]
    window: bool
    via: int = 0  # the anchor's operand it is read through

    @property
    def axes(self) -> set:
        return {a for d in self.dims for a in d}


@dataclass
class Problem:
    """What the tuner knows of a compute: the anchor, its axes as (name,
    kind, extent), its operands, the output dtype, the fusions it gets, its
    family and, for GEMMs, which axes are M, N and K."""
    op: object
    axes: List[Tuple[str, str, int]]
    operands: List[Operand]
    out_dtype: str
    family: str
    compute_at: List[Tuple[object, str]] = field(default_factory=list)
    inline: List[object] = field(default_factory=list)
    gemm: Optional[Dict[str, int]] = None  # axis positions m, n, k; "b_kmajor"
    flops_per_point: int = 2
    outputs: List[object] = field(default_factory=list)
    # An element-wise consumer run on the output tile (reverse_compute_at):
    # (its output, the anchor's axis it is attached at).
    epilogue: List[Tuple[object, str]] = field(default_factory=list)

    @property
    def spatial(self) -> List[int]:
        return [d for d, a in enumerate(self.axes) if a[1] == "spatial"]

    @property
    def reduce(self) -> List[int]:
        return [d for d, a in enumerate(self.axes) if a[1] == "reduce"]

    def extent(self, d) -> int:
        return self.axes[d][2]

    @property
    def points(self) -> int:
        return math.prod(self.extent(d) for d in self.spatial)

    @property
    def reduce_points(self) -> int:
        return math.prod(self.extent(d) for d in self.reduce) if self.reduce else 1

    @property
    def in_dtype(self) -> str:
        return self.operands[0].dtype if self.operands else self.out_dtype

    def describe(self) -> str:
        axes = ", ".join(f"{n}{'(r)' if k == 'reduce' else ''}={e}" for n, k, e in self.axes)
        fused = ""
        if self.compute_at or self.inline or self.epilogue:
            fused = "; fuses " + ", ".join(
                [f"{t.op.name}@{a}" for t, a in self.compute_at] +
                [f"inline {t.op.name}" for t in self.inline] +
                [f"epilogue {t.op.name}@{a}" for t, a in self.epilogue])
        return (f"{self.family} '{self.op.name}' [{axes}] {self.in_dtype}->"
                f"{self.out_dtype}{fused}")


def _tree_axes(tree) -> Tuple[int, ...]:
    if tree[0] == "axis":
        return (tree[1],)
    if tree[0] == "const":
        return ()
    return tuple(sorted(set(_tree_axes(tree[1]) + _tree_axes(tree[2]))))


def _product_of_two_reads(op) -> bool:
    """The body is A * B of two reads (casts allowed) under a sum."""
    if op.reducer is None or getattr(op.reducer, "name", None) != "sum" or len(op.values) != 1:
        return False
    body = op.values[0]  # the reduced expression

    def read(e):
        while e.op == "cast":
            e = e.args[0]
        return e.op == "load"
    return body.op == "mul" and all(read(a) for a in body.args)


@dataclass(eq=False)
class Node:
    """A compute as the analysis sees it, from a TE graph or an MLIR
    module: its name, axes, whether its body is a product of two reads
    under a sum, its reads as (source, the axes each dimension reads, a
    window?, dtype) where the source is another Node (a producer) or a leaf
    (an input: anything with `.name` and `.dtype`), its output references
    (with `.op.name` and `.dtype`) and the object the Problem keeps as `op`."""
    name: str
    axes: List[Tuple[str, str, int]]
    product: bool
    reads: list
    outputs: list
    op: object = None
    # The axes each dimension of the output is written at (None: its
    # spatial axes in order, as a TE compute writes).
    writes: Optional[list] = None

    @property
    def reduces(self) -> bool:
        return any(k == "reduce" for _, k, _ in self.axes)


def _te_node(op, seen=None, fuse=True) -> Node:
    """`op` as a Node; its producers' too with `fuse`, else they are read
    as inputs (kernels of their own)."""
    seen = {} if seen is None else seen
    if id(op) in seen:
        return seen[id(op)]
    for a in op.all_axes:
        if isinstance(a.extent, _te.Var):
            raise ValueError(f"axis '{a.name}' of '{op.name}' is symbolic ({a.extent.name}): "
                             "tune at concrete sizes (the schedule then serves any size)")
    node = Node(op.name, [(a.name, a.kind, int(a.extent)) for a in op.all_axes],
                _product_of_two_reads(op), [], list(op.outputs), op)
    seen[id(op)] = node
    for t, trees in _operands(op):
        source = _te_node(t.op, seen) if t.op is not None and fuse else t
        node.reads.append((source, [_tree_axes(tr) for tr in trees],
                           any(len(_tree_axes(tr)) > 1 for tr in trees), t.dtype))
    return node


def problem_of(tensor, fuse=True) -> Problem:
    """The problem of the compute producing `tensor` (a TE tensor), its
    producers fused (`fuse`) or read as they are."""
    if tensor.op is None:
        raise ValueError(f"'{tensor.name}' is a placeholder: tune a compute")
    return problem_of_node(_te_node(tensor.op, fuse=fuse))


def problem_of_node(node: Node) -> Problem:
    """The problem of a compute (`Node`): its producers fused (element-wise
    ones inlined, reductions computed at its first spatial axis), the reads
    that remain, its family. An element-wise compute over the output of a
    GEMM or contraction (bias, activation, cast) is that anchor's problem
    with it fused as the epilogue: the anchor is what gets tuned."""
    anchor = _epilogue_anchor(node)
    if anchor is not None:
        problem = _problem_of_anchor(anchor)
        if problem.family in ("gemm", "contraction"):
            spatial = [a[0] for a in anchor.axes if a[1] == "spatial"]
            problem.epilogue = [(node.outputs[0], spatial[-1])]
            return problem
    return _problem_of_anchor(node)


def _written_at(node: Node) -> List[Tuple[int, ...]]:
    if node.writes is not None:
        return [tuple(w) for w in node.writes]
    return [(d,) for d, a in enumerate(node.axes) if a[1] == "spatial"]


def _epilogue_anchor(node: Node) -> Optional[Node]:
    """The compute `node` can be fused into as its epilogue
    (reverse_compute_at), or None: `node` is element-wise, reads one
    reduction once, at the point it writes (same extents), and its other
    inputs (not computes) at plain axes or constants (a bias broadcast)."""
    if node.reduces or len(node.outputs) != 1:
        return None
    anchors = [r for r in node.reads if isinstance(r[0], Node) and r[0].reduces]
    if len(anchors) != 1 or any(isinstance(r[0], Node) and r is not anchors[0]
                                for r in node.reads):
        return None
    anchor, dims, window, _ = anchors[0]
    written = _written_at(node)
    if window or len(anchor.outputs) != 1 or [tuple(d) for d in dims] != written or \
            _written_at(anchor) != [(d,) for d, a in enumerate(anchor.axes) if a[1] == "spatial"]:
        return None
    extents = [anchor.axes[d][2] for d, a in enumerate(anchor.axes) if a[1] == "spatial"]
    if [node.axes[w[0]][2] for w in written] != extents:
        return None
    if any(window or any(len(d) > 1 for d in dims)
           for source, dims, window, _ in node.reads if source is not anchor):
        return None
    return anchor


def _problem_of_anchor(node: Node) -> Problem:
    producers, seen = [], set()

    def visit(n):
        for source, _, _, _ in n.reads:
            if isinstance(source, Node) and id(source) not in seen:
                seen.add(id(source))
                visit(source)
                producers.append(source)
    visit(node)
    fused_at = [p for p in producers if p.reduces]
    inline = [p for p in producers if not p.reduces]
    axes = node.axes
    # Operands of the anchor once its element-wise producers are inlined:
    # what the kernel reads, each with the anchor operand it comes through.
    reads = []

    def collect(n, compose, via):
        for k, (source, dims, window, dtype) in enumerate(n.reads):
            dims = [compose(d) for d in dims]
            here = k if via is None else via
            if isinstance(source, Node) and source in inline:
                # The producer's axis d is read at dims[d] of this access.
                collect(source, lambda ax, dims=dims: tuple(sorted(
                    {a for x in ax for a in dims[x]})) if ax else (), here)
            elif isinstance(source, Node) and source in fused_at:
                continue  # computed in the kernel, in shared memory
            else:
                leaf = source.outputs[0] if isinstance(source, Node) else source
                reads.append(Operand(leaf, dtype, dims, window, here))
    collect(node, lambda ax: ax, None)
    out_dtype = node.outputs[0].dtype
    family = "generic"
    gemm = None
    spatial = [d for d, a in enumerate(axes) if a[1] == "spatial"]
    reduce = [d for d, a in enumerate(axes) if a[1] == "reduce"]
    if reduce and node.product and len(reads) == 2:
        family = "contraction"
        if len(reduce) == 1 and len(spatial) >= 2 and not any(r.window for r in reads):
            m, n, k = spatial[-2], spatial[-1], reduce[0]
            batch = set(spatial[:-2])
            a, b = reads
            if m not in a.axes and n in a.axes:
                a, b = b, a
            if (a.axes - batch) == {m, k} and (b.axes - batch) == {n, k} and \
                    all(len(d) <= 1 for d in a.dims + b.dims):
                family = "gemm"
                gemm = dict(m=m, n=n, k=k,
                            a_kmajor=a.dims[-1] == (k,), b_kmajor=b.dims[-1] == (k,),
                            a=reads.index(a), b=reads.index(b))
    elif reduce:
        family = "reduction"
    elif fused_at and spatial:
        family = "rowwise"
    return Problem(node.op if node.op is not None else node, axes, reads, out_dtype, family,
                   compute_at=[(p.outputs[0], axes[spatial[0]][0]) for p in fused_at]
                   if spatial else [],
                   inline=[p.outputs[0] for p in inline], gemm=gemm,
                   outputs=list(node.outputs))
