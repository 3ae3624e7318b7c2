"""Inputs for the linalg tests' kernels and their references in numpy.

The examples check their kernels against the same linalg ops unscheduled,
which ext-from-linalg converts too: a conversion that got an op wrong would
get it wrong in both and still print a match. Here the kernel runs on .npy
inputs (ext-run --entry=F --inputs=... --save-outputs=DIR/out) and its
output is compared with numpy's, which never goes through ext.

    linalg-numpy.py inputs NAME DIR   writes DIR/*.npy
    linalg-numpy.py check NAME DIR    prints the comparison; exits 1 on a mismatch
"""
import os
import sys

import numpy as np


def inputs(name, d):
    rng = np.random.default_rng(0)
    if name == "matmul":
        # Small integers: every product and sum is exact in f32.
        np.save(os.path.join(d, "a.npy"), rng.integers(-8, 9, (200, 100)).astype(np.float32))
        np.save(os.path.join(d, "b.npy"), rng.integers(-8, 9, (100, 130)).astype(np.float32))
    elif name == "softmax":
        np.save(os.path.join(d, "x.npy"), rng.uniform(-4, 4, (37, 1000)).astype(np.float32))
    elif name == "bmm":
        np.save(os.path.join(d, "a.npy"), rng.integers(-8, 9, (3, 40, 50)).astype(np.float32))
        np.save(os.path.join(d, "b.npy"), rng.integers(-8, 9, (3, 50, 24)).astype(np.float32))
    elif name == "rowmax":
        np.save(os.path.join(d, "x.npy"), rng.uniform(-100, 100, (37, 300)).astype(np.float32))
    else:
        raise SystemExit(f"unknown kernel {name}")


def check(name, d):
    def output(n):
        path = os.path.join(d, "out", f"arg{n}.npy")
        return np.load(path) if os.path.exists(path) else None

    if name in ("matmul", "bmm"):
        a, b = np.load(os.path.join(d, "a.npy")), np.load(os.path.join(d, "b.npy"))
        y = output(2)
        ref, tol = np.matmul(a.astype(np.float64), b.astype(np.float64)), 0.0
    elif name == "softmax":
        x = np.load(os.path.join(d, "x.npy")).astype(np.float64)
        y = output(1)
        e = np.exp(x - x.max(axis=1, keepdims=True))
        ref = e / e.sum(axis=1, keepdims=True)
        tol = 1e-5  # relative: the values are near 1/1000
    elif name == "rowmax":
        x = np.load(os.path.join(d, "x.npy"))
        y = output(1)
        ref, tol = x.max(axis=1), 0.0
    else:
        raise SystemExit(f"unknown kernel {name}")
    if y is None:
        print(f"{name}: the run saved no output")
        return 1
    if y.shape != ref.shape:
        print(f"{name}: output shape {y.shape}, numpy's {ref.shape}")
        return 1
    diff = np.abs(y.astype(np.float64) - ref)
    err = float(np.max(diff if tol == 0 else diff / np.abs(ref)))
    if err == 0 or err < tol:
        bound = "exactly" if tol == 0 else f"max relative error {err:.2g} < {tol:g}"
        print(f"{name}: matches numpy ({bound})")
        return 0
    print(f"{name}: differs from numpy: max {'relative ' if tol else ''}error {err:.6g}"
          f" (tolerance {tol:g})")
    return 1


if __name__ == "__main__":
    what, name, d = sys.argv[1:4]
    sys.exit(inputs(name, d) if what == "inputs" else check(name, d))
