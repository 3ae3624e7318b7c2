// RUN: ext-opt %s --split-input-file --ext-apply-schedule --ext-kernel-to-gpu --ext-tile-ops-to-threads --ext-alloc-shared-to-workgroup | FileCheck %s
// RUN: ext-opt %s --split-input-file --ext-apply-schedule --ext-kernel-to-gpu --ext-tile-ops-to-threads=drop-barrier=0 --ext-alloc-shared-to-workgroup | FileCheck %s --check-prefix=DROP

// The matmul becomes one gpu.launch of 12 CTAs of 128 threads; the two
// shared tiles are workgroup attributions of their padded sizes (32 rows of
// 33 floats, 16 rows of 32); the fragment is a private attribution of 4x2
// floats (registers once LLVM sees its unrolled constant indices); the k
// loop (70 = 4 x 16 + 6: 5 steps, the last zero-filled) copies (4 elements
// per thread and tile, unrolled), synchronizes, accumulates and
// synchronizes again.
// CHECK-LABEL: func @matmul
// CHECK:       gpu.launch blocks({{.*}}) in (%{{.*}} = %c12, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK-SAME:    workgroup(%[[WA:.*]] : memref<1056xf32, #gpu.address_space<workgroup>>, %[[WB:.*]] : memref<512xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME:    private(%[[FRAG:.*]] : memref<4x2xf32, #gpu.address_space<private>>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[BID:.*]] = gpu.block_id x
// CHECK:         %[[SA:.*]] = memref.reinterpret_cast %[[WA]] to offset: [0], sizes: [32, 16], strides: [33, 1]
// CHECK:         %[[SB:.*]] = memref.reinterpret_cast %[[WB]] to offset: [0], sizes: [16, 32], strides: [32, 1]
// CHECK:         scf.for %{{.*}} = %c0 to %c5
// CHECK-COUNT-4:     memref.store %{{.*}}, %[[SA]]
// CHECK-COUNT-4:     memref.store %{{.*}}, %[[SB]]
// CHECK-NEXT:      gpu.barrier
// CHECK:           memref.load %[[SA]]
// CHECK:           memref.load %[[SB]]
// CHECK:           memref.store %{{.*}}, %[[FRAG]]
// CHECK:           gpu.barrier
// CHECK-NEXT:    }
// CHECK:         memref.load %[[FRAG]]
// CHECK:         gpu.terminator
// No ext op is left (the launch's ext.fast_math mark stays for
// ext-gpu-fast-math).
// CHECK-NOT:   {{^ *(%[^ ]+ = )?ext\.}}

// Dropping barrier #0 (after the copies) leaves only the loop's closing one.
// DROP-LABEL: func @matmul
// DROP-COUNT-1: gpu.barrier
// DROP-NOT:     gpu.barrier
// DROP-LABEL: func @row_sum
func.func @matmul(%A: memref<100x70xf32>, %B: memref<70x90xf32>, %C: memref<100x90xf32>) {
  ext.compute [#ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 90>, #ext.axis<"k", reduce, 70>]
      ins(%A, %B : memref<100x70xf32>, memref<70x90xf32>) outs(%C : memref<100x90xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [8, 16, 1],
        cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// -----

// A reduce axis over 256 threads: each thread strides over the row, a
// shuffle-xor butterfly inside each warp, lane 0 of each of the 8 warps
// publishes to workgroup memory between two barriers, thread 0 folds the 8
// values and stores.
// CHECK-LABEL: func @row_sum
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256
// CHECK-SAME:    workgroup(%[[SCR:.*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c1000 step %c256{{.*}} iter_args
// CHECK:           arith.addf
// CHECK:         gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32
// CHECK:         gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32
// CHECK:         gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32
// CHECK:         gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32
// CHECK:         gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32
// CHECK:         gpu.barrier
// CHECK:         scf.if
// CHECK:           memref.store
// CHECK:         gpu.barrier
// CHECK:         scf.for {{.*}} = %c1{{.*}} to %c8
// CHECK:         scf.if
// CHECK:           memref.store
func.func @row_sum(%X: memref<64x1000xf32>, %Y: memref<64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"k", reduce, 1000>]
      ins(%X : memref<64x1000xf32>) outs(%Y : memref<64xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(sum)
      attributes {schedule = #ext.schedule<tile = [1, 1000], blocks = ["i"], threads = [1, 256]>} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  return
}

// -----

// A reduce axis over threads that is not the fastest (stride 4 in the
// thread id): a workgroup-memory tree with a barrier per halving step.
// CHECK-LABEL: func @column_sum
// CHECK:       gpu.launch
// CHECK-SAME:    workgroup(%{{.*}} : memref<64xi32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-6: gpu.barrier
// CHECK-NOT:   gpu.barrier
// CHECK:       gpu.terminator
func.func @column_sum(%X: memref<16x8xi32>, %Y: memref<8xi32>) {
  ext.compute [#ext.axis<"r", reduce, 16>, #ext.axis<"j", spatial, 8>]
      ins(%X : memref<16x8xi32>) outs(%Y : memref<8xi32>)
      maps [affine_map<(r, j) -> (r, j)>, affine_map<(r, j) -> (j)>] combiner(sum)
      attributes {schedule = #ext.schedule<tile = [16, 4], blocks = ["j"], threads = [16, 4]>} {
  ^bb0(%x: i32):
    ext.yield %x : i32
  }
  return
}
