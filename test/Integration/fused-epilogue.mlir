// reverse_compute_at: GEMM + bias + ReLU as one kernel. The schedule of C
// (100 x 70 x 90, ragged 32 x 32 x 16 tiles) names D, an element-wise
// consumer of C, whose body then runs on each finished output tile in
// registers before the store; D is erased and C, a local buffer nothing
// else reads, is never written. @fused_keep writes C as well (a function
// argument, which the caller may read). @fused_mma runs on mma.sync with f16
// inputs and casts D to f16 in the epilogue. @main checks each against the
// unfused computes (integer data: exact).
//
// RUN: ext-opt --ext-apply-schedule %s | FileCheck %s --check-prefix=KERNEL
// RUN: ext-opt --ext-schedule-to-gpu %s | FileCheck %s --check-prefix=GPU
// RUN: ext-run --racecheck %s | FileCheck %s

// The epilogue stores D from the accumulator: no store of C, and D is gone.
// KERNEL-LABEL: func.func @fused
// KERNEL: ext.kernel tiles [4, 3] iters 6
// KERNEL: } epilogue {
// KERNEL: ext.tile_compute {{.*}} ins(%{{.*}}, %{{.*}} : memref<32x32xf32>, memref<32xf32, {{.*}}>) outs(%{{.*}} : memref<32x32xf32, {{.*}}>)
// KERNEL: arith.addf
// KERNEL: arith.maximumf
// KERNEL-NOT: ext.compute
// KERNEL-LABEL: func.func @fused_keep
// KERNEL: } epilogue {
// KERNEL: ext.tile_compute {{.*}} outs(%{{.*}}, %{{.*}} : memref<32x32xf32, {{.*}}>, memref<32x32xf32, {{.*}}>)
// KERNEL-LABEL: func.func @fused_mma
// KERNEL: arith.truncf

// One kernel per fused GEMM.
// GPU-LABEL: func.func @fused(
// GPU-COUNT-1: gpu.launch
// GPU-NOT: gpu.launch
// GPU-LABEL: func.func @fused_keep(

