// Issue 59: a transform script whose entry is not @__transform_main: it was
// skipped without a word, and ext-run then failed with "'transform.yield'
// was not lowered to the LLVM dialect".
func.func @copy(%X: memref<64xf32>, %Y: memref<64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>] ins(%X : memref<64xf32>) outs(%Y : memref<64xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {name = "Y"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @main(%root: !transform.any_op) {
    %c = transform.ext.match_computes "Y" in %root : (!transform.any_op) -> !transform.any_op
    transform.ext.update_schedule %c with {tile = [32], threads = [32], blocks = ["i"]} : !transform.any_op
    transform.yield
  }
}
