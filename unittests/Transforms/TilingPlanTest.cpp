//===- TilingPlanTest.cpp - the plan ext-apply-schedule makes -------------===//
//
// planTiling is public (ext/Dialect/Ext/Transforms/TilingPlan.h): a plugin or
// a tool may ask what a schedule does to a compute before anything is built.
// These check the plan of a ragged matmul field by field, the windows of
// packed weights and group scales (floordiv accesses), and refusals.
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/IR/ExtDialect.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/Transforms/TilingPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace ext;

namespace {

// 40 rows do not divide into tiles of 16; 20 columns and 24 k do.
std::string matmul(const char *schedule) {
  return std::string(R"mlir(
func.func @matmul(%A: memref<40x24xf32>, %B: memref<24x20xf32>, %C: memref<40x20xf32>) {
  ext.compute [#ext.axis<"i", spatial, 40>, #ext.axis<"j", spatial, 20>, #ext.axis<"k", reduce, 24>]
      ins(%A, %B : memref<40x24xf32>, memref<24x20xf32>) outs(%C : memref<40x20xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = )mlir") +
         schedule + R"mlir(} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
)mlir";
}

// Weights packed two per byte and a scale per group of 128 (issue 54).
std::string packed(const char *schedule) {
  return std::string(R"mlir(
func.func @w4(%A: memref<4x256xf32>, %Wq: memref<64x128xi8>, %S: memref<64x2xf32>, %C: memref<4x64xf32>) {
  ext.compute [#ext.axis<"i", spatial, 4>, #ext.axis<"j", spatial, 64>, #ext.axis<"k", reduce, 256>]
      ins(%A, %Wq, %S : memref<4x256xf32>, memref<64x128xi8>, memref<64x2xf32>) outs(%C : memref<4x64xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k floordiv 2)>,
            affine_map<(i, j, k) -> (j, k floordiv 128)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = )mlir") +
         schedule + R"mlir(} {
  ^bb0(%a: f32, %w: i8, %s: f32):
    %wf = arith.uitofp %w : i8 to f32
    %p = arith.mulf %a, %wf : f32
    %q = arith.mulf %p, %s : f32
    ext.yield %q : f32
  }
  return
}
)mlir";
}

class TilingPlanTest : public ::testing::Test {
protected:
  TilingPlanTest() {
    ctx.loadDialect<ExtDialect, func::FuncDialect>();
  }

  ComputeOp parse(const char *schedule) {
    return parseSource(matmul(schedule));
  }
  ComputeOp parseSource(const std::string &source) {
    module = parseSourceString<ModuleOp>(source, &ctx);
    if (!module)
      return ComputeOp();
    ComputeOp found;
    module->walk([&](ComputeOp op) { found = op; });
    return found;
  }

  /// What planTiling reports when it refuses `op`'s schedule ("" if not).
  std::string refusal(ComputeOp op) {
    std::string message;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      message = d.str();
      return success();
    });
    if (succeeded(tiling::planTiling(op, op.getScheduleAttr())))
      return "";
    return message;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

TEST_F(TilingPlanTest, RaggedMatmul) {
  ComputeOp op = parse(
      "#ext.schedule<tile = [16, 10, 8], blocks = [\"i\", \"j\"], threads = "
      "[4, 5, 1], cache = [#ext.cache<operand = 0>]>");
  ASSERT_TRUE(op);
  FailureOr<tiling::TilingPlan> plan =
      tiling::planTiling(op, op.getScheduleAttr());
  ASSERT_TRUE(succeeded(plan));
  EXPECT_EQ(plan->blockedAxes, (SmallVector<unsigned>{0, 1}));
  EXPECT_EQ(plan->tileCounts, (SmallVector<int64_t>{3, 2})); // ceil(40/16), 20/10
  EXPECT_EQ(plan->kAxis, std::optional<unsigned>(2));
  EXPECT_EQ(plan->iters, 3); // 24 / 8
  EXPECT_EQ(plan->spatialAxes, (SmallVector<unsigned>{0, 1}));
  ASSERT_EQ(plan->cached.size(), 2u);
  EXPECT_TRUE(plan->cached[0]);
  EXPECT_FALSE(plan->cached[1]);
  // A's window over a tile: 16 rows by one k-step of 8; B's: 8 by 10.
  ASSERT_EQ(plan->windows.size(), 2u);
  EXPECT_EQ(plan->windows[0].shape, (SmallVector<int64_t>{16, 8}));
  EXPECT_EQ(plan->windows[1].shape, (SmallVector<int64_t>{8, 10}));
  // Rows of A run past 40 in the last tile; its k dimension never does.
  EXPECT_EQ(plan->windows[0].inBounds, (SmallVector<bool>{false, true}));
  EXPECT_EQ(plan->windows[1].inBounds, (SmallVector<bool>{true, true}));
  EXPECT_FALSE(tiling::tileDividesExtent(*plan, 0));
  EXPECT_TRUE(tiling::tileDividesExtent(*plan, 1));
  EXPECT_TRUE(tiling::tileDividesExtent(*plan, 2));
}

TEST_F(TilingPlanTest, PackedWeightsAndGroupScales) {
  ComputeOp op = parseSource(
      packed("#ext.schedule<tile = [4, 32, 32], blocks = [\"j\"], threads "
             "= [4, 32, 1]>"));
  ASSERT_TRUE(op);
  FailureOr<tiling::TilingPlan> plan =
      tiling::planTiling(op, op.getScheduleAttr());
  ASSERT_TRUE(succeeded(plan));
  // 32 k-steps of 32 cover 16 bytes of each row, from k0 / 2 exactly.
  const tiling::WindowDim &bytes = plan->windows[1].dims[1];
  EXPECT_EQ(bytes.kind, tiling::WindowDim::Kind::FloorDiv);
  EXPECT_EQ(bytes.divisor, 2);
  EXPECT_TRUE(bytes.aligned);
  EXPECT_EQ(bytes.coeffs, (SmallVector<int64_t>{0, 0, 1}));
  EXPECT_EQ(plan->windows[1].shape, (SmallVector<int64_t>{32, 16}));
  // A k-step lies inside one group: one scale, from floor(k0 / 128).
  const tiling::WindowDim &group = plan->windows[2].dims[1];
  EXPECT_EQ(group.divisor, 128);
  EXPECT_FALSE(group.aligned);
  EXPECT_EQ(plan->windows[2].shape, (SmallVector<int64_t>{32, 1}));
  EXPECT_EQ(plan->windows[1].firstQuasiAffineDim(), std::optional<unsigned>(1));
  EXPECT_EQ(plan->windows[0].firstQuasiAffineDim(), std::nullopt);
}

TEST_F(TilingPlanTest, AGroupSplitByTheTileIsRefused) {
  ComputeOp op = parseSource(
      packed("#ext.schedule<tile = [4, 32, 96], blocks = [\"j\"], threads "
             "= [4, 32, 1]>"));
  ASSERT_TRUE(op);
  std::string message = refusal(op);
  EXPECT_NE(message.find("tile 96 of axis 'k' is not a multiple of 128, the "
                         "divisor in access 'd2 floordiv 128' of input #2"),
            std::string::npos)
      << message;
}

TEST_F(TilingPlanTest, StagedOutputOfAThreadBoundReductionIsRefused) {
  // Two threads share k: the sum lives in no one thread's fragment, so
  // the output cannot be staged from fragments.
  ComputeOp op = parse(
      "#ext.schedule<tile = [16, 10, 24], blocks = [\"i\", \"j\"], threads = "
      "[4, 5, 2], cache = [#ext.cache<operand = 2>]>");
  ASSERT_TRUE(op);
  std::string message = refusal(op);
  EXPECT_NE(message.find("caches output #0, but its schedule binds the "
                         "reduction to threads"),
            std::string::npos)
      << message;
}

} // namespace
