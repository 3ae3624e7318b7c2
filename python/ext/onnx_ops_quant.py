"""Quantized weights in ONNX models, dequantized inside the GEMM that reads
them (issue 54 item 5):

* `com.microsoft::MatMulNBits` (what ONNX Runtime's block quantizer and
  onnxruntime-genai write): Y = A @ dequant(B)^T (+ bias), B the codes of
  the (N, K) weight packed along K, `bits` (2, 4 or 8) each, the low bits
  first, one scale (and zero) per block of `block_size` along K:
  W[n, k] = (code(n, k) - zero(n, k // block_size)) * scale(n, k // block_size),
  the zero 2^(bits - 1) where `zero_points` is absent, packed like B where
  it is uint8, the value itself where it is of A's type.
* `DequantizeLinear` of a constant int8/uint8 (or int32) weight: per
  tensor, per axis, or (opset 21's `block_size`) per block along `axis`:
  y = (x - x_zero_point) * x_scale, read by MatMul or Gemm.

Each dequantization is a compute of role "dequant" over the packed bytes,
the scales and the zeros (MatMulNBits' written by ext.quant's expression,
whose unsigned codes with a zero are the spec's arithmetic). onnx.py's
`fuse` inlines such a compute into the GEMM reading it although its reads go
through `//` and `%` (`B[n, k // 2]`, `scales[n, k // 32]`) where the GEMM's
schedule tiles them (it asks ext-apply-schedule), so the dequantized weight
never exists in memory: the kernel reads the packed bytes, scales and zeros.
"""

from types import SimpleNamespace

import numpy as np

from . import te as _te
from .onnx_check import OnnxImportError, UnsupportedOpError
from .onnx_ops import _DTYPES, _Value, _float_inputs, _read
from .quant import FORMATS as _FORMATS, _dequant_expr

_FLOATS = tuple(_DTYPES.values())
_INTEGER_CODES = ("int8", "uint8", "int32")


def _constant(imp, v: _Value, what: str) -> np.ndarray:
    if v.const is None or v.fn is not None:
        raise imp.fail(f"{what} '{v.name}' is computed; ext.onnx maps it when it is a "
                       "constant (an initializer or a Constant node)", UnsupportedOpError)
    return v.const


def _tensor(imp, v: _Value, shape, dtype, what: str) -> _te.Tensor:
    """Constant `v` as a placeholder of `shape` (its elements in order: a
    1-D `[N * blocks]` read as `[N, blocks]`), fed by `run`."""
    array = _constant(imp, v, what)
    if str(array.dtype) != dtype:
        raise imp.fail(f"{what} '{v.name}' is {array.dtype}, expected {dtype}")
    if array.size != int(np.prod(shape)):
        raise imp.fail(f"{what} '{v.name}' has shape {list(array.shape)}; expected "
                       f"{list(shape)} ({int(np.prod(shape))} elements)")
    if v.tensor is not None and tuple(v.tensor.shape) == tuple(shape):
        return v.tensor
    feed = np.ascontiguousarray(array.reshape(shape))
    return imp.placeholder(v.name or what, shape, dtype, ("const", feed))


class _ConstZero:
    """A zero read as ext.quant reads one (`Z[n, k // group]`) that is the
    same everywhere: MatMulNBits' default 2^(bits - 1)."""

    def __init__(self, value):
        self.value = value

    def __getitem__(self, index):
        return _te.const(self.value, "uint8")


