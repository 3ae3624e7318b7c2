"""Reducing ONNX ops as ext computes with reduce axes: ReduceMean, ReduceSum,
ReduceMax, ReduceMin (axes as an attribute or, from opset 13/18, an input),
and 2-D pooling: MaxPool,
AveragePool, GlobalAveragePool, GlobalMaxPool (a window of reduce axes over
the image, padding read as guarded reads of `ext.pad`)."""

import numpy as np

from . import te as _te
from .onnx_check import UnsupportedOpError
from .onnx_ops import _axis, _float_inputs, _read, _Value
from .onnx_ops_layout import const_input


def _reduce_op(kind):
    def op(imp, node, attrs):
        x = imp.value(node.input[0])
        _float_inputs(imp, node, x)
        rank = len(x.shape)
        axes = const_input(imp, node, 1, "axes")
        if axes is None:
            axes = list(attrs["axes"]) if "axes" in attrs else None
        if not axes:
            if attrs.get("noop_with_empty_axes", 0):
                imp.define(node.output[0], imp.elementwise(x.shape, x.dtype,
                                                           lambda idx: _read(x, idx),
                                                           layout=x.layout))
                return
            axes = list(range(rank))
        reduced = sorted({_axis(imp, a, max(rank, 1)) for a in axes})
        keep = bool(attrs.get("keepdims", 1))
        xt = imp.tensor(x)
        shape = x.shape or (1,)
        ks = {d: _te.reduce_axis(shape[d], name=f"r{d}") for d in reduced}
        n = int(np.prod([shape[d] for d in reduced], dtype=np.int64))
        out_shape = tuple(1 if d in ks else s for d, s in enumerate(x.shape)) if keep else \
            tuple(s for d, s in enumerate(x.shape) if d not in ks)

        def fn(idx):
            if keep:
                src = [ks[d] if d in ks else i for d, i in enumerate(idx)]
            else:
                it = iter(idx)
                src = [ks[d] if d in ks else next(it) for d in range(len(shape))]
            r = xt[tuple(src)]
            axis = list(ks.values())
            if kind == "mean":
                return _te.sum(r * (1.0 / n), axis=axis)
            return {"sum": _te.sum, "max": _te.max, "min": _te.min}[kind](r, axis=axis)
        t = imp.compute(out_shape, fn, node.name or f"reduce_{kind}", role="reduction")
        imp.define(node.output[0], _Value("", out_shape, x.dtype, tensor=t))
    return op


def _pool_geometry(imp, attrs, h, w, kh, kw):
    """(strides, pads (top, left, bottom, right), output size) of a 2-D pool."""
    sh, sw = attrs.get("strides", [1, 1])
    dh, dw = attrs.get("dilations", [1, 1])
    auto = attrs.get("auto_pad", "NOTSET")
    if auto not in ("NOTSET", "VALID"):
        raise imp.fail(f"auto_pad={auto!r}; ext.onnx pools with explicit pads",
                       UnsupportedOpError)
    pt, pl, pb, pr = attrs.get("pads", [0, 0, 0, 0]) if auto == "NOTSET" else [0, 0, 0, 0]
    ceil = int(attrs.get("ceil_mode", 0))

    def out(size, k, s, d, lo, hi):
        span = size + lo + hi - d * (k - 1) - 1
        n = -(-span // s) + 1 if ceil else span // s + 1
        # (a last window that starts in the padding after the image is dropped)
        return n - 1 if ceil and (n - 1) * s >= size + lo else n
    oh, ow = out(h, kh, sh, dh, pt, pb), out(w, kw, sw, dw, pl, pr)
    if oh <= 0 or ow <= 0:
        raise imp.fail(f"the output would be {oh}x{ow}")
    # Windows may reach past the padding with ceil_mode: pad that far.
    pb = max(pb, (oh - 1) * sh + dh * (kh - 1) + 1 - h - pt)
    pr = max(pr, (ow - 1) * sw + dw * (kw - 1) + 1 - w - pl)
    return (sh, sw), (dh, dw), (pt, pl, pb, pr), (oh, ow)


def _pool(kind):
    def op(imp, node, attrs):
        x = imp.value(node.input[0])
        _float_inputs(imp, node, x)
        if len(x.shape) != 4:
            raise imp.fail(f"input of shape {list(x.shape)}: ext.onnx pools 2-D images "
                           "(NCHW)", UnsupportedOpError)
        if len(node.output) > 1 and node.output[1]:
            raise imp.fail("its Indices output is not supported", UnsupportedOpError)
        nb, c, h, w = x.shape
        glob = kind.startswith("global")
        if not glob and "kernel_shape" not in attrs:
            raise imp.fail("no kernel_shape")
        kh, kw = (h, w) if glob else attrs["kernel_shape"]
        (sh, sw), (dh, dw), (pt, pl, pb, pr), (oh, ow) = \
            _pool_geometry(imp, {} if glob else attrs, h, w, kh, kw)
        is_max = kind.endswith("max")
        count_pad = int(attrs.get("count_include_pad", 0))
        if not is_max and (pt or pl or pb or pr) and not count_pad:
            raise imp.fail("an average over padded windows that excludes the padding "
                           "(count_include_pad=0) is not supported", UnsupportedOpError)
        xt = imp.tensor(x)
        if pt or pl or pb or pr:
            fill = float("-inf") if is_max else 0.0
            xp = _te.pad(xt, (0, 0, pt, pl), (0, 0, pb, pr), value=fill,
                         name=imp.fresh(f"{xt.name}_pad"))
            imp.role[id(xp.op)] = "elementwise"
            imp.node_of[id(xp.op)] = imp.node_name(node)
        else:
            xp = xt
        ry, rx = _te.reduce_axis(kh, "ry"), _te.reduce_axis(kw, "rx")
        inv = 1.0 / (kh * kw)

        def fn(idx):
            b, ch, y, xx = idx
            r = xp[b, ch, y * sh + ry * dh, xx * sw + rx * dw]
            return _te.max(r, axis=[ry, rx]) if is_max else _te.sum(r * inv, axis=[ry, rx])
        t = imp.compute((nb, c, oh, ow), fn, node.name or kind, role="reduction")
        imp.define(node.output[0], _Value("", (nb, c, oh, ow), x.dtype, tensor=t))
    return op


OPS = {
    "ReduceMean": _reduce_op("mean"),
    "ReduceSum": _reduce_op("sum"),
    "ReduceMax": _reduce_op("max"),
    "ReduceMin": _reduce_op("min"),
    "MaxPool": _pool("max"),
    "AveragePool": _pool("average"),
    "GlobalAveragePool": _pool("global_average"),
    "GlobalMaxPool": _pool("global_max"),
}
