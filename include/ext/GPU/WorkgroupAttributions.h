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

} // namespace ext

#endif // EXT_GPU_WORKGROUPATTRIBUTIONS_H
