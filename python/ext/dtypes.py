"""Element types: MLIR's names, numpy's names and numpy dtypes, one table.

Unsigned integers (`ui8`, "uint8") are MLIR's signless integers of their
width in memory and in the IR; their operations carry the signedness
(arith.shrui, extui, uitofp, divui, cmpi ult), as in upstream MLIR. The
narrow integers `i4` and `i2` pass to and from numpy as int8 values, one per
byte (packed storage, two int4 per byte, is a uint8 tensor the compute
unpacks with shifts and masks). The small floats numpy lacks (bf16 and the
f8/f4 formats) pass as their bit patterns (uint16, uint8); `to_f8_bits` and
`from_f8_bits` convert float32 values.
"""

import numpy as np

# canonical MLIR name -> (numpy dtype used for arrays, kind, bits)
_TYPES = {
    "f16": (np.float16, "float", 16),
    "bf16": (np.uint16, "float", 16),  # numpy has no bfloat16: raw bits
    "f32": (np.float32, "float", 32),
    "f64": (np.float64, "float", 64),
    "i1": (np.bool_, "bool", 1),
    "i8": (np.int8, "int", 8),
    "i16": (np.int16, "int", 16),
    "i32": (np.int32, "int", 32),
    "i64": (np.int64, "int", 64),
    "ui8": (np.uint8, "int", 8),
    "ui16": (np.uint16, "int", 16),
    "ui32": (np.uint32, "int", 32),
    "ui64": (np.uint64, "int", 64),
    "i4": (np.int8, "int", 4),  # one value per byte
    "i2": (np.int8, "int", 2),
    "f8E4M3FN": (np.uint8, "float", 8),  # bit patterns
    "f8E5M2": (np.uint8, "float", 8),
    "f4E2M1FN": (np.uint8, "float", 4),  # one value per byte, low 4 bits
}

_ALIASES = {
    "float16": "f16", "half": "f16",
    "bfloat16": "bf16",
    "float32": "f32", "float": "f32",
    "float64": "f64", "double": "f64",
    "bool": "i1",
    "int8": "i8", "int16": "i16", "int32": "i32", "int": "i32", "int64": "i64",
    "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
    "int4": "i4", "int2": "i2",
    # ml_dtypes' names
    "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2", "float4_e2m1fn": "f4E2M1FN",
}

# Types numpy arrays of another type stand for: never the answer to
# canonical(numpy dtype).
_STAND_INS = ("bf16", "i4", "i2", "f8E4M3FN", "f8E5M2", "f4E2M1FN")


def canonical(dtype) -> str:
    """The MLIR name of `dtype`: an MLIR name ("f32"), numpy's ("float32"),
    a numpy dtype or scalar type (np.float32).

        >>> canonical("float32"), canonical(np.int8), canonical("bf16")
        ('f32', 'i8', 'bf16')
    """
    if isinstance(dtype, str):
        name = dtype.strip()
        if name in _TYPES:
            return name
        if name in _ALIASES:
            return _ALIASES[name]
    else:
        try:
            np_dtype = np.dtype(dtype)
        except TypeError:
            np_dtype = None
        if np_dtype is not None:
            if np_dtype.name in _ALIASES:  # ml_dtypes, where installed
                return _ALIASES[np_dtype.name]
            for name, (t, _, _) in _TYPES.items():
                if name not in _STAND_INS and np.dtype(t) == np_dtype:
                    return name
    valid = ", ".join(list(_TYPES) + list(_ALIASES))
    raise ValueError(f"unknown dtype {dtype!r}; valid dtypes: {valid}")


def kind(dtype: str) -> str:
    """'float', 'int' or 'bool'."""
    return _TYPES[dtype][1]


def storage_bytes(dtype) -> int:
    """Bytes an element of `dtype` takes in memory (its numpy array's
    itemsize: 2 for bf16's bits, 1 for i4 and the f8/f4 formats)."""
    return numpy_dtype(canonical(dtype)).itemsize


def bits(dtype: str) -> int:
    """The width of `dtype` in bits (4 for i4, 8 for f8E4M3FN)."""
    return _TYPES[dtype][2]


