"""Element-wise ONNX ops as ext expressions: math functions (Erf, Exp,
Sqrt, Reciprocal, Neg, Abs, Pow, Min, Max, Clip), comparisons and logic
(Equal, Less, Greater, Not, And, Or) whose boolean results stay expressions,
Where, Cast, and BatchNormalization in inference (a per-channel scale and
shift: the Conv's epilogue, where it is not folded into the Conv's weights
at load, see onnx_fold.py). Each defines its output as an expression
written into its reader, as onnx_ops.py's Add or Relu do."""

import numpy as np

from . import te as _te
from .onnx_ops import _DTYPES, _broadcast, _bread, _float_inputs, _read, _Value
from .onnx_check import OnnxImportError

_FLOATS = tuple(_DTYPES.values())


def is_float(v: _Value) -> bool:
    return v.dtype in _FLOATS


def scalar(v: _Value):
    """The Python value of a constant of one element, else None."""
    if v.const is not None and v.fn is None and v.const.size == 1:
        x = v.const.reshape(-1)[0]
        return bool(x) if v.const.dtype == bool else float(x)
    return None


def const_tensor(imp, v: _Value, dtype="float32") -> _te.Tensor:
    """A constant array that is not float (a boolean mask, integers) read as
    data: a float placeholder holding its values, fed by `run`."""
    if v.tensor is None:
        feed = np.ascontiguousarray(v.const.astype(dtype).reshape(v.shape or (1,)))
        v.tensor = imp.placeholder(v.name or "mask", v.shape, dtype, ("const", feed))
    return v.tensor


def read_any(imp, v: _Value, idx):
    """v at broadcast index `idx`, whatever it holds: a float expression or
    tensor, a scalar constant, a boolean expression, or a boolean or integer
    constant array (read through a float placeholder, compared with 0 for a
    boolean)."""
    c = scalar(v)
    if c is not None:
        return c
    if v.const is not None and v.fn is None and not is_float(v):
        t = const_tensor(imp, v)
        off = len(idx) - len(v.shape)
        r = t[tuple(idx[off + d] if s != 1 else 0 for d, s in enumerate(v.shape))] \
            if v.shape else t[0]
        return r != 0.0 if v.dtype == "bool" else r
    return _bread(v, idx)


def _shape_of(imp, values):
    try:
        return _broadcast(*[v.shape for v in values])
    except OnnxImportError as e:
        raise imp.fail(str(e)) from None


def _lifted(x, dtype):
    return _te.const(x, dtype) if isinstance(x, float) else x


def unary(fn):
    def op(imp, node, attrs):
        x = imp.value(node.input[0])
        _float_inputs(imp, node, x)
        imp.define(node.output[0], imp.elementwise(x.shape, x.dtype,
                                                   lambda idx: fn(_read(x, idx))))
    return op


def _op_pow(imp, node, attrs):
    x, y = imp.value(node.input[0]), imp.value(node.input[1])
    _float_inputs(imp, node, x)
    e = scalar(y)
    shape = _shape_of(imp, [x, y])

    def fn(idx):
        b = _bread(x, idx)
        if e == 2.0:
            return b * b
        if e == 3.0:
            return b * b * b
        if e == 1.0:
            return b
        if e == 0.5:
            return _te.sqrt(b)
        if e is not None:
            return b ** _te.const(e, x.dtype)
        if not is_float(y):
            raise imp.fail(f"exponent '{y.name}' is {y.dtype}; ext.onnx takes a float "
                           "exponent or a constant")
        return b ** _bread(y, idx)
    imp.define(node.output[0], imp.elementwise(shape, x.dtype, fn))


def variadic(combine):
    """Min, Max (any number of inputs, broadcast)."""
    def op(imp, node, attrs):
        values = [imp.value(x) for x in node.input if x]
        _float_inputs(imp, node, *values)
        shape = _shape_of(imp, values)

        def fn(idx):
            out = _bread(values[0], idx)
            for v in values[1:]:
                out = combine(out, _bread(v, idx))
            return out
        imp.define(node.output[0], imp.elementwise(shape, values[0].dtype, fn))
    return op


def _op_clip(imp, node, attrs):
    x = imp.value(node.input[0])
    _float_inputs(imp, node, x)
    bounds = []
    for n, name in ((1, "min"), (2, "max")):
        if len(node.input) > n and node.input[n]:
            b = scalar(imp.value(node.input[n]))
            if b is None:
                raise imp.fail(f"its {name} '{node.input[n]}' is computed; ext.onnx needs a "
                               "constant")
            bounds.append(b)
        else:
            bounds.append(attrs.get(name))  # (opset < 11: attributes)

    def fn(idx):
        y = _read(x, idx)
        if bounds[0] is not None:
            y = _te.max(y, _te.const(float(bounds[0]), x.dtype))
        if bounds[1] is not None:
            y = _te.min(y, _te.const(float(bounds[1]), x.dtype))
        return y
    imp.define(node.output[0], imp.elementwise(x.shape, x.dtype, fn))


def compare(pred):
    """Equal, Less, Greater, ...: a boolean expression (never a tensor)."""
    def op(imp, node, attrs):
        a, b = imp.value(node.input[0]), imp.value(node.input[1])
        for v in (a, b):
            if not is_float(v) and v.const is None:
                raise imp.fail(f"input '{v.name}' is {v.dtype}; ext.onnx compares float "
                               "values (and constants)")
        dtype = a.dtype if is_float(a) else b.dtype
        shape = _shape_of(imp, [a, b])
        imp.define(node.output[0], imp.elementwise(shape, "bool", lambda idx: pred(
            _lifted(read_any(imp, a, idx), dtype), _lifted(read_any(imp, b, idx), dtype))))
    return op


