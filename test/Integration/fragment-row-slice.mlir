// The row statistics of an MMA fragment kept in registers: the row max and
// row sum of a fragment reduction go into fragments of the layout's slice
// (#ext.slice<dim = 1, parent = #ext.mma<...>>): every lane that holds a
// row keeps the row's value, so the sum reads the max straight from
// registers (no shared memory, no barrier between them), and the final
// store to memory is made by one lane per row (racecheck would report the
// others' duplicate writes). The same computation as
// fragment-row-reduction.mlir, checked against the same reference.
//
// RUN: ext-run --racecheck %s | FileCheck %s
// RUN: sed -e 's/m16n8k16/mfma_16x16x16/g; s/threads \[4, 32/threads [4, 64/g; s/threads 128/threads 256/; s/threads \[128\]/threads [256]/g' %s \
// RUN:   | ext-run --chip=gfx942 --racecheck - | FileCheck %s
// RUN: ext-opt --ext-apply-schedule --ext-kernel-to-gpu --ext-tile-ops-to-threads %s | FileCheck %s --check-prefix=LOWERED
// RUN: ext-opt %s | ext-opt | FileCheck %s --check-prefix=ROUNDTRIP

// ROUNDTRIP: ext.alloc_fragment threads [128] layout(#ext.slice<dim = 1, parent = #ext.mma<m16n8k16, warps = [4, 1]>>) : memref<64xf32>

// The max reduction's shuffles, then the sum's, with no barrier in
// between; the final stores under the owner lane's test.
// LOWERED-LABEL: func.func @rows(
// LOWERED: gpu.shuffle xor %{{.*}}, %c1_i32
// LOWERED: gpu.shuffle xor %{{.*}}, %c2_i32
// LOWERED-NOT: gpu.barrier
// LOWERED: math.exp %
// LOWERED-NOT: gpu.barrier
// LOWERED: gpu.shuffle xor %{{.*}}, %c2_i32
// LOWERED-NOT: gpu.barrier
// LOWERED: memref.store {{.*}} : memref<64xf32>
// LOWERED-LABEL: func.func @main(

// CHECK: [1,  1]

#a = affine_map<(i, j, d) -> (i, d)>
#b = affine_map<(i, j, d) -> (j, d)>
#c = affine_map<(i, j, d) -> (i, j)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#id1 = affine_map<(i) -> (i)>
#L = #ext.mma<m16n8k16, warps = [4, 1]>
#S = #ext.slice<dim = 1, parent = #L>

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @rows(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %M: memref<64xf32>, %S: memref<64xf32>) {
  ext.kernel tiles [1] iters 1 threads 128 decomposition #ext.data_parallel {
  ^bb0(%t: index, %kb: index, %ke: index):
    %c0 = arith.constant 0 : index
    %as = ext.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %bs = ext.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %ms = ext.alloc_fragment threads [128] layout(#S) : memref<64xf32>
    %ss = ext.alloc_fragment threads [128] layout(#S) : memref<64xf32>
    ext.copy %A[%c0, %c0] to %as {vector = 8 : i64} : memref<64x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
    ext.copy %B[%c0, %c0] to %bs {vector = 8 : i64} : memref<64x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
    %f = ext.alloc_fragment threads [4, 32] layout(#L) : memref<64x64xf32>
    ext.tile_compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>] threads [4, 32] layout #L outs(%f : memref<64x64xf32>) maps [#id] {
      %z = arith.constant 0.0 : f32
      ext.yield %z : f32
    }
    ext.tile_compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"d", reduce, 64>] threads [4, 32, 1] layout #L ins(%as, %bs : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>) outs(%f : memref<64x64xf32>) maps [#a, #b, #c] combiner(sum) accumulate {
    ^bb0(%x: f16, %y: f16):
      %xf = arith.extf %x : f16 to f32
      %yf = arith.extf %y : f16 to f32
      %p = arith.mulf %xf, %yf : f32
      ext.yield %p : f32
    }
    ext.tile_compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", reduce, 64>] threads [4, 32] layout #L ins(%f : memref<64x64xf32>) outs(%ms : memref<64xf32>) maps [#id, #row] combiner(max) {
    ^bb0(%v: f32):
      ext.yield %v : f32
    }
    // A row sum of exp(v - max) over the first 50 columns, added to 1.
    ext.tile_compute [#ext.axis<"i", spatial, 64>] threads [128] layout #S outs(%ss : memref<64xf32>) maps [#id1] {
      %one = arith.constant 1.0 : f32
      ext.yield %one : f32
    }
    %c64 = arith.constant 64 : index
    %c50 = arith.constant 50 : index
    ext.tile_compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", reduce, 64>] threads [4, 32] layout #L bounds(%c64, %c50) ins(%f, %ms : memref<64x64xf32>, memref<64xf32>) outs(%ss : memref<64xf32>) maps [#id, #row, #row] combiner(sum) accumulate {
    ^bb0(%v: f32, %m: f32):
      %d = arith.subf %v, %m : f32
      %e = math.exp %d : f32
      ext.yield %e : f32
    }
    ext.tile_compute [#ext.axis<"i", spatial, 64>] threads [128] layout #S ins(%ms, %ss : memref<64xf32>, memref<64xf32>) outs(%M, %S : memref<64xf32>, memref<64xf32>) maps [#id1, #id1, #id1, #id1] {
    ^bb0(%m: f32, %s: f32):
      ext.yield %m, %s : f32, f32
    }
    ext.kernel_yield
  } epilogue {
  ^bb0(%t: index):
    ext.kernel_yield
  }
  return
}

