// prod on f64, min and max on signed i64: identities 1, INT64_MAX, INT64_MIN.

memref.global "private" constant @X : memref<2x5xf64> = dense<[[-2.0, -3.0, -3.0, -3.0, 2.0], [3.0, -2.0, 2.0, -2.0, -1.0]]>
memref.global "private" constant @Z : memref<3x4xi64> = dense<[[198, 439, 749, -911], [-608, -439, -380, 996], [554, -360, 943, -2]]>
func.func private @printMemrefF64(memref<*xf64>) attributes {llvm.emit_c_interface}
func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}

func.func @main() {
  %X = memref.get_global @X : memref<2x5xf64>
  %Z = memref.get_global @Z : memref<3x4xi64>
  %P = memref.alloc() : memref<2xf64>
  %Mn = memref.alloc() : memref<3xi64>
  %Mx = memref.alloc() : memref<3xi64>
  ext.compute [#ext.axis<"i", spatial, 2>, #ext.axis<"k", reduce, 5>]
      ins(%X : memref<2x5xf64>) outs(%P : memref<2xf64>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(prod) {
  ^bb0(%x: f64):
    ext.yield %x : f64
  }
  ext.compute [#ext.axis<"i", spatial, 3>, #ext.axis<"k", reduce, 4>]
      ins(%Z : memref<3x4xi64>) outs(%Mn : memref<3xi64>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(min) {
  ^bb0(%z: i64):
    ext.yield %z : i64
  }
  ext.compute [#ext.axis<"i", spatial, 3>, #ext.axis<"k", reduce, 4>]
      ins(%Z : memref<3x4xi64>) outs(%Mx : memref<3xi64>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) {
  ^bb0(%z: i64):
    ext.yield %z : i64
  }
  %u_P = memref.cast %P : memref<2xf64> to memref<*xf64>
  call @printMemrefF64(%u_P) : (memref<*xf64>) -> ()
  %u_Mn = memref.cast %Mn : memref<3xi64> to memref<*xi64>
  call @printMemrefI64(%u_Mn) : (memref<*xi64>) -> ()
  %u_Mx = memref.cast %Mx : memref<3xi64> to memref<*xi64>
  call @printMemrefI64(%u_Mx) : (memref<*xi64>) -> ()
  return
}

// Mn:
// Mx:
