//===- DecompositionRegistry.cpp - every tile decomposition ext knows -----===//

#include "ext/Dialect/Ext/IR/DecompositionRegistry.h"
#include "ext/Model/TileWork.h"
#include "ext/Dialect/Ext/IR/ExtDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/ManagedStatic.h"

#include <mutex>

using namespace mlir;
using namespace ext;

namespace {

/// ext's own, in the order `auto` weighs them (simplest first).
std::vector<DecompositionEntry> builtinDecompositions() {
  std::vector<DecompositionEntry> entries;
  auto add = [&](StringRef name, StringRef summary,
                 ArrayRef<std::string> parameters,
                 std::function<Attribute(MLIRContext *)> prototype) {
    entries.push_back(
        {name.str(), summary.str(),
         SmallVector<std::string>(parameters.begin(), parameters.end()),
         {},
         [](DialectRegistry &registry) { registry.insert<ExtDialect>(); },
         std::move(prototype)});
  };
  add(DataParallelAttr::getMnemonic(), "one CTA per output tile", {},
      [](MLIRContext *ctx) { return DataParallelAttr::get(ctx); });
  add(SplitKAttr::getMnemonic(),
      "each tile's reduce iterations split over `slices` CTAs",
      {"slices", "mode"}, [](MLIRContext *ctx) {
        return SplitKAttr::get(ctx, 2, SplitKMode::serial);
      });
  entries.back().defaults.push_back({"slices", "2"});
  add(StreamKAttr::getMnemonic(),
      "all tiles' iterations shared evenly by `grid` CTAs", {"grid", "sms"},
      [](MLIRContext *ctx) { return StreamKAttr::get(ctx, 0, 0); });
  add(StreamKDPAttr::getMnemonic(),
      "data-parallel full waves, Stream-K over the remaining tiles", {"sms"},
      [](MLIRContext *ctx) { return StreamKDPAttr::get(ctx, 0); });
  add(StreamK2TileAttr::getMnemonic(),
      "two tiles of Stream-K per CTA, then data-parallel", {"sms"},
      [](MLIRContext *ctx) { return StreamK2TileAttr::get(ctx, 0); });
  add(AutoAttr::getMnemonic(),
      "the registered decomposition the cost model predicts fastest", {"sms"},
      [](MLIRContext *ctx) { return AutoAttr::get(ctx, 0); });
  add(PersistentAttr::getMnemonic(),
      "`grid` CTAs (the SM count) walking whole tiles a grid apart",
      {"grid", "sms"},
      [](MLIRContext *ctx) { return PersistentAttr::get(ctx, 0, 0); });
  return entries;
}

struct Registry {
  std::mutex mutex;
  std::vector<DecompositionEntry> entries = builtinDecompositions();
};
llvm::ManagedStatic<Registry> registry;

/// The attribute text of entry `name`'s prefix: `#ext.split_k`, a plugin's
/// `#dialect.mnemonic`.
std::string attributePrefix(StringRef name) {
  return (name.contains('.') ? "#" : "#ext.") + name.str();
}

/// Whether every dialect of `entry` is loaded in `ctx` (an attribute of a
/// dialect that is not cannot be built).
bool dialectsLoaded(MLIRContext *ctx, const DecompositionEntry &entry) {
  DialectRegistry dialects;
  entry.registerDialects(dialects);
  return llvm::all_of(dialects.getDialectNames(), [&](StringRef ns) {
    return ctx->getLoadedDialect(ns) != nullptr;
  });
}

} // namespace

void ext::registerTileDecomposition(DecompositionEntry entry) {
  std::lock_guard<std::mutex> lock(registry->mutex);
  for (DecompositionEntry &e : registry->entries)
    if (e.name == entry.name) {
      e = std::move(entry);
      return;
    }
  registry->entries.push_back(std::move(entry));
}

std::vector<DecompositionEntry> ext::getTileDecompositions() {
  std::lock_guard<std::mutex> lock(registry->mutex);
  return registry->entries;
}

void ext::registerTileDecompositionDialects(DialectRegistry &dialects) {
  for (const DecompositionEntry &entry : getTileDecompositions())
    entry.registerDialects(dialects);
}

