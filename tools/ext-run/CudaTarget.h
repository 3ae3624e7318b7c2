//===- CudaTarget.h - ext-run --target=cuda ---------------------*- C++ -*-===//

#ifndef EXT_RUN_CUDATARGET_H
#define EXT_RUN_CUDATARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace ext {

struct CudaRunOptions {
  std::string entry = "main";
  /// sm_NN; empty: the device's compute capability (sm_80 without one).
  std::string chip;
  unsigned optLevel = 2;
  bool printLowered = false;
  /// Runner utilities and any --shared-libs, loaded into the JIT.
  llvm::SmallVector<llvm::StringRef> sharedLibs;
};

/// Lowers `module` with ext-gpu-host-pipeline (kernels to PTX, JIT-compiled
/// by the driver; host code to LLVM with mgpu* calls into ext's CUDA runtime
/// library), runs its entry function and reports each kernel's time. Without
/// a CUDA driver it says so and fails. Returns the process exit status.
int runOnCuda(mlir::ModuleOp module, const CudaRunOptions &options);

} // namespace ext

#endif // EXT_RUN_CUDATARGET_H
