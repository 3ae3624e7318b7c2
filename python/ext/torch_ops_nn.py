"""The nn modules `ext.torch.compile` maps (`MODULES`, by type, each
`handler(lw, module, *args, **kwargs)`) and their functional forms
(`FUNCTIONS`: F.linear, F.conv2d, F.batch_norm, F.layer_norm, the pools):
Linear (Gemm, or MatMul and a bias Add on more than two dims, as torch's
ONNX exporter writes it), Conv2d (a BatchNorm2d in eval that alone reads it
folded into its weights and bias, as onnx_fold.py folds Conv +
BatchNormalization), BatchNorm, LayerNorm, the activations, Dropout in eval
(the identity), pooling, and MultiheadAttention decomposed into its
projections, per-head reshapes, scaled scores, mask, softmax and output
projection (three GEMMs, two batched matmuls, a row-wise softmax)."""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .torch_ops import FUNCTIONS as _OPS_FUNCTIONS, Unsupported, unary, _gelu, _softmax


def _pair(v):
    return [int(v), int(v)] if isinstance(v, int) else [int(x) for x in v]


# ---------------------------------------------------------------------------
# Linear, convolution, normalization


def linear(lw, input, weight, bias=None, shape=None, suffix=None):
    """input @ weight.T + bias: a Gemm on 2-D input, else MatMul + Add."""
    w = lw.value_of(weight)
    out = tuple(input.shape[:-1]) + (weight.shape[0],) if shape is None else shape
    if len(input.shape) == 2:
        inputs = [input, weight] + ([bias] if bias is not None else [])
        return lw.emit("Gemm", inputs, {"transB": 1}, shape=out, suffix=suffix)
    wt = lw.const(np.ascontiguousarray(w.T)) if w is not None else \
        lw.emit("Transpose", [weight], {"perm": [1, 0]}, shape=tuple(weight.shape[::-1]),
                suffix="weight_t")
    if bias is None:
        return lw.emit("MatMul", [input, wt], shape=out, suffix=suffix)
    y = lw.emit("MatMul", [input, wt], shape=out, suffix=f"{suffix}_matmul" if suffix else "matmul")
    return lw.emit("Add", [y, bias], shape=out, suffix=suffix)


def _linear_module(lw, m, input):
    return linear(lw, input, lw.param(m.weight, "weight"), lw.param(m.bias, "bias"))


