//===- CpuPipeline.cpp - ext-cpu-pipeline ---------------------------------===//

#include "ext/Dialect/Ext/Transforms/Passes.h"
#include "ext/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

// Spelled as text so the pipeline reads the same in the docs, in
// `ext-opt --help` and here. Each pass is upstream's except the first,
// which rejects tile-level ext ops (they have no CPU lowering).
static constexpr const char *kCpuPipeline =
    "ext-lower-to-loops{reject-tile-level=true},"
    "convert-linalg-to-loops,"
    "canonicalize,"
    "lower-affine,"
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

void ext::buildCpuPipeline(OpPassManager &pm) {
  if (failed(parsePassPipeline(kCpuPipeline, pm)))
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
  PassPipelineRegistration<>(
      "ext-cpu-pipeline",
      "Lower ext.compute and the surrounding code to the LLVM dialect for "
      "execution on the CPU",
      [](OpPassManager &pm) { buildCpuPipeline(pm); });
}
