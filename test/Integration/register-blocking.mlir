// RUN: ext-run %s | FileCheck %s
// RUN: ext-run --racecheck %s | FileCheck %s
// Register-blocked tiles (#ext.blocked, 2x2 runs of 2x2 points per thread)
// on a ragged 37x43x29 problem (29 = 3 x 8 + 5: the last k-step is ragged,
// and so are the last row and column of tiles), against the unscheduled
// reference. A product under `sum` zero-fills the k tail; `exp` under `sum`
// (exp(0) = 1), and the `max` and `min` combiners peel the ragged k-step.
// Every case prints max |kernel - reference|: 0 (the same operations in the
// same order; the products under sum are exact small integers). The sum of
// exponentials is compared bit for bit with the reference's libm exp, so
// its schedule keeps the precise exp (fast_math = false; ex2.approx's 2 ulp
// are tested in test/python/test_fast_math.py).

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @sum_of_products(%A: memref<37x29xf32>, %B: memref<29x43xf32>, %C: memref<37x43xf32>) {
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"j", spatial, 43>,
               #ext.axis<"k", reduce, 29>]
      ins(%A, %B : memref<37x29xf32>, memref<29x43xf32>) outs(%C : memref<37x43xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 8], blocks = ["i", "j"], threads = [4, 4, 1],
        layout = #ext.blocked<thread_tile = [2, 2]>, vector = 4,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @sum_of_products_reference(%A: memref<37x29xf32>, %B: memref<29x43xf32>, %C: memref<37x43xf32>) {
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"j", spatial, 43>,
               #ext.axis<"k", reduce, 29>]
      ins(%A, %B : memref<37x29xf32>, memref<29x43xf32>) outs(%C : memref<37x43xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @sum_of_exp(%A: memref<37x29xf32>, %B: memref<29x43xf32>, %C: memref<37x43xf32>) {
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"j", spatial, 43>,
               #ext.axis<"k", reduce, 29>]
      ins(%A, %B : memref<37x29xf32>, memref<29x43xf32>) outs(%C : memref<37x43xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 8], blocks = ["i", "j"], threads = [4, 4, 1],
        layout = #ext.blocked<thread_tile = [2, 2]>, vector = 4, fast_math = false,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %eighth = arith.constant 0.125 : f32
    %p = arith.mulf %a, %b : f32
    %s = arith.mulf %p, %eighth : f32
    %e = math.exp %s : f32
    ext.yield %e : f32
  }
  return
}

func.func @sum_of_exp_reference(%A: memref<37x29xf32>, %B: memref<29x43xf32>, %C: memref<37x43xf32>) {
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"j", spatial, 43>,
               #ext.axis<"k", reduce, 29>]
      ins(%A, %B : memref<37x29xf32>, memref<29x43xf32>) outs(%C : memref<37x43xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %eighth = arith.constant 0.125 : f32
    %p = arith.mulf %a, %b : f32
    %s = arith.mulf %p, %eighth : f32
    %e = math.exp %s : f32
    ext.yield %e : f32
  }
  return
}

func.func @max_of_products(%A: memref<37x29xf32>, %B: memref<29x43xf32>, %C: memref<37x43xf32>) {
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"j", spatial, 43>,
               #ext.axis<"k", reduce, 29>]
      ins(%A, %B : memref<37x29xf32>, memref<29x43xf32>) outs(%C : memref<37x43xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(max) attributes {schedule = #ext.schedule<
        tile = [16, 16, 8], blocks = ["i", "j"], threads = [4, 4, 1],
        layout = #ext.blocked<thread_tile = [2, 2]>, vector = 4,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @max_of_products_reference(%A: memref<37x29xf32>, %B: memref<29x43xf32>, %C: memref<37x43xf32>) {
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"j", spatial, 43>,
               #ext.axis<"k", reduce, 29>]
      ins(%A, %B : memref<37x29xf32>, memref<29x43xf32>) outs(%C : memref<37x43xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(max) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @min_of_differences(%A: memref<37x29xf32>, %B: memref<29x43xf32>, %C: memref<37x43xf32>) {
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"j", spatial, 43>,
               #ext.axis<"k", reduce, 29>]
      ins(%A, %B : memref<37x29xf32>, memref<29x43xf32>) outs(%C : memref<37x43xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(min) attributes {schedule = #ext.schedule<
        tile = [16, 16, 8], blocks = ["i", "j"], threads = [4, 4, 1],
        layout = #ext.blocked<thread_tile = [2, 2]>, vector = 4,
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    ext.yield %d : f32
  }
  return
}

func.func @min_of_differences_reference(%A: memref<37x29xf32>, %B: memref<29x43xf32>, %C: memref<37x43xf32>) {
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"j", spatial, 43>,
               #ext.axis<"k", reduce, 29>]
      ins(%A, %B : memref<37x29xf32>, memref<29x43xf32>) outs(%C : memref<37x43xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(min) {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    ext.yield %d : f32
  }
  return
}

func.func @max_error(%C: memref<37x43xf32>, %R: memref<37x43xf32>) {
  %err = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"i", reduce, 37>, #ext.axis<"j", reduce, 43>]
      ins(%C, %R : memref<37x43xf32>, memref<37x43xf32>) outs(%err : memref<f32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>]
      combiner(max) {
  ^bb0(%c: f32, %r: f32):
    %d = arith.subf %c, %r : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }
  %u = memref.cast %err : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %A = memref.alloc() : memref<37x29xf32>
  %B = memref.alloc() : memref<29x43xf32>
  %C = memref.alloc() : memref<37x43xf32>
  %R = memref.alloc() : memref<37x43xf32>
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"k", spatial, 29>]
      outs(%A : memref<37x29xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  ext.compute [#ext.axis<"k", spatial, 29>, #ext.axis<"j", spatial, 43>]
      outs(%B : memref<29x43xf32>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  call @sum_of_products(%A, %B, %C) : (memref<37x29xf32>, memref<29x43xf32>, memref<37x43xf32>) -> ()
  call @sum_of_products_reference(%A, %B, %R) : (memref<37x29xf32>, memref<29x43xf32>, memref<37x43xf32>) -> ()
  call @max_error(%C, %R) : (memref<37x43xf32>, memref<37x43xf32>) -> ()
  call @sum_of_exp(%A, %B, %C) : (memref<37x29xf32>, memref<29x43xf32>, memref<37x43xf32>) -> ()
  call @sum_of_exp_reference(%A, %B, %R) : (memref<37x29xf32>, memref<29x43xf32>, memref<37x43xf32>) -> ()
  call @max_error(%C, %R) : (memref<37x43xf32>, memref<37x43xf32>) -> ()
  call @max_of_products(%A, %B, %C) : (memref<37x29xf32>, memref<29x43xf32>, memref<37x43xf32>) -> ()
  call @max_of_products_reference(%A, %B, %R) : (memref<37x29xf32>, memref<29x43xf32>, memref<37x43xf32>) -> ()
  call @max_error(%C, %R) : (memref<37x43xf32>, memref<37x43xf32>) -> ()
  call @min_of_differences(%A, %B, %C) : (memref<37x29xf32>, memref<29x43xf32>, memref<37x43xf32>) -> ()
  call @min_of_differences_reference(%A, %B, %R) : (memref<37x29xf32>, memref<29x43xf32>, memref<37x43xf32>) -> ()
  call @max_error(%C, %R) : (memref<37x43xf32>, memref<37x43xf32>) -> ()
  return
}

// sum_of_products:
// CHECK: data =
// CHECK-NEXT: [0]
// sum_of_exp:
// CHECK: data =
// CHECK-NEXT: [0]
// max_of_products:
// CHECK: data =
// CHECK-NEXT: [0]
// min_of_differences:
// CHECK: data =
// CHECK-NEXT: [0]
