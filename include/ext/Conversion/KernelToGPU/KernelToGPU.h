//===- KernelToGPU.h - ext.kernel to gpu.launch -----------------*- C++ -*-===//
//
// ext-kernel-to-gpu one op at a time: an ext.kernel becomes the gpu.launch
// (or launches) its tile decomposition asks for, for transform ops, the
// bindings and plugins. The pass (ext/Conversion/Passes.td) walks the IR and
// calls this.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_CONVERSION_KERNELTOGPU_KERNELTOGPU_H
#define EXT_CONVERSION_KERNELTOGPU_KERNELTOGPU_H

#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/IR/Target.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace ext {

/// What ext-kernel-to-gpu knows beyond the IR.
struct KernelToGPUOptions {
  /// The chip's SM count, for decompositions whose attribute has none.
  DeviceFacts device;
  /// Tests only: omit the fixup owner's wait / the contributor's release
  /// fence, to show that the race detector reports it.
  bool dropFixupWait = false, dropFixupFence = false;
};

/// ext-kernel-to-gpu on one op: replaces `kernel` by a gpu.launch whose grid
/// and work units its tile decomposition chooses (and, for a decomposition
/// that asks for them, a zeroed workspace allocated around it and a second,
/// reduction launch). Returns the main launch.
mlir::FailureOr<mlir::gpu::LaunchOp>
lowerKernelToGPU(mlir::RewriterBase &rewriter, KernelOp kernel,
                 const KernelToGPUOptions &options = {});

} // namespace ext

#endif // EXT_CONVERSION_KERNELTOGPU_KERNELTOGPU_H
