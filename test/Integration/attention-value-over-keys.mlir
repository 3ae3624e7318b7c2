// Attention at a head of 256 on AMD (gfx942, MFMA 16x16x16, one stage): Q
// (32 x 256), K and V (64 x 256 each) and P do not fit the 64 KB of LDS
// together (87 KB), so the kernel copies V after the scores and
// ext-gpu-reuse-shared-memory gives V's tile K's bytes (54 KB), with the
// barriers that keeps apart the two GEMMs' uses of them: the shared memory
// reused between the two GEMMs. Checked against the same computes
// unscheduled, with racecheck, on the emulator.
//
// RUN: ext-run --chip=gfx942 --racecheck %s | FileCheck %s
// RUN: ext-opt %s --ext-gpu-pipeline="target=rocdl chip=gfx942" --mlir-print-ir-before=ext-gpu-reuse-shared-memory 2>&1 >/dev/null \
// RUN:   | sed -e '1,/IR Dump Before/d' | ext-opt --ext-gpu-reuse-shared-memory=report=true 2>&1 >/dev/null | FileCheck %s --check-prefix=REUSE

// REUSE: footprint 55296 B with reuse, 89088 B without: 33792 B shared

// The check's value, on the line after its header (whose `sizes = [1]
// strides = [1]` would satisfy a bare [1]).
// CHECK: data =
// CHECK-NEXT: {{^}}[1]{{$}}
// CHECK-NOT: data =

