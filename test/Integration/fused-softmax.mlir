// compute_at: softmax and LayerNorm as one kernel each. The schedule of the
// last compute names the reductions it reads (row max and row sum; mean and
// variance), which then run inside its kernel for the rows of each tile,
// into shared memory, reading X from the anchor's shared tile of it: X is
// read from global memory once, and the intermediates never reach it.
// @softmax: 64 x 1000, one row per block. @softmax_ragged: 37 x 999, four
// rows per block (the last tile has one), and the exponentials kept in
// shared memory too (an element-wise compute_at that the row sum and the
// normalization read). @softmax_cols: tiles over the columns as well, so
// the row max and sum of a tile's row are recomputed per column tile,
// reading X from global memory (the tile's shared copy does not cover the
// row). @softmax keeps the row max in %M, a function argument, as well.
// @layernorm: 32 x 768 with a scale and shift.
// @main checks each against the unscheduled computes.
//
// RUN: ext-opt --ext-apply-schedule %s | FileCheck %s --check-prefix=KERNEL
// RUN: ext-opt --ext-schedule-to-gpu %s | FileCheck %s --check-prefix=GPU
// RUN: ext-run --racecheck %s | FileCheck %s

// KERNEL-LABEL: func.func @softmax(
// KERNEL: ext.kernel tiles [64]
// KERNEL: ext.copy
// KERNEL: ext.tile_compute [#ext.axis<"i", spatial, 1>, #ext.axis<"k", reduce, 1000>] threads [1, 256] {{.*}} combiner(max)
// KERNEL: ext.store_tile
// KERNEL: ext.tile_compute [#ext.axis<"i", spatial, 1>, #ext.axis<"k", reduce, 1000>] threads [1, 256] {{.*}} combiner(sum)
// KERNEL: math.exp %
// KERNEL: ext.tile_compute [#ext.axis<"i", spatial, 1>, #ext.axis<"j", spatial, 1024>]
// KERNEL-NOT: ext.compute
// KERNEL-LABEL: func.func @softmax_ragged(
// KERNEL: threads [4, 64] {{.*}} combiner(max)
// KERNEL-LABEL: func.func @softmax_cols(
// KERNEL: ext.kernel tiles [16, 4]
// KERNEL: memref.subview
// KERNEL: ext.tile_compute {{.*}} combiner(max)
// KERNEL-NOT: ext.store_tile
// KERNEL-LABEL: func.func @layernorm(

// One kernel for each.
// GPU-LABEL: func.func @softmax(
// GPU-COUNT-1: gpu.launch
// GPU-NOT: gpu.launch
// GPU-LABEL: func.func @softmax_ragged(
// GPU-COUNT-1: gpu.launch
// GPU-NOT: gpu.launch
// GPU-LABEL: func.func @softmax_cols(
// GPU-COUNT-1: gpu.launch
// GPU-NOT: gpu.launch
// GPU-LABEL: func.func @layernorm(
// GPU-COUNT-1: gpu.launch
// GPU-NOT: gpu.launch
// GPU-LABEL: func.func @reference_softmax(

// Each: 1 if max |y - reference| < 1e-6 (1e-4 for LayerNorm, whose values reach
// 10; sums in another order), and the
// kept row max exactly. Each value is matched on the line after its
// header, whose `sizes = [1] strides = [1]` would satisfy a bare [1].
// CHECK: data =
// CHECK-NEXT: {{^}}[1]{{$}}
// CHECK: data =
// CHECK-NEXT: {{^}}[1]{{$}}
// CHECK: data =
// CHECK-NEXT: {{^}}[1]{{$}}
// CHECK: data =
// CHECK-NEXT: {{^}}[1]{{$}}
// CHECK: data =
// CHECK-NEXT: {{^}}[1]{{$}}
// CHECK-NOT: data =

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

#row = affine_map<(i, k) -> (i, k)>
#r = affine_map<(i, k) -> (i)>
#col = affine_map<(i, k) -> (k)>

