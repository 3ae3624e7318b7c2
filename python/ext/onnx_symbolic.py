"""Symbolic dims at `ext.onnx.load`: a graph input dim named by `dim_param`
(a batch, a sequence) becomes an `ext.var` of that name, so one load serves
every size of it.

    >>> m = ext.onnx.load("mlp.onnx")            # x: ("batch", 32)
    >>> y1, = m.run({"x": x1}); y7, = m.run({"x": x7})   # batch 1, then 7

How: the importer's ops compute shapes as ints, so each symbolic dim is
imported as a stand-in size (`Sizes.stand_in`: a prime near 2**24 no model
has as a dim), and after the nodes are mapped every compute, placeholder and
feed shape holding that int gets the `ext.var` instead (`Sizes.generalize`).
That is exact only where each op treats the dim as a whole, with no number
derived from it. Two checks make sure:

* `check_nodes`, per ONNX node: a symbolic dim may not be reduced (MatMul's
  and Gemm's inner dim, Softmax's and LayerNormalization's rows, Reduce*),
  sliced, gathered, split, concatenated or padded along, nor be a Conv's or
  a pooling's channel or spatial dim; ops not listed take no symbolic input;
* `Sizes.generalize`, per compute: no shape, extent or index constant may
  be derived from a stand-in (a Reshape merging the symbolic dim with
  another: `batch*8`; a reduce axis over it).

A refusal is an `OnnxImportError` naming the node and the dim.

Before that, `fold_shapes` folds shape subgraphs over a symbolic input (what
`torch.onnx.export(..., dynamic_axes=...)` writes): a Shape of a value whose
dims are known or symbolic is a vector of ints and dim names, carried
through Gather, Unsqueeze, Squeeze, Concat, Slice, Cast and Identity; a
vector of ints is a constant (onnx_fold.py folds on from it), and a Reshape
to a vector holding names gets a constant target where each name is 0 (the
input's dim at that position is that dim) or -1 (at most one such), which is
ONNX's own way to say "this size, whatever it is".
"""

import re
from typing import Dict, List, Optional

import numpy as np

from . import te as _te
from .onnx_check import DynamicShapeError, OnnxImportError, node_name
from .onnx_fold import _EVAL, _attr, _drop_unused, _shapes, fold as _fold, slice_bounds

# ---------------------------------------------------------------------------
# Graph inputs


def check_input(vi, symbolic: bool = True):
    """DynamicShapeError for a graph input without a shape or with a dim
    that is neither a value nor (with `symbolic`) a name."""
    tt = vi.type.tensor_type
    if not tt.HasField("shape"):
        raise DynamicShapeError(
            f"ext.onnx: graph input '{vi.name}' has no shape; ext builds for static "
            f"shapes: pass load(..., input_shapes={{'{vi.name}': (...)}})")
    for d, dim in enumerate(tt.shape.dim):
        if dim.HasField("dim_value") or (symbolic and _named(dim)):
            continue
        what = f"'{dim.dim_param}'" if dim.HasField("dim_param") else "unknown"
        raise DynamicShapeError(
            f"ext.onnx: graph input '{vi.name}' has a dynamic dimension {d} ({what}); "
            f"ext builds for static shapes and for dims named by dim_param (an "
            f"identifier, as ext.var): pass load(..., input_shapes="
            f"{{'{vi.name}': (...)}})")


def _named(dim) -> bool:
    return dim.HasField("dim_param") and dim.dim_param.isidentifier()


def _computed_inputs(model, input_shapes, dtypes):
    initializers = {t.name for t in model.graph.initializer}
    return [vi for vi in model.graph.input
            if vi.name not in initializers and vi.name not in (input_shapes or {}) and
            vi.type.tensor_type.elem_type in dtypes]


def check_inputs(model, input_shapes, dtypes):
    """Before ops are named unsupported: a shape computation left unfolded
    because an input's shape is dynamic (not named) is the input's fault."""
    for vi in _computed_inputs(model, input_shapes, dtypes):
        check_input(vi)


def input_shape(vi, sizes: Optional["Sizes"]) -> tuple:
    """vi's shape (checked first), a symbolic dim as its stand-in in
    `sizes` (without `sizes`, a named dim is a DynamicShapeError too)."""
    check_input(vi, symbolic=bool(sizes))
    return tuple(int(d.dim_value) if d.HasField("dim_value") else sizes.stand_in[d.dim_param]
                 for d in vi.type.tensor_type.shape.dim)


