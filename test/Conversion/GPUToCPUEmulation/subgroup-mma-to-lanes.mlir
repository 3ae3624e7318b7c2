// RUN: ext-opt %s --ext-subgroup-mma-to-lanes | FileCheck %s
// A 16x16 fragment becomes the vector<4x2xT> a lane holds (mma.sync
// m16n8k16's layout), carried through scf.for; the compute is two mma.sync.

// CHECK-LABEL: func.func @k_loop
// CHECK: %[[INIT:.*]] = vector.broadcast %{{.*}} : f32 to vector<4x2xf32>
// CHECK: scf.for {{.*}} iter_args(%[[C:.*]] = %[[INIT]]) -> (vector<4x2xf32>)
// CHECK:   gpu.lane_id
// CHECK:   memref.reinterpret_cast
// CHECK-COUNT-8: memref.load
// CHECK:   nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK:   nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK:   scf.yield %{{.*}} : vector<4x2xf32>
// CHECK-COUNT-8: memref.store
// CHECK-NOT: gpu.subgroup_mma
func.func @k_loop(%A: memref<16x32xf16>, %B: memref<32x16xf16>, %D: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %init = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf32, "COp">
  %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%c = %init) -> (!gpu.mma_matrix<16x16xf32, "COp">) {
    %a = gpu.subgroup_mma_load_matrix %A[%c0, %k] {leadDimension = 32 : index} : memref<16x32xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %b = gpu.subgroup_mma_load_matrix %B[%k, %c0] {leadDimension = 16 : index} : memref<32x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
    %d = gpu.subgroup_mma_compute %a, %b, %c : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    scf.yield %d : !gpu.mma_matrix<16x16xf32, "COp">
  }
  gpu.subgroup_mma_store_matrix %acc, %D[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
  return
}
