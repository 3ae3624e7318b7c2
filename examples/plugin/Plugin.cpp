//===- Plugin.cpp - the plugin's entry points -----------------------------===//
//
// What ext-opt (--load-dialect-plugin, --load-pass-plugin), ext-run (the
// same flags) and ext.load_plugin look up. The ext version the plugin is
// built against is recorded by ext_add_plugin (CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "ExampleDialect.h"

#include "ext/Dialect/Ext/IR/DecompositionRegistry.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "ExtExample", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<ext_example::ExtExampleDialect>();
            // #ext.auto weighs the serpentine order with ext's own.
            ext::registerTileDecomposition<ext_example::ExtExampleDialect>(
                "ext_example.serpentine",
                "data-parallel tiles, walked back and forth in runs", {"run"},
                [](mlir::MLIRContext *ctx) {
                  return ext_example::SerpentineAttr::get(ctx, 4);
                });
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "ExtExamplePasses", LLVM_VERSION_STRING,
          []() { ext_example::registerExamplePasses(); }};
}
