// argmax as a custom two-value reducer (TVM comm_reducer): (value, index), identity
// (-inf, -1); ties go to the smaller index so the reducer is commutative.

memref.global "private" constant @X : memref<3x8xf32> = dense<[[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0], [2.0, 7.0, 1.0, 8.0, 2.0, 8.0, 1.0, 8.0], [-5.0, -3.0, -3.0, -9.0, -4.0, -6.0, -3.0, -7.0]]>
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %X = memref.get_global @X : memref<3x8xf32>
  %V = memref.alloc() : memref<3xf32>
  %I = memref.alloc() : memref<3xi32>
  ext.compute [#ext.axis<"i", spatial, 3>, #ext.axis<"k", reduce, 8>]
      ins(%X : memref<3x8xf32>) outs(%V, %I : memref<3xf32>, memref<3xi32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0xFF800000 : f32, -1 : i32] {
  ^bb0(%x: f32):
    %k = ext.index "k" : index
    %ki = arith.index_cast %k : index to i32
    ext.yield %x, %ki : f32, i32
  } reducer {
  ^bb0(%av: f32, %ai: i32, %v: f32, %vi: i32):
    %gt = arith.cmpf ogt, %v, %av : f32
    %eq = arith.cmpf oeq, %v, %av : f32
    %lt = arith.cmpi ult, %vi, %ai : i32
    %tie = arith.andi %eq, %lt : i1
    %take = arith.ori %gt, %tie : i1
    %rv = arith.select %take, %v, %av : f32
    %ri = arith.select %take, %vi, %ai : i32
    ext.yield %rv, %ri : f32, i32
  }
  %u_V = memref.cast %V : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%u_V) : (memref<*xf32>) -> ()
  %u_I = memref.cast %I : memref<3xi32> to memref<*xi32>
  call @printMemrefI32(%u_I) : (memref<*xi32>) -> ()
  return
}
