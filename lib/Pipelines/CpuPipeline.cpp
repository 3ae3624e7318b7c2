//===- CpuPipeline.cpp - ext-cpu-pipeline ---------------------------------===//

#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Conversion/Passes.h"
#include "ext/Dialect/Ext/Transforms/Passes.h"
#include "ext/GPU/Transforms/Passes.h"
#include "ext/Pipelines/Pipelines.h"
#include "ext/Model/Chip.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void ext::buildCpuPipeline(OpPassManager &pm,
                           const CpuPipelineOptions &options) {
  // Scheduled computes run as the GPU kernels they become (on the emulator);
  // `reference` runs every compute as plain loops instead. Tile-level ext
  // ops left over have no CPU lowering: they are rejected with a diagnostic
  // rather than left for the LLVM conversion to trip on.
  // A schedule written in a transform script is attached before anything
  // reads the module.
  pm.addPass(createExtApplyTransformScript());
  if (options.reference) {
    pm.addPass(createExtComputeToLoops({/*rejectTileLevel=*/true}));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  } else {
    // A module that names no chip runs as ext's default chip, the one
    // ext-gpu-pipeline compiles for: the same limits, SM count and lanes.
    if (options.chip.empty())
      pm.addPass(createExtSetTarget(
          {std::string(kDefaultChip), /*sms=*/0, /*ifUnset=*/true}));
    buildScheduleToGPUPipeline(pm, options.dropBarrier,
                               /*rejectTileLevel=*/true, options.chip,
                               options.sms, options.weakenAsyncWait);
    if (options.reuseSharedMemory) {
      ExtGPUReuseSharedMemoryOptions reuse;
      reuse.dropHazardBarriers = options.dropHazardBarriers;
      pm.addPass(createExtGPUReuseSharedMemory(reuse));
    }
    // Kernels for an NVIDIA chip take shared memory above its static limit
    // as dynamic shared memory there; the emulator runs them the same way,
    // and refuses what the chip could not run, as ext-gpu-pipeline does.
    pm.addPass(createExtGPUDynamicSharedMemory());
    pm.addPass(createExtGPUCheckResourceLimits());
  }
  // Kernels (gpu.launch) are outlined and turned into calls to the CPU
  // emulation runtime once loops and affine code are lowered, so what runs
  // inside them is plain memref code; both passes leave a module without gpu
  // ops unchanged.
  bool racecheck = options.racecheck;
  buildHostToLLVMPipeline(pm, [racecheck](OpPassManager &kernels) {
    addCpuEmulationPasses(kernels, racecheck);
  });
  pm.addPass(createExtClearTarget());
}

std::string ext::getCpuPipelineText(const CpuPipelineOptions &options) {
  OpPassManager pm(ModuleOp::getOperationName());
  buildCpuPipeline(pm, options);
  return getPassListText(pm);
}

void ext::registerPipelines() {
  PassPipelineRegistration<>(
      "ext-schedule-to-gpu",
      "Turn scheduled ext.computes into gpu.launch kernels (and the "
      "unscheduled ones into loops)",
      [](OpPassManager &pm) {
        pm.addPass(createExtApplyTransformScript());
        buildScheduleToGPUPipeline(pm);
      });
  PassPipelineRegistration<CpuPipelineOptions>(
      "ext-cpu-pipeline",
      "Lower ext.compute and the surrounding code, gpu kernels included "
      "(scheduled computes become kernels; kernels run on the CPU "
      "emulation runtime), to the LLVM dialect for execution on the CPU",
      [](OpPassManager &pm, const CpuPipelineOptions &options) {
        buildCpuPipeline(pm, options);
      });
}
