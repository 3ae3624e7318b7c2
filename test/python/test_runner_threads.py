"""The emulator's options and errors belong to the call that set them: two
Python threads running the same kernel built for a 64-lane AMD chip and a
32-lane NVIDIA chip at the same time each see their own warp size, and a
third thread's failing launches do not leak into theirs
(ext/Runner/Executable.h, __ext_emu_set_launch_options)."""

import threading

import numpy as np
import pytest

import ext

LANES = """
func.func @lanes(%out: memref<4x128xi32>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %r0 = arith.constant 0 : index
    %r1 = arith.constant 1 : index
    %r2 = arith.constant 2 : index
    %r3 = arith.constant 3 : index
    %lane = gpu.lane_id
    %size = gpu.subgroup_size : index
    %lane32 = arith.index_cast %lane : index to i32
    %size32 = arith.index_cast %size : index to i32
    %sum = gpu.subgroup_reduce add %lane32 : (i32) -> i32
    %off = arith.constant 32 : i32
    %x, %ok = gpu.shuffle xor %lane32, %off, %size32 : i32
    memref.store %lane32, %out[%r0, %tx] : memref<4x128xi32>
    memref.store %size32, %out[%r1, %tx] : memref<4x128xi32>
    memref.store %sum, %out[%r2, %tx] : memref<4x128xi32>
    memref.store %x, %out[%r3, %tx] : memref<4x128xi32>
    gpu.terminator
  }
  return
}

func.func @bad(%out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %first = arith.cmpi ne, %tx, %c0 : index
    cf.assert %first, "thread 0 may not get here"
    gpu.terminator
  }
  return
}
"""


def expected(warp):
    lane = np.arange(128, dtype=np.int32) % warp
    return np.stack([lane,
                     np.full(128, warp, np.int32),
                     np.full(128, warp * (warp - 1) // 2, np.int32),
                     lane ^ 32 if warp == 64 else lane])


def test_options_and_errors_are_per_thread():
    module = ext.Module.parse(LANES)
    wave64 = module.executable("lanes", "cpu", 2, "gfx942")
    warp32 = module.executable("lanes", "cpu", 2, "sm_80")
    bad = module.executable("bad", "cpu", 2, "")
    rounds = 40
    start = threading.Barrier(3)
    failures = []

    def run_lanes(executable, warp):
        want = expected(warp)
        start.wait()
        for i in range(rounds):
            out = np.full((4, 128), -1, np.int32)
            executable([out])
            if not np.array_equal(out, want):
                failures.append((warp, i, out))
                return

    def run_bad():
        start.wait()
        for _ in range(rounds):
            with pytest.raises(RuntimeError, match="assertion failed at .*: thread 0 may not get here"):
                bad([np.zeros(16, np.float32)])

    def reporting(body, *args):
        # A thread's exception would only be printed: record it.
        def run():
            try:
                body(*args)
            except BaseException as e:  # noqa: B902
                failures.append(e)
        return threading.Thread(target=run)

    threads = [reporting(run_lanes, wave64, 64), reporting(run_lanes, warp32, 32),
               reporting(run_bad)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures[0]
    # And on this thread afterwards: nothing was left set.
    for executable, warp in ((warp32, 32), (wave64, 64)):
        out = np.zeros((4, 128), np.int32)
        executable([out])
        np.testing.assert_array_equal(out, expected(warp))
