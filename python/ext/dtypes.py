"""Element types: MLIR's names, numpy's names and numpy dtypes, one table."""

import numpy as np

# canonical MLIR name -> (numpy dtype used for arrays, kind)
_TYPES = {
    "f16": (np.float16, "float"),
    "bf16": (np.uint16, "float"),  # numpy has no bfloat16: raw bits
    "f32": (np.float32, "float"),
    "f64": (np.float64, "float"),
    "i1": (np.bool_, "bool"),
    "i8": (np.int8, "int"),
    "i16": (np.int16, "int"),
    "i32": (np.int32, "int"),
    "i64": (np.int64, "int"),
}

_ALIASES = {
    "float16": "f16", "half": "f16",
    "bfloat16": "bf16",
    "float32": "f32", "float": "f32",
    "float64": "f64", "double": "f64",
    "bool": "i1",
    "int8": "i8", "int16": "i16", "int32": "i32", "int": "i32", "int64": "i64",
}


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
            if np_dtype.name == "bfloat16":  # ml_dtypes, where installed
                return "bf16"
            for name, (t, _) in _TYPES.items():
                if name != "bf16" and np.dtype(t) == np_dtype:
                    return name
    valid = ", ".join(list(_TYPES) + list(_ALIASES))
    raise ValueError(f"unknown dtype {dtype!r}; valid dtypes: {valid}")


def kind(dtype: str) -> str:
    """'float', 'int' or 'bool'."""
    return _TYPES[dtype][1]


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
    if kind(dtype) == "float":
        info = np.finfo(numpy_dtype(dtype))
        return float(info.min), float(info.max)
    if dtype == "i1":
        return 0, 1
    info = np.iinfo(numpy_dtype(dtype))
    return int(info.min), int(info.max)
