// RUN: ext-opt %s --split-input-file --verify-diagnostics --ext-apply-schedule
// Schedules with `online` whose computes are not of the online-softmax shape
// (a max reduction M, sums over the same keys that read M only in a factor
// exp(x - h(M)); a split of the keys over CTAs with the statistics in
// registers) are refused at the
// scheduled compute, naming the compute and the reason.

// -----

#ij = affine_map<(i, j) -> (i, j)>
#i = affine_map<(i, j) -> (i)>
#o_s = affine_map<(i, e, j) -> (i, j)>
#o_m = affine_map<(i, e, j) -> (i)>
#o_v = affine_map<(i, e, j) -> (j, e)>
#o_o = affine_map<(i, e, j) -> (i, e)>
func.func @one_name(%S: memref<16x32xf32>, %V: memref<32x8xf32>, %O: memref<16x8xf32>) {
  %M = memref.alloc() : memref<16xf32>
  %L = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S : memref<16x32xf32>) outs(%M : memref<16xf32>)
      maps [#ij, #i] combiner(max) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    ext.yield %s : f32
  }
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M : memref<16x32xf32>, memref<16xf32>) outs(%L : memref<16xf32>)
      maps [#ij, #i, #i] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  // expected-error @+4 {{online names the max reduction and at least one sum over the same axis (['M', 'L']); it names only 'row_max'}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"e", spatial, 8>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M, %V : memref<16x32xf32>, memref<16xf32>, memref<32x8xf32>) outs(%O : memref<16x8xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum)
      attributes {name = "acc", schedule = #ext.schedule<tile = [16, 8, 16], blocks = ["i"], threads = [4, 8, 1], online = ["row_max"]>} {
  ^bb0(%s: f32, %m: f32, %v: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    %p = arith.mulf %e, %v : f32
    ext.yield %p : f32
  }
  memref.dealloc %M : memref<16xf32>
  memref.dealloc %L : memref<16xf32>
  return
}

// -----

#ij = affine_map<(i, j) -> (i, j)>
#i = affine_map<(i, j) -> (i)>
#o_s = affine_map<(i, e, j) -> (i, j)>
#o_m = affine_map<(i, e, j) -> (i)>
#o_v = affine_map<(i, e, j) -> (j, e)>
#o_o = affine_map<(i, e, j) -> (i, e)>
func.func @not_max(%S: memref<16x32xf32>, %V: memref<32x8xf32>, %O: memref<16x8xf32>) {
  %M = memref.alloc() : memref<16xf32>
  %L = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S : memref<16x32xf32>) outs(%M : memref<16xf32>)
      maps [#ij, #i] combiner(sum) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    ext.yield %s : f32
  }
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M : memref<16x32xf32>, memref<16xf32>) outs(%L : memref<16xf32>)
      maps [#ij, #i, #i] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: online: 'row_max' must be a max reduction with one output}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"e", spatial, 8>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M, %V : memref<16x32xf32>, memref<16xf32>, memref<32x8xf32>) outs(%O : memref<16x8xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum)
      attributes {name = "acc", schedule = #ext.schedule<tile = [16, 8, 16], blocks = ["i"], threads = [4, 8, 1], online = ["row_max", "row_sum"]>} {
  ^bb0(%s: f32, %m: f32, %v: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    %p = arith.mulf %e, %v : f32
    ext.yield %p : f32
  }
  memref.dealloc %M : memref<16xf32>
  memref.dealloc %L : memref<16xf32>
  return
}

// -----

#ij = affine_map<(i, j) -> (i, j)>
#i = affine_map<(i, j) -> (i)>
#o_s = affine_map<(i, e, j) -> (i, j)>
#o_m = affine_map<(i, e, j) -> (i)>
#o_v = affine_map<(i, e, j) -> (j, e)>
#o_o = affine_map<(i, e, j) -> (i, e)>
func.func @m_outside_exp(%S: memref<16x32xf32>, %V: memref<32x8xf32>, %O: memref<16x8xf32>) {
  %M = memref.alloc() : memref<16xf32>
  %L = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S : memref<16x32xf32>) outs(%M : memref<16xf32>)
      maps [#ij, #i] combiner(max) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    ext.yield %s : f32
  }
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M : memref<16x32xf32>, memref<16xf32>) outs(%L : memref<16xf32>)
      maps [#ij, #i, #i] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %x = arith.mulf %s, %m : f32
    ext.yield %x : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: online: 'row_sum' must read 'row_max' only in a factor exp(x - h('row_max')) of its summand (the online rewrite rescales that factor); no subtraction x - h(m) found}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"e", spatial, 8>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M, %V : memref<16x32xf32>, memref<16xf32>, memref<32x8xf32>) outs(%O : memref<16x8xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum)
      attributes {name = "acc", schedule = #ext.schedule<tile = [16, 8, 16], blocks = ["i"], threads = [4, 8, 1], online = ["row_max", "row_sum"]>} {
  ^bb0(%s: f32, %m: f32, %v: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    %p = arith.mulf %e, %v : f32
    ext.yield %p : f32
  }
  memref.dealloc %M : memref<16xf32>
  memref.dealloc %L : memref<16xf32>
  return
}

