//===- WgmmaAssertsToTraps.cpp - no calls in wgmma kernels ----------------===//
//
// A call anywhere in a function makes ptxas serialize its wgmma.mma_async
// instructions (C7510). cf.assert is the one call ext's lowerings put in a
// kernel (upstream lowers it to __assertfail); in kernels with wgmma a
// failed check traps instead.
//
//===----------------------------------------------------------------------===//

#include "ext/GPU/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUWGMMAASSERTSTOTRAPS
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {

/// `cf.assert %ok` -> `cf.cond_br %ok, ^continue, ^trap` with ^trap:
/// llvm.intr.trap; llvm.unreachable.
void assertToTrap(cf::AssertOp op, RewriterBase &rewriter) {
  Location loc = op.getLoc();
  Block *before = op->getBlock();
  Block *after = rewriter.splitBlock(before, std::next(op->getIterator()));
  Block *trap = rewriter.createBlock(after);
  rewriter.setInsertionPointToEnd(trap);
  LLVM::Trap::create(rewriter, loc);
  LLVM::UnreachableOp::create(rewriter, loc);
  rewriter.setInsertionPoint(op);
  cf::CondBranchOp::create(rewriter, loc, op.getArg(), after, ValueRange{},
                           trap, ValueRange{});
  rewriter.eraseOp(op);
}

struct ExtGPUWgmmaAssertsToTrapsPass
    : ext::impl::ExtGPUWgmmaAssertsToTrapsBase<ExtGPUWgmmaAssertsToTrapsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](gpu::GPUFuncOp func) {
      bool wgmma = false;
      func.walk([&](Operation *op) {
        wgmma |= isa<NVVM::WgmmaMmaAsyncOp, NVVM::WgmmaFenceAlignedOp,
                     NVVM::WgmmaGroupSyncAlignedOp, NVVM::WgmmaWaitGroupSyncOp>(
            op);
      });
      if (!wgmma)
        return;
      SmallVector<cf::AssertOp> asserts;
      func.walk([&](cf::AssertOp op) { asserts.push_back(op); });
      for (cf::AssertOp op : asserts)
        assertToTrap(op, rewriter);
    });
  }
};

} // namespace
