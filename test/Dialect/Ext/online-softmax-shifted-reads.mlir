// RUN: ext-opt --ext-apply-schedule %s | FileCheck %s
// RUN: ext-opt --ext-apply-schedule %s --ext-schedule-to-gpu -o /dev/null
// Attention reading its heads out of one packed (b, t, 3 * h * d) tensor at
// an offset per tile (issue 55: the ONNX and torch importers' scaled
// dot-product attention over a packed QKV projection, as GPT-2 writes it):
// Q at d + h * 16, K at d + h * 16 + 32, V at e + h * 16 + 64. The online
// softmax copies each head's window: a subview of the packed rows from the
// head's offset (fixed per tile: the head is a block axis), 16 wide, so a
// head padded to the lanes' 32 reads zeros past its end, not the next head.
// test_onnx_patterns.py runs it (f32 and f16 on mma.sync) against numpy.
//
// CHECK-DAG: #[[QOFF:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1 * 16)>
// CHECK-DAG: #[[VOFF:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1 * 16 + 64)>
// CHECK-DAG: #[[KOFF:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1 * 16 + 32)>
// CHECK-LABEL: func.func @g(
// CHECK: %[[Q:.*]] = affine.apply #[[QOFF]](
// CHECK: memref.subview %arg0[%{{.*}}, 0, %[[Q]]] [1, 12, 16] [1, 1, 1] : memref<1x12x96xf32> to memref<12x16xf32, strided<[96, 1], offset: ?>>
// CHECK: scf.for
// CHECK: %[[V:.*]] = affine.apply #[[VOFF]](
// CHECK: memref.subview %arg0[%{{.*}}, 0, %[[V]]] [1, 12, 16]
// CHECK: %[[K:.*]] = affine.apply #[[KOFF]](
// CHECK: memref.subview %arg0[%{{.*}}, 0, %[[K]]] [1, 12, 16]
#map = affine_map<(d0, d1, d2, d3, d4) -> (0, d2, d4 + d1 * 16)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (0, d3, d4 + d1 * 16 + 32)>
#map2 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#map6 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
#map7 = affine_map<(d0, d1, d2, d3, d4) -> (0, d4, d3 + d1 * 16 + 64)>
module {
  func.func @g(%arg0: memref<1x12x96xf32>, %arg1: memref<1x2x12x16xf32>) {
    %alloc = memref.alloc() : memref<1x2x12x12xf32>
    %alloc_0 = memref.alloc() : memref<1x2x12x12xf32>
    %alloc_1 = memref.alloc() : memref<1x2x12xf32>
    %alloc_2 = memref.alloc() : memref<1x2x12x16xf32>
    %alloc_3 = memref.alloc() : memref<1x2x12xf32>
    ext.compute [#ext.axis<"i0", spatial, 1>, #ext.axis<"i1", spatial, 2>, #ext.axis<"i2", spatial, 12>, #ext.axis<"i3", spatial, 12>, #ext.axis<"d", reduce, 16>] ins(%arg0, %arg0 : memref<1x12x96xf32>, memref<1x12x96xf32>) outs(%alloc : memref<1x2x12x12xf32>) maps [#map, #map1, #map2] combiner(sum) attributes {name = "attend_scores"} {
    ^bb0(%arg2: f32, %arg3: f32):
      %0 = arith.mulf %arg2, %arg3 : f32
      ext.yield %0 : f32
    }
    ext.compute [#ext.axis<"i0", spatial, 1>, #ext.axis<"i1", spatial, 2>, #ext.axis<"i2", spatial, 12>, #ext.axis<"i3", spatial, 12>] ins(%alloc : memref<1x2x12x12xf32>) outs(%alloc_0 : memref<1x2x12x12xf32>) maps [#map3, #map3] attributes {name = "attend_scaled"} {
    ^bb0(%arg2: f32):
      %cst = arith.constant 0.360673755 : f32
      %0 = arith.mulf %arg2, %cst : f32
      ext.yield %0 : f32
    }
    ext.compute [#ext.axis<"i0", spatial, 1>, #ext.axis<"i1", spatial, 2>, #ext.axis<"i2", spatial, 12>, #ext.axis<"j1", reduce, 12>] ins(%alloc_0 : memref<1x2x12x12xf32>) outs(%alloc_1 : memref<1x2x12xf32>) maps [#map3, #map4] combiner(max) attributes {name = "attend_row_max"} {
    ^bb0(%arg2: f32):
      ext.yield %arg2 : f32
    }
    ext.compute [#ext.axis<"i0", spatial, 1>, #ext.axis<"i1", spatial, 2>, #ext.axis<"i2", spatial, 12>, #ext.axis<"i3", spatial, 16>, #ext.axis<"j3", reduce, 12>] ins(%alloc_0, %alloc_1, %arg0 : memref<1x2x12x12xf32>, memref<1x2x12xf32>, memref<1x12x96xf32>) outs(%alloc_2 : memref<1x2x12x16xf32>) maps [#map5, #map6, #map7, #map2] combiner(sum) attributes {name = "attend_acc", schedule = #ext.schedule<tile = [1, 1, 64, 32, 32], blocks = ["i0", "i1", "i2"], threads = [1, 1, 4, 32, 1], vector = 4, compute_at = [#ext.at<"attend_scores", "j3">], reverse_compute_at = [#ext.at<"attend", "i3">], compute_inline = ["attend_scaled"], online = ["attend_row_max", "attend_row_sum"]>} {
    ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
      %0 = arith.subf %arg2, %arg3 : f32
      %1 = math.exp2 %0 : f32
      %2 = arith.mulf %1, %arg4 : f32
      ext.yield %2 : f32
    }
    ext.compute [#ext.axis<"i0", spatial, 1>, #ext.axis<"i1", spatial, 2>, #ext.axis<"i2", spatial, 12>, #ext.axis<"j2", reduce, 12>] ins(%alloc_0, %alloc_1 : memref<1x2x12x12xf32>, memref<1x2x12xf32>) outs(%alloc_3 : memref<1x2x12xf32>) maps [#map3, #map4, #map4] combiner(sum) attributes {name = "attend_row_sum"} {
    ^bb0(%arg2: f32, %arg3: f32):
      %0 = arith.subf %arg2, %arg3 : f32
      %1 = math.exp2 %0 : f32
      ext.yield %1 : f32
    }
    ext.compute [#ext.axis<"i0", spatial, 1>, #ext.axis<"i1", spatial, 2>, #ext.axis<"i2", spatial, 12>, #ext.axis<"i3", spatial, 16>] ins(%alloc_2, %alloc_3 : memref<1x2x12x16xf32>, memref<1x2x12xf32>) outs(%arg1 : memref<1x2x12x16xf32>) maps [#map3, #map4, #map3] attributes {name = "attend"} {
    ^bb0(%arg2: f32, %arg3: f32):
      %0 = arith.divf %arg2, %arg3 : f32
      ext.yield %0 : f32
    }
    memref.dealloc %alloc : memref<1x2x12x12xf32>
    memref.dealloc %alloc_0 : memref<1x2x12x12xf32>
    memref.dealloc %alloc_1 : memref<1x2x12xf32>
    memref.dealloc %alloc_2 : memref<1x2x12x16xf32>
    memref.dealloc %alloc_3 : memref<1x2x12xf32>
    return
  }
}