class _PackedZeros:
    """uint8 zero points packed like B (`8 // bits` to a byte, the low bits
    first, each row padded to whole bytes) read as ext.quant reads a zero,
    `Z[n, k // block]`: zero b of row n is bits b % per of byte b // per,
    so byte k // (block * per), shifted by bits * ((k % (block * per)) // block):
    both quotients of k itself, which the GEMM's tiles divide."""

    def __init__(self, zp, bits, block):
        self.zp, self.bits, self.block = zp, bits, block

    def __getitem__(self, index):
        n, group = index
        if not (isinstance(group, _te.Expr) and group.op == "floordiv" and
                group.args[1].op == "const" and group.args[1].attr == self.block):
            raise RuntimeError(f"ext.onnx: MatMulNBits zero points read at {group!r}; "
                               f"expected k // {self.block} (ext.quant's group index)")
        k = group.args[0]
        per = 8 // self.bits
        span = self.block * per
        byte = self.zp[n, k // span]
        return (byte >> (self.bits * ((k % span) // self.block))) & ((1 << self.bits) - 1)


def _is_power_of_two(x):
    return x > 0 and x & (x - 1) == 0


def _op_matmul_nbits(imp, node, attrs):
    """com.microsoft::MatMulNBits: A (.., K) times the (N, K) weight that B,
    scales and zero_points describe, transposed; plus bias."""
    a = imp.value(node.input[0])
    _float_inputs(imp, node, a)
    for name in ("K", "N", "block_size"):
        if name not in attrs:
            raise imp.fail(f"attribute '{name}' is required", OnnxImportError)
    kk, n, block = int(attrs["K"]), int(attrs["N"]), int(attrs["block_size"])
    bits = int(attrs.get("bits", 4))
    if bits not in (2, 4, 8):
        raise imp.fail(f"bits={bits}: ext.onnx maps 2-, 4- and 8-bit codes (whole codes "
                       "to a byte)", UnsupportedOpError)
    if kk <= 0 or n <= 0:
        raise imp.fail(f"K={kk}, N={n}: both must be positive")
    if block < 16 or not _is_power_of_two(block):
        raise imp.fail(f"block_size={block}: the spec asks for a power of two, at least 16")
    if int(attrs.get("weight_prepacked", 0)):
        raise imp.fail(f"weight_prepacked={attrs['weight_prepacked']}: B in an "
                       "execution provider's own layout", UnsupportedOpError)
    if not a.shape or a.shape[-1] != kk:
        raise imp.fail(f"A has shape {list(a.shape)}; its last dimension must be K = {kk}")
    blocks = -(-kk // block)
    blob = block * bits // 8
    ins = list(node.input) + [""] * (6 - len(node.input))
    b_v, s_v = imp.value(ins[1]), imp.value(ins[2])
    # B's rows as bytes: block j's codes are bytes [j * blob, (j + 1) * blob)
    # of the row, so code k is bits bits * (k % per) of byte k // per, as
    # ext.quant packs a row (the last block padded where block does not
    # divide K).
    b = _tensor(imp, b_v, (n, blocks * blob), "uint8", "B")
    s = _tensor(imp, s_v, (n, blocks), a.dtype, "scales")
    if ins[4]:
        g_idx = _constant(imp, imp.value(ins[4]), "g_idx").reshape(-1)
        trivial = np.arange(kk) // block
        if g_idx.shape != trivial.shape or not np.array_equal(g_idx, trivial):
            raise imp.fail("g_idx is not k // block_size (act-order, a permutation of K: "
                           "ext.onnx maps MatMulNBits with blocks of consecutive k only)",
                           UnsupportedOpError)
    if ins[3]:
        zv = imp.value(ins[3])
        zarr = _constant(imp, zv, "zero_points")
        if zarr.dtype == np.uint8:
            cols = -(-blocks * bits // 8)
            zp = _tensor(imp, zv, (n, cols), "uint8", "zero_points")
            mode, z = "quantized", (zp if bits == 8 else _PackedZeros(zp, bits, block))
        elif str(zarr.dtype) == a.dtype:
            mode, z = "original", _tensor(imp, zv, (n, blocks), a.dtype, "zero_points")
        else:
            raise imp.fail(f"zero_points '{zv.name}' is {zarr.dtype}; the spec's are uint8 "
                           f"(packed) or A's type ({a.dtype})")
    else:
        mode, z = "quantized", _ConstZero(1 << (bits - 1))
    # ext.quant's expression: code k of row n from the packed bytes, then
    # (code - zero) * scale in A's type, one scale and zero per block.
    q = SimpleNamespace(dtype=a.dtype, group=block, zeros_mode=mode)
    w_of = _dequant_expr(_FORMATS[f"uint{bits}"], q, b, s, z)
    label = node.name or "matmul_nbits"
    w = imp.compute((n, kk), lambda idx: w_of(idx[0], idx[1]), f"{label}_W", role="dequant")
    at = imp.tensor(a)
    # Sums in f32 (as ext.quant's GEMM and ORT's kernels), then A's type.
    acc = "float32" if a.dtype == "float16" else a.dtype
    r = _te.reduce_axis(kk, name="k")
    shape = tuple(a.shape[:-1]) + (n,)

    def gemm(idx):
        return _te.sum(at[tuple(idx[:-1]) + (r,)].astype(acc) * w[idx[-1], r].astype(acc),
                       axis=r)
    y = imp.compute(shape, gemm, label, role="contraction", dtype=None)
    yv = _Value("", shape, acc, tensor=y)
    bias = None
    if ins[5]:
        bias = imp.value(ins[5])
        _float_inputs(imp, node, a, bias)
        if tuple(bias.shape) != (n,):
            raise imp.fail(f"bias '{bias.name}' has shape {list(bias.shape)}, expected [{n}]")
    if bias is None and acc == a.dtype:
        imp.define(node.output[0], yv)
        return

    def epilogue(idx):
        v = _read(yv, idx)
        if bias is not None:
            v = v + _read(bias, [idx[-1]]).astype(acc)
        return v.astype(a.dtype)
    out = imp.elementwise(shape, a.dtype, epilogue)
    out.label = f"{label}_{'bias' if bias is not None else 'out'}"
    imp.define(node.output[0], out)


def _op_dequantize_linear(imp, node, attrs):
    """DequantizeLinear of a constant integer tensor: y = (x - zero) * scale,
    per tensor, per `axis`, or per block of `block_size` along `axis`
    (opset 21). A compute of role "dequant": its reader (a MatMul's or
    Gemm's weight) inlines it."""
    x = imp.value(node.input[0])
    s = imp.value(node.input[1])
    zv = imp.value(node.input[2]) if len(node.input) > 2 and node.input[2] else None
    if x.dtype not in _INTEGER_CODES:
        raise imp.fail(f"x '{x.name}' is {x.dtype}; ext.onnx dequantizes int8, uint8 and "
                       "int32 (int4/uint4 and float8 tensors need onnx >= 1.16 types "
                       "this importer does not read)", UnsupportedOpError)
    xarr = _constant(imp, x, "x")
    if s.dtype not in _FLOATS:
        raise imp.fail(f"x_scale '{s.name}' is {s.dtype}; expected float16, float32 or "
                       "float64")
    if zv is not None and zv.dtype != x.dtype:
        raise imp.fail(f"x_zero_point '{zv.name}' is {zv.dtype}, x is {x.dtype}")
    dtype = s.dtype
    rank = len(x.shape)
    axis = int(attrs.get("axis", 1))
    block = int(attrs.get("block_size", 0))
    if rank and not -rank <= axis < rank:
        raise imp.fail(f"axis {axis} is out of range for x of rank {rank}")
    axis = axis % rank if rank else 0
    sshape = tuple(s.shape)
    ssize = int(np.prod(sshape, dtype=np.int64))
    if block < 0:
        raise imp.fail(f"block_size={block} must not be negative")
    if block == 0 and ssize == 1:
        kind = "tensor"
        param_shape, param_index = (1,), (lambda idx: [0])
    elif block == 0:
        if sshape != (x.shape[axis],):
            raise imp.fail(f"x_scale '{s.name}' has shape {list(sshape)}; per axis {axis} "
                           f"of x {list(x.shape)} it is [{x.shape[axis]}]")
        kind = "axis"
        param_shape, param_index = sshape, (lambda idx: [idx[axis]])
    else:
        want = tuple(-(-d // block) if i == axis else d for i, d in enumerate(x.shape))
        if sshape != want:
            raise imp.fail(f"x_scale '{s.name}' has shape {list(sshape)}; blocks of "
                           f"{block} along axis {axis} of x {list(x.shape)} make "
                           f"{list(want)}")
        kind = "block"
        param_shape = sshape
        param_index = (lambda idx: [i // block if d == axis else i
                                    for d, i in enumerate(idx)])
    if zv is not None and tuple(zv.shape) != sshape and \
            int(np.prod(zv.shape, dtype=np.int64)) != ssize:
        raise imp.fail(f"x_zero_point '{zv.name}' has shape {list(zv.shape)}, x_scale "
                       f"{list(sshape)}")
    xt = _tensor(imp, x, x.shape or (1,), str(xarr.dtype), "x")

    def param(v, what, dt):
        """A scale or zero: a constant written into the expression when
        there is one, else read at the element's tensor, axis or block."""
        if v.const is not None and v.fn is None and v.const.size == 1:
            return lambda idx: _te.const(v.const.reshape(-1)[0].item(), dt)
        if v.const is not None and v.fn is None:
            t = _tensor(imp, v, param_shape, dt, what)
        else:
            t = imp.tensor(v)
        return lambda idx: t[tuple(param_index(idx))] if kind != "tensor" else t[0]
    scale = param(s, "x_scale", dtype)
    zero = param(zv, "x_zero_point", x.dtype) if zv is not None else None

    def fn(idx):
        v = xt[tuple(idx)] if x.shape else xt[0]
        v = v.astype(dtype)
        if zero is not None:
            v = v - zero(idx).astype(dtype)
        return v * scale(idx)
    label = node.name or "dequantize"
    y = imp.compute(x.shape, fn, label, role="dequant")
    imp.define(node.output[0], _Value("", tuple(x.shape), dtype, tensor=y))


OPS = {
    "DequantizeLinear": _op_dequantize_linear,
    "com.microsoft.MatMulNBits": _op_matmul_nbits,
}
