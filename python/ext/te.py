"""The tensor-expression level: placeholders, axes, computes, reductions.

Written as in TVM's `te`:

    >>> import ext
    >>> A = ext.placeholder((64, 32), "float32", name="A")
    >>> B = ext.placeholder((32, 48), "float32", name="B")
    >>> k = ext.reduce_axis(32, name="k")
    >>> C = ext.compute((64, 48), lambda i, j: ext.sum(A[i, k] * B[k, j], axis=k), name="C")

Expressions are trees of `Expr`; `ext.build` turns each compute into an
`ext.compute` op through ext's C++ API, each op located at the Python line
that wrote it. Mistakes (a reduce axis outside a reduction, an access out of
a tensor's shape, mixed dtypes) raise at the line that made them.

This module is the level's one name (`ext.te.X`, `from .te import X`); the
code lives in two modules by what it does: te_expressions.py (expression
nodes, operators, constants, math functions, sizes, tensors, placeholders)
and te_compute.py (the compute builder: `compute`, axes, reductions, `pad`).
Their private helpers that the rest of the package uses are re-exported
here too.
"""

from .te_expressions import (  # noqa: F401
    Expr, Tensor, Var, _PACKAGE_DIR, _at, _binary, _compare, _const, _counter, _error,
    _is_size, _lift, _math, _pymax, _pymin, _same, _unary, _walk, _where, abs, cast, ceil,
    const, cos, erf, exp, exp2, floor, if_then_else, log, log2, log10, lut, max_value, min_value,
    placeholder, reinterpret, round, rsqrt, sigmoid, sin, sqrt, tanh, var)
from .te_compute import (  # noqa: F401
    CommReducer, ComputeOp, IterVar, _affine, _BuiltinReducer, _check_bounds, _foreign_axis,
    _has_read, _range, _Read, _reads, _Reduce, _reduce_axes, _tree_axes, comm_reducer, compute,
    max, min, pad, prod, reduce_axis, sum)
