// The online-softmax rewrite (FlashAttention's forward pass) from computes:
// S = Q K^T, the row max M and row sum L of exp(scale S - M) over the keys,
// O = exp(scale S - M) V, out = O / L. The schedule of O names M and L in
// `online`, attaches S at the key axis (computed per k-step, on tensor cores
// under `mma`) and fuses the division (reverse_compute_at): one kernel, S and
// P on chip only. @attn: 2 x 100 x 100, head dim 64, f16 on mma.sync (ragged
// rows and keys). @attn_causal: 3 x 80 queries x 100 keys with a bottom-right
// causal mask (key j visible to query i iff j <= i + 20) in an inlined
// element-wise compute, so key tiles past a row tile's diagonal are skipped;
// L is a function argument and is stored too. @attn_simt: f32 without tensor
// cores, 37 x 45 keys, head dim 32.
// @main checks each against the same computes unscheduled.
//
// RUN: ext-opt --ext-apply-schedule %s | FileCheck %s --check-prefix=KERNEL
// RUN: ext-opt --ext-schedule-to-gpu %s | FileCheck %s --check-prefix=GPU
// RUN: ext-run --racecheck %s | FileCheck %s
// RUN: ext-opt %s --ext-gpu-pipeline="target=nvvm chip=sm_80" 2>/dev/null | ext-translate --ext-to-ptx --ext-gpu-module=attn_kernel -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: sed -e "s/threads = \[1, \([0-9]\), 32, 1\], mma = #ext.mma<m16n8k16>/threads = [1, \1, 64, 1], mma = #ext.mma<mfma_16x16x16>/" %s \
// RUN:   | ext-opt --ext-gpu-pipeline="target=rocdl chip=gfx942" 2>/dev/null | ext-translate --ext-to-hsaco --ext-gpu-module=attn_kernel -o %t.hsaco
// RUN: llvm-objdump -d --mcpu=gfx942 %t.hsaco | FileCheck %s --check-prefix=MFMA
// RUN: sed -e "s/threads = \[1, \([0-9]\), 32, 1\], mma = #ext.mma<m16n8k16>/threads = [1, \1, 64, 1], mma = #ext.mma<mfma_16x16x16>/" %s \
// RUN:   | ext-run --chip=gfx942 - | FileCheck %s
// stages = 2: K and V copied one step ahead (cp.async) into two buffers
// each; with one wait too few the result goes wrong.
// RUN: sed -e "s/vector = 8,/vector = 8, stages = 2,/" %s | ext-run --racecheck - | FileCheck %s
// RUN: sed -e "s/vector = 8,/vector = 8, stages = 2,/" %s | ext-run --weaken-async-wait - | FileCheck %s --check-prefix=WEAK
// sm_90a: mma = auto picks wgmma for both GEMMs where 4 warps hold 64 rows
// (@attn; @attn_causal's 32 rows stay on mma.sync), exact on the emulator.
// RUN: sed -e "s/mma = #ext.mma<m16n8k16>/mma = auto/" %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e "s/mma = #ext.mma<m16n8k16>/mma = auto/" %s | ext-opt --ext-gpu-pipeline="target=nvvm chip=sm_90a" 2>/dev/null \
// RUN:   | ext-translate --ext-to-ptx --ext-gpu-module=attn_kernel | FileCheck %s --check-prefix=WGMMA
// The keys split over CTAs (split-KV, FlashDecoding's): each work unit
// leaves its state (acc, m, l), which the fixup combines with the kernel's
// reducer over whole fragments; the epilogue runs on the combined state.
// RUN: sed -e "s/vector = 8,/vector = 8, decomposition = #ext.split_k<slices = 2>,/" %s | ext-opt --ext-apply-schedule | FileCheck %s --check-prefix=SPLIT
// RUN: sed -e "s/vector = 8,/vector = 8, decomposition = #ext.split_k<slices = 2>,/" %s | ext-run --racecheck - | FileCheck %s
// RUN: sed -e "s/vector = 8,/vector = 8, stages = 2, decomposition = #ext.stream_k<grid = 3>,/" %s | ext-run --racecheck --emu-seed=7 - | FileCheck %s
// RUN: sed -e "s/vector = 8,/vector = 8, decomposition = #ext.split_k<slices = 2>,/" -e "s/mma = #ext.mma<m16n8k16>/mma = auto/" %s | ext-run --chip=sm_90a --racecheck - | FileCheck %s
// RUN: sed -e "s/threads = \[1, \([0-9]\), 32, 1\], mma = #ext.mma<m16n8k16>/threads = [1, \1, 64, 1], mma = #ext.mma<mfma_16x16x16>/" \
// RUN:     -e "s/vector = 8,/vector = 8, decomposition = #ext.stream_k<grid = 3>,/" %s | ext-run --chip=gfx942 --racecheck - | FileCheck %s

