// Row max and row sum of a 3x6 matrix: the two reductions of a softmax.

memref.global "private" constant @X : memref<3x6xf32> = dense<[[-5.0, 3.0, 3.0, -7.0, 6.0, -6.0], [6.0, -9.0, 6.0, 5.0, 5.0, 3.0], [-1.0, 4.0, -4.0, 5.0, 1.0, -1.0]]>
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %X = memref.get_global @X : memref<3x6xf32>
  %M = memref.alloc() : memref<3xf32>
  %S = memref.alloc() : memref<3xf32>
  ext.compute [#ext.axis<"i", spatial, 3>, #ext.axis<"k", reduce, 6>]
      ins(%X : memref<3x6xf32>) outs(%M : memref<3xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  ext.compute [#ext.axis<"i", spatial, 3>, #ext.axis<"k", reduce, 6>]
      ins(%X : memref<3x6xf32>) outs(%S : memref<3xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(sum) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  %u_M = memref.cast %M : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%u_M) : (memref<*xf32>) -> ()
  %u_S = memref.cast %S : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%u_S) : (memref<*xf32>) -> ()
  return
}
