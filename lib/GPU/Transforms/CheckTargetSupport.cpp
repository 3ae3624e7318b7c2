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
#include "ext/Dialect/Ext/IR/Target.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/StringExtras.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUCHECKTARGETSUPPORT
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {

/// NVVM's own SM-version check for an NVIDIA chip.
NVVM::NVVMCheckSMVersion smVersionOf(const ext::ChipInfo &chip) {
  return NVVM::NVVMCheckSMVersion(chip.archSpecific, int(chip.smVersion));
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
LogicalResult checkClusters(Operation *op, const ext::ChipInfo &chip) {
  if (!isClusterOp(op) && !hasClusterSize(op))
    return success();
  if (!chip.isNvidia())
    return op->emitOpError("uses thread block clusters, which AMD chips do "
                           "not have (target ")
           << chip.name << ")";
  if (chip.hasClusters)
    return success();
  return op->emitOpError("uses thread block clusters, which need sm_90 or "
                         "later; the target is ")
         << chip.name;
}

/// NVVM ops in the input carry the SM version they need.
LogicalResult checkNvvmOp(Operation *op, const ext::ChipInfo &chip) {
  auto needsSm = dyn_cast<NVVM::RequiresSMInterface>(op);
  if (!needsSm)
    return success();
  if (!chip.isNvidia())
    return op->emitOpError("is an NVVM op; the target is the AMD chip ")
           << chip.name;
  NVVM::NVVMCheckSMVersion required = needsSm.getRequiredMinSMVersion();
  if (required.isCompatibleWith(smVersionOf(chip)))
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

LogicalResult ext::checkTargetSupport(Operation *root,
                                     const ChipInfo &chip) {
  bool ok = true;
  root->walk([&](Operation *op) {
    // Launches are host code, but their cluster size is a kernel feature.
    bool kernel = isInKernel(op);
    if (!kernel && !isa<gpu::LaunchOp, gpu::LaunchFuncOp>(op))
      return;
    if (failed(checkClusters(op, chip)))
      ok = false;
    if (kernel && failed(checkNvvmOp(op, chip)))
      ok = false;
  });
  return success(ok);
}

namespace {

struct ExtGPUCheckTargetSupportPass
    : ext::impl::ExtGPUCheckTargetSupportBase<ExtGPUCheckTargetSupportPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<ext::DeviceFacts> device =
        ext::resolveDevice(getOperation(), "ext-gpu-check-target-support",
                           chip, 0, ext::kDefaultChip);
    if (failed(device) ||
        failed(ext::checkTargetSupport(getOperation(), *device->chip)))
      signalPassFailure();
  }
};

} // namespace
