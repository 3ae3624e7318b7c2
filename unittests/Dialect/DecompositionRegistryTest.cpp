//===- DecompositionRegistryTest.cpp - auto over the registry -------------===//

#include "ext/Dialect/Ext/IR/DecompositionRegistry.h"
#include "ext/Dialect/Ext/IR/ExtDialect.h"
#include "ext/Model/TileWork.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir;
using namespace ext;

namespace {

class DecompositionRegistryTest : public ::testing::Test {
protected:
  DecompositionRegistryTest() { ctx.loadDialect<ExtDialect>(); }
  /// Builds `name` from `params`; the message of a failure in `error`.
  FailureOr<TileDecompositionAttrInterface>
  build(StringRef name, ArrayRef<NamedAttribute> params) {
    error.clear();
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      error = d.str();
      return success();
    });
    return buildTileDecomposition(&ctx, name, params, [&]() {
      return mlir::emitError(UnknownLoc::get(&ctx));
    });
  }
  MLIRContext ctx;
  Builder b{&ctx};
  std::string error;
};

TEST_F(DecompositionRegistryTest, BuiltinsFirstInAutoOrder) {
  std::vector<std::string> names;
  for (const DecompositionEntry &e : getTileDecompositions())
    names.push_back(e.name);
  ASSERT_GE(names.size(), 6u);
  EXPECT_EQ(names[0], "data_parallel");
  EXPECT_EQ(names[1], "split_k");
  EXPECT_EQ(names[2], "stream_k");
  EXPECT_EQ(names[3], "stream_k_dp");
  EXPECT_EQ(names[4], "stream_k_2tile");
  EXPECT_EQ(names[5], "auto");
}

TEST_F(DecompositionRegistryTest, BuildsByNameThroughTheParser) {
  FailureOr<TileDecompositionAttrInterface> d =
      build("split_k", {b.getNamedAttr("slices", b.getI64IntegerAttr(4)),
                        b.getNamedAttr("mode", b.getStringAttr("parallel"))});
  ASSERT_TRUE(succeeded(d));
  EXPECT_EQ(*d, SplitKAttr::get(&ctx, 4, SplitKMode::parallel));
  EXPECT_TRUE(succeeded(build("stream_k_2tile", {})));
  // The attribute's verifier and parser speak for it.
  EXPECT_TRUE(failed(
      build("split_k", {b.getNamedAttr("slices", b.getI64IntegerAttr(0))})));
  EXPECT_NE(error.find("split_k slices must be in [1, 2147483647]"), std::string::npos)
      << error;
  EXPECT_TRUE(failed(
      build("stream_k", {b.getNamedAttr("slices", b.getI64IntegerAttr(2))})));
  EXPECT_NE(error.find("slices"), std::string::npos) << error;
  EXPECT_TRUE(failed(build("zigzag", {})));
  EXPECT_NE(error.find("unknown decomposition 'zigzag'; registered: "
                       "data_parallel, split_k"),
            std::string::npos)
      << error;
}

TEST_F(DecompositionRegistryTest, PluginEntriesTakePart) {
  // A decomposition registered from outside (here: data-parallel under
  // another name) is weighed by auto after ext's own.
  registerTileDecomposition<ExtDialect>(
      "test.dp_again", "data-parallel again", {},
      [](MLIRContext *ctx) { return DataParallelAttr::get(ctx); });
  DeviceFacts device = DeviceFacts::of(std::nullopt, 132);
  SmallVector<AutoCandidate> candidates =
      collectAutoCandidates(&ctx, 133, 64, device, 0.1);
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(candidates.front().name, "data_parallel");
  EXPECT_EQ(candidates.back().name, "data_parallel");
  EXPECT_EQ(candidates.front().prediction.makespan,
            candidates.back().prediction.makespan);
  // Ties go to the earlier candidate.
  EXPECT_NE(candidates[pickAutoCandidate(candidates)].name, "");
}

TEST_F(DecompositionRegistryTest, AutoIsNeverWorseThanDataParallelOrSplitK) {
  std::mt19937_64 rng(3);
  double partialCost = tilework::CostModel::forTileK(32).partialCost;
  for (int i = 0; i < 300; ++i) {
    int64_t tiles = 1 + rng() % 600, iters = 1 + rng() % 200;
    int64_t sms = std::vector<int64_t>{1, 3, 8, 104, 108, 132, 304}[rng() % 7];
    SmallVector<AutoCandidate> candidates = collectAutoCandidates(
        &ctx, tiles, iters, DeviceFacts::of(std::nullopt, sms), partialCost);
    ASSERT_FALSE(candidates.empty());
    const AutoCandidate &best = candidates[pickAutoCandidate(candidates)];
    for (const AutoCandidate &c : candidates)
      EXPECT_LE(best.prediction.makespan, c.prediction.makespan + 1e-9)
          << c.name << " for " << tiles << " tiles of " << iters;
    // Split-K offers every slice count and mode that fits.
    EXPECT_TRUE(llvm::any_of(candidates, [](const AutoCandidate &c) {
      return c.name == "data_parallel";
    }));
    if (iters >= 16) {
      EXPECT_TRUE(llvm::any_of(candidates, [](const AutoCandidate &c) {
        return c.name == "split_k<slices = 16, mode = parallel>";
      }));
    }
  }
}

} // namespace

// The hardware model's decomposition arithmetic (ext/Model/TileWork.h) and
// the dialect's registry name the same built-in decompositions: a kind the
// model plans is a decomposition a schedule can name (parallel split-K is
// split_k's mode), and every registered built-in other than auto and
// persistent (which reuse data-parallel's whole-tile arithmetic) has a kind.
TEST_F(DecompositionRegistryTest, ModelKindsAreRegisteredDecompositions) {
  namespace tw = ext::tilework;
  std::vector<std::string> registered;
  for (const DecompositionEntry &e : getTileDecompositions())
    registered.push_back(e.name);
  // Every kind of the generated enum (TileWorkKindCases.td, which the
  // attributes' mnemonics also read).
  unsigned kinds = tw::getMaxEnumValForKind() + 1;
  EXPECT_EQ(kinds, 6u);
  for (unsigned v = 0; v < kinds; ++v) {
    std::optional<tw::Kind> kind = tw::symbolizeKind(v);
    ASSERT_TRUE(kind.has_value()) << v;
    std::string name = tw::kindName(*kind).str();
    EXPECT_EQ(tw::kindNamed(name), kind);
    if (*kind == tw::Kind::SplitKParallel) {
      EXPECT_TRUE(succeeded(
          build("split_k", {b.getNamedAttr("mode",
                                           b.getStringAttr("parallel"))})));
      continue;
    }
    EXPECT_TRUE(llvm::is_contained(registered, name)) << name;
  }
  for (const std::string &name : registered) {
    if (name == "auto" || name == "persistent" || name.find('.') != std::string::npos)
      continue;
    EXPECT_TRUE(tw::kindNamed(name).has_value()) << name << " has no kind";
  }
}