// -----

#ij = affine_map<(i, j) -> (i, j)>
#i = affine_map<(i, j) -> (i)>
#o_s = affine_map<(i, e, j) -> (i, j)>
#o_m = affine_map<(i, e, j) -> (i)>
#o_v = affine_map<(i, e, j) -> (j, e)>
#o_o = affine_map<(i, e, j) -> (i, e)>
func.func @exp_squared(%S: memref<16x32xf32>, %V: memref<32x8xf32>, %O: memref<16x8xf32>) {
  %M = memref.alloc() : memref<16xf32>
  %L = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S : memref<16x32xf32>) outs(%M : memref<16xf32>)
      maps [#ij, #i] combiner(max) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    ext.yield %s : f32
  }
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M : memref<16x32xf32>, memref<16xf32>) outs(%L : memref<16xf32>)
      maps [#ij, #i, #i] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    %e2 = arith.mulf %e, %e : f32
    ext.yield %e2 : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: online: 'row_sum' must read 'row_max' only in a factor exp(x - h('row_max')) of its summand (the online rewrite rescales that factor); 'arith.mulf' applies to it}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"e", spatial, 8>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M, %V : memref<16x32xf32>, memref<16xf32>, memref<32x8xf32>) outs(%O : memref<16x8xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum)
      attributes {name = "acc", schedule = #ext.schedule<tile = [16, 8, 16], blocks = ["i"], threads = [4, 8, 1], online = ["row_max", "row_sum"]>} {
  ^bb0(%s: f32, %m: f32, %v: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    %p = arith.mulf %e, %v : f32
    ext.yield %p : f32
  }
  memref.dealloc %M : memref<16xf32>
  memref.dealloc %L : memref<16xf32>
  return
}

// -----

