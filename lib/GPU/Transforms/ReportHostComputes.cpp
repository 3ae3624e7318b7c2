//===- ReportHostComputes.cpp - say which computes stay on the host -------===//
//
// An ext.compute without a schedule is lowered to host loops by
// ext-gpu-pipeline; without a word, a user who forgot the schedule finds no
// kernel only when ext-translate fails.
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/GPU/Transforms/Passes.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUREPORTHOSTCOMPUTES
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {
struct ExtGPUReportHostComputesPass
    : ext::impl::ExtGPUReportHostComputesBase<ExtGPUReportHostComputesPass> {
  void runOnOperation() override {
    getOperation()->walk([](ext::ComputeOp compute) {
      if (compute.getScheduleAttr())
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
