// Y[r] += sum_c X[r, c] for an 8x64 X: one block of 64 threads per row,
// a butterfly gpu.shuffle reduction per 32-lane warp, the two warp partials
// through workgroup memory, and thread 0 adding the row's sum with an atomic.
func.func @row_sum(%X: memref<8x64xf32>, %Y: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %w32 = arith.constant 32 : i32
    %partials = memref.alloc() : memref<2xf32, #gpu.address_space<workgroup>>
    %v = memref.load %X[%bx, %tx] : memref<8x64xf32>
    %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %v) -> (f32) {
      // offsets 16, 8, 4, 2, 1 (i < 5), then the loop idles.
      %c5 = arith.constant 5 : index
      %live = arith.cmpi ult, %i, %c5 : index
      %r = scf.if %live -> (f32) {
        %i32 = arith.index_cast %i : index to i32
        %c16 = arith.constant 16 : i32
        %off = arith.shrui %c16, %i32 : i32
        %o, %valid = gpu.shuffle xor %acc, %off, %w32 : f32
        %sum = arith.addf %acc, %o : f32
        scf.yield %sum : f32
      } else {
        scf.yield %acc : f32
      }
      scf.yield %r : f32
    }
    %lane = arith.remui %tx, %c32 : index
    %warp = arith.divui %tx, %c32 : index
    %first = arith.cmpi eq, %lane, %c0 : index
    scf.if %first {
      memref.store %s, %partials[%warp] : memref<2xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %leader = arith.cmpi eq, %tx, %c0 : index
    scf.if %leader {
      %p0 = memref.load %partials[%c0] : memref<2xf32, #gpu.address_space<workgroup>>
      %p1 = memref.load %partials[%c1] : memref<2xf32, #gpu.address_space<workgroup>>
      %row = arith.addf %p0, %p1 : f32
      %old = memref.atomic_rmw addf %row, %Y[%bx] : (f32, memref<8xf32>) -> f32
    }
    gpu.terminator
  }
  return
}
