"""Reads ext-run's printMemrefF32 output of examples/kernels/matmul.mlir on
stdin, recomputes the product with numpy from the same index formulas, and
prints a short report. Exits non-zero when the numbers differ."""

import re
import sys

import numpy as np

text = sys.stdin.read()
header = re.search(r"sizes = \[(\d+), (\d+)\]", text)
if not header:
    sys.exit("no memref in ext-run's output")
m, n = int(header.group(1)), int(header.group(2))
data = text[text.index("data =") + len("data ="):]
values = np.array([float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", data)])
got = values.reshape(m, n)

K = 64
i, k = np.meshgrid(np.arange(m), np.arange(K), indexing="ij")
A = ((3 * i + 5 * k) % 11 - 5).astype(np.float32)
k2, j = np.meshgrid(np.arange(K), np.arange(n), indexing="ij")
B = ((7 * k2 + 2 * j) % 13 - 6).astype(np.float32)
ref = A @ B

err = float(np.abs(got - ref).max())
print(f"kernel:     C[{m}x{n}] = A[{m}x{K}] B[{K}x{n}], f32, k a reduce axis")
print(f"path:       ext.compute -> ext-compute-to-loops -> ext-cpu-pipeline -> ExecutionEngine")
print(f"checksum:   sum(C) = {got.sum():.0f}, C[0,0] = {got[0,0]:.0f}, C[{m-1},{n-1}] = {got[-1,-1]:.0f}")
print(f"reference:  numpy, max |C - ref| = {err:g} -> {'MATCH' if err == 0 else 'MISMATCH'}")
sys.exit(0 if err == 0 else 1)
