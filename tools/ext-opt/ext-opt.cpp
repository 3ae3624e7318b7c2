//===- ext-opt.cpp - ext's optimizer driver -------------------------------===//
//
// mlir-opt with ext's dialects, passes and pipelines added to upstream's.
// Links libMLIR.so, so --load-pass-plugin / --load-dialect-plugin plugins
// built against the same MLIR share its globals.
//
//===----------------------------------------------------------------------===//

#include "ext/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  ext::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary (and ext-gpu-host-pipeline) translate gpu.modules
  // to LLVM IR inside the pass.
  mlir::registerAllToLLVMIRTranslations(registry);
  ext::registerAllDialects(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "ext optimizer driver\n", registry));
}
