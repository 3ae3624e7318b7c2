//===- SharedMemoryCoverageTest.cpp - loop-carried buffers ----------------===//
//
// Each kernel below has one workgroup buffer %buf accessed in an scf.for;
// the test asks whether the loop may carry its data, and checks the bytes
// the writes of one iteration cover against a count done by hand.
//
//===----------------------------------------------------------------------===//

#include "ext/Analysis/SharedMemoryCoverage.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

class CoverageTest : public ::testing::Test {
protected:
  CoverageTest() {
    ctx.loadDialect<affine::AffineDialect, arith::ArithDialect,
                    func::FuncDialect, gpu::GPUDialect, memref::MemRefDialect,
                    scf::SCFDialect, vector::VectorDialect>();
  }

  /// The kernel: a launch of `threads` threads (or a dynamic count) with
  /// one workgroup buffer `type`, `body` inside an scf.for over %k.
  void parse(StringRef type, StringRef body, StringRef threads = "%c64") {
    std::string src =
        ("func.func @f(%n: index, %g: memref<64xf32>) {\n"
         "  %c0 = arith.constant 0 : index\n"
         "  %c1 = arith.constant 1 : index\n"
         "  %c4 = arith.constant 4 : index\n"
         "  %c16 = arith.constant 16 : index\n"
         "  %c64 = arith.constant 64 : index\n"
         "  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)\n"
         "      threads(%tx, %ty, %tz) in (%sx = " + threads +
         ", %sy = %c1, %sz = %c1)\n"
         "      workgroup(%buf : " + type + ") {\n"
         "    scf.for %k = %c0 to %c4 step %c1 {\n" + body +
         "    }\n"
         "    gpu.terminator\n"
         "  }\n"
         "  return\n"
         "}\n")
            .str();
    module = parseSourceString<ModuleOp>(src, &ctx);
    ASSERT_TRUE(module);
    module->walk([&](gpu::LaunchOp l) { launch = l; });
    // The outermost loop: the one over %k.
    module->walk<WalkOrder::PreOrder>([&](scf::ForOp f) {
      if (!loop)
        loop = f;
    });
    buffer = launch.getWorkgroupAttributions()[0];
    // Every user of the buffer and of its views, as SharedMemoryLiveness
    // collects them.
    SmallVector<Value> worklist = {buffer};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (isa<memref::ViewOp, memref::SubViewOp, memref::ReinterpretCastOp>(
                user))
          worklist.push_back(user->getResult(0));
        else
          accesses.push_back(user);
      }
    }
    bytes = cast<MemRefType>(buffer.getType()).getNumElements() * 4;
  }

  bool mayCarry() {
    ext::SharedMemoryCoverage coverage(launch);
    // Constants are the only uniform values these kernels need.
    return coverage.mayCarry(
        buffer, bytes, accesses, loop,
        [](Value v) { return getConstantIntValue(v).has_value(); }, &why);
  }

  /// Bytes the writes of one iteration cover, over all threads.
  int64_t covered() {
    ext::SharedMemoryCoverage coverage(launch);
    SmallVector<Operation *> writes;
    for (Operation *a : accesses)
      if (isa<memref::StoreOp, vector::StoreOp>(a))
        writes.push_back(a);
    std::optional<llvm::BitVector> c =
        coverage.coveredBytes(buffer, bytes, loop.getBody(), writes);
    return c ? int64_t(c->count()) : -1;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  gpu::LaunchOp launch;
  scf::ForOp loop;
  Value buffer;
  uint64_t bytes = 0;
  SmallVector<Operation *> accesses;
  std::string why;
};

constexpr StringLiteral kBuf64 = "memref<64xf32, #gpu.address_space<workgroup>>";

// Each thread writes its element, barrier, reads another: all 64 covered.
TEST_F(CoverageTest, FullWriteThenBarrierIsNotCarried) {
  parse(kBuf64, R"(
      %v = arith.constant 1.0 : f32
      memref.store %v, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = affine.apply affine_map<(t) -> (63 - t)>(%tx)
      %x = memref.load %buf[%r] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %x, %g[%tx] : memref<64xf32>
  )");
  EXPECT_EQ(covered(), 256);
  EXPECT_FALSE(mayCarry()) << why;
}

// Read first: the iteration sees the previous one's data.
TEST_F(CoverageTest, ReadBeforeWriteIsCarried) {
  parse(kBuf64, R"(
      %x = memref.load %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %x, %g[%tx] : memref<64xf32>
      gpu.barrier
      %v = arith.constant 1.0 : f32
      memref.store %v, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
  )");
  EXPECT_TRUE(mayCarry());
}

// Without a barrier other threads' writes are not ordered before the reads.
TEST_F(CoverageTest, NoBarrierIsCarried) {
  parse(kBuf64, R"(
      %v = arith.constant 1.0 : f32
      memref.store %v, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %r = affine.apply affine_map<(t) -> (63 - t)>(%tx)
      %x = memref.load %buf[%r] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %x, %g[%tx] : memref<64xf32>
  )");
  EXPECT_TRUE(mayCarry());
  EXPECT_NE(why.find("no barrier"), std::string::npos) << why;
}

