//===- ReportHostComputes.cpp - say which computes stay on the host -------===//
//
// An ext.compute without a schedule is lowered to host loops by
// ext-gpu-pipeline; without a word, a user who forgot the schedule finds no
// kernel only when ext-translate fails.
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/GPU/Transforms/Passes.h"

#include "llvm/ADT/DenseSet.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUREPORTHOSTCOMPUTES
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {
struct ExtGPUReportHostComputesPass
    : ext::impl::ExtGPUReportHostComputesBase<ExtGPUReportHostComputesPass> {
  void runOnOperation() override {
    // Computes another one's schedule fuses into its kernel (compute_at,
    // compute_inline, reverse_compute_at, online) run on the GPU without a
    // schedule of their own: they are named per block.
    llvm::DenseSet<std::pair<Block *, StringAttr>> fused;
    getOperation()->walk([&](ext::ComputeOp compute) {
      ext::ScheduleAttr s = compute.getScheduleAttr();
      if (!s)
        return;
      Block *block = compute->getBlock();
      for (ext::AttachAttr at : s.getComputeAt())
        fused.insert({block, at.getCompute()});
      for (ext::AttachAttr at : s.getReverseComputeAt())
        fused.insert({block, at.getCompute()});
      for (StringAttr name : s.getComputeInline())
        fused.insert({block, name});
      for (StringAttr name : s.getOnline())
        fused.insert({block, name});
    });
    getOperation()->walk([&](ext::ComputeOp compute) {
      if (compute.getScheduleAttr())
        return;
      if (StringAttr name = compute.getNameAttr();
          name && fused.contains({compute->getBlock(), name}))
        return;
      InFlightDiagnostic remark = compute.emitRemark(
          "this ext.compute has no schedule: it becomes loops in the host "
          "code");
      if (auto func = compute->getParentOfType<FunctionOpInterface>())
        remark << " of @" << func.getName();
      remark << ", not a GPU kernel (attach a #ext.schedule to make it one)";
    });
  }
};
} // namespace
