"""ext: TVM-style scheduling for MLIR, from Python.

Write computes as in TVM's `te`, schedule them, build them for the CPU, an
NVIDIA GPU (PTX) or an AMD GPU (HSACO), and run them with numpy arrays:

    import numpy as np, ext
    M, N, K = 200, 130, 100
    A = ext.placeholder((M, K), "float32", name="A")
    B = ext.placeholder((K, N), "float32", name="B")
    k = ext.reduce_axis(K, name="k")
    C = ext.compute((M, N), lambda i, j: ext.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = ext.schedule(C, tile=(64, 64, 16), threads=(16, 16, 1),
                     cache=[(A, [(0, 32, 1)]), B], decomposition="data_parallel")
    kernel = ext.build(s, target="nvvm", chip="sm_90")
    print(kernel.ptx[:300], kernel.shared_memory_bytes)
    a = np.random.rand(M, K).astype(np.float32)
    b = np.random.rand(K, N).astype(np.float32)
    np.testing.assert_allclose(kernel.run(a, b), a @ b, rtol=1e-5)

Levels:
* TE: `placeholder`, `reduce_axis`, `compute`, expressions (arithmetic,
  comparisons, `if_then_else` (a read in one branch happens only when it is taken), `pad`,
  `astype`, `exp`/`log`/`sqrt`/`tanh`/...,
  `const`), reductions `sum`/`prod`/`max`/`min` and `comm_reducer`.
* Schedules: `schedule(C, tile=..., threads=..., blocks=..., cache=...,
  decomposition=..., raster=..., swizzle=..., vector=..., unroll=...,
  stages=..., async_=..., layout=..., mma=..., warps=...)`, made by the C++
  core from typed values (`ext._ext.schedules`); `schedule_fields()`,
  `mma_names()` and `decomposition_names()` list what it takes.
* `build(...)` -> `Kernel` with `.mlir(stage)`, `.ptx`, `.hsaco`,
  `.shared_memory_bytes`, `.workspace_bytes`, `.report()`, `.run(...)`;
  built kernels are cached in the process (`clear_cache()`,
  `set_cache_limit(n)`, `cache_info()`) and on disk across processes
  (`cache_dir()`, `set_cache_dir(path)`, `$EXT_CACHE_DIR`).
* `Module`: parse, print and lower MLIR text (`Module.parse(text)`),
  `run_pipeline`, `run_cpu`.
* Helpers: `matmul`, `gemv`, `row_reduce`, `softmax`, `conv2d`.
* Tuning: `tune(C, chip=...)` searches schedules (a space from the compute
  and the chip, the cost model `predict`, the verifiers and bank analysis,
  candidates compiled and run on the emulator, a database:
  `TuningDatabase`; `schedule(C, tuned=True)` reads it); `chip_info(chip)`
  is ext's chip model.
* ONNX: `ext.onnx.load(path_or_model)` maps an ONNX graph (MatMul, Gemm,
  Conv, Softmax, LayerNormalization, element-wise ops, Transpose, Reshape)
  to computes with default schedules and fusions, and `.run(inputs)` runs
  it (the onnx package is imported only then; docs/Interop.md).
* torch: `ext.torch.compile(module, example_inputs)` traces a torch
  module with torch.fx and maps its calls to the computes ext.onnx makes;
  the result takes and returns torch tensors (docs/TorchFrontEnd.md).
* Low-bit weights: `ext.quant.quantize(w, "int4", group_size=128)` packs
  int8/int4/int2, NF4, FP4 and FP8 weights with their scales and zeros as
  the kernels read them; `ext.quant.quantized_matmul(m, q)` is the GEMM whose
  inlined producer dequantizes them (docs/LowBit.md).
* Cost model: `predict_work(decomposition, tiles, iters, sms)` (what
  `auto` weighs) and `choose_at_launch(tiles, iters, sms)` (what `auto`
  picks when the tile count is known only at launch).

The C++ core (`ext._ext`) is ext's own pybind11 module over ext's C++ API,
linked to the same libMLIR.so as ext's tools.
"""

from ._ext import Context, Module, bank_cost, chip_info, choose_at_launch, predict_work  # noqa: F401
from .build import (  # noqa: F401
    ExtRemark, ExtWarning, Kernel, build, cache_info, clear_cache, lower, set_cache_limit)
from .disk_cache import cache_dir, set_cache_dir  # noqa: F401
from .dtypes import canonical as dtype, from_f8_bits, to_f8_bits  # noqa: F401
from .helpers import Workload, attention, conv2d, gemv, matmul, row_reduce, softmax  # noqa: F401
from .schedule import (  # noqa: F401
    Schedule, decomposition_names, decomposition_parameters, load_plugin, mma_names, schedule,
    schedule_fields)
from .tuning import TuningReport, predict, search_space, tune, tune_module  # noqa: F401
from .tuning_db import TuningDatabase  # noqa: F401
from .te import (  # noqa: F401
    CommReducer, ComputeOp, Expr, IterVar, Tensor, abs, cast, ceil, comm_reducer, compute,
    const, cos, erf, exp, exp2, floor, if_then_else, log, log2, log10, lut, max, max_value, min,
    min_value, pad, placeholder, prod, reduce_axis, reinterpret, round, rsqrt, sigmoid, sin, sqrt,
    sum, tanh, Var, var)
from . import quant  # noqa: F401
try:  # ext.onnx imports the onnx package only in load(); guarded all the same
    from . import onnx  # noqa: F401
except ImportError:  # pragma: no cover
    pass
try:  # ext.torch.compile imports torch only when called (never shadowing it: the
    # name lives on ext alone, not in __all__)
    from . import torch_frontend as torch  # noqa: F401
    import sys as _sys
    _sys.modules[__name__ + ".torch"] = torch
except ImportError:  # pragma: no cover
    pass

__all__ = [
    "Context", "Module", "load_plugin", "chip_info", "bank_cost", "tune", "tune_module", "predict",
    "search_space", "TuningReport", "TuningDatabase", "softmax", "conv2d", "attention", "ExtWarning", "ExtRemark", "Kernel", "build", "cache_info", "clear_cache",
    "set_cache_limit", "cache_dir", "set_cache_dir", "lower", "dtype", "Workload", "matmul", "gemv",
    "row_reduce", "Schedule", "schedule", "decomposition_names", "decomposition_parameters",
    "mma_names", "schedule_fields",
    "CommReducer", "ComputeOp", "Expr", "IterVar", "Tensor", "abs", "cast", "ceil",
    "comm_reducer", "compute", "const", "cos", "erf", "exp", "exp2", "floor", "if_then_else",
    "log", "log2", "log10", "max", "max_value", "min", "min_value", "pad", "placeholder", "prod",
    "Var", "var", "lut", "reinterpret", "to_f8_bits", "from_f8_bits",
    "reduce_axis", "round", "rsqrt", "sigmoid", "sin", "sqrt", "sum", "tanh",
    "onnx", "quant",
]
