func.func @tile_op_in_launch() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    // expected-error @+1 {{'ext.alloc_fragment' op is tile-level IR, which has no CPU lowering}}
    %f = ext.alloc_fragment threads [1] : memref<4xf32>
    gpu.terminator
  }
  return
}
