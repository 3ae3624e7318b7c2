//===- Executable.h - compile a module once, call it many times -*- C++ -*-===//
//
// What ext-run and the Python bindings share to run a module: lower it for
// the CPU (ext-cpu-pipeline, gpu kernels on ext's emulator) or a CUDA device
// (ext-gpu-host-pipeline), JIT-compile it with MLIR's ExecutionEngine and the
// run-time libraries, and call an entry with memref descriptors and typed
// emulator options, failures coming back as values.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNNER_EXECUTABLE_H
#define EXT_RUNNER_EXECUTABLE_H

#include "ext/Pipelines/Pipelines.h"
#include "ext/Runner/EmulatorOptions.h"
#include "ext/Runner/MemRefDescriptor.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace ext::runner {

enum class Target { Cpu, Cuda };

struct CompileOptions {
  Target target = Target::Cpu;
  /// Target::Cpu: ext-cpu-pipeline's options (the chip kernels stand for,
  /// SM count, test switches).
  CpuPipelineOptions cpu;
  /// Target::Cuda: the sm_NN to compile for; empty: the device's.
  std::string cudaChip;
  /// LLVM optimization level of the host code (and the device's on CUDA).
  unsigned optLevel = 2;
  /// Extra shared libraries for the JIT.
  llvm::SmallVector<std::string> sharedLibs;
};

/// Lowers `module` in place for `options.target` and checks that only what
/// the JIT compiles is left. On failure `error` says why when the target is
/// unusable (an unknown chip; nothing was lowered), and is empty when the
/// pipeline failed, which it reports through the context's diagnostics.
mlir::LogicalResult lower(mlir::ModuleOp module, const CompileOptions &options,
                          std::string &error);

/// The emulator's settings for running `module` (before or after lower())
/// with `options`: the lanes of the chip its kernels are for, --chip or the
/// module's own #ext.target, so a module compiled for a 64-lane AMD chip
/// runs on 64-lane waves whoever runs it. Without either, the default chip's
/// 32 lanes are left to the runtime (EXT_EMU_WARP_SIZE may change them).
EmulatorOptions emulatorOptionsFor(mlir::ModuleOp module,
                                   const CompileOptions &options);

/// How a call runs.
struct CallOptions {
  /// Settings of the emulator for the launches of this call.
  EmulatorOptions emulator;
  /// A failed emulated launch becomes the call's error (the host code goes
  /// on with later launches skipped), instead of ending the process with the
  /// runtime's report on stderr.
  bool returnEmulatorErrors = true;
};

/// A lowered module, JIT-compiled with the run-time libraries of its target.
class Executable {
public:
  /// Compiles `lowered` (see lower()); Target::Cuda needs a device
  /// (getCudaRuntime().isReady()).
  static llvm::Expected<std::unique_ptr<Executable>>
  create(mlir::ModuleOp lowered, const CompileOptions &options);
  ~Executable();

  /// Calls `entry` (a function taking the memrefs `args` describe, returning
  /// nothing). The options apply to this call on this thread only.
  llvm::Error call(llvm::StringRef entry,
                   llvm::MutableArrayRef<MemRefDescriptor> args,
                   const CallOptions &options);

  Target getTarget() const { return target; }

private:
  Executable(std::unique_ptr<mlir::ExecutionEngine> engine, Target target);
  llvm::Error invoke(llvm::StringRef entry,
                     llvm::MutableArrayRef<MemRefDescriptor> args,
                     const CallOptions &options);

  std::unique_ptr<mlir::ExecutionEngine> engine;
  Target target;
};

} // namespace ext::runner

#endif // EXT_RUNNER_EXECUTABLE_H
