"""Layout ONNX ops on data as index maps (expressions that only move
elements, substituted into their reader as Transpose and Reshape are):
Slice, Split, Concat, Squeeze, Unsqueeze, Flatten, Expand, and Gather at
constant indices. Their shape arguments (starts, axes, splits, shapes,
indices) must be constants, which they are once onnx_fold.py has folded the
model's shape subgraphs. Every index map is affine in the output's axes
(Concat selects its input by `if_then_else` on the axis), so a reader stays
a kernel."""

import numpy as np

from . import te as _te
from .onnx_check import UnsupportedOpError
from .onnx_fold import slice_bounds
from .onnx_ops import _axis, _bread, _layout_input, _read, _reshape_to, _Value


def const_input(imp, node, n, what, default=None):
    """Input `n` of node as an integer numpy array: it must be a constant."""
    if len(node.input) <= n or not node.input[n]:
        return default
    v = imp.value(node.input[n])
    if v.const is None or v.fn is not None:
        raise imp.fail(f"its {what} '{node.input[n]}' is computed; ext.onnx needs a "
                       "constant (shapes are folded at load where the input shapes are "
                       "static)")
    return [int(x) for x in v.const.reshape(-1)]


def _axes_arg(imp, node, attrs, n):
    """Axes: input `n` (newer opsets) or the `axes` attribute (older)."""
    axes = const_input(imp, node, n, "axes")
    return axes if axes is not None else (list(attrs["axes"]) if "axes" in attrs else None)


def _define_layout(imp, node, out, x, shape, fn):
    imp.define(out, imp.elementwise(tuple(shape), x.dtype, fn, layout=True))


def _constant_result(imp, node, x, f):
    """A layout op of a constant is a constant (numpy)."""
    if x.const is not None and x.fn is None:
        for out, a in zip(node.output, f(x.const)):
            imp.define(out, imp.constant(out, np.ascontiguousarray(a)))
        return True
    return False


def _op_slice(imp, node, attrs):
    x = _layout_input(imp, imp.value(node.input[0]))
    rank = len(x.shape)
    if len(node.input) > 1:
        starts = const_input(imp, node, 1, "starts")
        ends = const_input(imp, node, 2, "ends")
        axes = const_input(imp, node, 3, "axes", list(range(len(starts))))
        steps = const_input(imp, node, 4, "steps", [1] * len(starts))
    else:  # opset < 10: attributes
        starts, ends = list(attrs.get("starts", [])), list(attrs.get("ends", []))
        axes = list(attrs.get("axes", range(len(starts))))
        steps = [1] * len(starts)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise imp.fail("starts, ends, axes and steps have different lengths")
    begin, step, shape = [0] * rank, [1] * rank, list(x.shape)
    slices = [slice(None)] * rank
    for s, e, a, st in zip(starts, ends, axes, steps):
        d = _axis(imp, a, rank)
        if st == 0:
            raise imp.fail("a step of 0")
        slices[d] = slice(*slice_bounds(s, e, st, x.shape[d]))
        n = len(range(x.shape[d])[slices[d]])
        if n == 0:
            raise imp.fail(f"the slice of dimension {d} is empty (ext tensors are not empty)")
        begin[d], step[d], shape[d] = slices[d].start, st, n
    if _constant_result(imp, node, x, lambda c: [c[tuple(slices)]]):
        return
    _define_layout(imp, node, node.output[0], x, shape, lambda idx: _read(x, [
        b + i * st if st != 1 else (i + b if b else i)
        for i, b, st in zip(idx, begin, step)]))


