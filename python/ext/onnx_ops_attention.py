"""The mappings of the fused nodes onnx_patterns.py makes: a LayerNorm
written out as one LayerNormalization, and scaled dot-product attention as
one online-softmax kernel in `ext.attention`'s form (scores, row max, row
sum, accumulator, out = accumulator / sum; FlashAttention's schedule, the
scores and probabilities never stored). Each checks what the structural
match could not (ranks, axes, dtypes, the mask's values) and maps the
member nodes one by one where the fusion does not apply."""

from types import SimpleNamespace

import numpy as np

from . import dtypes as _dt
from . import te as _te
from .accesses import linear_reads, operands
from .onnx_check import OnnxImportError
from .onnx_ops import _broadcast, _bread, _op_layernorm

_LOG2E = 1.4426950408889634
_FUSIBLE = ("float16", "bfloat16", "float32")


def replay(imp, node):
    """The fused node's members mapped one by one (by the importer's own
    converters): the graph as written."""
    for m in node.members:
        imp.node = m
        imp.mapping(m)(imp, m, imp.attributes(m))
    imp.node = node


def map_layernorm(imp, node, attrs):
    x = imp.value(node.input[0])
    rank = len(x.shape)
    axes = sorted({a % rank for a in attrs["axes"]}) if rank and all(
        -rank <= a < rank for a in attrs["axes"]) else []
    if not axes or axes != list(range(rank - len(axes), rank)) or x.dtype not in _FUSIBLE + (
            "float64",) or len(axes) != len(attrs["axes"]):
        return replay(imp, node)
    weight, bias = node.input[1], node.input[2]
    if not weight:  # (LayerNormalization takes a weight: ones)
        weight = imp.fresh(f"{node.name}_ones")
        imp.values[weight] = imp.constant(weight, np.ones(x.shape[axes[0]:], x.dtype))
    ln = SimpleNamespace(op_type="LayerNormalization", name=node.name, domain="",
                         input=[node.input[0], weight, bias], output=node.output)
    try:
        _op_layernorm(imp, ln, {"axis": axes[0], "epsilon": attrs["epsilon"]})
    except OnnxImportError:  # (a weight or bias over more than the row)
        replay(imp, node)


def _causal_offset(mask, shape):
    """c where `mask` (True: hidden), broadcast to `shape` (..., Tq, Tk),
    hides exactly the keys j > i + c of every query i, each query seeing one
    key at least; else None."""
    if mask.const is None or mask.fn is not None or mask.const.dtype != bool:
        return None
    try:
        m = np.broadcast_to(mask.const, shape)
    except ValueError:
        return None
    if m.shape != tuple(shape):
        return None
    tq, tk = shape[-2:]
    c = int(np.argmax(m[(0,) * (len(shape) - 2)][0])) - 1 if m.any() else tk - 1
    if c < 0:
        return None
    i, j = np.arange(tq)[:, None], np.arange(tk)[None, :]
    return c if np.array_equal(m, np.broadcast_to(j > i + c, shape)) else None


def _operand(imp, v, plain):
    """An input of the scores or the accumulator: read in place where it is a
    tensor or a layout of one read linearly (a transpose; with `plain`
    False, a head at an offset too: the tile copies take `axis + offset`);
    arithmetic, a layout read through // or % (a head split of a packed
    projection) and, with `plain`, a head at an offset are written as a
    compute first (a kernel before the attention)."""
    if v.fn is None:
        return v
    probe = _te.compute(v.shape, lambda *i: v.fn(list(i)), name="probe").op
    trees = [t for _, ts in operands(probe) for t in ts]
    if not v.layout or not linear_reads(probe) or (
            plain and any(t[0] not in ("axis", "const") for t in trees)):
        imp.tensor(v)
    return v


