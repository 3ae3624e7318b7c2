//===- Pipelines.h - ext's pass pipelines -----------------------*- C++ -*-===//

#ifndef EXT_PIPELINES_PIPELINES_H
#define EXT_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace ext {

/// ext-cpu-pipeline: ext.compute (and any scf/affine/memref/arith/math code
/// around it, and gpu kernels, which become calls into the CPU emulation
/// runtime) down to the LLVM dialect, ready for the ExecutionEngine or
/// mlir-translate --mlir-to-llvmir.
void buildCpuPipeline(mlir::OpPassManager &pm);

/// Registers ext's named pipelines with the global pass registry.
void registerPipelines();

} // namespace ext

#endif // EXT_PIPELINES_PIPELINES_H
