//===- InstallPaths.h - files ext keeps next to its libraries ---*- C++ -*-===//
//
// The run-time libraries (CPU emulation, CUDA launcher) and the ROCm-shaped
// toolkit folder live next to ext's shared libraries: in build/lib, or in
// P/lib once `cmake --install --prefix P` has copied them. Their build-tree
// paths are compiled in; this finds the copy beside the libExtSupport that
// is actually loaded, so an installed ext does not need its build tree.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_SUPPORT_INSTALLPATHS_H
#define EXT_SUPPORT_INSTALLPATHS_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace ext {

/// The file or folder named like `builtPath` in the directory this process
/// loaded libExtSupport from, if it exists there; otherwise `builtPath`.
std::string findNextToExtLibraries(llvm::StringRef builtPath);

} // namespace ext

#endif // EXT_SUPPORT_INSTALLPATHS_H
