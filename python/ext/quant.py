"""Weight-only quantization (BitBLAS's and GPTQ's W4A16, W2A16, W8A16, NF4,
FP4 and FP8 weights times f16 or bf16 activations): numpy packing of
weights the way ext's kernels read them, the numpy dequantization those
kernels compute, and `quantized_matmul`, the GEMM with the dequantization
written as a TE producer that its schedule inlines (the dequantized weight
never exists in memory).

Formats (`FORMATS`): the weight's code width and how a code becomes a value.
Packed storage is bytes, the low bits first: int4 code k of a row sits in
byte k // 2 at bit 4 (k % 2), int2 code k in byte k // 4 at bit 2 (k % 4).
Scales are per group of `group_size` weights along K (-1: one per row) and
per row of W; zeros modes as BitBLAS names them:

    None         w = code * scale                 (symmetric, signed codes)
    "original"   w = (code - zero) * scale         (unsigned codes)
    "rescale"    w = code * scale - zero
    "quantized"  w = (code - zero) * scale, the zero an integer code

        >>> q = ext.quant.quantize(w, "int4", group_size=128, zeros="original")
        >>> c = ext.quant.quantized_matmul(16, q).run(a, *q.arrays())
"""

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from . import dtypes as _dt
from . import te as _te
from .helpers import Workload
from .schedule import schedule as _schedule

# QLoRA's NF4: the 16 quantiles of a normal distribution, scaled to [-1, 1].
NF4_LEVELS = (-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
              -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
              0.07958029955625534, 0.16093020141124725, 0.24611230194568634,
              0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
              0.7229568362236023, 1.0)
# FP4 E2M1 (the OCP microscaling element): sign, two exponent bits, one
# mantissa bit; codes 0-7 positive, 8-15 their negatives.
FP4_LEVELS = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
              -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0)


@dataclass(frozen=True)
class Format:
    """A weight format: `bits` per code, `signed` integer codes (for the
    symmetric mode), `levels` (a table codes index) or `fp8` (an MLIR float
    type the byte's bits are)."""
    bits: int
    signed: bool = False
    levels: Optional[Tuple[float, ...]] = None
    fp8: Optional[str] = None

    @property
    def per_byte(self) -> int:
        return 8 // self.bits

    @property
    def integer(self) -> bool:
        return self.levels is None and self.fp8 is None


FORMATS = {
    "int8": Format(8, signed=True), "uint8": Format(8),
    "int4": Format(4, signed=True), "uint4": Format(4),
    "int2": Format(2, signed=True), "uint2": Format(2),
    "nf4": Format(4, levels=NF4_LEVELS), "fp4_e2m1": Format(4, levels=FP4_LEVELS),
    "fp8_e4m3": Format(8, fp8="f8E4M3FN"), "fp8_e5m2": Format(8, fp8="f8E5M2"),
}
ZEROS = (None, "original", "rescale", "quantized")


def _format(fmt: str) -> Format:
    if fmt not in FORMATS:
        raise ValueError(f"unknown weight format {fmt!r}; formats: {', '.join(FORMATS)}")
    return FORMATS[fmt]


@dataclass
class QuantizedWeight:
    """W (N x K) quantized: `packed` codes (uint8, N x K * bits / 8; int8
    for signed 8-bit codes), `scales` and `zeros` (N x K / group, `dtype`;
    zeros None without them)."""
    fmt: str
    n: int
    k: int
    group_size: int
    zeros_mode: Optional[str]
    packed: np.ndarray
    scales: np.ndarray
    zeros: Optional[np.ndarray]
    dtype: str = "float16"
    layout: str = "rows"

    @property
    def group(self) -> int:
        return self.k if self.group_size == -1 else self.group_size

    def arrays(self):
        """The kernel's weight inputs, in order: packed codes, scales,
        zeros (when the mode has them)."""
        return (self.packed, self.scales) + ((self.zeros,) if self.zeros is not None else ())

    def codes(self) -> np.ndarray:
        """The codes (N x K, uint8), whatever the layout."""
        f = _format(self.fmt)
        if self.layout == "fragment":
            return deinterleave(self.packed, self.k)
        return unpack(self.packed, f.bits, self.k)

    def with_layout(self, layout: str) -> "QuantizedWeight":
        """The same weight packed in `layout` (LAYOUTS), e.g. once, ahead of
        time, in the fragment order the mma kernels read fastest."""
        if layout == self.layout:
            return self
        if layout not in LAYOUTS:
            raise ValueError(f"layout {layout!r}: one of {LAYOUTS}")
        f = _format(self.fmt)
        codes = self.codes()
        if layout == "fragment":
            if f.bits != 4 or self.k % 32:
                raise ValueError(f"the fragment layout holds 4-bit codes of rows whose K is a "
                                 f"multiple of 32, not {self.fmt} with K = {self.k}")
            packed = interleave(codes)
        else:
            packed = pack(codes, f.bits)
            if f.bits == 8 and f.integer and f.signed:
                packed = packed.view(np.int8)
        return QuantizedWeight(self.fmt, self.n, self.k, self.group_size, self.zeros_mode,
                               packed, self.scales, self.zeros, self.dtype, layout)

    def nbytes(self) -> int:
        """Bytes a GEMM reads of the weight: codes, scales and zeros."""
        return sum(a.nbytes for a in self.arrays())