FailureOr<TileDecompositionAttrInterface> ext::buildTileDecomposition(
    MLIRContext *ctx, StringRef name, ArrayRef<NamedAttribute> parameters,
    function_ref<InFlightDiagnostic()> emitError) {
  std::vector<DecompositionEntry> entries = getTileDecompositions();
  auto entry = llvm::find_if(
      entries, [&](const DecompositionEntry &e) { return e.name == name; });
  if (entry == entries.end()) {
    InFlightDiagnostic diag = emitError();
    diag << "unknown decomposition '" << name << "'; registered: ";
    llvm::interleaveComma(entries, diag,
                          [&](const DecompositionEntry &e) { diag << e.name; });
    return diag;
  }
  // The attribute's own parser checks the parameter names and values, and
  // its verifier their ranges, exactly as for IR text.
  SmallVector<std::pair<std::string, std::string>> fields;
  for (NamedAttribute p : parameters) {
    std::string value;
    llvm::raw_string_ostream vs(value);
    if (auto s = dyn_cast<StringAttr>(p.getValue()))
      vs << s.getValue();
    else if (auto i = dyn_cast<IntegerAttr>(p.getValue()))
      vs << i.getValue();
    else
      vs << p.getValue();
    fields.push_back({p.getName().str(), value});
  }
  for (const auto &[field, value] : entry->defaults)
    if (llvm::none_of(parameters, [&, &field = field](NamedAttribute p) {
          return p.getName() == field;
        }))
      fields.push_back({field, value});
  std::string text = attributePrefix(name);
  llvm::raw_string_ostream os(text);
  if (!fields.empty()) {
    os << "<";
    llvm::interleaveComma(fields, os, [&](const auto &f) {
      os << f.first << " = " << f.second;
    });
    os << ">";
  }
  DialectRegistry dialects;
  entry->registerDialects(dialects);
  ctx->appendDialectRegistry(dialects);
  std::string message;
  Attribute attr;
  {
    ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &diag) {
      if (message.empty())
        message = diag.str();
      return success();
    });
    attr = parseAttribute(text, ctx);
  }
  auto decomposition = dyn_cast_or_null<TileDecompositionAttrInterface>(attr);
  if (!decomposition)
    return emitError() << "decomposition " << text << ": "
                       << (message.empty() ? "not a tile decomposition"
                                           : message);
  return decomposition;
}

SmallVector<AutoCandidate>
ext::collectAutoCandidates(MLIRContext *ctx, int64_t numTiles,
                           int64_t itersPerTile, const DeviceFacts &device,
                           double partialCost) {
  SmallVector<AutoCandidate> out;
  // Whether the candidate can run the problem at all (data-parallel cannot
  // launch a CTA per tile of 2^40 tiles); its diagnostic is not the user's.
  auto canTake = [&](TileDecompositionAttrInterface candidate) {
    ScopedDiagnosticHandler silence(ctx, [](Diagnostic &) { return success(); });
    return succeeded(candidate.verifyProblem(
        [&]() { return emitError(UnknownLoc::get(ctx)); }, numTiles,
        itersPerTile, device));
  };
  for (const DecompositionEntry &entry : getTileDecompositions()) {
    if (!dialectsLoaded(ctx, entry))
      continue;
    auto prototype =
        dyn_cast_or_null<TileDecompositionAttrInterface>(entry.prototype(ctx));
    if (!prototype)
      continue;
    for (Attribute a :
         prototype.getAutoCandidates(numTiles, itersPerTile, device)) {
      auto candidate = dyn_cast<TileDecompositionAttrInterface>(a);
      if (!candidate || !canTake(candidate))
        continue;
      std::optional<WorkPrediction> prediction =
          candidate.predictWork(numTiles, itersPerTile, device, partialCost);
      if (!prediction)
        continue;
      std::string name;
      llvm::raw_string_ostream os(name);
      os << candidate;
      StringRef text = name;
      if (!text.consume_front("#ext."))
        text.consume_front("#");
      out.push_back({candidate, *prediction, text.str()});
    }
  }
  return out;
}

unsigned ext::pickAutoCandidate(ArrayRef<AutoCandidate> candidates) {
  unsigned best = 0;
  for (unsigned i = 1; i < candidates.size(); ++i)
    if (tilework::predictedFaster(candidates[i].prediction.makespan,
                                  candidates[best].prediction.makespan))
      best = i;
  return best;
}
