// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-apply-transform-script
// Issue 59: transform.ext.set_schedule and update_schedule check the
// computes their fusions name against the computes of the scheduled
// compute's block, and the #ext.at axes against its axes, where the script
// gives them (a misspelt name used to pass and fail later, in the
// pipeline); a script whose entry is not @__transform_main is an error, not
// a script left in the module for the lowering to trip on.

func.func @softmax(%X: memref<4x64xf32>, %M: memref<4xf32>, %Y: memref<4x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 64>]
      ins(%X : memref<4x64xf32>) outs(%M : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(max) attributes {name = "row_max"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  // expected-note @below {{the scheduled compute}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"j", spatial, 64>]
      ins(%X, %M : memref<4x64xf32>, memref<4xf32>) outs(%Y : memref<4x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>]
      attributes {name = "norm"} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    ext.yield %d : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %c = transform.ext.match_computes "norm" in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{schedule field 'compute_at' names compute 'nothere', but the block of 'norm' holds no other compute of that name (other computes there: 'row_max')}}
    transform.ext.update_schedule %c with {tile = [1, 64], blocks = ["i"], threads = [1, 64],
        compute_at = [#ext.at<"nothere", "i">]} : !transform.any_op
    transform.yield
  }
}

// -----

func.func @softmax(%X: memref<4x64xf32>, %M: memref<4xf32>, %Y: memref<4x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 64>]
      ins(%X : memref<4x64xf32>) outs(%M : memref<4xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(max) attributes {name = "row_max"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  // expected-note @below {{the scheduled compute}}
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"j", spatial, 64>]
      ins(%X, %M : memref<4x64xf32>, memref<4xf32>) outs(%Y : memref<4x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>]
      attributes {name = "norm"} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    ext.yield %d : f32
  }
  return
}

// The compute exists; the axis is not the scheduled compute's.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %c = transform.ext.match_computes "norm" in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{schedule field 'compute_at' attaches 'row_max' at axis 'k', but 'norm' has no such axis (axes: 'i', 'j')}}
    transform.ext.set_schedule #ext.schedule<tile = [1, 64], blocks = ["i"], threads = [1, 64],
        compute_at = [#ext.at<"row_max", "k">]> to %c : !transform.any_op
    transform.yield
  }
}

// -----

func.func @gemm_relu(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>, %D: memref<64x64xf32>) {
  // expected-note @below {{the scheduled compute}}
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
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>] attributes {name = "relu"} {
  ^bb0(%c: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %c, %z : f32
    ext.yield %r : f32
  }
  return
}

// reverse_compute_at: a misspelt consumer.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %c = transform.ext.match_computes "C" in %root : (!transform.any_op) -> !transform.any_op
    transform.ext.set_schedule #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [8, 8, 1]> to %c : !transform.any_op
    // expected-error @below {{schedule field 'reverse_compute_at' names compute 'relu0', but the block of 'C' holds no other compute of that name (other computes there: 'relu')}}
    transform.ext.update_schedule %c with {reverse_compute_at = [#ext.at<"relu0", "j">]} : !transform.any_op
    transform.yield
  }
}

// -----

func.func @gemm_relu(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>, %D: memref<64x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<64x64xf32>, memref<64x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {name = "C"} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  // expected-note @below {{the scheduled compute}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>]
      ins(%C : memref<64x64xf32>) outs(%D : memref<64x64xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>] attributes {name = "relu"} {
  ^bb0(%c: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %c, %z : f32
    ext.yield %r : f32
  }
  return
}

// compute_inline: a compute that is not there; the compute keeps no
// schedule.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %c = transform.ext.match_computes "relu" in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{schedule field 'compute_inline' names compute 'pad', but the block of 'relu' holds no other compute of that name (other computes there: 'C')}}
    transform.ext.set_schedule #ext.schedule<tile = [32, 32], blocks = ["i", "j"], threads = [8, 8], compute_inline = ["pad"]> to %c : !transform.any_op
    transform.yield
  }
}

// -----

func.func @copy(%X: memref<64xf32>, %Y: memref<64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>] ins(%X : memref<64xf32>) outs(%Y : memref<64xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] attributes {name = "Y"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// A script whose entry is misnamed: it was skipped without a word, and the
// pipeline then failed on 'transform.yield' not lowered to LLVM.
module attributes {transform.with_named_sequence} {
  // expected-error @below {{ext-apply-transform-script: the module has a transform script, but none of its named sequences is @__transform_main, the entry point it runs (found @main, @helper): rename the entry sequence @__transform_main}}
  transform.named_sequence @main(%root: !transform.any_op) {
    %c = transform.ext.match_computes "Y" in %root : (!transform.any_op) -> !transform.any_op
    transform.ext.update_schedule %c with {tile = [32], threads = [32], blocks = ["i"]} : !transform.any_op
    transform.yield
  }
  transform.named_sequence @helper(%root: !transform.any_op) {
    transform.yield
  }
}
