//===- CpuEmulationMatrixABI.h - warp matrix ops on the emulator -*- C++
//-*-===//
//
// The part of the emulation ABI (CpuEmulationABI.h) that warp-level matrix
// instructions use: nvgpu.ldmatrix, nvgpu.mma.sync, amdgpu.mfma and the gpu
// dialect's subgroup MMA ops. They are warp collectives: every lane writes
// its operands to a private buffer, publishes the buffer's address in its
// scratch slot (one 64-bit value per lane) and meets its warp; then each lane
// calls one of these functions, which reads the other lanes' buffers through
// the published addresses and writes the lane's own result; a second
// rendezvous keeps the buffers alive until every lane has read them.
//
// `slots` is the address of the scratch slot of lane 0 of the caller's warp
// (the lanes' slots follow, 8 bytes apart), `lane` the caller's lane, `mask`
// the lanes that took part in the rendezvous, `site` the op (an index into
// the launch's sites, for errors).
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPUEMULATIONMATRIXABI_H
#define EXT_RUNTIME_CPUEMULATIONMATRIXABI_H

#include <stdint.h>

#ifdef __cplusplus
namespace ext::emu {
#endif

/// The instructions __ext_emu_mma executes: shape, input and accumulator
/// types. docs/CpuEmulation.md ("Warp matrix instructions") gives each one's
/// per-lane fragment layout and its source.
enum MatrixKind : int32_t {
  // NVIDIA mma.sync.aligned (32 lanes).
  EXT_EMU_MMA_M16N8K16_F16_F32 = 1,
  EXT_EMU_MMA_M16N8K16_F16_F16 = 2,
  EXT_EMU_MMA_M16N8K16_BF16_F32 = 3,
  EXT_EMU_MMA_M16N8K8_TF32_F32 = 4,
  EXT_EMU_MMA_M16N8K4_TF32_F32 = 5,
  // AMD CDNA v_mfma (64 lanes).
  EXT_EMU_MFMA_32X32X8_F16_F32 = 16,
  EXT_EMU_MFMA_16X16X16_F16_F32 = 17,
  EXT_EMU_MFMA_32X32X2_F32_F32 = 18,
  // The gpu dialect's opaque !gpu.mma_matrix 16x16x16 (32 lanes).
  EXT_EMU_WMMA_16X16X16_F16_F32 = 32,
  EXT_EMU_WMMA_16X16X16_F16_F16 = 33,
};

/// The input types of a warpgroup MMA (wgmma.mma_async.m64nNkK with f32
/// accumulators; K is 16 for f16 and bf16, 8 for tf32).
enum WarpgroupMmaKind : int32_t {
  EXT_EMU_WGMMA_F16_F32 = 1,
  EXT_EMU_WGMMA_BF16_F32 = 2,
  EXT_EMU_WGMMA_TF32_F32 = 3,
};

/// The flags of __ext_emu_wgmma: the PTX instruction's imm-trans-a and
/// imm-trans-b (MN-major operands), its scale-d predicate (D = A B + D
/// rather than A B) and its imm-scale-a/b of -1.
enum WarpgroupMmaFlags : int32_t {
  EXT_EMU_WGMMA_TRANS_A = 1,
  EXT_EMU_WGMMA_TRANS_B = 2,
  EXT_EMU_WGMMA_ACCUMULATE = 4,
  EXT_EMU_WGMMA_NEGATE_A = 8,
  EXT_EMU_WGMMA_NEGATE_B = 16,
};

#ifdef __cplusplus
} // namespace ext::emu
#endif

#define EXT_EMU_LDMATRIX "__ext_emu_ldmatrix"
#define EXT_EMU_MMA "__ext_emu_mma"
#define EXT_EMU_WGMMA "__ext_emu_wgmma"
#define EXT_EMU_WGMMA_FENCE "__ext_emu_wgmma_fence"
#define EXT_EMU_WGMMA_COMMIT "__ext_emu_wgmma_commit"
#define EXT_EMU_WGMMA_WAIT "__ext_emu_wgmma_wait"
#define EXT_EMU_WGMMA_CHECK "__ext_emu_wgmma_check"
#define EXT_EMU_SETMAXNREG "__ext_emu_setmaxnreg"

#ifdef __cplusplus
extern "C" {
#endif

/// nvgpu.ldmatrix (PTX ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans]): lanes
/// 8i..8i+7 published the addresses of the 8 rows (16 bytes each) of matrix
/// i. Writes the caller's `numTiles` 32-bit registers to `out`: without
/// `transpose` register i holds bytes 4*(lane%4).. of row lane/4 of matrix i;
/// with it (16-bit elements only) elements (lane%4)*2 and (lane%4)*2+1 of
/// column lane/4.
void __ext_emu_ldmatrix(int32_t site, int64_t mask, int64_t slots, int32_t lane,
                        int32_t numTiles, int32_t transpose, int64_t out);

/// A warp matrix multiply-accumulate D = A * B + C of `kind`: each lane
/// published the address of its fragment buffer, holding its A, B and C
/// elements in the instruction's register order, packed (2-byte f16/bf16,
/// 4-byte f32) and each part starting at a multiple of 8 bytes. Writes the
/// caller's D elements over its C elements.
void __ext_emu_mma(int32_t site, int64_t mask, int64_t slots, int32_t lane,
                   int32_t kind);

/// wgmma.mma_async.sync.aligned.m64n`n`k{16,8} of `kind` with `flags`,
/// A and B in shared memory through their matrix descriptors (PTX ISA
/// 9.7.15.5.1.2: start address, leading and stride byte offsets, swizzle
/// mode; the canonical K-major and MN-major layouts). No rendezvous: with
/// both operands in shared memory each thread computes its own part of D,
/// the N/2 f32 registers at `acc` (read as C unless `flags` lacks
/// ACCUMULATE), in the accumulator layout: warp w of the warpgroup holds
/// rows 16w..16w+15. The operation completes when it is issued; fence,
/// commit and wait check that the program orders it as PTX requires.
void __ext_emu_wgmma(int32_t site, int64_t descA, int64_t descB, int32_t kind,
                     int32_t n, int32_t flags, int64_t acc);
/// wgmma.fence.sync.aligned: the thread's accumulators may be read by the
/// next wgmma.mma_async.
void __ext_emu_wgmma_fence(int32_t site);
/// wgmma.commit_group.sync.aligned.
void __ext_emu_wgmma_commit(int32_t site);
/// wgmma.wait_group.sync.aligned `pending`: the calling thread's committed
/// groups but the newest `pending` retire (their shared-memory reads reach
/// the race detector now).
void __ext_emu_wgmma_wait(int32_t site, int32_t pending);
/// Before a read of an accumulator register at `site`: fails the launch if
/// the MMA at site `producer` (or, with -1, any warpgroup MMA of the
/// thread) has not retired.
void __ext_emu_wgmma_check(int32_t site, int32_t producer);
/// setmaxnreg.{inc,dec}.sync.aligned.u32 `count` (`increase` 1 or 0): fails
/// the launch unless the count is a multiple of 8 in [24, 256], the thread's
/// warpgroup is whole, every thread of it executes the same setmaxnreg in
/// the same order, and an .inc does not lower (nor a .dec raise) the count
/// its warpgroup's previous one set. Registers themselves are not emulated.
void __ext_emu_setmaxnreg(int32_t site, int32_t count, int32_t increase);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // EXT_RUNTIME_CPUEMULATIONMATRIXABI_H
