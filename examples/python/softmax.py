"""Softmax as one kernel: a chain of computes (row max, exponentials, row
sum, division) where the division's schedule computes the row max and row
sum inside its kernel at the row tile (compute_at) and substitutes the
exponentials (compute_inline). X is copied into shared memory once per row
and read from there by all three; the row max and sum are combined across
the block's threads (warp shuffles, then shared memory). Unscheduled, the
same computes would be four kernels with the intermediates in global memory
(bench/fusion compares the two)."""
import numpy as np

import ext

M, N = 67, 1000
X = ext.placeholder((M, N), "float32", name="X")
k1, k2 = ext.reduce_axis(N, name="k1"), ext.reduce_axis(N, name="k2")
row_max = ext.compute((M,), lambda i: ext.max(X[i, k1], axis=k1), name="row_max")
e = ext.compute((M, N), lambda i, j: ext.exp(X[i, j] - row_max[i]), name="e")
row_sum = ext.compute((M,), lambda i: ext.sum(e[i, k2], axis=k2), name="row_sum")
softmax = ext.compute((M, N), lambda i, j: e[i, j] / row_sum[i], name="softmax")

# One row per block on 256 threads, the row's 1000 columns in one 1024-wide
# tile (the last 24 masked). `cache=[e]` caches what e reads once it is
# inlined: X.
s = ext.schedule(softmax, tile=(1, 1024), blocks=["i"], threads=(1, 256), cache=[e], vector=4)
s.compute_at(row_max, "i").compute_inline(e).compute_at(row_sum, "i")
kernel = ext.build(s)
print(kernel.report())
print("kernel entries in the PTX:", ext.build(s, "nvvm", chip="sm_80").ptx.count(".entry"))

x = np.random.default_rng(0).standard_normal((M, N)).astype(np.float32)
ref = np.exp(x - x.max(axis=1, keepdims=True))
ref /= ref.sum(axis=1, keepdims=True)
np.testing.assert_allclose(kernel.run(x), ref, rtol=1e-5, atol=1e-7)
print("softmax matches numpy")
