"""The compute builder of the tensor-expression level (`ext.te`): `ext.compute`,
its axes (`IterVar`, `ext.reduce_axis`), reductions (`ext.sum/prod/max/min`,
`ext.comm_reducer`) and `ext.pad`.

`compute` calls a function of the axes, takes the expression trees it
returns (te_expressions.py) and checks them as one compute: a reduction is
the whole value, every axis is the compute's own, every read is affine in
the axes and inside its tensor (unless an if_then_else branch guards it).
It exists apart from the expressions because it works on whole trees,
where they work one node at a time; it imports them, never the reverse.
`ext.te` re-exports both.
"""

import inspect
from typing import Callable, List, Optional

from . import dtypes as _dt
from .te_expressions import (
    Expr, Tensor, Var, _at, _binary, _const, _counter, _error, _is_size, _lift, _pymax,
    _pymin, _walk, _where, cast, if_then_else)


class IterVar(Expr):
    """An iteration axis: a spatial axis of a compute (one per output
    dimension, named after the lambda's parameters) or a reduce axis from
    `ext.reduce_axis`. As a value it is an int32."""

    __slots__ = ("name", "extent", "kind")
    __hash__ = object.__hash__

    def __init__(self, name, extent, kind, loc=None):
        super().__init__("axis", "i32", (), None, loc)
        self.attr = self
        self.name = name
        self.extent = extent
        self.kind = kind

    def __repr__(self):
        return self.name


def reduce_axis(extent, name: Optional[str] = None) -> IterVar:
    """A reduce axis over [0, extent) (TVM's `te.reduce_axis`; a range
    `(0, n)` is accepted too). Use it inside `ext.sum/prod/max/min` or a
    `comm_reducer`; it disappears from the output.

        >>> k = ext.reduce_axis(32, name="k")
        >>> C = ext.compute((64, 48), lambda i, j: ext.sum(A[i, k] * B[k, j], axis=k))
    """
    loc = _where()
    if isinstance(extent, (tuple, list)):
        if len(extent) != 2 or extent[0] != 0:
            raise _error(loc, f"reduce_axis takes an extent or a range (0, n), got {extent!r}")
        extent = extent[1]
    if not _is_size(extent):
        raise _error(loc, f"reduce_axis extent must be a positive integer or an ext.var, "
                          f"got {extent!r}")
    return IterVar(name or f"r{next(_counter)}", extent, "reduce", loc)


class _Reduce(Expr):
    """A reduction: the whole body of a compute, never part of an
    expression."""

    __slots__ = ("reducer", "axes", "values", "value_index", "group")
    __hash__ = object.__hash__

    def __init__(self, reducer, axes, values, value_index, group, loc):
        super().__init__("reduce", values[value_index].dtype, (), None, loc)
        self.reducer = reducer
        self.axes = axes
        self.values = values
        self.value_index = value_index
        self.group = group


def _reduce_axes(axis, loc) -> List[IterVar]:
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if not axes:
        raise _error(loc, "a reduction needs at least one reduce axis")
    for a in axes:
        if not isinstance(a, IterVar) or a.kind != "reduce":
            raise _error(loc, f"axis={a!r} is not a reduce axis; make one with "
                              "ext.reduce_axis(extent)", TypeError)
    return axes


class _BuiltinReducer:
    def __init__(self, name, elementwise):
        self.name = name
        self.elementwise = elementwise

    def __call__(self, expr, *args, axis=None):
        loc = _where()
        if axis is None and len(args) == 1 and self.elementwise:
            return _binary(self.elementwise, expr, args[0])
        if args:
            if axis is not None or len(args) != 1:
                raise _error(loc, f"ext.{self.name} takes (expr, axis=...) or "
                                  f"(a, b)", TypeError)
            axis = args[0]
        if axis is None:
            raise _error(loc, f"ext.{self.name} needs axis=reduce_axis (or two values "
                              "for an element-wise " + self.name + ")", TypeError)
        expr = _lift(expr, None, loc)
        if expr.dtype == "i1":
            raise _error(loc, f"ext.{self.name} of booleans; cast them with .astype()",
                         TypeError)
        return _Reduce(self, _reduce_axes(axis, loc), (expr,), 0, object(), loc)


