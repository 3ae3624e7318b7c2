"""LayerNorm as one kernel: the mean and the variance of each row are
reductions that the normalization's schedule computes inside its kernel at
the row tile (compute_at), reading the row from the block's shared copy; X
is read from global memory once and y written once."""
import numpy as np

import ext

M, N, EPS = 32, 768, 1e-5
X = ext.placeholder((M, N), "float32", name="X")
gamma = ext.placeholder((N,), "float32", name="gamma")
beta = ext.placeholder((N,), "float32", name="beta")
k1, k2 = ext.reduce_axis(N, name="k1"), ext.reduce_axis(N, name="k2")
mean = ext.compute((M,), lambda i: ext.sum(X[i, k1] / float(N), axis=k1), name="mean")
var = ext.compute((M,), lambda i: ext.sum((X[i, k2] - mean[i]) * (X[i, k2] - mean[i]) / float(N),
                                          axis=k2), name="var")
y = ext.compute((M, N), lambda i, j: (X[i, j] - mean[i]) * ext.rsqrt(var[i] + EPS) * gamma[j]
                + beta[j], name="y")

# Two rows per block; each reduction runs on the block's 256 threads.
s = ext.schedule(y, tile=(2, N), blocks=["i"], threads=(1, 256), cache=[X], vector=4)
s.compute_at(mean, "i").compute_at(var, "i")
kernel = ext.build(s)
print(kernel.report())
print("kernel entries in the PTX:", ext.build(s, "nvvm", chip="sm_80").ptx.count(".entry"))

rng = np.random.default_rng(0)
x = rng.standard_normal((M, N)).astype(np.float32)
g = rng.standard_normal(N).astype(np.float32)
b = rng.standard_normal(N).astype(np.float32)
mu = x.mean(axis=1, keepdims=True)
ref = (x - mu) / np.sqrt(((x - mu) ** 2).mean(axis=1, keepdims=True) + EPS) * g + b
np.testing.assert_allclose(kernel.run(x, g, b), ref, rtol=1e-4, atol=1e-5)
print("layernorm matches numpy")