func.func @main() {
  %A = memref.alloc() : memref<64x64xf16>
  %B = memref.alloc() : memref<64x64xf16>
  %M = memref.alloc() : memref<64xf32>
  %S = memref.alloc() : memref<64xf32>
  %P = memref.alloc() : memref<64x64xf32>
  %RM = memref.alloc() : memref<64xf32>
  %RS = memref.alloc() : memref<64xf32>
  %err = memref.alloc() : memref<2xf32>
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"d", spatial, 64>] outs(%A : memref<64x64xf16>) maps [#id] {
  ^bb0:
    %i = ext.index "i" : index
    %d = ext.index "d" : index
    %v = affine.apply affine_map<(i, d) -> ((i * 7 + d * 3) mod 13)>(%i, %d)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f16
    %q = arith.constant 0.125 : f16
    %r = arith.mulf %vf, %q : f16
    ext.yield %r : f16
  }
  ext.compute [#ext.axis<"j", spatial, 64>, #ext.axis<"d", spatial, 64>] outs(%B : memref<64x64xf16>) maps [#id] {
  ^bb0:
    %j = ext.index "j" : index
    %d = ext.index "d" : index
    %v = affine.apply affine_map<(j, d) -> ((j * 5 + d * 11) mod 7)>(%j, %d)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f16
    %q = arith.constant 0.25 : f16
    %h = arith.constant 0.75 : f16
    %s = arith.mulf %vf, %q : f16
    %r = arith.subf %s, %h : f16
    ext.yield %r : f16
  }
  call @rows(%A, %B, %M, %S) : (memref<64x64xf16>, memref<64x64xf16>, memref<64xf32>, memref<64xf32>) -> ()
  // The reference: the same products, row max, and 1 + sum over j < 50.
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"d", reduce, 64>]
      ins(%A, %B : memref<64x64xf16>, memref<64x64xf16>) outs(%P : memref<64x64xf32>)
      maps [#a, #b, #c] combiner(sum) {
  ^bb0(%x: f16, %y: f16):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", reduce, 64>] ins(%P : memref<64x64xf32>) outs(%RM : memref<64xf32>)
      maps [#id, #row] combiner(max) {
  ^bb0(%v: f32):
    ext.yield %v : f32
  }
  ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", reduce, 64>] ins(%P, %RM : memref<64x64xf32>, memref<64xf32>) outs(%RS : memref<64xf32>)
      maps [#id, #row, #row] combiner(sum) {
  ^bb0(%v: f32, %m: f32):
    %d = arith.subf %v, %m : f32
    %e = math.exp %d : f32
    %j = ext.index "j" : index
    %c50 = arith.constant 50 : index
    %in = arith.cmpi ult, %j, %c50 : index
    %z = arith.constant 0.0 : f32
    %r = arith.select %in, %e, %z : f32
    ext.yield %r : f32
  }
  // ok[0]: the max exactly; ok[1]: 1 + the sum within 1e-5.
  ext.compute [#ext.axis<"k", spatial, 2>, #ext.axis<"i", reduce, 64>]
      ins(%M, %RM, %S, %RS : memref<64xf32>, memref<64xf32>, memref<64xf32>, memref<64xf32>) outs(%err : memref<2xf32>)
      maps [affine_map<(k, i) -> (i)>, affine_map<(k, i) -> (i)>, affine_map<(k, i) -> (i)>, affine_map<(k, i) -> (i)>, affine_map<(k, i) -> (k)>]
      combiner(min) {
  ^bb0(%m: f32, %rm: f32, %s: f32, %rs: f32):
    %k = ext.index "k" : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %k, %c0 : index
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %meq = arith.cmpf oeq, %m, %rm : f32
    %rs1 = arith.addf %rs, %one : f32
    %d = arith.subf %s, %rs1 : f32
    %ad = math.absf %d : f32
    %tol = arith.constant 1.0e-5 : f32
    %sok = arith.cmpf olt, %ad, %tol : f32
    %ok = arith.select %first, %meq, %sok : i1
    %r = arith.select %ok, %one, %zero : f32
    ext.yield %r : f32
  }
  %u = memref.cast %err : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
