//===- TmaToEmulation.cpp - Hopper's TMA and mbarriers --------------------===//
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
//   i64).
//
// The warpgroup ops that read the boxes are WarpgroupMmaToEmulation.cpp's.
//
// Values of nvgpu's opaque types are carried as i64 (addresses) behind
// unrealized casts that the patterns of their users look through.
//
//===----------------------------------------------------------------------===//

#include "EmulationPatterns.h"
#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <type_traits>

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

/// An op on barrier `mbarId` of a group.
template <typename Op> struct MBarrierLowering : AddressedOpLowering<Op> {
  using AddressedOpLowering<Op>::AddressedOpLowering;
  FailureOr<Value> address(Op op, OpBuilder &b) const override {
    return barrierAddress(b, op, op.getBarriers(), op.getMbarId());
  }
};

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

struct MBarrierInitLowering : MBarrierLowering<nvgpu::MBarrierInitOp> {
  using MBarrierLowering::MBarrierLowering;
  LogicalResult lower(nvgpu::MBarrierInitOp op, Value barrier,
                      PatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    Value site = emu.function().site(rewriter, op);
    underPredicate(rewriter, l, op.getPredicate(), [&] {
      Value count = arith::IndexCastOp::create(rewriter, l,
                                               rewriter.getI32Type(),
                                               op.getCount());
      emu.call(rewriter, l, EXT_EMU_MBARRIER_INIT, {}, {barrier, count, site});
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// arrive and arrive.expect_tx: an arrival, with the bytes it announces.
template <typename Op> struct MBarrierArriveLowering : MBarrierLowering<Op> {
  using MBarrierLowering<Op>::MBarrierLowering;
  LogicalResult lower(Op op, Value barrier,
                      PatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    Value site = this->emu.function().site(rewriter, op);
    Value predicate;
    Value tx = i64Const(rewriter, l, 0);
    if constexpr (std::is_same_v<Op, nvgpu::MBarrierArriveExpectTxOp>) {
      predicate = op.getPredicate();
      tx = toI64(rewriter, l, op.getTxcount());
    }
    underPredicate(rewriter, l, predicate, [&] {
      this->emu.call(rewriter, l, EXT_EMU_MBARRIER_ARRIVE, {},
                     {barrier, tx, site});
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
struct MBarrierInvalLowering : RuntimeCallLowering<NVVM::MBarrierInvalOp> {
  MBarrierInvalLowering(EmulationModule &emu)
      : RuntimeCallLowering(emu, EXT_EMU_MBARRIER_INVAL) {}
  FailureOr<SmallVector<Value>> arguments(NVVM::MBarrierInvalOp op,
                                          OpBuilder &b) const override {
    FailureOr<Value> addr = emuPointerAddress(b, op, op.getAddr());
    if (failed(addr))
      return failure();
    return SmallVector<Value>{*addr, site(b, op)};
  }
};

struct MBarrierTryWaitParityLowering
    : MBarrierLowering<nvgpu::MBarrierTryWaitParityOp> {
  using MBarrierLowering::MBarrierLowering;
  LogicalResult lower(nvgpu::MBarrierTryWaitParityOp op, Value barrier,
                      PatternRewriter &rewriter) const override {
    Location l = op.getLoc();
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
                            {rewriter.getI32Type()}, {barrier, parity, site});
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

/// A bulk tensor copy between shared memory and the tensor a map names: the
/// coordinates go through a buffer allocated once at the entry, and under
/// the op's predicate `issue` calls the runtime with the map, the shared
/// end's address, the coordinates' and the op's site.
template <typename Op> struct BulkTensorCopyLowering : EmulationOpPattern<Op> {
  using EmulationOpPattern<Op>::EmulationOpPattern;

  struct Copy {
    Value map, barrier, shared, coordinates, site;
    int64_t rank;
  };
  virtual void issue(Op op, OpBuilder &b, const Copy &copy) const = 0;

  LogicalResult matchAndRewrite(Op op, PatternRewriter &rewriter) const final {
    Location l = op.getLoc();
    FailureOr<Value> map = tensorMapAddress(op, op.getTensorMapDescriptor());
    if (failed(map))
      return failure();
    rewriter.setInsertionPoint(op);
    Copy copy{*map};
    Value shared;
    if constexpr (std::is_same_v<Op, nvgpu::TmaAsyncLoadOp>) {
      FailureOr<Value> barrier =
          barrierAddress(rewriter, op, op.getBarriers(), op.getMbarId());
      if (failed(barrier))
        return failure();
      copy.barrier = *barrier;
      shared = op.getDst();
    } else {
      shared = op.getSrc();
    }
    EmulationFunction &fn = this->emu.function();
    copy.rank = op.getCoordinates().size();
    Value coords = coordinateBuffer(rewriter, fn, l, copy.rank);
    copy.site = fn.site(rewriter, op);
    underPredicate(rewriter, l, op.getPredicate(), [&] {
      copy.coordinates =
          storeCoordinates(rewriter, l, coords, op.getCoordinates());
      copy.shared = firstElementAddress(rewriter, l, shared);
      issue(op, rewriter, copy);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// nvgpu.tma.async.load: the runtime attaches the box to the barrier (in
/// each block of the cluster its multicast mask names).
struct TmaAsyncLoadLowering : BulkTensorCopyLowering<nvgpu::TmaAsyncLoadOp> {
  using BulkTensorCopyLowering::BulkTensorCopyLowering;
  void issue(nvgpu::TmaAsyncLoadOp op, OpBuilder &b,
             const Copy &copy) const override {
    Location l = op.getLoc();
    if (Value mask = op.getMulticastMask()) {
      // The same offsets in each block of the cluster the mask names.
      Value mask32 = arith::ExtUIOp::create(b, l, b.getI32Type(), mask);
      emu.call(b, l, EXT_EMU_TMA_LOAD_MULTICAST, {},
               {copy.map, copy.shared, copy.barrier, copy.coordinates,
                emuI32Const(b, l, copy.rank), mask32, copy.site});
      return;
    }
    emu.call(b, l, EXT_EMU_TMA_LOAD, {},
             {copy.map, copy.shared, copy.barrier, copy.coordinates,
              emuI32Const(b, l, copy.rank), copy.site});
  }
};

/// nvgpu.tma.async.store: the runtime reads the box from the source (through
/// the map's swizzle) and writes it to global memory asynchronously, in the
/// issuing thread's bulk async-groups.
struct TmaAsyncStoreLowering : BulkTensorCopyLowering<nvgpu::TmaAsyncStoreOp> {
  using BulkTensorCopyLowering::BulkTensorCopyLowering;
  void issue(nvgpu::TmaAsyncStoreOp op, OpBuilder &b,
             const Copy &copy) const override {
    Location l = op.getLoc();
    emu.call(b, l, EXT_EMU_TMA_STORE, {},
             {copy.map, copy.shared, copy.coordinates,
              emuI32Const(b, l, copy.rank), copy.site});
  }
};

/// cp.async.bulk.commit_group and wait_group[.read]: the calling thread's
/// bulk async-groups (of TMA stores) in the runtime.
struct BulkCommitLowering
    : RuntimeCallLowering<NVVM::CpAsyncBulkCommitGroupOp> {
  BulkCommitLowering(EmulationModule &emu)
      : RuntimeCallLowering(emu, EXT_EMU_BULK_COMMIT) {}
  FailureOr<SmallVector<Value>> arguments(NVVM::CpAsyncBulkCommitGroupOp,
                                          OpBuilder &) const override {
    return SmallVector<Value>{};
  }
};

struct BulkWaitLowering : RuntimeCallLowering<NVVM::CpAsyncBulkWaitGroupOp> {
  BulkWaitLowering(EmulationModule &emu)
      : RuntimeCallLowering(emu, EXT_EMU_BULK_WAIT) {}
  FailureOr<SmallVector<Value>> arguments(NVVM::CpAsyncBulkWaitGroupOp op,
                                          OpBuilder &b) const override {
    Location l = op.getLoc();
    return SmallVector<Value>{emuI32Const(b, l, int32_t(op.getGroup())),
                              emuI32Const(b, l, op.getRead() ? 1 : 0),
                              site(b, op)};
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

} // namespace

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
