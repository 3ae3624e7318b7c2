"""Softmax as a chain of computes in one function: a row max, exponentials,
a row sum and a division. Each compute is scheduled and runs as a kernel of
its own: four launches, with the intermediates in global memory (ext does
not fuse computes yet)."""
import numpy as np

import ext

M, N = 67, 45
X = ext.placeholder((M, N), "float32", name="X")
k1, k2 = ext.reduce_axis(N, name="k1"), ext.reduce_axis(N, name="k2")
row_max = ext.compute((M,), lambda i: ext.max(X[i, k1], axis=k1), name="row_max")
e = ext.compute((M, N), lambda i, j: ext.exp(X[i, j] - row_max[i]), name="e")
row_sum = ext.compute((M,), lambda i: ext.sum(e[i, k2], axis=k2), name="row_sum")
softmax = ext.compute((M, N), lambda i, j: e[i, j] / row_sum[i], name="softmax")

# The reductions: 8 rows per block, one row per thread (threads = (8, 1): 8
# on the row axis, 1 on the reduce axis, which each thread walks alone). The
# elementwise computes take the default schedule.
kernel = ext.build([ext.schedule(row_max, tile=(8, N), threads=(8, 1)),
                    ext.schedule(e), ext.schedule(row_sum, tile=(8, N), threads=(8, 1)),
                    ext.schedule(softmax)])
print(kernel.report())

x = np.random.default_rng(0).standard_normal((M, N)).astype(np.float32)
ref = np.exp(x - x.max(axis=1, keepdims=True))
ref /= ref.sum(axis=1, keepdims=True)
np.testing.assert_allclose(kernel.run(x), ref, rtol=1e-5, atol=1e-6)
print("softmax matches numpy")
