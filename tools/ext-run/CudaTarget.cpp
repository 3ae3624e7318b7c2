//===- CudaTarget.cpp - ext-run --target=cuda -----------------------------===//
//
// The host half of a module runs in the ExecutionEngine; its gpu.launch_func
// calls go through ext's runtime library (runtime/cuda) to the CUDA driver,
// which that library dlopens. ext-run opens the same library first to ask
// whether there is a driver and device, and which chip to compile for.
//
//===----------------------------------------------------------------------===//

#include "CudaTarget.h"

#include "ext/Pipelines/Pipelines.h"
#include "ext/Support/InstallPaths.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

using namespace mlir;

namespace {
int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "ext-run") << message << "\n";
  return 1;
}

/// The runtime library's control API (runtime/cuda/ExtCudaRuntime.cpp).
struct Runtime {
  int (*init)(int, char *, size_t) = nullptr;
  int (*deviceInfo)(char *, size_t, int *, int *) = nullptr;
  int (*errorCount)() = nullptr;
  void (*reportTimings)() = nullptr;
};
} // namespace

int ext::runOnCuda(ModuleOp module, const CudaRunOptions &options) {
  // RTLD_GLOBAL: the JIT resolves mgpu* against this very copy, so the
  // driver state set up here is the one the kernels launch through.
  std::string runtimeLib = ext::findNextToExtLibraries(EXT_CUDA_RUNTIME_LIB);
  void *library = dlopen(runtimeLib.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!library)
    return fail(llvm::Twine("cannot load ext's CUDA runtime library '") +
                runtimeLib + "': " + dlerror());
  Runtime rt;
  rt.init = reinterpret_cast<decltype(rt.init)>(dlsym(library, "extCudaInit"));
  rt.deviceInfo = reinterpret_cast<decltype(rt.deviceInfo)>(
      dlsym(library, "extCudaDeviceInfo"));
  rt.errorCount = reinterpret_cast<decltype(rt.errorCount)>(
      dlsym(library, "extCudaErrorCount"));
  rt.reportTimings = reinterpret_cast<decltype(rt.reportTimings)>(
      dlsym(library, "extCudaReportTimings"));
  if (!rt.init || !rt.deviceInfo || !rt.errorCount || !rt.reportTimings)
    return fail("ext's CUDA runtime library lacks its extCuda* entry points");

  // Ask for the driver before lowering (the device picks the chip), but
  // lower either way, so --print-lowered works on machines without a GPU.
  char message[1024] = {0};
  int status = rt.init(/*ordinal=*/0, message, sizeof(message));
  GPUTarget target;
  target.target = "nvvm";
  target.chip = options.chip;
  target.optLevel = options.optLevel;
  if (status == 0) {
    char name[256] = {0};
    int major = 0, minor = 0;
    if (rt.deviceInfo(name, sizeof(name), &major, &minor) == 0) {
      llvm::errs() << "ext-run: running on " << name << " (sm_" << major
                   << minor << ")\n";
      if (target.chip.empty())
        target.chip = "sm_" + std::to_string(major) + std::to_string(minor);
    }
  }
  std::string error;
  FailureOr<GPUTarget> resolved = resolveGPUTarget(target, error);
  if (failed(resolved))
    return fail(error);

  PassManager pm(module->getContext(), module->getName().getStringRef());
  buildGPUHostPipeline(pm, *resolved, "isa", "");
  if (failed(pm.run(module)))
    return fail("lowering for --target=cuda failed");
  if (options.printLowered)
    module->print(llvm::outs());

  // gpu.binary and the (LLVM-typed) gpu.launch_func stay: the LLVM IR
  // translation embeds the PTX and emits the mgpu* launch sequence.
  Operation *leftover = nullptr;
  module->walk([&](Operation *op) {
    if (op == module.getOperation() || isa<gpu::BinaryOp, gpu::LaunchFuncOp>(op) ||
        isa<LLVM::LLVMDialect>(op->getDialect()))
      return WalkResult::advance();
    leftover = op;
    return WalkResult::interrupt();
  });
  if (leftover) {
    leftover->emitError() << "'" << leftover->getName()
                          << "' was not lowered to the LLVM dialect for "
                             "--target=cuda";
    return fail("lowering for --target=cuda failed");
  }

  if (status != 0)
    return fail(llvm::Twine("--target=cuda needs an NVIDIA GPU and its "
                            "driver: ") +
                message);

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  SmallVector<StringRef> libs(options.sharedLibs.begin(),
                              options.sharedLibs.end());
  libs.push_back(runtimeLib);
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = makeOptimizingTransformer(
      options.optLevel, /*sizeLevel=*/0, /*targetMachine=*/nullptr);
  engineOptions.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return fail("could not compile the lowered module: " +
                llvm::toString(engine.takeError()));
  if (llvm::Error err = (*engine)->invokePacked(options.entry))
    return fail("running @" + options.entry +
                " failed: " + llvm::toString(std::move(err)));
  llvm::outs().flush();
  fflush(stdout);
  rt.reportTimings();
  if (int errors = rt.errorCount())
    return fail(llvm::Twine(errors) + " CUDA driver call(s) failed");
  return 0;
}
