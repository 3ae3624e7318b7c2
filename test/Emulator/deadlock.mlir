// Threads of a warp split between a warp collective and a block barrier can
// never meet: the emulator reports where each waits and exits non-zero.
// RUN: not ext-run %s 2>&1 | FileCheck %s
// A spin-wait that nothing satisfies is reported after a bounded number of
// yields (EXT_EMU_SPIN_LIMIT) rather than hanging.
// RUN: env EXT_EMU_SPIN_LIMIT=5000 not ext-run --entry=spin %s 2>&1 | FileCheck %s --check-prefix=SPIN

func.func @main() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %low = arith.cmpi ult, %tx, %c16 : index
    scf.if %low {
      %v = arith.constant 1.0 : f32
      %r = gpu.subgroup_reduce add %v : (f32) -> f32
    } else {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// CHECK: ext-emu: error: kernel 'main_kernel' (launched at {{.*}}deadlock.mlir:12:3): deadlock: no thread can continue; in block (0, 0, 0): 16 threads wait at the gpu.barrier at {{.*}}deadlock.mlir:19:7, 16 threads wait at the warp collective at {{.*}}deadlock.mlir:17:12

func.func @spin() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %flag = memref.alloc() : memref<1xi32>
  %zero = arith.constant 0 : i32
  memref.store %zero, %flag[%c0] : memref<1xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0 : i32
    %c0i = arith.constant 0 : index
    scf.while : () -> () {
      %cur = memref.atomic_rmw addi %z, %flag[%c0i] : (i32, memref<1xi32>) -> i32
      %unset = arith.cmpi eq, %cur, %z : i32
      scf.condition(%unset)
    } do {
      scf.yield
    }
    gpu.terminator
  }
  return
}

// SPIN: ext-emu: error: kernel 'spin_kernel' {{.*}}: no progress after 5000 consecutive yields at atomics and fences (last at {{.*}}deadlock.mlir:{{[0-9]+}}:14 in thread (0, 0, 0) of block ({{[01]}}, 0, 0)): a spin-wait that is never satisfied? 2 of 2 blocks are resident
