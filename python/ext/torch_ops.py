"""The torch calls `ext.torch.compile` maps (torch_frontend.py), each a
handler that writes the call as ONNX-style nodes (op type, inputs,
attributes) which ext.onnx's converters (onnx_ops*.py) then turn into the
same ext computes `ext.onnx.load` makes. This module: element-wise math,
comparisons, layout (view/reshape/transpose/permute/getitem/cat/split/
chunk/expand), reductions and softmax, as `FUNCTIONS` (call_function
targets) and `METHODS` (call_method names); torch_ops_nn.py holds the
nn modules and their functional forms.

A handler is `handler(lw, *args, **kwargs)` with torch's own argument
names: `lw` is the lowering (emit, const, operand, the node's shape), each
tensor argument a `T` (the value's name, shape and dtype), other arguments
as the call gave them. It returns a `T`, a list of them (split), or a
Python value; it raises `Unsupported` for a form it does not map."""

import builtins
import operator
from dataclasses import dataclass
from typing import Tuple

import numpy as np
import torch
import torch.nn.functional as F


class Unsupported(Exception):
    """A call, or a form of it, the lowering does not map (the message says
    why); the lowering names every such node in one error."""


@dataclass
class T:
    """A tensor value of the lowered graph: its name, shape and dtype
    (numpy's name: float32, bool, int64, ...)."""
    name: str
    shape: Tuple[int, ...]
    dtype: str


# torch dtypes a Cast can produce (ONNX element types).
_CAST_TO = {torch.float32: 1, torch.float16: 10, torch.float64: 11, torch.bool: 9}


