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

#include "EmulationPatterns.h"
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
template <typename Op> struct ClusterArriveLowering : RuntimeCallLowering<Op> {
  ClusterArriveLowering(EmulationModule &emu)
      : RuntimeCallLowering<Op>(emu, EXT_EMU_CLUSTER_ARRIVE) {}
  FailureOr<SmallVector<Value>> arguments(Op op, OpBuilder &b) const override {
    bool relaxed = std::is_same_v<Op, NVVM::ClusterArriveRelaxedOp>;
    return SmallVector<Value>{emuI32Const(b, op.getLoc(), relaxed ? 1 : 0),
                              this->site(b, op)};
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
struct MapaLowering : AddressedOpLowering<NVVM::MapaOp> {
  using AddressedOpLowering::AddressedOpLowering;
  FailureOr<Value> address(NVVM::MapaOp op, OpBuilder &b) const override {
    return emuPointerAddress(b, op, op.getA());
  }
  LogicalResult lower(NVVM::MapaOp op, Value addr,
                      PatternRewriter &rewriter) const override {
    Value mapped =
        emu.call(rewriter, op.getLoc(), EXT_EMU_MAPA, {rewriter.getI64Type()},
                 {addr, op.getB(), emu.function().site(rewriter, op)});
    rewriter.replaceOpWithNewOp<LLVM::IntToPtrOp>(op, op.getType(), mapped);
    return success();
  }
};

/// mbarrier.arrive on a block's own barrier or, at cluster scope through a
/// shared::cluster pointer, on a peer's. Its result (the phase, for
/// mbarrier.test.wait) is the barrier's phase before the arrival.
struct NVVMMBarrierArriveLowering
    : AddressedOpLowering<NVVM::MBarrierArriveOp> {
  using AddressedOpLowering::AddressedOpLowering;
  FailureOr<Value> address(NVVM::MBarrierArriveOp op,
                           OpBuilder &b) const override {
    return emuPointerAddress(b, op, op.getAddr());
  }
  LogicalResult lower(NVVM::MBarrierArriveOp op, Value addr,
                      PatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    Value count = op.getCount() ? op.getCount() : emuI32Const(rewriter, l, 1);
    Value phase = emu.call(
        rewriter, l, EXT_EMU_MBARRIER_ARRIVE_COUNT, {rewriter.getI64Type()},
        {addr, count, emuI32Const(rewriter, l, op.getRelaxed() ? 1 : 0),
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
  patterns
      .add<ClusterArriveLowering<NVVM::ClusterArriveOp>,
           ClusterArriveLowering<NVVM::ClusterArriveRelaxedOp>,
           FenceMBarrierInitLowering, MapaLowering, NVVMMBarrierArriveLowering>(
          emu);
  patterns.add<RuntimeCallLowering<NVVM::ClusterWaitOp>>(emu,
                                                         EXT_EMU_CLUSTER_WAIT);
}
