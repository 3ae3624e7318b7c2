"""The tensor-expression level: placeholders, axes, computes, reductions.

Written as in TVM's `te`:

    >>> import ext
    >>> A = ext.placeholder((64, 32), "float32", name="A")
    >>> B = ext.placeholder((32, 48), "float32", name="B")
    >>> k = ext.reduce_axis(32, name="k")
    >>> C = ext.compute((64, 48), lambda i, j: ext.sum(A[i, k] * B[k, j], axis=k), name="C")

Expressions are trees of `Expr`; `ext.build` turns each compute into an
`ext.compute` op through ext's C++ API, each op located at the Python line
that wrote it. Mistakes (a reduce axis outside a reduction, an access out of
a tensor's shape, mixed dtypes) raise at the line that made them.
"""

import builtins as _builtins
import inspect
import itertools
import os
import sys
from typing import Callable, List, Optional, Sequence, Tuple, Union

from . import dtypes as _dt

# ext.sum/min/max/abs/round shadow the builtins in this module.
_pymin, _pymax = _builtins.min, _builtins.max
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_counter = itertools.count()


def _where() -> Tuple[str, int]:
    """(file, line) of the innermost caller outside the ext package."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep):
            return filename, frame.f_lineno
        frame = frame.f_back
    return "<unknown>", 0


def _at(loc) -> str:
    return f"{loc[0]}:{loc[1]}"


def _error(loc, message, kind=ValueError):
    return kind(f"{_at(loc)}: {message}")


class Expr:
    """A scalar expression: an element of a tensor, an axis, a constant, or
    arithmetic on those. Python operators build new expressions:

        >>> A = ext.placeholder((8,), "f32", name="A")
        >>> y = ext.compute((8,), lambda i: ext.exp(A[i]) * 2.0 + 1.0)

    `==` and `!=` build comparisons, so an `Expr` has no truth value (use
    `ext.if_then_else`)."""

    __slots__ = ("op", "dtype", "args", "attr", "loc")
    __hash__ = object.__hash__

    def __init__(self, op, dtype, args=(), attr=None, loc=None):
        self.op = op
        self.dtype = dtype
        self.args = tuple(args)
        self.attr = attr
        self.loc = loc or _where()

    def __repr__(self):
        if self.op == "const":
            return f"{self.attr!r}:{self.dtype}"
        if self.op == "axis":
            return self.attr.name
        if self.op == "load":
            return f"{self.attr.name}[{', '.join(map(repr, self.args))}]"
        return f"{self.op}({', '.join(map(repr, self.args))})"

    def __bool__(self):
        raise TypeError(f"{_at(self.loc)}: an ext expression has no truth value; "
                        "use ext.if_then_else(cond, a, b) instead of if/and/or")

    def astype(self, dtype) -> "Expr":
        """This value converted to `dtype` ("float32", "f16", "int32", ...).

            >>> ext.compute((8,), lambda i: A[i].astype("float16"))
        """
        return cast(self, dtype)

    # arithmetic
    def __add__(self, o): return _binary("add", self, o)
    def __radd__(self, o): return _binary("add", o, self)
    def __sub__(self, o): return _binary("sub", self, o)
    def __rsub__(self, o): return _binary("sub", o, self)
    def __mul__(self, o): return _binary("mul", self, o)
    def __rmul__(self, o): return _binary("mul", o, self)
    def __truediv__(self, o): return _binary("div", self, o)
    def __rtruediv__(self, o): return _binary("div", o, self)
    def __floordiv__(self, o): return _binary("floordiv", self, o)
    def __rfloordiv__(self, o): return _binary("floordiv", o, self)
    def __mod__(self, o): return _binary("mod", self, o)
    def __rmod__(self, o): return _binary("mod", o, self)
    def __pow__(self, o): return _binary("pow", self, o)
    def __rpow__(self, o): return _binary("pow", o, self)
    def __and__(self, o): return _binary("and", self, o)
    def __rand__(self, o): return _binary("and", o, self)
    def __or__(self, o): return _binary("or", self, o)
    def __ror__(self, o): return _binary("or", o, self)
    def __xor__(self, o): return _binary("xor", self, o)
    def __rxor__(self, o): return _binary("xor", o, self)
    def __neg__(self): return _unary("neg", self)
    def __invert__(self): return _unary("not", self)
    def __abs__(self): return _unary("abs", self)
    # comparisons
    def __lt__(self, o): return _compare("lt", self, o)
    def __le__(self, o): return _compare("le", self, o)
    def __gt__(self, o): return _compare("gt", self, o)
    def __ge__(self, o): return _compare("ge", self, o)
    def __eq__(self, o): return _compare("eq", self, o)
    def __ne__(self, o): return _compare("ne", self, o)


class Var:
    """A symbolic size (`ext.var("M")`): a dimension of placeholders and
    computes that is known only when the kernel runs, so one build serves
    every size. Vars with the same name are the same size.

        >>> M = ext.var("M")
        >>> A = ext.placeholder((M, 64), "float32", name="A")
        >>> B = ext.compute((M, 64), lambda i, j: A[i, j] * 2.0, name="B")
    """

    __slots__ = ("name", "multiple_of")

    def __init__(self, name: str, multiple_of: int = 1):
        if not isinstance(name, str) or not name.isidentifier():
            raise _error(_where(), f"ext.var takes an identifier, got {name!r}")
        if not isinstance(multiple_of, int) or isinstance(multiple_of, bool) or multiple_of < 1:
            raise _error(_where(), f"ext.var({name!r}): multiple_of must be a positive int, "
                                   f"got {multiple_of!r}")
        self.name = name
        self.multiple_of = multiple_of

    def __eq__(self, other):
        # The same name is the same size; its divisibility facts add up.
        return isinstance(other, Var) and other.name == self.name

    def __hash__(self):
        return hash(("ext.var", self.name))

    def __repr__(self):
        return self.name


def var(name: str, multiple_of: int = 1) -> Var:
    """A symbolic size named `name` (see `Var`): usable wherever a shape or
    an extent is (`ext.placeholder((M, K))`, `ext.compute((M, N), ...)`,
    `ext.reduce_axis(K)`, `ext.matmul(M, N, K)`). Unscheduled computes run
    at any size; a schedule takes symbolic sizes on spatial axes bound to
    blocks, under any decomposition (the grid, the split-K or Stream-K plan
    and `auto`'s choice are made when the kernel runs), not yet on reduce
    axes.

    `multiple_of=m` states that the size is a multiple of m: a tile that
    divides m needs no mask on that axis (a guard-free kernel), and a size
    that is not one is refused when the kernel runs, with a message.

        >>> M = ext.var("M")
        >>> kernel = ext.matmul(M, 64, 32, tile=(32, 32, 16)).build()
        >>> c1, c7 = kernel.run(a1, b), kernel.run(a7, b)   # M = 1, then 7
        >>> M16 = ext.var("M", multiple_of=16)
    """
    return Var(name, multiple_of)


def _is_size(s) -> bool:
    """A positive int or a Var."""
    return isinstance(s, Var) or (isinstance(s, int) and not isinstance(s, bool) and s > 0)


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


def _const(value, dtype, loc=None) -> Expr:
    loc = loc or _where()
    k = _dt.kind(dtype)
    if k == "float":
        value = float(value)
        if value == value and _pymax(-value, value) != float("inf") and \
                _pymax(-value, value) > _dt.limits(dtype)[1]:
            raise _error(loc, f"constant {value} does not fit in {dtype} (it would be inf)")
        return Expr("const", dtype, (), value, loc)
    if isinstance(value, float) and not value.is_integer():
        raise _error(loc, f"constant {value} is not an integer; it cannot be {dtype}",
                     TypeError)
    value = int(value)
    lo, hi = _dt.limits(dtype)
    if not lo <= value <= hi:
        raise _error(loc, f"constant {value} does not fit in {dtype}")
    return Expr("const", dtype, (), value, loc)


def const(value, dtype=None) -> Expr:
    """A constant. Without a dtype, Python floats are float32 and ints int32.

        >>> ext.const(0.5), ext.const(1, "int8"), ext.const(2, "float64")
    """
    loc = _where()
    if dtype is None:
        dtype = "i1" if isinstance(value, bool) else (
            "f32" if isinstance(value, float) else "i32")
    return _const(value, _dt.canonical(dtype), loc)


def min_value(dtype) -> Expr:
    """The lowest finite value of `dtype` (an identity for max-reducers).

        >>> ext.min_value("float32")
    """
    dtype = _dt.canonical(dtype)
    return _const(_dt.limits(dtype)[0], dtype, _where())


def max_value(dtype) -> Expr:
    """The highest finite value of `dtype` (an identity for min-reducers).

        >>> ext.max_value("int32")
    """
    dtype = _dt.canonical(dtype)
    return _const(_dt.limits(dtype)[1], dtype, _where())


def _lift(x, like: Optional[Expr], loc) -> Expr:
    """Python numbers take the other operand's dtype."""
    if isinstance(x, Expr):
        return x
    if isinstance(x, Tensor):
        raise _error(loc, f"tensor '{x.name}' used as a value; index it, as {x.name}[...]",
                     TypeError)
    if isinstance(x, (bool, int, float)):
        if like is None:
            return const(x)
        if isinstance(x, float) and _dt.kind(like.dtype) != "float" and not x.is_integer():
            raise _error(loc, f"float constant {x} combined with a {like.dtype} value; "
                              "cast one with .astype()", TypeError)
        return _const(x, like.dtype, loc)
    raise _error(loc, f"cannot use {type(x).__name__} {x!r} in an ext expression",
                 TypeError)


def _same(op, a, b, loc):
    a = _lift(a, b if isinstance(b, Expr) else None, loc)
    b = _lift(b, a, loc)
    if a.dtype != b.dtype:
        raise _error(loc, f"'{op}' of {a.dtype} and {b.dtype}; cast one with .astype()",
                     TypeError)
    return a, b


def _binary(op, a, b) -> Expr:
    loc = _where()
    a, b = _same(op, a, b, loc)
    k = _dt.kind(a.dtype)
    if op == "div" and k != "float":
        raise _error(loc, f"'/' on {a.dtype}; use // for integer division", TypeError)
    if op == "pow" and k != "float":
        raise _error(loc, f"'**' on {a.dtype}; it needs floating-point values", TypeError)
    if op in ("and", "or", "xor") and k == "float":
        raise _error(loc, f"'{op}' on {a.dtype}; it needs booleans or integers", TypeError)
    if op in ("add", "sub", "mul", "floordiv", "mod", "min", "max", "pow") and k == "bool":
        raise _error(loc, f"'{op}' on booleans; cast them with .astype()", TypeError)
    return Expr(op, a.dtype, (a, b), None, loc)


def _unary(op, a) -> Expr:
    loc = _where()
    a = _lift(a, None, loc)
    if op not in ("neg", "abs", "not") and _dt.kind(a.dtype) != "float":
        raise _error(loc, f"ext.{op} needs a floating-point value, got {a.dtype}; "
                          "cast it with .astype()", TypeError)
    if op == "not" and _dt.kind(a.dtype) == "float":
        raise _error(loc, f"'~' on {a.dtype}; it needs booleans or integers", TypeError)
    return Expr(op, a.dtype, (a,), None, loc)


def _compare(pred, a, b) -> Expr:
    loc = _where()
    a, b = _same(pred, a, b, loc)
    return Expr("cmp", "i1", (a, b), pred, loc)


def cast(x, dtype) -> Expr:
    """`x` converted to `dtype` (same as `x.astype(dtype)`).

        >>> ext.compute((8,), lambda i: ext.cast(A[i], "float64"))
    """
    loc = _where()
    x = _lift(x, None, loc)
    try:
        dtype = _dt.canonical(dtype)
    except ValueError as e:
        raise _error(loc, str(e)) from None
    if dtype == x.dtype:
        return x
    return Expr("cast", dtype, (x,), None, loc)


def if_then_else(cond, then_value, else_value) -> Expr:
    """`then_value` where `cond` holds, else `else_value`. A tensor read that
    only one branch makes happens only when that branch is taken, so it may
    reach outside the tensor where the condition excludes it (the verifier
    proves the read in bounds under the condition, affine in the axes):

        >>> relu = ext.compute((8,), lambda i: ext.if_then_else(A[i] > 0, A[i], 0.0))
        >>> left = ext.compute((8,), lambda i: ext.if_then_else(i >= 1, A[i - 1], 0.0))
    """
    loc = _where()
    cond = _lift(cond, None, loc)
    if cond.dtype != "i1":
        raise _error(loc, f"the condition of if_then_else is {cond.dtype}, not a "
                          "boolean (compare it, e.g. x > 0)", TypeError)
    a, b = _same("if_then_else", then_value, else_value, loc)
    return Expr("select", a.dtype, (cond, a, b), None, loc)


def _math(name, doc):
    def f(x) -> Expr:
        return _unary(name, x)
    f.__name__ = name
    f.__doc__ = f"{doc}\n\n        >>> ext.compute((8,), lambda i: ext.{name}(A[i]))\n"
    return f


exp = _math("exp", "e to the power x (f16/bf16 are computed in f32).")
exp2 = _math("exp2", "2 to the power x.")
log = _math("log", "Natural logarithm.")
log2 = _math("log2", "Base-2 logarithm.")
log10 = _math("log10", "Base-10 logarithm.")
sqrt = _math("sqrt", "Square root.")
rsqrt = _math("rsqrt", "1 / sqrt(x).")
tanh = _math("tanh", "Hyperbolic tangent.")
sin = _math("sin", "Sine.")
cos = _math("cos", "Cosine.")
erf = _math("erf", "The error function.")
floor = _math("floor", "Round down.")
ceil = _math("ceil", "Round up.")
round = _math("round", "Round to nearest, ties to even.")


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


def abs(x) -> Expr:  # noqa: A001 (TVM's name)
    """Absolute value (floats and integers).

        >>> ext.compute((8,), lambda i: ext.abs(A[i]))
    """
    return _unary("abs", x)


def sigmoid(x) -> Expr:
    """1 / (1 + exp(-x)).

        >>> ext.compute((8,), lambda i: ext.sigmoid(A[i]))
    """
    return 1.0 / (1.0 + exp(-x))


class Tensor:
    """A tensor: an input (`ext.placeholder`) or a compute's output. Index
    it with one expression per dimension, affine in the axes: `A[i, k]`,
    `X[n, c, h + r, w + s]`."""

    def __init__(self, shape, dtype, name, op, value_index=0, loc=None):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.name = name
        self.op = op
        self.value_index = value_index
        self.loc = loc or _where()
        self.order = next(_counter)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self):
        return f"Tensor({self.name}, shape={self.shape}, dtype={self.dtype})"

    def __getitem__(self, indices) -> Expr:
        loc = _where()
        if not isinstance(indices, tuple):
            indices = (indices,)
        if len(indices) != len(self.shape):
            raise _error(loc, f"{self.name} has {len(self.shape)} dimensions, indexed with "
                              f"{len(indices)}", IndexError)
        lifted = []
        for d, x in enumerate(indices):
            if isinstance(x, bool) or not isinstance(x, (int, Expr)):
                raise _error(loc, f"index #{d} of {self.name} is {x!r}; indices are axes "
                                  "and integers", TypeError)
            x = _lift(x, None, loc) if isinstance(x, int) else x
            if _dt.kind(x.dtype) != "int":
                raise _error(loc, f"index #{d} of {self.name} is {x.dtype}, not an integer",
                             TypeError)
            lifted.append(x)
        return Expr("load", self.dtype, lifted, self, loc)

    def __bool__(self):
        return True


