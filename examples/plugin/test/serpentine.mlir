// The plugin's tile decomposition in ext's schedule: it parses, prints,
// verifies, and ext-apply-schedule / ext-kernel-to-gpu lower it
// without knowing it (only TileDecompositionAttrInterface).
// RUN: ext-opt %s --load-dialect-plugin=%plugin | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: ext-opt %s --load-dialect-plugin=%plugin --ext-schedule-to-gpu | FileCheck %s --check-prefix=LOWER

// ROUNDTRIP-LABEL: func @gemm
// ROUNDTRIP: decomposition = #ext_example.serpentine<run = 3>

// Block b takes tile b, or in odd runs of 3 the mirrored one; the rest of
// the launch is ext's (one CTA per tile: 4 x 3 = 12 tiles of 16x16).
// LOWER-LABEL: func @gemm
// LOWER: gpu.launch blocks({{.*}}) in ({{.*}} = %c12{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}})
// LOWER: %[[B:.*]] = gpu.block_id x
// LOWER: %[[R:.*]] = arith.divui %[[B]], %[[STEP:.*]] : index
// LOWER: %[[START:.*]] = arith.muli %[[R]], %[[STEP]] : index
// LOWER: arith.minui
// LOWER: %[[MIRROR:.*]] = arith.subi %{{.*}}, %[[B]] : index
// LOWER: %[[ODD:.*]] = arith.cmpi ne
// LOWER: arith.select %[[ODD]], %[[MIRROR]], %[[B]] : index
func.func @gemm(%A: memref<64x32xf32>, %B: memref<32x48xf32>, %C: memref<64x48xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 48>,
               #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x48xf32>) outs(%C : memref<64x48xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 8], blocks = ["i", "j"], threads = [4, 4, 1],
        decomposition = #ext_example.serpentine<run = 3>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
