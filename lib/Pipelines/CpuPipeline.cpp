//===- CpuPipeline.cpp - ext-cpu-pipeline ---------------------------------===//

#include "ext/Conversion/Passes.h"
#include "ext/Dialect/Ext/Transforms/Passes.h"
#include "ext/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

// Spelled as text so the pipeline reads the same in the docs, in
// `ext-opt --help` and here. Each pass is upstream's except the ext-* ones.
// Kernels (gpu.launch) are outlined and turned into calls to the CPU
// emulation runtime once loops and affine code are lowered, so what runs
// inside them is plain memref code; both passes leave a module without gpu
// ops unchanged.
static constexpr const char *kCpuLowering =
    "convert-linalg-to-loops,"
    "canonicalize,"
    "lower-affine,"
    "gpu-kernel-outlining,"
    "ext-gpu-to-cpu-emulation,"
    "convert-scf-to-cf,"
    "expand-strided-metadata,"
    "lower-affine,"
    "convert-math-to-llvm,"
    "convert-math-to-libm,"
    "finalize-memref-to-llvm,"
    "convert-arith-to-llvm,"
    "convert-index-to-llvm,"
    "convert-func-to-llvm,"
    "convert-cf-to-llvm,"
    "reconcile-unrealized-casts";

std::string ext::getCpuPipelineText(const CpuPipelineOptions &options) {
  // Scheduled computes run as the GPU kernels they become (on the emulator);
  // `reference` runs every compute as plain loops instead.
  std::string text;
  if (!options.reference) {
    text += "ext-apply-schedule,ext-lower-decomposition,";
    text += "ext-lower-tile-ops{drop-barrier=" +
            std::to_string(options.dropBarrier) + "},";
    text += "ext-lower-storage-align,";
  }
  // Tile-level ext ops left at this point have no CPU lowering: rejected
  // with a diagnostic rather than left for the LLVM conversion to trip on.
  text += "ext-lower-to-loops{reject-tile-level=true},canonicalize,cse,";
  if (!options.reference) {
    text += "gpu-launch-sink-index-computations,";
    if (options.reuseSharedMemory)
      text += std::string("ext-reuse-shared-memory{drop-hazard-barriers=") +
              (options.dropHazardBarriers ? "true" : "false") + "},";
  }
  std::string lowering = kCpuLowering;
  if (options.racecheck) {
    static constexpr llvm::StringLiteral pass = "ext-gpu-to-cpu-emulation,";
    size_t at = lowering.find(pass.str());
    lowering.replace(at, pass.size(),
                     "ext-gpu-to-cpu-emulation{instrument-global=true},");
  }
  return text + lowering;
}

void ext::buildCpuPipeline(OpPassManager &pm,
                           const CpuPipelineOptions &options) {
  if (failed(parsePassPipeline(getCpuPipelineText(options), pm)))
    llvm::report_fatal_error("ext-cpu-pipeline: a pass is not registered");
}

// Scheduled computes become gpu.launch kernels, unscheduled ones loops;
// the kernels' index computations then sit inside them, ready to outline.
static constexpr const char *kScheduleToGpu =
    "ext-apply-schedule,"
    "ext-lower-decomposition,"
    "ext-lower-tile-ops,"
    "ext-lower-storage-align,"
    "ext-lower-to-loops,"
    "canonicalize,"
    "cse,"
    "gpu-launch-sink-index-computations";

std::string ext::getScheduleToGpuPipelineText() { return kScheduleToGpu; }

void ext::buildScheduleToGpuPipeline(OpPassManager &pm) {
  if (failed(parsePassPipeline(kScheduleToGpu, pm)))
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
