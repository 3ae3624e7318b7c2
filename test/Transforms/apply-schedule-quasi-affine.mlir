// RUN: ext-opt %s --split-input-file --ext-apply-schedule | FileCheck %s
// Accesses that divide the axes by constants (issue 54 item 2): weights
// packed two per byte (`k floordiv 2`) and a scale per group of 128
// (`k floordiv 128`), tiled where the tiles are multiples of the divisors or
// lie inside one group.

// W4A16 on 16x32x32 tiles: the packed weight's tile is 32 bytes of n by 16
// of k (the bytes themselves, two nibbles each), copied from byte
// k0 / 2 (exact: k0 is a multiple of 32); the scale's tile is one group,
// from floor(k0 / 128) (k0 is not a multiple of 128); the tile compute reads
// them at the local `k floordiv 2` and at 0.
// CHECK-DAG:   #[[PACKED:.*]] = affine_map<(d0, d1, d2) -> (d1, d2 floordiv 2)>
// CHECK-DAG:   #[[GROUP:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func @w4a16
// CHECK:       ext.kernel tiles [2] iters 8
// CHECK:         %[[SA:.*]] = ext.alloc_shared : memref<16x32xf16
// CHECK:         %[[SW:.*]] = ext.alloc_shared : memref<32x16xi8, strided<[16, 1]>, #gpu.address_space<workgroup>>
// CHECK:         %[[SS:.*]] = ext.alloc_shared : memref<32x1xf16, strided<[1, 1]>, #gpu.address_space<workgroup>>
// CHECK:         scf.for %[[KT:.*]] = %{{.*}} to %{{.*}}
// CHECK:           %[[K0:.*]] = arith.muli %[[KT]], %{{.*}} : index
// CHECK:           ext.copy %{{.*}} to %[[SA]]
// CHECK:           %[[KP:.*]] = arith.addi %{{.*}}, %[[K0]] : index
// CHECK:           %[[BYTE:.*]] = arith.divsi %[[KP]], %{{.*}} : index
// CHECK:           ext.copy %{{.*}}[%{{.*}}, %[[BYTE]]] to %[[SW]] {{.*}} : memref<64x128xi8> to memref<32x16xi8
// CHECK:           %[[KG:.*]] = arith.divsi %{{.*}}, %{{.*}} : index
// CHECK:           %[[GRP:.*]] = arith.select %{{.*}}, %{{.*}}, %[[KG]] : index
// CHECK:           ext.copy %{{.*}}[%{{.*}}, %[[GRP]]] to %[[SS]] {{.*}} : memref<64x2xf16> to memref<32x1xf16
// CHECK:           ext.tile_compute {{.*}} ins(%[[SA]], %[[SW]], %[[SS]] : {{.*}} maps [#{{.*}}, #[[PACKED]], #[[GROUP]], #{{.*}}] combiner(sum) accumulate
func.func @w4a16(%A: memref<5x256xf16>, %Wq: memref<64x128xi8>, %S: memref<64x2xf16>, %C: memref<5x64xf32>) {
  ext.compute [#ext.axis<"m", spatial, 5>, #ext.axis<"n", spatial, 64>, #ext.axis<"k", reduce, 256>]
      ins(%A, %Wq, %S : memref<5x256xf16>, memref<64x128xi8>, memref<64x2xf16>) outs(%C : memref<5x64xf32>)
      maps [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k floordiv 2)>,
            affine_map<(m, n, k) -> (n, k floordiv 128)>, affine_map<(m, n, k) -> (m, n)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [16, 32, 32], blocks = ["n"], threads = [4, 32, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>, #ext.cache<operand = 2>]>} {
  ^bb0(%a: f16, %w: i8, %s: f16):
    %a32 = arith.extf %a : f16 to f32
    %k = ext.index "k" : index
    %k32 = arith.index_cast %k : index to i32
    %c2 = arith.constant 2 : i32
    %c4 = arith.constant 4 : i32
    %odd = arith.remui %k32, %c2 : i32
    %sh32 = arith.muli %odd, %c4 : i32
    %sh = arith.trunci %sh32 : i32 to i8
    %nib = arith.shrui %w, %sh : i8
    %c15 = arith.constant 15 : i8
    %q = arith.andi %nib, %c15 : i8
    %qf = arith.uitofp %q : i8 to f32
    %s32 = arith.extf %s : f16 to f32
    %ws = arith.mulf %qf, %s32 : f32
    %p = arith.mulf %a32, %ws : f32
    ext.yield %p : f32
  }
  return
}

// -----

// A k tile of 256 covers two groups: the scale's window is two wide, read at
// the local `k floordiv 128`; the packed weight's is 128 bytes.
// CHECK-LABEL: func @two_groups_per_tile
// CHECK:         ext.alloc_shared : memref<32x128xi8
// CHECK:         ext.alloc_shared : memref<32x2xf16
// CHECK:         ext.tile_compute {{.*}} maps [#{{.*}}, #{{.*}}, #[[G2:.*]], #{{.*}}] combiner(sum) accumulate
func.func @two_groups_per_tile(%A: memref<5x512xf16>, %Wq: memref<64x256xi8>, %S: memref<64x4xf16>, %C: memref<5x64xf32>) {
  ext.compute [#ext.axis<"m", spatial, 5>, #ext.axis<"n", spatial, 64>, #ext.axis<"k", reduce, 512>]
      ins(%A, %Wq, %S : memref<5x512xf16>, memref<64x256xi8>, memref<64x4xf16>) outs(%C : memref<5x64xf32>)
      maps [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k floordiv 2)>,
            affine_map<(m, n, k) -> (n, k floordiv 128)>, affine_map<(m, n, k) -> (m, n)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [16, 32, 256], blocks = ["n"], threads = [4, 32, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>, #ext.cache<operand = 2>]>} {
  ^bb0(%a: f16, %w: i8, %s: f16):
    %a32 = arith.extf %a : f16 to f32
    %qf = arith.uitofp %w : i8 to f32
    %s32 = arith.extf %s : f16 to f32
    %ws = arith.mulf %qf, %s32 : f32
    %p = arith.mulf %a32, %ws : f32
    ext.yield %p : f32
  }
  return
}

// -----

// Offsets that are not multiples of the divisor: `(j + 3) floordiv 4` over
// tiles of 8 starts 3 past a multiple of 4 (three quotients per tile, read
// at the local `(j + 3) floordiv 4`); `j mod 16` over tiles of 8 is a run of
// eight remainders from the tile's, (j0 mod 16); `(j + 3) mod 8` over tiles
// of 16 wraps: the whole period, read at the local `(j + 3) mod 8`.
// CHECK-DAG:   #[[SHIFTED:.*]] = affine_map<(d0, d1) -> (d0, (d1 + 3) floordiv 4)>
// CHECK-DAG:   #[[FROMJ:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG:   #[[PERIOD:.*]] = affine_map<(d0, d1) -> ((d1 + 3) mod 8)>
// CHECK-LABEL: func @offsets_and_remainders
// CHECK:         %[[SX:.*]] = ext.alloc_shared : memref<4x3xf32
// CHECK:         %[[ST:.*]] = ext.alloc_shared : memref<8xf32
// CHECK:         ext.copy %{{.*}} to %[[SX]]
// CHECK:         %[[R:.*]] = arith.remsi %{{.*}}, %[[C16:.*]] : index
// CHECK:         %[[FROM:.*]] = arith.select %{{.*}}, %{{.*}}, %[[R]] : index
// CHECK:         ext.copy %{{.*}}[%[[FROM]]] to %[[ST]]
// CHECK:         ext.tile_compute {{.*}} maps [#[[SHIFTED]], #[[FROMJ]], #{{.*}}]
// CHECK-LABEL: func @whole_period
// CHECK:         %[[SP:.*]] = ext.alloc_shared : memref<8xf32
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    ext.copy %{{.*}}[%[[ZERO]]] to %[[SP]]
// CHECK:         ext.tile_compute {{.*}} maps [#[[PERIOD]], #{{.*}}]
func.func @offsets_and_remainders(%X: memref<16x9xf32>, %T: memref<16xf32>, %Y: memref<16x32xf32>) {
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 32>]
      ins(%X, %T : memref<16x9xf32>, memref<16xf32>) outs(%Y : memref<16x32xf32>)
      maps [affine_map<(i, j) -> (i, (j + 3) floordiv 4)>, affine_map<(i, j) -> (j mod 16)>,
            affine_map<(i, j) -> (i, j)>]
      attributes {schedule = #ext.schedule<tile = [4, 8], blocks = ["i", "j"], threads = [4, 8],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%x: f32, %t: f32):
    %y = arith.mulf %x, %t : f32
    ext.yield %y : f32
  }
  return
}
func.func @whole_period(%T: memref<8xf32>, %Y: memref<16x32xf32>) {
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 32>]
      ins(%T : memref<8xf32>) outs(%Y : memref<16x32xf32>)
      maps [affine_map<(i, j) -> ((j + 3) mod 8)>, affine_map<(i, j) -> (i, j)>]
      attributes {schedule = #ext.schedule<tile = [4, 16], blocks = ["i", "j"], threads = [4, 16],
        cache = [#ext.cache<operand = 0>]>} {
  ^bb0(%t: f32):
    ext.yield %t : f32
  }
  return
}

// -----

// A constant after the remainder, `j mod 64 + 64`: the K third of a fused QKV
// projection read per head. Tiles of 32 lie inside one period of 64: the
// window is 32 remainders from (j0 mod 64), moved by 64.
// CHECK-LABEL: func @packed_slice
// CHECK:         %[[ST:.*]] = ext.alloc_shared : memref<4x32xf32
// CHECK:         %[[R:.*]] = arith.remsi %{{.*}}, %[[C64:.*]] : index
// CHECK:         %[[FROM:.*]] = arith.select %{{.*}}, %{{.*}}, %[[R]] : index
// CHECK:         %[[MOVED:.*]] = arith.addi %[[FROM]], %{{.*}} : index
// CHECK-NEXT:    ext.copy %{{.*}}[%{{.*}}, %[[MOVED]]] to %[[ST]]
func.func @packed_slice(%P: memref<16x192xf32>, %Y: memref<16x128xf32>) {
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 128>]
      ins(%P : memref<16x192xf32>) outs(%Y : memref<16x128xf32>)
      maps [affine_map<(i, j) -> (i, j mod 64 + 64)>, affine_map<(i, j) -> (i, j)>]
      attributes {schedule = #ext.schedule<tile = [4, 32], blocks = ["i", "j"], threads = [4, 32],
        cache = [#ext.cache<operand = 0>]>} {
  ^bb0(%p: f32):
    ext.yield %p : f32
  }
  return
}
