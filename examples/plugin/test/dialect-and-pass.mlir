// The plugin's dialect and pass, loaded into the installed ext-opt. The pass
// uses ext's C++ API (ext::ComputeOp), which works because the plugin and the
// tool share libMLIR.so and libExtDialect.so.
// RUN: ext-opt %s --load-dialect-plugin=%plugin --load-pass-plugin=%plugin \
// RUN:   --pass-pipeline="builtin.module(ext-example-count-points)" | FileCheck %s
// The separated spelling of the options works the same. (As in mlir-opt, a
// plugin's pass is named in --pass-pipeline: its flag does not exist yet
// when the command line is parsed.)
// RUN: ext-opt %s --load-dialect-plugin %plugin --load-pass-plugin %plugin \
// RUN:   --pass-pipeline="builtin.module(ext-example-count-points)" | FileCheck %s

// Without the dialect plugin the example dialect is unknown.
// RUN: not ext-opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN
// NOPLUGIN: Dialect `ext_example' not found for custom op 'ext_example.note'

// CHECK-LABEL: func @rowsum
// CHECK: ext_example.note "from a plugin"
// CHECK: ext.compute
// CHECK-SAME: ext_example.points = 24 : i64
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
