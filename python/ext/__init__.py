"""ext: TVM-style scheduling for MLIR, from Python.

    import ext, numpy as np
    k = ext.matmul(200, 130, 100).schedule(tile=(64, 64, 16), threads=(16, 16, 1),
                                           cache=(0, 1), storage_align={0: [(0, 32, 1)]})
    c = k.run_cpu(a, b)          # numpy in, numpy out
    print(k.mlir())              # the scheduled ext.compute

The C++ core (`ext._ext`) parses, verifies, runs ext's and upstream's pass
pipelines and runs functions through MLIR's ExecutionEngine; this layer
builds computes and schedules as text and moves numpy arrays in and out.
"""

from ._ext import Context, Module  # noqa: F401
from .compute import Axis, Compute, gemv, matmul, row_reduce  # noqa: F401

__all__ = ["Context", "Module", "Axis", "Compute", "matmul", "gemv", "row_reduce"]
