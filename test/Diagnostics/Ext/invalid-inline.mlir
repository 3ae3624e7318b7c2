// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-apply-schedule -o /dev/null
// compute_inline that would change what the program computes is refused at
// the scheduled compute, naming both.

func.func @no_such_producer(%A: memref<32x32xf32>, %C: memref<32x32xf32>) {
  // expected-error @+1 {{'ext.compute' op schedule: compute_inline 'T': no compute of that name in the block}}
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"j", spatial, 32>]
      ins(%A : memref<32x32xf32>) outs(%C : memref<32x32xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>]
      attributes {name = "C", schedule = #ext.schedule<tile = [16, 16], blocks = ["i", "j"], threads = [16, 16], compute_inline = ["T"]>} {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}

// -----

func.func @reduction_producer(%A: memref<32x32xf32>, %C: memref<32xf32>) {
  %T = memref.alloc() : memref<32xf32>
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"k", reduce, 32>]
      ins(%A : memref<32x32xf32>) outs(%T : memref<32xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(sum) attributes {name = "T"} {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: compute_inline 'T': it is a reduction (axis 'k'); compute_inline substitutes an element-wise compute (a reduction goes to compute_at)}}
  ext.compute [#ext.axis<"i", spatial, 32>]
      ins(%T : memref<32xf32>) outs(%C : memref<32xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]
      attributes {name = "C", schedule = #ext.schedule<tile = [16], blocks = ["i"], threads = [16], compute_inline = ["T"]>} {
  ^bb0(%t: f32):
    ext.yield %t : f32
  }
  return
}

// -----

func.func @written_between(%A: memref<32xf32>, %C: memref<32xf32>) {
  %T = memref.alloc() : memref<32xf32>
  ext.compute [#ext.axis<"i", spatial, 32>]
      ins(%A : memref<32xf32>) outs(%T : memref<32xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]
      attributes {name = "T"} {
  ^bb0(%a: f32):
    %t = arith.addf %a, %a : f32
    ext.yield %t : f32
  }
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%A : memref<32xf32>)
  // expected-error @+1 {{'ext.compute' op schedule: compute_inline 'T': 'linalg.fill' between 'T' and 'C' writes a memref the inlining reorders}}
  ext.compute [#ext.axis<"i", spatial, 32>]
      ins(%T : memref<32xf32>) outs(%C : memref<32xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]
      attributes {name = "C", schedule = #ext.schedule<tile = [16], blocks = ["i"], threads = [16], compute_inline = ["T"]>} {
  ^bb0(%t: f32):
    ext.yield %t : f32
  }
  return
}

// -----

func.func @not_read(%A: memref<32xf32>, %B: memref<32xf32>, %C: memref<32xf32>) {
  %T = memref.alloc() : memref<32xf32>
  ext.compute [#ext.axis<"i", spatial, 32>]
      ins(%A : memref<32xf32>) outs(%T : memref<32xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]
      attributes {name = "T"} {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: compute_inline 'T': 'C' does not read its output}}
  ext.compute [#ext.axis<"i", spatial, 32>]
      ins(%B : memref<32xf32>) outs(%C : memref<32xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]
      attributes {name = "C", schedule = #ext.schedule<tile = [16], blocks = ["i"], threads = [16], compute_inline = ["T"]>} {
  ^bb0(%t: f32):
    ext.yield %t : f32
  }
  return
}
