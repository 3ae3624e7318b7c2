// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-apply-schedule -o /dev/null
// Fusions that would change what the program computes, or that ext cannot
// build, are refused at the scheduled compute, naming both computes.

// -----

func.func @no_such_compute(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %bias: memref<32xf32>, %D: memref<32x32xf32>) {
  %C = memref.alloc() : memref<32x32xf32>
  // expected-error @+1 {{'ext.compute' op schedule: reverse_compute_at 'E': no compute of that name in the block}}
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<32x32xf32>, memref<32x32xf32>) outs(%C : memref<32x32xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], reverse_compute_at = [#ext.at<"E", "j">]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"m", spatial, 32>, #ext.axis<"n", spatial, 32>]
      ins(%C, %bias : memref<32x32xf32>, memref<32xf32>) outs(%D : memref<32x32xf32>)
      maps [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>]
      attributes {name = "D"} {
  ^bb0(%c: f32, %t: f32):
    %s = arith.addf %c, %t : f32
    ext.yield %s : f32
  }
  return
}

// -----

func.func @reduce_axis(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %bias: memref<32xf32>, %D: memref<32x32xf32>) {
  %C = memref.alloc() : memref<32x32xf32>
  // expected-error @+1 {{'ext.compute' op schedule: reverse_compute_at 'D': 'k' is not a spatial axis of 'C'; a consumer runs once per finished output tile, at a spatial axis ('i', 'j')}}
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<32x32xf32>, memref<32x32xf32>) outs(%C : memref<32x32xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], reverse_compute_at = [#ext.at<"D", "k">]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"m", spatial, 32>, #ext.axis<"n", spatial, 32>]
      ins(%C, %bias : memref<32x32xf32>, memref<32xf32>) outs(%D : memref<32x32xf32>)
      maps [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>]
      attributes {name = "D"} {
  ^bb0(%c: f32, %t: f32):
    %s = arith.addf %c, %t : f32
    ext.yield %s : f32
  }
  return
}

// -----

func.func @consumer_first(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %bias: memref<32xf32>, %D: memref<32x32xf32>) {
  %C = memref.alloc() : memref<32x32xf32>
  ext.compute [#ext.axis<"m", spatial, 32>, #ext.axis<"n", spatial, 32>]
      ins(%C, %bias : memref<32x32xf32>, memref<32xf32>) outs(%D : memref<32x32xf32>)
      maps [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>]
      attributes {name = "D"} {
  ^bb0(%c: f32, %t: f32):
    %s = arith.addf %c, %t : f32
    ext.yield %s : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: reverse_compute_at 'D': it comes before 'C', so it cannot consume its output}}
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<32x32xf32>, memref<32x32xf32>) outs(%C : memref<32x32xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], reverse_compute_at = [#ext.at<"D", "j">]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @reduction_consumer(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %bias: memref<32xf32>, %D: memref<32x32xf32>) {
  %C = memref.alloc() : memref<32x32xf32>
  // expected-error @+1 {{'ext.compute' op schedule: reverse_compute_at 'D': it is a reduction (axis 'n'); reverse_compute_at fuses an element-wise consumer}}
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<32x32xf32>, memref<32x32xf32>) outs(%C : memref<32x32xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], reverse_compute_at = [#ext.at<"D", "j">]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  %R = memref.alloc() : memref<32xf32>
  ext.compute [#ext.axis<"m", spatial, 32>, #ext.axis<"n", reduce, 32>]
      ins(%C : memref<32x32xf32>) outs(%R : memref<32xf32>)
      maps [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m)>]
      combiner(sum) attributes {name = "D"} {
  ^bb0(%c: f32):
    ext.yield %c : f32
  }
  return
}

// -----

func.func @transposed(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %bias: memref<32xf32>, %D: memref<32x32xf32>) {
  %C = memref.alloc() : memref<32x32xf32>
  // expected-error @+1 {{'ext.compute' op schedule: reverse_compute_at 'D': it reads the output of 'C' at affine_map<(d0, d1) -> (d1, d0)> but writes at affine_map<(d0, d1) -> (d0, d1)>; a fused consumer is element-wise}}
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<32x32xf32>, memref<32x32xf32>) outs(%C : memref<32x32xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], reverse_compute_at = [#ext.at<"D", "j">]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"m", spatial, 32>, #ext.axis<"n", spatial, 32>]
      ins(%C : memref<32x32xf32>) outs(%D : memref<32x32xf32>)
      maps [affine_map<(m, n) -> (n, m)>, affine_map<(m, n) -> (m, n)>]
      attributes {name = "D"} {
  ^bb0(%c: f32):
    ext.yield %c : f32
  }
  return
}

// -----

