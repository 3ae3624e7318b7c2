//===- Executable.cpp - compile a module once, call it many times ---------===//
//
// The emulator's options and error channel are per host thread in the
// runtime, and a launch runs its fibers on the thread that calls it: a call
// sets them around the entry on its own thread, so concurrent calls (Python
// threads) with different options do not interfere.
//
//===----------------------------------------------------------------------===//

#include "ext/Runner/Executable.h"

#include "ext/Runner/RuntimeLibraries.h"
#include "ext/Dialect/Ext/IR/Target.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/TargetSelect.h"

#include <mutex>

using namespace mlir;
using namespace ext::runner;

/// Reports the first op left outside what the JIT compiles: the LLVM
/// dialect, and on CUDA the gpu.binary and launches the LLVM IR translation
/// handles. A cast left by a partial conversion points at the op that
/// stayed: that op is reported rather than the cast.
static LogicalResult checkFullyLowered(ModuleOp module, Target target) {
  Operation *leftover = nullptr;
  module->walk([&](Operation *op) {
    if (op == module.getOperation() ||
        isa<LLVM::LLVMDialect>(op->getDialect()) ||
        (target == Target::Cuda && isa<gpu::BinaryOp, gpu::LaunchFuncOp>(op)))
      return WalkResult::advance();
    bool isCast = isa<UnrealizedConversionCastOp>(op);
    if (!leftover || (isa<UnrealizedConversionCastOp>(leftover) && !isCast))
      leftover = op;
    return isCast ? WalkResult::advance() : WalkResult::interrupt();
  });
  if (!leftover)
    return success();
  leftover->emitError() << "'" << leftover->getName()
                        << "' was not lowered to the LLVM dialect "
                        << (target == Target::Cuda ? "for --target=cuda"
                                                   : "by ext-cpu-pipeline");
  return failure();
}

LogicalResult ext::runner::lower(ModuleOp module,
                                 const CompileOptions &options,
                                 std::string &error) {
  PassManager pm(module->getContext(), module->getName().getStringRef());
  if (options.target == Target::Cpu) {
    buildCpuPipeline(pm, options.cpu);
  } else {
    GPUTarget requested;
    requested.target = "nvvm";
    requested.chip = options.cudaChip;
    if (requested.chip.empty())
      requested.chip = getCudaRuntime().chip;
    requested.optLevel = options.optLevel;
    FailureOr<GPUTarget> resolved = resolveGPUTarget(requested, error);
    if (failed(resolved))
      return failure();
    buildGPUHostPipeline(pm, *resolved, "isa", "");
  }
  if (failed(pm.run(module)))
    return failure();
  return checkFullyLowered(module, options.target);
}

EmulatorOptions ext::runner::emulatorOptionsFor(ModuleOp module,
                                               const CompileOptions &options) {
  if (!options.cpu.chip.empty())
    return EmulatorOptions::forChip(options.cpu.chip);
  if (TargetAttr target = getTargetAttr(module))
    return EmulatorOptions::forChip(target.getChip());
  return {};
}

Executable::Executable(std::unique_ptr<ExecutionEngine> engine, Target target)
    : engine(std::move(engine)), target(target) {}

Executable::~Executable() = default;

llvm::Expected<std::unique_ptr<Executable>>
Executable::create(ModuleOp lowered, const CompileOptions &options) {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  llvm::SmallVector<std::string> libs = getRunnerUtilsLibraries();
  if (options.target == Target::Cpu) {
    // The JIT binds kernels to the copy whose control entry points a call
    // uses: load it first.
    if (llvm::Error err = getEmulatorRuntime().takeError())
      return std::move(err);
    libs.push_back(getEmulatorRuntimePath());
  } else {
    const CudaRuntime &cuda = getCudaRuntime();
    if (!cuda.isReady())
      return llvm::createStringError(cuda.loadError.empty() ? cuda.deviceError
                                                            : cuda.loadError);
    libs.push_back(getCudaRuntimePath());
  }
  libs.push_back(getLaunchPlannerPath());
  libs.append(options.sharedLibs.begin(), options.sharedLibs.end());
  llvm::SmallVector<llvm::StringRef> libRefs(libs.begin(), libs.end());
  // ExecutionEngineOptions holds a function_ref: keep the callable alive.
  std::function<llvm::Error(llvm::Module *)> transformer =
      makeOptimizingTransformer(options.optLevel, /*sizeLevel=*/0,
                                /*targetMachine=*/nullptr);
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.sharedLibPaths = libRefs;
  auto engine = ExecutionEngine::create(lowered, engineOptions);
  if (!engine)
    return engine.takeError();
  return std::unique_ptr<Executable>(
      new Executable(std::move(*engine), options.target));
}

llvm::Error Executable::call(llvm::StringRef entry,
                             llvm::MutableArrayRef<MemRefDescriptor> args,
                             const CallOptions &options) {
  if (target == Target::Cpu)
    return invoke(entry, args, options);
  const CudaRuntime &cuda = getCudaRuntime();
  int errorsBefore = cuda.getErrorCount();
  if (llvm::Error err = invoke(entry, args, options))
    return err;
  if (int errors = cuda.getErrorCount() - errorsBefore)
    return llvm::createStringError("running @" + entry + " on the GPU: " +
                                   llvm::Twine(errors) +
                                   " CUDA driver call(s) failed");
  return llvm::Error::success();
}

llvm::Error Executable::invoke(llvm::StringRef entry,
                               llvm::MutableArrayRef<MemRefDescriptor> args,
                               const CallOptions &options) {
  llvm::SmallVector<void *> packed = packArguments(args);
  const EmulatorRuntime *emulator = nullptr;
  if (target == Target::Cpu) {
    auto runtime = getEmulatorRuntime();
    if (!runtime)
      return runtime.takeError();
    emulator = &*runtime;
  }
  ExtEmuOptions abi = options.emulator.toABI();
  if (emulator) {
    emulator->setLaunchOptions(&abi);
    if (options.returnEmulatorErrors)
      emulator->returnErrors(1);
  }
  llvm::Error err = engine->invokePacked(entry, packed);
  std::string emulatorError;
  if (emulator) {
    // An asynchronous launch the entry never waited for ends here, and
    // reports here.
    emulator->synchronize();
    if (options.returnEmulatorErrors) {
      if (const char *kept = emulator->takeError())
        emulatorError = kept;
      emulator->returnErrors(0);
    }
    emulator->setLaunchOptions(nullptr);
  }
  if (err)
    return llvm::createStringError("running @" + entry + " failed: " +
                                   llvm::toString(std::move(err)));
  if (!emulatorError.empty())
    return llvm::createStringError("running @" + entry +
                                   " on ext's emulator failed: " +
                                   emulatorError);
  return llvm::Error::success();
}
