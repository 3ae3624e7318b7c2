"""The ONNX ops `ext.onnx.load` maps, each a function of the importer, the
node and its attributes that defines the node's outputs as `_Value`s:
element-wise expressions (written into their single reader), contractions
(MatMul, Gemm, Conv), row-wise computes (Softmax, LayerNormalization) and
layout ops (Transpose, Reshape) as index maps; and the indexing helpers
they share (broadcasting, reshape index maps, linear forms). More ops live
beside it by kind: onnx_ops_math.py (element-wise math, comparisons, Where,
Cast, BatchNormalization), onnx_ops_layout.py (Slice, Split, Concat,
Squeeze, Unsqueeze, Flatten, Expand, Gather), onnx_ops_reduce.py (Reduce*,
LogSoftmax, pooling); `_OPS` holds them all."""

import math
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from . import dtypes as _dt
from . import te as _te
from .accesses import linear_reads
from .onnx_check import OnnxImportError, UnsupportedOpError


# ONNX element types ext computes on (others may only be Reshape shapes).
_DTYPES = {1: "float32", 10: "float16", 11: "float64"}
_INDEX_TYPES = {6: "int32", 7: "int64"}



@dataclass
class _Value:
    """An ONNX value while importing: a materialized tensor (a placeholder or
    a compute), an element-wise expression not yet written as a compute
    (`fn` of the output index; `layout` when it only moves elements), or a
    constant. `shape` is ONNX's; a 0-d value is a (1,)-shaped tensor."""
    name: str
    shape: Tuple[int, ...]
    dtype: str
    tensor: Optional[_te.Tensor] = None
    fn: Optional[Callable[[List[_te.Expr]], _te.Expr]] = None
    const: Optional[np.ndarray] = None
    layout: bool = False
    node: str = ""
    label: str = ""  # the compute's name if written as one (else the node's)



# ---------------------------------------------------------------------------
# Indexing helpers


def _broadcast(*shapes) -> Tuple[int, ...]:
    try:
        return tuple(int(d) for d in np.broadcast_shapes(*shapes))
    except ValueError:
        raise OnnxImportError(f"shapes {' and '.join(map(str, shapes))} do not broadcast") \
            from None


def _read(v: _Value, idx: Sequence) -> _te.Expr:
    """v's element at `idx` (one index per dimension of v)."""
    if v.const is not None and v.const.size == 1:
        return _te.const(float(v.const.reshape(-1)[0]), v.dtype)
    if v.fn is not None:
        return v.fn(list(idx))
    return v.tensor[tuple(_simplify(i) for i in idx)] if v.shape else v.tensor[0]