// SPLIT-LABEL: func.func @attn(
// SPLIT: ext.kernel tiles [2, 2] iters 2 threads 128 decomposition #ext.split_k<slices = 2> combiner(custom)
// SPLIT: ext.kernel_yield %{{.*}}, %{{.*}}, %{{.*}} : memref<64x64xf32>, memref<64xf32>, memref<64xf32>
// SPLIT: } epilogue {
// SPLIT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[ACC:.*]]: memref<64x64xf32>, %{{.*}}: memref<64xf32>, %[[L:.*]]: memref<64xf32>):
// SPLIT: arith.divf
// SPLIT: } reducer {
// SPLIT: arith.maximumf
// SPLIT: math.exp
// SPLIT: ext.yield
// SPLIT-LABEL: func.func @ref_attn(

// KERNEL-LABEL: func.func @attn(
// KERNEL: ext.kernel tiles [2, 2] iters 2 threads 128
// KERNEL: scf.for
// KERNEL: ext.tile_compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>, #ext.axis<"d", reduce, 64>] {{.*}} layout #ext.mma<m16n8k16, warps = [4, 1]>
// KERNEL: combiner(max)
// P once, into registers (a 64 x 64 f32 fragment): the row sum folds it
// without an exp of its own, and P's shared tile is written from it.
// KERNEL: ext.tile_compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 64>] {{.*}} outs(%[[P:[0-9]+]] : memref<64x64xf32>)
// KERNEL: math.exp %
// KERNEL: ext.tile_compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", reduce, 64>] {{.*}} ins(%[[P]] : memref<64x64xf32>) {{.*}} combiner(sum) accumulate
// KERNEL-NOT: math.exp
// KERNEL: ext.tile_compute {{.*}} ins(%[[P]] : memref<64x64xf32>) outs(%{{.*}} : memref<64x64xf16
// KERNEL: ext.tile_compute [#ext.axis<"i", spatial, 64>, #ext.axis<"e", spatial, 64>, #ext.axis<"j", reduce, 64>] {{.*}} layout #ext.mma<m16n8k16, warps = [4, 1]> {{.*}} combiner(sum) accumulate
// KERNEL: arith.divf
// KERNEL-NOT: ext.compute
// KERNEL-LABEL: func.func @ref_attn(
// The causal kernel stops at the row tile's last visible key tile.
// KERNEL-LABEL: func.func @attn_causal(
// KERNEL: %[[END:.*]] = arith.ceildivui
// KERNEL: %[[LOOPEND:.*]] = arith.minsi %{{.*}}, %[[END]]
// KERNEL: scf.for %{{.*}} = %{{.*}} to %[[LOOPEND]]

// One kernel each, and nothing of S's size is stored: the only global
// stores are O's and (causal) L's.
// GPU-LABEL: func.func @attn(
// GPU: gpu.launch
// GPU-NOT: 2x100x100
// GPU: gpu.terminator
// GPU-NOT: gpu.launch
// GPU-LABEL: func.func @ref_attn(

// PTX-COUNT-1: .entry
// PTX-NOT: .entry
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// MFMA: v_mfma_f32_16x16x16_f16
// WGMMA-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// WGMMA: wgmma.wait_group.sync.aligned 0

// Each check prints [1] on the line after its header (whose `sizes = [1]
// strides = [1]` would satisfy a bare [1]); the weakened wait gets a [0].
// WEAK: {{^}}[0]{{$}}
// CHECK: data =
// CHECK-NEXT: {{^}}[1]{{$}}
// CHECK: data =
// CHECK-NEXT: {{^}}[1]{{$}}
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

