//===- ClusterToEmulation.cpp - Hopper's thread block clusters ------------===//
//
// The NVVM ops of sm_90's thread block clusters on the CPU emulation
// (runtime/cpu/Tma.cpp and FiberScheduler.cpp run them):
//
// - nvvm.cluster.arrive(.relaxed) and nvvm.cluster.wait, the split cluster
//   barrier (barrier.cluster), call the runtime;
// - nvvm.mapa maps a shared-memory address to the same offset in another
//   block of the cluster: a shared::cluster address is the host address of
//   that byte (the peer's workgroup memory lives in the same process);
// - nvvm.mbarrier.arrive arrives on a block's own mbarrier or, through such
//   an address, on a peer's;
// - nvvm.fence.mbarrier.init goes: an mbarrier.init is visible to the whole
//   cluster at once here, and the cluster barrier that must follow it before
//   peers use the barrier is checked by the runtime.
//
// Pointers reach these ops as !llvm.ptr of the generic, shared (3) or
// shared::cluster (7) space, usually an llvm.inttoptr of the i64
// nvgpu.mbarrier.get gives; the emulation passes their addresses as i64.
// Ordinary loads and stores through a shared::cluster pointer are refused
// (GPUToCPUEmulation.cpp).
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace ext;

namespace {

/// barrier.cluster.arrive, with or without .relaxed (and .aligned, which
/// only promises that the warp arrives together).
template <typename Op> struct ClusterArriveLowering : EmulationOpPattern<Op> {
  using EmulationOpPattern<Op>::EmulationOpPattern;
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(op);
    bool relaxed = std::is_same_v<Op, NVVM::ClusterArriveRelaxedOp>;
    this->emu.call(rewriter, op.getLoc(), EXT_EMU_CLUSTER_ARRIVE, {},
                   {emuI32Const(rewriter, op.getLoc(), relaxed ? 1 : 0),
                    this->emu.function().site(rewriter, op)});
    rewriter.eraseOp(op);
    return success();
  }
};

struct ClusterWaitLowering : EmulationOpPattern<NVVM::ClusterWaitOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(NVVM::ClusterWaitOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(op);
    emu.call(rewriter, op.getLoc(), EXT_EMU_CLUSTER_WAIT, {},
             {emu.function().site(rewriter, op)});
    rewriter.eraseOp(op);
    return success();
  }
};

/// fence.mbarrier_init.release.cluster: mbarrier inits are visible to the
/// cluster as soon as they run on the CPU.
struct FenceMBarrierInitLowering
    : EmulationOpPattern<NVVM::FenceMbarrierInitOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(NVVM::FenceMbarrierInitOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

/// mapa: the runtime maps the address (and checks the rank); the result is
/// a pointer again, which the ops that use it look through.
struct MapaLowering : EmulationOpPattern<NVVM::MapaOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(NVVM::MapaOp op,
                                PatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    rewriter.setInsertionPoint(op);
    FailureOr<Value> addr = emuPointerAddress(rewriter, op, op.getA());
    if (failed(addr))
      return failure();
    Value mapped =
        emu.call(rewriter, l, EXT_EMU_MAPA, {rewriter.getI64Type()},
                 {*addr, op.getB(), emu.function().site(rewriter, op)});
    rewriter.replaceOpWithNewOp<LLVM::IntToPtrOp>(op, op.getType(), mapped);
    return success();
  }
};

/// mbarrier.arrive on a block's own barrier or, at cluster scope through a
/// shared::cluster pointer, on a peer's. Its result (the phase, for
/// mbarrier.test.wait) is the barrier's phase before the arrival.
struct NVVMMBarrierArriveLowering : EmulationOpPattern<NVVM::MBarrierArriveOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(NVVM::MBarrierArriveOp op,
                                PatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    rewriter.setInsertionPoint(op);
    FailureOr<Value> addr = emuPointerAddress(rewriter, op, op.getAddr());
    if (failed(addr))
      return failure();
    Value count = op.getCount() ? op.getCount() : emuI32Const(rewriter, l, 1);
    Value phase = emu.call(
        rewriter, l, EXT_EMU_MBARRIER_ARRIVE_COUNT, {rewriter.getI64Type()},
        {*addr, count, emuI32Const(rewriter, l, op.getRelaxed() ? 1 : 0),
         emu.function().site(rewriter, op)});
    if (op.getRes())
      rewriter.replaceOp(op, phase);
    else
      rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void ext::populateNVVMClusterToEmulationPatterns(RewritePatternSet &patterns,
                                                 EmulationModule &emu) {
  patterns.add<ClusterArriveLowering<NVVM::ClusterArriveOp>,
               ClusterArriveLowering<NVVM::ClusterArriveRelaxedOp>,
               ClusterWaitLowering, FenceMBarrierInitLowering, MapaLowering,
               NVVMMBarrierArriveLowering>(emu);
}