def _bool_inputs(imp, *values):
    for v in values:
        if v.dtype != "bool":
            raise imp.fail(f"input '{v.name}' is {v.dtype}, not bool")


def logic(combine):
    """Not (one input), And, Or (two): boolean expressions."""
    def op(imp, node, attrs):
        values = [imp.value(x) for x in node.input]
        _bool_inputs(imp, *values)
        shape = _shape_of(imp, values)

        def fn(idx):
            xs = [read_any(imp, v, idx) for v in values]
            xs = [_te.const(1 if x else 0, "bool") if isinstance(x, bool) else x for x in xs]
            return combine(*xs)
        imp.define(node.output[0], imp.elementwise(shape, "bool", fn))
    return op


def _op_where(imp, node, attrs):
    c, a, b = (imp.value(x) for x in node.input)
    _bool_inputs(imp, c)
    _float_inputs(imp, node, *[v for v in (a, b) if is_float(v) or scalar(v) is None])
    dtype = a.dtype if is_float(a) else b.dtype
    if dtype not in _FLOATS:
        raise imp.fail(f"Where of {a.dtype} and {b.dtype}; ext.onnx selects float values")
    shape = _shape_of(imp, [c, a, b])

    def fn(idx):
        cond = read_any(imp, c, idx)
        x, y = (_lifted(read_any(imp, v, idx), dtype) for v in (a, b))
        if isinstance(cond, bool):
            return x if cond else y
        return _te.if_then_else(cond, x, y)
    imp.define(node.output[0], imp.elementwise(shape, dtype, fn))


def _op_cast(imp, node, attrs):
    x = imp.value(node.input[0])
    to = int(attrs["to"])
    if to == 9:  # BOOL
        if not is_float(x):
            raise imp.fail(f"Cast of {x.dtype} to bool")
        imp.define(node.output[0], imp.elementwise(
            x.shape, "bool", lambda idx: _read(x, idx) != _te.const(0.0, x.dtype)))
        return
    dtype = _DTYPES.get(to)
    if dtype is None:
        raise imp.fail(f"Cast of computed values to element type {to}; ext.onnx casts to "
                       "FLOAT, FLOAT16, DOUBLE and BOOL")
    if x.dtype == "bool":
        fn = lambda idx: _te.if_then_else(  # noqa: E731
            read_any(imp, x, idx), _te.const(1.0, dtype), _te.const(0.0, dtype))
    elif is_float(x):
        fn = (lambda idx: _read(x, idx)) if x.dtype == dtype else \
            (lambda idx: _te.cast(_read(x, idx), dtype))  # noqa: E731
    else:
        raise imp.fail(f"Cast of computed {x.dtype} values")
    imp.define(node.output[0], imp.elementwise(x.shape, dtype, fn,
                                               layout=x.dtype == dtype and x.layout))


def _op_batchnorm(imp, node, attrs):
    """Inference mode: y = x * s[c] + (beta[c] - mean[c] * s[c]), with
    s = scale / sqrt(var + epsilon) computed at load from the constants."""
    x = imp.value(node.input[0])
    _float_inputs(imp, node, x)
    if any(o for o in node.output[1:]) or attrs.get("training_mode", 0):
        raise imp.fail("training mode (running statistics as outputs) is not supported")
    params = [imp.value(n) for n in node.input[1:5]]
    if any(p.const is None or p.fn is not None for p in params):
        raise imp.fail("its scale, bias, mean and variance must be constants")
    if len(x.shape) < 2:
        raise imp.fail(f"input of shape {list(x.shape)} has no channel dimension")
    scale, beta, mean, var = (p.const.astype(np.float64).reshape(-1) for p in params)
    channels = x.shape[1]
    if any(len(p) != channels for p in (scale, beta, mean, var)):
        raise imp.fail(f"its parameters must have {channels} entries (the channels)")
    eps = float(attrs.get("epsilon", 1e-5))
    s = scale / np.sqrt(var + eps)
    t = beta - mean * s
    sv = imp.constant(f"{node.output[0]}_scale", s.astype(x.dtype))
    tv = imp.constant(f"{node.output[0]}_shift", t.astype(x.dtype))

    def fn(idx):
        c = [idx[1]]
        return _read(x, idx) * _read(sv, c) + _read(tv, c)
    imp.define(node.output[0], imp.elementwise(x.shape, x.dtype, fn))


OPS = {
    "Erf": unary(_te.erf),
    "Exp": unary(_te.exp),
    "Log": unary(_te.log),
    "Sqrt": unary(_te.sqrt),
    "Reciprocal": unary(lambda x: 1.0 / x),
    "Neg": unary(lambda x: -x),
    "Abs": unary(_te.abs),
    "Pow": _op_pow,
    "Min": variadic(_te.min),
    "Max": variadic(_te.max),
    "Clip": _op_clip,
    "Equal": compare(lambda a, b: a == b),
    "Less": compare(lambda a, b: a < b),
    "LessOrEqual": compare(lambda a, b: a <= b),
    "Greater": compare(lambda a, b: a > b),
    "GreaterOrEqual": compare(lambda a, b: a >= b),
    "Not": logic(lambda a: ~a),
    "And": logic(lambda a, b: a & b),
    "Or": logic(lambda a, b: a | b),
    "Where": _op_where,
    "Cast": _op_cast,
    "BatchNormalization": _op_batchnorm,
}
