//===- Serialize.h - gpu.module to PTX / HSACO ------------------*- C++ -*-===//

#ifndef EXT_TARGET_GPU_SERIALIZE_H
#define EXT_TARGET_GPU_SERIALIZE_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
class Operation;
namespace gpu {
class GPUModuleOp;
} // namespace gpu
} // namespace mlir

namespace ext {

/// What a gpu.module is serialized to.
enum class GPUBinaryKind {
  /// PTX text, from the module's #nvvm.target.
  Ptx,
  /// An AMDHSA code object (ELF, linked with ld.lld), from its #rocdl.target.
  Hsaco,
};

struct SerializeOptions {
  /// Toolkit root handed to the target: for HSACO a folder holding
  /// amdgcn/bitcode and llvm/bin/ld.lld (empty: ext's build-tree default);
  /// for PTX a CUDA root for libdevice (empty: upstream's detection).
  std::string toolkitPath;
  /// The gpu.module to serialize when the input holds several.
  std::string moduleName;
};

/// The ROCm-shaped folder the build lays out for Debian's device libraries
/// and lld (the baked default toolkit path of --ext-to-hsaco).
llvm::StringRef getDefaultRocmToolkitPath();

/// Serializes `module`, which must carry a target of the kind `kind` needs.
/// Errors are emitted on the module.
/// Makes NVPTX use 32-bit pointers to shared memory (its `nvptx-short-ptr`
/// option), for every PTX this process generates; serializeGPUModule and
/// the CUDA host pipeline call it.
void useShortSharedPointers();

mlir::FailureOr<llvm::SmallVector<char, 0>>
serializeGPUModule(mlir::gpu::GPUModuleOp module, GPUBinaryKind kind,
                   const SerializeOptions &options);

/// Finds the one gpu.module under `root` to serialize (by name when
/// `options.moduleName` is set) and serializes it.
mlir::FailureOr<llvm::SmallVector<char, 0>>
serializeGPUModuleIn(mlir::Operation *root, GPUBinaryKind kind,
                     const SerializeOptions &options);

/// Serializes every gpu.module under `root` (only the one named by
/// `options.moduleName`, when set) into `directory` as NAME.ptx or
/// NAME.hsaco, and writes each file's path on a line of `listing`. Nothing is
/// written unless every module serializes.
mlir::LogicalResult serializeGPUModulesToDirectory(
    mlir::Operation *root, GPUBinaryKind kind, const SerializeOptions &options,
    llvm::StringRef directory, llvm::raw_ostream &listing);

/// Registers the --ext-to-ptx and --ext-to-hsaco translations (and their
/// command-line options); `registerDialects` adds dialects the inputs may
/// use besides upstream's (ext's own).
void registerGPUTranslations(
    std::function<void(mlir::DialectRegistry &)> registerDialects = {});

} // namespace ext

#endif // EXT_TARGET_GPU_SERIALIZE_H
