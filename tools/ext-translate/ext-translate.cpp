//===- ext-translate.cpp - ext's translation driver -----------------------===//
//
// mlir-translate with ext's dialects registered, upstream's translations
// and ext's --ext-to-ptx / --ext-to-hsaco (serialize the target-attached
// gpu.module that ext-gpu-pipeline leaves).
//
//===----------------------------------------------------------------------===//

#include "ext/InitAll.h"
#include "ext/Target/GPU/Serialize.h"

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"

int main(int argc, char **argv) {
  mlir::registerAllTranslations();
  ext::registerGPUTranslations(ext::registerAllDialects);
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "ext translation driver\n"));
}
