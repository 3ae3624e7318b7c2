"""What a Kernel reports about itself matches its code."""

import re

import ext


def test_shared_memory_of_a_lone_reduction_scratch():
    """A reduction on threads combines across warps through shared memory:
    the kernel's one buffer counts (it said 0 when there was nothing to
    pack)."""
    X = ext.placeholder((16, 100), "float32", name="X")
    k = ext.reduce_axis(100, name="k")
    r = ext.compute((16,), lambda i: ext.max(X[i, k], axis=k), name="r")
    s = ext.schedule(r, tile=(1, 100), threads=(1, 64))
    kernel = ext.build(s, "nvvm", chip="sm_80")
    declared = sum(int(n) for n in re.findall(r"\.shared \.align \d+ \.b8 \w+\[(\d+)\]",
                                              kernel.ptx))
    assert declared == 8
    assert kernel.shared_memory_bytes == declared
    assert "shared memory @kernel launch #1: 8 bytes" in kernel.report()


def test_binaries_are_bytes_and_ptx_is_text():
    X = ext.placeholder((8,), "float32", name="X")
    y = ext.compute((8,), lambda i: X[i] + 1.0, name="y")
    kernel = ext.build(ext.schedule(y), "nvvm", chip="sm_80")
    (data,) = kernel.binaries.values()
    assert isinstance(data, bytes) and isinstance(kernel.ptx, str)
    assert data.decode() == kernel.ptx
