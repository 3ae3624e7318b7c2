//===- CommonPipelines.cpp - pieces shared by ext's pipelines -------------===//
//
// ext-schedule-to-gpu and the host's lowering to the LLVM dialect, which both
// ext-cpu-pipeline and the GPU pipelines are made of. Pipelines are built
// from the passes' create functions and option structs, so a misspelt pass
// or option is a compile error; the text form is printed from what is built.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/Passes.h"
#include "ext/Dialect/Ext/Transforms/Passes.h"
#include "ext/GPU/Transforms/Passes.h"
#include "ext/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

// Scheduled computes become gpu.launch kernels, unscheduled ones loops;
// the kernels' index computations then sit inside them, ready to outline.
void ext::buildScheduleToGPUPipeline(OpPassManager &pm, int dropBarrier,
                                     bool rejectTileLevel, StringRef chip,
                                     int64_t sms, bool weakenAsyncWait) {
  // The chip is set once, on the module; the passes read it from there.
  // Without one, only an SM count override can size the decompositions.
  ExtApplyScheduleOptions schedule;
  ExtKernelToGPUOptions kernelToGPU;
  if (!chip.empty())
    pm.addPass(createExtSetTarget({chip.str(), sms}));
  else
    schedule.sms = kernelToGPU.sms = sms;
  schedule.weakenAsyncWait = weakenAsyncWait;
  pm.addPass(createExtApplySchedule(schedule));
  pm.addPass(createExtKernelToGPU(kernelToGPU));
  ExtTileOpsToThreadsOptions tileOps;
  tileOps.dropBarrier = dropBarrier;
  pm.addPass(createExtTileOpsToThreads(tileOps));
  pm.addPass(createExtAllocSharedToWorkgroup());
  pm.addPass(createExtComputeToLoops({rejectTileLevel}));
  // A schedule's fast_math: the forms the NVVM lowering and the emulator
  // share.
  pm.addPass(createExtGPUFastMath());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
}

void ext::buildHostToLLVMPipeline(OpPassManager &pm,
                                  PipelineStage kernelLowering,
                                  PipelineStage launchLowering) {
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLowerAffinePass());
  if (kernelLowering)
    kernelLowering(pm);
  // async.execute bodies (which may launch kernels: on the emulator the
  // launches are runtime calls by now) run on MLIR's async runtime.
  pm.addPass(createExtAsyncToRuntime());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  if (launchLowering)
    launchLowering(pm);
  // The tile lowering's vector loads and stores (16-byte copies).
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

std::string ext::getPassListText(OpPassManager &pm) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(
      pm.getPasses(), os, [&](Pass &pass) { pass.printAsTextualPipeline(os); },
      ",");
  return text;
}