// Every variant: max |D - reference| = 0, and C where it is kept.
// CHECK-COUNT-4: [0]
// CHECK-NOT: [{{[1-9]}}

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @fused(%A: memref<100x90xf32>, %B: memref<90x70xf32>, %bias: memref<70xf32>, %D: memref<100x70xf32>) {
  %C = memref.alloc() : memref<100x70xf32>
  ext.compute [#ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 70>, #ext.axis<"k", reduce, 90>]
      ins(%A, %B : memref<100x90xf32>, memref<90x70xf32>) outs(%C : memref<100x70xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [16, 16, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], vector = 4,
        reverse_compute_at = [#ext.at<"D", "j">]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"m", spatial, 100>, #ext.axis<"n", spatial, 70>]
      ins(%C, %bias : memref<100x70xf32>, memref<70xf32>) outs(%D : memref<100x70xf32>)
      maps [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>]
      attributes {name = "D"} {
  ^bb0(%c: f32, %t: f32):
    %s = arith.addf %c, %t : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    ext.yield %r : f32
  }
  memref.dealloc %C : memref<100x70xf32>
  return
}

func.func @fused_keep(%A: memref<100x90xf32>, %B: memref<90x70xf32>, %bias: memref<70xf32>, %D: memref<100x70xf32>, %C: memref<100x70xf32>) {
  ext.compute [#ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 70>, #ext.axis<"k", reduce, 90>]
      ins(%A, %B : memref<100x90xf32>, memref<90x70xf32>) outs(%C : memref<100x70xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [16, 16, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], vector = 4,
        reverse_compute_at = [#ext.at<"D", "j">]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"m", spatial, 100>, #ext.axis<"n", spatial, 70>]
      ins(%C, %bias : memref<100x70xf32>, memref<70xf32>) outs(%D : memref<100x70xf32>)
      maps [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>]
      attributes {name = "D"} {
  ^bb0(%c: f32, %t: f32):
    %s = arith.addf %c, %t : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    ext.yield %r : f32
  }
  return
}

func.func @fused_mma(%A: memref<100x90xf16>, %B: memref<90x70xf16>, %bias: memref<70xf32>, %D: memref<100x70xf16>) {
  %C = memref.alloc() : memref<100x70xf32>
  ext.compute [#ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 70>, #ext.axis<"k", reduce, 90>]
      ins(%A, %B : memref<100x90xf16>, memref<90x70xf16>) outs(%C : memref<100x70xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [64, 64, 32], blocks = ["i", "j"], threads = [4, 32, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], mma = #ext.mma<m16n8k16>,
        warps = [2, 2], stages = 3, vector = 8, reverse_compute_at = [#ext.at<"D", "i">]>} {
  ^bb0(%a: f16, %b: f16):
    %x = arith.extf %a : f16 to f32
    %y = arith.extf %b : f16 to f32
    %p = arith.mulf %x, %y : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"m", spatial, 100>, #ext.axis<"n", spatial, 70>]
      ins(%C, %bias : memref<100x70xf32>, memref<70xf32>) outs(%D : memref<100x70xf16>)
      maps [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>]
      attributes {name = "D"} {
  ^bb0(%c: f32, %t: f32):
    %s = arith.addf %c, %t : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    %o = arith.truncf %r : f32 to f16
    ext.yield %o : f16
  }
  memref.dealloc %C : memref<100x70xf32>
  return
}

func.func @reference(%A: memref<100x90xf32>, %B: memref<90x70xf32>, %bias: memref<70xf32>, %D: memref<100x70xf32>, %C: memref<100x70xf32>) {
  ext.compute [#ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 70>, #ext.axis<"k", reduce, 90>]
      ins(%A, %B : memref<100x90xf32>, memref<90x70xf32>) outs(%C : memref<100x70xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C"} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"m", spatial, 100>, #ext.axis<"n", spatial, 70>]
      ins(%C, %bias : memref<100x70xf32>, memref<70xf32>) outs(%D : memref<100x70xf32>)
      maps [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>]
      attributes {name = "D"} {
  ^bb0(%c: f32, %t: f32):
    %s = arith.addf %c, %t : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    ext.yield %r : f32
  }
  return
}

func.func @reference_f16(%A: memref<100x90xf16>, %B: memref<90x70xf16>, %bias: memref<70xf32>, %D: memref<100x70xf16>, %C: memref<100x70xf32>) {
  ext.compute [#ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 70>, #ext.axis<"k", reduce, 90>]
      ins(%A, %B : memref<100x90xf16>, memref<90x70xf16>) outs(%C : memref<100x70xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C"} {
  ^bb0(%a: f16, %b: f16):
    %x = arith.extf %a : f16 to f32
    %y = arith.extf %b : f16 to f32
    %p = arith.mulf %x, %y : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"m", spatial, 100>, #ext.axis<"n", spatial, 70>]
      ins(%C, %bias : memref<100x70xf32>, memref<70xf32>) outs(%D : memref<100x70xf16>)
      maps [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>]
      attributes {name = "D"} {
  ^bb0(%c: f32, %t: f32):
    %s = arith.addf %c, %t : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    %o = arith.truncf %r : f32 to f16
    ext.yield %o : f16
  }
  return
}

// Prints max |X - Y|.
func.func @report(%X: memref<100x70xf32>, %Y: memref<100x70xf32>) {
  %err = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"i", reduce, 100>, #ext.axis<"j", reduce, 70>]
      ins(%X, %Y : memref<100x70xf32>, memref<100x70xf32>) outs(%err : memref<f32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>]
      combiner(max) {
  ^bb0(%x: f32, %y: f32):
    %d = arith.subf %x, %y : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }
  %u = memref.cast %err : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %err : memref<f32>
  return
}

func.func @report_f16(%X: memref<100x70xf16>, %Y: memref<100x70xf16>) {
  %err = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"i", reduce, 100>, #ext.axis<"j", reduce, 70>]
      ins(%X, %Y : memref<100x70xf16>, memref<100x70xf16>) outs(%err : memref<f32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>]
      combiner(max) {
  ^bb0(%x: f16, %y: f16):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %d = arith.subf %xf, %yf : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }
  %u = memref.cast %err : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %err : memref<f32>
  return
}

// A[i, k] = ((3i + 5k) mod 11) - 5, B[k, j] = ((7k + 2j) mod 13) - 6,
// bias[j] = (j mod 7) - 3.
func.func @fill(%A: memref<100x90xf32>, %B: memref<90x70xf32>, %bias: memref<70xf32>) {
  ext.compute [#ext.axis<"i", spatial, 100>, #ext.axis<"k", spatial, 90>]
      outs(%A : memref<100x90xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  ext.compute [#ext.axis<"k", spatial, 90>, #ext.axis<"j", spatial, 70>]
      outs(%B : memref<90x70xf32>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  ext.compute [#ext.axis<"j", spatial, 70>]
      outs(%bias : memref<70xf32>) maps [affine_map<(j) -> (j)>] {
  ^bb0:
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(j) -> (j mod 7 - 3)>(%j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  return
}

func.func @to_f16(%X: memref<100x90xf32>, %Y: memref<90x70xf32>, %Xh: memref<100x90xf16>, %Yh: memref<90x70xf16>) {
  ext.compute [#ext.axis<"i", spatial, 100>, #ext.axis<"k", spatial, 90>]
      ins(%X : memref<100x90xf32>) outs(%Xh : memref<100x90xf16>) maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i, k)>] {
  ^bb0(%x: f32):
    %h = arith.truncf %x : f32 to f16
    ext.yield %h : f16
  }
  ext.compute [#ext.axis<"k", spatial, 90>, #ext.axis<"j", spatial, 70>]
      ins(%Y : memref<90x70xf32>) outs(%Yh : memref<90x70xf16>) maps [affine_map<(k, j) -> (k, j)>, affine_map<(k, j) -> (k, j)>] {
  ^bb0(%y: f32):
    %h = arith.truncf %y : f32 to f16
    ext.yield %h : f16
  }
  return
}

func.func @main() {
  %A = memref.alloc() : memref<100x90xf32>
  %B = memref.alloc() : memref<90x70xf32>
  %bias = memref.alloc() : memref<70xf32>
  call @fill(%A, %B, %bias) : (memref<100x90xf32>, memref<90x70xf32>, memref<70xf32>) -> ()
  %D = memref.alloc() : memref<100x70xf32>
  %C = memref.alloc() : memref<100x70xf32>
  %R = memref.alloc() : memref<100x70xf32>
  %RC = memref.alloc() : memref<100x70xf32>
  call @reference(%A, %B, %bias, %R, %RC) : (memref<100x90xf32>, memref<90x70xf32>, memref<70xf32>, memref<100x70xf32>, memref<100x70xf32>) -> ()
  call @fused(%A, %B, %bias, %D) : (memref<100x90xf32>, memref<90x70xf32>, memref<70xf32>, memref<100x70xf32>) -> ()
  call @report(%D, %R) : (memref<100x70xf32>, memref<100x70xf32>) -> ()
  call @fused_keep(%A, %B, %bias, %D, %C) : (memref<100x90xf32>, memref<90x70xf32>, memref<70xf32>, memref<100x70xf32>, memref<100x70xf32>) -> ()
  call @report(%D, %R) : (memref<100x70xf32>, memref<100x70xf32>) -> ()
  call @report(%C, %RC) : (memref<100x70xf32>, memref<100x70xf32>) -> ()
  %Ah = memref.alloc() : memref<100x90xf16>
  %Bh = memref.alloc() : memref<90x70xf16>
  call @to_f16(%A, %B, %Ah, %Bh) : (memref<100x90xf32>, memref<90x70xf32>, memref<100x90xf16>, memref<90x70xf16>) -> ()
  %Dh = memref.alloc() : memref<100x70xf16>
  %Rh = memref.alloc() : memref<100x70xf16>
  call @reference_f16(%Ah, %Bh, %bias, %Rh, %RC) : (memref<100x90xf16>, memref<90x70xf16>, memref<70xf32>, memref<100x70xf16>, memref<100x70xf32>) -> ()
  call @fused_mma(%Ah, %Bh, %bias, %Dh) : (memref<100x90xf16>, memref<90x70xf16>, memref<70xf32>, memref<100x70xf16>) -> ()
  call @report_f16(%Dh, %Rh) : (memref<100x70xf16>, memref<100x70xf16>) -> ()
  return
}
