//===- InstallPaths.cpp - files ext keeps next to its libraries -----------===//

#include "ext/Support/InstallPaths.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <dlfcn.h>

std::string ext::findNextToExtLibraries(llvm::StringRef builtPath) {
  if (builtPath.empty())
    return "";
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&ext::findNextToExtLibraries), &info) ||
      !info.dli_fname)
    return builtPath.str();
  llvm::SmallString<256> candidate(
      llvm::sys::path::parent_path(info.dli_fname));
  llvm::sys::path::append(candidate, llvm::sys::path::filename(builtPath));
  if (llvm::sys::fs::exists(candidate))
    return std::string(candidate);
  return builtPath.str();
}
