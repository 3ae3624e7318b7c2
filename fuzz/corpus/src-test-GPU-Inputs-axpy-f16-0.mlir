// y = a * x + y in f16 over 256 elements, with the sum of squares of the
// new y accumulated in f32 per block (f16 loads/stores, extf, truncf).
func.func @axpy_f16(%a: f16, %x: memref<256xf16>, %y: memref<256xf16>, %norm: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %c64 : index
    %i = arith.addi %base, %tx : index
    %xv = memref.load %x[%i] : memref<256xf16>
    %yv = memref.load %y[%i] : memref<256xf16>
    %ax = arith.mulf %a, %xv : f16
    %r = arith.addf %ax, %yv : f16
    memref.store %r, %y[%i] : memref<256xf16>
    %r32 = arith.extf %r : f16 to f32
    %sq = arith.mulf %r32, %r32 : f32
    %old = memref.atomic_rmw addf %sq, %norm[%bx] : (f32, memref<4xf32>) -> f32
    gpu.terminator
  }
  return
}