def placeholder(shape, dtype="float32", name: Optional[str] = None) -> Tensor:
    """An input tensor of `shape` and `dtype` (numpy's or MLIR's names:
    "float32"/"f32", "float16", "bfloat16", "float64", "int8", "int32", ...).

        >>> A = ext.placeholder((64, 32), "float32", name="A")
    """
    loc = _where()
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape)
    for s in shape:
        if not _is_size(s):
            raise _error(loc, f"placeholder shape must be positive integers or ext.var sizes, "
                              f"got {shape}")
    try:
        dtype = _dt.canonical(dtype)
    except ValueError as e:
        raise _error(loc, str(e)) from None
    return Tensor(shape, dtype, name or f"placeholder{next(_counter)}", None, 0, loc)


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


def _walk(root):
    stack, seen = [root], set()
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        stack.extend(e.args)


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


def _affine(e, positions, where):
    """An affine tree of `e` over the axes at `positions` (id -> dim)."""
    if isinstance(e, IterVar):
        return ("axis", positions[id(e)])
    if e.op == "const":
        return ("const", int(e.attr))
    if e.op in ("add", "sub"):
        return (e.op, _affine(e.args[0], positions, where), _affine(e.args[1], positions, where))
    if e.op == "mul":
        a, b = (_affine(x, positions, where) for x in e.args)
        if a[0] != "const" and b[0] != "const":
            raise _error(e.loc, f"{where}: an index multiplies two axes; indices must be "
                                "affine in the axes")
        return ("mul", a, b)
    if e.op in ("floordiv", "mod"):
        a, b = (_affine(x, positions, where) for x in e.args)
        if b[0] != "const" or b[1] <= 0:
            raise _error(e.loc, f"{where}: an index divides by something other than a "
                                "positive constant")
        return (e.op, a, b)
    if e.op == "neg":
        return ("mul", _affine(e.args[0], positions, where), ("const", -1))
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


def _tree_axes(tree):
    """The axis positions an affine tree uses."""
    if tree[0] == "axis":
        return [tree[1]]
    if tree[0] == "const":
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