def map_attention(imp, node, attrs):
    q, k, v = (imp.value(n) for n in node.input[:3])
    mask = imp.value(node.input[3]) if node.input[3] else None
    shapes = [x.shape for x in (q, k, v)]
    if any(len(s) < 2 for s in shapes) or len({x.dtype for x in (q, k, v)}) != 1 or \
            q.dtype not in _FUSIBLE:
        return replay(imp, node)
    (tq, d), (d2, tk), (tk2, e) = (s[-2:] for s in shapes)
    try:
        batch = _broadcast(*(s[:-2] for s in shapes))
    except OnnxImportError:
        return replay(imp, node)
    softmax = next(m for m in node.members if m.op_type == "Softmax")
    axis = imp.attributes(softmax).get("axis", -1 if imp.opset >= 13 else 1)
    rank = len(batch) + 2
    if d != d2 or tk != tk2 or not -rank <= axis < rank or axis % rank != rank - 1:
        return replay(imp, node)
    causal = None
    if mask is not None:
        causal = _causal_offset(mask, batch + (tq, tk))
        if causal is None or attrs["fill"] != float("-inf"):
            return replay(imp, node)
    from .helpers import _attention_fields
    try:
        fields = _attention_fields(tk, d, _dt.canonical(q.dtype), imp.chip)
    except ValueError:  # (no tile of the chip's fits)
        return replay(imp, node)
    # Heads read in place where the kernel's copies take them (an offset per
    # tile), else copied out first.
    for plain in (False, True):
        for x in (q, k, v):
            _operand(imp, x, plain)
        out, schedule = _attention_computes(imp, node, q, k, v, batch, (tq, tk, d, e),
                                            attrs["scale"], causal, fields)
        if plain or imp.tiles(schedule()):
            break
    imp.define(node.output[0], out)


def _attention_computes(imp, node, q, k, v, batch, sizes, scale, causal, fields):
    """The computes of `ext.attention` over batch dims `batch` (its output's
    value) and the maker of the kernel's schedule, registered with the
    importer, which schedules the accumulator's kernel with it."""
    from .onnx_ops import _Value
    tq, tk, d_, e_ = sizes
    nb, f32, name = len(batch), "float32", node.name or "attention"
    d = _te.reduce_axis(d_, name="d")
    j1, j2, j3 = (_te.reduce_axis(tk, name=n) for n in ("j1", "j2", "j3"))

    def at(idx, *rest):
        return list(idx[:nb]) + list(rest)
    S = imp.compute(batch + (tq, tk), lambda i: _te.sum(
        _te.cast(_bread(q, at(i, i[nb], d)), f32) * _te.cast(_bread(k, at(i, d, i[nb + 1])), f32),
        axis=d), f"{name}_scores", role="member")

    def scaled(i):
        t = S[tuple(i)] * (scale * _LOG2E)  # base 2: one ex2 a score
        if causal is not None:
            t = _te.if_then_else(i[nb + 1] <= i[nb] + causal, t, _te.const(float("-inf")))
        return t
    T = imp.compute(batch + (tq, tk), scaled, f"{name}_scaled", role="member")
    M = imp.compute(batch + (tq,), lambda i: _te.max(T[tuple(at(i, i[nb], j1))], axis=j1),
                    f"{name}_row_max", role="member")
    L = imp.compute(batch + (tq,), lambda i: _te.sum(
        _te.exp2(T[tuple(at(i, i[nb], j2))] - M[tuple(i)]), axis=j2), f"{name}_row_sum",
        role="member")
    O = imp.compute(batch + (tq, e_), lambda i: _te.sum(
        _te.exp2(T[tuple(at(i, i[nb], j3))] - M[tuple(at(i, i[nb]))]) *
        _te.cast(_bread(v, at(i, j3, i[nb + 1])), f32), axis=j3), f"{name}_acc", role="fused")
    y = imp.compute(batch + (tq, e_), lambda i: _te.cast(
        O[tuple(i)] / L[tuple(at(i, i[nb]))], q.dtype), name, role="member")
    axes = [a.name for a in O.op.axes]
    fields = dict(fields)
    fields["tile"] = (1,) * nb + tuple(fields["tile"][1:])
    if "threads" in fields:
        fields["threads"] = (1,) * nb + tuple(fields["threads"][1:])
    fields["blocks"] = axes[:nb + 1]

    def schedule():
        from .schedule import schedule as make
        s = make(O, **fields)
        s.compute_at(S, "j3").compute_inline(T).online_softmax(M, L).reverse_compute_at(
            y, axes[-1])
        return s
    imp.fused[id(O.op)] = ([S, T, M, L, y], schedule)
    return _Value("", batch + (tq, e_), q.dtype, tensor=y), schedule
