//===- TmaLoads.cpp - the k-loop's tiles loaded by the TMA ----------------===//
//
// A schedule with `tma = true` loads each cached input's k-step tile with
// one bulk tensor copy (the Tensor Memory Accelerator, sm_90) instead of
// every thread's cp.async. The copy reads through a tensor map the host
// builds before the kernel (cuTensorMapEncodeTiled: the input's sizes and
// strides, the box, the swizzle), fills elements outside the input with
// zero, as ext's copies do, and completes its bytes on the stage's
// mbarrier, which the threads wait on instead of a cp.async group.
//
// A tile qualifies when the copy engine writes exactly ext's layout of it:
// dense rows (no storage_align padding) whose bytes are a multiple of 16,
// or rows of exactly the swizzle's width with the hardware's 32/64/128-byte
// swizzle, which ext spells #ext.swizzle<bits = log2(W / 16), base =
// log2(16 / element bytes), shift = 3> (wgmma's operand layouts).
//
//===----------------------------------------------------------------------===//

#include "TmaLoads.h"
#include "TileIR.h"
#include "ext/Dialect/Ext/Transforms/TilingPlan.h"

#include "ext/Support/IndexConstant.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace ext;
using namespace ext::tiling;

namespace {

/// The hardware swizzle that is `swizzle` on a tile of `elemBytes`-byte
/// elements and `rowBytes`-byte rows, or why there is none.
FailureOr<nvgpu::TensorMapSwizzleKind>
hardwareSwizzle(SwizzleAttr swizzle, int64_t elemBytes, int64_t rowBytes,
                std::string &why) {
  if (!swizzle) {
    if (rowBytes % 16 != 0) {
      why = "its rows are " + std::to_string(rowBytes) +
            " bytes, not a multiple of 16";
      return failure();
    }
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE;
  }
  int64_t chunk = elemBytes * (int64_t(1) << swizzle.getBase());
  int64_t width = int64_t(16) << swizzle.getBits();
  if (chunk != 16 || swizzle.getShift() != 3 || swizzle.getBits() < 1 ||
      swizzle.getBits() > 3 || swizzle.getPanel() || rowBytes != width) {
    why = "its swizzle is not one the copy engine applies (rows of exactly "
          "32, 64 or 128 bytes, #ext.swizzle<bits = log2(row bytes / 16), "
          "base = log2(16 / element bytes), shift = 3>, no panels)";
    return failure();
  }
  switch (width) {
  case 32:
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_32B;
  case 64:
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_64B;
  default:
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_128B;
  }
}

} // namespace

LogicalResult tiling::checkTmaLoads(ComputeOp op, const TilingPlan &plan,
                                    ScheduleAttr schedule,
                                    const ApplyScheduleOptions &options) {
  auto fail = [&]() { return op.emitOpError("schedule with tma = true: "); };
  const std::optional<ChipInfo> &chip = options.device.chip;
  if (!chip || !chip->hasTma)
    return fail() << "the Tensor Memory Accelerator needs an NVIDIA chip of "
                     "sm_90 or later"
                  << (chip ? ", not " + chip->name
                           : std::string(" (give the chip)"));
  if (!plan.kAxis || plan.cached.none() || !plan.useFragments)
    return fail() << "there is no cached input of a k-loop to load";
  if (!schedule.getComputeAt().empty())
    return fail() << "the tiles of producers attached with compute_at are "
                     "computed in the kernel, not loaded";
  for (unsigned i = 0, e = op.getInputs().size(); i < e; ++i) {
    if (!plan.cached.test(i))
      continue;
    auto type = dyn_cast<MemRefType>(op.getInputs()[i].getType());
    const InputWindow &window = plan.windows[i];
    auto inputFail = [&]() { return fail() << "input " << i << " "; };
    if (!type || !type.getLayout().isIdentity() || type.getRank() > 5)
      return inputFail() << "must be a row-major memref of rank 1 to 5 "
                            "(the tensor map's strides are its own)";
    int64_t elemBytes = type.getElementTypeBitWidth() / 8;
    if (type.getElementTypeBitWidth() % 8 != 0 ||
        !llvm::is_contained({1, 2, 4, 8}, elemBytes))
      return inputFail() << "has elements of " << type.getElementTypeBitWidth()
                         << " bits; the copy engine moves 1, 2, 4 or 8 bytes";
    // cuTensorMapEncodeTiled: every stride but the innermost a multiple of
    // 16 bytes (a dynamic size is checked when the host builds the map).
    int64_t inner = type.getShape().back();
    if (type.getRank() > 1 && !ShapedType::isDynamic(inner) &&
        inner * elemBytes % 16 != 0)
      return inputFail() << "has rows of " << inner * elemBytes
                         << " bytes; a tensor map's row stride must be a "
                            "multiple of 16 bytes";
    if (!plan.cacheAttrs[i].getAlign().empty())
      return inputFail() << "is cached with storage_align padding; the copy "
                            "engine writes dense boxes (use a swizzle, or "
                            "no layout)";
    for (int64_t s : window.shape)
      if (s > 256)
        return inputFail() << "has a tile of " << s
                           << " along one dimension; a copy box has at most "
                              "256";
    std::string why;
    if (failed(hardwareSwizzle(plan.cacheAttrs[i].getSwizzle(), elemBytes,
                               window.shape.back() * elemBytes, why)))
      return inputFail() << "has a shared tile the copy engine cannot write: "
                         << why;
  }
  return success();
}

