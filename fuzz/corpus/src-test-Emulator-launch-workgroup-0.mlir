// gpu.launch with a workgroup attribution: each thread stores its id in
// workgroup memory and, after a barrier, reads its neighbour's; block ids
// offset the result.

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %out = memref.alloc() : memref<2x8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1)
             workgroup(%sh : memref<8xf32, #gpu.address_space<workgroup>>) {
    %t = arith.index_cast %tx : index to i32
    %f = arith.sitofp %t : i32 to f32
    memref.store %f, %sh[%tx] : memref<8xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %c1i = arith.constant 1 : index
    %n = arith.addi %tx, %c1i : index
    %c8i = arith.constant 8 : index
    %m = arith.remui %n, %c8i : index
    %v = memref.load %sh[%m] : memref<8xf32, #gpu.address_space<workgroup>>
    %b = arith.index_cast %bx : index to i32
    %bf = arith.sitofp %b : i32 to f32
    %c100 = arith.constant 100.0 : f32
    %bb = arith.mulf %bf, %c100 : f32
    %r = arith.addf %v, %bb : f32
    memref.store %r, %out[%bx, %tx] : memref<2x8xf32>
    gpu.terminator
  }
  %u = memref.cast %out : memref<2x8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
