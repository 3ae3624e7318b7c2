// Threads of a warp split between a warp collective and a block barrier can
// never meet: the emulator reports where each waits and exits non-zero.
// A spin-wait that nothing satisfies is reported after a bounded number of
// yields (EXT_EMU_SPIN_LIMIT) rather than hanging.

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