def _dims(args):
    """permute(*dims) or permute(dims): the ints."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return [int(d) for d in args]


def _axis(d, rank):
    if not -max(rank, 1) <= d < max(rank, 1):
        raise Unsupported(f"dimension {d} is out of range for rank {rank}")
    return d % max(rank, 1)


def _no_out(out):
    if out is not None:
        raise Unsupported("out= is not supported")


# ---------------------------------------------------------------------------
# Element-wise


def binary(op_type):
    def handler(lw, input, other, *, alpha=1, out=None):
        _no_out(out)
        a, b = lw.operand(input, other), lw.operand(other, input)
        if alpha != 1:
            b = lw.emit("Mul", [b, lw.const(alpha, b.dtype)], shape=b.shape, suffix="alpha")
        return lw.emit(op_type, [a, b])
    return handler


def _div(lw, input, other, *, rounding_mode=None, out=None):
    if rounding_mode is not None:
        raise Unsupported(f"rounding_mode={rounding_mode!r}")
    return binary("Div")(lw, input, other, out=out)


def compare(op_type, negate=False):
    def handler(lw, input, other, *, out=None):
        _no_out(out)
        y = lw.emit(op_type, [lw.operand(input, other), lw.operand(other, input)],
                    dtype="bool", suffix="cmp" if negate else None)
        return lw.emit("Not", [y], dtype="bool") if negate else y
    return handler


def logic(op_type):
    def handler(lw, *args, out=None):
        _no_out(out)
        return lw.emit(op_type, [lw.operand(a, args[0]) for a in args], dtype="bool")
    return handler


def unary(op_type, attrs=None):
    def handler(lw, input, *args, inplace=False, out=None):
        _no_out(out)
        if inplace:
            raise Unsupported("inplace=True")
        return lw.emit(op_type, [input], attrs)
    return handler


def _rsqrt(lw, input, *, out=None):
    _no_out(out)
    s = lw.emit("Sqrt", [input], shape=input.shape, suffix="sqrt")
    return lw.emit("Reciprocal", [s])


def _silu(lw, input, inplace=False):
    s = lw.emit("Sigmoid", [input], shape=input.shape, suffix="sigmoid")
    return lw.emit("Mul", [input, s])


def _gelu(lw, input, approximate="none"):
    return lw.emit("Gelu", [input], {"approximate": approximate})


def _pow(lw, input, exponent, *, out=None):
    _no_out(out)
    return lw.emit("Pow", [lw.operand(input, exponent), lw.operand(exponent, input)])


def _clamp(lw, input, min=None, max=None, *, out=None):
    _no_out(out)
    bounds = ["" if b is None else lw.operand(b, input) for b in (min, max)]
    return lw.emit("Clip", [input] + bounds)


def _relu6(lw, input, inplace=False):
    return _clamp(lw, input, 0.0, 6.0)


def _extremum(op_type, reduce_type):
    """torch.maximum(a, b) (and torch.max(a, b)); torch.max(x) reduces all."""
    def handler(lw, input, other=None, dim=None, keepdim=False, *, out=None):
        _no_out(out)
        if isinstance(other, int) and dim is None:
            other, dim = None, other
        if dim is not None:
            raise Unsupported("with dim it returns (values, indices): use amax/amin")
        if other is None:
            return lw.emit(reduce_type, [input], {"keepdims": 0})
        return lw.emit(op_type, [lw.operand(input, other), lw.operand(other, input)])
    return handler


def _where(lw, condition, input=None, other=None):
    if input is None:
        raise Unsupported("torch.where(condition) (indices) is not supported")
    like = input if isinstance(input, T) else other
    return lw.emit("Where", [condition, lw.operand(input, like), lw.operand(other, like)])


def _masked_fill(lw, input, mask, value):
    return lw.emit("Where", [mask, lw.operand(value, input), input])


def _cast(lw, x, dtype):
    if dtype is None or dtype == getattr(torch, x.dtype, None):
        return x
    if dtype not in _CAST_TO:
        raise Unsupported(f"a cast to {dtype}")
    return lw.emit("Cast", [x], {"to": _CAST_TO[dtype]})


def _to(lw, input, *args, **kwargs):
    dtype = kwargs.get("dtype")
    for a in args:
        if isinstance(a, torch.dtype):
            dtype = a
        elif isinstance(a, T):
            dtype = getattr(torch, a.dtype)
    return _cast(lw, input, dtype)


def _cast_to(dtype):
    return lambda lw, input, *args, **kwargs: _cast(lw, input, dtype)


def _alias(lw, input, *args, **kwargs):
    """contiguous, clone, detach: the value itself."""
    return input


def _dropout(lw, input, p=0.5, training=True, inplace=False):
    if training and p > 0:
        raise Unsupported("dropout in training mode (call module.eval(), or pass "
                          "training=self.training)")
    return input


# ---------------------------------------------------------------------------
# Layout


def _reshape(lw, input, *args, **kwargs):
    """view, reshape, flatten, unflatten, squeeze, unsqueeze: a Reshape to
    the node's shape (ShapeProp's)."""
    return lw.emit("Reshape", [input, lw.const(np.array(lw.shape, np.int64))])


def _transpose(lw, input, dim0, dim1):
    rank = len(input.shape)
    perm = list(range(rank))
    a, b = _axis(dim0, rank), _axis(dim1, rank)
    perm[a], perm[b] = perm[b], perm[a]
    return lw.emit("Transpose", [input], {"perm": perm})


def _permute(lw, input, *dims):
    rank = len(input.shape)
    return lw.emit("Transpose", [input], {"perm": [_axis(d, rank) for d in _dims(dims)]})


def _t(lw, input):
    return input if len(input.shape) < 2 else _transpose(lw, input, 0, 1)


def _expand(lw, input, *sizes, **kwargs):
    return lw.emit("Expand", [input, lw.const(np.array(lw.shape, np.int64))])


def _cat(lw, tensors, dim=0, *, out=None):
    _no_out(out)
    like = next(t for t in tensors if isinstance(t, T))
    return lw.emit("Concat", [lw.operand(t, like) for t in tensors],
                   {"axis": _axis(dim, len(like.shape))})


def _stack(lw, tensors, dim=0, *, out=None):
    _no_out(out)
    rank = len(tensors[0].shape) + 1
    d = _axis(dim, rank)
    parts = []
    for t in tensors:
        shape = t.shape[:d] + (1,) + t.shape[d:]
        parts.append(lw.emit("Unsqueeze", [t, lw.const(np.array([d], np.int64))],
                             shape=shape, suffix="unsqueeze"))
    return lw.emit("Concat", parts, {"axis": d})


def _split_into(lw, x, sizes, d):
    outs = lw.emit("Split", [x, lw.const(np.array(sizes, np.int64))], {"axis": d},
                   outputs=len(sizes))
    return outs if isinstance(outs, list) else [outs]


def _split(lw, input, split_size_or_sections=None, dim=0, split_size=None):
    size = split_size if split_size is not None else split_size_or_sections
    d = _axis(dim, len(input.shape))
    n = input.shape[d]
    if isinstance(size, int):
        sizes = [min(size, n - s) for s in range(0, n, size)]
    else:
        sizes = [int(s) for s in size]
    return _split_into(lw, input, sizes, d)


def _chunk(lw, input, chunks, dim=0):
    d = _axis(dim, len(input.shape))
    n = input.shape[d]
    size = -(-n // chunks)
    return _split_into(lw, input, [min(size, n - s) for s in range(0, n, size)], d)


def _getitem(lw, value, index):
    """A tuple's item (split, chunk, attention), or a tensor indexed with
    ints, slices, None and Ellipsis: Slice, then Gather of each int
    (innermost first), then Unsqueeze of each None."""
    if isinstance(value, (list, tuple)):
        item = value[index]
        if item is None and lw.node.users:
            raise Unsupported(f"item {index} is not computed (the attention weights of "
                              "need_weights=True)")
        return item
    if not isinstance(value, T):
        return value[index]
    index = index if isinstance(index, tuple) else (index,)
    if any(isinstance(i, T) or not isinstance(i, (int, slice, type(None), type(Ellipsis)))
           for i in index):
        raise Unsupported("indexing with a tensor (advanced indexing)")
    real = [i for i in index if i is not None and i is not Ellipsis]
    if Ellipsis in index:
        at = index.index(Ellipsis)
        fill = [slice(None)] * (len(value.shape) - len(real))
        index = index[:at] + tuple(fill) + index[at + 1:]
    starts, ends, axes, steps, gathers, nones = [], [], [], [], [], []
    d = out = 0
    for i in index:
        if i is None:
            nones.append(out)
            out += 1
            continue
        if isinstance(i, int):
            gathers.append((d, i))
        elif i != slice(None):
            start, stop, step = i.indices(value.shape[d])
            starts.append(start), ends.append(stop), axes.append(d), steps.append(step)
            out += 1
        else:
            out += 1
        d += 1
    x = value
    if axes:
        shape = list(x.shape)
        for a, s, e, st in zip(axes, starts, ends, steps):
            shape[a] = len(range(s, e, st))
        x = lw.emit("Slice", [x] + [lw.const(np.array(v, np.int64))
                                    for v in (starts, ends, axes, steps)],
                    shape=tuple(shape), suffix="slice")
    for a, i in reversed(gathers):
        shape = x.shape[:a] + x.shape[a + 1:]
        x = lw.emit("Gather", [x, lw.const(np.array(i, np.int64))], {"axis": a},
                    shape=shape, suffix="gather")
    if nones:
        x = lw.emit("Unsqueeze", [x, lw.const(np.array(nones, np.int64))], shape=lw.shape,
                    suffix="unsqueeze")
    return x


def _getattr(lw, value, name):
    if isinstance(value, T) and name in ("T", "mT"):
        rank = len(value.shape)
        perm = list(reversed(range(rank))) if name == "T" else \
            list(range(rank - 2)) + [rank - 1, rank - 2]
        return lw.emit("Transpose", [value], {"perm": perm})
    raise Unsupported(f"attribute {name!r}")


# ---------------------------------------------------------------------------
# Reductions, softmax, matmul


def _reduce(op_type):
    def handler(lw, input, dim=None, keepdim=False, *, dtype=None, out=None):
        _no_out(out)
        if dtype is not None and dtype != getattr(torch, input.dtype):
            raise Unsupported(f"dtype={dtype}")
        rank = len(input.shape)
        dims = list(range(rank)) if dim is None or dim == () or dim == [] else \
            ([dim] if isinstance(dim, int) else list(dim))
        return lw.emit(op_type, [input], {"axes": [_axis(d, rank) for d in dims],
                                          "keepdims": int(bool(keepdim))})
    return handler


def _softmax(op_type):
    def handler(lw, input, dim=None, _stacklevel=3, dtype=None):
        if dim is None:
            raise Unsupported("softmax without dim (torch's implicit choice is deprecated)")
        if dtype is not None and dtype != getattr(torch, input.dtype):
            raise Unsupported(f"dtype={dtype}")
        return lw.emit(op_type, [input], {"axis": _axis(dim, len(input.shape))})
    return handler


def _matmul(lw, input, other, *, out=None):
    _no_out(out)
    return lw.emit("MatMul", [input, other])


# ---------------------------------------------------------------------------
# The tables


def _register(table, names, handler, modules=(torch, F)):
    """handler for each name found in `modules` (torch.relu, F.relu, ...)."""
    for name in names.split():
        for m in modules:
            f = getattr(m, name, None)
            if f is not None:
                table[f] = handler


FUNCTIONS = {
    operator.add: binary("Add"), operator.sub: binary("Sub"), operator.mul: binary("Mul"),
    operator.truediv: binary("Div"), operator.matmul: _matmul, operator.pow: _pow,
    operator.neg: unary("Neg"), operator.getitem: _getitem, builtins.getattr: _getattr,
    operator.eq: compare("Equal"), operator.ne: compare("Equal", negate=True),
    operator.lt: compare("Less"), operator.le: compare("LessOrEqual"),
    operator.gt: compare("Greater"), operator.ge: compare("GreaterOrEqual"),
    operator.and_: logic("And"), operator.or_: logic("Or"), operator.invert: logic("Not"),
}
METHODS = {"__getitem__": _getitem, "masked_fill": _masked_fill, "to": _to, "type": _to,
           "float": _cast_to(torch.float32), "half": _cast_to(torch.float16),
           "double": _cast_to(torch.float64), "bool": _cast_to(torch.bool),
           "expand_as": _expand}


def _both(names, handler, modules=(torch, F)):
    """handler for the functions and the Tensor methods of these names."""
    _register(FUNCTIONS, names, handler, modules)
    for name in names.split():
        METHODS[name] = handler


# (names, handler): the torch and F functions and the Tensor methods of
# each name.
_BOTH = [
    ("add", binary("Add")), ("sub subtract", binary("Sub")), ("mul multiply", binary("Mul")),
    ("div divide true_divide", _div), ("pow", _pow),
    ("eq", compare("Equal")), ("ne", compare("Equal", negate=True)),
    ("lt less", compare("Less")), ("le", compare("LessOrEqual")),
    ("gt greater", compare("Greater")), ("ge", compare("GreaterOrEqual")),
    ("logical_and", logic("And")), ("logical_or", logic("Or")), ("logical_not", logic("Not")),
    ("relu", unary("Relu")), ("tanh", unary("Tanh")), ("sigmoid", unary("Sigmoid")),
    ("exp", unary("Exp")), ("log", unary("Log")), ("sqrt", unary("Sqrt")),
    ("erf", unary("Erf")), ("abs", unary("Abs")), ("neg negative", unary("Neg")),
    ("reciprocal", unary("Reciprocal")), ("rsqrt", _rsqrt), ("silu", _silu),
    ("gelu", _gelu), ("relu6", _relu6), ("clamp clip", _clamp),
    ("maximum max", _extremum("Max", "ReduceMax")), ("minimum min", _extremum("Min", "ReduceMin")),
    ("where", _where), ("masked_fill", _masked_fill),
    ("contiguous clone detach", _alias),
    ("view reshape flatten unflatten squeeze unsqueeze", _reshape),
    ("transpose swapaxes", _transpose), ("permute", _permute), ("t", _t), ("expand", _expand),
    ("cat concat", _cat), ("stack", _stack), ("split", _split), ("chunk", _chunk),
    ("matmul bmm mm", _matmul),
    ("mean", _reduce("ReduceMean")), ("sum", _reduce("ReduceSum")),
    ("amax", _reduce("ReduceMax")), ("amin", _reduce("ReduceMin")),
    ("softmax", _softmax("Softmax")), ("log_softmax", _softmax("LogSoftmax")),
]
for _names, _handler in _BOTH:
    _both(_names, _handler)
_register(FUNCTIONS, "dropout", _dropout, (F,))
