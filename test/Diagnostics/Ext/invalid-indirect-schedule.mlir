// RUN: ext-opt %s --split-input-file --ext-apply-schedule --verify-diagnostics

// Scheduled kernels do not read through a table yet: a scheduled compute
// that reads an input indirectly, or one that fuses a compute that does, is
// refused by name (never tiled as if the entry were 0).

func.func @scheduled(%Kc: memref<4x2x3xf32>, %T: memref<2x2xi32>, %S: memref<2x4xf32>) {
  // expected-error @+1 {{'ext.compute' op schedule: reads input #0 at an entry of input #1 (`indirect`), which a scheduled kernel cannot read yet; leave the compute unscheduled (it runs as loops)}}
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"j", spatial, 4>, #ext.axis<"c", reduce, 3>]
      ins(%Kc, %T : memref<4x2x3xf32>, memref<2x2xi32>) outs(%S : memref<2x4xf32>)
      maps [affine_map<(b, j, c)[s0] -> (s0, j mod 2, c)>,
            affine_map<(b, j, c) -> (b, j floordiv 2)>, affine_map<(b, j, c) -> (b, j)>]
      indirect [#ext.indirect<input = 0, symbol = 0, table = 1>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [1, 4, 3], blocks = ["b"], threads = [1, 4, 1]>} {
  ^bb0(%k: f32, %t: i32):
    ext.yield %k : f32
  }
  return
}

// -----

func.func @fused(%Kc: memref<4x2x3xf32>, %T: memref<2x2xi32>, %G: memref<2x4x3xf32>,
                 %S: memref<2x4xf32>) {
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"j", spatial, 4>, #ext.axis<"c", spatial, 3>]
      ins(%Kc, %T : memref<4x2x3xf32>, memref<2x2xi32>) outs(%G : memref<2x4x3xf32>)
      maps [affine_map<(b, j, c)[s0] -> (s0, j mod 2, c)>,
            affine_map<(b, j, c) -> (b, j floordiv 2)>, affine_map<(b, j, c) -> (b, j, c)>]
      indirect [#ext.indirect<input = 0, symbol = 0, table = 1>] attributes {name = "gather"} {
  ^bb0(%k: f32, %t: i32):
    ext.yield %k : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: fused compute 'gather' reads input #0 at an entry of input #1 (`indirect`), which a scheduled kernel cannot read yet}}
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"j", spatial, 4>, #ext.axis<"c", reduce, 3>]
      ins(%G : memref<2x4x3xf32>) outs(%S : memref<2x4xf32>)
      maps [affine_map<(b, j, c) -> (b, j, c)>, affine_map<(b, j, c) -> (b, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [1, 4, 3], blocks = ["b"], threads = [1, 4, 1],
                                                         compute_inline = ["gather"]>} {
  ^bb0(%g: f32):
    ext.yield %g : f32
  }
  return
}