def _op_split(imp, node, attrs):
    x = _layout_input(imp, imp.value(node.input[0]))
    d = _axis(imp, int(attrs.get("axis", 0)), len(x.shape))
    sizes = const_input(imp, node, 1, "split") or (list(attrs["split"]) if "split" in attrs
                                                   else None)
    n = len(node.output)
    if sizes is None:
        size = -(-x.shape[d] // n)
        sizes = [min(size, x.shape[d] - size * i) for i in range(n)]
    if len(sizes) != n or sum(sizes) != x.shape[d] or min(sizes) <= 0:
        raise imp.fail(f"splits {sizes} of dimension {d} (size {x.shape[d]}) into {n} outputs")
    offsets = np.cumsum([0] + sizes[:-1])
    if _constant_result(imp, node, x, lambda c: np.split(c, np.cumsum(sizes)[:-1], axis=d)):
        return
    for out, off, size in zip(node.output, offsets, sizes):
        if not out:
            continue
        shape = list(x.shape)
        shape[d] = size
        _define_layout(imp, node, out, x, shape, lambda idx, off=int(off): _read(
            x, [i + off if e == d and off else i for e, i in enumerate(idx)]))


def _op_concat(imp, node, attrs):
    values = [_layout_input(imp, imp.value(n)) for n in node.input]
    rank = len(values[0].shape)
    d = _axis(imp, int(attrs.get("axis", 0)), rank)
    for v in values[1:]:
        if len(v.shape) != rank or any(a != b for e, (a, b) in enumerate(
                zip(v.shape, values[0].shape)) if e != d):
            raise imp.fail(f"inputs of shapes {[list(u.shape) for u in values]} do not "
                           f"concatenate along dimension {d}")
    if all(v.const is not None and v.fn is None for v in values):
        a = np.concatenate([v.const for v in values], axis=d)
        imp.define(node.output[0], imp.constant(node.output[0], a))
        return
    for v in values:
        if v.const is not None and v.tensor is None and v.fn is None:
            imp.tensor(v)
    shape = list(values[0].shape)
    shape[d] = sum(v.shape[d] for v in values)
    offsets = [int(o) for o in np.cumsum([0] + [v.shape[d] for v in values[:-1]])]

    def fn(idx):
        # The last input, then each earlier one where the index is below
        # its end: the reads outside an input are never taken.
        out = None
        for v, off in reversed(list(zip(values, offsets))):
            r = _read(v, [i - off if e == d and off else i for e, i in enumerate(idx)])
            out = r if out is None else _te.if_then_else(idx[d] < off + v.shape[d], r, out)
        return out
    _define_layout(imp, node, node.output[0], values[0], shape, fn)


def _op_pad(imp, node, attrs):
    x = _layout_input(imp, imp.value(node.input[0]))
    rank = len(x.shape)
    mode = attrs.get("mode", "constant")
    if mode != "constant":
        raise imp.fail(f"mode={mode!r}; ext.onnx pads with a constant", UnsupportedOpError)
    pads = const_input(imp, node, 1, "pads") if len(node.input) > 1 else \
        list(attrs.get("pads", []))
    value = 0.0
    if len(node.input) > 2 and node.input[2]:
        c = imp.value(node.input[2])
        if c.const is None or c.fn is not None or c.const.size != 1:
            raise imp.fail("its constant_value must be a constant scalar")
        value = float(c.const.reshape(-1)[0])
    axes = const_input(imp, node, 3, "axes", list(range(rank)))
    if len(pads) != 2 * len(axes):
        raise imp.fail(f"pads {pads} for {len(axes)} axes")
    before, after = [0] * rank, [0] * rank
    for n, a in enumerate(axes):
        before[_axis(imp, a, rank)], after[_axis(imp, a, rank)] = pads[n], pads[n + len(axes)]
    if min(before + after) < 0:
        raise imp.fail(f"negative pads {pads} (a crop) are not supported", UnsupportedOpError)
    if _constant_result(imp, node, x, lambda c: [np.pad(c, list(zip(before, after)),
                                                        constant_values=value)]):
        return
    t = imp.tensor(x)
    p = t
    if any(before) or any(after):
        # ext.pad reads t only inside it (guarded): its reader inlines it.
        p = _te.pad(t, before, after, value=value, name=imp.fresh(f"{t.name}_pad"))
        imp.role[id(p.op)] = "elementwise"
        imp.node_of[id(p.op)] = imp.node_name(node)
    shape = [s + b + a for s, b, a in zip(x.shape, before, after)]
    pv = _Value("", tuple(p.shape), x.dtype, tensor=p)
    _define_layout(imp, node, node.output[0], x, shape, lambda idx: _read(pv, idx))


def _op_unsqueeze(imp, node, attrs):
    x = _layout_input(imp, imp.value(node.input[0]))
    axes = _axes_arg(imp, node, attrs, 1)
    if not axes:
        raise imp.fail("no axes")
    rank = len(x.shape) + len(axes)
    axes = sorted(_axis(imp, a, rank) for a in axes)
    shape, src = [], []
    it = iter(x.shape)
    for e in range(rank):
        if e in axes:
            shape.append(1)
        else:
            shape.append(next(it))
            src.append(e)
    if _constant_result(imp, node, x, lambda c: [c.reshape(shape)]):
        return
    _define_layout(imp, node, node.output[0], x, shape,
                   lambda idx: _read(x, [idx[e] for e in src]))


def _op_squeeze(imp, node, attrs):
    x = _layout_input(imp, imp.value(node.input[0]))
    axes = _axes_arg(imp, node, attrs, 1)
    rank = len(x.shape)
    axes = [e for e, s in enumerate(x.shape) if s == 1] if axes is None else \
        sorted(_axis(imp, a, rank) for a in axes)
    if any(x.shape[e] != 1 for e in axes):
        raise imp.fail(f"squeezes dimensions {axes} of shape {list(x.shape)}, not all 1")
    keep = [e for e in range(rank) if e not in axes]
    shape = [x.shape[e] for e in keep]
    if _constant_result(imp, node, x, lambda c: [c.reshape(shape)]):
        return

    def fn(idx):
        src = [0] * rank
        for e, i in zip(keep, idx):
            src[e] = i
        return _read(x, src)
    _define_layout(imp, node, node.output[0], x, shape, fn)


def _op_flatten(imp, node, attrs):
    x = _layout_input(imp, imp.value(node.input[0]))
    rank = len(x.shape)
    a = int(attrs.get("axis", 1))
    a = a + rank if a < 0 else a
    if not 0 <= a <= rank:
        raise imp.fail(f"axis {attrs.get('axis')} is out of range for rank {rank}")
    outer = int(np.prod(x.shape[:a], dtype=np.int64))
    _reshape_to(imp, node, x, [outer, int(np.prod(x.shape, dtype=np.int64)) // outer])


def _op_expand(imp, node, attrs):
    x = _layout_input(imp, imp.value(node.input[0]))
    target = const_input(imp, node, 1, "shape")
    try:
        shape = tuple(int(s) for s in np.broadcast_shapes(tuple(x.shape), tuple(target)))
    except ValueError:
        raise imp.fail(f"shape {list(x.shape)} does not expand to {target}") from None
    if _constant_result(imp, node, x, lambda c: [np.broadcast_to(c, shape)]):
        return
    _define_layout(imp, node, node.output[0], x, shape, lambda idx: _bread(x, idx))


def _op_gather(imp, node, attrs):
    """Gather at constant indices: a scalar index, or indices in arithmetic
    progression (a strided slice), read as an affine index map. Indices
    read from a tensor (an embedding lookup) need an indirect access, which
    ext's computes do not have yet."""
    x = _layout_input(imp, imp.value(node.input[0]))
    iv = imp.value(node.input[1])
    rank = len(x.shape)
    d = _axis(imp, int(attrs.get("axis", 0)), rank)
    if iv.const is None or iv.fn is not None:
        raise imp.fail(f"its indices '{node.input[1]}' are computed: an embedding lookup "
                       "reads a tensor at indices read from another, an indirect access "
                       "ext's computes do not have yet", UnsupportedOpError)
    ind = iv.const.astype(np.int64)
    ind = np.where(ind < 0, ind + x.shape[d], ind)
    if ind.size and (ind.min() < 0 or ind.max() >= x.shape[d]):
        raise imp.fail(f"indices {ind.reshape(-1).tolist()} are out of range for dimension "
                       f"{d} of size {x.shape[d]}")
    if _constant_result(imp, node, x, lambda c: [np.take(c, ind, axis=d)]):
        return
    flat = ind.reshape(-1)
    step = int(flat[1] - flat[0]) if flat.size > 1 else 0
    if ind.ndim > 1 or flat.size == 0 or \
            (flat.size > 1 and (step == 0 or np.any(np.diff(flat) != step))):
        raise imp.fail(f"indices {ind.tolist()}: ext.onnx gathers a scalar index or a "
                       "1-D progression", UnsupportedOpError)
    shape = list(x.shape[:d]) + list(ind.shape) + list(x.shape[d + 1:])
    first = int(flat[0])

    def fn(idx):
        if ind.ndim == 0:
            src = idx[:d] + [first] + idx[d:]
        else:
            j = idx[d]
            src = idx[:d] + [first + j * step if step != 1 else (j + first if first else j)] \
                + idx[d + 1:]
        return _read(x, src)
    _define_layout(imp, node, node.output[0], x, shape, fn)


OPS = {
    "Slice": _op_slice,
    "Split": _op_split,
    "Concat": _op_concat,
    "Unsqueeze": _op_unsqueeze,
    "Squeeze": _op_squeeze,
    "Flatten": _op_flatten,
    "Expand": _op_expand,
    "Gather": _op_gather,
    "Pad": _op_pad,
}

