//===- CountPoints.cpp - a pass from a plugin -----------------------------===//
//
// Uses ext's C++ API (ext::ComputeOp): the plugin links the same
// libMLIR.so and libExtDialect.so as the tool that loads it, so the op it
// matches is the tool's.
//
//===----------------------------------------------------------------------===//

#include "ExampleDialect.h"

#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Pass/Pass.h"

namespace ext_example {
#define GEN_PASS_DECL
#define GEN_PASS_DEF_EXTEXAMPLECOUNTPOINTS
#define GEN_PASS_REGISTRATION
#include "ExamplePasses.h.inc"
} // namespace ext_example

namespace {
struct CountPoints
    : ext_example::impl::ExtExampleCountPointsBase<CountPoints> {
  void runOnOperation() override {
    getOperation()->walk([](ext::ComputeOp op) {
      int64_t points = 1;
      for (ext::AxisAttr axis : op.getAxisList()) {
        // A `?` extent is known only at run time: no static count.
        if (axis.isDynamic())
          return;
        points *= axis.getExtent();
      }
      op->setAttr("ext_example.points",
                  mlir::IntegerAttr::get(
                      mlir::IntegerType::get(op.getContext(), 64), points));
    });
  }
};
} // namespace

void ext_example::registerExamplePasses() { registerExtExamplePasses(); }
