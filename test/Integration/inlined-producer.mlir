// compute_inline: element-wise producers of a GEMM's inputs substituted into
// it. @dequant: W = f32(Wq) * scale[j] (an int8 weight with a per-column
// scale) inlined into C = A @ W, whose cache of W then caches Wq and scale;
// W is never written and its compute is gone. @transposed: T[k, i] =
// 2 * X[i, k] read as T[k, i] (a producer whose map is a permutation, and
// whose ext.index names its own axes). @main checks both against the
// unfused computes (integer data: exact).
//
// RUN: ext-opt --ext-apply-schedule %s | FileCheck %s --check-prefix=KERNEL
// RUN: ext-run --racecheck %s | FileCheck %s

// KERNEL-LABEL: func.func @dequant
// KERNEL-NOT: ext.compute
// KERNEL: ext.kernel tiles [2, 3] iters 3
// The int8 weight and the scale are copied, not W.
// KERNEL: ext.copy %arg1
// KERNEL-SAME: memref<40x48xi8>
// KERNEL: ext.copy %arg2
// KERNEL: ext.tile_compute
// KERNEL: arith.sitofp
// KERNEL: arith.mulf
// KERNEL-LABEL: func.func @transposed

// CHECK-COUNT-2: [0]
// CHECK-NOT: [{{[1-9]}}

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @dequant(%A: memref<32x40xf32>, %Wq: memref<40x48xi8>, %scale: memref<48xf32>, %C: memref<32x48xf32>) {
  %W = memref.alloc() : memref<40x48xf32>
  ext.compute [#ext.axis<"k", spatial, 40>, #ext.axis<"j", spatial, 48>]
      ins(%Wq, %scale : memref<40x48xi8>, memref<48xf32>) outs(%W : memref<40x48xf32>)
      maps [affine_map<(k, j) -> (k, j)>, affine_map<(k, j) -> (j)>, affine_map<(k, j) -> (k, j)>]
      attributes {name = "W"} {
  ^bb0(%q: i8, %s: f32):
    %f = arith.sitofp %q : i8 to f32
    %w = arith.mulf %f, %s : f32
    ext.yield %w : f32
  }
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 48>, #ext.axis<"k", reduce, 40>]
      ins(%A, %W : memref<32x40xf32>, memref<40x48xf32>) outs(%C : memref<32x48xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [16, 16, 16],
        blocks = ["i", "j"], threads = [16, 16, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], compute_inline = ["W"]>} {
  ^bb0(%a: f32, %w: f32):
    %p = arith.mulf %a, %w : f32
    ext.yield %p : f32
  }
  memref.dealloc %W : memref<40x48xf32>
  return
}

func.func @dequant_reference(%A: memref<32x40xf32>, %Wq: memref<40x48xi8>, %scale: memref<48xf32>, %C: memref<32x48xf32>) {
  %W = memref.alloc() : memref<40x48xf32>
  ext.compute [#ext.axis<"k", spatial, 40>, #ext.axis<"j", spatial, 48>]
      ins(%Wq, %scale : memref<40x48xi8>, memref<48xf32>) outs(%W : memref<40x48xf32>)
      maps [affine_map<(k, j) -> (k, j)>, affine_map<(k, j) -> (j)>, affine_map<(k, j) -> (k, j)>] {
  ^bb0(%q: i8, %s: f32):
    %f = arith.sitofp %q : i8 to f32
    %w = arith.mulf %f, %s : f32
    ext.yield %w : f32
  }
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 48>, #ext.axis<"k", reduce, 40>]
      ins(%A, %W : memref<32x40xf32>, memref<40x48xf32>) outs(%C : memref<32x48xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %w: f32):
    %p = arith.mulf %a, %w : f32
    ext.yield %p : f32
  }
  memref.dealloc %W : memref<40x48xf32>
  return
}

// T[k, i] = 2 * X[i, k] + i (its own axis names), read by the GEMM as T[k, i].

func.func @transposed(%X: memref<32x40xf32>, %B: memref<40x48xf32>, %C: memref<32x48xf32>) {
  %T = memref.alloc() : memref<40x32xf32>
  ext.compute [#ext.axis<"kk", spatial, 40>, #ext.axis<"ii", spatial, 32>]
      ins(%X : memref<32x40xf32>) outs(%T : memref<40x32xf32>)
      maps [affine_map<(kk, ii) -> (ii, kk)>, affine_map<(kk, ii) -> (kk, ii)>]
      attributes {name = "T"} {
  ^bb0(%x: f32):
    %two = arith.addf %x, %x : f32
    %ii = ext.index "ii" : index
    %iv = arith.index_cast %ii : index to i32
    %ivf = arith.sitofp %iv : i32 to f32
    %t = arith.addf %two, %ivf : f32
    ext.yield %t : f32
  }
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 48>, #ext.axis<"k", reduce, 40>]
      ins(%T, %B : memref<40x32xf32>, memref<40x48xf32>) outs(%C : memref<32x48xf32>)
      maps [affine_map<(i, j, k) -> (k, i)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [16, 16, 16],
        blocks = ["i", "j"], threads = [16, 16, 1],
        cache = [#ext.cache<operand = 0>], compute_inline = ["T"]>} {
  ^bb0(%t: f32, %b: f32):
    %p = arith.mulf %t, %b : f32
    ext.yield %p : f32
  }
  memref.dealloc %T : memref<40x32xf32>
  return
}

func.func @transposed_reference(%X: memref<32x40xf32>, %B: memref<40x48xf32>, %C: memref<32x48xf32>) {
  %T = memref.alloc() : memref<40x32xf32>
  ext.compute [#ext.axis<"kk", spatial, 40>, #ext.axis<"ii", spatial, 32>]
      ins(%X : memref<32x40xf32>) outs(%T : memref<40x32xf32>)
      maps [affine_map<(kk, ii) -> (ii, kk)>, affine_map<(kk, ii) -> (kk, ii)>]
      attributes {name = "T"} {
  ^bb0(%x: f32):
    %two = arith.addf %x, %x : f32
    %ii = ext.index "ii" : index
    %iv = arith.index_cast %ii : index to i32
    %ivf = arith.sitofp %iv : i32 to f32
    %t = arith.addf %two, %ivf : f32
    ext.yield %t : f32
  }
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 48>, #ext.axis<"k", reduce, 40>]
      ins(%T, %B : memref<40x32xf32>, memref<40x48xf32>) outs(%C : memref<32x48xf32>)
      maps [affine_map<(i, j, k) -> (k, i)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%t: f32, %b: f32):
    %p = arith.mulf %t, %b : f32
    ext.yield %p : f32
  }
  memref.dealloc %T : memref<40x32xf32>
  return
}

// Prints max |X - Y|.
func.func @report(%X: memref<32x48xf32>, %Y: memref<32x48xf32>) {
  %err = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"i", reduce, 32>, #ext.axis<"j", reduce, 48>]
      ins(%X, %Y : memref<32x48xf32>, memref<32x48xf32>) outs(%err : memref<f32>)
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

func.func @main() {
  %A = memref.alloc() : memref<32x40xf32>
  %Wq = memref.alloc() : memref<40x48xi8>
  %scale = memref.alloc() : memref<48xf32>
  %B = memref.alloc() : memref<40x48xf32>
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"k", spatial, 40>]
      outs(%A : memref<32x40xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  ext.compute [#ext.axis<"k", spatial, 40>, #ext.axis<"j", spatial, 48>]
      outs(%Wq, %B : memref<40x48xi8>, memref<40x48xf32>) maps [affine_map<(k, j) -> (k, j)>, affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %q = arith.trunci %vi : i32 to i8
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %q, %vf : i8, f32
  }
  ext.compute [#ext.axis<"j", spatial, 48>]
      outs(%scale : memref<48xf32>) maps [affine_map<(j) -> (j)>] {
  ^bb0:
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(j) -> (j mod 3 + 1)>(%j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  %C = memref.alloc() : memref<32x48xf32>
  %R = memref.alloc() : memref<32x48xf32>
  call @dequant(%A, %Wq, %scale, %C) : (memref<32x40xf32>, memref<40x48xi8>, memref<48xf32>, memref<32x48xf32>) -> ()
  call @dequant_reference(%A, %Wq, %scale, %R) : (memref<32x40xf32>, memref<40x48xi8>, memref<48xf32>, memref<32x48xf32>) -> ()
  call @report(%C, %R) : (memref<32x48xf32>, memref<32x48xf32>) -> ()
  call @transposed(%A, %B, %C) : (memref<32x40xf32>, memref<40x48xf32>, memref<32x48xf32>) -> ()
  call @transposed_reference(%A, %B, %R) : (memref<32x40xf32>, memref<40x48xf32>, memref<32x48xf32>) -> ()
  call @report(%C, %R) : (memref<32x48xf32>, memref<32x48xf32>) -> ()
  return
}
