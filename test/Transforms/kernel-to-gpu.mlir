// ext-kernel-to-gpu on its own: an ext.kernel becomes a gpu.launch whose
// grid the decomposition chooses and whose block has the kernel's threads;
// the body runs for each work unit (tile coordinates in raster order, k
// range) and the epilogue gets the body's fragments. The tile ops inside
// are left for ext-tile-ops-to-threads.
// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-kernel-to-gpu | FileCheck %s

// Data-parallel over a 3x2 grid of tiles: 6 CTAs of 32 threads; block b is
// tile (b / 2, b % 2) in row raster; its k range is all 4 iterations.
// CHECK-LABEL: func @data_parallel
// CHECK-SAME:    (%[[OUT:.*]]: memref<3x2xindex>, %[[K:.*]]: memref<3x2xindex>)
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %[[C6]], {{.*}} = %[[C1]], {{.*}} = %[[C1]]) threads({{.*}}) in ({{.*}} = %[[C32]], {{.*}} = %[[C1]], {{.*}} = %[[C1]])
// CHECK:           %[[BID:.*]] = gpu.block_id x
// CHECK-DAG:       %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[ITERS:.*]] = arith.constant 4 : index
// CHECK:           %[[REST:.*]] = arith.remui %[[BID]], %{{.*}} : index
// CHECK:           %[[ROW:.*]] = arith.divui %[[REST]], %[[TWO:.*]] : index
// CHECK:           %[[COL:.*]] = arith.remui %[[REST]], %{{.*}} : index
// CHECK:           %[[SPAN:.*]] = arith.subi %[[ITERS]], %[[ZERO]] : index
// CHECK:           memref.store %[[SPAN]], %[[K]][%[[ROW]], %[[COL]]]
// The epilogue gets the same tile's coordinates.
// CHECK:           %[[REST2:.*]] = arith.remui %[[BID]], %{{.*}} : index
// CHECK:           %[[ROW2:.*]] = arith.divui %[[REST2]], %{{.*}} : index
// CHECK:           %[[COL2:.*]] = arith.remui %[[REST2]], %{{.*}} : index
// CHECK:           memref.store %[[COL2]], %[[OUT]][%[[ROW2]], %[[COL2]]]
// CHECK-NEXT:      gpu.terminator
// CHECK-NOT:     ext.kernel
func.func @data_parallel(%out: memref<3x2xindex>, %k: memref<3x2xindex>) {
  ext.kernel tiles [3, 2] iters 4 threads 32 decomposition #ext.data_parallel {
  ^bb0(%i: index, %j: index, %kb: index, %ke: index):
    %span = arith.subi %ke, %kb : index
    memref.store %span, %k[%i, %j] : memref<3x2xindex>
    ext.kernel_yield
  } epilogue {
  ^bb0(%i: index, %j: index):
    memref.store %j, %out[%i, %j] : memref<3x2xindex>
    ext.kernel_yield
  }
  return
}

// -----

// Column raster in groups of 2 columns (swizzle 2) over 4x3 tiles.
// CHECK-LABEL: func @swizzled
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c12, {{.*}} = %c1, {{.*}} = %c1)
// CHECK:           %[[BID:.*]] = gpu.block_id x
// CHECK:           %[[REST:.*]] = arith.remui %[[BID]], %c12{{.*}}
// CHECK:           %[[GROUP:.*]] = arith.divui %[[REST]], %[[C8:c8.*]] :
// CHECK:           %[[FIRST:.*]] = arith.muli %[[GROUP]], %[[C2:c2.*]] :
// CHECK:           %[[LEFT:.*]] = arith.subi %c3{{.*}}, %[[FIRST]]
// CHECK:           %[[SIZE:.*]] = arith.minui %[[LEFT]], %c2{{.*}} :
// CHECK:           %[[IN:.*]] = arith.remui %[[REST]], %[[C8]] :
// CHECK:           %[[MAJ:.*]] = arith.remui %[[IN]], %[[SIZE]]
// CHECK:           %[[COL:.*]] = arith.addi %[[FIRST]], %[[MAJ]]
// CHECK:           %[[ROW:.*]] = arith.divui %[[IN]], %[[SIZE]]
// CHECK:           memref.store %{{.*}}, %{{.*}}[%[[ROW]], %[[COL]]]
func.func @swizzled(%out: memref<4x3xindex>) {
  ext.kernel tiles [4, 3] iters 1 threads 64 decomposition #ext.data_parallel raster col swizzle 2 {
  ^bb0(%i: index, %j: index, %kb: index, %ke: index):
    memref.store %i, %out[%i, %j] : memref<4x3xindex>
    ext.kernel_yield
  } epilogue {
  ^bb0(%i: index, %j: index):
    ext.kernel_yield
  }
  return
}

// -----

// The body's fragments reach the epilogue; tile ops stay as they are.
// CHECK-LABEL: func @fragments
// CHECK:         gpu.launch
// CHECK:           %[[FRAG:.*]] = ext.alloc_fragment threads [8] : memref<8xf32>
// CHECK:           ext.tile_compute {{.*}} outs(%[[FRAG]] : memref<8xf32>)
// CHECK:           %[[VIEW:.*]] = memref.subview %{{.*}}[%{{.*}}] [8] [1]
// CHECK:           ext.tile_compute {{.*}} ins(%[[FRAG]] : memref<8xf32>) outs(%[[VIEW]]
// CHECK:           gpu.terminator
func.func @fragments(%C: memref<16xf32>) {
  ext.kernel tiles [2] iters 1 threads 8 decomposition #ext.data_parallel {
  ^bb0(%t: index, %kb: index, %ke: index):
    %f = ext.alloc_fragment threads [8] : memref<8xf32>
    ext.tile_compute [#ext.axis<"i", spatial, 8>] threads [8] outs(%f : memref<8xf32>) maps [affine_map<(i) -> (i)>] {
      %zero = arith.constant 0.0 : f32
      ext.yield %zero : f32
    }
    ext.kernel_yield %f : memref<8xf32>
  } epilogue {
  ^bb0(%t: index, %f: memref<8xf32>):
    %c8 = arith.constant 8 : index
    %o = arith.muli %t, %c8 : index
    %v = memref.subview %C[%o] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: ?>>
    ext.tile_compute [#ext.axis<"i", spatial, 8>] threads [8] ins(%f : memref<8xf32>) outs(%v : memref<8xf32, strided<[1], offset: ?>>) maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
    ^bb0(%x: f32):
      ext.yield %x : f32
    }
    ext.kernel_yield
  }
  return
}
