//===- TmaToEmulation.cpp - Hopper's TMA, mbarriers and warpgroup ops -----===//
//
// The nvgpu dialect's sm_90 ops on the CPU emulation:
//
// - nvgpu.mbarrier.create takes 8 bytes per barrier of the block's workgroup
//   memory; init, arrive(.expect_tx) and try_wait.parity call the runtime
//   (runtime/cpu/Tma.cpp), try_wait in a loop that yields like a spin;
// - nvgpu.tma.async.load calls the runtime with the map, the destination's
//   address, the barrier and the coordinates (and its multicast mask, for a
//   box that lands in several blocks of a cluster); the prefetch is
//   dropped;
// - nvgpu.tma.async.store calls the runtime with the map, the source's
//   address and the coordinates; nvvm.cp.async.bulk.commit.group and
//   .wait_group (with `read`) keep the thread's bulk async-groups there, and
//   nvvm.fence.proxy of the async proxy tells it the thread's ordinary
//   shared-memory writes are fenced (other proxy kinds are no-ops);
// - on the host, nvgpu.tma.create.descriptor builds the map in the runtime
//   and the kernels receive its address (their tensor-map arguments become
//   i64);
// - the warpgroup ops become what a GPU runs (lowerNVGPUWarpgroupOps):
//   descriptors built from the operand's shared address and the map's
//   swizzle, nvgpu.warpgroup.mma a wgmma.fence, one nvvm.wgmma.mma_async per
//   64-row block and k step with the operands' descriptors advanced, and a
//   commit; the accumulator an LLVM struct per 64-row block, stored by
//   nvgpu.warpgroup.mma.store in the instruction's register layout.
//
// Values of nvgpu's opaque types are carried as i64 (addresses) behind
// unrealized casts that the patterns of their users look through.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace ext;

namespace {

/// The i64 a cast to an nvgpu type carries (an address).
Value carried(Value v) {
  if (auto cast = v.getDefiningOp<UnrealizedConversionCastOp>();
      cast && cast->getNumOperands() == 1 &&
      cast->getOperand(0).getType().isInteger(64))
    return cast->getOperand(0);
  return {};
}

Value i64Const(OpBuilder &b, Location l, int64_t v) {
  return arith::ConstantIntOp::create(b, l, v, 64);
}

Value toI64(OpBuilder &b, Location l, Value index) {
  return arith::IndexCastOp::create(b, l, b.getI64Type(), index);
}

/// The address of `memref`'s first element, as an i64.
Value firstElementAddress(OpBuilder &b, Location l, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  auto meta = memref::ExtractStridedMetadataOp::create(b, l, memref);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, l, memref);
  int64_t bytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  Value offset = arith::MulIOp::create(b, l, meta.getOffset(),
                                       emuIndexConst(b, l, bytes));
  return toI64(b, l, arith::AddIOp::create(b, l, base, offset));
}

/// The address of the tensor map a bulk tensor copy `op` reads: a kernel
/// argument the host made with nvgpu.tma.create.descriptor.
FailureOr<Value> tensorMapAddress(Operation *op, Value descriptor) {
  if (Value map = carried(descriptor))
    return map;
  return op->emitOpError("uses a tensor map that is not a kernel argument "
                         "made by nvgpu.tma.create.descriptor on the host");
}

/// A buffer of `rank` i64 coordinates of a bulk tensor copy, allocated once
/// at the function's entry.
Value coordinateBuffer(OpBuilder &b, EmulationFunction &fn, Location l,
                       int64_t rank) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&fn.getFunc().getBody().front());
  return memref::AllocaOp::create(b, l,
                                  MemRefType::get({rank}, b.getI64Type()));
}

/// Stores `coords` into `buffer`; returns its address, for the runtime.
Value storeCoordinates(OpBuilder &b, Location l, Value buffer,
                       ValueRange coords) {
  for (auto [i, c] : llvm::enumerate(coords))
    memref::StoreOp::create(b, l, toI64(b, l, c), buffer,
                            emuIndexConst(b, l, i));
  return toI64(b, l,
               memref::ExtractAlignedPointerAsIndexOp::create(b, l, buffer));
}

