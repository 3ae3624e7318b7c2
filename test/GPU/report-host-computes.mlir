// RUN: ext-opt %s --ext-gpu-report-host-computes --verify-diagnostics -o /dev/null

// A compute without a schedule runs as host loops, and says so; computes
// another compute's schedule fuses into its kernel (compute_at,
// compute_inline, reverse_compute_at) run on the GPU: no remark.
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @softmax_parts(%X: memref<8x64xf32>, %M: memref<8xf32>, %E: memref<8x64xf32>,
                         %S: memref<8xf32>, %Y: memref<8x64xf32>, %Z: memref<8x64xf32>,
                         %W: memref<8x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"k1", reduce, 64>] ins(%X : memref<8x64xf32>) outs(%M : memref<8xf32>) maps [#id, #row] combiner(max) attributes {name = "row_max"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"j", spatial, 64>] ins(%X, %M : memref<8x64xf32>, memref<8xf32>) outs(%E : memref<8x64xf32>) maps [#id, #row, #id] attributes {name = "e"} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    %v = math.exp %d : f32
    ext.yield %v : f32
  }
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"k2", reduce, 64>] ins(%E : memref<8x64xf32>) outs(%S : memref<8xf32>) maps [#id, #row] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"j", spatial, 64>] ins(%E, %S : memref<8x64xf32>, memref<8xf32>) outs(%Y : memref<8x64xf32>) maps [#id, #row, #id] attributes {name = "y", schedule = #ext.schedule<tile = [1, 64], blocks = ["i"], threads = [1, 64], compute_at = [#ext.at<"row_max", "i">, #ext.at<"row_sum", "i">], compute_inline = ["e"], reverse_compute_at = [#ext.at<"twice", "j">]>} {
  ^bb0(%e: f32, %s: f32):
    %v = arith.divf %e, %s : f32
    ext.yield %v : f32
  }
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"j", spatial, 64>] ins(%Y : memref<8x64xf32>) outs(%Z : memref<8x64xf32>) maps [#id, #id] attributes {name = "twice"} {
  ^bb0(%y: f32):
    %v = arith.addf %y, %y : f32
    ext.yield %v : f32
  }
  // expected-remark @below {{this ext.compute has no schedule: it becomes loops in the host code of @softmax_parts}}
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"j", spatial, 64>] ins(%Z : memref<8x64xf32>) outs(%W : memref<8x64xf32>) maps [#id, #id] attributes {name = "alone"} {
  ^bb0(%z: f32):
    ext.yield %z : f32
  }
  return
}