#ij = affine_map<(i, j) -> (i, j)>
#i = affine_map<(i, j) -> (i)>
#o_s = affine_map<(i, e, j) -> (i, j)>
#o_m = affine_map<(i, e, j) -> (i)>
#o_v = affine_map<(i, e, j) -> (j, e)>
#o_o = affine_map<(i, e, j) -> (i, e)>
func.func @split_k(%S: memref<16x32xf32>, %V: memref<32x8xf32>, %O: memref<16x8xf32>) {
  %M = memref.alloc() : memref<16xf32>
  %L = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S : memref<16x32xf32>) outs(%M : memref<16xf32>)
      maps [#ij, #i] combiner(max) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    ext.yield %s : f32
  }
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M : memref<16x32xf32>, memref<16xf32>) outs(%L : memref<16xf32>)
      maps [#ij, #i, #i] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  // Split-KV stores each CTA's partial state from registers: the CUDA-core
  // form keeps its row statistics in shared memory.
  // expected-error @+1 {{'ext.compute' op schedule: online: splitting the keys over CTAs (#ext.split_k<slices = 2>) needs the row statistics in registers, which a partial state is stored from: mma with warps [W, 1] (each row's scores in one warp)}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"e", spatial, 8>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M, %V : memref<16x32xf32>, memref<16xf32>, memref<32x8xf32>) outs(%O : memref<16x8xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum)
      attributes {name = "acc", schedule = #ext.schedule<tile = [16, 8, 16], blocks = ["i"], threads = [4, 8, 1], decomposition = #ext.split_k<slices = 2>, online = ["row_max", "row_sum"]>} {
  ^bb0(%s: f32, %m: f32, %v: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    %p = arith.mulf %e, %v : f32
    ext.yield %p : f32
  }
  memref.dealloc %M : memref<16xf32>
  memref.dealloc %L : memref<16xf32>
  return
}

// -----

#ij = affine_map<(i, j) -> (i, j)>
#i = affine_map<(i, j) -> (i)>
#o_s = affine_map<(i, e, j) -> (i, j)>
#o_m = affine_map<(i, e, j) -> (i)>
#o_v = affine_map<(i, e, j) -> (j, e)>
#o_o = affine_map<(i, e, j) -> (i, e)>
func.func @not_product(%S: memref<16x32xf32>, %V: memref<32x8xf32>, %O: memref<16x8xf32>) {
  %M = memref.alloc() : memref<16xf32>
  %L = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S : memref<16x32xf32>) outs(%M : memref<16xf32>)
      maps [#ij, #i] combiner(max) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    ext.yield %s : f32
  }
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M : memref<16x32xf32>, memref<16xf32>) outs(%L : memref<16xf32>)
      maps [#ij, #i, #i] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: online: 'acc' must read 'row_max' only in a factor exp(x - h('row_max')) of its summand (the online rewrite rescales that factor); 'arith.addf' applies to it}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"e", spatial, 8>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M, %V : memref<16x32xf32>, memref<16xf32>, memref<32x8xf32>) outs(%O : memref<16x8xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum)
      attributes {name = "acc", schedule = #ext.schedule<tile = [16, 8, 16], blocks = ["i"], threads = [4, 8, 1], online = ["row_max", "row_sum"]>} {
  ^bb0(%s: f32, %m: f32, %v: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    %p = arith.addf %e, %v : f32
    ext.yield %p : f32
  }
  memref.dealloc %M : memref<16xf32>
  memref.dealloc %L : memref<16xf32>
  return
}

// -----

#ij = affine_map<(i, j) -> (i, j)>
#i = affine_map<(i, j) -> (i)>
#o_s = affine_map<(i, e, j) -> (i, j)>
#o_m = affine_map<(i, e, j) -> (i)>
#o_v = affine_map<(i, e, j) -> (j, e)>
#o_o = affine_map<(i, e, j) -> (i, e)>
func.func @key_axis_at(%S: memref<16x32xf32>, %V: memref<32x8xf32>, %O: memref<16x8xf32>) {
  %M = memref.alloc() : memref<16xf32>
  %L = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S : memref<16x32xf32>) outs(%M : memref<16xf32>)
      maps [#ij, #i] combiner(max) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    ext.yield %s : f32
  }
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M : memref<16x32xf32>, memref<16xf32>) outs(%L : memref<16xf32>)
      maps [#ij, #i, #i] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  // expected-error @+4 {{schedule attaches 'row_max' twice}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"e", spatial, 8>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M, %V : memref<16x32xf32>, memref<16xf32>, memref<32x8xf32>) outs(%O : memref<16x8xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum)
      attributes {name = "acc", schedule = #ext.schedule<tile = [16, 8, 16], blocks = ["i"], threads = [4, 8, 1], compute_at = [#ext.at<"row_max", "i">], online = ["row_sum", "row_max"]>} {
  ^bb0(%s: f32, %m: f32, %v: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    %p = arith.mulf %e, %v : f32
    ext.yield %p : f32
  }
  memref.dealloc %M : memref<16xf32>
  memref.dealloc %L : memref<16xf32>
  return
}

// -----

#ij = affine_map<(i, j) -> (i, j)>
#i = affine_map<(i, j) -> (i)>
#o_s = affine_map<(i, e, j) -> (i, j)>
#o_m = affine_map<(i, e, j) -> (i)>
#o_v = affine_map<(i, e, j) -> (j, e)>
#o_o = affine_map<(i, e, j) -> (i, e)>
func.func @p_reads_e(%S: memref<16x32xf32>, %V: memref<32x8xf32>, %O: memref<16x8xf32>) {
  %M = memref.alloc() : memref<16xf32>
  %L = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S : memref<16x32xf32>) outs(%M : memref<16xf32>)
      maps [#ij, #i] combiner(max) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    ext.yield %s : f32
  }
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M : memref<16x32xf32>, memref<16xf32>) outs(%L : memref<16xf32>)
      maps [#ij, #i, #i] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  // expected-error @+1 {{'ext.compute' op schedule: online: the softmax factor of 'acc' reads the index of value axis 'e'}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"e", spatial, 8>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M, %V : memref<16x32xf32>, memref<16xf32>, memref<32x8xf32>) outs(%O : memref<16x8xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum)
      attributes {name = "acc", schedule = #ext.schedule<tile = [16, 8, 16], blocks = ["i"], threads = [4, 8, 1], online = ["row_max", "row_sum"]>} {
  ^bb0(%s: f32, %m: f32, %v: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    %ei = ext.index "e" : index
    %c = arith.index_cast %ei : index to i32
    %cf = arith.sitofp %c : i32 to f32
    %w = arith.mulf %e, %cf : f32
    %p = arith.mulf %w, %v : f32
    ext.yield %p : f32
  }
  memref.dealloc %M : memref<16xf32>
  memref.dealloc %L : memref<16xf32>
  return
}


// -----

// The scores' reduce axis (the head) is done whole in each key step: it
// cannot be dynamic (a dynamic query or key length can).
#s_q = affine_map<(i, j, d) -> (i, d)>
#s_k = affine_map<(i, j, d) -> (j, d)>
#s_s = affine_map<(i, j, d) -> (i, j)>
#ij = affine_map<(i, j) -> (i, j)>
#i = affine_map<(i, j) -> (i)>
#o_s = affine_map<(i, e, j) -> (i, j)>
#o_m = affine_map<(i, e, j) -> (i)>
#o_v = affine_map<(i, e, j) -> (j, e)>
#o_o = affine_map<(i, e, j) -> (i, e)>
func.func @dynamic_head(%Q: memref<16x?xf32>, %K: memref<32x?xf32>, %V: memref<32x8xf32>, %O: memref<16x8xf32>) {
  %S = memref.alloc() : memref<16x32xf32>
  %M = memref.alloc() : memref<16xf32>
  %L = memref.alloc() : memref<16xf32>
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 32>, #ext.axis<"d", reduce, ?>]
      ins(%Q, %K : memref<16x?xf32>, memref<32x?xf32>) outs(%S : memref<16x32xf32>)
      maps [#s_q, #s_k, #s_s] combiner(sum) attributes {name = "scores"} {
  ^bb0(%q: f32, %k: f32):
    %p = arith.mulf %q, %k : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S : memref<16x32xf32>) outs(%M : memref<16xf32>)
      maps [#ij, #i] combiner(max) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    ext.yield %s : f32
  }
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M : memref<16x32xf32>, memref<16xf32>) outs(%L : memref<16xf32>)
      maps [#ij, #i, #i] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  // expected-error @+1 {{schedule: online: compute_at 'scores': its reduce axis 'd' (the head) has a dynamic extent; each key step reduces it whole, so it must be static}}
  ext.compute [#ext.axis<"i", spatial, 16>, #ext.axis<"e", spatial, 8>, #ext.axis<"j", reduce, 32>]
      ins(%S, %M, %V : memref<16x32xf32>, memref<16xf32>, memref<32x8xf32>) outs(%O : memref<16x8xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum)
      attributes {name = "acc", schedule = #ext.schedule<tile = [16, 8, 16], blocks = ["i"], threads = [4, 8, 1], compute_at = [#ext.at<"scores", "j">], online = ["row_max", "row_sum"]>} {
  ^bb0(%s: f32, %m: f32, %v: f32):
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    %p = arith.mulf %e, %v : f32
    ext.yield %p : f32
  }
  memref.dealloc %S : memref<16x32xf32>
  memref.dealloc %M : memref<16xf32>
  memref.dealloc %L : memref<16xf32>
  return
}