// Only threads 0-15 write; everyone reads its own element.
TEST_F(CoverageTest, WriteUnderThreadConditionIsCarried) {
  parse(kBuf64, R"(
      %v = arith.constant 1.0 : f32
      %lt = arith.cmpi ult, %tx, %c16 : index
      scf.if %lt {
        memref.store %v, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %x = memref.load %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %x, %g[%tx] : memref<64xf32>
  )");
  EXPECT_EQ(covered(), 16 * 4);
  EXPECT_TRUE(mayCarry());
}

// The same write, but only the written elements are read back.
TEST_F(CoverageTest, ReadsInsideTheCoveredPartAreNotCarried) {
  parse(kBuf64, R"(
      %v = arith.constant 1.0 : f32
      %lt = arith.cmpi ult, %tx, %c16 : index
      scf.if %lt {
        memref.store %v, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %r = arith.remui %tx, %c16 : index
      %x = memref.load %buf[%r] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %x, %g[%tx] : memref<64xf32>
  )");
  EXPECT_FALSE(mayCarry()) << why;
}

// Half the buffer is overwritten each iteration, all of it read.
TEST_F(CoverageTest, PartialOverwriteIsCarried) {
  parse(kBuf64, R"(
      %v = arith.constant 1.0 : f32
      %half = arith.divui %tx, %c4 : index
      %i = affine.apply affine_map<(t) -> (t * 2)>(%half)
      memref.store %v, %buf[%i] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %x = memref.load %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %x, %g[%tx] : memref<64xf32>
  )");
  EXPECT_EQ(covered(), 16 * 4);
  EXPECT_TRUE(mayCarry());
}

// Indices that depend on the iteration (double buffering) are not proved.
TEST_F(CoverageTest, IndexOfTheLoopItselfIsCarried) {
  parse("memref<128xf32, #gpu.address_space<workgroup>>", R"(
      %v = arith.constant 1.0 : f32
      %s = arith.remui %k, %c4 : index
      %i = affine.apply affine_map<(t, s) -> (t + (s mod 2) * 64)>(%tx, %s)
      memref.store %v, %buf[%i] : memref<128xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %x = memref.load %buf[%i] : memref<128xf32, #gpu.address_space<workgroup>>
      memref.store %x, %g[%tx] : memref<64xf32>
  )");
  EXPECT_EQ(covered(), 0);
  EXPECT_TRUE(mayCarry());
}

// A dynamic block size proves nothing.
TEST_F(CoverageTest, DynamicBlockSizeIsCarried) {
  parse(kBuf64, R"(
      %v = arith.constant 1.0 : f32
      memref.store %v, %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %x = memref.load %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %x, %g[%tx] : memref<64xf32>
  )", "%n");
  EXPECT_EQ(covered(), -1);
  EXPECT_TRUE(mayCarry());
}

// A non-affine index (loaded from memory) proves nothing.
TEST_F(CoverageTest, LoadedIndexIsCarried) {
  parse(kBuf64, R"(
      %v = arith.constant 1.0 : f32
      %f = memref.load %g[%tx] : memref<64xf32>
      %i32 = arith.fptoui %f : f32 to i32
      %i = arith.index_cast %i32 : i32 to index
      memref.store %v, %buf[%i] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %x = memref.load %buf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %x, %g[%tx] : memref<64xf32>
  )");
  EXPECT_EQ(covered(), 0);
  EXPECT_TRUE(mayCarry());
}

// The copy ext-tile-ops-to-threads emits into a padded tile: a strided loop
// from the thread id, vectors of 4, div/rem into rows of a 8x8 tile with a
// row stride of 12, viewed through reinterpret_cast; padding is never read.
TEST_F(CoverageTest, StridedVectorCopyIntoPaddedTileIsNotCarried) {
  parse("memref<96xf32, #gpu.address_space<workgroup>>", R"(
      %t = memref.reinterpret_cast %buf to offset: [0], sizes: [8, 8], strides: [12, 1]
          : memref<96xf32, #gpu.address_space<workgroup>> to memref<8x8xf32, strided<[12, 1]>, #gpu.address_space<workgroup>>
      %c2 = arith.constant 2 : index
      %c8 = arith.constant 8 : index
      %c16v = arith.constant 16 : index
      %zero = arith.constant dense<0.0> : vector<4xf32>
      scf.for %v = %tx to %c16v step %c64 {
        %e = arith.muli %v, %c4 : index
        %col = arith.remui %e, %c8 : index
        %row = arith.divui %e, %c8 : index
        vector.store %zero, %t[%row, %col] : memref<8x8xf32, strided<[12, 1]>, #gpu.address_space<workgroup>>, vector<4xf32>
      }
      gpu.barrier
      %r = arith.remui %tx, %c8 : index
      %q = arith.divui %tx, %c8 : index
      %x = memref.load %t[%q, %r] : memref<8x8xf32, strided<[12, 1]>, #gpu.address_space<workgroup>>
      memref.store %x, %g[%tx] : memref<64xf32>
  )");
  EXPECT_EQ(covered(), 64 * 4);
  EXPECT_FALSE(mayCarry()) << why;
}

} // namespace
