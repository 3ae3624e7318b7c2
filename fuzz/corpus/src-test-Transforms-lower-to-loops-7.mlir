// ext.index nested inside an scf.if of the body.
func.func @nested_index(%X: memref<8xi1>, %Y: memref<8xi64>) {
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xi1>) outs(%Y : memref<8xi64>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%p: i1):
    %r = scf.if %p -> i64 {
      %i = ext.index "i" : index
      %ii = arith.index_cast %i : index to i64
      scf.yield %ii : i64
    } else {
      %m = arith.constant -1 : i64
      scf.yield %m : i64
    }
    ext.yield %r : i64
  }
  return
}
