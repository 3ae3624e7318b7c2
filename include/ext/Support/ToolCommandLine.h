//===- ToolCommandLine.h - what ext's tools show and say ---------*- C++ -*-===//
//
// ext's tools link all of LLVM and MLIR, whose command-line options (over a
// thousand lines of --help) bury the few a user of the tool needs. These
// helpers give each tool a short --help and quiet diagnostics by default.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_SUPPORT_TOOLCOMMANDLINE_H
#define EXT_SUPPORT_TOOLCOMMANDLINE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <string>

namespace ext {

/// The category a tool's own options, and the upstream ones it shows, are
/// listed under in --help.
llvm::cl::OptionCategory &getToolOptionCategory();

/// Hides from --help every registered option except the generic ones
/// (--help, --version), those already in getToolOptionCategory(), and the
/// upstream options named in `shown` (which are moved into that category).
/// Hidden options still work.
void showOnlyToolOptions(llvm::ArrayRef<llvm::StringRef> shown);

/// `argv` with `--mlir-print-op-on-diagnostic=false` appended unless the user
/// passed that option: an error shows its message and location, not a dump
/// of the op in generic form, unless asked for. The strings live as long as
/// the returned vector's owner keeps `storage`.
llvm::SmallVector<char *> withQuietDiagnostics(int argc, char **argv);

/// Help text listing the registered passes and pipelines whose argument
/// starts with "ext-", one per line with its summary.
std::string describeExtPasses();

} // namespace ext

#endif // EXT_SUPPORT_TOOLCOMMANDLINE_H
