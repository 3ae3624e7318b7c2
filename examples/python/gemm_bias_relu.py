"""GEMM + bias + ReLU as one kernel: the GEMM's schedule takes the
element-wise epilogue into its kernel (reverse_compute_at), which then runs
on each finished accumulator tile in registers; C never reaches memory.

    PYTHONPATH=build/python_packages /usr/bin/python3 examples/python/gemm_bias_relu.py
"""
import numpy as np

import ext

M, N, K = 300, 200, 128  # ragged M and N
A = ext.placeholder((M, K), "float16", name="A")
B = ext.placeholder((K, N), "float16", name="B")
bias = ext.placeholder((N,), "float32", name="bias")
k = ext.reduce_axis(K, name="k")
C = ext.compute((M, N), lambda i, j: ext.sum(ext.cast(A[i, k], "float32") *
                                             ext.cast(B[k, j], "float32"), axis=k), name="C")
D = ext.compute((M, N), lambda i, j: ext.cast(ext.max(C[i, j] + bias[j], 0.0), "float16"),
                name="D")

# Tensor cores (mma.sync, f32 accumulation), 3-stage pipeline; D at the
# output tile.
s = ext.schedule(C, tile=(64, 64, 32), mma="m16n8k16", threads=[4, 32, 1], warps=[2, 2],
                 cache=[A, B], stages=3, vector=8).reverse_compute_at(D, "j")

gpu = ext.build(s, target="nvvm", chip="sm_80")
print(f"kernels: {gpu.ptx.count('.entry')} (unfused: 2), intermediates in memory: "
      f"{[t.name for t in gpu.intermediates]}")

rng = np.random.default_rng(0)
a = rng.standard_normal((M, K)).astype(np.float16)
b = rng.standard_normal((K, N)).astype(np.float16)
t = rng.standard_normal(N).astype(np.float32)
d = gpu.run(a, b, t)  # the same kernel, on ext's CPU emulator
ref = np.maximum(a.astype(np.float32) @ b.astype(np.float32) + t, 0)
np.testing.assert_allclose(d.astype(np.float32), ref, rtol=2e-3, atol=2e-3)
print("gemm + bias + relu matches numpy")