def conv2d(lw, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    attrs = {"strides": _pair(stride), "dilations": _pair(dilation), "group": int(groups)}
    if padding == "same":
        attrs["auto_pad"] = "SAME_UPPER"
    elif padding != "valid":
        ph, pw = _pair(padding)
        attrs["pads"] = [ph, pw, ph, pw]
    return lw.emit("Conv", [input, weight] + ([bias] if bias is not None else []), attrs)


def _bn_scale_shift(bn):
    """(s, t) of BatchNorm in eval: y = x * s + t per channel."""
    var = bn.running_var.detach().double()
    mean = bn.running_mean.detach().double()
    s = 1.0 / torch.sqrt(var + bn.eps)
    if bn.weight is not None:
        s = s * bn.weight.detach().double()
    t = -mean * s
    if bn.bias is not None:
        t = t + bn.bias.detach().double()
    return s.numpy(), t.numpy()


def _foldable_bn(lw, node):
    """The BatchNorm in eval that is the only reader of a Conv2d's node."""
    users = list(node.users)
    if len(users) != 1 or users[0].op != "call_module":
        return None, None
    bn = lw.module(users[0])
    if not isinstance(bn, nn.BatchNorm2d) or bn.training or bn.running_var is None:
        return None, None
    return users[0], bn


def _conv2d_module(lw, m, input):
    if m.padding_mode != "zeros":
        raise Unsupported(f"padding_mode={m.padding_mode!r}")
    w = m.weight.detach().numpy().astype(np.float64)
    b = m.bias.detach().numpy().astype(np.float64) if m.bias is not None else None
    user, bn = _foldable_bn(lw, lw.node)
    if bn is not None:  # W * s, b * s + t
        s, t = _bn_scale_shift(bn)
        w = w * s[:, None, None, None]
        b = (b if b is not None else 0.0) * s + t
        lw.folded.add(user)
    dtype = m.weight.dtype
    weight = lw.const(w.astype(str(dtype).replace("torch.", "")), name="weight")
    bias = lw.const(b.astype(weight.dtype), name="bias") if b is not None else None
    return conv2d(lw, input, weight, bias, m.stride, m.padding, m.dilation, m.groups)


def batch_norm(lw, input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    if training:
        raise Unsupported("batch normalization in training mode (call module.eval())")
    c = input.shape[1]
    ones = lw.const(np.ones(c, input.dtype), name="scale") if weight is None else weight
    zeros = lw.const(np.zeros(c, input.dtype), name="shift") if bias is None else bias
    return lw.emit("BatchNormalization", [input, ones, zeros, running_mean, running_var],
                   {"epsilon": float(eps)})


def _batch_norm_module(lw, m, input):
    if lw.node in lw.folded:  # (into the Conv2d before it)
        return input
    if m.training or m.running_var is None:
        raise Unsupported("batch normalization in training mode (call module.eval())")
    return batch_norm(lw, input, lw.param(m.running_mean, "mean"),
                      lw.param(m.running_var, "var"), lw.param(m.weight, "weight"),
                      lw.param(m.bias, "bias"), eps=m.eps)


def layer_norm(lw, input, normalized_shape, weight=None, bias=None, eps=1e-5):
    n = len(normalized_shape) if isinstance(normalized_shape, (list, tuple)) else 1
    shape = tuple(input.shape[-n:])
    scale = weight if weight is not None else lw.const(np.ones(shape, input.dtype),
                                                       name="scale")
    inputs = [input, scale] + ([bias] if bias is not None else [])
    return lw.emit("LayerNormalization", inputs, {"axis": -n, "epsilon": float(eps)})


def _layer_norm_module(lw, m, input):
    return layer_norm(lw, input, m.normalized_shape, lw.param(m.weight, "weight"),
                      lw.param(m.bias, "bias"), m.eps)


# ---------------------------------------------------------------------------
# Pooling


def max_pool2d(lw, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if return_indices:
        raise Unsupported("return_indices=True")
    k = _pair(kernel_size)
    p = _pair(padding)
    return lw.emit("MaxPool", [input], {
        "kernel_shape": k, "strides": _pair(stride) if stride else k,
        "pads": p + p, "dilations": _pair(dilation), "ceil_mode": int(ceil_mode)})


def avg_pool2d(lw, input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    if divisor_override is not None:
        raise Unsupported("divisor_override")
    k = _pair(kernel_size)
    p = _pair(padding)
    return lw.emit("AveragePool", [input], {
        "kernel_shape": k, "strides": _pair(stride) if stride else k, "pads": p + p,
        "ceil_mode": int(ceil_mode), "count_include_pad": int(count_include_pad)})


def _adaptive(kind):
    def handler(lw, input, output_size, return_indices=False):
        if return_indices:
            raise Unsupported("return_indices=True")
        h, w = input.shape[-2:]
        oh, ow = [s if s is not None else d for s, d in zip(_pair_none(output_size), (h, w))]
        if (oh, ow) == (1, 1):
            return lw.emit(f"Global{kind}Pool", [input])
        if h % oh or w % ow:
            raise Unsupported(f"output size {oh}x{ow} does not divide the input's {h}x{w}")
        k = [h // oh, w // ow]
        return lw.emit(f"{kind}Pool", [input], {"kernel_shape": k, "strides": k})
    return handler


def _pair_none(v):
    return [v, v] if v is None or isinstance(v, int) else list(v)


# ---------------------------------------------------------------------------
# Multi-head attention


def _heads(lw, x, b, n, h, d, perm, suffix):
    """x (b, n, h*d) as (b, h, ., .): a Reshape to (b, n, h, d), a Transpose."""
    r = lw.emit("Reshape", [x, lw.const(np.array([b, n, h, d], np.int64))],
                shape=(b, n, h, d), suffix=f"{suffix}_heads")
    shape = tuple((b, n, h, d)[p] for p in perm)
    return lw.emit("Transpose", [r], {"perm": list(perm)}, shape=shape, suffix=f"{suffix}_t")


def _attention_mask(lw, scores, mask, b, h, sq, sk, what):
    """scores with a mask applied: a bool mask (True: masked) by Where with
    -inf, a float one added. `mask` is (sq, sk), (b*h, sq, sk) or, for the
    key padding, (b, sk)."""
    if mask.shape == (b, sk):
        view = (b, 1, 1, sk)
    elif mask.shape == (b * h, sq, sk):
        view = (b, h, sq, sk)
    elif mask.shape == (sq, sk):
        view = None
    else:
        raise Unsupported(f"{what} of shape {list(mask.shape)}")
    if view is not None:
        mask = lw.emit("Reshape", [mask, lw.const(np.array(view, np.int64))], shape=view,
                       dtype=mask.dtype, suffix=f"{what}_view")
    if mask.dtype == "bool":
        return lw.emit("Where", [mask, lw.const(float("-inf"), scores.dtype), scores],
                       shape=scores.shape, suffix=what)
    return lw.emit("Add", [scores, mask], shape=scores.shape, suffix=what)


def _mha_module(lw, m, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
    if m.training and m.dropout > 0:
        raise Unsupported("attention dropout in training mode (call module.eval())")
    if m.bias_k is not None or m.add_zero_attn:
        raise Unsupported("add_bias_kv / add_zero_attn")
    if len(query.shape) != 3:
        raise Unsupported("unbatched (2-D) inputs")
    if is_causal:
        raise Unsupported("is_causal (pass the mask)")
    e, h = m.embed_dim, m.num_heads
    d = e // h
    if m._qkv_same_embed_dim:
        w = m.in_proj_weight.detach()
        weights = [w[:e], w[e:2 * e], w[2 * e:]]
    else:
        weights = [m.q_proj_weight.detach(), m.k_proj_weight.detach(), m.v_proj_weight.detach()]
    biases = [None] * 3 if m.in_proj_bias is None else \
        [m.in_proj_bias.detach()[i * e:(i + 1) * e] for i in range(3)]
    if not m.batch_first:  # (each distinct input transposed once)
        firsts = {}
        for x in (query, key, value):
            if x.name not in firsts:
                firsts[x.name] = lw.emit("Transpose", [x], {"perm": [1, 0, 2]},
                                         shape=(x.shape[1], x.shape[0], x.shape[2]),
                                         suffix="batch_first")
        query, key, value = (firsts[x.name] for x in (query, key, value))
    q, k, v = query, key, value
    b, sq, sk = q.shape[0], q.shape[1], k.shape[1]
    proj = []
    for x, w, bias, tag in zip((q, k, v), weights, biases, "qkv"):
        proj.append(linear(lw, x, lw.const(w.numpy(), name=f"{tag}_weight"),
                           lw.const(bias.numpy(), name=f"{tag}_bias") if bias is not None
                           else None, shape=x.shape[:2] + (e,), suffix=f"{tag}_proj"))
    qh = _heads(lw, proj[0], b, sq, h, d, (0, 2, 1, 3), "q")      # (b, h, sq, d)
    kt = _heads(lw, proj[1], b, sk, h, d, (0, 2, 3, 1), "k")      # (b, h, d, sk)
    vh = _heads(lw, proj[2], b, sk, h, d, (0, 2, 1, 3), "v")      # (b, h, sk, d)
    shape = (b, h, sq, sk)
    s = lw.emit("MatMul", [qh, kt], shape=shape, suffix="scores")
    s = lw.emit("Mul", [s, lw.const(1.0 / math.sqrt(d), s.dtype)], shape=shape,
                suffix="scale")
    for mask, what in ((attn_mask, "attn_mask"), (key_padding_mask, "key_padding_mask")):
        if mask is not None:
            s = _attention_mask(lw, s, mask, b, h, sq, sk, what)
    p = lw.emit("Softmax", [s], {"axis": 3}, shape=shape, suffix="softmax")
    o = lw.emit("MatMul", [p, vh], shape=(b, h, sq, d), suffix="context")
    o = lw.emit("Transpose", [o], {"perm": [0, 2, 1, 3]}, shape=(b, sq, h, d),
                suffix="context_t")
    o = lw.emit("Reshape", [o, lw.const(np.array([b, sq, e], np.int64))], shape=(b, sq, e),
                suffix="context_merge")
    y = linear(lw, o, lw.param(m.out_proj.weight, "out_weight"),
               lw.param(m.out_proj.bias, "out_bias"), shape=(b, sq, e),
               suffix="out_proj")
    if not m.batch_first:
        y = lw.emit("Transpose", [y], {"perm": [1, 0, 2]}, shape=(sq, b, e))
    return [y, None]


# ---------------------------------------------------------------------------
# The tables


def _module_of(fn, *fields):
    """A module handler calling functional `fn` with the module's fields."""
    return lambda lw, m, input: fn(lw, input, *[getattr(m, f) for f in fields])


def _identity(lw, m, input, *args, **kwargs):
    return input


def _dropout_module(lw, m, input):
    if m.training and m.p > 0:
        raise Unsupported("dropout in training mode (call module.eval())")
    return input


def _activation(handler):
    return lambda lw, m, input: handler(lw, input)


MODULES = {
    nn.Linear: _linear_module,
    nn.Conv2d: _conv2d_module,
    nn.BatchNorm1d: _batch_norm_module,
    nn.BatchNorm2d: _batch_norm_module,
    nn.LayerNorm: _layer_norm_module,
    nn.GELU: lambda lw, m, input: _gelu(lw, input, m.approximate),
    nn.ReLU: _activation(unary("Relu")),
    nn.Tanh: _activation(unary("Tanh")),
    nn.Sigmoid: _activation(unary("Sigmoid")),
    nn.SiLU: _activation(lambda lw, x: _OPS_FUNCTIONS[F.silu](lw, x)),
    nn.Softmax: lambda lw, m, input: _softmax("Softmax")(lw, input, m.dim),
    nn.LogSoftmax: lambda lw, m, input: _softmax("LogSoftmax")(lw, input, m.dim),
    nn.Dropout: _dropout_module,
    nn.Identity: _identity,
    nn.Flatten: _activation(lambda lw, x: _OPS_FUNCTIONS[torch.flatten](lw, x)),
    nn.MaxPool2d: _module_of(max_pool2d, "kernel_size", "stride", "padding", "dilation",
                             "ceil_mode", "return_indices"),
    nn.AvgPool2d: _module_of(avg_pool2d, "kernel_size", "stride", "padding", "ceil_mode",
                             "count_include_pad", "divisor_override"),
    nn.AdaptiveAvgPool2d: _module_of(_adaptive("Average"), "output_size"),
    nn.AdaptiveMaxPool2d: _module_of(_adaptive("Max"), "output_size", "return_indices"),
    nn.MultiheadAttention: _mha_module,
}

FUNCTIONS = {
    F.linear: linear, F.conv2d: conv2d, F.batch_norm: batch_norm, F.layer_norm: layer_norm,
    F.max_pool2d: max_pool2d, F.avg_pool2d: avg_pool2d,
    F.adaptive_avg_pool2d: _adaptive("Average"), F.adaptive_max_pool2d: _adaptive("Max"),
}
