//===- MemoryToEmulation.cpp - memory accesses and workgroup memory -------===//
//
// The emulator switches threads only at yield points: each workgroup-memory
// access, atomic and fence reports itself to the runtime first
// (__ext_emu_access), so spin-waits make progress and a missing barrier
// changes results. Workgroup memory is one buffer per block that the runtime
// hands out; a kernel's static allocations get fixed offsets in it.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace ext;
using namespace ext::emu;

namespace {

int32_t spaceOf(Value memref) {
  return isWorkgroupMemRef(memref.getType()) ? EXT_EMU_WORKGROUP
                                             : EXT_EMU_GLOBAL;
}

/// The __ext_emu_access hook before `op`, which accesses
/// `memref[indices]` as `accessType`.
void hookAccess(EmulationModule &emu, OpBuilder &b, Operation *op, Value memref,
                ValueRange indices, Type accessType, int32_t kind) {
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  func::FuncOp hook = declareRuntimeFunction(emu.getSymbols(), EXT_EMU_ACCESS,
                                             {i64, i64, i32, i32}, {});
  auto type = cast<MemRefType>(memref.getType());
  int32_t site = emu.function().getSites().idOf(op);
  emitAccessHook(b, op->getLoc(), hook, memref, indices,
                 emu.byteSize(type.getElementType()), emu.byteSize(accessType),
                 kind, site);
}

/// The memref a load or store (memref's or vector's) accesses.
template <typename Op> Value accessedMemRef(Op op) {
  if constexpr (std::is_same_v<Op, vector::LoadOp> ||
                std::is_same_v<Op, vector::StoreOp>)
    return op.getBase();
  else
    return op.getMemref();
}

template <typename Op> struct WorkgroupAccessHook : EmulationOpPattern<Op> {
  using EmulationOpPattern<Op>::EmulationOpPattern;
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    // Global accesses are no yield points; ext-instrument-global-accesses
    // hooks them for race detection.
    Value memref = accessedMemRef(op);
    if (!isWorkgroupMemRef(memref.getType()))
      return failure();
    // A vector access is one access of all its bytes.
    Type accessType;
    int32_t kind;
    if constexpr (std::is_same_v<Op, memref::LoadOp> ||
                  std::is_same_v<Op, vector::LoadOp>) {
      accessType = op.getType();
      kind = EXT_EMU_WORKGROUP | EXT_EMU_LOAD;
    } else {
      accessType = op.getValueToStore().getType();
      kind = EXT_EMU_WORKGROUP | EXT_EMU_STORE;
    }
    rewriter.setInsertionPoint(op);
    hookAccess(this->emu, rewriter, op, memref, op.getIndices(), accessType,
               kind);
    return success();
  }
};

/// For an atomic on global memory, brackets the load and store that follow
/// with the runtime's lock for the address (blocks run on several OS
/// threads); returns the address to unlock with, null for workgroup memory
/// (one block's threads share one OS thread).
Value lockGlobalAtomic(EmulationModule &emu, OpBuilder &b, Location l,
                       Value memref, ValueRange indices) {
  if (isWorkgroupMemRef(memref.getType()))
    return Value();
  auto type = cast<MemRefType>(memref.getType());
  Value addr = arith::IndexCastOp::create(
      b, l, b.getI64Type(),
      emitElementAddress(b, l, memref, indices,
                         emu.byteSize(type.getElementType())));
  emu.call(b, l, EXT_EMU_ATOMIC_BEGIN, {}, {addr});
  return addr;
}

void unlockGlobalAtomic(EmulationModule &emu, OpBuilder &b, Location l,
                        Value addr) {
  if (addr)
    emu.call(b, l, EXT_EMU_ATOMIC_END, {}, {addr});
}

/// What an atomic stores: its kind applied to `old` and its value.
Value atomicResult(memref::AtomicRMWOp rmw, OpBuilder &b, Value old) {
  if (rmw.getKind() == arith::AtomicRMWKind::assign)
    return rmw.getValue();
  return arith::getReductionOp(rmw.getKind(), b, rmw.getLoc(), rmw.getValue(),
                               old);
}