/// Runs `body` under `predicate` when there is one.
void underPredicate(OpBuilder &b, Location l, Value predicate,
                    function_ref<void()> body) {
  if (!predicate)
    return body();
  auto ifOp = scf::IfOp::create(b, l, predicate, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  body();
}

/// The address of barrier `index` of a group nvgpu.mbarrier.create made.
FailureOr<Value> barrierAddress(OpBuilder &b, Operation *op, Value group,
                                Value index) {
  Value base = carried(group);
  if (!base)
    return op->emitOpError("uses an mbarrier group that does not come from "
                           "nvgpu.mbarrier.create in this function; the CPU "
                           "emulation follows barriers only from there");
  Location l = op->getLoc();
  Value offset = arith::MulIOp::create(b, l, toI64(b, l, index),
                                       i64Const(b, l, 8));
  return Value(arith::AddIOp::create(b, l, base, offset));
}

struct MBarrierCreateLowering : EmulationOpPattern<nvgpu::MBarrierCreateOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(nvgpu::MBarrierCreateOp op,
                                PatternRewriter &rewriter) const override {
    EmulationFunction &fn = emu.function();
    KernelInfo *kernel = fn.getKernel();
    if (!kernel)
      return op.emitOpError("outside a kernel: the CPU emulation gives "
                            "workgroup memory to kernels only");
    Location l = op.getLoc();
    rewriter.setInsertionPoint(op);
    int64_t count = op.getBarriers().getType().getNumBarriers();
    int64_t offset = kernel->allocateShared("mbarrier group", 8 * count);
    Value ptr = fn.sharedSlot(rewriter, l, offset);
    Value address =
        LLVM::PtrToIntOp::create(rewriter, l, rewriter.getI64Type(), ptr);
    rewriter.replaceOpWithNewOp<UnrealizedConversionCastOp>(
        op, op.getBarriers().getType(), address);
    return success();
  }
};

struct MBarrierInitLowering : EmulationOpPattern<nvgpu::MBarrierInitOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(nvgpu::MBarrierInitOp op,
                                PatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    rewriter.setInsertionPoint(op);
    FailureOr<Value> addr =
        barrierAddress(rewriter, op, op.getBarriers(), op.getMbarId());
    if (failed(addr))
      return failure();
    Value site = emu.function().site(rewriter, op);
    underPredicate(rewriter, l, op.getPredicate(), [&] {
      Value count = arith::IndexCastOp::create(rewriter, l,
                                               rewriter.getI32Type(),
                                               op.getCount());
      emu.call(rewriter, l, EXT_EMU_MBARRIER_INIT, {}, {*addr, count, site});
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// arrive and arrive.expect_tx: an arrival, with the bytes it announces.
template <typename Op> struct MBarrierArriveLowering : EmulationOpPattern<Op> {
  using EmulationOpPattern<Op>::EmulationOpPattern;
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    rewriter.setInsertionPoint(op);
    FailureOr<Value> addr =
        barrierAddress(rewriter, op, op.getBarriers(), op.getMbarId());
    if (failed(addr))
      return failure();
    Value site = this->emu.function().site(rewriter, op);
    Value predicate;
    Value tx = i64Const(rewriter, l, 0);
    if constexpr (std::is_same_v<Op, nvgpu::MBarrierArriveExpectTxOp>) {
      predicate = op.getPredicate();
      tx = toI64(rewriter, l, op.getTxcount());
    }
    underPredicate(rewriter, l, predicate, [&] {
      this->emu.call(rewriter, l, EXT_EMU_MBARRIER_ARRIVE, {},
                     {*addr, tx, site});
    });
    if constexpr (std::is_same_v<Op, nvgpu::MBarrierArriveOp>) {
      // The token only says which phase it arrived in; no op the emulation
      // runs reads it.
      Value zero = i64Const(rewriter, l, 0);
      rewriter.replaceOpWithNewOp<UnrealizedConversionCastOp>(
          op, op.getToken().getType(), zero);
    } else {
      rewriter.eraseOp(op);
    }
    return success();
  }
};

/// mbarrier.get: the barrier's address (the emulation's are 64-bit).
struct MBarrierGetLowering : EmulationOpPattern<nvgpu::MBarrierGetOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(nvgpu::MBarrierGetOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isInteger(64))
      return op.emitOpError("with a 32-bit result: the CPU emulation's "
                            "shared addresses are 64-bit (take an i64)");
    rewriter.setInsertionPoint(op);
    FailureOr<Value> addr =
        barrierAddress(rewriter, op, op.getBarriers(), op.getMbarId());
    if (failed(addr))
      return failure();
    rewriter.replaceOp(op, *addr);
    return success();
  }
};

