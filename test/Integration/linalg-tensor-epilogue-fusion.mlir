// linalg on tensors, fused by a transform script: a matmul then a bias +
// ReLU linalg.generic, with `reverse_compute_at` set on the imported matmul.
// Bufferizing allocates the ReLU's output after the matmul; the fusion moves
// that allocation above the kernel (it was "operand #0 does not dominate
// this use", issue 52). One kernel, right on the emulator against a
// reference written as plain loops (exact: small integer inputs).
//
// RUN: ext-opt %s --ext-apply-transform-script --ext-apply-schedule | FileCheck %s --check-prefix=TILED
// TILED-LABEL: func.func @mm_relu
// TILED-COUNT-2: memref.alloc()
// TILED-NEXT: ext.kernel tiles [4, 3]
// TILED-NOT: ext.kernel tiles
// TILED: ext.kernel_yield
// TILED-NOT: {{ext.kernel tiles|ext.compute}}
// TILED: return
// TILED-LABEL: func.func @main
//
// RUN: ext-opt %s --ext-gpu-pipeline="target=nvvm chip=sm_80" | ext-translate --ext-to-ptx | FileCheck %s --check-prefix=PTX
// PTX-COUNT-1: .entry
// PTX-NOT: .entry
//
// RUN: ext-run %s --racecheck 2>&1 | FileCheck %s
// CHECK: max |D - reference| =
// CHECK-NEXT: data =
// CHECK-NEXT: [0]
// CHECK-NOT: race

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @mm_relu(%A: tensor<128x64xf32>, %B: tensor<64x96xf32>, %bias: tensor<96xf32>)
    -> tensor<128x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x96xf32>
  %c0 = linalg.fill ins(%zero : f32) outs(%e : tensor<128x96xf32>) -> tensor<128x96xf32>
  %C = linalg.matmul ins(%A, %B : tensor<128x64xf32>, tensor<64x96xf32>)
                     outs(%c0 : tensor<128x96xf32>) -> tensor<128x96xf32>
  %e2 = tensor.empty() : tensor<128x96xf32>
  %D = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%C, %bias : tensor<128x96xf32>, tensor<96xf32>) outs(%e2 : tensor<128x96xf32>) {
  ^bb0(%c: f32, %b: f32, %o: f32):
    %s = arith.addf %c, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<128x96xf32>
  return %D : tensor<128x96xf32>
}

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
func.func private @printString(!llvm.ptr) -> ()

// A[i, k] = (i + 2k) mod 5 - 2, B[k, j] = (3k + j) mod 7 - 3, bias[j] = j mod 9 - 4.
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c96 = arith.constant 96 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<128x64xf32>
  %b = memref.alloc() : memref<64x96xf32>
  %t = memref.alloc() : memref<96xf32>
  %ref = memref.alloc() : memref<128x96xf32>
  scf.for %i = %c0 to %c128 step %c1 {
    scf.for %k = %c0 to %c64 step %c1 {
      %v = affine.apply affine_map<(i, k) -> ((i + k * 2) mod 5 - 2)>(%i, %k)
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f32
      memref.store %vf, %a[%i, %k] : memref<128x64xf32>
    }
  }
  scf.for %k = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c96 step %c1 {
      %v = affine.apply affine_map<(k, j) -> ((k * 3 + j) mod 7 - 3)>(%k, %j)
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f32
      memref.store %vf, %b[%k, %j] : memref<64x96xf32>
    }
  }
  scf.for %j = %c0 to %c96 step %c1 {
    %v = affine.apply affine_map<(j) -> (j mod 9 - 4)>(%j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    memref.store %vf, %t[%j] : memref<96xf32>
  }
  // The reference: loops, no linalg and no ext.
  scf.for %i = %c0 to %c128 step %c1 {
    scf.for %j = %c0 to %c96 step %c1 {
      %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> f32 {
        %x = memref.load %a[%i, %k] : memref<128x64xf32>
        %y = memref.load %b[%k, %j] : memref<64x96xf32>
        %p = arith.mulf %x, %y : f32
        %n = arith.addf %acc, %p : f32
        scf.yield %n : f32
      }
      %bj = memref.load %t[%j] : memref<96xf32>
      %s = arith.addf %sum, %bj : f32
      %r = arith.maximumf %s, %zero : f32
      memref.store %r, %ref[%i, %j] : memref<128x96xf32>
    }
  }
  %A = bufferization.to_tensor %a restrict : memref<128x64xf32> to tensor<128x64xf32>
  %B = bufferization.to_tensor %b restrict : memref<64x96xf32> to tensor<64x96xf32>
  %T = bufferization.to_tensor %t restrict : memref<96xf32> to tensor<96xf32>
  %D = call @mm_relu(%A, %B, %T) : (tensor<128x64xf32>, tensor<64x96xf32>, tensor<96xf32>) -> tensor<128x96xf32>
  %d = bufferization.to_buffer %D : tensor<128x96xf32> to memref<128x96xf32>
  %err = memref.alloc() : memref<1xf32>
  memref.store %zero, %err[%c0] : memref<1xf32>
  scf.for %i = %c0 to %c128 step %c1 {
    scf.for %j = %c0 to %c96 step %c1 {
      %x = memref.load %d[%i, %j] : memref<128x96xf32>
      %y = memref.load %ref[%i, %j] : memref<128x96xf32>
      %diff = arith.subf %x, %y : f32
      %abs = math.absf %diff : f32
      %m = memref.load %err[%c0] : memref<1xf32>
      %n = arith.maximumf %m, %abs : f32
      memref.store %n, %err[%c0] : memref<1xf32>
    }
  }
  %msg = llvm.mlir.addressof @message : !llvm.ptr
  call @printString(%msg) : (!llvm.ptr) -> ()
  %u = memref.cast %err : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
llvm.mlir.global internal constant @message("max |D - reference| =\0A\00")

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %module = transform.apply_registered_pass "ext-from-linalg" to %root
        : (!transform.any_op) -> !transform.any_op
    %f = transform.structured.match ops{["func.func"]} attributes {sym_name = "mm_relu"} in %module
        : (!transform.any_op) -> !transform.any_op
    %mm = transform.ext.match_computes "matmul_0" in %f : (!transform.any_op) -> !transform.any_op
    transform.ext.set_schedule #ext.schedule<tile = [32, 32, 16], blocks = ["d0", "d1"],
        threads = [8, 8, 1], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>],
        reverse_compute_at = [#ext.at<"generic_1", "d1">]> to %mm : !transform.any_op
    transform.yield
  }
}