sum = _BuiltinReducer("sum", None)  # noqa: A001 (TVM's names)
prod = _BuiltinReducer("prod", None)
max = _BuiltinReducer("max", "max")  # noqa: A001
min = _BuiltinReducer("min", "min")  # noqa: A001
sum.__doc__ = """Sum over reduce axes: `ext.sum(A[i, k], axis=k)` (or axis=[k1, k2]).

    >>> k = ext.reduce_axis(32, name="k")
    >>> s = ext.compute((64,), lambda i: ext.sum(A[i, k], axis=k))
"""
prod.__doc__ = """Product over reduce axes.

    >>> p = ext.compute((64,), lambda i: ext.prod(A[i, k], axis=k))
"""
max.__doc__ = """Maximum over reduce axes, or of two values element-wise.

    >>> row_max = ext.compute((64,), lambda i: ext.max(A[i, k], axis=k))
    >>> relu = ext.compute((64, 32), lambda i, j: ext.max(A[i, j], 0.0))
"""
min.__doc__ = """Minimum over reduce axes, or of two values element-wise.

    >>> row_min = ext.compute((64,), lambda i: ext.min(A[i, k], axis=k))
    >>> clip = ext.compute((64, 32), lambda i, j: ext.min(A[i, j], 6.0))
"""


class CommReducer:
    """A commutative reducer made by `ext.comm_reducer`; call it as
    `reducer(value, axis=k)` or `reducer((v0, v1), axis=k)` for several
    values (the compute then has one output per value)."""

    def __init__(self, fcombine, fidentity, name):
        self.fcombine = fcombine
        self.fidentity = fidentity
        self.name = name
        self.loc = _where()

    def __call__(self, values, axis=None):
        loc = _where()
        single = not isinstance(values, (tuple, list))
        values = (values,) if single else tuple(values)
        values = tuple(_lift(v, None, loc) for v in values)
        if axis is None:
            raise _error(loc, f"{self.name} needs axis=reduce_axis", TypeError)
        axes = _reduce_axes(axis, loc)
        group = object()
        reduces = tuple(_Reduce(self, axes, values, i, group, loc)
                        for i in range(len(values)))
        return reduces[0] if single else reduces


def comm_reducer(fcombine: Callable, fidentity: Callable, name: str = "reduce") -> CommReducer:
    """A commutative reducer (TVM's `te.comm_reducer`). `fcombine(x, y)`
    combines an accumulated value with a new one (tuples of values for a
    multi-value reducer) and `fidentity(*dtypes)` gives the identities.

        >>> def combine(x, y):   # argmax: (index, value) pairs
        ...     return (ext.if_then_else(x[1] >= y[1], x[0], y[0]), ext.max(x[1], y[1]))
        >>> def identity(t0, t1):
        ...     return ext.const(-1, t0), ext.min_value(t1)
        >>> argmax = ext.comm_reducer(combine, identity, name="argmax")
        >>> k = ext.reduce_axis(16, name="k")
        >>> idx, val = ext.compute((8,), lambda i: argmax((k, X[i, k]), axis=k))
    """
    if not callable(fcombine) or not callable(fidentity):
        raise _error(_where(), "comm_reducer takes two functions: combine and identity",
                     TypeError)
    return CommReducer(fcombine, fidentity, name)


class ComputeOp:
    """What `ext.compute` made: its axes, body values, reduction and output
    tensors (`.output(i)`)."""

    def __init__(self, name, axes, reduce_axes, values, reducer, loc):
        self.name = name
        self.axes = axes
        self.reduce_axes = reduce_axes
        self.values = values
        self.reducer = reducer
        self.loc = loc
        self.outputs: List[Tensor] = []
        self.schedule = None

    def output(self, i=0) -> Tensor:
        return self.outputs[i]

    @property
    def all_axes(self) -> List[IterVar]:
        return list(self.axes) + list(self.reduce_axes)

    def __repr__(self):
        return f"ComputeOp({self.name})"


