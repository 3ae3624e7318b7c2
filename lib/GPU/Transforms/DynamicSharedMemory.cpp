//===- DynamicSharedMemory.cpp - workgroup buffers above 48 KB ------------===//

#include "ext/Dialect/Ext/IR/Target.h"
#include "ext/Model/Chip.h"
#include "ext/GPU/Transforms/Passes.h"
#include "ext/GPU/WorkgroupAttributions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUDYNAMICSHAREDMEMORY
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {

/// Dynamic shared memory's base is 16-byte aligned; so is every buffer in it.
constexpr uint64_t kBufferAlign = 16;

/// Bytes of a workgroup attribution a memref.view can stand for (static,
/// row-major); std::nullopt for any other.
std::optional<uint64_t> viewableBytes(MemRefType type, Operation *scope) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return std::nullopt;
  return uint64_t(type.getNumElements()) *
         DataLayout::closest(scope).getTypeSize(type.getElementType());
}

/// Replaces the workgroup attributions of `kernel` (a gpu.launch or a
/// gpu.func) by views of dynamic shared memory from byte `offset` on, when
/// they exceed the chip's static limit and fit its per-block limit; returns
/// the dynamic bytes the launches must ask for, or std::nullopt when the
/// kernel stays as it is.
std::optional<uint64_t> moveToDynamic(Operation *kernel,
                                      ArrayRef<BlockArgument> attributions,
                                      uint64_t offset,
                                      const ext::ChipInfo &chip) {
  SmallVector<std::pair<BlockArgument, uint64_t>> buffers;
  uint64_t staticBytes = 0;
  for (BlockArgument arg : attributions) {
    std::optional<uint64_t> bytes =
        viewableBytes(cast<MemRefType>(arg.getType()), kernel);
    if (!bytes)
      return std::nullopt; // the resource check reports what stays static
    buffers.push_back({arg, *bytes});
    staticBytes += *bytes;
  }
  // Beyond the per-block limit nothing helps: the resource check reports it
  // with the buffers still named.
  if (staticBytes <= chip.staticSharedBytesPerBlock ||
      llvm::alignTo(offset, kBufferAlign) + staticBytes + kBufferAlign * buffers.size() >
          chip.maxSharedBytesPerBlock)
    return std::nullopt;
  OpBuilder b(kernel->getContext());
  b.setInsertionPointToStart(&kernel->getRegion(0).front());
  Location loc = kernel->getLoc();
  auto space = gpu::AddressSpaceAttr::get(kernel->getContext(),
                                          gpu::AddressSpace::Workgroup);
  auto bytesType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                   MemRefLayoutAttrInterface(), space);
  Value base = gpu::DynamicSharedMemoryOp::create(b, loc, bytesType);
  SmallVector<unsigned> erased;
  for (auto [i, entry] : llvm::enumerate(buffers)) {
    auto [arg, bytes] = entry;
    offset = llvm::alignTo(offset, kBufferAlign);
    Value at = arith::ConstantIndexOp::create(b, loc, offset);
    Value view = memref::ViewOp::create(b, arg.getLoc(), arg.getType(), base,
                                        at, ValueRange{});
    arg.replaceAllUsesWith(view);
    erased.push_back(i);
    offset += bytes;
  }
  ext::eraseWorkgroupAttributions(kernel, erased);
  return offset;
}

/// The constant dynamic shared memory size of a launch (0 when it has none);
/// std::nullopt when it is not a constant.
std::optional<uint64_t> dynamicBytesOf(Value size) {
  if (!size)
    return 0;
  std::optional<int64_t> bytes = getConstantIntValue(size);
  if (!bytes || *bytes < 0)
    return std::nullopt;
  return *bytes;
}

void setDynamicBytes(Operation *launch, MutableOperandRange size,
                     uint64_t bytes) {
  OpBuilder host(launch);
  size.assign(arith::ConstantIntOp::create(host, launch->getLoc(), bytes, 32));
}

struct ExtGPUDynamicSharedMemoryPass
    : ext::impl::ExtGPUDynamicSharedMemoryBase<ExtGPUDynamicSharedMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<ext::DeviceFacts> device =
        ext::resolveDevice(getOperation(), "ext-gpu-dynamic-shared-memory",
                           chip, 0, ext::kDefaultChip);
    if (failed(device))
      return signalPassFailure();
    const std::optional<ext::ChipInfo> &info = device->chip;
    if (info->staticSharedBytesPerBlock >= info->maxSharedBytesPerBlock)
      return; // every byte a block may have can be static (AMD)
    ModuleOp module = getOperation();
    SmallVector<gpu::LaunchOp> launches;
    SmallVector<gpu::GPUFuncOp> kernels;
    module->walk([&](Operation *op) {
      if (auto launch = dyn_cast<gpu::LaunchOp>(op))
        launches.push_back(launch);
      else if (auto func = dyn_cast<gpu::GPUFuncOp>(op);
               func && func.isKernel() && !func.isExternal())
        kernels.push_back(func);
    });
    for (gpu::LaunchOp launch : launches) {
      // The launch's own dynamic bytes come first.
      std::optional<uint64_t> own =
          dynamicBytesOf(launch.getDynamicSharedMemorySize());
      if (!own)
        continue; // not constant: nothing to place after
      if (std::optional<uint64_t> bytes = moveToDynamic(
              launch, launch.getWorkgroupAttributions(), *own, *info))
        setDynamicBytes(launch, launch.getDynamicSharedMemorySizeMutable(),
                        *bytes);
    }
    // Outlined kernels: every launch of one must ask for the same bytes.
    llvm::DenseMap<Operation *, SmallVector<gpu::LaunchFuncOp>> sites;
    module->walk([&](gpu::LaunchFuncOp l) {
      if (Operation *callee =
              SymbolTable::lookupNearestSymbolFrom(l, l.getKernel()))
        sites[callee].push_back(l);
    });
    for (gpu::GPUFuncOp func : kernels) {
      uint64_t own = 0;
      bool constant = true;
      for (gpu::LaunchFuncOp l : sites.lookup(func)) {
        std::optional<uint64_t> b = dynamicBytesOf(l.getDynamicSharedMemorySize());
        constant &= b.has_value();
        own = std::max(own, b.value_or(0));
      }
      if (!constant)
        continue;
      if (std::optional<uint64_t> bytes = moveToDynamic(
              func, func.getWorkgroupAttributions(), own, *info))
        for (gpu::LaunchFuncOp l : sites.lookup(func))
          setDynamicBytes(l, l.getDynamicSharedMemorySizeMutable(), *bytes);
    }
  }
};

} // namespace
