//===- AlignSharedMemory.cpp - shared buffers where swizzles want them ----===//
//
// Dynamic shared memory is the region after a block's static variables. An
// internal zero-sized global is a one-byte static variable to ptxas, placed
// among the others in an order of its own; an external one is the region.
// Swizzled tiles (TMA boxes loaded or stored, wgmma operands) need their bases at multiples
// of 1024 bytes, the swizzle's period in address bits: ext places them so
// within their buffer, and the buffer itself must be so placed.
//
//===----------------------------------------------------------------------===//

#include "ext/GPU/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUALIGNSHAREDMEMORY
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {

constexpr unsigned kSharedAddressSpace = 3;
constexpr uint64_t kSwizzlePeriod = 1024;
/// The prefix of the globals convert-nvgpu-to-nvvm makes for mbarrier
/// groups: 8-byte words that hold no tile.
constexpr llvm::StringLiteral kMBarrierPrefix = "__mbarrier";

struct ExtGPUAlignSharedMemoryPass
    : ext::impl::ExtGPUAlignSharedMemoryBase<ExtGPUAlignSharedMemoryPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    bool swizzled = false;
    module.walk([&](Operation *op) {
      if (isa<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp,
              NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp,
              NVVM::WgmmaMmaAsyncOp>(op))
        swizzled = true;
    });
    for (auto global : module.getOps<LLVM::GlobalOp>()) {
      if (global.getAddrSpace() != kSharedAddressSpace ||
          global.getSymName().starts_with(kMBarrierPrefix))
        continue;
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      bool dynamic = array && array.getNumElements() == 0 &&
                     global.getInitializerRegion().empty() &&
                     !global.getValueAttr();
      if (dynamic)
        global.setLinkage(LLVM::Linkage::External);
      if (swizzled)
        global.setAlignment(std::max<uint64_t>(
            global.getAlignment().value_or(1), kSwizzlePeriod));
    }
  }
};

} // namespace
