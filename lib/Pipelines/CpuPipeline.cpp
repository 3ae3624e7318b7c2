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
static constexpr const char *kCpuPipeline =
    "ext-lower-to-loops,"
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

void ext::buildCpuPipeline(OpPassManager &pm) {
  if (failed(parsePassPipeline(kCpuPipeline, pm)))
    llvm::report_fatal_error("ext-cpu-pipeline: a pass is not registered");
}

void ext::registerPipelines() {
  PassPipelineRegistration<>(
      "ext-cpu-pipeline",
      "Lower ext.compute and the surrounding code, gpu kernels included "
      "(through the CPU emulation runtime), to the LLVM dialect for "
      "execution on the CPU",
      [](OpPassManager &pm) { buildCpuPipeline(pm); });
}