class Sizes:
    """The symbolic dims of a model: name -> `ext.var` and the stand-in int
    the importer computes with (see the module's text)."""

    def __init__(self, names):
        self.vars = {n: _te.var(n) for n in names}
        self.stand_in = dict(zip(names, _stand_ins(len(names))))
        self.name_of = {s: n for n, s in self.stand_in.items()}

    def __bool__(self):
        return bool(self.vars)

    @classmethod
    def of(cls, model, input_shapes, dtypes) -> "Sizes":
        """The dim_param names of the graph inputs `input_shapes` leaves."""
        names = []
        for vi in _computed_inputs(model, input_shapes, dtypes):
            for dim in vi.type.tensor_type.shape.dim:
                if _named(dim) and dim.dim_param not in names:
                    names.append(dim.dim_param)
        return cls(names)


    def derived(self, n) -> Optional[str]:
        """The name of the symbolic dim `n` (an int other than its stand-in)
        is made from: a multiple of it or a number near it; else None."""
        if not isinstance(n, int) or isinstance(n, bool):
            return None
        for name, s in self.stand_in.items():
            if n != s and n != 0 and (n % s == 0 or s // 4 < abs(n) < 4 * s):
                return name
        return None

    def shape(self, shape) -> tuple:
        """`shape` with each stand-in as its `ext.var`."""
        return tuple(self.vars[self.name_of[d]] if d in self.name_of else d for d in shape)

    def text(self, message: str) -> str:
        """`message` with stand-ins (and their multiples) written as names."""
        def name(m):
            n = int(m.group(0))
            for v, s in self.stand_in.items():
                if n == s:
                    return v
                if n % s == 0:
                    return f"{n // s}*{v}"
                if abs(n - s) < 1 << 16:
                    return f"{v}{n - s:+d}"
            return m.group(0)
        return re.sub(r"\d{7,}", name, message)

    def generalize(self, computes, placeholders, node_of):
        """Each stand-in in the computes' axes and outputs and in the
        placeholders' shapes -> its `ext.var`; a shape, extent or index
        constant derived from one is an OnnxImportError naming the node."""
        def refuse(op, what):
            raise OnnxImportError(self.text(
                f"ext.onnx: node '{node_of.get(id(op), op.name)}': {what}; ext.onnx keeps a "
                "symbolic dim (ext.var) whole: it is not merged with another dim, reduced, "
                "sliced or offset"))
        for op in computes:
            for a in op.all_axes:
                if isinstance(a.extent, _te.Var):
                    continue
                name = self.name_of.get(a.extent) or self.derived(a.extent)
                if name is None:
                    continue
                if a.extent != self.stand_in[name]:
                    refuse(op, f"compute '{op.name}' has an axis of size {a.extent}, made "
                               f"from symbolic dim '{name}'")
                if a.kind == "reduce":
                    refuse(op, f"compute '{op.name}' reduces over symbolic dim '{name}'")
            for body in op.values:
                for e in _te._walk(body):
                    made = e.op == "const" and isinstance(e.attr, int) and (
                        self.name_of.get(e.attr) or self.derived(e.attr))
                    if made:
                        refuse(op, f"compute '{op.name}' indexes with {e.attr}, made from "
                                   f"symbolic dim '{made}'")
            for t in op.outputs:
                self._check_shape(t, lambda what, op=op: refuse(op, what))
        for t in placeholders:
            self._check_shape(t, lambda what, t=t: refuse(t, what))
        for op in computes:
            for a in op.all_axes:
                if a.extent in self.name_of and not isinstance(a.extent, _te.Var):
                    a.extent = self.vars[self.name_of[a.extent]]
            for t in op.outputs:
                t.shape = self.shape(t.shape)
        for t in placeholders:
            t.shape = self.shape(t.shape)

    def _check_shape(self, t, refuse):
        for d in t.shape:
            name = self.derived(d)
            if name is not None:
                refuse(f"'{t.name}' has a dim of {d}, made from symbolic dim '{name}'")

    # -- running ---------------------------------------------------------

    @staticmethod
    def bind(feeds, given) -> Dict[str, int]:
        """The size of each symbolic dim from the input arrays (`feeds` as
        OnnxModule keeps them); a ValueError for a known dim that differs or
        for one dim given two sizes."""
        sizes, where = {}, {}
        for feed in feeds:
            if feed[0] != "input":
                continue
            _, name, shape, _, _ = feed
            a = given[name]
            if a.ndim != len(shape) or any(
                    not isinstance(s, _te.Var) and int(n) != s for n, s in zip(a.shape, shape)):
                raise ValueError(f"ext.onnx: input '{name}' has shape {tuple(a.shape)}, the "
                                 f"model's is {_show(shape)}")
            for d, (n, s) in enumerate(zip(a.shape, shape)):
                if not isinstance(s, _te.Var):
                    continue
                if s.name in sizes and sizes[s.name] != int(n):
                    raise ValueError(
                        f"ext.onnx: symbolic dim '{s.name}' is {sizes[s.name]} in "
                        f"{where[s.name]} but {int(n)} in dimension {d} of input '{name}'")
                sizes.setdefault(s.name, int(n))
                where.setdefault(s.name, f"dimension {d} of input '{name}'")
        return sizes


def concrete(shape, sizes) -> tuple:
    """`shape` with each `ext.var` as its size in `sizes`."""
    return tuple(sizes[s.name] if isinstance(s, _te.Var) else s for s in shape)


def _show(shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _stand_ins(n) -> List[int]:
    """n primes below 2**24: no model has one as a dim, and a dim merged
    with or cut from one is told apart (`Sizes.derived`)."""
    out, k = [], (1 << 24) - 1
    while len(out) < n:
        if all(k % p for p in range(3, int(k ** 0.5) + 1, 2)):
            out.append(k)
        k -= 2
    return out


# ---------------------------------------------------------------------------
# Per node: which dims of its inputs may be symbolic

# Ops that take a symbolic dim anywhere (element-wise, layout moves whose
# shapes `Sizes.generalize` checks).
_WHOLE = {"Abs", "Add", "And", "Cast", "Clip", "Constant", "Div", "Equal", "Erf", "Exp",
          "Expand", "Flatten", "Gelu", "Greater", "GreaterOrEqual", "Identity", "Less",
          "LessOrEqual", "Log", "Max", "Min", "Mul", "Neg", "Not", "Or", "Pow",
          "Reciprocal", "Relu", "Reshape", "Sigmoid", "Sqrt", "Squeeze", "Sub", "Tanh",
          "Transpose", "Unsqueeze", "Where"}


def _axis_list(imp, node, attrs_axes, at, rank, default):
    """A node's axes (normalized): input `at` if given (newer opsets), else
    the attribute, else `default`."""
    axes = None
    if len(node.input) > at and node.input[at]:
        v = imp.values.get(node.input[at])
        axes = None if v is None or v.const is None else [int(a) for a in v.const.reshape(-1)]
    if axes is None:
        axes = attrs_axes
    axes = default if axes is None else axes
    return [int(a) % max(rank, 1) for a in axes]


def _fixed_dims(imp, node, shapes):
    """(input number, dim, why) of each dim of node's inputs that must not
    be symbolic; None where the op takes no symbolic dim at all."""
    op = node.op_type
    rank = len(shapes[0]) if shapes and shapes[0] is not None else 0

    def attr(name, default=None):
        return _attr(node, imp.onnx, name, default)
    if op in _WHOLE:
        return []
    if op == "MatMul":
        b = len(shapes[1]) if len(shapes) > 1 and shapes[1] is not None else 0
        return [(0, rank - 1, "the inner (reduced) dim"),
                (1, max(b - 2, 0), "the inner (reduced) dim")]
    if op == "MatMulNBits":
        return [(0, rank - 1, "the inner (reduced) dim")]
    if op == "Gemm":
        return [(0, 0 if attr("transA", 0) else 1, "the inner (reduced) dim"),
                (1, 1 if attr("transB", 0) else 0, "the inner (reduced) dim")]
    if op in ("Softmax", "LogSoftmax"):
        axis = attr("axis", -1 if imp.opset >= 13 else 1) % max(rank, 1)
        rows = [axis] if imp.opset >= 13 else range(axis, rank)
        return [(0, d, "a dim its rows reduce") for d in rows]
    if op == "LayerNormalization":
        axis = attr("axis", -1) % max(rank, 1)
        return [(n, d, "a normalized dim") for n in range(len(shapes))
                for d in range(axis if n == 0 else 0, rank if n == 0 else len(shapes[n] or ()))]
    if op.startswith("Reduce"):
        axes = _axis_list(imp, node, attr("axes"), 1, rank, list(range(rank)))
        return [(0, d, "a reduced dim") for d in axes]
    if op in ("Concat", "Split", "Gather"):
        return [(0 if op != "Concat" else n, attr("axis", 0) % max(rank, 1),
                 f"the dim it {'concatenates' if op == 'Concat' else op.lower() + 's'} along")
                for n in range(len(shapes) if op == "Concat" else 1)]
    if op in ("Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
              "BatchNormalization", "Pad"):
        return [(0, d, "a channel or spatial dim") for d in range(1, rank)] + \
            [(n, d, "a weight's dim") for n in range(1, len(shapes))
             for d in range(len(shapes[n] or ()))]
    if op == "Slice":
        return None  # checked by `_slice_whole`
    return None


def _slice_whole(imp, node, x_shape, sizes) -> Optional[str]:
    """The symbolic dim a Slice cuts (not start 0, step 1, to its end)."""
    def const(n, default):
        if len(node.input) > n and node.input[n]:
            v = imp.values.get(node.input[n])
            return None if v is None or v.const is None else [int(a) for a in v.const.reshape(-1)]
        return default
    if len(node.input) > 1:
        starts, ends = const(1, None), const(2, None)
        if starts is None or ends is None:
            return None  # the importer refuses computed bounds
        axes, steps = const(3, list(range(len(starts)))), const(4, [1] * len(starts))
    else:
        starts, ends = _attr(node, imp.onnx, "starts"), _attr(node, imp.onnx, "ends")
        axes = _attr(node, imp.onnx, "axes", range(len(starts)))
        steps = [1] * len(starts)
    for s, e, a, st in zip(starts, ends, axes or (), steps or ()):
        size = x_shape[int(a) % len(x_shape)]
        if size in sizes.name_of and slice_bounds(s, e, st, size) != (0, size, 1):
            return sizes.name_of[size]
    return None


def check_nodes(imp, sizes: Sizes):
    """An OnnxImportError naming the first node of `imp`'s graph (mapped,
    its values known) that would read a symbolic dim other than whole."""
    for node in imp.graph.node:
        ins = [imp.values.get(x) if x else None for x in node.input]
        if any(x and v is None for x, v in zip(node.input, ins)) or node.output[0] not in \
                imp.values:
            continue  # not mapped (not needed by the outputs)
        shapes = [v.shape if v is not None else None for v in ins]
        symbolic = [(n, d, sizes.name_of[s]) for n, shape in enumerate(shapes)
                    for d, s in enumerate(shape or ()) if s in sizes.name_of]
        where = f"ext.onnx: {node.op_type} node '{node_name(node)}'"
        if symbolic:
            _check_node(imp, node, where, shapes, symbolic, sizes)
        for out in node.output:
            shape = imp.values[out].shape if out in imp.values else ()
            made = [(d, sizes.derived(d)) for d in shape if sizes.derived(d)]
            if made:
                raise OnnxImportError(sizes.text(
                    f"{where}: its output '{out}' has a dim of {made[0][0]}, made from symbolic "
                    f"dim '{made[0][1]}'; ext.onnx keeps a symbolic dim (ext.var) whole: it is "
                    "not merged with another dim, sliced or offset"))


def _check_node(imp, node, where, shapes, symbolic, sizes):
    """An OnnxImportError where `node` reads a symbolic dim of its inputs
    (`symbolic`: (input, dim, name)) other than whole."""
    if node.op_type == "Slice":
        cut = _slice_whole(imp, node, shapes[0], sizes)
        if cut is not None:
            raise OnnxImportError(f"{where}: slices symbolic dim '{cut}'; ext.onnx takes a "
                                  "symbolic dim (ext.var) only whole there")
        return
    fixed = _fixed_dims(imp, node, shapes)
    if fixed is None:
        n, d, name = symbolic[0]
        raise OnnxImportError(f"{where}: input {n} has symbolic dim '{name}' (dimension "
                              f"{d}); ext.onnx maps {node.op_type} for static shapes only: "
                              "pass load(..., input_shapes=...)")
    for n, d, why in fixed:
        if n < len(shapes) and shapes[n] is not None and d < len(shapes[n]) and \
                shapes[n][d] in sizes.name_of:
            raise OnnxImportError(
                f"{where}: dimension {d} of input {n}, {why}, is symbolic dim "
                f"'{sizes.name_of[shapes[n][d]]}'; ext.onnx takes a symbolic dim "
                "(ext.var) only where it stays whole: pass load(..., input_shapes=...)")


class SymbolicImport:
    """Mixed into ext.onnx's importer for a model with symbolic dims: the
    graph inputs' named dims are stand-ins while the nodes are mapped; the
    nodes are checked, then the computes made symbolic, before fusion."""

    def __init__(self, *args, sizes: Sizes, **kwargs):
        super().__init__(*args, **kwargs)
        self.sizes = sizes

    def finish(self):
        check_nodes(self, self.sizes)
        return super().finish()

    def fuse(self, computes, readers, outputs):
        self.sizes.generalize(computes, [t for t, _ in self.placeholders], self.node_of)
        return super().fuse(computes, readers, outputs)


# ---------------------------------------------------------------------------
# Shape subgraphs over symbolic dims

# Ops that carry a shape vector holding dim names (as numpy object arrays).
_CARRY = ("Gather", "Unsqueeze", "Squeeze", "Concat", "Slice", "Identity", "Cast")


def _reshape_target(node, target, x_shape) -> Optional[List[int]]:
    """A Reshape's target holding dim names as ONNX constants: a name at a
    position where the input has it is 0 (copy), one other name -1."""
    if x_shape is None:
        return None
    out = []
    for d, s in enumerate(target):
        if not isinstance(s, str):
            out.append(int(s))
        elif d < len(x_shape) and x_shape[d] == s:
            out.append(0)
        else:
            out.append(-1)
    if out.count(-1) > 1 or (0 in out and any(int(s) == 0 for s in target
                                              if not isinstance(s, str))):
        return None
    return out


def _fold_symbolic_once(onnx_mod, model, names):
    """One pass of `fold_shapes`: (changed, the first node left reading a
    shape that holds a dim name)."""
    g = model.graph
    shapes = _shapes(onnx_mod, model, names)
    consts = {t.name: onnx_mod.numpy_helper.to_array(t) for t in g.initializer}
    sym, folded, stuck = {}, [], None
    for node in g.node:
        reads = [x for x in node.input if x in sym]
        if node.op_type == "Shape" and node.domain in ("", "ai.onnx"):
            dims = shapes.get(node.input[0])
            if dims is not None:
                start, end = _attr(node, onnx_mod, "start", 0), _attr(node, onnx_mod, "end")
                sym[node.output[0]] = np.array(dims[slice(start, end)], dtype=object)
                folded.append(node)
            continue
        if not reads:
            continue
        ins = [sym.get(x, consts.get(x)) if x else None for x in node.input]
        if node.op_type == "Reshape" and node.input[1] in sym and node.input[0] not in sym:
            target = _reshape_target(node, list(sym[node.input[1]]), shapes.get(node.input[0]))
            if target is not None:
                name = f"{node.output[0]}_symbolic_shape"
                g.initializer.append(onnx_mod.numpy_helper.from_array(
                    np.array(target, np.int64), name))
                node.input[1] = name
                folded.append(None)
                continue
        elif node.op_type in _CARRY and node.domain in ("", "ai.onnx") and \
                all(v is not None for x, v in zip(node.input, ins) if x):
            try:
                out = ins[0] if node.op_type == "Cast" else _EVAL[node.op_type](
                    node, onnx_mod, ins)
            except Exception:  # noqa: BLE001 (left for the importer to name)
                out = None
            if out is not None and not isinstance(out, tuple):
                sym[node.output[0]] = np.asarray(out, dtype=object)
                folded.append(node)
                continue
        if stuck is None and any(isinstance(s, str) for x in reads for s in
                                 np.asarray(sym[x]).reshape(-1)):
            stuck = (node, next(s for x in reads for s in np.asarray(sym[x]).reshape(-1)
                                if isinstance(s, str)))
    # Vectors of ints are constants; onnx_fold folds on from them.
    changed = any(n is None for n in folded)
    for node in folded:
        if node is None:
            continue
        v = sym[node.output[0]]
        if not any(isinstance(s, str) for s in v.reshape(-1)):
            g.initializer.append(onnx_mod.numpy_helper.from_array(
                v.astype(np.int64), node.output[0]))
            g.node.remove(node)
            changed = True
    return changed, stuck


def fold_shapes(onnx_mod, model, sizes: Sizes):
    """`model` with its shape subgraphs over symbolic dims folded (see the
    module's text) and its constants folded again (onnx_fold.py); a shape
    computation left holding a dim name is an OnnxImportError naming the
    node that reads it."""
    if not sizes:
        return model
    for _ in range(16):
        changed, stuck = _fold_symbolic_once(onnx_mod, model, set(sizes.vars))
        if not changed:
            break
        _drop_unused(model)  # the Shape subgraphs the Reshapes no longer read
        model = _fold(onnx_mod, model)
    if stuck is not None and any(n.op_type == "Shape" for n in model.graph.node):
        node, name = stuck
        raise OnnxImportError(
            f"ext.onnx: {node.op_type} node '{node_name(node)}' computes with symbolic dim "
            f"'{name}' (a Shape of a value); ext.onnx folds a shape holding a symbolic dim "
            f"through {', '.join(_CARRY)} into a Reshape's target where the dim stays whole; "
            "arithmetic on the dim, or a slice or an Expand to it, is not folded: pass "
            "load(..., input_shapes=...)")
    return model
