"""A GEMM on the TE level: schedule it with a tile decomposition, print the
head of its PTX, and check it against numpy on the CPU emulator.

    PYTHONPATH=build/python_packages /usr/bin/python3 examples/python/gemm.py
"""
import numpy as np

import ext

M, N, K = 300, 200, 130  # ragged: no tile divides them
A = ext.placeholder((M, K), "float32", name="A")
B = ext.placeholder((K, N), "float32", name="B")
k = ext.reduce_axis(K, name="k")
C = ext.compute((M, N), lambda i, j: ext.sum(A[i, k] * B[k, j], axis=k), name="C")

# Stream-K: 20 tiles of 9 k-steps spread over 13 CTAs, so most tiles are
# split and combined through the workspace.
s = ext.schedule(C, tile=(64, 64, 16), threads=(16, 16, 1),
                 cache=[(A, [(0, 16, 1)]), (B, [(0, 64, 4)])],
                 decomposition=("stream_k", {"grid": 13}), swizzle=2)

gpu = ext.build(s, target="nvvm", chip="sm_90")
print("\n".join(gpu.ptx.splitlines()[:12]))
print(f"shared memory: {gpu.shared_memory_bytes} bytes, workspace: {gpu.workspace_bytes} bytes")
assert gpu.workspace_bytes > 0

a = np.random.default_rng(0).standard_normal((M, K)).astype(np.float32)
b = np.random.default_rng(1).standard_normal((K, N)).astype(np.float32)
c = gpu.run(a, b)  # the same kernel, on ext's CPU emulator
np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
print("gemm matches numpy")
