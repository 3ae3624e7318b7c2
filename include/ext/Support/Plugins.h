//===- Plugins.h - load dialect and pass plugins, version-checked -*- C++ -*-===//
//
// MLIR's plugin loaders check only MLIR_PLUGIN_API_VERSION. A plugin that
// uses ext's C++ API (its interfaces, attributes, ops) also needs the ext it
// was built against: these functions read the version the plugin records
// (ext/Support/PluginVersion.h) from the file, before any of its code runs,
// and refuse a mismatch with a message naming both versions. A plugin that
// records no ext version is a plain MLIR plugin and loads as one.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_SUPPORT_PLUGINS_H
#define EXT_SUPPORT_PLUGINS_H

#include "ext/Support/PluginVersion.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace ext {

/// This build's version (EXT_VERSION_STRING of ext/Version.h).
llvm::StringRef getExtVersion();

/// Fails if the shared object at `path` cannot be read or records an ext
/// version other than getExtVersion(); the message names both versions.
llvm::Error checkPluginExtVersion(llvm::StringRef path);

/// Checks `path`, then loads its dialect plugin entry point and adds its
/// dialects (and their extensions) to `registry`.
llvm::Error loadDialectPlugin(llvm::StringRef path,
                              mlir::DialectRegistry &registry);

/// Checks `path`, then loads its pass plugin entry point, which registers
/// its passes and pipelines in the global pass registry.
llvm::Error loadPassPlugin(llvm::StringRef path);

/// Checks `path`, then loads whichever of the two entry points it exports
/// (fails if it exports neither).
llvm::Error loadPlugin(llvm::StringRef path, mlir::DialectRegistry &registry);

/// For tools that leave loading to upstream's options (MlirOptMain): checks
/// every file named by --load-pass-plugin or --load-dialect-plugin in argv.
llvm::Error checkPluginArguments(int argc, char **argv);

} // namespace ext

#endif // EXT_SUPPORT_PLUGINS_H