func.func @shifted_input(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %bias: memref<32xf32>, %D: memref<32x32xf32>) {
  %C = memref.alloc() : memref<32x32xf32>
  // expected-error @+1 {{'ext.compute' op schedule: reverse_compute_at 'D': it reads input #1 at affine_map<(d0, d1) -> (d1 + 1)>; a fused consumer reads its other inputs at plain axis indices or constants}}
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<32x32xf32>, memref<32x32xf32>) outs(%C : memref<32x32xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], reverse_compute_at = [#ext.at<"D", "j">]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  %b33 = memref.alloc() : memref<33xf32>
  ext.compute [#ext.axis<"m", spatial, 32>, #ext.axis<"n", spatial, 32>]
      ins(%C, %b33 : memref<32x32xf32>, memref<33xf32>) outs(%D : memref<32x32xf32>)
      maps [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n + 1)>, affine_map<(m, n) -> (m, n)>]
      attributes {name = "D"} {
  ^bb0(%c: f32, %t: f32):
    %s = arith.addf %c, %t : f32
    ext.yield %s : f32
  }
  return
}

// -----

func.func @in_between(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %bias: memref<32xf32>, %D: memref<32x32xf32>) {
  %C = memref.alloc() : memref<32x32xf32>
  // expected-error @+1 {{'ext.compute' op schedule: reverse_compute_at 'D': 'memref.copy' between the two uses a memref the fusion reorders}}
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<32x32xf32>, memref<32x32xf32>) outs(%C : memref<32x32xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], reverse_compute_at = [#ext.at<"D", "j">]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  memref.copy %C, %D : memref<32x32xf32> to memref<32x32xf32>
  ext.compute [#ext.axis<"m", spatial, 32>, #ext.axis<"n", spatial, 32>]
      ins(%C, %bias : memref<32x32xf32>, memref<32xf32>) outs(%D : memref<32x32xf32>)
      maps [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>]
      attributes {name = "D"} {
  ^bb0(%c: f32, %t: f32):
    %s = arith.addf %c, %t : f32
    ext.yield %s : f32
  }
  return
}

// -----

func.func @scheduled_consumer(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %bias: memref<32xf32>, %D: memref<32x32xf32>) {
  %C = memref.alloc() : memref<32x32xf32>
  // expected-error @+1 {{'ext.compute' op schedule: reverse_compute_at 'D': it has its own schedule; a fused consumer runs in 'C''s kernel}}
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<32x32xf32>, memref<32x32xf32>) outs(%C : memref<32x32xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], reverse_compute_at = [#ext.at<"D", "j">]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"m", spatial, 32>, #ext.axis<"n", spatial, 32>]
      ins(%C : memref<32x32xf32>) outs(%D : memref<32x32xf32>)
      maps [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>]
      attributes {name = "D", schedule = #ext.schedule<tile = [16, 16], blocks = ["m", "n"], threads = [16, 16]>} {
  ^bb0(%c: f32):
    ext.yield %c : f32
  }
  return
}

// -----

func.func @staged_output(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %bias: memref<32xf32>, %D: memref<32x32xf32>) {
  %C = memref.alloc() : memref<32x32xf32>
  // expected-error @+1 {{'ext.compute' op schedule: reverse_compute_at 'D': the output of 'C' is staged through shared memory (its cache); a fused consumer is applied in registers, without staging}}
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<32x32xf32>, memref<32x32xf32>) outs(%C : memref<32x32xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], cache = [#ext.cache<operand = 2>], reverse_compute_at = [#ext.at<"D", "j">]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"m", spatial, 32>, #ext.axis<"n", spatial, 32>]
      ins(%C, %bias : memref<32x32xf32>, memref<32xf32>) outs(%D : memref<32x32xf32>)
      maps [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>]
      attributes {name = "D"} {
  ^bb0(%c: f32, %t: f32):
    %s = arith.addf %c, %t : f32
    ext.yield %s : f32
  }
  return
}

// -----

func.func @two_consumers(%A: memref<32x32xf32>, %B: memref<32x32xf32>, %C: memref<32x32xf32>) {
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<32x32xf32>, memref<32x32xf32>) outs(%C : memref<32x32xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      // expected-error @+1 {{schedule fuses 2 consumers with reverse_compute_at; one is supported (write the chain as one compute)}}
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], reverse_compute_at = [#ext.at<"D", "j">, #ext.at<"E", "j">]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// The consumer's output is made between the two by an op with effects: the
// fused kernel, at C's place, could not use it.
func.func private @make_output() -> memref<32x32xf32>

func.func @output_made_in_between(%A: memref<32x32xf32>, %B: memref<32x32xf32>) -> memref<32x32xf32> {
  %C = memref.alloc() : memref<32x32xf32>
  // expected-error @+1 {{'ext.compute' op schedule: reverse_compute_at 'D': 'func.call' between the two defines an operand of the consumer, and the fused kernel runs where 'C' is}}
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 32>]
      ins(%A, %B : memref<32x32xf32>, memref<32x32xf32>) outs(%C : memref<32x32xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C", schedule = #ext.schedule<tile = [16, 16, 16], blocks = ["i", "j"], threads = [16, 16, 1], reverse_compute_at = [#ext.at<"D", "j">]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  %D = func.call @make_output() : () -> memref<32x32xf32>
  ext.compute [#ext.axis<"m", spatial, 32>, #ext.axis<"n", spatial, 32>]
      ins(%C : memref<32x32xf32>) outs(%D : memref<32x32xf32>)
      maps [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>]
      attributes {name = "D"} {
  ^bb0(%c: f32):
    %r = arith.negf %c : f32
    ext.yield %r : f32
  }
  return %D : memref<32x32xf32>
}
