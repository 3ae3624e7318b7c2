// A third party's dialect and pass, loaded into ext-opt at run time. The pass
// uses ext's C++ API (ext::ComputeOp), which works because the plugin and the
// tool share libMLIR.so and libExtDialect.so.

// Without the dialect plugin the example dialect is unknown.

func.func @rowsum(%X: memref<4x6xf32>, %Y: memref<4xf32>) {
  ext_example.note "from a plugin"
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 6>]
      ins(%X : memref<4x6xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(sum) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
