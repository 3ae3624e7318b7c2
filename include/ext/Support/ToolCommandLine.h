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

/// An enum option's parser whose error lists the valid values (LLVM's says
/// only "Cannot find option named 'gpu'!").
template <typename T>
class ValueListingParser : public llvm::cl::parser<T> {
public:
  using llvm::cl::parser<T>::parser;

  bool parse(llvm::cl::Option &option, llvm::StringRef argName,
             llvm::StringRef arg, T &value) {
    for (const auto &entry : this->Values) {
      if (entry.Name == arg) {
        value = entry.V.getValue();
        return false;
      }
    }
    std::string valid;
    for (unsigned i = 0, e = this->getNumOptions(); i != e; ++i)
      valid += (i ? ", " : "") + this->getOption(i).str();
    return option.error("'" + arg + "' is not a valid value; choose one of " +
                        valid);
  }
};

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
