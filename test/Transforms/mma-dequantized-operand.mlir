// RUN: ext-opt %s --ext-apply-schedule --ext-kernel-to-gpu --ext-tile-ops-to-threads 2>/dev/null | FileCheck %s
// RUN: ext-opt %s --ext-apply-schedule --ext-kernel-to-gpu --ext-tile-ops-to-threads 2>/dev/null | FileCheck %s --check-prefix=COUNT
// RUN: ext-opt %s --ext-apply-schedule --ext-kernel-to-gpu --ext-tile-ops-to-threads -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK --allow-empty

// W4A16: C += A * ((nibble(Wq[n, k / 2], k % 2) - 8) * S[n, k / 128]). A
// keeps ldmatrix; B's fragment is built a register at a time in mma.sync's
// B layout (k = 2 t + c + 8 r, n = g; g = lane / 4, t = lane mod 4): the
// two k of a register share the packed byte and the group's scale, loaded
// once each; k % 2 is a constant per element, so both nibbles move into the
// halves of one 32-bit word ((w | w << 12) & 0x000F000F), ORed into the
// mantissa of 1024.0 in both halves (0x64006400: what
// ext-gpu-magic-number-lop3 makes one lop3.b32 of) and converted by one
// f16x2 subtraction; the
// centring and the scale are f16x2 ops.
// CHECK-LABEL: func @w4a16
// CHECK:       nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<16x32xf16, {{.*}}> -> vector<4x2xf16>
// CHECK:       %[[G:.*]] = arith.divui %[[LANE:.*]], %c4{{.*}} : index
// CHECK:       %[[T:.*]] = arith.remui %[[LANE]], %c4{{.*}} : index
// CHECK:       %[[N:.*]] = arith.addi %{{.*}}, %[[G]] : index
// CHECK:       %[[PACKED:.*]] = memref.load %[[WQ:.*]][%[[N]], %[[T]]] : memref<64x16xi8, {{.*}}#gpu.address_space<workgroup>>
// CHECK:       %[[SCALE:.*]] = memref.load %[[S:.*]][%[[N]], %c0{{.*}}] : memref<64x1xf16, {{.*}}#gpu.address_space<workgroup>>
// CHECK-NOT:   memref.load
// CHECK:       %[[WORD:.*]] = arith.extui %[[PACKED]] : i8 to i32
// CHECK:       %[[HIGH:.*]] = arith.shli %[[WORD]], %c12_i32
// CHECK:       %[[BOTH:.*]] = arith.ori %[[WORD]], %[[HIGH]] : i32
// CHECK:       %[[CODES:.*]] = arith.andi %[[BOTH]], %c983055_i32 : i32
// CHECK:       %[[MAGIC:.*]] = arith.ori %[[CODES]], %c1677747200_i32 : i32
// CHECK:       %[[V:.*]] = vector.broadcast %[[MAGIC]] : i32 to vector<1xi32>
// CHECK:       %[[F:.*]] = vector.bitcast %[[V]] : vector<1xi32> to vector<2xf16>
// CHECK:       %[[CODE:.*]] = arith.subf %[[F]], %{{.*}} : vector<2xf16>
// CHECK:       %[[CENTERED:.*]] = arith.subf %[[CODE]], %{{.*}} : vector<2xf16>
// CHECK:       %[[SCALES:.*]] = vector.broadcast %[[SCALE]] : f16 to vector<2xf16>
// CHECK:       %[[E01:.*]] = arith.mulf %[[CENTERED]], %[[SCALES]] : vector<2xf16>
// CHECK:       %[[R0:.*]] = vector.insert %[[E01]], %{{.*}} [0] : vector<2xf16> into vector<2x2xf16>
// The next register, k + 8: byte t + 4.
// CHECK:       %[[T4:.*]] = arith.addi %[[T]], %c4{{.*}} : index
// CHECK:       memref.load %[[WQ]][%{{.*}}, %[[T4]]]
// CHECK:       %[[E89:.*]] = arith.mulf {{.*}} : vector<2xf16>
// CHECK:       %[[FRAG:.*]] = vector.insert %[[E89]], %[[R0]] [1] : vector<2xf16> into vector<2x2xf16>
// CHECK:       nvgpu.mma.sync(%{{.*}}, %[[FRAG]], %{{.*}}) {mmaShape = [16, 8, 16]}

// Per 32-deep k tile: one ldmatrix.x4 of A per 16-deep step, none of B (two
// n8 tiles per warp: four mma.sync).
// COUNT:         nvgpu.ldmatrix
// COUNT-NOT:     nvgpu.ldmatrix
// COUNT-COUNT-2: nvgpu.mma.sync
// COUNT:         nvgpu.ldmatrix
// COUNT-NOT:     nvgpu.ldmatrix
// COUNT-COUNT-2: nvgpu.mma.sync
// COUNT-NOT:     nvgpu.ldmatrix
// COUNT-NOT:     nvgpu.mma.sync

// No fall back to CUDA cores, no scalar-load remark.
// REMARK-NOT: remark

func.func @w4a16(%A: memref<16x256xf16>, %Wq: memref<64x128xi8>, %S: memref<64x2xf16>, %C: memref<16x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"n", spatial, 64>, #ext.axis<"k", reduce, 256>]
      ins(%A, %Wq, %S : memref<16x256xf16>, memref<64x128xi8>, memref<64x2xf16>) outs(%C : memref<16x64xf32>)
      maps [affine_map<(i, n, k) -> (i, k)>, affine_map<(i, n, k) -> (n, k floordiv 2)>,
            affine_map<(i, n, k) -> (n, k floordiv 128)>, affine_map<(i, n, k) -> (i, n)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [16, 64, 32], blocks = ["i", "n"], threads = [4, 32, 1],
        mma = #ext.mma<m16n8k16>, warps = [1, 4],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>, #ext.cache<operand = 2>]>} {
  ^bb0(%a: f16, %wq: i8, %s: f16):
    %k = ext.index "k" : index
    %c2 = arith.constant 2 : index
    %odd = arith.remui %k, %c2 : index
    %odd8 = arith.index_cast %odd : index to i8
    %c4 = arith.constant 4 : i8
    %shift = arith.muli %odd8, %c4 : i8
    %byte = arith.shrui %wq, %shift : i8
    %c15 = arith.constant 15 : i8
    %code = arith.andi %byte, %c15 : i8
    %v = arith.uitofp %code : i8 to f16
    %c8 = arith.constant 8.0 : f16
    %centered = arith.subf %v, %c8 : f16
    %w = arith.mulf %centered, %s : f16
    %a32 = arith.extf %a : f16 to f32
    %w32 = arith.extf %w : f16 to f32
    %p = arith.mulf %a32, %w32 : f32
    ext.yield %p : f32
  }
  return
}