def _check(fmt, n, k, group_size, zeros):
    f = _format(fmt)
    if zeros not in ZEROS:
        raise ValueError(f"zeros={zeros!r}: one of {ZEROS}")
    if zeros is not None and not f.integer:
        raise ValueError(f"zeros={zeros!r} applies to integer codes, not {fmt}")
    if zeros is None and f.integer and not f.signed:
        raise ValueError(f"{fmt} codes are unsigned: give zeros ('original', 'rescale' or "
                         "'quantized'), or use the signed format")
    group = k if group_size == -1 else group_size
    if group <= 0 or k % group:
        raise ValueError(f"group_size {group_size} does not divide K = {k} (-1: one per row)")
    if k % f.per_byte:
        raise ValueError(f"K = {k} is not a multiple of the {f.per_byte} codes a byte holds")
    return f, group


def pack(codes: np.ndarray, bits: int) -> np.ndarray:
    """Codes (N x K, each < 2^bits) packed into bytes, the low bits first."""
    codes = np.asarray(codes).astype(np.uint8)
    if bits == 8:
        return codes
    per = 8 // bits
    out = np.zeros((codes.shape[0], codes.shape[1] // per), np.uint8)
    for j in range(per):
        out |= (codes[:, j::per] & ((1 << bits) - 1)) << (bits * j)
    return out


def unpack(packed: np.ndarray, bits: int, k: int) -> np.ndarray:
    """The codes of `pack`, as uint8."""
    packed = np.asarray(packed).view(np.uint8)
    if bits == 8:
        return packed.copy()
    per = 8 // bits
    out = np.empty((packed.shape[0], k), np.uint8)
    for j in range(per):
        out[:, j::per] = (packed >> (bits * j)) & ((1 << bits) - 1)
    return out


# Packed layouts: "rows" (codes of a row low bits first, byte k // per_byte)
# and "fragment" (4-bit codes in uint32 words in the order mma.sync's B
# fragments take them: per row and 32-wide block of K, word t holds the
# eight codes lane t % 4 needs, k = 32 b + 16 j + 8 h + 2 t + c, code (j, h)
# at bit 4 (2 j + h) + 16 c, so that both codes of a register come out of
# the word by one shift and one mask, and one 32-bit load serves eight).
LAYOUTS = ("rows", "fragment")


def interleave(codes: np.ndarray) -> np.ndarray:
    """4-bit codes (N x K, K a multiple of 32) in the fragment layout:
    uint32 words, N x K / 32 x 4."""
    codes = np.asarray(codes).astype(np.uint32) & 15
    n, k = codes.shape
    c = codes.reshape(n, k // 32, 2, 2, 4, 2)  # [n, b, j, h, t, c]
    words = np.zeros((n, k // 32, 4), np.uint32)
    for j in range(2):
        for h in range(2):
            for cc in range(2):
                words |= c[:, :, j, h, :, cc] << np.uint32(4 * (2 * j + h) + 16 * cc)
    return words


def deinterleave(words: np.ndarray, k: int) -> np.ndarray:
    """The codes (N x K, uint8) of `interleave`."""
    words = np.asarray(words).astype(np.uint32)
    n = words.shape[0]
    c = np.empty((n, k // 32, 2, 2, 4, 2), np.uint8)
    for j in range(2):
        for h in range(2):
            for cc in range(2):
                c[:, :, j, h, :, cc] = (words >> np.uint32(4 * (2 * j + h) + 16 * cc)) & 15
    return c.reshape(n, k)


def quantize(w: np.ndarray, fmt: str = "int4", group_size: int = 128,
             zeros: Optional[str] = "original", dtype: str = "float16",
             layout: str = "rows") -> QuantizedWeight:
    """W (N x K, float) quantized per row and group of `group_size` along K
    (round to nearest; -1: one group per row).

        >>> q = ext.quant.quantize(w, "nf4", group_size=64, zeros=None)
    """
    w = np.asarray(w, np.float32)
    n, k = w.shape
    f, group = _check(fmt, n, k, group_size, zeros)
    if _dt.canonical(dtype) not in ("f16", "bf16", "f32"):
        raise ValueError(f"scales in {dtype}: float16, bfloat16 or float32 (the type the "
                         "weight is dequantized to; mma takes it with activations of the "
                         "same type)")
    sdt = _Rounding(dtype)
    g = w.reshape(n, k // group, group)
    zeros_out = None
    if f.integer and zeros is not None:
        top = (1 << f.bits) - 1
        lo, hi = g.min(-1), g.max(-1)
        scale = np.maximum(hi - lo, 1e-8) / top
        zero = np.clip(np.round(-lo / scale), 0, top)
        scale_s = sdt.store(scale)
        s32 = sdt.value(scale_s)[..., None]
        if zeros == "rescale":
            z = sdt.store(zero * scale)  # w = code * scale - z
            codes = np.clip(np.round((g + sdt.value(z)[..., None]) / s32), 0, top)
            zeros_out = z
        else:
            codes = np.clip(np.round(g / s32) + zero[..., None], 0, top)
            zeros_out = zero.astype(np.uint8) if zeros == "quantized" else sdt.store(zero)
    elif f.integer:
        top = (1 << (f.bits - 1)) - 1
        scale_s = sdt.store(np.maximum(np.abs(g).max(-1), 1e-8) / top)
        codes = np.clip(np.round(g / sdt.value(scale_s)[..., None]), -top - 1, top)
        codes = codes.astype(np.int64) & ((1 << f.bits) - 1)  # two's complement
    elif f.levels is not None:
        levels = np.array(f.levels, np.float32)
        scale_s = sdt.store(np.maximum(np.abs(g).max(-1), 1e-8) / np.abs(levels).max())
        x = g / sdt.value(scale_s)[..., None]
        codes = np.abs(x[..., None] - levels).argmin(-1)
    else:
        top = 448.0 if f.fp8 == "f8E4M3FN" else 57344.0
        scale_s = sdt.store(np.maximum(np.abs(g).max(-1), 1e-8) / top)
        codes = _dt.to_f8_bits(g / sdt.value(scale_s)[..., None], f.fp8)
    codes = np.asarray(codes).reshape(n, k)
    packed = pack(codes, f.bits)
    if f.bits == 8 and f.integer and f.signed:
        packed = packed.view(np.int8)
    q = QuantizedWeight(fmt, n, k, group_size, zeros, packed, scale_s, zeros_out, dtype)
    return q.with_layout(layout)


def dequantize(q: QuantizedWeight) -> np.ndarray:
    """W as the kernels compute it (float32 of the `dtype` values: the code's
    value and each product or difference rounded to `dtype` as the kernel's
    arithmetic in that type rounds it)."""
    f = _format(q.fmt)
    dt = _Rounding(q.dtype)
    r = dt.round
    codes = q.codes().astype(np.int64)
    rep = lambda a: np.repeat(np.asarray(a), q.group, 1)  # noqa: E731
    if f.integer and q.zeros_mode is None:
        half = 1 << (f.bits - 1)
        value = r((codes ^ half) - half)
    elif f.levels is not None:
        value = r(np.array(f.levels, np.float32)[codes])
    elif f.fp8 is not None:
        value = r(_dt.from_f8_bits(codes.astype(np.uint8), f.fp8))
    else:
        value = r(codes)
    s = rep(dt.value(q.scales))
    if q.zeros_mode == "rescale":
        w = r(r(value * s) - rep(dt.value(q.zeros)))
    elif q.zeros_mode is not None:
        z = q.zeros.astype(np.float32) if q.zeros_mode == "quantized" else dt.value(q.zeros)
        w = r(r(value - rep(z)) * s)
    else:
        w = r(value * s)
    return w


class _Rounding:
    """Values of the type W is dequantized to, in numpy: `round` (float32
    values rounded to it), `store` (arrays as ext passes it: float16,
    bfloat16 bits, float32) and `value` (stored arrays as float32)."""

    def __init__(self, dtype):
        self.dtype = _dt.canonical(dtype)

    def store(self, x):
        x = np.asarray(x, np.float32)
        if self.dtype == "bf16":
            return _dt.to_bf16_bits(x)
        return x.astype(_dt.numpy_dtype(self.dtype))

    def value(self, a):
        if self.dtype == "bf16":
            return _dt.from_bf16_bits(a)
        return np.asarray(a).astype(np.float32)

    def round(self, x):
        return self.value(self.store(x))


def _dequant_expr(f: Format, q: QuantizedWeight, Wq, S, Z):
    """The TE producer W[n, k] of format `f` (the same arithmetic as
    `dequantize`)."""
    dtype = _dt.canonical(q.dtype)
    g = q.group

    def code(n, k):
        if getattr(q, "layout", "rows") == "fragment":
            shift = 4 * (2 * ((k % 32) // 16) + (k % 16) // 8) + 16 * (k % 2)
            return (Wq[n, k // 32, (k % 8) // 2] >> shift) & 15
        if f.bits == 8:
            return Wq[n, k]
        return (Wq[n, k // f.per_byte] >> (f.bits * (k % f.per_byte))) & ((1 << f.bits) - 1)

    def value(n, k):
        c = code(n, k)
        if f.levels is not None:
            return _te.lut(f.levels, c, dtype)
        if f.fp8 is not None:
            return _te.reinterpret(c, f.fp8).astype(dtype)
        if q.zeros_mode is None and f.bits < 8:
            half = 1 << (f.bits - 1)
            return ((c ^ half).astype("int8") - half).astype(dtype)
        return c.astype(dtype)

    def w(n, k):
        v, s = value(n, k), S[n, k // g]
        if q.zeros_mode == "rescale":
            return v * s - Z[n, k // g]
        if q.zeros_mode is not None:
            return (v - Z[n, k // g].astype(dtype)) * s
        return v * s
    return w


def quantized_matmul(m: int, q: QuantizedWeight, act: str = "float16", out: str = "float32",
                     tile=(16, 32, 32), threads=(4, 32, 1), decomposition=None,
                     **schedule_fields) -> Workload:
    """C[m, n] = sum over k of A[m, k] * W[n, k] with W the dequantization
    of `q`, summed in f32 and returned in `out`: inputs A (m x K, `act`)
    then `q.arrays()`. W is a producer the schedule inlines, so only its
    packed codes, scales and zeros are read (N x K x bits / 8 bytes plus the
    groups') and nothing but C is stored. The default schedule runs on CUDA
    cores (`tile`, `threads`, A and W's inputs cached); `mma="m16n8k16"`
    with `warps` (or an MFMA shape) runs on the matrix instruction, W's
    fragments dequantized in registers element by element.

        >>> q = ext.quant.quantize(w, "int4")
        >>> c = ext.quant.quantized_matmul(5, q).run(a, *q.arrays())
    """
    f = _format(q.fmt)
    act = _dt.canonical(act)
    A = _te.placeholder((m, q.k), act, name="A")
    code_type = {np.dtype(np.int8): "int8", np.dtype(np.uint32): "uint32"}.get(
        q.packed.dtype, "uint8")
    Wq = _te.placeholder(q.packed.shape, code_type, name="Wq")
    S = _te.placeholder(q.scales.shape, q.dtype, name="S")
    Z = None
    if q.zeros is not None:
        Z = _te.placeholder(q.zeros.shape, "uint8" if q.zeros.dtype == np.uint8 else q.dtype,
                            name="Z")
    W = _te.compute((q.n, q.k), _dequant_expr(f, q, Wq, S, Z), name="W")
    r = _te.reduce_axis(q.k, name="k")
    C = _te.compute((m, q.n), lambda i, n: _te.sum(
        A[i, r].astype("float32") * W[n, r].astype("float32"), axis=r), name="C")
    inputs = [A, Wq, S] + ([Z] if Z is not None else [])
    s = _schedule(C, tile=tile, threads=threads, cache=[A, W], decomposition=decomposition,
                  **schedule_fields).compute_inline(W)
    if _dt.canonical(out) != "f32":
        D = _te.compute((m, q.n), lambda i, n: C[i, n].astype(out), name="D")
        s = s.reverse_compute_at(D, "n")
        return Workload(inputs, D, s)
    return Workload(inputs, C, s)