def _affine_form(e):
    """An index expression as ({id: (axis, coefficient)}, constant), with
    `// q` and `% q` resolved where the axes' ranges allow (a reshape that
    splits a dimension, then merges it again); None when it is not linear."""
    if isinstance(e, int):
        return {}, e
    if isinstance(e, _te.IterVar):
        return ({id(e): (e, 1)}, 0) if isinstance(e.extent, int) else None
    if e.op == "const":
        return {}, int(e.attr)
    forms = [_affine_form(a) for a in e.args]
    if any(f is None for f in forms):
        return None
    if e.op in ("add", "sub"):
        (ta, ca), (tb, cb) = forms
        sign = 1 if e.op == "add" else -1
        terms = dict(ta)
        for key, (x, c) in tb.items():
            terms[key] = (x, terms.get(key, (x, 0))[1] + sign * c)
        return {k: v for k, v in terms.items() if v[1]}, ca + sign * cb
    if e.op == "neg":
        (t, c), = forms
        return {k: (x, -m) for k, (x, m) in t.items()}, -c
    if e.op == "mul":
        (ta, ca), (tb, cb) = forms
        if ta and tb:
            return None
        terms, factor, const = (ta, cb, ca) if not tb else (tb, ca, cb)
        return {k: (x, m * factor) for k, (x, m) in terms.items() if m * factor}, const * factor
    if e.op in ("floordiv", "mod"):
        (t, c), (tq, q) = forms
        if tq or q <= 0:
            return None
        # Terms with coefficients that are multiples of q go to the quotient;
        # the rest must stay within [0, q) for the split to be exact.
        quotient = {k: (x, m // q) for k, (x, m) in t.items() if m % q == 0}
        rest = {k: (x, m) for k, (x, m) in t.items() if m % q}
        lo = hi = c % q
        for x, m in rest.values():
            lo += min(0, m * (x.extent - 1))
            hi += max(0, m * (x.extent - 1))
        if lo < 0 or hi >= q:
            return None
        return (quotient, c // q) if e.op == "floordiv" else (rest, c % q)
    return None


def _simplify(e):
    """A linear index expression rewritten as a sum of axes times constants
    (ext tiles linear accesses only); others unchanged."""
    if isinstance(e, int) or e.op in ("axis", "const"):
        return e
    form = _affine_form(e)
    if form is None:
        return e
    terms, const = form
    out = None
    for x, m in terms.values():
        term = x if m == 1 else x * m
        out = term if out is None else out + term
    if out is None:
        return const
    return out + const if const else out


def _bread(v: _Value, idx: Sequence) -> _te.Expr:
    """v's element at output index `idx` under numpy broadcasting (v's
    dimensions right-aligned; a size-1 dimension reads index 0)."""
    off = len(idx) - len(v.shape)
    # An axis of extent 1 reads index 0 anyway: keep the axis, so a read at
    # the point written stays plain (an epilogue).
    return _read(v, [idx[off + d] if s != 1 or _unit_axis(idx[off + d]) else 0
                     for d, s in enumerate(v.shape)])


def _unit_axis(i) -> bool:
    return isinstance(i, _te.IterVar) and i.extent == 1


def _reshape_groups(ins, outs):
    """Runs of input and output dimensions with equal products: each output
    index maps to its group's input dimensions alone (a split needs no
    division, a merge one // and one %)."""
    groups, i, j = [], 0, 0
    while i < len(ins) or j < len(outs):
        a, b, pa, pb = [], [], 1, 1
        if i < len(ins):
            a.append(i); pa *= ins[i]; i += 1  # noqa: E702
        if j < len(outs):
            b.append(j); pb *= outs[j]; j += 1  # noqa: E702
        while pa != pb:
            if pa < pb:
                a.append(i); pa *= ins[i]; i += 1  # noqa: E702
            else:
                b.append(j); pb *= outs[j]; j += 1  # noqa: E702
        groups.append((a, b))
    return groups


def _reshape_index(ins, outs):
    groups = _reshape_groups(ins, outs)

    def index(out_idx):
        in_idx = [0] * len(ins)
        for a, b in groups:
            # The group's linear index; size-1 output dims add nothing.
            terms, stride = [], 1
            for d in reversed(b):
                if outs[d] != 1:
                    terms.append(out_idx[d] if stride == 1 else out_idx[d] * stride)
                stride *= outs[d]
            linear = terms[0] if terms else 0
            for t in terms[1:]:
                linear = linear + t
            # Unflatten into the group's input dims.
            stride = 1
            for n, d in enumerate(reversed(a)):
                first = n == len(a) - 1
                if ins[d] == 1:
                    in_idx[d] = 0
                    continue
                x = linear if stride == 1 else linear // stride
                in_idx[d] = x if first or _only_dim(a, ins, d) else x % ins[d]
                stride *= ins[d]
        return in_idx
    return index


def _only_dim(dims, sizes, d):
    """d is the only dimension of the group larger than 1 (no % needed)."""
    return all(sizes[e] == 1 for e in dims if e != d)

def _onnx_type_of(onnx_mod, dtype) -> int:
    try:
        return onnx_mod.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    except AttributeError:  # onnx < 1.13
        return onnx_mod.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]


# ---------------------------------------------------------------------------
# The ops


def _float_inputs(imp, node, *values):
    for v in values:
        if v.dtype not in _DTYPES.values():
            raise imp.fail(f"input '{v.name}' is {v.dtype}; ext.onnx computes on float16, "
                           "float32 and float64")
    dts = {v.dtype for v in values}
    if len(dts) > 1:
        raise imp.fail(f"inputs of different types {sorted(dts)}")


def _binary(fn):
    def op(imp, node, attrs):
        a, b = imp.value(node.input[0]), imp.value(node.input[1])
        _float_inputs(imp, node, a, b)
        try:
            shape = _broadcast(a.shape, b.shape)
        except OnnxImportError as e:
            raise imp.fail(str(e)) from None
        imp.define(node.output[0], imp.elementwise(
            shape, a.dtype, lambda idx: fn(_bread(a, idx), _bread(b, idx))))
    return op


def _unary(fn):
    def op(imp, node, attrs):
        x = imp.value(node.input[0])
        _float_inputs(imp, node, x)
        imp.define(node.output[0], imp.elementwise(x.shape, x.dtype,
                                                   lambda idx: fn(_read(x, idx), attrs)))
    return op


def _gelu(x, attrs):
    approximate = attrs.get("approximate", "none")
    if approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * (x * x * x))
        return 0.5 * x * (1.0 + _te.tanh(inner))
    if approximate != "none":
        raise ValueError(f"Gelu approximate={approximate!r} (expected 'none' or 'tanh')")
    return 0.5 * x * (1.0 + _te.erf(x * (1.0 / math.sqrt(2.0))))


def _op_gelu(imp, node, attrs):
    if attrs.get("approximate", "none") not in ("none", "tanh"):
        raise imp.fail(f"approximate={attrs['approximate']!r}; expected 'none' or 'tanh'")
    _unary(_gelu)(imp, node, attrs)


def _layout_input(imp, x: _Value) -> _Value:
    """A layout op reads a tensor or another layout expression: arithmetic
    before it is written as a compute (a contraction's epilogue then)."""
    if x.const is None:
        _float_inputs(imp, imp.node, x)
    if x.fn is not None and not x.layout:
        imp.tensor(x)
    return x


def _op_identity(imp, node, attrs):
    x = _layout_input(imp, imp.value(node.input[0]))
    if x.const is not None and x.fn is None:
        imp.define(node.output[0], imp.constant(node.output[0], x.const))
        return
    imp.define(node.output[0], imp.elementwise(x.shape, x.dtype,
                                               lambda idx: _read(x, idx), layout=True))


def _op_transpose(imp, node, attrs):
    x = _layout_input(imp, imp.value(node.input[0]))
    rank = len(x.shape)
    perm = list(attrs.get("perm", reversed(range(rank))))
    if sorted(perm) != list(range(rank)):
        raise imp.fail(f"perm {perm} is not a permutation of the {rank} dimensions")
    shape = tuple(x.shape[p] for p in perm)

    def fn(idx):
        src = [0] * rank
        for d, p in enumerate(perm):
            src[p] = idx[d]
        return _read(x, src)
    imp.define(node.output[0], imp.elementwise(shape, x.dtype, fn, layout=True))


def _op_reshape(imp, node, attrs):
    x = _layout_input(imp, imp.value(node.input[0]))
    s = imp.value(node.input[1])
    if s.const is None:
        raise imp.fail(f"its shape '{node.input[1]}' is computed; ext.onnx needs a constant "
                       "(an initializer or a Constant node)")
    target = [int(d) for d in s.const.reshape(-1)]
    allowzero = attrs.get("allowzero", 0)
    shape = []
    for d, n in enumerate(target):
        if n == 0 and not allowzero:
            if d >= len(x.shape):
                raise imp.fail(f"shape {target}: dimension {d} copies the input's, which has "
                               f"only {len(x.shape)}")
            n = x.shape[d]
        shape.append(n)
    size = int(np.prod(x.shape, dtype=np.int64))
    if shape.count(-1) > 1 or any(n < -1 for n in shape):
        raise imp.fail(f"shape {target} is not a valid Reshape shape")
    if -1 in shape:
        known = int(np.prod([n for n in shape if n != -1], dtype=np.int64))
        if known == 0 or size % known:
            raise imp.fail(f"cannot reshape {list(x.shape)} to {target}")
        shape[shape.index(-1)] = size // known
    if any(n == 0 for n in shape):
        raise imp.fail(f"shape {shape} has a zero dimension (ext tensors are not empty)")
    if int(np.prod(shape, dtype=np.int64)) != size:
        raise imp.fail(f"cannot reshape {list(x.shape)} ({size} elements) to {shape}")
    _reshape_to(imp, node, x, shape)


def _reshape_to(imp, node, x: _Value, shape):
    """Defines node's output as x (a layout input) reshaped to `shape` (of
    the same size): a constant reshaped, a graph input's placeholder of the
    new shape, else an index map."""
    if x.const is not None and x.fn is None:
        imp.define(node.output[0], imp.constant(node.output[0], x.const.reshape(shape)))
        return
    feed = next((f for t, f in imp.placeholders if t is x.tensor), None) \
        if x.fn is None else None
    if feed is not None and feed[0] == "input":
        # A graph input reshaped: a placeholder of the new shape, fed the
        # same array (no copy, no index arithmetic).
        t = imp.placeholder(f"{x.name}_{node.name or 'reshape'}", shape, x.dtype,
                            feed[:4] + (tuple(shape),))
        imp.define(node.output[0], _Value("", tuple(shape), x.dtype, tensor=t))
        return
    index = _reshape_index(list(x.shape), shape)
    imp.define(node.output[0], imp.elementwise(
        shape, x.dtype, lambda idx: _read(x, index(idx)), layout=True))


def _op_constant(imp, node, attrs):
    onnx = imp.onnx
    if "value" in attrs:
        array = onnx.numpy_helper.to_array(attrs["value"])
    elif "value_float" in attrs:
        array = np.array(attrs["value_float"], np.float32)
    elif "value_floats" in attrs:
        array = np.array(attrs["value_floats"], np.float32)
    elif "value_int" in attrs:
        array = np.array(attrs["value_int"], np.int64)
    elif "value_ints" in attrs:
        array = np.array(attrs["value_ints"], np.int64)
    else:
        raise imp.fail(f"attributes {sorted(attrs)}: ext.onnx takes value, value_float(s) "
                       "and value_int(s)")
    imp.define(node.output[0], imp.constant(node.output[0], array))


def _wide(x):
    """A product's factor: f16 and bf16 widened to f32, so that contractions
    of them accumulate in f32, as cuBLAS and the tensor cores do."""
    return _te.cast(x, "float32") if x.dtype in ("f16", "bf16") else x


def _narrowed(v: _Value, dtype, name) -> _Value:
    """A contraction's value `v` as `dtype`: its f32 sums cast back where the
    inputs are f16 or bf16 (an element-wise cast its readers take, the
    kernel's epilogue then)."""
    if _dt.canonical(v.dtype) == _dt.canonical(dtype):
        v.dtype = dtype  # (ONNX's name of it)
        return v
    return _Value("", v.shape, dtype, label=f"{name}_cast",
                  fn=lambda idx: _te.cast(_read(v, idx), dtype))


def _contraction(imp, shape, dtype, fn, name) -> _Value:
    """The contraction `fn` (its products of `_wide` factors) as `dtype`."""
    t = imp.compute(shape, fn, name, role="contraction")
    return _narrowed(_Value("", tuple(shape), t.dtype, tensor=t), dtype, name)


def _op_matmul(imp, node, attrs):
    a, b = imp.value(node.input[0]), imp.value(node.input[1])
    _float_inputs(imp, node, a, b)
    if not a.shape or not b.shape:
        raise imp.fail("MatMul of a 0-d tensor")
    sa = a.shape if len(a.shape) > 1 else (1,) + a.shape
    sb = b.shape if len(b.shape) > 1 else b.shape + (1,)
    if sa[-1] != sb[-2]:
        raise imp.fail(f"shapes {list(a.shape)} and {list(b.shape)}: inner dimensions "
                       f"{sa[-1]} and {sb[-2]} differ")
    try:
        batch = _broadcast(sa[:-2], sb[:-2])
    except OnnxImportError as e:
        raise imp.fail(f"batch dimensions: {e}") from None
    m, kk, n = sa[-2], sa[-1], sb[-1]
    shape = batch + ((m,) if len(a.shape) > 1 else ()) + ((n,) if len(b.shape) > 1 else ())
    av, bv, ks, k = _reduce_operands(imp, a, len(a.shape) - 1, b, max(len(b.shape) - 2, 0), kk)
    nb = len(batch)

    def fn(idx):
        bi = idx[:nb]
        rest = idx[nb:]
        i = rest.pop(0) if len(a.shape) > 1 else None
        j = rest.pop(0) if len(b.shape) > 1 else None
        ai = [k] if i is None else [i, k]
        bj = [k] if j is None else [k, j]
        ar = _bread(av, bi + ai) if len(a.shape) > 2 else _read(av, ai)
        br = _bread(bv, bi + bj) if len(b.shape) > 2 else _read(bv, bj)
        return _te.sum(_wide(ar) * _wide(br), axis=ks)
    imp.define(node.output[0], _contraction(imp, shape, a.dtype, fn, node.name or "matmul"))


def _merge_factors(v: _Value, dim: int, extent: int) -> Optional[List[int]]:
    """The sizes (outermost first) of the dims that dimension `dim` of a
    layout expression merges (a Reshape of a computed tensor), found from
    the divisors its reads apply to that dim; None when it merges none."""
    if v.fn is None or not v.layout:
        return None
    probe = [_te.IterVar(f"p{d}", s, "spatial") for d, s in enumerate(v.shape)]
    divisors = set()
    for e in _te._walk(v.fn(probe)):
        if e.op in ("floordiv", "mod") and e.args[1].op == "const" and \
                any(x is probe[dim] for x in _te._walk(e.args[0])):
            divisors.add(int(e.args[1].attr))
    factors, inner = [], 1
    for q in sorted(q for q in divisors if 1 < q < extent):
        if q % inner:
            return None
        factors.append(q // inner)
        inner = q
    if not factors or extent % inner:
        return None
    return [extent // inner] + factors[::-1]


def _reduce_operands(imp, a, a_dim, b, b_dim, extent):
    """A contraction's operands and reduce axes: one axis `k`, or, where an
    operand is a Reshape merging dims into the reduced one, one axis per
    merged dim (k = k0 * n1 + k1 ...) with that operand read through the
    reshape, so every read stays linear (ext tiles linear accesses)."""
    fa, fb = _merge_factors(a, a_dim, extent), _merge_factors(b, b_dim, extent)
    factors = fa or fb
    if not factors:
        k = _te.reduce_axis(extent, name="k")
        return (_Value(a.name, a.shape, a.dtype, tensor=imp.tensor(a)),
                _Value(b.name, b.shape, b.dtype, tensor=imp.tensor(b)), [k], k)
    ks = [_te.reduce_axis(f, name=f"k{n}") for n, f in enumerate(factors)]
    k, stride = None, 1
    for axis, f in zip(reversed(ks), reversed(factors)):
        term = axis if stride == 1 else axis * stride
        k = term if k is None else term + k
        stride *= f
    av = a if fa == factors else _Value(a.name, a.shape, a.dtype, tensor=imp.tensor(a))
    bv = b if fb == factors else _Value(b.name, b.shape, b.dtype, tensor=imp.tensor(b))
    return av, bv, ks, k


def _split_rows(imp, node, m, n, body) -> Optional[_Value]:
    """A GEMM whose A merges two dims of a computed tensor into its m rows
    (torch's heads merged back after a transpose: T x B rows), computed over
    those dims so that its reads of A stay linear, and defined as the
    layout merging them again, which a Reshape back to them reads plainly;
    None when no split of the rows makes the reads linear. `body(r, j)` is
    the contraction at row r, column j."""
    for inner in (f for f in range(2, m) if m % f == 0):
        t = imp.compute((m // inner, inner, n), lambda idx: body(idx[0] * inner + idx[1],
                                                                 idx[2]),
                        node.name or "gemm", role="contraction")
        if linear_reads(t.op):
            return _Value("", (m, n), t.dtype, layout=True, fn=lambda idx, t=t, q=inner: t[
                _simplify(idx[0] // q), _simplify(idx[0] % q), idx[1]])
    return None


def _op_gemm(imp, node, attrs):
    a, b = imp.value(node.input[0]), imp.value(node.input[1])
    c = imp.value(node.input[2]) if len(node.input) > 2 and node.input[2] else None
    _float_inputs(imp, node, *([a, b] + ([c] if c else [])))
    if len(a.shape) != 2 or len(b.shape) != 2:
        raise imp.fail(f"Gemm takes 2-D A and B, got {list(a.shape)} and {list(b.shape)}")
    alpha, beta = float(attrs.get("alpha", 1.0)), float(attrs.get("beta", 1.0))
    ta, tb = int(attrs.get("transA", 0)), int(attrs.get("transB", 0))
    m, kk = (a.shape[1], a.shape[0]) if ta else a.shape
    k2, n = (b.shape[1], b.shape[0]) if tb else b.shape
    if kk != k2:
        raise imp.fail(f"A is {list(a.shape)} (transA={ta}), B {list(b.shape)} "
                       f"(transB={tb}): inner dimensions {kk} and {k2} differ")
    if c is not None and _broadcast(c.shape, (m, n)) != (m, n):
        raise imp.fail(f"C of shape {list(c.shape)} does not broadcast to {[m, n]}")
    av, bv, ks, k = _reduce_operands(imp, a, 0 if ta else 1, b, 1 if tb else 0, kk)

    def fn(idx):
        i, j = idx
        return _te.sum(_wide(_read(av, [k, i] if ta else [i, k])) *
                       _wide(_read(bv, [j, k] if tb else [k, j])), axis=ks)
    t = imp.compute((m, n), fn, node.name or "gemm", role="contraction")
    p = _Value("", (m, n), t.dtype, tensor=t)
    if not ta and a.layout and not linear_reads(t.op):
        p = _split_rows(imp, node, m, n, lambda r, j: _te.sum(
            _wide(_read(av, [r, k])) * _wide(_read(bv, [j, k] if tb else [k, j])), axis=ks)) or p
    p = _narrowed(p, a.dtype, node.name or "gemm")
    if alpha == 1.0 and (c is None or beta == 0.0):
        imp.define(node.output[0], p)
        return

    # alpha * A'B' + beta * C: an element-wise expression (the epilogue).
    def epilogue(idx):
        y = _read(p, idx)
        y = y * alpha if alpha != 1.0 else y
        if c is not None and beta != 0.0:
            cv = _bread(c, idx)
            y = y + (cv * beta if beta != 1.0 else cv)
        return y
    v = imp.elementwise((m, n), a.dtype, epilogue)
    v.label = f"{node.name or 'gemm'}_{'bias' if c is not None and beta != 0.0 else 'alpha'}"
    imp.define(node.output[0], v)


def _op_conv(imp, node, attrs):
    x, w = imp.value(node.input[0]), imp.value(node.input[1])
    bias = imp.value(node.input[2]) if len(node.input) > 2 and node.input[2] else None
    _float_inputs(imp, node, *([x, w] + ([bias] if bias else [])))
    if len(x.shape) != 4 or len(w.shape) != 4:
        raise imp.fail(f"X {list(x.shape)}, W {list(w.shape)}: ext.onnx maps 2-D "
                       "convolutions (NCHW input, FCHW weight)", UnsupportedOpError)
    for name, n in (("strides", 2), ("dilations", 2), ("kernel_shape", 2), ("pads", 4)):
        if name in attrs and len(attrs[name]) != n:
            raise imp.fail(f"{name} {list(attrs[name])} has {len(attrs[name])} entries; a 2-D "
                           f"convolution takes {n}")
    nb, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    group = int(attrs.get("group", 1))
    if c % group or f % group or cg != c // group:
        raise imp.fail(f"group={group}: X has {c} channels, W {list(w.shape)}")
    ks = attrs.get("kernel_shape")
    if ks is not None and list(ks) != [kh, kw]:
        raise imp.fail(f"kernel_shape {list(ks)} but W is {list(w.shape)}")
    sh, sw = attrs.get("strides", [1, 1])
    dh, dw = attrs.get("dilations", [1, 1])
    auto = attrs.get("auto_pad", "NOTSET")
    if auto == "NOTSET":
        pt, pl, pb, pr = attrs.get("pads", [0, 0, 0, 0])
    elif auto == "VALID":
        pt = pl = pb = pr = 0
    elif auto in ("SAME_UPPER", "SAME_LOWER"):
        pads = []
        for size, s, d, kn in ((h, sh, dh, kh), (wd, sw, dw, kw)):
            total = max((-(-size // s) - 1) * s + (kn - 1) * d + 1 - size, 0)
            small = total // 2
            pads.append((total - small, small) if auto == "SAME_LOWER" else (small, total - small))
        (pt, pb), (pl, pr) = pads
    else:
        raise imp.fail(f"auto_pad={auto!r}")
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    if oh <= 0 or ow <= 0:
        raise imp.fail(f"the output would be {oh}x{ow}")
    xt, wt = imp.tensor(x), imp.tensor(w)
    if pt or pl or pb or pr:
        # ext.pad: read only inside the image, inlined into the convolution
        # as guarded reads (no padded copy).
        xp = _te.pad(xt, (0, 0, pt, pl), (0, 0, pb, pr),
                     name=imp.fresh(f"{xt.name}_pad"))
        imp.role[id(xp.op)] = "elementwise"
        imp.node_of[id(xp.op)] = imp.node_name(node)
    else:
        xp = xt
    rc, ry, rx = (_te.reduce_axis(cg, "rc"), _te.reduce_axis(kh, "ry"),
                  _te.reduce_axis(kw, "rx"))
    fg = f // group

    def fn(idx):
        b, o, y, xx = idx
        ch = rc if group == 1 else (o // fg) * cg + rc
        return _te.sum(_wide(xp[b, ch, y * sh + ry * dh, xx * sw + rx * dw]) *
                       _wide(wt[o, rc, ry, rx]), axis=[rc, ry, rx])
    y = _contraction(imp, (nb, f, oh, ow), x.dtype, fn, node.name or "conv")
    if bias is None:
        imp.define(node.output[0], y)
        return
    if bias.shape != (f,):
        raise imp.fail(f"bias B has shape {list(bias.shape)}, expected [{f}]")
    v = imp.elementwise(y.shape, x.dtype, lambda idx: _read(y, idx) + _read(bias, [idx[1]]))
    v.label = f"{node.name or 'conv'}_bias"
    imp.define(node.output[0], v)


def _axis(imp, axis, rank):
    if not -rank <= axis < rank:
        raise imp.fail(f"axis {axis} is out of range for rank {rank}")
    return axis % rank


def _rowwise_parts(imp, x: _Value, reduced):
    """x as a tensor, the reduced shape (reduced dims 1) and index helpers."""
    xt = imp.tensor(x)
    shape = x.shape or (1,)
    red_shape = tuple(1 if d in reduced else s for d, s in enumerate(shape))
    n = int(np.prod([shape[d] for d in reduced], dtype=np.int64))

    def axes(tag):
        return {d: _te.reduce_axis(shape[d], name=f"{tag}{d}") for d in reduced}

    def at(idx, ks):  # the input index with the reduced dims on reduce axes
        return [ks[d] if d in ks else i for d, i in enumerate(idx)]

    def row(idx):  # a reduced compute's index for a point of the row
        return [0 if d in reduced else i for d, i in enumerate(idx)]
    return xt, shape, red_shape, n, axes, at, row


def _softmax(log=False):
    """Softmax, or LogSoftmax (x - max - log(sum(exp(x - max)))): one row-wise
    kernel each, the row's max and sum computed at the row."""
    def op(imp, node, attrs):
        x = imp.value(node.input[0])
        _float_inputs(imp, node, x)
        rank = max(len(x.shape), 1)
        if imp.opset >= 13:
            reduced = [_axis(imp, int(attrs.get("axis", -1)), rank)]
        else:  # the input coerced to 2-D at axis: the trailing dims reduce
            reduced = list(range(_axis(imp, int(attrs.get("axis", 1)), rank), rank))
        xt, shape, red_shape, n, axes, at, row = _rowwise_parts(imp, x, reduced)
        name = node.name or ("logsoftmax" if log else "softmax")
        k1, k2 = axes("k"), axes("q")
        ks1, ks2 = list(k1.values()), list(k2.values())
        row_max = imp.compute(red_shape, lambda i: _te.max(xt[tuple(at(i, k1))], axis=ks1),
                              f"{name}_max", role="reduction")
        if log:
            row_sum = imp.compute(red_shape, lambda i: _te.sum(
                _te.exp(xt[tuple(at(i, k2))] - row_max[tuple(i)]), axis=ks2),
                f"{name}_sum", role="reduction")
            y = imp.compute(shape, lambda i: xt[tuple(i)] - row_max[tuple(row(i))]
                            - _te.log(row_sum[tuple(row(i))]), name, role="rowwise")
            inline = []
        else:
            e = imp.compute(shape, lambda i: _te.exp(xt[tuple(i)] - row_max[tuple(row(i))]),
                            f"{name}_exp")
            row_sum = imp.compute(red_shape, lambda i: _te.sum(e[tuple(at(i, k2))], axis=ks2),
                                  f"{name}_sum", role="reduction")
            y = imp.compute(shape, lambda i: e[tuple(i)] / row_sum[tuple(row(i))], name,
                            role="rowwise")
            inline = [e]
        imp.register_rowwise(y, [row_max, row_sum], inline, reduced)
        imp.define(node.output[0], _Value("", x.shape, x.dtype, tensor=y))
    return op


def _op_layernorm(imp, node, attrs):
    x, scale = imp.value(node.input[0]), imp.value(node.input[1])
    bias = imp.value(node.input[2]) if len(node.input) > 2 and node.input[2] else None
    _float_inputs(imp, node, *([x, scale] + ([bias] if bias else [])))
    if any(o for o in node.output[1:]):
        raise imp.fail("its Mean and InvStdDev outputs are not supported (only Y)",
                       UnsupportedOpError)
    rank = len(x.shape)
    if rank == 0:
        raise imp.fail("LayerNormalization of a 0-d tensor")
    axis = _axis(imp, int(attrs.get("axis", -1)), rank)
    eps = float(attrs.get("epsilon", 1e-5))
    reduced = list(range(axis, rank))
    for v in [scale] + ([bias] if bias else []):
        if _broadcast(v.shape, x.shape[axis:]) != tuple(x.shape[axis:]):
            raise imp.fail(f"'{v.name}' of shape {list(v.shape)} does not broadcast to the "
                           f"normalized shape {list(x.shape[axis:])}")
    xt, shape, red_shape, n, axes, at, row = _rowwise_parts(imp, x, reduced)
    name = node.name or "layernorm"
    k1, k2 = axes("k"), axes("q")
    ks1, ks2 = list(k1.values()), list(k2.values())
    inv_n = 1.0 / n
    mean = imp.compute(red_shape, lambda i: _te.sum(xt[tuple(at(i, k1))] * inv_n, axis=ks1),
                       f"{name}_mean", role="reduction")

    def var_body(i):
        d = xt[tuple(at(i, k2))] - mean[tuple(i)]
        return _te.sum(d * d * inv_n, axis=ks2)
    var = imp.compute(red_shape, var_body, f"{name}_var", role="reduction")

    def y_body(i):
        r = tuple(row(i))
        y = (xt[tuple(i)] - mean[r]) * _te.rsqrt(var[r] + eps) * _bread(scale, i)
        return y + _bread(bias, i) if bias is not None else y
    y = imp.compute(shape, y_body, name, role="rowwise")
    imp.register_rowwise(y, [mean, var], [], reduced)
    imp.define(node.output[0], _Value("", x.shape, x.dtype, tensor=y))


# The ops this module maps; onnx_registry.py joins them with the families'
# (onnx_ops_math, onnx_ops_layout, onnx_ops_reduce), which import this
# module's helpers, so this module imports none of them.
OPS = {
    "Add": _binary(lambda a, b: a + b),
    "Sub": _binary(lambda a, b: a - b),
    "Mul": _binary(lambda a, b: a * b),
    "Div": _binary(lambda a, b: a / b),
    "Relu": _unary(lambda x, attrs: _te.max(x, 0.0)),
    "Sigmoid": _unary(lambda x, attrs: _te.sigmoid(x)),
    "Tanh": _unary(lambda x, attrs: _te.tanh(x)),
    "Gelu": _op_gelu,
    "MatMul": _op_matmul,
    "Gemm": _op_gemm,
    "Conv": _op_conv,
    "Softmax": _softmax(),
    "LogSoftmax": _softmax(log=True),
    "LayerNormalization": _op_layernorm,
    "Transpose": _op_transpose,
    "Reshape": _op_reshape,
    "Identity": _op_identity,
    "Constant": _op_constant,
}
