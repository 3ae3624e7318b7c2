// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-apply-transform-script | FileCheck %s

// set_schedule attaches a whole schedule, update_schedule edits fields of
// it; the script is gone afterwards.
// CHECK-LABEL: func.func @gemm
// CHECK: ext.compute
// CHECK-SAME: name = "C"
// CHECK-SAME: schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [16, 16, 1], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], decomposition = #ext.split_k<slices = 2>, stages = 2>
// CHECK: ext.compute
// CHECK-SAME: name = "D"
// CHECK-NOT: schedule
// CHECK-NOT: transform.
func.func @gemm(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>, %D: memref<64x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<64x64xf32>, memref<64x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C"} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>]
      ins(%C : memref<64x64xf32>) outs(%D : memref<64x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>] attributes {name = "D"} {
  ^bb0(%c: f32):
    ext.yield %c : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %c = transform.ext.match_computes "C" in %root : (!transform.any_op) -> !transform.any_op
    transform.ext.set_schedule #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [16, 16, 1]>
        to %c : !transform.any_op
    transform.ext.update_schedule %c with {cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>],
        stages = 2, decomposition = #ext.split_k<slices = 2>} : !transform.any_op
    transform.yield
  }
}

// -----

// A compute without a schedule gets one from update_schedule's fields.
// CHECK-LABEL: func.func @fresh
// CHECK: schedule = #ext.schedule<tile = [32], blocks = ["i"], threads = [32], vector = 4, unroll = 2>
func.func @fresh(%X: memref<64xf32>, %Y: memref<64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>] ins(%X : memref<64xf32>) outs(%Y : memref<64xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %c = transform.ext.match_computes in %root : (!transform.any_op) -> !transform.any_op
    transform.ext.update_schedule %c with {tile = array<i64: 32>, threads = [32], blocks = ["i"], vector = 4, unroll = 2} : !transform.any_op
    transform.yield
  }
}

// -----

func.func @misspelt(%X: memref<64xf32>, %Y: memref<64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>] ins(%X : memref<64xf32>) outs(%Y : memref<64xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {name = "Y"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    // expected-error @below {{no ext.compute named 'Z' in the payload}}
    %c = transform.ext.match_computes "Z" in %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @unfit(%X: memref<64xf32>, %Y: memref<64xf32>) {
  // expected-error @below {{'ext.compute' op schedule: has 2 tile sizes but the compute has 1 axes}}
  ext.compute [#ext.axis<"i", spatial, 64>] ins(%X : memref<64xf32>) outs(%Y : memref<64xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {name = "Y"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %c = transform.ext.match_computes "Y" in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the schedule does not fit the compute}}
    transform.ext.set_schedule #ext.schedule<tile = [32, 1], blocks = ["i"], threads = [32, 1]> to %c : !transform.any_op
    transform.yield
  }
}

// -----

func.func @fields(%X: memref<64xf32>, %Y: memref<64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>] ins(%X : memref<64xf32>) outs(%Y : memref<64xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {name = "Y"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %c = transform.ext.match_computes "Y" in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{schedule field 'stages' expects an integer, got "three"}}
    transform.ext.update_schedule %c with {tile = [32], threads = [32], stages = "three"} : !transform.any_op
    transform.yield
  }
}

// -----

func.func @bool_field(%X: memref<64xf32>, %Y: memref<64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>] ins(%X : memref<64xf32>) outs(%Y : memref<64xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {name = "Y"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %c = transform.ext.match_computes "Y" in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{schedule field 'tma' expects a bool, got 1 : i64}}
    transform.ext.update_schedule %c with {tile = [32], threads = [32], stages = 2, tma = 1} : !transform.any_op
    transform.yield
  }
}

// -----

func.func @specialize_field(%X: memref<64xf32>, %Y: memref<64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>] ins(%X : memref<64xf32>) outs(%Y : memref<64xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {name = "Y"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %c = transform.ext.match_computes "Y" in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{schedule field 'specialize' expects "none", "cooperative" or "pingpong", got "sometimes"}}
    transform.ext.update_schedule %c with {tile = [32], threads = [32], stages = 2, tma = true, specialize = "sometimes"} : !transform.any_op
    transform.yield
  }
}

// -----

func.func @unknown(%X: memref<64xf32>, %Y: memref<64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>] ins(%X : memref<64xf32>) outs(%Y : memref<64xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {name = "Y"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %c = transform.ext.match_computes "Y" in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{unknown schedule field 'tiles'}}
    transform.ext.update_schedule %c with {tiles = [32]} : !transform.any_op
    transform.yield
  }
}

// -----

// expected-note @below {{target}}
func.func @not_a_compute(%X: memref<64xf32>) {
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expects ext.compute targets, got 'func.func'}}
    transform.ext.set_schedule #ext.schedule<tile = [32], threads = [32]> to %f : !transform.any_op
    transform.yield
  }
}
