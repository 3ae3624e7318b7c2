//===- ExamplePlugin.cpp - an ext-opt dialect and pass plugin -------------===//
//
// Built outside ext's libraries and loaded at run time:
//   ext-opt --load-dialect-plugin=ExtExamplePlugin.so \
//           --load-pass-plugin=ExtExamplePlugin.so --ext-example-count-points
// It links the same libMLIR.so and libExtDialect.so as ext-opt, so the
// ext::ComputeOp it matches is the tool's.
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

#include "ExampleOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "ExampleOps.h.inc"

#include "ExampleOpsDialect.cpp.inc"

#define GET_OP_CLASSES
#include "ExampleOps.cpp.inc"

void ext_example::ExtExampleDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ExampleOps.cpp.inc"
      >();
}

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
      for (int64_t e : op.getExtents())
        points *= e;
      op->setAttr("ext_example.points",
                  mlir::IntegerAttr::get(
                      mlir::IntegerType::get(op.getContext(), 64), points));
    });
  }
};
} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "ExtExample", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<ext_example::ExtExampleDialect>();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "ExtExamplePasses", LLVM_VERSION_STRING,
          []() { ext_example::registerExtExampleCountPoints(); }};
}