func.func @softmax(%X: memref<64x1000xf32>, %M: memref<64xf32>, %Y: memref<64x1000xf32>) {
  %S = memref.alloc() : memref<64xf32>
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"k", reduce, 1000>]
      ins(%X : memref<64x1000xf32>) outs(%M : memref<64xf32>)
      maps [#row, #r] combiner(max) attributes {name = "row_max"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"k", reduce, 1000>]
      ins(%X, %M : memref<64x1000xf32>, memref<64xf32>) outs(%S : memref<64xf32>)
      maps [#row, #r, #r] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 1000>]
      ins(%X, %M, %S : memref<64x1000xf32>, memref<64xf32>, memref<64xf32>) outs(%Y : memref<64x1000xf32>)
      maps [#row, #r, #r, #row]
      attributes {name = "y", schedule = #ext.schedule<tile = [1, 1024], blocks = ["i"], threads = [1, 256],
                  cache = [#ext.cache<operand = 0>], vector = 4,
                  compute_at = [#ext.at<"row_max", "i">, #ext.at<"row_sum", "i">]>} {
  ^bb0(%x: f32, %m: f32, %s: f32):
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    %y = arith.divf %e, %s : f32
    ext.yield %y : f32
  }
  memref.dealloc %S : memref<64xf32>
  return
}

func.func @softmax_ragged(%X: memref<37x999xf32>, %Y: memref<37x999xf32>) {
  %M = memref.alloc() : memref<37xf32>
  %E = memref.alloc() : memref<37x999xf32>
  %S = memref.alloc() : memref<37xf32>
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"k", reduce, 999>]
      ins(%X : memref<37x999xf32>) outs(%M : memref<37xf32>)
      maps [#row, #r] combiner(max) attributes {name = "row_max"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"j", spatial, 999>]
      ins(%X, %M : memref<37x999xf32>, memref<37xf32>) outs(%E : memref<37x999xf32>)
      maps [#row, #r, #row] attributes {name = "e"} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"k", reduce, 999>]
      ins(%E : memref<37x999xf32>) outs(%S : memref<37xf32>)
      maps [#row, #r] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%e: f32):
    ext.yield %e : f32
  }
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"j", spatial, 999>]
      ins(%E, %S : memref<37x999xf32>, memref<37xf32>) outs(%Y : memref<37x999xf32>)
      maps [#row, #r, #row]
      attributes {name = "y", schedule = #ext.schedule<tile = [4, 1024], blocks = ["i"], threads = [1, 256],
                  compute_at = [#ext.at<"row_max", "i">, #ext.at<"e", "i">, #ext.at<"row_sum", "i">]>} {
  ^bb0(%e: f32, %s: f32):
    %y = arith.divf %e, %s : f32
    ext.yield %y : f32
  }
  memref.dealloc %M : memref<37xf32>
  memref.dealloc %E : memref<37x999xf32>
  memref.dealloc %S : memref<37xf32>
  return
}

func.func @softmax_cols(%X: memref<16x1000xf32>, %Y: memref<16x1000xf32>) {
  %M = memref.alloc() : memref<16xf32>
  %S = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"k", reduce, 1000>]
      ins(%X : memref<16x1000xf32>) outs(%M : memref<16xf32>)
      maps [#row, #r] combiner(max) attributes {name = "row_max"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"k", reduce, 1000>]
      ins(%X, %M : memref<16x1000xf32>, memref<16xf32>) outs(%S : memref<16xf32>)
      maps [#row, #r, #r] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 1000>]
      ins(%X, %M, %S : memref<16x1000xf32>, memref<16xf32>, memref<16xf32>) outs(%Y : memref<16x1000xf32>)
      maps [#row, #r, #r, #row]
      attributes {name = "y", schedule = #ext.schedule<tile = [1, 256], blocks = ["i", "j"], threads = [1, 128],
                  cache = [#ext.cache<operand = 0>],
                  compute_at = [#ext.at<"row_max", "i">, #ext.at<"row_sum", "i">]>} {
  ^bb0(%x: f32, %m: f32, %s: f32):
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    %y = arith.divf %e, %s : f32
    ext.yield %y : f32
  }
  memref.dealloc %M : memref<16xf32>
  memref.dealloc %S : memref<16xf32>
  return
}

func.func @layernorm(%X: memref<32x768xf32>, %G: memref<768xf32>, %B: memref<768xf32>, %Y: memref<32x768xf32>) {
  %Mean = memref.alloc() : memref<32xf32>
  %Var = memref.alloc() : memref<32xf32>
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"k", reduce, 768>]
      ins(%X : memref<32x768xf32>) outs(%Mean : memref<32xf32>)
      maps [#row, #r] combiner(sum) attributes {name = "mean"} {
  ^bb0(%x: f32):
    %n = arith.constant 768.0 : f32
    %q = arith.divf %x, %n : f32
    ext.yield %q : f32
  }
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"k", reduce, 768>]
      ins(%X, %Mean : memref<32x768xf32>, memref<32xf32>) outs(%Var : memref<32xf32>)
      maps [#row, #r, #r] combiner(sum) attributes {name = "var"} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    %sq = arith.mulf %d, %d : f32
    %n = arith.constant 768.0 : f32
    %q = arith.divf %sq, %n : f32
    ext.yield %q : f32
  }
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 768>]
      ins(%X, %Mean, %Var, %G, %B : memref<32x768xf32>, memref<32xf32>, memref<32xf32>, memref<768xf32>, memref<768xf32>)
      outs(%Y : memref<32x768xf32>)
      maps [#row, #r, #r, #col, #col, #row]
      attributes {name = "y", schedule = #ext.schedule<tile = [2, 768], blocks = ["i"], threads = [1, 256],
                  cache = [#ext.cache<operand = 0>],
                  compute_at = [#ext.at<"mean", "i">, #ext.at<"var", "i">]>} {
  ^bb0(%x: f32, %m: f32, %v: f32, %g: f32, %b: f32):
    %eps = arith.constant 1.0e-5 : f32
    %d = arith.subf %x, %m : f32
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    %n = arith.mulf %d, %r : f32
    %s = arith.mulf %n, %g : f32
    %y = arith.addf %s, %b : f32
    ext.yield %y : f32
  }
  memref.dealloc %Mean : memref<32xf32>
  memref.dealloc %Var : memref<32xf32>
  return
}

// The same computes, unscheduled: loops on the host.
func.func @reference_softmax(%X: memref<?x?xf32>, %Y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  %M = memref.alloc(%rows) : memref<?xf32>
  %S = memref.alloc(%rows) : memref<?xf32>
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"k", reduce, ?>]
      ins(%X : memref<?x?xf32>) outs(%M : memref<?xf32>) maps [#row, #r] combiner(max) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"k", reduce, ?>]
      ins(%X, %M : memref<?x?xf32>, memref<?xf32>) outs(%S : memref<?xf32>) maps [#row, #r, #r] combiner(sum) {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, ?>]
      ins(%X, %M, %S : memref<?x?xf32>, memref<?xf32>, memref<?xf32>) outs(%Y : memref<?x?xf32>)
      maps [#row, #r, #r, #row] {
  ^bb0(%x: f32, %m: f32, %s: f32):
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    %y = arith.divf %e, %s : f32
    ext.yield %y : f32
  }
  memref.dealloc %M : memref<?xf32>
  memref.dealloc %S : memref<?xf32>
  return
}

func.func @reference_layernorm(%X: memref<32x768xf32>, %G: memref<768xf32>, %B: memref<768xf32>, %Y: memref<32x768xf32>) {
  %Mean = memref.alloc() : memref<32xf32>
  %Var = memref.alloc() : memref<32xf32>
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"k", reduce, 768>]
      ins(%X : memref<32x768xf32>) outs(%Mean : memref<32xf32>) maps [#row, #r] combiner(sum) {
  ^bb0(%x: f32):
    %n = arith.constant 768.0 : f32
    %q = arith.divf %x, %n : f32
    ext.yield %q : f32
  }
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"k", reduce, 768>]
      ins(%X, %Mean : memref<32x768xf32>, memref<32xf32>) outs(%Var : memref<32xf32>) maps [#row, #r, #r] combiner(sum) {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    %sq = arith.mulf %d, %d : f32
    %n = arith.constant 768.0 : f32
    %q = arith.divf %sq, %n : f32
    ext.yield %q : f32
  }
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 768>]
      ins(%X, %Mean, %Var, %G, %B : memref<32x768xf32>, memref<32xf32>, memref<32xf32>, memref<768xf32>, memref<768xf32>)
      outs(%Y : memref<32x768xf32>) maps [#row, #r, #r, #col, #col, #row] {
  ^bb0(%x: f32, %m: f32, %v: f32, %g: f32, %b: f32):
    %eps = arith.constant 1.0e-5 : f32
    %d = arith.subf %x, %m : f32
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    %n = arith.mulf %d, %r : f32
    %s = arith.mulf %n, %g : f32
    %y = arith.addf %s, %b : f32
    ext.yield %y : f32
  }
  memref.dealloc %Mean : memref<32xf32>
  memref.dealloc %Var : memref<32xf32>
  return
}

// x[i, k] = ((7i + 3k) mod 17) / 4 - 2
func.func @fill(%X: memref<?x?xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"k", spatial, ?>]
      outs(%X : memref<?x?xf32>) maps [#row] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 7 + k * 3) mod 17)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    %q = arith.constant 0.25 : f32
    %two = arith.constant 2.0 : f32
    %s = arith.mulf %vf, %q : f32
    %r = arith.subf %s, %two : f32
    ext.yield %r : f32
  }
  return
}

// Prints [1] if max |a - b| < tol.
func.func @close(%A: memref<?xf32>, %B: memref<?xf32>, %tol: f32) {
  %err = memref.alloc() : memref<f32>
  %ok = memref.alloc() : memref<1xf32>
  ext.compute [#ext.axis<"n", reduce, ?>] ins(%A, %B : memref<?xf32>, memref<?xf32>) outs(%err : memref<f32>)
      maps [affine_map<(n) -> (n)>, affine_map<(n) -> (n)>, affine_map<(n) -> ()>] combiner(max) {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %m = math.absf %d : f32
    ext.yield %m : f32
  }
  ext.compute [#ext.axis<"o", spatial, 1>] ins(%err : memref<f32>) outs(%ok : memref<1xf32>)
      maps [affine_map<(o) -> ()>, affine_map<(o) -> (o)>] {
  ^bb0(%e: f32):
    %small = arith.cmpf olt, %e, %tol : f32
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.select %small, %one, %zero : f32
    ext.yield %r : f32
  }
  %u = memref.cast %ok : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @check(%Y: memref<?x?xf32>, %R: memref<?x?xf32>, %tol: f32) {
  %fy = memref.collapse_shape %Y [[0, 1]] : memref<?x?xf32> into memref<?xf32>
  %fr = memref.collapse_shape %R [[0, 1]] : memref<?x?xf32> into memref<?xf32>
  call @close(%fy, %fr, %tol) : (memref<?xf32>, memref<?xf32>, f32) -> ()
  return
}

func.func @main() {
  %tol = arith.constant 1.0e-6 : f32
  %exact = arith.constant 1.0e-30 : f32

  %X1 = memref.alloc() : memref<64x1000xf32>
  %M1 = memref.alloc() : memref<64xf32>
  %Y1 = memref.alloc() : memref<64x1000xf32>
  %R1 = memref.alloc() : memref<64x1000xf32>
  %x1 = memref.cast %X1 : memref<64x1000xf32> to memref<?x?xf32>
  %y1 = memref.cast %Y1 : memref<64x1000xf32> to memref<?x?xf32>
  %r1 = memref.cast %R1 : memref<64x1000xf32> to memref<?x?xf32>
  call @fill(%x1) : (memref<?x?xf32>) -> ()
  call @softmax(%X1, %M1, %Y1) : (memref<64x1000xf32>, memref<64xf32>, memref<64x1000xf32>) -> ()
  call @reference_softmax(%x1, %r1) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  call @check(%y1, %r1, %tol) : (memref<?x?xf32>, memref<?x?xf32>, f32) -> ()
  // The kept row max: x's largest value, 16 / 4 - 2 = 2, in every row.
  %RM = memref.alloc() : memref<64xf32>
  ext.compute [#ext.axis<"i", spatial, 64>] outs(%RM : memref<64xf32>) maps [affine_map<(i) -> (i)>] {
  ^bb0:
    %two = arith.constant 2.0 : f32
    ext.yield %two : f32
  }
  %m1 = memref.cast %M1 : memref<64xf32> to memref<?xf32>
  %rm = memref.cast %RM : memref<64xf32> to memref<?xf32>
  call @close(%m1, %rm, %exact) : (memref<?xf32>, memref<?xf32>, f32) -> ()

  %X2 = memref.alloc() : memref<37x999xf32>
  %Y2 = memref.alloc() : memref<37x999xf32>
  %R2 = memref.alloc() : memref<37x999xf32>
  %x2 = memref.cast %X2 : memref<37x999xf32> to memref<?x?xf32>
  %y2 = memref.cast %Y2 : memref<37x999xf32> to memref<?x?xf32>
  %r2 = memref.cast %R2 : memref<37x999xf32> to memref<?x?xf32>
  call @fill(%x2) : (memref<?x?xf32>) -> ()
  call @softmax_ragged(%X2, %Y2) : (memref<37x999xf32>, memref<37x999xf32>) -> ()
  call @reference_softmax(%x2, %r2) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  call @check(%y2, %r2, %tol) : (memref<?x?xf32>, memref<?x?xf32>, f32) -> ()

  %X3 = memref.alloc() : memref<16x1000xf32>
  %Y3 = memref.alloc() : memref<16x1000xf32>
  %R3 = memref.alloc() : memref<16x1000xf32>
  %x3 = memref.cast %X3 : memref<16x1000xf32> to memref<?x?xf32>
  %y3 = memref.cast %Y3 : memref<16x1000xf32> to memref<?x?xf32>
  %r3 = memref.cast %R3 : memref<16x1000xf32> to memref<?x?xf32>
  call @fill(%x3) : (memref<?x?xf32>) -> ()
  call @softmax_cols(%X3, %Y3) : (memref<16x1000xf32>, memref<16x1000xf32>) -> ()
  call @reference_softmax(%x3, %r3) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  call @check(%y3, %r3, %tol) : (memref<?x?xf32>, memref<?x?xf32>, f32) -> ()

  %X4 = memref.alloc() : memref<32x768xf32>
  %G4 = memref.alloc() : memref<768xf32>
  %B4 = memref.alloc() : memref<768xf32>
  %Y4 = memref.alloc() : memref<32x768xf32>
  %R4 = memref.alloc() : memref<32x768xf32>
  %x4 = memref.cast %X4 : memref<32x768xf32> to memref<?x?xf32>
  call @fill(%x4) : (memref<?x?xf32>) -> ()
  ext.compute [#ext.axis<"j", spatial, 768>] outs(%G4, %B4 : memref<768xf32>, memref<768xf32>)
      maps [affine_map<(j) -> (j)>, affine_map<(j) -> (j)>] {
  ^bb0:
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(j) -> (j mod 5)>(%j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    %h = arith.constant 0.5 : f32
    %g = arith.addf %vf, %h : f32
    %b = arith.subf %vf, %h : f32
    ext.yield %g, %b : f32, f32
  }
  call @layernorm(%X4, %G4, %B4, %Y4) : (memref<32x768xf32>, memref<768xf32>, memref<768xf32>, memref<32x768xf32>) -> ()
  call @reference_layernorm(%X4, %G4, %B4, %R4) : (memref<32x768xf32>, memref<768xf32>, memref<768xf32>, memref<32x768xf32>) -> ()
  %y4 = memref.cast %Y4 : memref<32x768xf32> to memref<?x?xf32>
  %r4 = memref.cast %R4 : memref<32x768xf32> to memref<?x?xf32>
  %tol4 = arith.constant 1.0e-4 : f32
  call @check(%y4, %r4, %tol4) : (memref<?x?xf32>, memref<?x?xf32>, f32) -> ()
  return
}
