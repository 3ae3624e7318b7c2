"""What several Python test files share: a TE matmul, the line of a
marker in the calling test file (for messages that name the user's line),
and ptxas run on a kernel's PTX."""

import inspect
import os
import shutil
import subprocess

import pytest

import ext

PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
needs_ptxas = pytest.mark.skipif(not os.path.exists(PTXAS), reason="needs ptxas")


def ptxas_verbose(ptx, chip, tmp_path, name="kernel"):
    """`ptxas -v -arch=chip` on `ptx` (written under tmp_path): the finished
    process, whose stderr holds the registers, spills and warnings."""
    path = tmp_path / f"{name}.ptx"
    path.write_text(ptx)
    return subprocess.run([PTXAS, f"-arch={chip}", "-v", str(path), "-o", "/dev/null"],
                          capture_output=True, text=True)


def matmul_te(m, n, k, dtype="float32", acc=None, b_transposed=False):
    """C = A B, or A B^T with B given [n][k] when `b_transposed`."""
    A = ext.placeholder((m, k), dtype, name="A")
    B = ext.placeholder((n, k) if b_transposed else (k, n), dtype, name="B")
    r = ext.reduce_axis(k, name="k")
    b_at = (lambda j: B[j, r]) if b_transposed else (lambda j: B[r, j])
    if acc is None:
        C = ext.compute((m, n), lambda i, j: ext.sum(A[i, r] * b_at(j), axis=r), name="C")
    else:
        C = ext.compute((m, n), lambda i, j: ext.sum(A[i, r].astype(acc) * b_at(j).astype(acc),
                                                     axis=r), name="C")
    return A, B, C


def line_of(marker):
    """The first line of the calling file that holds `marker` (other than a
    line_of call)."""
    path = inspect.stack()[1].filename
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if marker in line and "line_of(" not in line:
                return n
    raise AssertionError(marker)
