// RUN: ext-opt %s --pass-pipeline="builtin.module(gpu.module(ext-gpu-lower-bf16-mma-sync))" | FileCheck %s

// bf16 mma.sync becomes nvvm.mma.sync on i32 registers (two bf16 each) and
// scalar f32 accumulators; f16 is left to convert-nvgpu-to-nvvm.
// CHECK-LABEL: gpu.func @bf16
// CHECK-COUNT-6: vector.bitcast {{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: vector.from_elements {{.*}} : vector<2x2xf32>
// CHECK-NOT: nvgpu.mma.sync
// CHECK-LABEL: gpu.func @f16
// CHECK: nvgpu.mma.sync
gpu.module @m {
  gpu.func @bf16(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>, %out: memref<2x2xf32>) kernel {
    %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %c0 = arith.constant 0 : index
    vector.store %d, %out[%c0, %c0] : memref<2x2xf32>, vector<2x2xf32>
    gpu.return
  }
  gpu.func @f16(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>, %out: memref<2x2xf32>) kernel {
    %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %c0 = arith.constant 0 : index
    vector.store %d, %out[%c0, %c0] : memref<2x2xf32>, vector<2x2xf32>
    gpu.return
  }
}
