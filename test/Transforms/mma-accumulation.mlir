// RUN: ext-opt %s --split-input-file --ext-apply-schedule --ext-kernel-to-gpu --ext-tile-ops-to-threads 2>/dev/null | FileCheck %s
// RUN: ext-opt %s --split-input-file --ext-apply-schedule --ext-kernel-to-gpu --ext-tile-ops-to-threads -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// m16n8k16 on a 64x64 tile over 2x2 warps: per 16-deep k step each warp
// loads 2 A fragments (ldmatrix.x4; A's K is innermost) and 4 B fragments
// (two n-tiles per ldmatrix.x4, transposed: B's K is outermost) and runs
// 2x4 mma.sync.
// The accumulators are read from the fragment before the k steps and
// written back after them.
// CHECK-LABEL: func @nv_f16
// CHECK:         gpu.launch
// CHECK:           scf.for
// CHECK-COUNT-32:    memref.load {{.*}} : memref<4x8xf32, #gpu.address_space<private>>
// CHECK-COUNT-2:     nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x32xf16, strided<[40, 1]>, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-COUNT-2:     nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true} : memref<32x64xf16, strided<[72, 1]>, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-COUNT-8:     nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-COUNT-4:     nvgpu.ldmatrix
// CHECK-NOT:         nvgpu.ldmatrix
// CHECK-COUNT-8:     nvgpu.mma.sync
// CHECK-NOT:         nvgpu.mma.sync
// CHECK-COUNT-32:    memref.store {{.*}} : memref<4x8xf32, #gpu.address_space<private>>
func.func @nv_f16(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"], threads = [4, 32, 1],
        mma = #ext.mma<m16n8k16>, warps = [2, 2],
        cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 64, offset = 40>]>,
                 #ext.cache<operand = 1, align = [#ext.storage_align<dim = 0, factor = 64, offset = 8>]>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}

// -----

// bf16, B given as [n][k] (K innermost: no transpose) and the product's
// factors in the other order: the lowering finds A by its M axis.
// CHECK-LABEL: func @nv_bf16_bt
// CHECK:           nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<32x16xbf16, {{.*}}> -> vector<4x2xbf16>
// CHECK:           nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<32x16xbf16, {{.*}}> -> vector<4x2xbf16>
// CHECK:           nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
func.func @nv_bf16_bt(%A: memref<64x48xbf16>, %Bt: memref<64x48xbf16>, %C: memref<64x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 48>]
      ins(%Bt, %A : memref<64x48xbf16>, memref<64x48xbf16>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [1, 32, 1],
        mma = #ext.mma<m16n8k16>, warps = [1, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%b: bf16, %a: bf16):
    %b32 = arith.extf %b : bf16 to f32
    %a32 = arith.extf %a : bf16 to f32
    %p = arith.mulf %b32, %a32 : f32
    ext.yield %p : f32
  }
  return
}

// -----

// tf32 (m16n8k8): operands read element by element by the lane layout
// (ldmatrix moves 16-bit elements), with a remark.
// CHECK-LABEL: func @nv_tf32
// CHECK-NOT:       nvgpu.ldmatrix
// CHECK:           vector.from_elements {{.*}} : vector<4x1xf32>
// CHECK:           vector.from_elements {{.*}} : vector<2x1xf32>
// CHECK:           nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
// REMARK: remark: reads MMA operands from shared memory with scalar loads: tf32 operands are read element by element (ldmatrix moves 16-bit elements)
func.func @nv_tf32(%A: memref<64x48xf32>, %B: memref<48x64xf32>, %C: memref<64x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 48>]
      ins(%A, %B : memref<64x48xf32>, memref<48x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [1, 32, 1],
        mma = #ext.mma<m16n8k8>, warps = [1, 1],
        cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 32, offset = 4>]>,
                 #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// AMD 16x16x16 on 2x2 wavefronts of 64 lanes: A's 4 halves per lane are
// one vector read (K innermost); B's K is outermost: 4 scalar reads.
// CHECK-LABEL: func @amd_16x16x16
// CHECK:           vector.load {{.*}} : memref<64x32xf16, {{.*}}>, vector<4xf16>
// CHECK:           vector.from_elements {{.*}} : vector<4xf16>
// CHECK:           amdgpu.mfma 16x16x16 {{.*}} blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
func.func @amd_16x16x16(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"], threads = [4, 64, 1],
        mma = #ext.mma<mfma_16x16x16>, warps = [2, 2],
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

// AMD 32x32x2 f32: one f32 per lane and operand.
// CHECK-LABEL: func @amd_32x32x2
// CHECK:           amdgpu.mfma 32x32x2 {{.*}} blgp = none : f32, f32, vector<16xf32>
func.func @amd_32x32x2(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 8], blocks = ["i", "j"], threads = [2, 64, 1],
        mma = #ext.mma<mfma_32x32x2>, warps = [2, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// A body that is not a product (a sum of the inputs) keeps the element-wise
// path, in the mma layout, with a remark.
// CHECK-LABEL: func @not_a_product
// CHECK-NOT:       nvgpu.mma.sync
// CHECK:           arith.addf
// REMARK: remark: accumulates without tensor cores (element-wise, in the layout of #ext.mma<m16n8k16, warps = [2, 2]>): its body is not a product under a sum combiner (C += A * B)
func.func @not_a_product(%A: memref<200x100xf16>, %B: memref<100x130xf16>, %C: memref<200x130xf32>) {
  ext.compute [#ext.axis<"i", spatial, 200>, #ext.axis<"j", spatial, 130>, #ext.axis<"k", reduce, 100>]
      ins(%A, %B : memref<200x100xf16>, memref<100x130xf16>) outs(%C : memref<200x130xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"], threads = [4, 32, 1],
        mma = #ext.mma<m16n8k16>, warps = [2, 2],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.addf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}

