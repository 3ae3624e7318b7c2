"""Expressions and tensors of the tensor-expression level (`ext.te`): the
values a compute's function is written in.

`Expr` nodes (tensor reads, constants, arithmetic, comparisons, casts,
`if_then_else`, math functions), symbolic sizes (`ext.var`), and tensors
(`Tensor`, `ext.placeholder`) with the checks each makes where it is
written: mixed dtypes, a float constant in an integer expression, an index
that is not an integer. It exists apart from the compute builder
(te_compute.py: `ext.compute`, axes, reductions, `ext.pad`), which turns
these trees into computes and checks them as a whole; this module knows
nothing of computes and imports nothing from it. `ext.te` re-exports both.
"""

import builtins as _builtins
import itertools
import os
import sys
from typing import Optional, Tuple

from . import dtypes as _dt

# ext.abs/round shadow the builtins here (ext.sum/min/max in te_compute); the
# builtin min and max stay reachable as _pymin and _pymax.
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
    def __lshift__(self, o): return _binary("shl", self, o)
    def __rlshift__(self, o): return _binary("shl", o, self)
    # >> shifts in zeros for unsigned values, copies of the sign bit else
    def __rshift__(self, o): return _binary("shr", self, o)
    def __rrshift__(self, o): return _binary("shr", o, self)
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


def _const(value, dtype, loc=None) -> Expr:
    loc = loc or _where()
    k = _dt.kind(dtype)
    if _dt.is_small_float(dtype):
        raise _error(loc, f"a constant of {dtype}: the f8/f4 formats hold tensor elements "
                          "only; compute in f16 or f32 (cast the elements with .astype())",
                     TypeError)
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


_SYMBOLS = {"and": "&", "or": "|", "xor": "^", "shl": "<<", "shr": ">>"}


def _no_small_float(op, dtype, loc):
    if _dt.is_small_float(dtype):
        raise _error(loc, f"'{_SYMBOLS.get(op, op)}' on {dtype}: the f8/f4 formats have no "
                          "arithmetic; convert them first, e.g. .astype(\"float16\")",
                     TypeError)


def _shift_operands(op, a, b, loc):
    """A shift's value and amount: the amount, any integer, takes the
    value's dtype (`Wq[n, k // 2] >> 4 * (k % 2)` shifts a uint8 by an int32)."""
    a = _lift(a, b if isinstance(b, Expr) else None, loc)
    b = _lift(b, a, loc)
    for x in (a, b):
        if _dt.kind(x.dtype) != "int":
            _no_small_float(op, x.dtype, loc)
            raise _error(loc, f"'{_SYMBOLS[op]}' on {x.dtype}; shifts need integers (to "
                              "shift a float's bits, ext.reinterpret it as an integer)",
                         TypeError)
    if b.dtype != a.dtype:
        b = Expr("cast", a.dtype, (b,), None, loc)
    return a, b


def _binary(op, a, b) -> Expr:
    loc = _where()
    if op in ("shl", "shr"):
        a, b = _shift_operands(op, a, b, loc)
    else:
        a, b = _same(op, a, b, loc)
    k = _dt.kind(a.dtype)
    _no_small_float(op, a.dtype, loc)
    if op in ("shl", "shr"):
        if b.op == "const" and not 0 <= b.attr < _dt.bits(a.dtype):
            raise _error(loc, f"'{_SYMBOLS[op]}' by {b.attr}: a {a.dtype} shifts by 0 to "
                              f"{_dt.bits(a.dtype) - 1}")
    if op == "div" and k != "float":
        raise _error(loc, f"'/' on {a.dtype}; use // for integer division", TypeError)
    if op == "pow" and k != "float":
        raise _error(loc, f"'**' on {a.dtype}; it needs floating-point values", TypeError)
    if op in ("and", "or", "xor") and k == "float":
        raise _error(loc, f"'{_SYMBOLS[op]}' on {a.dtype}; it needs booleans or integers "
                          "(ext.reinterpret a float's bits as an integer)", TypeError)
    if op in ("add", "sub", "mul", "floordiv", "mod", "min", "max", "pow") and k == "bool":
        raise _error(loc, f"'{op}' on booleans; cast them with .astype()", TypeError)
    return Expr(op, a.dtype, (a, b), None, loc)


