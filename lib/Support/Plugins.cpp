//===- Plugins.cpp - load dialect and pass plugins, version-checked -------===//

#include "ext/Support/Plugins.h"
#include "ext/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"

#include <optional>

using namespace llvm;

StringRef ext::getExtVersion() { return EXT_VERSION_STRING; }

namespace {
constexpr StringLiteral kDialectEntry = "mlirGetDialectPluginInfo";
constexpr StringLiteral kPassEntry = "mlirGetPassPluginInfo";

/// What a plugin file says about itself, read without loading it.
struct PluginFacts {
  /// The ext version it records; none for a plain MLIR plugin.
  std::optional<std::string> extVersion;
  bool hasDialectEntry = false;
  bool hasPassEntry = false;
};

Error readError(StringRef path, const Twine &why) {
  return createStringError(inconvertibleErrorCode(),
                           "could not read plugin '" + path + "': " + why);
}

/// The NUL-terminated string `symbol` points at, from its section's bytes.
Expected<std::string> readString(const object::ObjectFile &obj,
                                 const object::SymbolRef &symbol,
                                 StringRef path) {
  Expected<uint64_t> address = symbol.getAddress();
  Expected<object::section_iterator> section = symbol.getSection();
  if (!address)
    return readError(path, toString(address.takeError()));
  if (!section)
    return readError(path, toString(section.takeError()));
  if (*section == obj.section_end())
    return readError(path, Twine(EXT_PLUGIN_VERSION_SYMBOL_NAME) +
                               " is not defined in the file");
  Expected<StringRef> contents = (*section)->getContents();
  if (!contents)
    return readError(path, toString(contents.takeError()));
  uint64_t offset = *address - (*section)->getAddress();
  if (*address < (*section)->getAddress() || offset >= contents->size())
    return readError(path, Twine(EXT_PLUGIN_VERSION_SYMBOL_NAME) +
                               " lies outside its section");
  StringRef rest = contents->drop_front(offset);
  size_t end = rest.find('\0');
  if (end == StringRef::npos)
    return readError(path, Twine(EXT_PLUGIN_VERSION_SYMBOL_NAME) +
                               " is not a NUL-terminated string");
  return rest.take_front(end).str();
}

Expected<PluginFacts> readPluginFacts(StringRef path) {
  Expected<object::OwningBinary<object::ObjectFile>> file =
      object::ObjectFile::createObjectFile(path);
  if (!file)
    return readError(path, toString(file.takeError()));
  const object::ObjectFile &obj = *file->getBinary();
  PluginFacts facts;
  auto visit = [&](const object::SymbolRef &symbol) -> Error {
    Expected<StringRef> name = symbol.getName();
    if (!name) {
      consumeError(name.takeError());
      return Error::success();
    }
    Expected<uint32_t> flags = symbol.getFlags();
    if (!flags || (*flags & object::SymbolRef::SF_Undefined)) {
      if (!flags)
        consumeError(flags.takeError());
      return Error::success();
    }
    if (*name == kDialectEntry)
      facts.hasDialectEntry = true;
    else if (*name == kPassEntry)
      facts.hasPassEntry = true;
    else if (*name == EXT_PLUGIN_VERSION_SYMBOL_NAME) {
      Expected<std::string> version = readString(obj, symbol, path);
      if (!version)
        return version.takeError();
      facts.extVersion = std::move(*version);
    }
    return Error::success();
  };
  // A shared object's exported symbols are its dynamic ones.
  if (const auto *elf = dyn_cast<object::ELFObjectFileBase>(&obj)) {
    for (const object::ELFSymbolRef &symbol : elf->getDynamicSymbolIterators())
      if (Error err = visit(symbol))
        return std::move(err);
  } else {
    for (const object::SymbolRef &symbol : obj.symbols())
      if (Error err = visit(symbol))
        return std::move(err);
  }
  return facts;
}

Expected<PluginFacts> readCheckedFacts(StringRef path) {
  Expected<PluginFacts> facts = readPluginFacts(path);
  if (!facts)
    return facts.takeError();
  if (facts->extVersion && *facts->extVersion != ext::getExtVersion())
    return createStringError(
        inconvertibleErrorCode(),
        "plugin '" + path + "' was built against ext " + *facts->extVersion +
            ", but this is ext " + ext::getExtVersion() +
            ": rebuild it against this ext's installed package");
  return facts;
}

Error loadError(StringRef path, Error err) {
  return createStringError(inconvertibleErrorCode(),
                           "could not load plugin '" + path +
                               "': " + toString(std::move(err)));
}
} // namespace

Error ext::checkPluginExtVersion(StringRef path) {
  return readCheckedFacts(path).takeError();
}

Error ext::loadDialectPlugin(StringRef path, mlir::DialectRegistry &registry) {
  if (Error err = checkPluginExtVersion(path))
    return err;
  Expected<mlir::DialectPlugin> plugin = mlir::DialectPlugin::load(path.str());
  if (!plugin)
    return loadError(path, plugin.takeError());
  plugin->registerDialectRegistryCallbacks(registry);
  return Error::success();
}

Error ext::loadPassPlugin(StringRef path) {
  if (Error err = checkPluginExtVersion(path))
    return err;
  Expected<mlir::PassPlugin> plugin = mlir::PassPlugin::load(path.str());
  if (!plugin)
    return loadError(path, plugin.takeError());
  plugin->registerPassRegistryCallbacks();
  return Error::success();
}

Error ext::loadPlugin(StringRef path, mlir::DialectRegistry &registry) {
  Expected<PluginFacts> facts = readCheckedFacts(path);
  if (!facts)
    return facts.takeError();
  if (!facts->hasDialectEntry && !facts->hasPassEntry)
    return createStringError(inconvertibleErrorCode(),
                             "'" + path + "' is not an MLIR plugin: it exports "
                                          "neither " + kDialectEntry +
                                 " nor " + kPassEntry);
  if (facts->hasDialectEntry)
    if (Error err = loadDialectPlugin(path, registry))
      return err;
  if (facts->hasPassEntry)
    if (Error err = loadPassPlugin(path))
      return err;
  return Error::success();
}

Error ext::checkPluginArguments(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg == "--")
      break;
    if (!arg.starts_with("-"))
      continue;
    StringRef option = arg.ltrim('-');
    for (StringRef name : {"load-pass-plugin", "load-dialect-plugin"}) {
      StringRef value = option;
      if (!value.consume_front(name))
        continue;
      std::optional<StringRef> path;
      if (value.consume_front("="))
        path = value;
      else if (value.empty() && i + 1 < argc)
        path = argv[++i];
      if (path)
        if (Error err = checkPluginExtVersion(*path))
          return err;
    }
  }
  return Error::success();
}