def compute(shape, fcompute: Callable, name: str = "compute", dtype=None):
    """A tensor of `shape` whose element at (i, j, ...) is `fcompute(i, j,
    ...)` (TVM's `te.compute`). The lambda's parameter names name the
    axes. The value may be a reduction (`ext.sum(..., axis=k)`, a
    `comm_reducer`), or a tuple of values for several outputs (a tuple of
    Tensors is returned then).

        >>> B = ext.compute((64, 48), lambda i, j: A[i, j] * 2.0, name="B")
        >>> k = ext.reduce_axis(48, name="k")
        >>> row_max = ext.compute((64,), lambda i: ext.max(B[i, k], axis=k), name="row_max")
    """
    loc = _where()
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape)
    if not shape:
        raise _error(loc, "compute needs at least one output dimension")
    for s in shape:
        if not _is_size(s):
            raise _error(loc, f"compute shape must be positive integers or ext.var sizes, "
                              f"got {shape}")
    if not callable(fcompute):
        raise _error(loc, "compute takes a function of the axes (lambda i, j: ...)",
                     TypeError)
    try:
        params = [p.name for p in inspect.signature(fcompute).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    if len(params) != len(shape):
        params = [f"i{d}" for d in range(len(shape))]
    axes = [IterVar(n, s, "spatial", loc) for n, s in zip(params, shape)]
    result = fcompute(*axes)
    values = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    if not values:
        raise _error(loc, "the compute's function returned no value")
    values = tuple(_lift(v, None, loc) for v in values)

    # A reduction is the whole value (TVM's rule); several values reduce
    # together only through one comm_reducer call.
    reduces = [v for v in values if isinstance(v, _Reduce)]
    reducer, reduce_axes = None, []
    # Several built-in reductions of one kind over the same axes reduce
    # together: (ext.sum(x, axis=k), ext.sum(x * x, axis=k)) is one compute
    # with two outputs, as combiner(sum) yielding two values is in MLIR.
    if len(reduces) > 1 and len(reduces) == len(values) and all(
            isinstance(r.reducer, _BuiltinReducer) and r.reducer is reduces[0].reducer and
            [id(a) for a in r.axes] == [id(a) for a in reduces[0].axes] for r in reduces):
        first = reduces[0]
        group = object()
        reduces = [_Reduce(first.reducer, first.axes, tuple(r.values[0] for r in reduces), d,
                           group, r.loc) for d, r in enumerate(reduces)]
        values = tuple(reduces)
    if reduces:
        first = reduces[0]
        if len(reduces) != len(values) or any(r.group is not first.group for r in reduces):
            raise _error(loc, f"compute '{name}': the outputs of a reducing compute must "
                              "all come from one reduction (a comm_reducer over a tuple)")
        if [r.value_index for r in reduces] != list(range(len(first.values))):
            raise _error(loc, f"compute '{name}': a multi-value reduction's values must "
                              "be returned together, in order")
        reducer, reduce_axes = first.reducer, list(first.axes)
        bodies = list(first.values)
    else:
        bodies = list(values)

    names = [a.name for a in axes + reduce_axes]
    for n in names:
        if names.count(n) > 1:
            raise _error(loc, f"compute '{name}' has two axes named '{n}'; give the "
                              "reduce axis another name")
    own = set(map(id, axes + reduce_axes))
    # Reads inside an if_then_else branch may reach outside the tensor where
    # their condition excludes them: the verifier checks them under it.
    guarded = {id(n) for body in bodies for e in _walk(body) if e.op == "select"
               for branch in e.args[1:] for n in _walk(branch)}
    for body in bodies:
        for e in _walk(body):
            for a in e.args:  # an axis is reported where it is used
                if isinstance(a, IterVar) and id(a) not in own:
                    _foreign_axis(a, e.loc, name, loc)
            if isinstance(e, IterVar) and id(e) not in own:
                _foreign_axis(e, loc, name, loc)
            if isinstance(e, _Reduce):
                raise _error(e.loc, f"a reduction must be the whole value of a compute "
                                    f"(in compute '{name}' at {_at(loc)}); compute it "
                                    "separately and read it")
            if e.op == "load" and id(e) not in guarded:
                _check_bounds(e, axes + reduce_axes)
    out_dtype = None
    if dtype is not None:
        out_dtype = _dt.canonical(dtype)
        bodies = [cast(b, out_dtype) if b.dtype != out_dtype else b for b in bodies]
    op = ComputeOp(name, axes, reduce_axes, bodies, reducer, loc)
    outputs = []
    for i, b in enumerate(bodies):
        suffix = "" if len(bodies) == 1 else f"_{i}"
        outputs.append(Tensor(shape, b.dtype, name + suffix, op, i, loc))
    op.outputs = outputs
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _foreign_axis(axis, use_loc, name, loc):
    if axis.kind == "reduce":
        raise _error(use_loc, f"reduce axis '{axis.name}' used outside a reduction over it "
                              f"(in compute '{name}' at {_at(loc)})")
    raise _error(use_loc, f"axis '{axis.name}' belongs to another compute (used in compute "
                          f"'{name}' at {_at(loc)})")


class _Read:
    """A tensor's element used as an index (an indirect read: a paged
    cache's block table `T[b, j // P]` in `Kc[T[b, j // P], j % P, d]`):
    the table and its affine index trees. Equal reads are one symbol."""

    __slots__ = ("tensor", "trees", "loc")

    def __init__(self, tensor, trees, loc):
        self.tensor, self.trees, self.loc = tensor, trees, loc

    def __eq__(self, other):
        return isinstance(other, _Read) and other.tensor is self.tensor and \
            other.trees == self.trees

    def __hash__(self):
        return hash((id(self.tensor), self.trees))

    def __repr__(self):
        return f"{self.tensor.name}{list(self.trees)}"


def _affine(e, positions, where, reads=True):
    """An affine tree of `e` over the axes at `positions` (id -> dim). An
    integer tensor's element in it is a ("read", _Read) leaf (`reads`: not
    inside a table's own index, which is affine in the axes alone)."""
    if isinstance(e, IterVar):
        return ("axis", positions[id(e)])
    if e.op == "const":
        return ("const", int(e.attr))
    if e.op == "load":
        if not reads:
            raise _error(e.loc, f"{where}: a table's index reads {e.attr.name}; the index of "
                                "a tensor read as an index is affine in the axes alone")
        trees = tuple(_affine(i, positions, f"{e.attr.name}{list(e.args)}", False)
                      for i in e.args)
        return ("read", _Read(e.attr, trees, e.loc))
    if e.op in ("add", "sub"):
        return (e.op, _affine(e.args[0], positions, where, reads),
                _affine(e.args[1], positions, where, reads))
    if e.op == "mul":
        a, b = (_affine(x, positions, where, reads) for x in e.args)
        if a[0] != "const" and b[0] != "const":
            raise _error(e.loc, f"{where}: an index multiplies two axes; indices must be "
                                "affine in the axes")
        return ("mul", a, b)
    if e.op in ("floordiv", "mod"):
        a, b = (_affine(x, positions, where, reads) for x in e.args)
        if b[0] != "const" or b[1] <= 0:
            raise _error(e.loc, f"{where}: an index divides by something other than a "
                                "positive constant")
        return (e.op, a, b)
    if e.op == "neg":
        return ("mul", _affine(e.args[0], positions, where, reads), ("const", -1))
    raise _error(e.loc, f"{where}: '{e.op}' in an index is not affine in the axes "
                        "(indices are sums of axes times constants, // and % by constants)")


def _range(tree, extents):
    """[lo, hi] of an affine tree over axes in [0, extent)."""
    op = tree[0]
    if op == "axis":
        return 0, extents[tree[1]] - 1
    if op == "const":
        return tree[1], tree[1]
    a, b = _range(tree[1], extents), _range(tree[2], extents)
    if op == "add":
        return a[0] + b[0], a[1] + b[1]
    if op == "sub":
        return a[0] - b[1], a[1] - b[0]
    if op == "mul":
        products = [x * y for x in a for y in b]
        return _pymin(products), _pymax(products)
    if op == "floordiv":
        return a[0] // b[0], a[1] // b[0]
    return (0, b[0] - 1) if a[0] < 0 or a[1] >= b[0] else a


def _has_read(tree):
    """Whether an affine tree holds a tensor's element (an indirect read)."""
    if tree[0] == "read":
        return True
    return any(isinstance(t, tuple) and _has_read(t) for t in tree[1:])


def _reads(tree, found=None):
    """The distinct _Reads of an affine tree, in order."""
    found = [] if found is None else found
    if tree[0] == "read":
        if tree[1] not in found:
            found.append(tree[1])
    else:
        for t in tree[1:]:
            if isinstance(t, tuple):
                _reads(t, found)
    return found


def _tree_axes(tree):
    """The axis positions an affine tree uses (a read's own index aside)."""
    if tree[0] == "axis":
        return [tree[1]]
    if tree[0] in ("const", "read"):
        return []
    return [a for t in tree[1:] if isinstance(t, tuple) for a in _tree_axes(t)]


def _check_bounds(load, axes):
    tensor = load.attr
    positions = {id(a): d for d, a in enumerate(axes)}
    extents = [a.extent for a in axes]
    where = f"{tensor.name}{list(load.args)}"
    for d, idx in enumerate(load.args):
        for e in _walk(idx):
            if isinstance(e, IterVar) and id(e) not in positions:
                return  # reported by the caller's axis check
        tree = _affine(idx, positions, where)
        if _has_read(tree):
            # A table's entry is checked when the compute runs (the table's
            # own read is checked as any other read of the body).
            continue
        size = tensor.shape[d]
        symbolic = [axes[i].name for i in _tree_axes(tree) if isinstance(extents[i], Var)]
        if symbolic or isinstance(size, Var):
            # A symbolic size is bound by an axis indexing it alone: the
            # same size on both sides, nothing else to check statically.
            alone = tree[0] == "axis" and extents[tree[1]] == size
            if alone:
                continue
            if tree[0] == "axis":
                raise _error(load.loc, f"{where}: index #{d} is axis '{axes[tree[1]].name}' "
                                       f"of extent {extents[tree[1]]}, but {tensor.name} has "
                                       f"size {size} in dimension {d} (shapes do not match)")
            raise _error(load.loc, f"{where}: index #{d} combines axes where a size is "
                                   f"symbolic ({', '.join(symbolic) or size}); an axis of "
                                   "symbolic extent may only index a dimension alone")
        lo, hi = _range(tree, extents)
        if lo < 0 or hi >= tensor.shape[d]:
            raise _error(load.loc, f"{where}: index #{d} ranges over [{lo}, {hi}] but "
                                   f"{tensor.name} has extent {tensor.shape[d]} in "
                                   f"dimension {d} (shapes do not match)")


def pad(tensor, before, after=None, value=0, name: Optional[str] = None) -> "Tensor":
    """`tensor` widened by `before[d]` elements before and `after[d]` after
    each dimension (`after` defaults to `before`), the new elements `value`:
    a compute that reads `tensor` only inside it (if_then_else), so a reader
    that inlines it (`compute_inline`) reads `tensor` directly, guarded, with
    no padded copy in memory (TVM's topi.nn.pad).

        >>> Xp = ext.pad(X, (0, 1, 1, 0))                  # NHWC, 3x3 "same"
        >>> s = ext.schedule(conv, tile=...).compute_inline(Xp)
    """
    loc = _where()
    if not isinstance(tensor, Tensor):
        raise _error(loc, f"pad takes a tensor, got {tensor!r}", TypeError)
    before = [before] * tensor.ndim if isinstance(before, int) else list(before)
    after = before if after is None else ([after] * tensor.ndim if isinstance(after, int)
                                          else list(after))
    if len(before) != tensor.ndim or len(after) != tensor.ndim:
        raise _error(loc, f"pad of a {tensor.ndim}-d tensor needs {tensor.ndim} widths "
                          f"before and after, got {before} and {after}")
    for w in before + after:
        if isinstance(w, bool) or not isinstance(w, int) or w < 0:
            raise _error(loc, f"pad widths are non-negative integers, got {w!r}")
    for d, size in enumerate(tensor.shape):
        if isinstance(size, Var) and (before[d] or after[d]):
            raise _error(loc, f"pad: dimension {d} of '{tensor.name}' has symbolic size "
                              f"{size.name}; only static dimensions are padded")
    shape = tuple(s + b + a for s, b, a in zip(tensor.shape, before, after))
    fill = _const(value, tensor.dtype, loc)

    def padded(*idx):
        inside = None
        for d, i in enumerate(idx):
            conds = ([i >= before[d]] if before[d] else []) + \
                    ([i < before[d] + tensor.shape[d]] if after[d] else [])
            for c in conds:
                inside = c if inside is None else inside & c
        read = tensor[tuple(i - before[d] if before[d] else i for d, i in enumerate(idx))]
        return read if inside is None else if_then_else(inside, read, fill)

    return compute(shape, padded, name=name or f"{tensor.name}_pad")