/// nvvm.mbarrier.inval on an address (a pointer made from mbarrier.get's).
struct MBarrierInvalLowering : EmulationOpPattern<NVVM::MBarrierInvalOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(NVVM::MBarrierInvalOp op,
                                PatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    rewriter.setInsertionPoint(op);
    FailureOr<Value> addr = emuPointerAddress(rewriter, op, op.getAddr());
    if (failed(addr))
      return failure();
    emu.call(rewriter, l, EXT_EMU_MBARRIER_INVAL, {},
             {*addr, emu.function().site(rewriter, op)});
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierTryWaitParityLowering
    : EmulationOpPattern<nvgpu::MBarrierTryWaitParityOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(nvgpu::MBarrierTryWaitParityOp op,
                                PatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    rewriter.setInsertionPoint(op);
    FailureOr<Value> addr =
        barrierAddress(rewriter, op, op.getBarriers(), op.getMbarId());
    if (failed(addr))
      return failure();
    Value site = emu.function().site(rewriter, op);
    Value parity = arith::ExtUIOp::create(rewriter, l, rewriter.getI32Type(),
                                          op.getPhaseParity());
    // Spins until the phase completed (the runtime yields on each miss); the
    // ticks bound only how long one hardware try_wait suspends.
    auto loop = scf::WhileOp::create(rewriter, l, TypeRange{}, ValueRange{});
    {
      OpBuilder::InsertionGuard guard(rewriter);
      Block *before = rewriter.createBlock(&loop.getBefore());
      rewriter.setInsertionPointToStart(before);
      Value done = emu.call(rewriter, l, EXT_EMU_MBARRIER_TRY_WAIT_PARITY,
                            {rewriter.getI32Type()}, {*addr, parity, site});
      Value again = arith::CmpIOp::create(rewriter, l, arith::CmpIPredicate::eq,
                                          done, emuI32Const(rewriter, l, 0));
      scf::ConditionOp::create(rewriter, l, again, ValueRange{});
      Block *after = rewriter.createBlock(&loop.getAfter());
      rewriter.setInsertionPointToStart(after);
      scf::YieldOp::create(rewriter, l);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaAsyncLoadLowering : EmulationOpPattern<nvgpu::TmaAsyncLoadOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(nvgpu::TmaAsyncLoadOp op,
                                PatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    FailureOr<Value> map = tensorMapAddress(op, op.getTensorMapDescriptor());
    if (failed(map))
      return failure();
    rewriter.setInsertionPoint(op);
    FailureOr<Value> barrier =
        barrierAddress(rewriter, op, op.getBarriers(), op.getMbarId());
    if (failed(barrier))
      return failure();
    // The coordinates go through a buffer allocated once at the entry.
    EmulationFunction &fn = emu.function();
    int64_t rank = op.getCoordinates().size();
    Value coords = coordinateBuffer(rewriter, fn, l, rank);
    Value site = fn.site(rewriter, op);
    underPredicate(rewriter, l, op.getPredicate(), [&] {
      Value coordsPtr =
          storeCoordinates(rewriter, l, coords, op.getCoordinates());
      Value dst = firstElementAddress(rewriter, l, op.getDst());
      if (Value mask = op.getMulticastMask()) {
        // The same offsets in each block of the cluster the mask names.
        Value mask32 = arith::ExtUIOp::create(rewriter, l,
                                              rewriter.getI32Type(), mask);
        emu.call(rewriter, l, EXT_EMU_TMA_LOAD_MULTICAST, {},
                 {*map, dst, *barrier, coordsPtr,
                  emuI32Const(rewriter, l, rank), mask32, site});
        return;
      }
      emu.call(rewriter, l, EXT_EMU_TMA_LOAD, {},
               {*map, dst, *barrier, coordsPtr, emuI32Const(rewriter, l, rank),
                site});
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// nvgpu.tma.async.store: the runtime reads the box from the source (through
/// the map's swizzle) and writes it to global memory asynchronously, in the
/// issuing thread's bulk async-groups.
struct TmaAsyncStoreLowering : EmulationOpPattern<nvgpu::TmaAsyncStoreOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(nvgpu::TmaAsyncStoreOp op,
                                PatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    FailureOr<Value> map = tensorMapAddress(op, op.getTensorMapDescriptor());
    if (failed(map))
      return failure();
    rewriter.setInsertionPoint(op);
    EmulationFunction &fn = emu.function();
    int64_t rank = op.getCoordinates().size();
    Value coords = coordinateBuffer(rewriter, fn, l, rank);
    Value site = fn.site(rewriter, op);
    underPredicate(rewriter, l, op.getPredicate(), [&] {
      Value coordsPtr =
          storeCoordinates(rewriter, l, coords, op.getCoordinates());
      Value src = firstElementAddress(rewriter, l, op.getSrc());
      emu.call(rewriter, l, EXT_EMU_TMA_STORE, {},
               {*map, src, coordsPtr, emuI32Const(rewriter, l, rank), site});
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// cp.async.bulk.commit_group and wait_group[.read]: the calling thread's
/// bulk async-groups (of TMA stores) in the runtime.
struct BulkCommitLowering
    : EmulationOpPattern<NVVM::CpAsyncBulkCommitGroupOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(NVVM::CpAsyncBulkCommitGroupOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(op);
    emu.call(rewriter, op.getLoc(), EXT_EMU_BULK_COMMIT, {}, {});
    rewriter.eraseOp(op);
    return success();
  }
};

struct BulkWaitLowering : EmulationOpPattern<NVVM::CpAsyncBulkWaitGroupOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(NVVM::CpAsyncBulkWaitGroupOp op,
                                PatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    rewriter.setInsertionPoint(op);
    emu.call(rewriter, l, EXT_EMU_BULK_WAIT, {},
             {emuI32Const(rewriter, l, int32_t(op.getGroup())),
              emuI32Const(rewriter, l, op.getRead() ? 1 : 0),
              emu.function().site(rewriter, op)});
    rewriter.eraseOp(op);
    return success();
  }
};

/// fence.proxy: the async proxy's (async, async.shared::cta/::cluster) makes
/// the thread's ordinary shared-memory writes visible to bulk copies (the
/// runtime checks TMA stores against it); the others order what the
/// emulation already keeps in order (global memory, tensor maps, aliases).
struct FenceProxyLowering : EmulationOpPattern<NVVM::FenceProxyOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(NVVM::FenceProxyOp op,
                                PatternRewriter &rewriter) const override {
    NVVM::ProxyKind kind = op.getKind();
    if (kind == NVVM::ProxyKind::async ||
        kind == NVVM::ProxyKind::async_shared) {
      rewriter.setInsertionPoint(op);
      emu.call(rewriter, op.getLoc(), EXT_EMU_FENCE_PROXY_ASYNC, {},
               {emu.function().site(rewriter, op)});
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// A hint to the descriptor cache: nothing to do on the CPU.
struct TmaPrefetchLowering : EmulationOpPattern<nvgpu::TmaPrefetchOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(nvgpu::TmaPrefetchOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Warpgroup ops
//===----------------------------------------------------------------------===//

/// The swizzle of a tensor map in bytes (0: none).
int64_t swizzleBytes(nvgpu::TensorMapDescriptorType map) {
  switch (map.getSwizzle()) {
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_128B:
    return 128;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_64B:
    return 64;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_32B:
    return 32;
  default:
    return 0;
  }
}

/// A per-thread accumulator: one struct of N/2 f32 per 64-row block.
Type accumulatorStruct(nvgpu::WarpgroupAccumulatorType type) {
  VectorType frag = type.getFragmented();
  MLIRContext *ctx = type.getContext();
  int64_t m = frag.getDimSize(0), n = frag.getDimSize(1);
  Type block = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(n / 2, Float32Type::get(ctx)));
  return LLVM::LLVMStructType::getLiteral(ctx,
                                          SmallVector<Type>(m / 64, block));
}

/// nvgpu.warpgroup.generate.descriptor: the start address (bits 0-13, the
/// shared-window offset / 16), the stride byte offset of 8-row groups (8
/// rows of the swizzle's width) and the swizzle mode (bits 62-63). The
/// leading byte offset depends on the operand's major-ness, which only the
/// mma knows: it adds it.
struct GenerateDescriptorLowering
    : OpConversionPattern<nvgpu::WarpgroupGenerateDescriptorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::WarpgroupGenerateDescriptorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    int64_t swizzle = swizzleBytes(op.getTensorMap().getType());
    if (!swizzle)
      return op.emitOpError("of a tensor map without a swizzle is not "
                            "supported by the CPU emulation (TMA's plain "
                            "boxes are not a wgmma canonical layout)");
    int64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
    Value address = firstElementAddress(rewriter, l, adaptor.getTensor());
    Value start = arith::AndIOp::create(
        rewriter, l,
        arith::ShRUIOp::create(rewriter, l, address, i64Const(rewriter, l, 4)),
        i64Const(rewriter, l, 0x3fff));
    int64_t fields = ((8 * swizzle) >> 4) << 32 | (int64_t(mode) << 62);
    rewriter.replaceOp(op, arith::OrIOp::create(rewriter, l, start,
                                                i64Const(rewriter, l, fields)));
    return success();
  }
};

struct InitAccumulatorLowering
    : OpConversionPattern<nvgpu::WarpgroupMmaInitAccumulatorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::WarpgroupMmaInitAccumulatorOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::ZeroOp>(
        op, accumulatorStruct(op.getMatrixC().getType()));
    return success();
  }
};

/// One operand of a warpgroup MMA as TMA laid it out: panels of the
/// swizzle's width, each spanning the tile's other dimension.
struct WarpgroupOperand {
  int64_t rows, cols; // the tensor's shape (rows outermost)
  int64_t bytes, swizzle;
  bool kMajor;

  /// Byte offset of the instruction step whose first element is at
  /// (mn0, k0), from the tile's start.
  int64_t offset(int64_t mn0, int64_t k0) const {
    int64_t perPanel = swizzle / bytes;
    if (kMajor) // rows: M or N; cols: K, in panels of perPanel
      return (k0 / perPanel) * rows * swizzle + mn0 * swizzle +
             (k0 % perPanel) * bytes;
    // rows: K; cols: M or N, in panels of perPanel.
    return (mn0 / perPanel) * rows * swizzle + k0 * swizzle +
           (mn0 % perPanel) * bytes;
  }
  /// The leading byte offset: MN-major panels are a K-extent apart.
  int64_t leading() const { return kMajor ? 16 : rows * swizzle; }
};

struct WarpgroupMmaLowering : OpConversionPattern<nvgpu::WarpgroupMmaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::WarpgroupMmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    MLIRContext *ctx = op.getContext();
    MemRefType a = op.getDescriptorA().getType().getTensor();
    MemRefType b = op.getDescriptorB().getType().getTensor();
    VectorType d = op.getMatrixC().getType().getFragmented();
    bool transA = op.getTransposeA().value_or(false),
         transB = op.getTransposeB().value_or(false);
    Type elem = a.getElementType();
    std::optional<NVVM::WGMMATypes> type;
    int64_t kStep = 16;
    if (elem.isF16())
      type = NVVM::WGMMATypes::f16;
    else if (elem.isBF16())
      type = NVVM::WGMMATypes::bf16;
    else if (elem.isF32())
      type = NVVM::WGMMATypes::tf32, kStep = 8;
    int64_t m = d.getDimSize(0), n = d.getDimSize(1);
    int64_t k = transA ? a.getDimSize(0) : a.getDimSize(1);
    if (!type || b.getElementType() != elem ||
        !d.getElementType().isF32() || m % 64 || n % 8 || n > 256 ||
        k % kStep)
      return op.emitOpError("of ")
             << a << " by " << b << " into " << d
             << " is not supported by the CPU emulation (f16, bf16 or tf32 "
                "inputs, f32 accumulators, M a multiple of 64, N at most 256)";
    int64_t bytes = elem.getIntOrFloatBitWidth() / 8;
    // The swizzle is in the descriptors' top bits; the emulation reads it
    // back from the op that made them.
    auto swizzleOf = [&](Value desc) -> int64_t {
      auto gen = desc.getDefiningOp<nvgpu::WarpgroupGenerateDescriptorOp>();
      return gen ? swizzleBytes(gen.getTensorMap().getType()) : 0;
    };
    int64_t swA = swizzleOf(op.getDescriptorA()),
            swB = swizzleOf(op.getDescriptorB());
    if (!swA || !swB)
      return op.emitOpError("needs descriptors made by "
                            "nvgpu.warpgroup.generate.descriptor on the CPU "
                            "emulation");
    WarpgroupOperand opA{a.getDimSize(0), a.getDimSize(1), bytes, swA, !transA};
    WarpgroupOperand opB{b.getDimSize(0), b.getDimSize(1), bytes, swB, !transB};

    auto leading = [&](const WarpgroupOperand &o) {
      return i64Const(rewriter, l, (o.leading() >> 4) << 16);
    };
    Value descA = arith::OrIOp::create(rewriter, l, adaptor.getDescriptorA(),
                                       leading(opA));
    Value descB = arith::OrIOp::create(rewriter, l, adaptor.getDescriptorB(),
                                       leading(opB));
    auto one = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
    auto types = NVVM::WGMMATypesAttr::get(ctx, *type);
    NVVM::WgmmaFenceAlignedOp::create(rewriter, l);
    Value acc = adaptor.getMatrixC();
    for (int64_t mb = 0; mb < m / 64; ++mb) {
      Value block = LLVM::ExtractValueOp::create(rewriter, l, acc, mb);
      for (int64_t ks = 0; ks < k / kStep; ++ks) {
        Value stepA = arith::AddIOp::create(
            rewriter, l, descA,
            i64Const(rewriter, l, opA.offset(64 * mb, ks * kStep) >> 4));
        Value stepB = arith::AddIOp::create(
            rewriter, l, descB,
            i64Const(rewriter, l, opB.offset(0, ks * kStep) >> 4));
        block = NVVM::WgmmaMmaAsyncOp::create(
            rewriter, l, block.getType(), block, stepA, stepB,
            NVVM::MMAShapeAttr::get(ctx, 64, n, kStep), types, types,
            NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
            NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one), one,
            one,
            NVVM::MMALayoutAttr::get(ctx, transA ? NVVM::MMALayout::col
                                                 : NVVM::MMALayout::row),
            NVVM::MMALayoutAttr::get(ctx, transB ? NVVM::MMALayout::row
                                                 : NVVM::MMALayout::col),
            /*satfinite=*/nullptr);
      }
      acc = LLVM::InsertValueOp::create(rewriter, l, acc, block, mb);
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, l);
    if (std::optional<uint64_t> wait = op.getWaitGroup())
      NVVM::WgmmaWaitGroupSyncOp::create(rewriter, l, int64_t(*wait));
    rewriter.replaceOp(op, acc);
    return success();
  }
};

/// Each thread stores its registers where the instruction's accumulator
/// layout puts them (PTX "Matrix Fragments for wgmma.mma_async.m64nNk*"):
/// warp w holds rows 16w + lane/4 (+8), register i column 8(i/4) +
/// 2(lane%4) + i%2, the lower row for i%4 < 2.
struct MmaStoreLowering : OpConversionPattern<nvgpu::WarpgroupMmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::WarpgroupMmaStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    VectorType d = op.getMatrixD().getType().getFragmented();
    int64_t m = d.getDimSize(0), n = d.getDimSize(1);
    Value x = gpu::ThreadIdOp::create(rewriter, l, gpu::Dimension::x);
    Value y = gpu::ThreadIdOp::create(rewriter, l, gpu::Dimension::y);
    Value z = gpu::ThreadIdOp::create(rewriter, l, gpu::Dimension::z);
    Value bx = gpu::BlockDimOp::create(rewriter, l, gpu::Dimension::x);
    Value by = gpu::BlockDimOp::create(rewriter, l, gpu::Dimension::y);
    Value linear = arith::AddIOp::create(
        rewriter, l, x,
        arith::MulIOp::create(
            rewriter, l, bx,
            arith::AddIOp::create(rewriter, l, y,
                                  arith::MulIOp::create(rewriter, l, by, z))));
    auto c = [&](int64_t v) { return emuIndexConst(rewriter, l, v); };
    Value inGroup = arith::RemUIOp::create(rewriter, l, linear, c(128));
    Value warp = arith::DivUIOp::create(rewriter, l, inGroup, c(32));
    Value lane = arith::RemUIOp::create(rewriter, l, inGroup, c(32));
    Value baseRow = arith::AddIOp::create(
        rewriter, l, arith::MulIOp::create(rewriter, l, warp, c(16)),
        arith::DivUIOp::create(rewriter, l, lane, c(4)));
    Value baseCol = arith::MulIOp::create(
        rewriter, l, arith::RemUIOp::create(rewriter, l, lane, c(4)), c(2));
    for (int64_t mb = 0; mb < m / 64; ++mb) {
      Value block =
          LLVM::ExtractValueOp::create(rewriter, l, adaptor.getMatrixD(), mb);
      for (int64_t i = 0; i < n / 2; ++i) {
        Value v = LLVM::ExtractValueOp::create(rewriter, l, block, i);
        Value row = arith::AddIOp::create(
            rewriter, l, baseRow, c(64 * mb + 8 * ((i / 2) % 2)));
        Value col =
            arith::AddIOp::create(rewriter, l, baseCol, c(8 * (i / 4) + i % 2));
        memref::StoreOp::create(rewriter, l, v, adaptor.getDstMemref(),
                                ValueRange{row, col});
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

LogicalResult ext::lowerNVGPUWarpgroupOps(Operation *func) {
  bool any = false;
  func->walk([&](Operation *op) {
    any |= isa<nvgpu::WarpgroupMmaOp, nvgpu::WarpgroupMmaStoreOp,
               nvgpu::WarpgroupMmaInitAccumulatorOp,
               nvgpu::WarpgroupGenerateDescriptorOp>(op);
  });
  if (!any)
    return success();
  MLIRContext *ctx = func->getContext();
  TypeConverter types;
  types.addConversion([](Type t) { return t; });
  types.addConversion([](nvgpu::WarpgroupAccumulatorType t) -> Type {
    return accumulatorStruct(t);
  });
  types.addConversion([ctx](nvgpu::WarpgroupMatrixDescriptorType) -> Type {
    return IntegerType::get(ctx, 64);
  });
  auto materialize = [](OpBuilder &b, Type type, ValueRange inputs,
                        Location l) -> Value {
    return UnrealizedConversionCastOp::create(b, l, type, inputs).getResult(0);
  };
  types.addSourceMaterialization(materialize);
  types.addTargetMaterialization(materialize);

  ConversionTarget target(*ctx);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addIllegalOp<nvgpu::WarpgroupMmaOp, nvgpu::WarpgroupMmaStoreOp,
                      nvgpu::WarpgroupMmaInitAccumulatorOp,
                      nvgpu::WarpgroupGenerateDescriptorOp>();
  RewritePatternSet patterns(ctx);
  patterns.add<GenerateDescriptorLowering, InitAccumulatorLowering,
               WarpgroupMmaLowering, MmaStoreLowering>(types, ctx);
  scf::populateSCFStructuralTypeConversionsAndLegality(types, patterns, target);
  return applyPartialConversion(func, target, std::move(patterns));
}

/// nvgpu.tma.create.descriptor: the runtime builds the map on the host and
/// the kernels receive its address. The kernel arguments that take a map
/// become i64 (cast back to the map type for the ops that use it), so that
/// launches pass and trampolines unpack a plain word.
LogicalResult ext::lowerNVGPUTensorMaps(EmulationModule &emu) {
  ModuleOp module = emu.getModule();
  SmallVector<nvgpu::TmaCreateDescriptorOp> creates;
  module.walk([&](nvgpu::TmaCreateDescriptorOp op) {
    if (!op->getParentOfType<gpu::GPUModuleOp>())
      creates.push_back(op);
  });
  for (nvgpu::TmaCreateDescriptorOp op : creates) {
    Location l = op.getLoc();
    OpBuilder b(op);
    auto ranked = op.getTensor().getDefiningOp<memref::CastOp>();
    auto type = ranked ? dyn_cast<MemRefType>(ranked.getSource().getType())
                       : MemRefType();
    if (!type)
      return op.emitOpError("of a memref that is not a memref.cast of a "
                            "ranked one: the CPU emulation reads the tensor's "
                            "sizes and strides from the ranked memref");
    nvgpu::TensorMapDescriptorType mapType = op.getTensorMap().getType();
    if (mapType.getInterleave() != nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE)
      return op.emitOpError("with an interleaved layout is not supported by "
                            "the CPU emulation");
    int64_t rank = type.getRank();
    if (int64_t(op.getBoxDimensions().size()) != rank)
      return op.emitOpError("has ")
             << op.getBoxDimensions().size() << " box sizes for a rank-"
             << rank << " tensor";
    Value source = ranked.getSource();
    auto meta = memref::ExtractStridedMetadataOp::create(b, l, source);
    auto array = [&](auto values) {
      Value buffer = memref::AllocaOp::create(
          b, l, MemRefType::get({rank}, b.getI64Type()));
      for (auto [i, v] : llvm::enumerate(values))
        memref::StoreOp::create(
            b, l, arith::IndexCastOp::create(b, l, b.getI64Type(), v), buffer,
            emuIndexConst(b, l, i));
      return arith::IndexCastOp::create(
          b, l, b.getI64Type(),
          memref::ExtractAlignedPointerAsIndexOp::create(b, l, buffer));
    };
    Value sizes = array(meta.getSizes()), strides = array(meta.getStrides()),
          box = array(op.getBoxDimensions());
    int64_t bytes = emu.byteSize(type.getElementType());
    Value base = arith::AddIOp::create(
        b, l, memref::ExtractAlignedPointerAsIndexOp::create(b, l, source),
        arith::MulIOp::create(b, l, meta.getOffset(),
                              emuIndexConst(b, l, bytes)));
    Value map = emu.call(
        b, l, EXT_EMU_TENSOR_MAP_CREATE, {b.getI64Type()},
        {arith::IndexCastOp::create(b, l, b.getI64Type(), base),
         emuI32Const(b, l, bytes), emuI32Const(b, l, rank), sizes, strides,
         box, emuI32Const(b, l, swizzleBytes(mapType)),
         emuI32Const(b, l,
                     mapType.getOob() == nvgpu::TensorMapOOBKind::OOB_NAN)});
    for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
      auto launch = dyn_cast<gpu::LaunchFuncOp>(use.getOwner());
      auto kernel =
          launch ? SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
                       launch, launch.getKernel())
                 : gpu::GPUFuncOp();
      if (!kernel)
        return use.getOwner()->emitOpError(
            "uses a tensor map on the host; the CPU emulation passes maps "
            "to kernels (gpu.launch_func) only");
      unsigned index = use.getOperandNumber() -
                       launch.getKernelOperands().getBeginOperandIndex();
      use.set(map);
      BlockArgument arg = kernel.getArgument(index);
      if (arg.getType().isInteger(64))
        continue;
      Type original = arg.getType();
      arg.setType(b.getI64Type());
      OpBuilder kb = OpBuilder::atBlockBegin(&kernel.getBody().front());
      auto cast = UnrealizedConversionCastOp::create(kb, kernel.getLoc(),
                                                     original, arg);
      arg.replaceAllUsesExcept(cast.getResult(0), cast);
      SmallVector<Type> inputs(kernel.getArgumentTypes());
      inputs[index] = b.getI64Type();
      kernel.setType(FunctionType::get(kernel.getContext(), inputs,
                                       kernel.getResultTypes()));
    }
    op.erase();
  }
  return success();
}

void ext::populateNVGPUTmaToEmulationPatterns(RewritePatternSet &patterns,
                                              EmulationModule &emu) {
  patterns.add<MBarrierCreateLowering, MBarrierInitLowering,
               MBarrierArriveLowering<nvgpu::MBarrierArriveOp>,
               MBarrierArriveLowering<nvgpu::MBarrierArriveExpectTxOp>,
               MBarrierTryWaitParityLowering, MBarrierGetLowering,
               MBarrierInvalLowering, TmaAsyncLoadLowering,
               TmaAsyncStoreLowering, BulkCommitLowering, BulkWaitLowering,
               FenceProxyLowering, TmaPrefetchLowering>(emu);
}
