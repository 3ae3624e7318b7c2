//===- AsyncToRuntime.cpp - the async dialect on MLIR's async runtime -----===//
//
// A module with async ops gets upstream's lowering of them, run as a nested
// pipeline; one without is left alone (convert-async-to-llvm would declare
// the runtime's functions in it).
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Async/IR/Async.h"
#include "mlir/Dialect/Async/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

namespace ext {
#define GEN_PASS_DEF_EXTASYNCTORUNTIME
#include "ext/Conversion/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {
/// Upstream's lowering, in the order mlir-opt users spell it.
void addAsyncLowering(OpPassManager &pm) {
  pm.addPass(createAsyncToAsyncRuntimePass());
  pm.addPass(createAsyncRuntimeRefCountingPass());
  pm.addPass(createAsyncRuntimeRefCountingOptPass());
  pm.addPass(createConvertAsyncToLLVMPass());
}

struct ExtAsyncToRuntime
    : ext::impl::ExtAsyncToRuntimeBase<ExtAsyncToRuntime> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool usesAsync = module
                         .walk([](Operation *op) {
                           return isa_and_nonnull<async::AsyncDialect>(
                                      op->getDialect())
                                      ? WalkResult::interrupt()
                                      : WalkResult::advance();
                         })
                         .wasInterrupted();
    if (!usesAsync)
      return;
    OpPassManager pm(ModuleOp::getOperationName());
    addAsyncLowering(pm);
    if (failed(runPipeline(pm, module)))
      signalPassFailure();
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    OpPassManager pm(ModuleOp::getOperationName());
    addAsyncLowering(pm);
    pm.getDependentDialects(registry);
  }
};
} // namespace
