//===- ext-translate.cpp - ext's translation driver -----------------------===//
//
// mlir-translate with ext's dialects registered. The PTX and HSACO
// translations join upstream's here.
//
//===----------------------------------------------------------------------===//

#include "ext/InitAll.h"

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"

int main(int argc, char **argv) {
  mlir::registerAllTranslations();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "ext translation driver\n"));
}
