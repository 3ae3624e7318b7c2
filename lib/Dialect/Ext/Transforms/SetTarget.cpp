//===- SetTarget.cpp - ext-set-target -------------------------------------===//
//
// Attaches the module's #ext.target, the one place later passes and the
// runners read the chip from (ext/Dialect/Ext/IR/Target.h).
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/IR/ExtDialect.h"
#include "ext/Dialect/Ext/IR/Target.h"
#include "ext/Dialect/Ext/Transforms/Passes.h"

namespace ext {
#define GEN_PASS_DEF_EXTSETTARGET
#include "ext/Dialect/Ext/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext;

namespace {

struct ExtSetTargetPass : ext::impl::ExtSetTargetBase<ExtSetTargetPass> {
  using Base::Base;
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<ExtDialect>();
  }
  void runOnOperation() override {
    if (ifUnset && getTargetAttr(getOperation()))
      return;
    if (failed(setTarget(getOperation(), chip, sms)))
      signalPassFailure();
  }
};

} // namespace