/// What the region form stores: its body run on `old`.
Value atomicResult(memref::GenericAtomicRMWOp rmw, OpBuilder &b, Value old) {
  Block &body = rmw.getAtomicBody().front();
  IRMapping mapping;
  mapping.map(body.getArgument(0), old);
  for (Operation &inner : body.without_terminator())
    b.clone(inner, mapping);
  auto yield = cast<memref::AtomicYieldOp>(body.getTerminator());
  return mapping.lookupOrDefault(yield.getResult());
}

/// Atomics become their hook, a load, the combining code and a store: no
/// yield point lies between the load and the store (the yield point is the
/// hook just before), and on global memory the runtime's lock for the
/// address makes them one step against other OS threads. It covers every
/// kind, floats included, and the region form, which finalize-memref-to-llvm
/// leaves unlowered.
template <typename Op> struct AtomicRMWLowering : EmulationOpPattern<Op> {
  using EmulationOpPattern<Op>::EmulationOpPattern;
  LogicalResult matchAndRewrite(Op rmw,
                                PatternRewriter &rewriter) const override {
    EmulationModule &emu = this->emu;
    Location l = rmw.getLoc();
    rewriter.setInsertionPoint(rmw);
    hookAccess(emu, rewriter, rmw, rmw.getMemref(), rmw.getIndices(),
               rmw.getType(),
               spaceOf(rmw.getMemref()) | EXT_EMU_RMW | EXT_EMU_ATOMIC |
                   EXT_EMU_ACQ_REL);
    Value lock =
        lockGlobalAtomic(emu, rewriter, l, rmw.getMemref(), rmw.getIndices());
    Value old =
        memref::LoadOp::create(rewriter, l, rmw.getMemref(), rmw.getIndices());
    memref::StoreOp::create(rewriter, l, atomicResult(rmw, rewriter, old),
                            rmw.getMemref(), rmw.getIndices());
    unlockGlobalAtomic(emu, rewriter, l, lock);
    rewriter.replaceOp(rmw, old);
    return success();
  }
};

/// The race model's ordering bits of an LLVM atomic ordering (memref's
/// atomics are acq_rel, as finalize-memref-to-llvm lowers them).
int32_t orderingKind(LLVM::AtomicOrdering ordering) {
  switch (ordering) {
  case LLVM::AtomicOrdering::acquire:
    return EXT_EMU_ACQUIRE;
  case LLVM::AtomicOrdering::release:
    return EXT_EMU_RELEASE;
  case LLVM::AtomicOrdering::acq_rel:
  case LLVM::AtomicOrdering::seq_cst:
    return EXT_EMU_ACQ_REL;
  default:
    return 0;
  }
}

/// The __ext_emu_access hook before an access of `bytes` at `ptr`.
void hookPointerAccess(EmulationModule &emu, OpBuilder &b, Operation *op,
                       Value ptr, int64_t bytes, int32_t kind) {
  Location l = op->getLoc();
  Type i64 = b.getI64Type();
  Value addr = ptr ? LLVM::PtrToIntOp::create(b, l, i64, ptr).getResult()
                   : arith::ConstantIntOp::create(b, l, i64, 0).getResult();
  emu.call(b, l, EXT_EMU_ACCESS, {},
           {addr, arith::ConstantIntOp::create(b, l, i64, bytes),
            emuI32Const(b, l, kind), emu.function().site(b, op)});
}

/// A fence orders this thread's accesses; the others run after it.
struct FenceHook : EmulationOpPattern<LLVM::FenceOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(LLVM::FenceOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPointAfter(op);
    hookPointerAccess(emu, rewriter, op, Value(), 0,
                      EXT_EMU_FENCE | orderingKind(op.getOrdering()));
    return success();
  }
};

