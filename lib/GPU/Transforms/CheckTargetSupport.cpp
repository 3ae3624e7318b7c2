//===- CheckTargetSupport.cpp - reject ops the chip cannot run ------------===//
//
// Upstream's GPU-to-NVVM conversion lowers thread block cluster ops for any
// chip and leaves IR that only the NVVM verifier rejects, after the pass.
// Checking before the lowering gives the error at the op the user wrote and
// keeps every pass of ext-gpu-pipeline producing valid IR.
//
//===----------------------------------------------------------------------===//

#include "ext/GPU/Transforms/Passes.h"
#include "ext/GPU/Transforms/Transforms.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/StringExtras.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUCHECKTARGETSUPPORT
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {

/// The chip the pipeline compiles for, parsed once.
struct Chip {
  std::string name;
  bool nvidia = false;
  /// sm_NN as NVVM's own SM-version check reads it (NVIDIA only).
  std::optional<NVVM::NVVMCheckSMVersion> sm;
};

FailureOr<Chip> parseChip(StringRef name) {
  Chip chip;
  chip.name = name.str();
  if (name.starts_with("gfx"))
    return chip;
  // sm_NN with an optional arch-specific suffix (sm_90a, sm_100f).
  StringRef digits = name;
  if (!digits.consume_front("sm_"))
    return failure();
  if (!digits.consume_back("a"))
    digits.consume_back("f");
  if (digits.empty() || !llvm::all_of(digits, llvm::isDigit))
    return failure();
  chip.nvidia = true;
  chip.sm = NVVM::NVVMCheckSMVersion::getTargetSMVersionFromStr(name);
  return chip;
}

bool isClusterOp(Operation *op) {
  return isa<gpu::ClusterIdOp, gpu::ClusterDimOp, gpu::ClusterBlockIdOp,
             gpu::ClusterDimBlocksOp>(op);
}

bool hasClusterSize(Operation *op) {
  if (auto launch = dyn_cast<gpu::LaunchOp>(op))
    return launch.hasClusterSize();
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
    return launch.hasClusterSize();
  return false;
}

/// Thread block clusters: sm_90 and later, no AMD chip.
LogicalResult checkClusters(Operation *op, const Chip &chip) {
  if (!isClusterOp(op) && !hasClusterSize(op))
    return success();
  if (!chip.nvidia)
    return op->emitOpError("uses thread block clusters, which AMD chips do "
                           "not have (target ")
           << chip.name << ")";
  NVVM::NVVMCheckSMVersion required(/*archAccelerated=*/false, 90);
  if (required.isCompatibleWith(*chip.sm))
    return success();
  return op->emitOpError("uses thread block clusters, which need sm_90 or "
                         "later; the target is ")
         << chip.name;
}

/// NVVM ops in the input carry the SM version they need.
LogicalResult checkNvvmOp(Operation *op, const Chip &chip) {
  auto needsSm = dyn_cast<NVVM::RequiresSMInterface>(op);
  if (!needsSm)
    return success();
  if (!chip.nvidia)
    return op->emitOpError("is an NVVM op; the target is the AMD chip ")
           << chip.name;
  NVVM::NVVMCheckSMVersion required = needsSm.getRequiredMinSMVersion();
  if (required.isCompatibleWith(*chip.sm))
    return success();
  InFlightDiagnostic diag = op->emitOpError("needs ");
  llvm::interleave(
      required.smVersionList, diag,
      [&](int version) {
        diag << "sm_" << version << (required.archAccelerated ? "a" : "");
      },
      " or ");
  if (!required.archAccelerated)
    diag << " or later";
  diag << "; the target is " << chip.name;
  return diag;
}

/// Kernel code: a gpu.module's body or a gpu.launch's region.
bool isInKernel(Operation *op) {
  return op->getParentOfType<gpu::GPUModuleOp>() ||
         op->getParentOfType<gpu::LaunchOp>();
}

} // namespace

LogicalResult ext::checkTargetSupport(Operation *root, StringRef chipName) {
  FailureOr<Chip> chip = parseChip(chipName);
  if (failed(chip))
    return root->emitError("ext-gpu-check-target-support: chip '")
           << chipName << "' is neither sm_NN (NVIDIA) nor gfxNNN (AMD)";
  bool ok = true;
  root->walk([&](Operation *op) {
    // Launches are host code, but their cluster size is a kernel feature.
    bool kernel = isInKernel(op);
    if (!kernel && !isa<gpu::LaunchOp, gpu::LaunchFuncOp>(op))
      return;
    if (failed(checkClusters(op, *chip)))
      ok = false;
    if (kernel && failed(checkNvvmOp(op, *chip)))
      ok = false;
  });
  return success(ok);
}

namespace {

struct CheckTargetSupport
    : ext::impl::ExtGPUCheckTargetSupportBase<CheckTargetSupport> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(ext::checkTargetSupport(getOperation(), chip)))
      signalPassFailure();
  }
};

} // namespace
