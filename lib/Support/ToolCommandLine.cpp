//===- ToolCommandLine.cpp - what ext's tools show and say -----------------===//

#include "ext/Support/ToolCommandLine.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace llvm;

cl::OptionCategory &ext::getToolOptionCategory() {
  static cl::OptionCategory category("Options");
  return category;
}

void ext::showOnlyToolOptions(ArrayRef<StringRef> shown) {
  cl::OptionCategory &category = getToolOptionCategory();
  auto &options = cl::getRegisteredOptions();
  for (StringRef name : shown) {
    auto it = options.find(name);
    if (it != options.end())
      it->second->addCategory(category);
  }
  cl::HideUnrelatedOptions(category);
}

SmallVector<char *> ext::withQuietDiagnostics(int argc, char **argv) {
  static char quiet[] = "--mlir-print-op-on-diagnostic=false";
  SmallVector<char *> args(argv, argv + argc);
  bool given = llvm::any_of(ArrayRef(argv, argc), [](const char *arg) {
    return StringRef(arg).contains("mlir-print-op-on-diagnostic");
  });
  // After "--" every argument is positional.
  auto dashes = llvm::find_if(args, [](const char *arg) {
    return StringRef(arg) == "--";
  });
  if (!given)
    args.insert(dashes, quiet);
  return args;
}

std::string ext::describeExtPasses() {
  // Pass and pipeline arguments are registered as option names (values of
  // the unnamed pass list), so the option map enumerates them.
  std::map<std::string, std::string> passes, pipelines;
  for (auto &entry : cl::getRegisteredOptions()) {
    StringRef name = entry.first;
    if (!name.starts_with("ext-"))
      continue;
    if (const mlir::PassPipelineInfo *info =
            mlir::PassPipelineInfo::lookup(name))
      pipelines[name.str()] = info->getPassDescription().str();
    else if (const mlir::PassInfo *info = mlir::PassInfo::lookup(name))
      passes[name.str()] = info->getPassDescription().str();
  }
  std::string text;
  auto list = [&](StringRef title,
                  const std::map<std::string, std::string> &entries) {
    if (entries.empty())
      return;
    text += title.str() + ":\n";
    for (const auto &[name, summary] : entries)
      text += formatv("  --{0,-34} {1}\n", name, summary).str();
  };
  list("ext's pipelines", pipelines);
  list("ext's passes", passes);
  return text;
}
