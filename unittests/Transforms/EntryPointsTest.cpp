//===- EntryPointsTest.cpp - ext's transforms without a pass manager ------===//
//
// The per-op entry points of Transforms.h, called one after another on a
// scheduled matmul, take it to plain gpu IR as ext-schedule-to-gpu and
// ext-gpu-reuse-shared-memory do; ComputeLikeOpInterface answers for both
// compute ops.
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/IR/ExtDialect.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Conversion/ComputeToLoops/ComputeToLoops.h"
#include "ext/Conversion/KernelToGPU/KernelToGPU.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"
#include "ext/GPU/Transforms/Transforms.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace ext;

namespace {

constexpr const char *kMatmul = R"mlir(
func.func @matmul(%A: memref<40x24xf32>, %B: memref<24x20xf32>, %C: memref<40x20xf32>) {
  ext.compute [#ext.axis<"i", spatial, 40>, #ext.axis<"j", spatial, 20>, #ext.axis<"k", reduce, 24>]
      ins(%A, %B : memref<40x24xf32>, memref<24x20xf32>) outs(%C : memref<40x20xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<tile = [16, 16, 8], blocks = ["i", "j"], threads = [4, 8, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
)mlir";

class EntryPointsTest : public ::testing::Test {
protected:
  EntryPointsTest() {
    ctx.loadDialect<ExtDialect, affine::AffineDialect, func::FuncDialect,
                    scf::SCFDialect>();
    module = parseSourceString<ModuleOp>(kMatmul, &ctx);
  }

  template <typename OpT>
  SmallVector<OpT> collect() {
    SmallVector<OpT> ops;
    module->walk([&](OpT op) { ops.push_back(op); });
    return ops;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

TEST_F(EntryPointsTest, ComputeLikeInterface) {
  ASSERT_TRUE(module);
  SmallVector<ComputeOp> computes = collect<ComputeOp>();
  ASSERT_EQ(computes.size(), 1u);
  auto computeLike = cast<ComputeLikeOpInterface>(computes[0].getOperation());
  EXPECT_EQ(computeLike.getNumAxes(), 3u);
  EXPECT_TRUE(computeLike.hasReduceAxes());
  EXPECT_EQ(computeLike.getAxisPosition("k"), std::optional<unsigned>(2));
  EXPECT_EQ(computeLike.getAxisPosition("x"), std::nullopt);
  EXPECT_EQ(computeLike.getExtents(), (SmallVector<int64_t>{40, 20, 24}));
  EXPECT_EQ(computeLike.getOutputMap(0).getNumResults(), 2u);
  EXPECT_FALSE(computeLike.hasCustomReducer());
}

TEST_F(EntryPointsTest, ScheduledComputeToPackedKernel) {
  ASSERT_TRUE(module);
  IRRewriter rewriter(&ctx);

  SmallVector<ComputeOp> computes = collect<ComputeOp>();
  ASSERT_EQ(computes.size(), 1u);
  FailureOr<KernelOp> kernel = applySchedule(rewriter, computes[0]);
  ASSERT_TRUE(succeeded(kernel));
  EXPECT_EQ(kernel->getNumTiles(), 6);
  EXPECT_EQ(kernel->getIters(), 3);

  FailureOr<gpu::LaunchOp> launch = lowerKernelToGPU(rewriter, *kernel);
  ASSERT_TRUE(succeeded(launch));
  EXPECT_TRUE(collect<KernelOp>().empty());
  // The tile ops are still there, for the next step.
  EXPECT_FALSE(collect<TileComputeOp>().empty());

  int barriers = 0;
  ASSERT_TRUE(succeeded(lowerTileOpsToThreads(*launch, /*dropBarrier=*/-1,
                                              &barriers)));
  // One after the copies, one at the end of the k loop.
  EXPECT_EQ(barriers, 2);
  EXPECT_TRUE(collect<TileComputeOp>().empty());

  SmallVector<AllocSharedOp> shared = collect<AllocSharedOp>();
  ASSERT_EQ(shared.size(), 2u);
  for (AllocSharedOp op : shared)
    ASSERT_TRUE(succeeded(lowerAllocSharedToWorkgroup(rewriter, op)));
  EXPECT_EQ(launch->getNumWorkgroupAttributions(), 2u);

  ASSERT_TRUE(succeeded(reuseSharedMemory(*launch)));
  // Both tiles are read in the same k step: they interfere, so the packed
  // buffer holds both (16x8 + 8x16 floats).
  auto bytes = (*launch)->getAttrOfType<IntegerAttr>("ext.shared_memory_bytes");
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes.getInt(), 1024);
  EXPECT_EQ(launch->getNumWorkgroupAttributions(), 1u);

  EXPECT_TRUE(succeeded(verify(*module)));
  WalkResult ext = module->walk([&](Operation *op) {
    return isa<ExtDialect>(op->getDialect()) ? WalkResult::interrupt()
                                             : WalkResult::advance();
  });
  EXPECT_FALSE(ext.wasInterrupted());
}

TEST_F(EntryPointsTest, ComputeToLoops) {
  ASSERT_TRUE(module);
  IRRewriter rewriter(&ctx);
  SmallVector<ComputeOp> computes = collect<ComputeOp>();
  ASSERT_EQ(computes.size(), 1u);
  ASSERT_TRUE(succeeded(lowerComputeToLoops(rewriter, computes[0])));
  EXPECT_TRUE(collect<ComputeOp>().empty());
  // Two spatial loops and the reduce loop.
  EXPECT_EQ(collect<scf::ForOp>().size(), 3u);
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(EntryPointsTest, AllocSharedOutsideKernelFails) {
  ASSERT_TRUE(module);
  IRRewriter rewriter(&ctx);
  auto func = *module->getOps<func::FuncOp>().begin();
  rewriter.setInsertionPointToStart(&func.getBody().front());
  auto space = gpu::AddressSpaceAttr::get(&ctx, gpu::AddressSpace::Workgroup);
  auto type = MemRefType::get({4}, rewriter.getF32Type(),
                              MemRefLayoutAttrInterface(), space);
  auto op = AllocSharedOp::create(rewriter, func.getLoc(), type, ArrayAttr(),
                                  SwizzleAttr());
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(lowerAllocSharedToWorkgroup(rewriter, op)));
  EXPECT_NE(message.find("must be inside a gpu.launch"), std::string::npos);
}

} // namespace
