// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-apply-schedule -o /dev/null
// Dynamic extents (`?`) must be bound to dynamic operand dimensions that the
// axis indexes alone; a schedule takes them on blocked spatial axes and on
// the reduce axis its k-loop steps through (not one on threads), under a
// decomposition that plans at launch (every built-in one; a plugin's that
// does not is refused in examples/plugin/test/serpentine-invalid.mlir).

func.func @unbound(%A: memref<?x8xf32>, %Y: memref<?xf32>) {
  // expected-error @+1 {{axis 'k' has a dynamic extent but indexes no dynamic operand dimension alone, so nothing gives its size}}
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"k", reduce, ?>]
      ins(%A : memref<?x8xf32>) outs(%Y : memref<?xf32>)
      maps [affine_map<(i, k) -> (i, 0)>, affine_map<(i, k) -> (i)>]
      combiner(sum) {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}

// -----

func.func @static_dimension(%A: memref<16x8xf32>, %Y: memref<16xf32>) {
  // expected-error @+1 {{axis 'i' has a dynamic extent but indexes input #0 dimension #0 of static size 16; make the dimension dynamic (?) or give the axis that extent}}
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"k", reduce, 8>]
      ins(%A : memref<16x8xf32>) outs(%Y : memref<16xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(sum) {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}

// -----

func.func @compound(%X: memref<?xf32>, %Y: memref<?xf32>) {
  // expected-error @+1 {{access 'd0 + d1' of input #0 uses axis 'o' of dynamic extent; a dynamic axis may only index a dimension alone}}
  ext.compute [#ext.axis<"o", spatial, ?>, #ext.axis<"w", reduce, 3>]
      ins(%X : memref<?xf32>) outs(%Y : memref<?xf32>)
      maps [affine_map<(o, w) -> (o + w)>, affine_map<(o, w) -> (o)>]
      combiner(sum) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

func.func @negative_extent(%Y: memref<4xf32>) {
  // expected-error @+1 {{axis 'i' has extent -1; extents must be positive (or ? for a size known at run time)}}
  ext.compute [#ext.axis<"i", spatial, -1>] outs(%Y : memref<4xf32>)
      maps [affine_map<(i) -> (i)>] {
  ^bb0:
    %c = arith.constant 0.0 : f32
    ext.yield %c : f32
  }
  return
}

// -----

func.func @scheduled_dynamic_k_on_threads(%A: memref<64x?xf32>, %B: memref<?x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{schedule: reduce axis 'k' has a dynamic extent, so the k-loop steps through it: it cannot run on 4 threads (a thread-bound reduction covers its axis in one tile)}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, ?>]
      ins(%A, %B : memref<64x?xf32>, memref<?x64xf32>) outs(%C : memref<64x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [8, 8, 4]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @scheduled_two_dynamic_reduce_axes(%A: memref<64x?x?xf32>, %C: memref<64xf32>) {
  // expected-error @+1 {{schedule: tiles 2 reduce axes below their extents; only one reduce axis can be iterated over}}
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"k", reduce, ?>, #ext.axis<"l", reduce, ?>]
      ins(%A : memref<64x?x?xf32>) outs(%C : memref<64xf32>)
      maps [affine_map<(i, k, l) -> (i, k, l)>, affine_map<(i, k, l) -> (i)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 16, 16], blocks = ["i"], threads = [32, 1, 1]>} {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}

// -----

func.func @scheduled_unblocked(%A: memref<?x64xf32>, %B: memref<64x64xf32>, %C: memref<?x64xf32>) {
  // expected-error @+1 {{schedule: axis 'i' has a dynamic extent, so its tiles must index the grid: bind it to blocks}}
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<?x64xf32>, memref<64x64xf32>) outs(%C : memref<?x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["j"], threads = [8, 8, 1]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @scheduled_split_k(%A: memref<?x64xf32>, %B: memref<64x64xf32>, %C: memref<?x64xf32>) {
  // No tile count can split 4 iterations into 5 slices: refused at the compute.
  // expected-error @+1 {{'ext.compute' op decomposition #ext.split_k<slices = 5> cannot split 4 iterations into 5 slices (each slice needs at least one)}}
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 64>]
      ins(%A, %B : memref<?x64xf32>, memref<64x64xf32>) outs(%C : memref<?x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [8, 8, 1], decomposition = #ext.split_k<slices = 5>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

func.func @kernel_negative_fixup_cost(%m: index) {
  // expected-error @+1 {{'ext.kernel' op fixup_cost must be a non-negative cost}}
  ext.kernel tiles [%m, 2] iters 1 threads 32 decomposition #ext.stream_k<grid = 4> attributes {fixup_cost = -1.0 : f64} {
  ^bb0(%i: index, %j: index, %kb: index, %ke: index):
    ext.kernel_yield
  } epilogue {
  ^bb0(%i: index, %j: index):
    ext.kernel_yield
  }
  return
}

// -----

func.func @kernel_dynamic_iters_attribute(%k: index) {
  // expected-error @+1 {{'ext.kernel' op iters must be a value exactly when its attribute is dynamic}}
  "ext.kernel"(%k) <{tiles = array<i64: 2>, iters = 3 : i64, threads = 32 : i64, decomposition = #ext.data_parallel, operandSegmentSizes = array<i32: 0, 1>}> ({
  ^bb0(%i: index, %kb: index, %ke: index):
    ext.kernel_yield
  }, {
  ^bb0(%i: index):
    ext.kernel_yield
  }, {
  }) : (index) -> ()
  return
}

// -----

func.func @tile_compute(%A: memref<?xf32>, %Y: memref<?xf32>) {
  // expected-error @+1 {{'ext.tile_compute' op axis 'i' has a dynamic extent; a tile compute's axes are the static tile sizes}}
  ext.tile_compute [#ext.axis<"i", spatial, ?>] threads [1]
      ins(%A : memref<?xf32>) outs(%Y : memref<?xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%a: f32):
    ext.yield %a : f32
  }
  return
}

// -----

func.func @multiple_of_zero(%A: memref<?xf32>) {
  // expected-error @+1 {{axis 'i': multiple_of must be positive, got 0}}
  ext.compute [#ext.axis<"i", spatial, ?, multiple_of = 0>] outs(%A : memref<?xf32>)
      maps [affine_map<(i) -> (i)>] {
  ^bb0:
    %c = arith.constant 1.0 : f32
    ext.yield %c : f32
  }
  return
}

// -----

func.func @static_extent_not_a_multiple(%A: memref<10xf32>) {
  // expected-error @+1 {{axis 'i' has extent 10, not a multiple of 4 as its multiple_of states}}
  ext.compute [#ext.axis<"i", spatial, 10, multiple_of = 4>] outs(%A : memref<10xf32>)
      maps [affine_map<(i) -> (i)>] {
  ^bb0:
    %c = arith.constant 1.0 : f32
    ext.yield %c : f32
  }
  return
}
