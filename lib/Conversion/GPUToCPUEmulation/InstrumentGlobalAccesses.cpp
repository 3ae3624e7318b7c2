//===- InstrumentGlobalAccesses.cpp - global accesses for racecheck -------===//
//
// The emulator's race detector sees only the accesses reported to it. The
// emulation lowering reports workgroup accesses, atomics and fences (its
// yield points); this pass adds every load and store of global memory, so
// that races there are found too (at the price of a yield point each). A
// thread's private memory cannot race and is left alone.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/GPUToCPUEmulation/EmulationBuilder.h"
#include "ext/Conversion/Passes.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace ext {
#define GEN_PASS_DEF_EXTINSTRUMENTGLOBALACCESSES
#include "ext/Conversion/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext;
using namespace ext::emu;

namespace {

struct ExtInstrumentGlobalAccessesPass
    : ext::impl::ExtInstrumentGlobalAccessesBase<ExtInstrumentGlobalAccessesPass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUModuleOp gpuModule = getOperation();
    SiteTable sites = SiteTable::fromModule(gpuModule);
    SymbolTable symbols(gpuModule);
    // Sizes as the emulation lowering sees them, in the host module.
    DataLayout layout = DataLayout::closest(gpuModule->getParentOp());
    auto byteSize = [&](Type type) {
      return int64_t(layout.getTypeSize(type));
    };
    func::FuncOp hook;
    // The device functions ext-gpu-to-cpu-emulation lowers, in its order.
    SmallVector<Operation *> functions;
    for (Operation &op : *gpuModule.getBody()) {
      auto func = dyn_cast<func::FuncOp>(op);
      if (isa<gpu::GPUFuncOp>(op) || (func && !func.isExternal()))
        functions.push_back(&op);
    }
    for (Operation *function : functions) {
      SmallVector<Operation *> accesses;
      function->walk([&](Operation *op) {
        if (auto load = dyn_cast<memref::LoadOp>(op)) {
          if (isGlobalMemRef(load.getMemref().getType()))
            accesses.push_back(op);
        } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
          if (isGlobalMemRef(store.getMemref().getType()))
            accesses.push_back(op);
        } else if (auto load = dyn_cast<vector::LoadOp>(op)) {
          if (isGlobalMemRef(load.getBase().getType()))
            accesses.push_back(op);
        } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
          if (isGlobalMemRef(store.getBase().getType()))
            accesses.push_back(op);
        }
      });
      for (Operation *op : accesses) {
        OpBuilder b(op);
        if (!hook) {
          Type i64 = b.getI64Type(), i32 = b.getI32Type();
          hook = declareRuntimeFunction(symbols, EXT_EMU_ACCESS,
                                        {i64, i64, i32, i32}, {});
        }
        Value memref;
        ValueRange indices;
        Type type;
        int32_t kind;
        if (auto load = dyn_cast<memref::LoadOp>(op)) {
          memref = load.getMemref();
          indices = load.getIndices();
          type = load.getType();
          kind = EXT_EMU_GLOBAL | EXT_EMU_LOAD;
        } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
          memref = store.getMemref();
          indices = store.getIndices();
          type = store.getValueToStore().getType();
          kind = EXT_EMU_GLOBAL | EXT_EMU_STORE;
        } else if (auto load = dyn_cast<vector::LoadOp>(op)) {
          // A vector access is one access of all its bytes.
          memref = load.getBase();
          indices = load.getIndices();
          type = load.getType();
          kind = EXT_EMU_GLOBAL | EXT_EMU_LOAD;
        } else {
          auto store = cast<vector::StoreOp>(op);
          memref = store.getBase();
          indices = store.getIndices();
          type = store.getValueToStore().getType();
          kind = EXT_EMU_GLOBAL | EXT_EMU_STORE;
        }
        auto memrefType = cast<MemRefType>(memref.getType());
        emitAccessHook(b, op->getLoc(), hook, memref, indices,
                       byteSize(memrefType.getElementType()), byteSize(type),
                       kind, sites.id(op->getLoc()));
      }
    }
    if (!sites.entries.empty())
      sites.saveToModule(gpuModule);
  }
};

} // namespace
