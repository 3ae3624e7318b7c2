// A schedule's fast_math (on by default) in the PTX: the fused softmax
// example computes exp as ex2.approx.ftz.f32 of an FMA, and divides by one
// rcp.approx.ftz.f32 per row then multiplies: no div.rn.f32 and no call
// (div.rn's slow path). fast_math = false keeps the IEEE division and
// libdevice's expf. ptxas accepts both.
// REQUIRES: ptxas
// RUN: ext-opt %ext_src/examples/kernels/softmax.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx -o %t.fast.ptx
// RUN: FileCheck %s --check-prefix=FAST < %t.fast.ptx
// RUN: %ptxas -arch=sm_90 %t.fast.ptx -o /dev/null
// RUN: sed -e "s/vector = 4,/vector = 4, fast_math = false,/" %ext_src/examples/kernels/softmax.mlir \
// RUN:   | ext-opt --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx -o %t.precise.ptx
// RUN: FileCheck %s --check-prefix=PRECISE < %t.precise.ptx
// RUN: %ptxas -arch=sm_90 %t.precise.ptx -o /dev/null
// The online-softmax attention on wgmma (sm_90a): each exponential is one
// ex2.approx.ftz.f32 and the output divides by one reciprocal per row; its
// multiply-adds stay unfused (ext.no_contract: fused, ptxas gives the key
// step 10 more registers). fast_math = false keeps libdevice's expf and
// div.rn.f32.
// RUN: sed -e "s/mma = #ext.mma<m16n8k16>/mma = auto/" %ext_src/test/Integration/attention-online-softmax.mlir \
// RUN:   | ext-opt --ext-gpu-pipeline="target=nvvm chip=sm_90a" 2>/dev/null \
// RUN:   | ext-translate --ext-to-ptx --ext-gpu-module=attn_kernel | FileCheck %s --check-prefix=ATTN
// RUN: sed -e "s/mma = #ext.mma<m16n8k16>/mma = auto, fast_math = false/" %ext_src/test/Integration/attention-online-softmax.mlir \
// RUN:   | ext-opt --ext-gpu-pipeline="target=nvvm chip=sm_90a" 2>/dev/null \
// RUN:   | ext-translate --ext-to-ptx --ext-gpu-module=attn_kernel | FileCheck %s --check-prefix=ATTN-PRECISE

// FAST-NOT:     div.rn.f32
// FAST-NOT:     call
// FAST:         fma.rn.f32 {{.*}}, 0f3FB8AA3B,
// FAST-NEXT:    ex2.approx.ftz.f32
// FAST-NOT:     div.rn.f32
// FAST:         rcp.approx.ftz.f32
// FAST-NOT:     rcp.approx
// FAST-NOT:     div.rn.f32
// FAST-NOT:     call

// PRECISE:      div.rn.f32
// PRECISE-NOT:  rcp.approx

// ATTN-NOT:     div.rn.f32
// ATTN:         wgmma.mma_async
// ATTN:         ex2.approx.ftz.f32
// ATTN-NOT:     div.rn.f32
// ATTN:         rcp.approx.ftz.f32
// ATTN-NOT:     div.rn.f32

// ATTN-PRECISE: mul.rn.f32
// ATTN-PRECISE: div.rn.f32
// ATTN-PRECISE-NOT: rcp.approx
