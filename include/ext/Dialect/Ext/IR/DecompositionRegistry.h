//===- DecompositionRegistry.h - every tile decomposition ext knows -*- C++ -*-===//
//
// The one list of tile decompositions: ext's own (data_parallel, split_k, the
// Stream-K family) and those plugins register. `#ext.auto` asks every entry
// for its candidates, predicts each with the one cost model, and keeps the
// best; Python lists the entries and builds them by name and parameters.
//
// A plugin registers its decomposition where it registers its dialect
// (examples/plugin/Plugin.cpp):
//
//   ext::registerTileDecomposition<MyDialect>(
//       "my.zigzag", "...", {"run"},
//       [](mlir::MLIRContext *ctx) { return ZigzagAttr::get(ctx, 4); });
//
//===----------------------------------------------------------------------===//

#ifndef EXT_DIALECT_EXT_IR_DECOMPOSITIONREGISTRY_H
#define EXT_DIALECT_EXT_IR_DECOMPOSITIONREGISTRY_H

#include "ext/Dialect/Ext/IR/ExtAttrs.h"

#include "mlir/IR/DialectRegistry.h"

#include <functional>
#include <string>

namespace ext {

struct DecompositionEntry {
  /// As Python and messages spell it: `split_k`; a plugin's with its
  /// dialect: `ext_example.serpentine`.
  std::string name;
  std::string summary;
  /// The attribute's parameters (what Python's keyword dict may hold).
  llvm::SmallVector<std::string> parameters;
  /// Values (attribute text) for parameters the attribute requires but a
  /// builder may leave out: split_k's `slices = 2`.
  llvm::SmallVector<std::pair<std::string, std::string>> defaults;
  /// Adds the attribute's dialect, so a pass can load it before it runs.
  std::function<void(mlir::DialectRegistry &)> registerDialects;
  /// An instance `auto` asks for its candidates.
  std::function<mlir::Attribute(mlir::MLIRContext *)> prototype;
};

/// Adds `entry` (a name registered before is replaced). Thread-safe.
void registerTileDecomposition(DecompositionEntry entry);

template <typename DialectT>
void registerTileDecomposition(
    llvm::StringRef name, llvm::StringRef summary,
    llvm::ArrayRef<std::string> parameters,
    std::function<mlir::Attribute(mlir::MLIRContext *)> prototype) {
  registerTileDecomposition(DecompositionEntry{
      name.str(),
      summary.str(),
      llvm::SmallVector<std::string>(parameters.begin(), parameters.end()),
      {},
      [](mlir::DialectRegistry &registry) { registry.insert<DialectT>(); },
      std::move(prototype)});
}

/// Every registered decomposition: ext's own first, then the plugins' in
/// registration order.
std::vector<DecompositionEntry> getTileDecompositions();

/// Adds the dialects of every registered decomposition to `registry`.
void registerTileDecompositionDialects(mlir::DialectRegistry &registry);

/// Builds the decomposition `name` from `parameters` (`slices = 4,
/// mode = serial` as named attributes: integers, or strings for enum
/// values; the entry's `defaults` for those left out) with the
/// attribute's own parser and verifier; reports with
/// `emitError` and fails for an unknown name or a parameter the attribute
/// does not take.
mlir::FailureOr<TileDecompositionAttrInterface>
buildTileDecomposition(mlir::MLIRContext *ctx, llvm::StringRef name,
                       llvm::ArrayRef<mlir::NamedAttribute> parameters,
                       llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// One candidate `auto` weighed.
struct AutoCandidate {
  TileDecompositionAttrInterface decomposition;
  WorkPrediction prediction;
  /// The attribute without `#` and, for ext's own, without `ext.`:
  /// `split_k<slices = 4, mode = serial>`.
  std::string name;
};

/// Every registered decomposition's candidates for the problem that take it
/// (verifyProblem: a grid within the launch limit, ...) and have a
/// prediction on `device` (whose SM count must be known), each fixup
/// costing `partialCost` iterations; in registry order.
llvm::SmallVector<AutoCandidate>
collectAutoCandidates(mlir::MLIRContext *ctx, int64_t numTiles,
                      int64_t itersPerTile, const DeviceFacts &device,
                      double partialCost);

/// The index of the candidate `auto` picks: the shortest predicted
/// makespan, ties to the earlier (simpler) one.
unsigned pickAutoCandidate(llvm::ArrayRef<AutoCandidate> candidates);

} // namespace ext

#endif // EXT_DIALECT_EXT_IR_DECOMPOSITIONREGISTRY_H
