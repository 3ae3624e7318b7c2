// RUN: ext-opt %s --split-input-file --ext-schedule-to-gpu 2>/dev/null | FileCheck %s

// A whole output tile at its origin (the tile divides the output, and the
// origin is a multiple of the tile) is stored with vectors: the tensor
// cores' accumulator pairs as 8-byte stores, a blocked layout's runs of 4
// as 16-byte ones. A ragged output keeps scalar stores under their bounds.
// CHECK-LABEL: func @mma_epilogue
// CHECK:         gpu.launch
// CHECK-COUNT-16: vector.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : memref<64x64xf32, strided<[256, 1], offset: ?>>, vector<2xf32>
// CHECK-NOT:     memref.store %{{.*}} : memref<64x64xf32, strided<[256, 1], offset: ?>>
// CHECK:         gpu.terminator
func.func @mma_epilogue(%A: memref<256x64xf16>, %B: memref<64x256xf16>, %C: memref<256x256xf32>) {
  ext.compute [#ext.axis<"i", spatial, 256>, #ext.axis<"j", spatial, 256>, #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<256x64xf16>, memref<64x256xf16>) outs(%C : memref<256x256xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"],
        threads = [4, 32, 1], mma = #ext.mma<m16n8k16>, warps = [2, 2], vector = 8, stages = 2,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}

// -----

// CHECK-LABEL: func @blocked_epilogue
// CHECK:         gpu.launch
// CHECK-COUNT-16: vector.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : memref<128x128xf32, strided<[512, 1], offset: ?>>, vector<4xf32>
// CHECK:         gpu.terminator
func.func @blocked_epilogue(%A: memref<512x64xf32>, %B: memref<64x512xf32>, %C: memref<512x512xf32>) {
  ext.compute [#ext.axis<"i", spatial, 512>, #ext.axis<"j", spatial, 512>, #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<512x64xf32>, memref<64x512xf32>) outs(%C : memref<512x512xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [128, 128, 8], blocks = ["i", "j"],
        threads = [16, 16, 1], layout = #ext.blocked<thread_tile = [4, 4]>, vector = 4, stages = 2,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// CHECK-LABEL: func @ragged_epilogue
// CHECK:         gpu.launch
// CHECK-NOT:     vector.store {{.*}} : memref<64x64xf32, strided<[250, 1], offset: ?>>
// CHECK:         memref.store %{{.*}} : memref<64x64xf32, strided<[250, 1], offset: ?>>
// CHECK:         gpu.terminator
func.func @ragged_epilogue(%A: memref<250x64xf16>, %B: memref<64x250xf16>, %C: memref<250x250xf32>) {
  ext.compute [#ext.axis<"i", spatial, 250>, #ext.axis<"j", spatial, 250>, #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<250x64xf16>, memref<64x250xf16>) outs(%C : memref<250x250xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"],
        threads = [4, 32, 1], mma = #ext.mma<m16n8k16>, warps = [2, 2], vector = 8, stages = 2,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}