TmaLoads tiling::buildTmaLoads(RewriterBase &rw, ComputeOp op,
                               const TilingPlan &plan, Operation *kernel) {
  MLIRContext *ctx = op.getContext();
  TmaLoads loads;
  loads.maps.resize(op.getInputs().size());
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPoint(kernel);
  for (unsigned i = 0, e = op.getInputs().size(); i < e; ++i) {
    if (!plan.cached.test(i))
      continue;
    Value input = op.getInputs()[i];
    auto type = cast<MemRefType>(input.getType());
    const InputWindow &window = plan.windows[i];
    int64_t elemBytes = type.getElementTypeBitWidth() / 8;
    std::string why;
    nvgpu::TensorMapSwizzleKind swizzle =
        *hardwareSwizzle(plan.cacheAttrs[i].getSwizzle(), elemBytes,
                         window.shape.back() * elemBytes, why);
    // The map, built by the host before the kernel.
    Location loc = phaseLoc(op.getLoc(), "tensor map of input " + Twine(i));
    auto unranked = UnrankedMemRefType::get(type.getElementType(),
                                            type.getMemorySpace());
    Value cast = memref::CastOp::create(rw, loc, unranked, input);
    SmallVector<Value> box;
    for (int64_t s : window.shape)
      box.push_back(constIndex(rw, loc, s));
    auto boxType = MemRefType::get(
        window.shape, type.getElementType(), MemRefLayoutAttrInterface(),
        IntegerAttr::get(IntegerType::get(ctx, 64), 3));
    auto mapType = nvgpu::TensorMapDescriptorType::get(
        ctx, boxType, swizzle, nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
    loads.maps[i] =
        nvgpu::TmaCreateDescriptorOp::create(rw, loc, mapType, cast, box);
    // A box partly outside the input still brings all its bytes (zeros).
    int64_t boxBytes = elemBytes;
    for (int64_t s : window.shape)
      boxBytes *= s;
    loads.bytesPerStep += boxBytes;
  }
  return loads;
}

Value tiling::buildTmaStoreMap(RewriterBase &rw, ComputeOp op, unsigned output,
                               MemRefType staging, CacheAttr cache,
                               Operation *kernel, std::string &why) {
  auto type = dyn_cast<MemRefType>(op.getOutputs()[output].getType());
  if (!type || !type.getLayout().isIdentity() || type.getRank() > 5) {
    why = "the output is not a row-major memref of rank 1 to 5";
    return Value();
  }
  int64_t elemBytes = type.getElementTypeBitWidth() / 8;
  if (type.getElementTypeBitWidth() % 8 != 0 ||
      !llvm::is_contained({1, 2, 4, 8}, elemBytes)) {
    why = "its elements are not of 1, 2, 4 or 8 bytes";
    return Value();
  }
  int64_t inner = type.getShape().back();
  if (type.getRank() > 1 && !ShapedType::isDynamic(inner) &&
      inner * elemBytes % 16 != 0) {
    why = "its rows are " + std::to_string(inner * elemBytes) +
          " bytes, not a multiple of 16 (a tensor map's row stride)";
    return Value();
  }
  if (!cache.getAlign().empty()) {
    why = "its shared tile is padded (storage_align); the copy engine reads "
          "dense boxes";
    return Value();
  }
  for (int64_t s : staging.getShape())
    if (s > 256) {
      why = "its tile has " + std::to_string(s) +
            " elements along one dimension; a copy box has at most 256";
      return Value();
    }
  FailureOr<nvgpu::TensorMapSwizzleKind> swizzle =
      hardwareSwizzle(cache.getSwizzle(), elemBytes,
                      staging.getShape().back() * elemBytes, why);
  if (failed(swizzle))
    return Value();
  MLIRContext *ctx = op.getContext();
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPoint(kernel);
  Location loc =
      phaseLoc(op.getLoc(), "tensor map of output " + Twine(output));
  Value target = op.getOutputs()[output];
  Value cast = memref::CastOp::create(
      rw, loc,
      UnrankedMemRefType::get(type.getElementType(), type.getMemorySpace()),
      target);
  SmallVector<Value> box;
  for (int64_t s : staging.getShape())
    box.push_back(constIndex(rw, loc, s));
  auto boxType = MemRefType::get(
      staging.getShape(), type.getElementType(), MemRefLayoutAttrInterface(),
      IntegerAttr::get(IntegerType::get(ctx, 64), 3));
  auto mapType = nvgpu::TensorMapDescriptorType::get(
      ctx, boxType, *swizzle, nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  return nvgpu::TmaCreateDescriptorOp::create(rw, loc, mapType, cast, box);
}
