//===- CpuPipeline.cpp - ext-cpu-pipeline ---------------------------------===//

#include "ext/Conversion/Passes.h"
#include "ext/Dialect/Ext/Transforms/Passes.h"
#include "ext/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

// Pipelines are spelled as text so they read the same in the docs, in
// `ext-opt --help` and here. Each pass is upstream's except the ext-* ones.

std::string ext::getHostToLLVMPipelineText(llvm::StringRef kernelLowering,
                                           llvm::StringRef launchLowering) {
  return ("convert-linalg-to-loops,"
          "canonicalize,"
          "lower-affine," +
          kernelLowering +
          "convert-scf-to-cf,"
          "expand-strided-metadata,"
          "lower-affine,"
          "convert-math-to-llvm,"
          "convert-math-to-libm," +
          launchLowering +
          "finalize-memref-to-llvm,"
          "convert-arith-to-llvm,"
          "convert-index-to-llvm,"
          "convert-func-to-llvm,"
          "convert-cf-to-llvm,"
          "reconcile-unrealized-casts")
      .str();
}

// Scheduled computes become gpu.launch kernels, unscheduled ones loops;
// the kernels' index computations then sit inside them, ready to outline.
std::string ext::getScheduleToGpuPipelineText(int dropBarrier,
                                              bool rejectTileLevel) {
  std::string text = "ext-apply-schedule,ext-lower-decomposition,";
  text += dropBarrier < 0 ? std::string("ext-lower-tile-ops,")
                          : "ext-lower-tile-ops{drop-barrier=" +
                                std::to_string(dropBarrier) + "},";
  text += "ext-lower-storage-align,";
  text += rejectTileLevel ? "ext-lower-to-loops{reject-tile-level=true},"
                          : "ext-lower-to-loops,";
  return text + "canonicalize,cse,gpu-launch-sink-index-computations";
}

std::string ext::getCpuPipelineText(const CpuPipelineOptions &options) {
  // Scheduled computes run as the GPU kernels they become (on the emulator);
  // `reference` runs every compute as plain loops instead. Tile-level ext
  // ops left over have no CPU lowering: they are rejected with a diagnostic
  // rather than left for the LLVM conversion to trip on.
  std::string text;
  if (options.reference) {
    text = "ext-lower-to-loops{reject-tile-level=true},canonicalize,cse,";
  } else {
    text = getScheduleToGpuPipelineText(options.dropBarrier,
                                        /*rejectTileLevel=*/true) +
           ",";
    if (options.reuseSharedMemory)
      text += std::string("ext-reuse-shared-memory{drop-hazard-barriers=") +
              (options.dropHazardBarriers ? "true" : "false") + "},";
  }
  // Kernels (gpu.launch) are outlined and turned into calls to the CPU
  // emulation runtime once loops and affine code are lowered, so what runs
  // inside them is plain memref code; both passes leave a module without gpu
  // ops unchanged.
  // (The same passes as ext::addCpuEmulationPasses, spelled as text.)
  std::string emulation =
      options.racecheck
          ? "gpu-kernel-outlining,"
            "gpu.module(ext-instrument-global-accesses),"
            "ext-gpu-to-cpu-emulation,"
          : "gpu-kernel-outlining,ext-gpu-to-cpu-emulation,";
  return text + getHostToLLVMPipelineText(emulation, /*launchLowering=*/"");
}

void ext::buildCpuPipeline(OpPassManager &pm,
                           const CpuPipelineOptions &options) {
  if (failed(parsePassPipeline(getCpuPipelineText(options), pm)))
    llvm::report_fatal_error("ext-cpu-pipeline: a pass is not registered");
}

void ext::buildScheduleToGpuPipeline(OpPassManager &pm) {
  if (failed(parsePassPipeline(getScheduleToGpuPipelineText(), pm)))
    llvm::report_fatal_error("ext-schedule-to-gpu: a pass is not registered");
}

void ext::registerPipelines() {
  PassPipelineRegistration<>(
      "ext-schedule-to-gpu",
      "Turn scheduled ext.computes into gpu.launch kernels (and the "
      "unscheduled ones into loops)",
      [](OpPassManager &pm) { buildScheduleToGpuPipeline(pm); });
  PassPipelineRegistration<CpuPipelineOptions>(
      "ext-cpu-pipeline",
      "Lower ext.compute and the surrounding code, gpu kernels included "
      "(scheduled computes become kernels; kernels run on the CPU "
      "emulation runtime), to the LLVM dialect for execution on the CPU",
      [](OpPassManager &pm, const CpuPipelineOptions &options) {
        buildCpuPipeline(pm, options);
      });
}
