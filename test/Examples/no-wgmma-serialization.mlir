// No example's kernel makes ptxas serialize wgmma (C7510): every NVIDIA
// example with a GPU kernel (matmul.mlir runs on the host), assembled for
// sm_90a, and the wgmma one checked for its traps
// (a failed alignment check traps: a call to __assertfail anywhere in the
// kernel would serialize its wgmmas). Skipped where CUDA's ptxas is absent.
// REQUIRES: ptxas

// RUN: for e in conv2d_padded gemm_f16 gemm_f16_mma gemm_f16_mma_large gemm_f16_wgmma gemm_f32 gemm_splitk gemm_streamk gemv softmax; do \
// RUN:   ext-opt %ext_src/examples/kernels/$e.mlir --ext-gpu-pipeline="target=nvvm chip=sm_90a" 2>/dev/null | ext-translate --ext-to-ptx -o %t.$e.ptx || exit 1; \
// RUN:   %ptxas -arch=sm_90a -v %t.$e.ptx -o /dev/null > %t.$e.log 2>&1 || exit 1; \
// RUN:   FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7510 --implicit-check-not=serialized --implicit-check-not=C7508 < %t.$e.log || exit 1; done
// PTXAS: Used {{[0-9]+}} registers

// The wgmma example: its HGMMAs issue back to back (no per-instruction
// warpgroup arrive/wait), its tiles come by TMA (bulk tensor copies
// completing on mbarriers), one group stays in flight, and no check is
// left: the stage tiles' 1024-byte alignment, which its swizzles need, is
// proven from the dynamic shared memory's declared alignment. It is warp-
// specialized: the consumer warpgroups take 232 registers, wait for a
// stage to be full and release it after the next step's wait; the producer
// keeps 40, waits for a stage to be empty and fills it. The register count
// at entry is fixed (one CTA per SM), so ptxas honors setmaxnreg (no C7508
// above) and gives the kernel 64K / 384 threads = 168 registers.
// RUN: FileCheck %s --check-prefix=WGMMA < %t.gemm_f16_wgmma.ptx
// WGMMA-NOT: __assertfail
// WGMMA-NOT: trap;
// WGMMA: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// WGMMA: .maxntid 384, 1, 1
// WGMMA-NEXT: .minnctapersm 1
// WGMMA: setmaxnreg.inc.sync.aligned.u32 {{[[:space:]]*}}232;
// WGMMA: mbarrier.try_wait.parity.shared.b64
// WGMMA: wgmma.fence.sync.aligned
// WGMMA-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// WGMMA: wgmma.commit_group.sync.aligned
// WGMMA-NEXT: wgmma.wait_group.sync.aligned 1
// WGMMA: mbarrier.arrive.shared.b64
// WGMMA: setmaxnreg.dec.sync.aligned.u32 {{[[:space:]]*}}40;
// WGMMA: mbarrier.try_wait.parity.shared.b64
// WGMMA: mbarrier.arrive.expect_tx.shared.b64
// WGMMA: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// WGMMA-NOT: cp.async.cg
// RUN: FileCheck %s --check-prefix=REGS < %t.gemm_f16_wgmma.log
// REGS: 0 bytes spill stores
// REGS: Used 168 registers
