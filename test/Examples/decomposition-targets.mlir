// Every decomposition's kernel (the fixup's atomics and fences included)
// compiles to PTX that ptxas accepts for sm_80 and sm_90, and to an HSACO
// holding the kernel for gfx90a and gfx942. Parallel split-K has a second
// kernel (the reduction), in a module of its own.
// REQUIRES: ptxas

// RUN: sed 's/DECOMPOSITION/#ext.stream_k<grid = 7>/' %S/../Integration/Inputs/decomposed-gemm-f32.mlir > %t.sk.mlir
// RUN: sed 's/DECOMPOSITION/#ext.stream_k_dp<sms = 4>/' %S/../Integration/Inputs/decomposed-gemm-f32.mlir > %t.skdp.mlir
// RUN: sed 's/DECOMPOSITION/#ext.stream_k_2tile<sms = 4>/' %S/../Integration/Inputs/decomposed-gemm-f32.mlir > %t.sk2t.mlir
// RUN: sed 's/DECOMPOSITION/#ext.split_k<slices = 3>/' %S/../Integration/Inputs/decomposed-gemm-f32.mlir > %t.sks.mlir
// RUN: sed 's/DECOMPOSITION/#ext.split_k<slices = 3, mode = parallel>/' %S/../Integration/Inputs/decomposed-gemm-f32.mlir > %t.skp.mlir
// RUN: sed 's/DECOMPOSITION/#ext.auto<sms = 132>/' %S/../Integration/Inputs/decomposed-gemm-f32.mlir > %t.auto.mlir

// RUN: for d in sk skdp sk2t sks skp auto; do for c in 80 90; do \
// RUN:   ext-opt %t.$d.mlir --ext-gpu-pipeline="target=nvvm chip=sm_$c" | ext-translate --ext-to-ptx --ext-gpu-module=gemm_kernel -o %t.$d.$c.ptx && \
// RUN:   %ptxas -arch=sm_$c %t.$d.$c.ptx -o /dev/null || exit 1; done; done
// RUN: ext-opt %t.skp.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx --ext-gpu-module=gemm_kernel_0 -o %t.skp.red.ptx
// RUN: %ptxas -arch=sm_90 %t.skp.red.ptx -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.sk.90.ptx
// The owner spins on a relaxed load of the flag, then fences; a contributor
// fences, then sets the flag with a relaxed store; all at GPU scope (the
// CTAs that exchange partials share one device; .sys would order against
// the host and peers too, for nothing).
// PTX-NOT: .sys
// PTX: ld.relaxed.gpu.b32
// PTX-NEXT: setp.eq.b32
// PTX-NEXT: bra
// PTX-NEXT: fence.acq_rel.gpu
// PTX: fence.acq_rel.gpu
// PTX-NEXT: st.relaxed.gpu.b32
// PTX-NOT: .sys

// RUN: for d in sk skdp sk2t sks skp auto; do for c in gfx90a gfx942; do \
// RUN:   ext-opt %t.$d.mlir --ext-gpu-pipeline="target=rocdl chip=$c" | ext-translate --ext-to-hsaco --ext-gpu-module=gemm_kernel -o %t.$d.$c.hsaco && \
// RUN:   llvm-readelf --symbols %t.$d.$c.hsaco | grep ' gemm_kernel$' > /dev/null || exit 1; done; done
// RUN: ext-opt %ext_src/examples/kernels/gemm_streamk.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90" | ext-translate --ext-to-ptx -o %t.ex.sk.ptx
// RUN: %ptxas -arch=sm_90 %t.ex.sk.ptx -o /dev/null
// RUN: ext-opt %ext_src/examples/kernels/gemm_splitk.mlir --ext-gpu-pipeline="target=nvvm chip=sm_80" | ext-translate --ext-to-ptx -o %t.ex.sp.ptx
// RUN: %ptxas -arch=sm_80 %t.ex.sp.ptx -o /dev/null
// RUN: ext-opt %ext_src/examples/kernels/gemm_streamk.mlir --ext-gpu-pipeline="target=rocdl chip=gfx942" | ext-translate --ext-to-hsaco -o %t.ex.sk.hsaco
// RUN: llvm-readelf --symbols %t.ex.sk.hsaco | FileCheck %s --check-prefix=HSACO
// HSACO: gemm_streamk_kernel
