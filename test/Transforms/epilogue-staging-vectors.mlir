// RUN: ext-opt %s --split-input-file --ext-apply-schedule --ext-kernel-to-gpu --ext-tile-ops-to-threads 2>/dev/null | FileCheck %s
// The epilogue writes a staged output tile (#ext.cache on the output) from
// the fragments: with a blocked layout each thread's 4 consecutive points of
// a row go as one 16-byte vector store (4 rows of 4 per thread here), so
// the lanes' stores do not conflict in the banks; a cyclic layout has no
// consecutive points and stores element by element.

// CHECK-LABEL: func @blocked
// CHECK:         gpu.launch
// CHECK-COUNT-4:   vector.store %{{.*}} : memref<64x64xf32, strided<[64, 1]>, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NOT:       vector.store %{{.*}} : memref<64x64xf32, strided<[64, 1]>, #gpu.address_space<workgroup>>
// CHECK:           gpu.barrier
func.func @blocked(%A: memref<128x64xf32>, %B: memref<64x128xf32>, %C: memref<128x128xf32>) {
  ext.compute [#ext.axis<"i", spatial, 128>, #ext.axis<"j", spatial, 128>, #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<128x64xf32>, memref<64x128xf32>) outs(%C : memref<128x128xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 8], blocks = ["i", "j"], threads = [16, 16, 1],
        layout = #ext.blocked<thread_tile = [4, 4]>, cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>, #ext.cache<operand = 2>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// CHECK-LABEL: func @cyclic
// CHECK:         gpu.launch
// CHECK-NOT:       vector.store %{{.*}} : memref<64x64xf32, strided<[64, 1]>, #gpu.address_space<workgroup>>
// CHECK-COUNT-16:  memref.store %{{.*}} : memref<64x64xf32, strided<[64, 1]>, #gpu.address_space<workgroup>>
func.func @cyclic(%A: memref<128x64xf32>, %B: memref<64x128xf32>, %C: memref<128x128xf32>) {
  ext.compute [#ext.axis<"i", spatial, 128>, #ext.axis<"j", spatial, 128>, #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<128x64xf32>, memref<64x128xf32>) outs(%C : memref<128x128xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 8], blocks = ["i", "j"], threads = [16, 16, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>, #ext.cache<operand = 2>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