#bid = affine_map<(b, i, j, d) -> (b, i, d)>
#bjd = affine_map<(b, i, j, d) -> (b, j, d)>
#bij4 = affine_map<(b, i, j, d) -> (b, i, j)>
#bij = affine_map<(b, i, j) -> (b, i, j)>
#bi3 = affine_map<(b, i, j) -> (b, i)>
#o_s = affine_map<(b, i, e, j) -> (b, i, j)>
#o_m = affine_map<(b, i, e, j) -> (b, i)>
#o_v = affine_map<(b, i, e, j) -> (b, j, e)>
#o_o = affine_map<(b, i, e, j) -> (b, i, e)>
#bie = affine_map<(b, i, e) -> (b, i, e)>
#bi_e = affine_map<(b, i, e) -> (b, i)>
#i3 = affine_map<(b, i, d) -> (b, i, d)>
#e3 = affine_map<(b, i, d) -> ()>
#i2 = affine_map<(b, i) -> (b, i)>
#e2 = affine_map<(b, i) -> ()>

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @attn(%Q: memref<1x100x256xf16>, %K: memref<1x100x256xf16>, %V: memref<1x100x256xf16>, %Out: memref<1x100x256xf32>) {
  %S = memref.alloc() : memref<1x100x100xf32>
  %M = memref.alloc() : memref<1x100xf32>
  %L = memref.alloc() : memref<1x100xf32>
  %O = memref.alloc() : memref<1x100x256xf32>
  ext.compute [#ext.axis<"b", spatial, 1>, #ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 100>, #ext.axis<"d", reduce, 256>]
      ins(%Q, %K : memref<1x100x256xf16>, memref<1x100x256xf16>) outs(%S : memref<1x100x100xf32>)
      maps [#bid, #bjd, #bij4] combiner(sum) attributes {name = "scores"} {
  ^bb0(%q: f16, %k: f16):
    %a = arith.extf %q : f16 to f32
    %b = arith.extf %k : f16 to f32
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"b", spatial, 1>, #ext.axis<"i", spatial, 100>, #ext.axis<"j", reduce, 100>]
      ins(%S : memref<1x100x100xf32>) outs(%M : memref<1x100xf32>)
      maps [#bij, #bi3] combiner(max) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    %c = arith.constant 0.0625 : f32
    %t = arith.mulf %s, %c : f32
    ext.yield %t : f32
  }
  ext.compute [#ext.axis<"b", spatial, 1>, #ext.axis<"i", spatial, 100>, #ext.axis<"j", reduce, 100>]
      ins(%S, %M : memref<1x100x100xf32>, memref<1x100xf32>) outs(%L : memref<1x100xf32>)
      maps [#bij, #bi3, #bi3] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %c = arith.constant 0.0625 : f32
    %t = arith.mulf %s, %c : f32
    %d = arith.subf %t, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  ext.compute [#ext.axis<"b", spatial, 1>, #ext.axis<"i", spatial, 100>, #ext.axis<"e", spatial, 256>, #ext.axis<"j", reduce, 100>]
      ins(%S, %M, %V : memref<1x100x100xf32>, memref<1x100xf32>, memref<1x100x256xf16>) outs(%O : memref<1x100x256xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum)
      attributes {name = "acc", schedule = #ext.schedule<tile = [1, 32, 256, 64], blocks = ["b", "i"], threads = [1, 2, 64, 1], mma = #ext.mma<mfma_16x16x16>, warps = [2, 1], vector = 8, compute_at = [#ext.at<"scores", "j">], reverse_compute_at = [#ext.at<"out", "e">], online = ["row_max", "row_sum"]>} {
  ^bb0(%s: f32, %m: f32, %v: f16):
    %c = arith.constant 0.0625 : f32
    %t = arith.mulf %s, %c : f32
    %d = arith.subf %t, %m : f32
    %e = math.exp %d : f32
    %vf = arith.extf %v : f16 to f32
    %p = arith.mulf %e, %vf : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"b", spatial, 1>, #ext.axis<"i", spatial, 100>, #ext.axis<"e", spatial, 256>]
      ins(%O, %L : memref<1x100x256xf32>, memref<1x100xf32>) outs(%Out : memref<1x100x256xf32>)
      maps [#bie, #bi_e, #bie] attributes {name = "out"} {
  ^bb0(%o: f32, %l: f32):
    %r = arith.divf %o, %l : f32
    ext.yield %r : f32
  }
  memref.dealloc %S : memref<1x100x100xf32>
  memref.dealloc %M : memref<1x100xf32>
  memref.dealloc %L : memref<1x100xf32>
  memref.dealloc %O : memref<1x100x256xf32>
  return
}

func.func @ref_attn(%Q: memref<1x100x256xf16>, %K: memref<1x100x256xf16>, %V: memref<1x100x256xf16>, %Out: memref<1x100x256xf32>) {
  %S = memref.alloc() : memref<1x100x100xf32>
  %M = memref.alloc() : memref<1x100xf32>
  %L = memref.alloc() : memref<1x100xf32>
  %O = memref.alloc() : memref<1x100x256xf32>
  ext.compute [#ext.axis<"b", spatial, 1>, #ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 100>, #ext.axis<"d", reduce, 256>]
      ins(%Q, %K : memref<1x100x256xf16>, memref<1x100x256xf16>) outs(%S : memref<1x100x100xf32>)
      maps [#bid, #bjd, #bij4] combiner(sum) attributes {name = "scores"} {
  ^bb0(%q: f16, %k: f16):
    %a = arith.extf %q : f16 to f32
    %b = arith.extf %k : f16 to f32
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"b", spatial, 1>, #ext.axis<"i", spatial, 100>, #ext.axis<"j", reduce, 100>]
      ins(%S : memref<1x100x100xf32>) outs(%M : memref<1x100xf32>)
      maps [#bij, #bi3] combiner(max) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    %c = arith.constant 0.0625 : f32
    %t = arith.mulf %s, %c : f32
    ext.yield %t : f32
  }
  ext.compute [#ext.axis<"b", spatial, 1>, #ext.axis<"i", spatial, 100>, #ext.axis<"j", reduce, 100>]
      ins(%S, %M : memref<1x100x100xf32>, memref<1x100xf32>) outs(%L : memref<1x100xf32>)
      maps [#bij, #bi3, #bi3] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %c = arith.constant 0.0625 : f32
    %t = arith.mulf %s, %c : f32
    %d = arith.subf %t, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  ext.compute [#ext.axis<"b", spatial, 1>, #ext.axis<"i", spatial, 100>, #ext.axis<"e", spatial, 256>, #ext.axis<"j", reduce, 100>]
      ins(%S, %M, %V : memref<1x100x100xf32>, memref<1x100xf32>, memref<1x100x256xf16>) outs(%O : memref<1x100x256xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum) attributes {name = "acc"} {
  ^bb0(%s: f32, %m: f32, %v: f16):
    %c = arith.constant 0.0625 : f32
    %t = arith.mulf %s, %c : f32
    %d = arith.subf %t, %m : f32
    %e = math.exp %d : f32
    %vf = arith.extf %v : f16 to f32
    %p = arith.mulf %e, %vf : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"b", spatial, 1>, #ext.axis<"i", spatial, 100>, #ext.axis<"e", spatial, 256>]
      ins(%O, %L : memref<1x100x256xf32>, memref<1x100xf32>) outs(%Out : memref<1x100x256xf32>)
      maps [#bie, #bi_e, #bie] attributes {name = "out"} {
  ^bb0(%o: f32, %l: f32):
    %r = arith.divf %o, %l : f32
    ext.yield %r : f32
  }
  memref.dealloc %S : memref<1x100x100xf32>
  memref.dealloc %M : memref<1x100xf32>
  memref.dealloc %L : memref<1x100xf32>
  memref.dealloc %O : memref<1x100x256xf32>
  return
}

func.func @main() {
  // attn
  %attn_Q = memref.alloc() : memref<1x100x256xf16>
  %attn_K = memref.alloc() : memref<1x100x256xf16>
  %attn_V = memref.alloc() : memref<1x100x256xf16>
  ext.compute [#ext.axis<"b", spatial, 1>, #ext.axis<"i", spatial, 100>, #ext.axis<"d", spatial, 256>]
      outs(%attn_Q : memref<1x100x256xf16>) maps [#i3] {
  ^bb0:
    %b = ext.index "b" : index
    %i = ext.index "i" : index
    %d = ext.index "d" : index
    %v = affine.apply affine_map<(b, i, d) -> ((b * 5 + i * 7 + d * 3) mod 17)>(%b, %i, %d)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    %q = arith.constant 0.125 : f32
    %one = arith.constant 1.0 : f32
    %s = arith.mulf %vf, %q : f32
    %r = arith.subf %s, %one : f32
    %h = arith.truncf %r : f32 to f16
    ext.yield %h : f16
  }
  ext.compute [#ext.axis<"b", spatial, 1>, #ext.axis<"i", spatial, 100>, #ext.axis<"d", spatial, 256>]
      outs(%attn_K : memref<1x100x256xf16>) maps [#i3] {
  ^bb0:
    %b = ext.index "b" : index
    %i = ext.index "i" : index
    %d = ext.index "d" : index
    %v = affine.apply affine_map<(b, i, d) -> ((b * 3 + i * 11 + d * 5) mod 17)>(%b, %i, %d)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    %q = arith.constant 0.125 : f32
    %one = arith.constant 1.0 : f32
    %s = arith.mulf %vf, %q : f32
    %r = arith.subf %s, %one : f32
    %h = arith.truncf %r : f32 to f16
    ext.yield %h : f16
  }
  ext.compute [#ext.axis<"b", spatial, 1>, #ext.axis<"i", spatial, 100>, #ext.axis<"d", spatial, 256>]
      outs(%attn_V : memref<1x100x256xf16>) maps [#i3] {
  ^bb0:
    %b = ext.index "b" : index
    %i = ext.index "i" : index
    %d = ext.index "d" : index
    %v = affine.apply affine_map<(b, i, d) -> ((b * 7 + i * 2 + d * 9) mod 17)>(%b, %i, %d)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    %q = arith.constant 0.125 : f32
    %one = arith.constant 1.0 : f32
    %s = arith.mulf %vf, %q : f32
    %r = arith.subf %s, %one : f32
    %h = arith.truncf %r : f32 to f16
    ext.yield %h : f16
  }
  %attn_O = memref.alloc() : memref<1x100x256xf32>
  %attn_R = memref.alloc() : memref<1x100x256xf32>
  call @attn(%attn_Q, %attn_K, %attn_V, %attn_O) : (memref<1x100x256xf16>, memref<1x100x256xf16>, memref<1x100x256xf16>, memref<1x100x256xf32>) -> ()
  call @ref_attn(%attn_Q, %attn_K, %attn_V, %attn_R) : (memref<1x100x256xf16>, memref<1x100x256xf16>, memref<1x100x256xf16>, memref<1x100x256xf32>) -> ()
  %attn_err = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"b", reduce, 1>, #ext.axis<"i", reduce, 100>, #ext.axis<"d", reduce, 256>]
      ins(%attn_O, %attn_R : memref<1x100x256xf32>, memref<1x100x256xf32>) outs(%attn_err : memref<f32>)
      maps [#i3, #i3, #e3] combiner(max) {
  ^bb0(%y: f32, %r: f32):
    %d = arith.subf %y, %r : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }
  %attn_ok = memref.alloc() : memref<1xf32>
  ext.compute [#ext.axis<"o", spatial, 1>] ins(%attn_err, %attn_err : memref<f32>, memref<f32>) outs(%attn_ok : memref<1xf32>)
      maps [affine_map<(o) -> ()>, affine_map<(o) -> ()>, affine_map<(o) -> (o)>] {
  ^bb0(%e: f32, %le: f32):
    %tol = arith.constant 1.0e-3 : f32
    %ltol = arith.constant 1.0e-3 : f32
    %small0 = arith.cmpf olt, %e, %tol : f32
    %lsmall = arith.cmpf olt, %le, %ltol : f32
    %small = arith.andi %small0, %lsmall : i1
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.select %small, %one, %zero : f32
    ext.yield %r : f32
  }
  %attn_u = memref.cast %attn_ok : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%attn_u) : (memref<*xf32>) -> ()
  return
}
