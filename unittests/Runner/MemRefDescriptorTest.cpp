//===- MemRefDescriptorTest.cpp - ext/Runner's marshalling and options ----===//

#include "ext/Runner/EmulatorOptions.h"
#include "ext/Runner/MemRefDescriptor.h"

#include "Emulator.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace mlir;
using namespace ext::runner;

namespace {

HostBuffer buffer(char kind, unsigned bytes, llvm::ArrayRef<int64_t> shape) {
  HostBuffer b;
  b.kind = kind;
  b.elementBytes = bytes;
  b.elementName = std::string(1, kind) + std::to_string(bytes);
  b.shape.assign(shape.begin(), shape.end());
  // C order.
  b.byteStrides.assign(shape.size(), bytes);
  for (int r = int(shape.size()) - 2; r >= 0; --r)
    b.byteStrides[r] = b.byteStrides[r + 1] * shape[r + 1];
  return b;
}

std::string errorOf(llvm::Expected<Passing> passing) {
  return passing ? "" : llvm::toString(passing.takeError());
}

TEST(MemRefDescriptor, ContiguousStridesAreRowMajor) {
  float data[24];
  MemRefDescriptor d = MemRefDescriptor::getContiguous(data, {2, 3, 4});
  EXPECT_EQ(d.allocated, data);
  EXPECT_EQ(d.aligned, data);
  EXPECT_EQ(d.offset, 0);
  EXPECT_EQ(d.sizes, (llvm::SmallVector<int64_t, 4>{2, 3, 4}));
  EXPECT_EQ(d.strides, (llvm::SmallVector<int64_t, 4>{12, 4, 1}));
  MemRefDescriptor scalar = MemRefDescriptor::getContiguous(data, {});
  EXPECT_TRUE(scalar.sizes.empty() && scalar.strides.empty());
}

TEST(MemRefDescriptor, ByteStridesBecomeElementStrides) {
  double data[12];
  // A transposed 4x3 view of a 3x4 C-order array (numpy's a.T).
  MemRefDescriptor d = MemRefDescriptor::get(data, {4, 3}, {8, 32}, 8);
  EXPECT_EQ(d.sizes, (llvm::SmallVector<int64_t, 4>{4, 3}));
  EXPECT_EQ(d.strides, (llvm::SmallVector<int64_t, 4>{1, 4}));
}

TEST(MemRefDescriptor, PackedArgumentsPointAtEveryField) {
  int32_t a[6], b[1];
  llvm::SmallVector<MemRefDescriptor> args = {
      MemRefDescriptor::getContiguous(a, {2, 3}),
      MemRefDescriptor::getContiguous(b, {})};
  llvm::SmallVector<void *> packed = packArguments(args);
  // allocated, aligned, offset, sizes, strides; then the rank-0 memref's 3.
  ASSERT_EQ(packed.size(), 7u + 3u);
  EXPECT_EQ(*static_cast<void **>(packed[0]), a);
  EXPECT_EQ(*static_cast<void **>(packed[1]), a);
  EXPECT_EQ(*static_cast<int64_t *>(packed[2]), 0);
  EXPECT_EQ(*static_cast<int64_t *>(packed[3]), 2);
  EXPECT_EQ(*static_cast<int64_t *>(packed[4]), 3);
  EXPECT_EQ(*static_cast<int64_t *>(packed[5]), 3);
  EXPECT_EQ(*static_cast<int64_t *>(packed[6]), 1);
  EXPECT_EQ(*static_cast<void **>(packed[8]), b);
  // The pointers are the descriptors' own fields: writes reach them.
  *static_cast<int64_t *>(packed[3]) = 5;
  EXPECT_EQ(args[0].sizes[0], 5);
}

TEST(MemRefDescriptor, StoredElementBytes) {
  MLIRContext ctx;
  Builder b(&ctx);
  EXPECT_EQ(getStoredElementBytes(b.getI1Type()), 1u);
  EXPECT_EQ(getStoredElementBytes(b.getBF16Type()), 2u);
  EXPECT_EQ(getStoredElementBytes(b.getIndexType()), 8u);
  EXPECT_EQ(getStoredElementBytes(b.getIntegerType(3)), std::nullopt);
  // The low-bit formats a dequantization reads take a byte each, as LLVM
  // stores them (issue 54): numpy passes their bits as uint8 (or int8).
  EXPECT_EQ(getStoredElementBytes(b.getType<Float8E4M3FNType>()), 1u);
  EXPECT_EQ(getStoredElementBytes(b.getType<Float4E2M1FNType>()), 1u);
  EXPECT_EQ(getStoredElementBytes(b.getIntegerType(4)), 1u);
  EXPECT_EQ(getStoredElementBytes(b.getIntegerType(2)), 1u);
}

TEST(MemRefDescriptor, CheckBufferAgainstTheMemRefType) {
  MLIRContext ctx;
  Builder b(&ctx);
  auto f32 = MemRefType::get({4, 8}, b.getF32Type());
  EXPECT_EQ(*checkBuffer(buffer('f', 4, {4, 8}), f32, "array #0"),
            Passing::Direct);
  EXPECT_EQ(errorOf(checkBuffer(buffer('f', 4, {4}), f32, "array #0")),
            "array #0 has rank 1, the memref 2");
  EXPECT_EQ(errorOf(checkBuffer(buffer('f', 4, {4, 9}), f32, "array #1")),
            "array #1 dimension 1 is 9, the memref's is 8");
  EXPECT_EQ(errorOf(checkBuffer(buffer('i', 4, {4, 8}), f32, "array #0")),
            "array #0 has dtype i4, which does not match the element type "
            "f32");
  HostBuffer readOnly = buffer('f', 4, {4, 8});
  readOnly.writable = false;
  EXPECT_EQ(errorOf(checkBuffer(readOnly, f32, "array #0")),
            "array #0 is read-only");
  // Dynamic sizes take any extent.
  auto dynamic = MemRefType::get({ShapedType::kDynamic, 8}, b.getF32Type());
  EXPECT_TRUE(!errorOf(checkBuffer(buffer('f', 4, {5, 8}), dynamic, "a"))
                   .size());
  // bf16 travels as raw uint16 bits; i64 and index need signed integers.
  auto bf16 = MemRefType::get({2}, b.getBF16Type());
  EXPECT_EQ(*checkBuffer(buffer('u', 2, {2}), bf16, "a"), Passing::Direct);
  auto index = MemRefType::get({2}, b.getIndexType());
  EXPECT_FALSE(errorOf(checkBuffer(buffer('u', 8, {2}), index, "a")).empty());
}

TEST(MemRefDescriptor, LayoutsDecideHowABufferIsPassed) {
  MLIRContext ctx;
  Builder b(&ctx);
  // Fortran order for an identity layout: through a contiguous copy.
  HostBuffer fortran = buffer('f', 4, {4, 8});
  fortran.byteStrides = {4, 16};
  fortran.cContiguous = false;
  auto identity = MemRefType::get({4, 8}, b.getF32Type());
  EXPECT_EQ(*checkBuffer(fortran, identity, "a"), Passing::ContiguousCopy);
  // A strided layout must be the buffer's own strides.
  auto strided = MemRefType::get(
      {4, 8}, b.getF32Type(),
      StridedLayoutAttr::get(&ctx, /*offset=*/0, /*strides=*/{1, 4}));
  EXPECT_EQ(*checkBuffer(fortran, strided, "a"), Passing::Direct);
  EXPECT_EQ(errorOf(checkBuffer(buffer('f', 4, {4, 8}), strided, "a")),
            "a has strides that do not match the memref's layout");
  auto offset = MemRefType::get(
      {4, 8}, b.getF32Type(), StridedLayoutAttr::get(&ctx, 3, {1, 4}));
  EXPECT_EQ(errorOf(checkBuffer(fortran, offset, "a")),
            "a: the memref's layout has an offset");
}

TEST(EmulatorOptions, OnlyGivenFieldsReachTheRuntime) {
  // The chip model's lanes: CDNA 64, NVIDIA and RDNA 32; none for a name
  // that is no chip (the runtime's default).
  EXPECT_EQ(EmulatorOptions::forChip("gfx942").warpSize, 64);
  EXPECT_EQ(EmulatorOptions::forChip("sm_80").warpSize, 32);
  EXPECT_EQ(EmulatorOptions::forChip("gfx1100").warpSize, 32);
  EXPECT_EQ(EmulatorOptions::forChip("").warpSize, std::nullopt);
  EXPECT_EQ(parseSchedule("round-robin"), Schedule::RoundRobin);
  EXPECT_EQ(parseSchedule("lockstep"), std::nullopt);
  EmulatorOptions options;
  EXPECT_EQ(options.toABI().fields, 0u);
  options.seed = 7;
  options.schedule = Schedule::Sequential;
  options.racecheck = false;
  ExtEmuOptions abi = options.toABI();
  EXPECT_EQ(abi.fields,
            uint32_t(EXT_EMU_OPT_SEED | EXT_EMU_OPT_SCHEDULE |
                     EXT_EMU_OPT_RACECHECK));
  EXPECT_EQ(abi.seed, 7u);
  EXPECT_EQ(abi.schedule, EXT_EMU_SCHEDULE_SEQUENTIAL);
}

TEST(EmulatorOptions, GivenFieldsWinOverTheEnvironment) {
  setenv("EXT_EMU_WARP_SIZE", "64", 1);
  setenv("EXT_EMU_SEED", "5", 1);
  EmulatorOptions options;
  options.warpSize = 32;
  ExtEmuOptions abi = options.toABI();
  std::string error;
  ext::emu::Config c = ext::emu::Config::resolve(&abi, error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(c.warpSize, 32);
  EXPECT_EQ(c.seed, 5u); // not given: the environment's
  EXPECT_EQ(ext::emu::Config::resolve(nullptr, error).warpSize, 64);
  unsetenv("EXT_EMU_WARP_SIZE");
  unsetenv("EXT_EMU_SEED");
  options.warpSize = 48;
  abi = options.toABI();
  ext::emu::Config::resolve(&abi, error);
  EXPECT_EQ(error, "warp size '48' is not 32 or 64");
}

} // namespace