/// Atomics on LLVM pointers (a kernel's relaxed flag protocol, e.g. the
/// decompositions' fixups) report themselves with their ordering and stay
/// as they are: nothing runs between the hook and the access.
template <typename Op> struct LLVMAtomicHook : EmulationOpPattern<Op> {
  using EmulationOpPattern<Op>::EmulationOpPattern;
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    if (!this->emu.function().getKernel())
      return failure();
    int32_t kind = EXT_EMU_GLOBAL | EXT_EMU_ATOMIC;
    Value ptr;
    Type type;
    if constexpr (std::is_same_v<Op, LLVM::LoadOp>) {
      if (op.getOrdering() == LLVM::AtomicOrdering::not_atomic)
        return failure();
      ptr = op.getAddr();
      type = op.getType();
      kind |= EXT_EMU_LOAD;
    } else if constexpr (std::is_same_v<Op, LLVM::StoreOp>) {
      if (op.getOrdering() == LLVM::AtomicOrdering::not_atomic)
        return failure();
      ptr = op.getAddr();
      type = op.getValue().getType();
      kind |= EXT_EMU_STORE;
    } else {
      ptr = op.getPtr();
      type = op.getVal().getType();
      kind |= EXT_EMU_RMW;
    }
    kind |= orderingKind(op.getOrdering());
    rewriter.setInsertionPoint(op);
    hookPointerAccess(this->emu, rewriter, op, ptr,
                      this->emu.byteSize(type), kind);
    return success();
  }
};

/// Each memref.view of workgroup memory tells the runtime which bytes it
/// covers, so that a race report names the buffer the kernel meant (those
/// ext-gpu-reuse-shared-memory packed into one allocation included).
struct WorkgroupViewNaming : EmulationOpPattern<memref::ViewOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(memref::ViewOp view,
                                PatternRewriter &rewriter) const override {
    MemRefType type = view.getType();
    if (!emu.function().getKernel() || !isWorkgroupMemRef(type))
      return failure();
    rewriter.setInsertionPointAfter(view);
    Location loc = view.getLoc();
    auto [start, bytes] = emitMemRefExtent(rewriter, loc, view.getResult(),
                                           emu.byteSize(type.getElementType()));
    std::string name =
        emulationBufferName("'memref.view'", withoutMemorySpace(type), loc);
    emu.call(rewriter, loc, EXT_EMU_NAME_SHARED, {},
             {emu.stringPtr(rewriter, loc, "__ext_emu_view_name", name), start,
              bytes});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Workgroup memory
//===----------------------------------------------------------------------===//

/// One slot of the block's workgroup memory per op, as for a __shared__
/// declaration: every thread (and every execution) gets the same bytes.
template <typename Op> struct WorkgroupAllocLowering : EmulationOpPattern<Op> {
  using EmulationOpPattern<Op>::EmulationOpPattern;
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    MemRefType type = op.getType();
    if (!isWorkgroupMemRef(type))
      return failure();
    EmulationFunction &fn = this->emu.function();
    KernelInfo *kernel = fn.getKernel();
    if (!kernel)
      return op->emitOpError("allocates workgroup memory outside a kernel; "
                             "the CPU emulation gives workgroup memory to "
                             "kernels only");
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return op->emitOpError("of workgroup memory needs a static shape and "
                             "the identity layout on the CPU emulation (use "
                             "gpu.dynamic_shared_memory for sizes known at "
                             "launch)");
    rewriter.setInsertionPoint(op);
    int64_t offset = kernel->allocateShared(
        emulationBufferName("'" + op->getName().getStringRef() + "' buffer",
                            withoutMemorySpace(type), op->getLoc()),
        type.getNumElements() * this->emu.byteSize(type.getElementType()));
    Value ptr = fn.sharedSlot(rewriter, op->getLoc(), offset);
    rewriter.replaceOp(op,
                       this->emu.memrefAt(rewriter, op->getLoc(), type, ptr));
    return success();
  }
};