def is_unsigned(dtype: str) -> bool:
    """Whether `dtype` is an unsigned integer (ui8, ..., "uint8")."""
    return dtype.startswith("ui")


def is_small_float(dtype: str) -> bool:
    """The f8 and f4 formats: storage and conversions only (no arithmetic)."""
    return dtype in ("f8E4M3FN", "f8E5M2", "f4E2M1FN")


def numpy_dtype(dtype: str):
    """The numpy dtype arrays of `dtype` have (uint16 bits for bf16)."""
    return np.dtype(_TYPES[dtype][0])


def to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to bfloat16 (nearest, ties to even), as the
    uint16 bit patterns ext passes for bf16."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounding = ((bits >> 16) & 1) + np.uint32(0x7FFF)
    out = ((bits + rounding) >> 16).astype(np.uint16)
    nan = np.isnan(x)
    if nan.any():
        out[nan] = 0x7FC0
    return out


def from_bf16_bits(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns as float32 (exact)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def limits(dtype: str):
    """(lowest, highest) finite values of `dtype`."""
    if dtype == "bf16":
        big = float(from_bf16_bits(np.array([0x7F7F], np.uint16))[0])
        return -big, big
    if is_small_float(dtype):
        big = _SMALL_FLOATS[dtype].largest
        return -big, big
    if dtype in ("i4", "i2"):
        half = 1 << (bits(dtype) - 1)
        return -half, half - 1
    if kind(dtype) == "float":
        info = np.finfo(numpy_dtype(dtype))
        return float(info.min), float(info.max)
    if dtype == "i1":
        return 0, 1
    info = np.iinfo(numpy_dtype(dtype))
    return int(info.min), int(info.max)


def check_stored(a: np.ndarray, dtype: str, what: str):
    """Raises ValueError where an array passed for `dtype` holds values the
    type has not: i4/i2 out of range, f4 bits above the low four."""
    if dtype in ("i4", "i2", "f4E2M1FN") and a.dtype == numpy_dtype(dtype) and a.size:
        lo, hi = limits(dtype) if dtype != "f4E2M1FN" else (0, 15)
        if a.min() < lo or a.max() > hi:
            raise ValueError(f"{what} is {dtype}: its values must lie in [{lo}, {hi}], "
                             f"not [{a.min()}, {a.max()}]")


def from_stored(a: np.ndarray, dtype: str) -> np.ndarray:
    """An output array as the user gets it: bf16/f8/f4 as float32, i4/i2 as
    int8 (the bits past the width, which the store leaves undefined, dropped)."""
    if dtype == "bf16":
        return from_bf16_bits(a)
    if is_small_float(dtype):
        return from_f8_bits(a, dtype)
    if dtype in ("i4", "i2"):
        shift = 8 - bits(dtype)
        return ((a.view(np.uint8) << shift).view(np.int8) >> shift).astype(np.int8)
    return a


class _SmallFloat:
    """A minifloat format: every code's value, from its fields."""

    def __init__(self, exponent_bits, mantissa_bits, bias, inf, nan):
        self.width = 1 + exponent_bits + mantissa_bits
        self.mantissa_bits = mantissa_bits
        codes = np.arange(1 << self.width, dtype=np.int64)
        sign = np.where(codes >> (self.width - 1), -1.0, 1.0)
        e = (codes >> mantissa_bits) & ((1 << exponent_bits) - 1)
        m = (codes & ((1 << mantissa_bits) - 1)).astype(np.float64)
        value = np.where(e == 0, m * 2.0 ** (1 - bias - mantissa_bits),
                         (1.0 + m / (1 << mantissa_bits)) * 2.0 ** (e - bias))
        self.values = sign * value
        positive = codes < (1 << (self.width - 1))
        self.inf = inf  # the code of +inf, or None
        self.nan = nan  # codes (without the sign) that are NaN
        for c in nan:
            self.values[[c, c | (1 << (self.width - 1))]] = np.nan
        if inf is not None:
            self.values[inf] = np.inf
            self.values[inf | (1 << (self.width - 1))] = -np.inf
        finite = positive & np.isfinite(self.values)
        self.finite_codes = codes[finite]  # increasing with the value
        self.finite_values = self.values[finite]
        self.largest = float(self.finite_values[-1])


_SMALL_FLOATS = {
    # OCP FP8: E4M3 has no inf and one NaN (S.1111.111), its largest is 448;
    # E5M2 is IEEE-like (inf S.11111.00, NaN S.11111.xx), largest 57344.
    # The first NaN code is the one conversions make.
    "f8E4M3FN": _SmallFloat(4, 3, 7, None, (0x7F,)),
    "f8E5M2": _SmallFloat(5, 2, 15, 0x7C, (0x7F, 0x7E, 0x7D)),
    # OCP FP4 (MX): no inf, no NaN, largest 6.
    "f4E2M1FN": _SmallFloat(2, 1, 1, None, ()),
}


def _small_float(fmt: str) -> _SmallFloat:
    name = canonical(fmt)
    if name not in _SMALL_FLOATS:
        raise ValueError(f"{fmt!r} is not an f8/f4 format; expected one of "
                         f"{', '.join(_SMALL_FLOATS)}")
    return _SMALL_FLOATS[name]


def to_f8_bits(x, fmt: str = "f8E4M3FN", saturate: bool = True) -> np.ndarray:
    """float values rounded to the f8 (or f4) format `fmt` (nearest, ties to
    even), as the uint8 bit patterns ext passes for it (f4E2M1FN: the low 4
    bits). With `saturate` (NVIDIA's .satfinite, what quantizers use) a value
    beyond the largest finite one, infinities included, becomes it (448 for
    f8E4M3FN); without, rounding follows IEEE: past the largest finite value
    plus half a step, f8E5M2 gives inf and f8E4M3FN, which has no inf, NaN.
    NaN stays NaN (f4E2M1FN has none: a ValueError).

        >>> ext.to_f8_bits(np.array([1.0, 500.0]), "f8E4M3FN")   # [0x38, 0x7E]
    """
    f = _small_float(fmt)
    x = np.asarray(x, dtype=np.float64)
    nan = np.isnan(x)
    if nan.any() and not f.nan:
        raise ValueError(f"{fmt} has no NaN; the values contain NaN")
    a = np.where(nan, 0.0, np.abs(x))
    vals, codes = f.finite_values, f.finite_codes
    hi = np.clip(np.searchsorted(vals, a), 1, len(vals) - 1)
    lo = hi - 1
    below, above = a - vals[lo], vals[hi] - a
    take_hi = (above < below) | ((above == below) & (codes[hi] % 2 == 0))
    out = np.where(take_hi, codes[hi], codes[lo])
    beyond = a > f.largest
    if saturate or (f.inf is None and not f.nan):
        out = np.where(beyond, codes[-1], out)
    else:
        # Past the largest value plus half a step rounds away (IEEE); the
        # tie goes away when the largest value's code is odd.
        edge = f.largest + (vals[-1] - vals[-2]) / 2
        away = (a > edge) | ((a == edge) & (codes[-1] % 2 == 1))
        out = np.where(beyond & ~away, codes[-1], out)
        out = np.where(away, f.inf if f.inf is not None else f.nan[0], out)
    sign = np.signbit(x) & ~nan
    out = np.where(sign, out | (1 << (f.width - 1)), out)
    out = np.where(nan, f.nan[0] if f.nan else 0, out)
    return out.astype(np.uint8)


def from_f8_bits(bits_, fmt: str = "f8E4M3FN") -> np.ndarray:
    """f8 (or f4) bit patterns of format `fmt` as float32 (exact).

        >>> ext.from_f8_bits(np.array([0x38, 0x7E], np.uint8))   # [1.0, 448.0]
    """
    f = _small_float(fmt)
    codes = np.asarray(bits_, dtype=np.uint8).astype(np.int64) & ((1 << f.width) - 1)
    return f.values[codes].astype(np.float32)
