//===- Arguments.h - memref arguments for ext-run's entry -------*- C++ -*-===//
//
// `ext-run --entry=kernel` runs a function that takes memrefs: each argument
// gets a host buffer filled from a .npy file, with seeded random values or
// with zeros, is passed as the memref descriptor the lowered function takes,
// and can be printed or saved as .npy afterwards.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUN_ARGUMENTS_H
#define EXT_RUN_ARGUMENTS_H

#include "ext/Runner/MemRefDescriptor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ext {

/// One memref argument in host memory (static shape, identity layout).
struct MemRefArgument {
  mlir::MemRefType type;
  /// Bytes per element as stored (i1 takes a byte).
  unsigned elementBytes = 0;
  std::vector<char> data;
  /// The descriptor the lowered function takes (of `data`).
  runner::MemRefDescriptor descriptor;
  /// The bytes before the run, to tell outputs from inputs.
  std::vector<char> initial;

  bool changed() const { return data != initial; }
};

struct ArgumentOptions {
  /// Fill arguments without a file with values from this seed (else zeros).
  std::optional<uint64_t> randomSeed;
  /// .npy files for the first arguments, in order.
  llvm::SmallVector<std::string> inputFiles;
};

/// Buffers for every argument of `entry`, or an error (on `entry` or the
/// argument) for an argument that is not a statically shaped memref of a
/// supported element type, or a file whose dtype or shape differs.
mlir::FailureOr<std::vector<MemRefArgument>>
makeArguments(mlir::func::FuncOp entry, const ArgumentOptions &options);

/// `name = memref<...> [[...], ...]`, numpy style (long dimensions elided).
void printArgument(llvm::raw_ostream &os, llvm::StringRef name,
                   const MemRefArgument &arg);

/// Writes `arg` as a .npy file; false with `error` set on failure.
bool writeNpy(llvm::StringRef path, const MemRefArgument &arg,
              std::string &error);

} // namespace ext

#endif // EXT_RUN_ARGUMENTS_H