/// A workgroup-memory `memref.global` read in a kernel: one slot of the
/// block's workgroup memory per global and kernel; a zero-sized one (the
/// idiom for CUDA's `extern __shared__`, as upstream's NVVM lowering reads
/// it) is the dynamic shared memory.
struct WorkgroupGlobalLowering : EmulationOpPattern<memref::GetGlobalOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(memref::GetGlobalOp op,
                                PatternRewriter &rewriter) const override {
    MemRefType type = op.getType();
    if (!isWorkgroupMemRef(type))
      return failure();
    EmulationFunction &fn = this->emu.function();
    KernelInfo *kernel = fn.getKernel();
    if (!kernel)
      return op->emitOpError("reads a workgroup global outside a kernel; the "
                             "CPU emulation gives workgroup memory to kernels "
                             "only");
    rewriter.setInsertionPoint(op);
    Value ptr;
    if (type.getNumElements() == 0) {
      ptr = fn.entryPtr(EXT_EMU_DYNAMIC_SHARED_BASE);
    } else {
      auto key = std::make_pair(kernel, op.getNameAttr().getAttr());
      auto [it, added] = slots.try_emplace(key, 0);
      if (added)
        it->second = kernel->allocateShared(
            ("workgroup global @" + op.getName()).str(),
            type.getNumElements() * this->emu.byteSize(type.getElementType()));
      ptr = fn.sharedSlot(rewriter, op->getLoc(), it->second);
    }
    rewriter.replaceOp(op,
                       this->emu.memrefAt(rewriter, op->getLoc(), type, ptr));
    return success();
  }
  /// Each global's slot in each kernel.
  mutable DenseMap<std::pair<KernelInfo *, StringAttr>, int64_t> slots;
};

/// Workgroup memory lives as long as the block.
struct WorkgroupDeallocLowering : EmulationOpPattern<memref::DeallocOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(memref::DeallocOp op,
                                PatternRewriter &rewriter) const override {
    if (!isWorkgroupMemRef(op.getMemref().getType()))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

/// The block's workgroup memory after the static slots, sized at launch.
struct DynamicSharedMemoryLowering
    : EmulationOpPattern<gpu::DynamicSharedMemoryOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(gpu::DynamicSharedMemoryOp op,
                                PatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    b.setInsertionPoint(op);
    Location l = op.getLoc();
    auto type = cast<MemRefType>(op.getType());
    Type descType =
        emu.getTypeConverter().convertType(withoutMemorySpace(type));
    Value ptr = emu.function().entryPtr(EXT_EMU_DYNAMIC_SHARED_BASE);
    Value size =
        emu.call(b, l, EXT_EMU_DYNAMIC_SHARED_SIZE, {b.getI64Type()}, {});
    MemRefDescriptor desc = MemRefDescriptor::poison(b, l, descType);
    desc.setAllocatedPtr(b, l, ptr);
    desc.setAlignedPtr(b, l, ptr);
    desc.setConstantOffset(b, l, 0);
    desc.setSize(b, l, 0, size);
    desc.setConstantStride(b, l, 0, 1);
    rewriter.replaceOp(
        op, UnrealizedConversionCastOp::create(b, l, type, Value(desc))
                .getResult(0));
    return success();
  }
};

} // namespace

void ext::populateGPUAccessHookPatterns(RewritePatternSet &patterns,
                                        EmulationModule &emu) {
  patterns.add<
      WorkgroupAccessHook<memref::LoadOp>, WorkgroupAccessHook<memref::StoreOp>,
      WorkgroupAccessHook<vector::LoadOp>, WorkgroupAccessHook<vector::StoreOp>,
      AtomicRMWLowering<memref::AtomicRMWOp>,
      AtomicRMWLowering<memref::GenericAtomicRMWOp>, FenceHook,
      LLVMAtomicHook<LLVM::LoadOp>, LLVMAtomicHook<LLVM::StoreOp>,
      LLVMAtomicHook<LLVM::AtomicRMWOp>, WorkgroupViewNaming>(emu);
}

void ext::populateGPUWorkgroupMemoryPatterns(RewritePatternSet &patterns,
                                             EmulationModule &emu) {
  patterns.add<WorkgroupGlobalLowering, WorkgroupAllocLowering<memref::AllocOp>,
               WorkgroupAllocLowering<memref::AllocaOp>,
               WorkgroupDeallocLowering, DynamicSharedMemoryLowering>(emu);
}
