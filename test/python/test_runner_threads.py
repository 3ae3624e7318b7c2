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

func.func @mma(%out: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %a = arith.constant dense<1.0> : vector<4x2xf16>
    %b = arith.constant dense<1.0> : vector<2x2xf16>
    %c = arith.constant dense<0.5> : vector<2x2xf32>
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]}
      : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %e = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
    memref.store %e, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}
"""


def reporting(failures, body, *args):
    """A thread that records its exception (a thread's exception would only
    be printed)."""
    def run():
        try:
            body(*args)
        except BaseException as e:  # noqa: B902
            failures.append(e)
    return threading.Thread(target=run)


def run_all(threads):
    for t in threads:
        t.start()
    for t in threads:
        t.join()


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

    run_all([reporting(failures, run_lanes, wave64, 64),
             reporting(failures, run_lanes, warp32, 32),
             reporting(failures, run_bad)])
    assert not failures, failures[0]
    # And on this thread afterwards: nothing was left set.
    for executable, warp in ((warp32, 32), (wave64, 64)):
        out = np.zeros((4, 128), np.int32)
        executable([out])
        np.testing.assert_array_equal(out, expected(warp))


def test_four_threads_of_32_and_64_lane_kernels():
    """Issue 34: four threads, two per warp width, 100 runs each, all right;
    and right afterwards on the main thread."""
    module = ext.Module.parse(LANES)
    runs = [(module.executable("lanes", "cpu", 2, chip), warp)
            for chip, warp in (("gfx942", 64), ("sm_80", 32),
                               ("gfx90a", 64), ("sm_90", 32))]
    start = threading.Barrier(len(runs))
    failures, done = [], []

    def run_lanes(executable, warp):
        want = expected(warp)
        start.wait()
        for i in range(100):
            out = np.full((4, 128), -1, np.int32)
            executable([out])
            if not np.array_equal(out, want):
                failures.append((warp, i, out))
                return
        done.append(warp)

    run_all([reporting(failures, run_lanes, e, w) for e, w in runs])
    assert not failures, failures[0]
    assert sorted(done) == [32, 32, 64, 64]
    for executable, warp in runs:
        out = np.zeros((4, 128), np.int32)
        executable([out])
        np.testing.assert_array_equal(out, expected(warp))


def test_failing_launches_raise_in_their_threads():
    """Two threads of failing launches: each of the 40 raises RuntimeError,
    and the interpreter and the runtime go on."""
    module = ext.Module.parse(LANES)
    bad = module.executable("bad", "cpu", 2, "")
    start = threading.Barrier(2)
    raised, failures = [], []

    def run_bad():
        start.wait()
        for _ in range(20):
            try:
                bad([np.zeros(16, np.float32)])
            except RuntimeError as e:
                if "thread 0 may not get here" in str(e):
                    raised.append(e)

    run_all([reporting(failures, run_bad) for _ in range(2)])
    assert not failures, failures[0]
    assert len(raised) == 40
    good = module.executable("lanes", "cpu", 2, "sm_80")
    out = np.zeros((4, 128), np.int32)
    good([out])
    np.testing.assert_array_equal(out, expected(32))


def test_matrix_instruction_on_the_wrong_lane_count_raises():
    """mma.sync is a 32-lane instruction: on a 64-lane wave the launch fails
    with RuntimeError (the runtime used to end the process), and a 32-lane
    run afterwards is right."""
    module = ext.Module.parse(LANES)
    wave64 = module.executable("mma", "cpu", 2, "gfx942")
    for _ in range(3):
        with pytest.raises(RuntimeError, match="needs a warp of 32 lanes; "
                           "this launch has 64"):
            wave64([np.zeros(32, np.float32)])
    out = np.zeros(32, np.float32)
    module.executable("mma", "cpu", 2, "sm_80")([out])
    np.testing.assert_array_equal(out, np.full(32, 16.5, np.float32))


FAIL_AFTER_BARRIER = """
func.func @bad(%out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1024, %sy = %c1, %sz = %c1) {
    gpu.barrier
    %c0 = arith.constant 0 : index
    %first = arith.cmpi ne, %tx, %c0 : index
    cf.assert %first, "thread 0 may not get here"
    gpu.barrier
    gpu.terminator
  }
  return
}
"""


def test_failed_launches_give_their_stacks_back():
    """A failed launch abandons 1,023 threads suspended mid-kernel; their
    stacks go back to the pool. They used to be leaked, each an mmap, so
    about 64 such launches exhausted the process's map count
    (std::bad_alloc)."""
    bad = ext.Module.parse(FAIL_AFTER_BARRIER).executable("bad", "cpu", 2, "")
    for _ in range(100):
        with pytest.raises(RuntimeError, match="thread 0 may not get here"):
            bad([np.zeros(16, np.float32)])
