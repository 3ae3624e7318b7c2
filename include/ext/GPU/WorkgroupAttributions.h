//===- WorkgroupAttributions.h - Adding workgroup buffers -------*- C++ -*-===//
//
// gpu.launch and gpu.func verify without a `workgroup_attributions` count
// (none means zero buffers), but upstream's addWorkgroupAttribution reads that
// count unchecked and crashes on such an op (found by ext-fuzz). ext's passes
// add workgroup buffers through this helper, which sets the count first.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_GPU_WORKGROUPATTRIBUTIONS_H
#define EXT_GPU_WORKGROUPATTRIBUTIONS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace ext {

/// Appends a workgroup attribution of `type` to `op` (a gpu::LaunchOp or
/// gpu::GPUFuncOp) and returns its block argument.
template <typename KernelOp>
mlir::BlockArgument addWorkgroupAttribution(KernelOp op, mlir::Type type,
                                            mlir::Location loc) {
  llvm::StringRef count = KernelOp::getNumWorkgroupAttributionsAttrName();
  if (!op->template getAttrOfType<mlir::IntegerAttr>(count))
    op->setAttr(count, mlir::Builder(op->getContext()).getI64IntegerAttr(0));
  return op.addWorkgroupAttribution(type, loc);
}

/// The same for a kernel known only as an op: a gpu::LaunchOp or a
/// gpu::GPUFuncOp.
inline mlir::BlockArgument addWorkgroupAttribution(mlir::Operation *kernel,
                                                   mlir::Type type,
                                                   mlir::Location loc) {
  if (auto launch = llvm::dyn_cast<mlir::gpu::LaunchOp>(kernel))
    return addWorkgroupAttribution(launch, type, loc);
  return addWorkgroupAttribution(llvm::cast<mlir::gpu::GPUFuncOp>(kernel), type,
                                 loc);
}

/// Position of the first workgroup attribution among the entry block
/// arguments of `kernel` (a gpu::LaunchOp or gpu::GPUFuncOp).
inline unsigned firstWorkgroupAttribution(mlir::Operation *kernel) {
  if (auto launch = llvm::dyn_cast<mlir::gpu::LaunchOp>(kernel))
    return launch.getNumConfigRegionAttributes();
  return llvm::cast<mlir::gpu::GPUFuncOp>(kernel)
      .getFirstWorkgroupAttributionIndex();
}

/// Removes the workgroup attributions at `indices` (sorted, counted among
/// the workgroup attributions) of `kernel`; they must have no uses left.
inline void eraseWorkgroupAttributions(mlir::Operation *kernel,
                                       llvm::ArrayRef<unsigned> indices) {
  mlir::Block &entry = kernel->getRegion(0).front();
  unsigned first = firstWorkgroupAttribution(kernel);
  auto countName = mlir::StringAttr::get(
      kernel->getContext(),
      llvm::isa<mlir::gpu::LaunchOp>(kernel)
          ? mlir::gpu::LaunchOp::getNumWorkgroupAttributionsAttrName()
          : mlir::gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName());
  auto countAttr = kernel->getAttrOfType<mlir::IntegerAttr>(countName);
  unsigned count = (countAttr ? countAttr.getInt() : 0) - indices.size();
  for (unsigned i : llvm::reverse(indices))
    entry.eraseArgument(first + i);
  kernel->setAttr(countName,
                  mlir::Builder(kernel->getContext()).getI64IntegerAttr(count));
}

} // namespace ext

#endif // EXT_GPU_WORKGROUPATTRIBUTIONS_H
