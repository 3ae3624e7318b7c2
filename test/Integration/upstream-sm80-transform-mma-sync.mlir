// Upstream MLIR's sm80 tensor-core integration test
// (mlir/test/Integration/GPU/CUDA/sm80/transform-mma-sync-matmul-f32.mlir),
// the same program (a 16x4 by 4x8 f32 linalg.matmul inside a gpu.launch of
// one warp, its transform script rewriting the matmul into one tf32
// nvgpu.mma.sync m16n8k4, the same inputs) and the same CHECK lines, run by
// ext-run: ext's pipelines run the module's transform script first, and the
// emulator runs the mma.sync with the PTX ISA's m16n8k4 fragments
// (racecheck clean). Upstream runs it with mlir-opt -transform-interpreter,
// its pipeline to NVVM and mlir-runner on a GPU; the same module also
// compiles here through ext-gpu-pipeline to PTX that ptxas accepts.
//
// RUN: ext-run %s | FileCheck %s
// RUN: ext-run --racecheck %s | FileCheck %s
// RUN: ext-opt %s --ext-gpu-pipeline="target=nvvm chip=sm_80" | ext-translate --ext-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.ptx -o /dev/null %}
// PTX: mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32

!lhs_t = memref<16x4xf32>
!rhs_t = memref<4x8xf32>
!res_t = memref<16x8xf32>

// m[r, c] = r * stride + c, as upstream's compute_linspace_val.
func.func @linspace(%m: memref<?x?xf32>, %stride: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %m, %c0 : memref<?x?xf32>
  %cols = memref.dim %m, %c1 : memref<?x?xf32>
  scf.for %r = %c0 to %rows step %c1 {
    scf.for %c = %c0 to %cols step %c1 {
      %v = affine.apply affine_map<(r, c)[s] -> (r * s + c)>(%r, %c)[%stride]
      %i = arith.index_cast %v : index to i32
      %f = arith.sitofp %i : i32 to f32
      memref.store %f, %m[%r, %c] : memref<?x?xf32>
    }
  }
  return
}

func.func @main() {
  %lhs = memref.alloc() : !lhs_t
  %rhs = memref.alloc() : !rhs_t
  %res = memref.alloc() : !res_t
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %l = memref.cast %lhs : !lhs_t to memref<?x?xf32>
  %r = memref.cast %rhs : !rhs_t to memref<?x?xf32>
  call @linspace(%l, %c4) : (memref<?x?xf32>, index) -> ()
  call @linspace(%r, %c8) : (memref<?x?xf32>, index) -> ()
  linalg.fill ins(%zero : f32) outs(%res : !res_t)
  %ulhs = memref.cast %lhs : !lhs_t to memref<*xf32>
  %urhs = memref.cast %rhs : !rhs_t to memref<*xf32>
  %ures = memref.cast %res : !res_t to memref<*xf32>
  gpu.host_register %ulhs : memref<*xf32>
  gpu.host_register %urhs : memref<*xf32>
  gpu.host_register %ures : memref<*xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    linalg.matmul ins(%lhs, %rhs : !lhs_t, !rhs_t) outs(%res : !res_t)
    gpu.terminator
  }
  call @printMemrefF32(%ures) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)

// CHECK:      [112, 118, 124, 130, 136, 142, 148, 154],
// CHECK-NEXT: [304, 326, 348, 370, 392, 414, 436, 458],
// CHECK-NEXT: [496, 534, 572, 610, 648, 686, 724, 762],
// CHECK-NEXT: [688, 742, 796, 850, 904, 958, 1012, 1066],
// CHECK-NEXT: [880, 950, 1020, 1090, 1160, 1230, 1300, 1370],
// CHECK-NEXT: [1072, 1158, 1244, 1330, 1416, 1502, 1588, 1674],
// CHECK-NEXT: [1264, 1366, 1468, 1570, 1672, 1774, 1876, 1978],
// CHECK-NEXT: [1456, 1574, 1692, 1810, 1928, 2046, 2164, 2282],
// CHECK-NEXT: [1648, 1782, 1916, 2050, 2184, 2318, 2452, 2586],
// CHECK-NEXT: [1840, 1990, 2140, 2290, 2440, 2590, 2740, 2890],
// CHECK-NEXT: [2032, 2198, 2364, 2530, 2696, 2862, 3028, 3194],
// CHECK-NEXT: [2224, 2406, 2588, 2770, 2952, 3134, 3316, 3498],
// CHECK-NEXT: [2416, 2614, 2812, 3010, 3208, 3406, 3604, 3802],
// CHECK-NEXT: [2608, 2822, 3036, 3250, 3464, 3678, 3892, 4106],
// CHECK-NEXT: [2800, 3030, 3260, 3490, 3720, 3950, 4180, 4410],
// CHECK-NEXT: [2992, 3238, 3484, 3730, 3976, 4222, 4468, 4714]

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.nvgpu.rewrite_matmul_as_mma_sync %matmul : (!transform.any_op) -> ()
    transform.yield
  }
}