func.func @attn(%Q: memref<2x100x64xf16>, %K: memref<2x100x64xf16>, %V: memref<2x100x64xf16>, %Out: memref<2x100x64xf32>) {
  %S = memref.alloc() : memref<2x100x100xf32>
  %M = memref.alloc() : memref<2x100xf32>
  %L = memref.alloc() : memref<2x100xf32>
  %O = memref.alloc() : memref<2x100x64xf32>
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 100>, #ext.axis<"d", reduce, 64>]
      ins(%Q, %K : memref<2x100x64xf16>, memref<2x100x64xf16>) outs(%S : memref<2x100x100xf32>)
      maps [#bid, #bjd, #bij4] combiner(sum) attributes {name = "scores"} {
  ^bb0(%q: f16, %k: f16):
    %a = arith.extf %q : f16 to f32
    %b = arith.extf %k : f16 to f32
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 100>, #ext.axis<"j", reduce, 100>]
      ins(%S : memref<2x100x100xf32>) outs(%M : memref<2x100xf32>)
      maps [#bij, #bi3] combiner(max) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    %c = arith.constant 0.125 : f32
    %t = arith.mulf %s, %c : f32
    ext.yield %t : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 100>, #ext.axis<"j", reduce, 100>]
      ins(%S, %M : memref<2x100x100xf32>, memref<2x100xf32>) outs(%L : memref<2x100xf32>)
      maps [#bij, #bi3, #bi3] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %c = arith.constant 0.125 : f32
    %t = arith.mulf %s, %c : f32
    %d = arith.subf %t, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 100>, #ext.axis<"e", spatial, 64>, #ext.axis<"j", reduce, 100>]
      ins(%S, %M, %V : memref<2x100x100xf32>, memref<2x100xf32>, memref<2x100x64xf16>) outs(%O : memref<2x100x64xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum)
      attributes {name = "acc", schedule = #ext.schedule<tile = [1, 64, 64, 64], blocks = ["b", "i"], threads = [1, 4, 32, 1], mma = #ext.mma<m16n8k16>, warps = [4, 1], vector = 8, compute_at = [#ext.at<"scores", "j">], reverse_compute_at = [#ext.at<"out", "e">], online = ["row_max", "row_sum"]>} {
  ^bb0(%s: f32, %m: f32, %v: f16):
    %c = arith.constant 0.125 : f32
    %t = arith.mulf %s, %c : f32
    %d = arith.subf %t, %m : f32
    %e = math.exp %d : f32
    %vf = arith.extf %v : f16 to f32
    %p = arith.mulf %e, %vf : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 100>, #ext.axis<"e", spatial, 64>]
      ins(%O, %L : memref<2x100x64xf32>, memref<2x100xf32>) outs(%Out : memref<2x100x64xf32>)
      maps [#bie, #bi_e, #bie] attributes {name = "out"} {
  ^bb0(%o: f32, %l: f32):
    %r = arith.divf %o, %l : f32
    ext.yield %r : f32
  }
  memref.dealloc %S : memref<2x100x100xf32>
  memref.dealloc %M : memref<2x100xf32>
  memref.dealloc %L : memref<2x100xf32>
  memref.dealloc %O : memref<2x100x64xf32>
  return
}

func.func @ref_attn(%Q: memref<2x100x64xf16>, %K: memref<2x100x64xf16>, %V: memref<2x100x64xf16>, %Out: memref<2x100x64xf32>) {
  %S = memref.alloc() : memref<2x100x100xf32>
  %M = memref.alloc() : memref<2x100xf32>
  %L = memref.alloc() : memref<2x100xf32>
  %O = memref.alloc() : memref<2x100x64xf32>
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 100>, #ext.axis<"j", spatial, 100>, #ext.axis<"d", reduce, 64>]
      ins(%Q, %K : memref<2x100x64xf16>, memref<2x100x64xf16>) outs(%S : memref<2x100x100xf32>)
      maps [#bid, #bjd, #bij4] combiner(sum) attributes {name = "scores"} {
  ^bb0(%q: f16, %k: f16):
    %a = arith.extf %q : f16 to f32
    %b = arith.extf %k : f16 to f32
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 100>, #ext.axis<"j", reduce, 100>]
      ins(%S : memref<2x100x100xf32>) outs(%M : memref<2x100xf32>)
      maps [#bij, #bi3] combiner(max) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    %c = arith.constant 0.125 : f32
    %t = arith.mulf %s, %c : f32
    ext.yield %t : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 100>, #ext.axis<"j", reduce, 100>]
      ins(%S, %M : memref<2x100x100xf32>, memref<2x100xf32>) outs(%L : memref<2x100xf32>)
      maps [#bij, #bi3, #bi3] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %c = arith.constant 0.125 : f32
    %t = arith.mulf %s, %c : f32
    %d = arith.subf %t, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 100>, #ext.axis<"e", spatial, 64>, #ext.axis<"j", reduce, 100>]
      ins(%S, %M, %V : memref<2x100x100xf32>, memref<2x100xf32>, memref<2x100x64xf16>) outs(%O : memref<2x100x64xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum) attributes {name = "acc"} {
  ^bb0(%s: f32, %m: f32, %v: f16):
    %c = arith.constant 0.125 : f32
    %t = arith.mulf %s, %c : f32
    %d = arith.subf %t, %m : f32
    %e = math.exp %d : f32
    %vf = arith.extf %v : f16 to f32
    %p = arith.mulf %e, %vf : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 100>, #ext.axis<"e", spatial, 64>]
      ins(%O, %L : memref<2x100x64xf32>, memref<2x100xf32>) outs(%Out : memref<2x100x64xf32>)
      maps [#bie, #bi_e, #bie] attributes {name = "out"} {
  ^bb0(%o: f32, %l: f32):
    %r = arith.divf %o, %l : f32
    ext.yield %r : f32
  }
  memref.dealloc %S : memref<2x100x100xf32>
  memref.dealloc %M : memref<2x100xf32>
  memref.dealloc %L : memref<2x100xf32>
  memref.dealloc %O : memref<2x100x64xf32>
  return
}

func.func @attn_causal(%Q: memref<3x80x64xf16>, %K: memref<3x100x64xf16>, %V: memref<3x100x64xf16>, %Out: memref<3x80x64xf32>, %L: memref<3x80xf32>) {
  %S = memref.alloc() : memref<3x80x100xf32>
  %T = memref.alloc() : memref<3x80x100xf32>
  %M = memref.alloc() : memref<3x80xf32>
  %O = memref.alloc() : memref<3x80x64xf32>
  ext.compute [#ext.axis<"b", spatial, 3>, #ext.axis<"i", spatial, 80>, #ext.axis<"j", spatial, 100>, #ext.axis<"d", reduce, 64>]
      ins(%Q, %K : memref<3x80x64xf16>, memref<3x100x64xf16>) outs(%S : memref<3x80x100xf32>)
      maps [#bid, #bjd, #bij4] combiner(sum) attributes {name = "scores"} {
  ^bb0(%q: f16, %k: f16):
    %a = arith.extf %q : f16 to f32
    %b = arith.extf %k : f16 to f32
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"b", spatial, 3>, #ext.axis<"i", spatial, 80>, #ext.axis<"j", spatial, 100>]
      ins(%S : memref<3x80x100xf32>) outs(%T : memref<3x80x100xf32>)
      maps [#bij, #bij] attributes {name = "masked"} {
  ^bb0(%s: f32):
    %i = ext.index "i" : index
    %j = ext.index "j" : index
    %off = arith.constant 20 : index
    %lim = arith.addi %i, %off : index
    %vis = arith.cmpi sle, %j, %lim : index
    %c = arith.constant 0.125 : f32
    %t = arith.mulf %s, %c : f32
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %vis, %t, %ninf : f32
    ext.yield %r : f32
  }
  ext.compute [#ext.axis<"b", spatial, 3>, #ext.axis<"i", spatial, 80>, #ext.axis<"j", reduce, 100>]
      ins(%T : memref<3x80x100xf32>) outs(%M : memref<3x80xf32>)
      maps [#bij, #bi3] combiner(max) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    %zero = arith.constant 0.0 : f32
    %t = arith.addf %s, %zero : f32
    ext.yield %t : f32
  }
  ext.compute [#ext.axis<"b", spatial, 3>, #ext.axis<"i", spatial, 80>, #ext.axis<"j", reduce, 100>]
      ins(%T, %M : memref<3x80x100xf32>, memref<3x80xf32>) outs(%L : memref<3x80xf32>)
      maps [#bij, #bi3, #bi3] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %zero = arith.constant 0.0 : f32
    %t = arith.addf %s, %zero : f32
    %d = arith.subf %t, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  ext.compute [#ext.axis<"b", spatial, 3>, #ext.axis<"i", spatial, 80>, #ext.axis<"e", spatial, 64>, #ext.axis<"j", reduce, 100>]
      ins(%T, %M, %V : memref<3x80x100xf32>, memref<3x80xf32>, memref<3x100x64xf16>) outs(%O : memref<3x80x64xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum)
      attributes {name = "acc", schedule = #ext.schedule<tile = [1, 32, 64, 64], blocks = ["b", "i"], threads = [1, 2, 32, 1], mma = #ext.mma<m16n8k16>, warps = [2, 1], vector = 8, compute_at = [#ext.at<"scores", "j">], reverse_compute_at = [#ext.at<"out", "e">], compute_inline = ["masked"], online = ["row_max", "row_sum"]>} {
  ^bb0(%s: f32, %m: f32, %v: f16):
    %zero = arith.constant 0.0 : f32
    %t = arith.addf %s, %zero : f32
    %d = arith.subf %t, %m : f32
    %e = math.exp %d : f32
    %vf = arith.extf %v : f16 to f32
    %p = arith.mulf %e, %vf : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"b", spatial, 3>, #ext.axis<"i", spatial, 80>, #ext.axis<"e", spatial, 64>]
      ins(%O, %L : memref<3x80x64xf32>, memref<3x80xf32>) outs(%Out : memref<3x80x64xf32>)
      maps [#bie, #bi_e, #bie] attributes {name = "out"} {
  ^bb0(%o: f32, %l: f32):
    %r = arith.divf %o, %l : f32
    ext.yield %r : f32
  }
  memref.dealloc %S : memref<3x80x100xf32>
  memref.dealloc %T : memref<3x80x100xf32>
  memref.dealloc %M : memref<3x80xf32>
  memref.dealloc %O : memref<3x80x64xf32>
  return
}

func.func @ref_attn_causal(%Q: memref<3x80x64xf16>, %K: memref<3x100x64xf16>, %V: memref<3x100x64xf16>, %Out: memref<3x80x64xf32>, %L: memref<3x80xf32>) {
  %S = memref.alloc() : memref<3x80x100xf32>
  %T = memref.alloc() : memref<3x80x100xf32>
  %M = memref.alloc() : memref<3x80xf32>
  %O = memref.alloc() : memref<3x80x64xf32>
  ext.compute [#ext.axis<"b", spatial, 3>, #ext.axis<"i", spatial, 80>, #ext.axis<"j", spatial, 100>, #ext.axis<"d", reduce, 64>]
      ins(%Q, %K : memref<3x80x64xf16>, memref<3x100x64xf16>) outs(%S : memref<3x80x100xf32>)
      maps [#bid, #bjd, #bij4] combiner(sum) attributes {name = "scores"} {
  ^bb0(%q: f16, %k: f16):
    %a = arith.extf %q : f16 to f32
    %b = arith.extf %k : f16 to f32
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"b", spatial, 3>, #ext.axis<"i", spatial, 80>, #ext.axis<"j", spatial, 100>]
      ins(%S : memref<3x80x100xf32>) outs(%T : memref<3x80x100xf32>)
      maps [#bij, #bij] attributes {name = "masked"} {
  ^bb0(%s: f32):
    %i = ext.index "i" : index
    %j = ext.index "j" : index
    %off = arith.constant 20 : index
    %lim = arith.addi %i, %off : index
    %vis = arith.cmpi sle, %j, %lim : index
    %c = arith.constant 0.125 : f32
    %t = arith.mulf %s, %c : f32
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %vis, %t, %ninf : f32
    ext.yield %r : f32
  }
  ext.compute [#ext.axis<"b", spatial, 3>, #ext.axis<"i", spatial, 80>, #ext.axis<"j", reduce, 100>]
      ins(%T : memref<3x80x100xf32>) outs(%M : memref<3x80xf32>)
      maps [#bij, #bi3] combiner(max) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    %zero = arith.constant 0.0 : f32
    %t = arith.addf %s, %zero : f32
    ext.yield %t : f32
  }
  ext.compute [#ext.axis<"b", spatial, 3>, #ext.axis<"i", spatial, 80>, #ext.axis<"j", reduce, 100>]
      ins(%T, %M : memref<3x80x100xf32>, memref<3x80xf32>) outs(%L : memref<3x80xf32>)
      maps [#bij, #bi3, #bi3] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %zero = arith.constant 0.0 : f32
    %t = arith.addf %s, %zero : f32
    %d = arith.subf %t, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  ext.compute [#ext.axis<"b", spatial, 3>, #ext.axis<"i", spatial, 80>, #ext.axis<"e", spatial, 64>, #ext.axis<"j", reduce, 100>]
      ins(%T, %M, %V : memref<3x80x100xf32>, memref<3x80xf32>, memref<3x100x64xf16>) outs(%O : memref<3x80x64xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum) attributes {name = "acc"} {
  ^bb0(%s: f32, %m: f32, %v: f16):
    %zero = arith.constant 0.0 : f32
    %t = arith.addf %s, %zero : f32
    %d = arith.subf %t, %m : f32
    %e = math.exp %d : f32
    %vf = arith.extf %v : f16 to f32
    %p = arith.mulf %e, %vf : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"b", spatial, 3>, #ext.axis<"i", spatial, 80>, #ext.axis<"e", spatial, 64>]
      ins(%O, %L : memref<3x80x64xf32>, memref<3x80xf32>) outs(%Out : memref<3x80x64xf32>)
      maps [#bie, #bi_e, #bie] attributes {name = "out"} {
  ^bb0(%o: f32, %l: f32):
    %r = arith.divf %o, %l : f32
    ext.yield %r : f32
  }
  memref.dealloc %S : memref<3x80x100xf32>
  memref.dealloc %T : memref<3x80x100xf32>
  memref.dealloc %M : memref<3x80xf32>
  memref.dealloc %O : memref<3x80x64xf32>
  return
}

func.func @attn_simt(%Q: memref<2x37x32xf32>, %K: memref<2x45x32xf32>, %V: memref<2x45x32xf32>, %Out: memref<2x37x32xf32>) {
  %S = memref.alloc() : memref<2x37x45xf32>
  %M = memref.alloc() : memref<2x37xf32>
  %L = memref.alloc() : memref<2x37xf32>
  %O = memref.alloc() : memref<2x37x32xf32>
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 37>, #ext.axis<"j", spatial, 45>, #ext.axis<"d", reduce, 32>]
      ins(%Q, %K : memref<2x37x32xf32>, memref<2x45x32xf32>) outs(%S : memref<2x37x45xf32>)
      maps [#bid, #bjd, #bij4] combiner(sum) attributes {name = "scores"} {
  ^bb0(%q: f32, %k: f32):
    %p = arith.mulf %q, %k : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 37>, #ext.axis<"j", reduce, 45>]
      ins(%S : memref<2x37x45xf32>) outs(%M : memref<2x37xf32>)
      maps [#bij, #bi3] combiner(max) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    %c = arith.constant 0.125 : f32
    %t = arith.mulf %s, %c : f32
    ext.yield %t : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 37>, #ext.axis<"j", reduce, 45>]
      ins(%S, %M : memref<2x37x45xf32>, memref<2x37xf32>) outs(%L : memref<2x37xf32>)
      maps [#bij, #bi3, #bi3] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %c = arith.constant 0.125 : f32
    %t = arith.mulf %s, %c : f32
    %d = arith.subf %t, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 37>, #ext.axis<"e", spatial, 32>, #ext.axis<"j", reduce, 45>]
      ins(%S, %M, %V : memref<2x37x45xf32>, memref<2x37xf32>, memref<2x45x32xf32>) outs(%O : memref<2x37x32xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum)
      attributes {name = "acc", schedule = #ext.schedule<tile = [1, 16, 32, 16], blocks = ["b", "i"], threads = [1, 4, 32, 1], compute_at = [#ext.at<"scores", "j">], reverse_compute_at = [#ext.at<"out", "e">], online = ["row_max", "row_sum"]>} {
  ^bb0(%s: f32, %m: f32, %v: f32):
    %c = arith.constant 0.125 : f32
    %t = arith.mulf %s, %c : f32
    %d = arith.subf %t, %m : f32
    %e = math.exp %d : f32
    %p = arith.mulf %e, %v : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 37>, #ext.axis<"e", spatial, 32>]
      ins(%O, %L : memref<2x37x32xf32>, memref<2x37xf32>) outs(%Out : memref<2x37x32xf32>)
      maps [#bie, #bi_e, #bie] attributes {name = "out"} {
  ^bb0(%o: f32, %l: f32):
    %r = arith.divf %o, %l : f32
    ext.yield %r : f32
  }
  memref.dealloc %S : memref<2x37x45xf32>
  memref.dealloc %M : memref<2x37xf32>
  memref.dealloc %L : memref<2x37xf32>
  memref.dealloc %O : memref<2x37x32xf32>
  return
}

func.func @ref_attn_simt(%Q: memref<2x37x32xf32>, %K: memref<2x45x32xf32>, %V: memref<2x45x32xf32>, %Out: memref<2x37x32xf32>) {
  %S = memref.alloc() : memref<2x37x45xf32>
  %M = memref.alloc() : memref<2x37xf32>
  %L = memref.alloc() : memref<2x37xf32>
  %O = memref.alloc() : memref<2x37x32xf32>
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 37>, #ext.axis<"j", spatial, 45>, #ext.axis<"d", reduce, 32>]
      ins(%Q, %K : memref<2x37x32xf32>, memref<2x45x32xf32>) outs(%S : memref<2x37x45xf32>)
      maps [#bid, #bjd, #bij4] combiner(sum) attributes {name = "scores"} {
  ^bb0(%q: f32, %k: f32):
    %p = arith.mulf %q, %k : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 37>, #ext.axis<"j", reduce, 45>]
      ins(%S : memref<2x37x45xf32>) outs(%M : memref<2x37xf32>)
      maps [#bij, #bi3] combiner(max) attributes {name = "row_max"} {
  ^bb0(%s: f32):
    %c = arith.constant 0.125 : f32
    %t = arith.mulf %s, %c : f32
    ext.yield %t : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 37>, #ext.axis<"j", reduce, 45>]
      ins(%S, %M : memref<2x37x45xf32>, memref<2x37xf32>) outs(%L : memref<2x37xf32>)
      maps [#bij, #bi3, #bi3] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%s: f32, %m: f32):
    %c = arith.constant 0.125 : f32
    %t = arith.mulf %s, %c : f32
    %d = arith.subf %t, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 37>, #ext.axis<"e", spatial, 32>, #ext.axis<"j", reduce, 45>]
      ins(%S, %M, %V : memref<2x37x45xf32>, memref<2x37xf32>, memref<2x45x32xf32>) outs(%O : memref<2x37x32xf32>)
      maps [#o_s, #o_m, #o_v, #o_o] combiner(sum) attributes {name = "acc"} {
  ^bb0(%s: f32, %m: f32, %v: f32):
    %c = arith.constant 0.125 : f32
    %t = arith.mulf %s, %c : f32
    %d = arith.subf %t, %m : f32
    %e = math.exp %d : f32
    %p = arith.mulf %e, %v : f32
    ext.yield %p : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 37>, #ext.axis<"e", spatial, 32>]
      ins(%O, %L : memref<2x37x32xf32>, memref<2x37xf32>) outs(%Out : memref<2x37x32xf32>)
      maps [#bie, #bi_e, #bie] attributes {name = "out"} {
  ^bb0(%o: f32, %l: f32):
    %r = arith.divf %o, %l : f32
    ext.yield %r : f32
  }
  memref.dealloc %S : memref<2x37x45xf32>
  memref.dealloc %M : memref<2x37xf32>
  memref.dealloc %L : memref<2x37xf32>
  memref.dealloc %O : memref<2x37x32xf32>
  return
}
func.func @main() {
  // attn
  %attn_Q = memref.alloc() : memref<2x100x64xf16>
  %attn_K = memref.alloc() : memref<2x100x64xf16>
  %attn_V = memref.alloc() : memref<2x100x64xf16>
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 100>, #ext.axis<"d", spatial, 64>]
      outs(%attn_Q : memref<2x100x64xf16>) maps [#i3] {
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
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 100>, #ext.axis<"d", spatial, 64>]
      outs(%attn_K : memref<2x100x64xf16>) maps [#i3] {
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
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 100>, #ext.axis<"d", spatial, 64>]
      outs(%attn_V : memref<2x100x64xf16>) maps [#i3] {
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
  %attn_O = memref.alloc() : memref<2x100x64xf32>
  %attn_R = memref.alloc() : memref<2x100x64xf32>
  call @attn(%attn_Q, %attn_K, %attn_V, %attn_O) : (memref<2x100x64xf16>, memref<2x100x64xf16>, memref<2x100x64xf16>, memref<2x100x64xf32>) -> ()
  call @ref_attn(%attn_Q, %attn_K, %attn_V, %attn_R) : (memref<2x100x64xf16>, memref<2x100x64xf16>, memref<2x100x64xf16>, memref<2x100x64xf32>) -> ()
  %attn_err = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"b", reduce, 2>, #ext.axis<"i", reduce, 100>, #ext.axis<"d", reduce, 64>]
      ins(%attn_O, %attn_R : memref<2x100x64xf32>, memref<2x100x64xf32>) outs(%attn_err : memref<f32>)
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
  // attn_causal
  %attn_causal_Q = memref.alloc() : memref<3x80x64xf16>
  %attn_causal_K = memref.alloc() : memref<3x100x64xf16>
  %attn_causal_V = memref.alloc() : memref<3x100x64xf16>
  ext.compute [#ext.axis<"b", spatial, 3>, #ext.axis<"i", spatial, 80>, #ext.axis<"d", spatial, 64>]
      outs(%attn_causal_Q : memref<3x80x64xf16>) maps [#i3] {
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
  ext.compute [#ext.axis<"b", spatial, 3>, #ext.axis<"i", spatial, 100>, #ext.axis<"d", spatial, 64>]
      outs(%attn_causal_K : memref<3x100x64xf16>) maps [#i3] {
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
  ext.compute [#ext.axis<"b", spatial, 3>, #ext.axis<"i", spatial, 100>, #ext.axis<"d", spatial, 64>]
      outs(%attn_causal_V : memref<3x100x64xf16>) maps [#i3] {
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
  %attn_causal_O = memref.alloc() : memref<3x80x64xf32>
  %attn_causal_R = memref.alloc() : memref<3x80x64xf32>
  %attn_causal_L = memref.alloc() : memref<3x80xf32>
  %attn_causal_LR = memref.alloc() : memref<3x80xf32>
  call @attn_causal(%attn_causal_Q, %attn_causal_K, %attn_causal_V, %attn_causal_O, %attn_causal_L) : (memref<3x80x64xf16>, memref<3x100x64xf16>, memref<3x100x64xf16>, memref<3x80x64xf32>, memref<3x80xf32>) -> ()
  call @ref_attn_causal(%attn_causal_Q, %attn_causal_K, %attn_causal_V, %attn_causal_R, %attn_causal_LR) : (memref<3x80x64xf16>, memref<3x100x64xf16>, memref<3x100x64xf16>, memref<3x80x64xf32>, memref<3x80xf32>) -> ()
  %attn_causal_err = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"b", reduce, 3>, #ext.axis<"i", reduce, 80>, #ext.axis<"d", reduce, 64>]
      ins(%attn_causal_O, %attn_causal_R : memref<3x80x64xf32>, memref<3x80x64xf32>) outs(%attn_causal_err : memref<f32>)
      maps [#i3, #i3, #e3] combiner(max) {
  ^bb0(%y: f32, %r: f32):
    %d = arith.subf %y, %r : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }
  %attn_causal_lerr = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"b", reduce, 3>, #ext.axis<"i", reduce, 80>]
      ins(%attn_causal_L, %attn_causal_LR : memref<3x80xf32>, memref<3x80xf32>) outs(%attn_causal_lerr : memref<f32>)
      maps [#i2, #i2, #e2] combiner(max) {
  ^bb0(%y: f32, %r: f32):
    %d = arith.subf %y, %r : f32
    %rel = arith.divf %d, %r : f32
    %a = math.absf %rel : f32
    ext.yield %a : f32
  }
  %attn_causal_ok = memref.alloc() : memref<1xf32>
  ext.compute [#ext.axis<"o", spatial, 1>] ins(%attn_causal_err, %attn_causal_lerr : memref<f32>, memref<f32>) outs(%attn_causal_ok : memref<1xf32>)
      maps [affine_map<(o) -> ()>, affine_map<(o) -> ()>, affine_map<(o) -> (o)>] {
  ^bb0(%e: f32, %le: f32):
    %tol = arith.constant 1.0e-3 : f32
    %ltol = arith.constant 1.0e-5 : f32
    %small0 = arith.cmpf olt, %e, %tol : f32
    %lsmall = arith.cmpf olt, %le, %ltol : f32
    %small = arith.andi %small0, %lsmall : i1
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.select %small, %one, %zero : f32
    ext.yield %r : f32
  }
  %attn_causal_u = memref.cast %attn_causal_ok : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%attn_causal_u) : (memref<*xf32>) -> ()
  // attn_simt
  %attn_simt_Q = memref.alloc() : memref<2x37x32xf32>
  %attn_simt_K = memref.alloc() : memref<2x45x32xf32>
  %attn_simt_V = memref.alloc() : memref<2x45x32xf32>
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 37>, #ext.axis<"d", spatial, 32>]
      outs(%attn_simt_Q : memref<2x37x32xf32>) maps [#i3] {
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

    ext.yield %r : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 45>, #ext.axis<"d", spatial, 32>]
      outs(%attn_simt_K : memref<2x45x32xf32>) maps [#i3] {
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

    ext.yield %r : f32
  }
  ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"i", spatial, 45>, #ext.axis<"d", spatial, 32>]
      outs(%attn_simt_V : memref<2x45x32xf32>) maps [#i3] {
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

    ext.yield %r : f32
  }
  %attn_simt_O = memref.alloc() : memref<2x37x32xf32>
  %attn_simt_R = memref.alloc() : memref<2x37x32xf32>
  call @attn_simt(%attn_simt_Q, %attn_simt_K, %attn_simt_V, %attn_simt_O) : (memref<2x37x32xf32>, memref<2x45x32xf32>, memref<2x45x32xf32>, memref<2x37x32xf32>) -> ()
  call @ref_attn_simt(%attn_simt_Q, %attn_simt_K, %attn_simt_V, %attn_simt_R) : (memref<2x37x32xf32>, memref<2x45x32xf32>, memref<2x45x32xf32>, memref<2x37x32xf32>) -> ()
  %attn_simt_err = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"b", reduce, 2>, #ext.axis<"i", reduce, 37>, #ext.axis<"d", reduce, 32>]
      ins(%attn_simt_O, %attn_simt_R : memref<2x37x32xf32>, memref<2x37x32xf32>) outs(%attn_simt_err : memref<f32>)
      maps [#i3, #i3, #e3] combiner(max) {
  ^bb0(%y: f32, %r: f32):
    %d = arith.subf %y, %r : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }
  %attn_simt_ok = memref.alloc() : memref<1xf32>
  ext.compute [#ext.axis<"o", spatial, 1>] ins(%attn_simt_err, %attn_simt_err : memref<f32>, memref<f32>) outs(%attn_simt_ok : memref<1xf32>)
      maps [affine_map<(o) -> ()>, affine_map<(o) -> ()>, affine_map<(o) -> (o)>] {
  ^bb0(%e: f32, %le: f32):
    %tol = arith.constant 1.0e-5 : f32
    %ltol = arith.constant 1.0e-5 : f32
    %small0 = arith.cmpf olt, %e, %tol : f32
    %lsmall = arith.cmpf olt, %le, %ltol : f32
    %small = arith.andi %small0, %lsmall : i1
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.select %small, %one, %zero : f32
    ext.yield %r : f32
  }
  %attn_simt_u = memref.cast %attn_simt_ok : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%attn_simt_u) : (memref<*xf32>) -> ()
  return
}

