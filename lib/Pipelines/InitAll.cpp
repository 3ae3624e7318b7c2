//===- InitAll.cpp - register everything ext provides ---------------------===//

#include "ext/InitAll.h"
#include "ext/Conversion/Passes.h"
#include "ext/Dialect/Ext/IR/ExtDialect.h"
#include "ext/Dialect/Ext/TransformOps/ExtTransformOps.h"
#include "ext/Dialect/Ext/Transforms/Passes.h"
#include "ext/GPU/Transforms/Passes.h"
#include "ext/Pipelines/Pipelines.h"

void ext::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<ext::ExtDialect>();
  ext::registerTransformDialectExtension(registry);
}

void ext::registerAllPasses() {
  ext::registerExtPasses();
  ext::registerExtConversionPasses();
  ext::registerPipelines();
  ext::registerExtGPUPasses();
  ext::registerGPUPipelines();
}
