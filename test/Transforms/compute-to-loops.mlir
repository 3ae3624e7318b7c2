// RUN: ext-opt %s --split-input-file --ext-compute-to-loops | FileCheck %s

// Spatial loops outermost, the reduce loop innermost carrying the
// accumulator from the combiner's identity; one store per output element.
// CHECK-LABEL: func @matmul
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %[[C64]]
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %[[C32]]
// CHECK:             %[[R:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[C16]] {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32)
// CHECK:               %[[A:.*]] = memref.load %{{.*}}[%[[I]], %[[K]]]
// CHECK:               %[[B:.*]] = memref.load %{{.*}}[%[[K]], %[[J]]]
// CHECK:               %[[P:.*]] = arith.mulf %[[A]], %[[B]]
// CHECK:               %[[S:.*]] = arith.addf %[[ACC]], %[[P]]
// CHECK:               scf.yield %[[S]]
// CHECK:             memref.store %[[R]], %{{.*}}[%[[I]], %[[J]]]
// CHECK-NOT:     ext.compute
func.func @matmul(%A: memref<64x16xf32>, %B: memref<16x32xf32>, %C: memref<64x32xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, 16>]
      ins(%A, %B : memref<64x16xf32>, memref<16x32xf32>) outs(%C : memref<64x32xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// Built-in identities: max starts from -inf, min from the largest signed int.
// CHECK-LABEL: func @row_max
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[NINF]])
// CHECK:           arith.maximumf %[[ACC]], %{{.*}} : f32
func.func @row_max(%X: memref<8x128xf32>, %M: memref<8xf32>) {
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"k", reduce, 128>]
      ins(%X : memref<8x128xf32>) outs(%M : memref<8xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(max) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// CHECK-LABEL: func @int_min
// CHECK:         %[[MAX:.*]] = arith.constant 2147483647 : i32
// CHECK:         scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[MAX]])
// CHECK:           arith.minsi %[[ACC]], %{{.*}} : i32
func.func @int_min(%X: memref<8x4xi32>, %M: memref<8xi32>) {
  ext.compute [#ext.axis<"i", spatial, 8>, #ext.axis<"k", reduce, 4>]
      ins(%X : memref<8x4xi32>) outs(%M : memref<8xi32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>]
      combiner(min) {
  ^bb0(%x: i32):
    ext.yield %x : i32
  }
  return
}

// -----

// Two reduce axes: nested reduce loops thread the accumulator through; the
// reduce axis between the spatial ones still goes innermost.
// CHECK-LABEL: func @two_reduce_axes
// CHECK:         scf.for %[[A:[a-z0-9]+]] =
// CHECK:           scf.for %[[B:[a-z0-9]+]] =
// CHECK:             %[[OUTER:.*]] = scf.for %[[R0:.*]] = {{.*}} iter_args(%[[ACC0:.*]] = %{{.*}}) -> (i32)
// CHECK:               %[[INNER:.*]] = scf.for %[[R1:.*]] = {{.*}} iter_args(%[[ACC1:.*]] = %[[ACC0]]) -> (i32)
// CHECK:                 memref.load %{{.*}}[%[[A]], %[[R0]], %[[R1]], %[[B]]]
// CHECK:                 arith.addi %[[ACC1]]
// CHECK:               scf.yield %[[INNER]]
// CHECK:             memref.store %[[OUTER]], %{{.*}}[%[[B]], %[[A]]]
func.func @two_reduce_axes(%X: memref<3x4x5x6xi32>, %Y: memref<6x3xi32>) {
  ext.compute [#ext.axis<"a", spatial, 3>, #ext.axis<"r0", reduce, 4>,
               #ext.axis<"r1", reduce, 5>, #ext.axis<"b", spatial, 6>]
      ins(%X : memref<3x4x5x6xi32>) outs(%Y : memref<6x3xi32>)
      maps [affine_map<(a, r0, r1, b) -> (a, r0, r1, b)>, affine_map<(a, r0, r1, b) -> (b, a)>]
      combiner(sum) {
  ^bb0(%x: i32):
    ext.yield %x : i32
  }
  return
}

// -----

// Compound accesses become affine.apply of the loop variables.
// CHECK-DAG:   #[[MAP:.*]] = affine_map<(d0, d1) -> (d0 * 2 + d1)>
// CHECK-LABEL: func @strided_window
// CHECK:         scf.for %[[O:[a-z0-9]+]] =
// CHECK:           scf.for %[[W:[a-z0-9]+]] =
// CHECK:             %[[IDX:.*]] = affine.apply #[[MAP]](%[[O]], %[[W]])
// CHECK:             memref.load %{{.*}}[%[[IDX]]]
func.func @strided_window(%X: memref<9xf32>, %Y: memref<4xf32>) {
  ext.compute [#ext.axis<"o", spatial, 4>, #ext.axis<"w", reduce, 3>]
      ins(%X : memref<9xf32>) outs(%Y : memref<4xf32>)
      maps [affine_map<(o, w) -> (o * 2 + w)>, affine_map<(o, w) -> (o)>]
      combiner(sum) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// A custom reducer is inlined with (accumulators..., new values...); ext.index
// becomes the induction variable, also inside nested regions.
// CHECK-LABEL: func @argmax
// CHECK-DAG:     %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[NEG1:.*]] = arith.constant -1 : i32
// CHECK:         scf.for %[[I:[a-z0-9]+]] =
// CHECK:           %[[R:.*]]:2 = scf.for %[[K:.*]] = {{.*}} iter_args(%[[AV:.*]] = %[[NINF]], %[[AI:.*]] = %[[NEG1]]) -> (f32, i32)
// CHECK:             %[[X:.*]] = memref.load
// CHECK:             %[[KI:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK:             %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[AV]]
// CHECK:             %[[V:.*]] = arith.select %[[GT]], %[[X]], %[[AV]]
// CHECK:             %[[II:.*]] = arith.select %[[GT]], %[[KI]], %[[AI]]
// CHECK:             scf.yield %[[V]], %[[II]]
// CHECK:           memref.store %[[R]]#0, %{{.*}}[%[[I]]]
// CHECK:           memref.store %[[R]]#1, %{{.*}}[%[[I]]]
// CHECK-NOT:     ext.index
func.func @argmax(%X: memref<4x16xf32>, %V: memref<4xf32>, %I: memref<4xi32>) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"k", reduce, 16>]
      ins(%X : memref<4x16xf32>) outs(%V, %I : memref<4xf32>, memref<4xi32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0xFF800000 : f32, -1 : i32] {
  ^bb0(%x: f32):
    %k = ext.index "k" : index
    %ki = arith.index_cast %k : index to i32
    ext.yield %x, %ki : f32, i32
  } reducer {
  ^bb0(%av: f32, %ai: i32, %v: f32, %vi: i32):
    %gt = arith.cmpf ogt, %v, %av : f32
    %rv = arith.select %gt, %v, %av : f32
    %ri = arith.select %gt, %vi, %ai : i32
    ext.yield %rv, %ri : f32, i32
  }
  return
}

// -----

// No reduce axis: the body's value is stored directly, no iter_args.
// CHECK-LABEL: func @relu
// CHECK:         scf.for %[[I:[a-z0-9]+]] =
// CHECK-NOT:       iter_args
// CHECK:           %[[X:.*]] = memref.load %{{.*}}[%[[I]]]
// CHECK:           %[[Y:.*]] = arith.maximumf %[[X]], %{{.*}}
// CHECK:           memref.store %[[Y]], %{{.*}}[%[[I]]]
func.func @relu(%X: memref<16xf32>, %Y: memref<16xf32>) {
  ext.compute [#ext.axis<"i", spatial, 16>] ins(%X : memref<16xf32>) outs(%Y : memref<16xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %z : f32
    ext.yield %r : f32
  }
  return
}

// -----

// ext.index nested inside an scf.if of the body.
// CHECK-LABEL: func @nested_index
// CHECK:         scf.for %[[I:[a-z0-9]+]] =
// CHECK:           scf.if
// CHECK:             arith.index_cast %[[I]]
// CHECK-NOT:     ext.index
func.func @nested_index(%X: memref<8xi1>, %Y: memref<8xi64>) {
  ext.compute [#ext.axis<"i", spatial, 8>] ins(%X : memref<8xi1>) outs(%Y : memref<8xi64>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%p: i1):
    %r = scf.if %p -> i64 {
      %i = ext.index "i" : index
      %ii = arith.index_cast %i : index to i64
      scf.yield %ii : i64
    } else {
      %m = arith.constant -1 : i64
      scf.yield %m : i64
    }
    ext.yield %r : i64
  }
  return
}

// -----

// A dynamic extent is the size of the first dynamic dimension that binds
// it; every other dynamic dimension an axis indexes alone (a static axis
// too) is checked against it: the loops run only if all agree, and each
// check is asserted in the else branch, marked ext.guarded (the work it
// protects is skipped, so a runtime may report it and go on).
// CHECK-LABEL: func @matmul_dynamic
// CHECK-SAME:    (%[[A:.*]]: memref<?x?xf32>, %[[B:.*]]: memref<?x32xf32>, %[[C:.*]]: memref<?x?xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK:         %[[M:.*]] = memref.dim %[[A]], %[[C0]]
// CHECK:         %[[CM:.*]] = memref.dim %[[C]], %[[C0]]
// CHECK:         %[[SAMEM:.*]] = arith.cmpi eq, %[[CM]], %[[M]]
// CHECK:         %[[CN:.*]] = memref.dim %[[C]], %[[C1]]
// CHECK:         %[[SAMEN:.*]] = arith.cmpi eq, %[[CN]], %[[C32]]
// CHECK:         %[[K:.*]] = memref.dim %[[A]], %[[C1]]
// CHECK:         %[[BK:.*]] = memref.dim %[[B]], %[[C0]]
// CHECK:         %[[SAMEK:.*]] = arith.cmpi eq, %[[BK]], %[[K]]
// CHECK:         %[[MN:.*]] = arith.andi %[[SAMEM]], %[[SAMEN]]
// CHECK:         %[[ALL:.*]] = arith.andi %[[MN]], %[[SAMEK]]
// CHECK:         scf.if %[[ALL]] {
// CHECK:           scf.for %{{.*}} = %[[C0]] to %[[M]]
// CHECK:             scf.for %{{.*}} = %[[C0]] to %[[C32]]
// CHECK:               scf.for %{{.*}} = %[[C0]] to %[[K]]
// CHECK:         } else {
// CHECK-NEXT:      cf.assert %[[SAMEM]], "ext.compute: dimension #0 of output #0 is not the extent of axis 'i' that indexes it" {ext.guarded}
// CHECK-NEXT:      cf.assert %[[SAMEN]], "ext.compute: dimension #1 of output #0 is not the extent of axis 'j' that indexes it" {ext.guarded}
// CHECK-NEXT:      cf.assert %[[SAMEK]], "ext.compute: dimension #0 of input #1 is not the extent of axis 'k' that indexes it" {ext.guarded}
// CHECK-NEXT:    }
func.func @matmul_dynamic(%A: memref<?x?xf32>, %B: memref<?x32xf32>, %C: memref<?x?xf32>) {
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, 32>, #ext.axis<"k", reduce, ?>]
      ins(%A, %B : memref<?x?xf32>, memref<?x32xf32>) outs(%C : memref<?x?xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// An input's axis shorter than its dimension (the first 5 rows of 8): the
// loop runs over the axis, not the input.
// CHECK-LABEL: func @first_rows
// CHECK-DAG:     %[[C5:.*]] = arith.constant 5 : index
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %[[C5]]
// CHECK:           memref.load %{{.*}}[%[[I]]] : memref<8xf32>
func.func @first_rows(%X: memref<8xf32>, %Y: memref<5xf32>) {
  ext.compute [#ext.axis<"i", spatial, 5>] ins(%X : memref<8xf32>) outs(%Y : memref<5xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}
