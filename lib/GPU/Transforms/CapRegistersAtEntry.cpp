//===- CapRegistersAtEntry.cpp - a register count for setmaxnreg ----------===//
//
// A warp-specialized kernel moves registers between its warpgroups
// (setmaxnreg), out of the pool the CTA got at launch. ptxas honors it only
// when the kernel's register count at entry is known: with the kernel's
// thread limit (.maxntid) and one CTA per SM (.minnctapersm 1) it allocates
// 64K registers over the CTA's threads, the pool the roles' counts are
// computed from (ext-kernel-to-gpu). Without it ptxas ignores setmaxnreg
// (C7508) and allocates only what the code needs: a consumer's
// setmaxnreg.inc could then wait forever for registers the pool lacks.
//
//===----------------------------------------------------------------------===//

#include "ext/GPU/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUCAPREGISTERSATENTRY
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {

struct ExtGPUCapRegistersAtEntryPass
    : ext::impl::ExtGPUCapRegistersAtEntryBase<ExtGPUCapRegistersAtEntryPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    StringAttr minCtas = StringAttr::get(
        &getContext(), NVVM::NVVMDialect::getMinctasmAttrName());
    StringAttr maxThreads = StringAttr::get(
        &getContext(), NVVM::NVVMDialect::getMaxntidAttrName());
    StringAttr reqThreads = StringAttr::get(
        &getContext(), NVVM::NVVMDialect::getReqntidAttrName());
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      bool setsRegisters = false;
      func.walk([&](NVVM::SetMaxRegisterOp) { setsRegisters = true; });
      if (!setsRegisters)
        continue;
      if (!func->hasAttr(maxThreads) && !func->hasAttr(reqThreads)) {
        func.emitOpError()
            << "sets its warpgroups' registers (setmaxnreg) but has no known "
               "block size to cap its registers at entry with";
        return signalPassFailure();
      }
      func->setAttr(minCtas, Builder(&getContext()).getI32IntegerAttr(1));
    }
  }
};

} // namespace
