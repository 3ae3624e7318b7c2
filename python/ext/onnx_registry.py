"""Every ONNX op ext.onnx.load maps: the core ops (onnx_ops.py) and the
families built on its helpers (onnx_ops_math, onnx_ops_layout,
onnx_ops_reduce, onnx_ops_quant). The table sits above all of them, so no op
module imports another's table. Ops of the default domain are keyed by op
type, others by `domain.op_type` (onnx_check.op_key: com.microsoft.MatMulNBits)."""

from typing import List

from .onnx_ops import OPS as _CORE_OPS
from .onnx_ops_layout import OPS as _LAYOUT_OPS
from .onnx_ops_math import OPS as _MATH_OPS
from .onnx_ops_quant import OPS as _QUANT_OPS
from .onnx_ops_reduce import OPS as _REDUCE_OPS

OPS = {**_CORE_OPS, **_MATH_OPS, **_LAYOUT_OPS, **_REDUCE_OPS, **_QUANT_OPS}


def supported_ops() -> List[str]:
    """The ONNX op types `load` maps.

        >>> "MatMul" in ext.onnx.supported_ops()
        True
    """
    return sorted(OPS)
