//===- ClearTarget.cpp - ext-clear-target ---------------------------------===//
//
// The end of the CPU pipeline: the lowered module leaves ext's dialect
// behind, its #ext.target included.
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/IR/Target.h"
#include "ext/Dialect/Ext/Transforms/Passes.h"

namespace ext {
#define GEN_PASS_DEF_EXTCLEARTARGET
#include "ext/Dialect/Ext/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {

struct ExtClearTargetPass
    : ext::impl::ExtClearTargetBase<ExtClearTargetPass> {
  void runOnOperation() override {
    getOperation()->removeAttr(ext::kTargetAttrName);
  }
};

} // namespace
