func.func @body_arg_type(%X: memref<4xf32>, %Y: memref<4xf32>) {
  // expected-error @+1 {{body argument #0 has type 'f64' but input #0 has element type 'f32'}}
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%X : memref<4xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f64):
    %t = arith.truncf %x : f64 to f32
    ext.yield %t : f32
  }
  return
}
