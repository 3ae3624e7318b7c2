"""argmax with a commutative reducer carrying two values (index, value)."""
import numpy as np

import ext


def combine(x, y):
    # x: the accumulated (index, value), y: the new one
    return ext.if_then_else(x[1] >= y[1], x[0], y[0]), ext.max(x[1], y[1])


def identity(index_dtype, value_dtype):
    return ext.const(-1, index_dtype), ext.min_value(value_dtype)


argmax = ext.comm_reducer(combine, identity, name="argmax")

M, N = 50, 77
X = ext.placeholder((M, N), "float32", name="X")
k = ext.reduce_axis(N, name="k")
index, value = ext.compute((M,), lambda i: argmax((k, X[i, k]), axis=k), name="argmax")

kernel = ext.build(ext.schedule(index, tile=(16, 16), threads=(16, 1)))
x = np.random.default_rng(0).permutation(M * N).reshape(M, N).astype(np.float32)
i, v = kernel.run(x)
np.testing.assert_array_equal(i, x.argmax(axis=1))
np.testing.assert_array_equal(v, x.max(axis=1))
print(kernel.mlir().split("reducer")[1][:300])
print("argmax matches numpy")