def _unary(op, a) -> Expr:
    loc = _where()
    a = _lift(a, None, loc)
    _no_small_float(op, a.dtype, loc)
    if op not in ("neg", "abs", "not") and _dt.kind(a.dtype) != "float":
        raise _error(loc, f"ext.{op} needs a floating-point value, got {a.dtype}; "
                          "cast it with .astype()", TypeError)
    if op == "not" and _dt.kind(a.dtype) == "float":
        raise _error(loc, f"'~' on {a.dtype}; it needs booleans or integers", TypeError)
    return Expr(op, a.dtype, (a,), None, loc)


def _compare(pred, a, b) -> Expr:
    loc = _where()
    a, b = _same(pred, a, b, loc)
    _no_small_float(pred, a.dtype, loc)
    return Expr("cmp", "i1", (a, b), pred, loc)


def _dtype_at(dtype, loc) -> str:
    """The canonical name of `dtype`; an unknown one is an error at `loc`."""
    try:
        return _dt.canonical(dtype)
    except ValueError as e:
        raise _error(loc, str(e)) from None


def cast(x, dtype) -> Expr:
    """`x` converted to `dtype` (same as `x.astype(dtype)`).

        >>> ext.compute((8,), lambda i: ext.cast(A[i], "float64"))
    """
    loc = _where()
    x = _lift(x, None, loc)
    dtype = _dtype_at(dtype, loc)
    if dtype == x.dtype:
        return x
    return Expr("cast", dtype, (x,), None, loc)


def reinterpret(x, dtype) -> Expr:
    """The bits of `x` read as `dtype`, a type of the same width (TVM's
    `tir.reinterpret`, MLIR's arith.bitcast): f16 from uint16 bits, an
    f8E4M3FN from a uint8, a float's bits as an integer.

        >>> h = ext.compute((8,), lambda i: ext.reinterpret(U16[i], "float16"))
        >>> w = ext.compute((8,), lambda i: ext.reinterpret(Q8[i], "f8E4M3FN").astype("f16"))
    """
    loc = _where()
    x = _lift(x, None, loc)
    dtype = _dtype_at(dtype, loc)
    if "bool" in (_dt.kind(dtype), _dt.kind(x.dtype)) or _dt.bits(dtype) != _dt.bits(x.dtype):
        raise _error(loc, f"reinterpret of {x.dtype} as {dtype}: the types must have the "
                          f"same width ({_dt.bits(x.dtype)} and {_dt.bits(dtype)} bits)",
                     TypeError)
    if dtype == x.dtype:
        return x
    return Expr("bitcast", dtype, (x,), None, loc)


def lut(table, index, dtype="float32") -> Expr:
    """`table[index]` for a constant table of up to 256 numbers: NF4's 16
    levels indexed by a 4-bit code, say. `index` is an integer expression in
    [0, len(table)); outside, the value is some entry of the table, never a
    read out of bounds. It becomes a tree of selects on the index's bits,
    which every target runs.

        >>> NF4 = [-1.0, -0.6962, ..., 1.0]              # 16 levels
        >>> w = ext.compute((N, K), lambda n, k: ext.lut(NF4, (Q[n, k // 2] >> 4 * (k % 2)) & 15))
    """
    loc = _where()
    dtype = _dtype_at(dtype, loc)
    if isinstance(table, (str, bytes)) or not hasattr(table, "__len__") or \
            not 1 <= len(table) <= 256:
        raise _error(loc, "ext.lut takes a sequence of 1 to 256 numbers", TypeError)
    values = tuple(_const(v, dtype, loc).attr for v in table)
    index = _lift(index, None, loc)
    if _dt.kind(index.dtype) != "int":
        raise _error(loc, f"the index of ext.lut is {index.dtype}, not an integer", TypeError)
    return Expr("lut", dtype, (index,), values, loc)


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
    dtype = _dtype_at(dtype, loc)
    return Tensor(shape, dtype, name or f"placeholder{next(_counter)}", None, 0, loc)


def _walk(root):
    stack, seen = [root], set()
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        stack.extend(e.args)
