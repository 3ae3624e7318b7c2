//===- LaunchToEmulation.cpp - host gpu ops on the CPU emulator -----------===//
//
// On the host, `gpu.launch_func` calls __ext_emu_launch with the grid (and
// its thread block clusters, 1x1x1 without), the kernel's trampoline, its
// packed arguments and what race reports need to name buffers and source
// locations; memory ops become memref code, and registration goes: host
// memory is device memory.
//
// Async tokens are the runtime's events (an `!llvm.ptr`): `launch_func
// async` starts its grid after its dependencies and returns at once (grids
// on different streams run together), `gpu.wait async` joins tokens,
// `gpu.wait` waits for them; other ops wait for their dependencies, then
// run on the host, and their tokens are done ones (null). Host ops are
// rewritten in program order: a token's producer is rewritten before its
// users, which read the event through an unrealized cast.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace ext;
using namespace ext::emu;

namespace {

/// Converts a packed argument (an LLVM value) to the kernel's type, or back.
Value fromLLVM(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  if (type.isIndex())
    return arith::IndexCastOp::create(b, loc, type, v);
  return UnrealizedConversionCastOp::create(b, loc, type, v).getResult(0);
}
Value toLLVM(OpBuilder &b, Location loc, Value v, Type llvmType) {
  if (v.getType() == llvmType)
    return v;
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, llvmType, v);
  return UnrealizedConversionCastOp::create(b, loc, llvmType, v).getResult(0);
}

Type packedType(const LLVMTypeConverter &converter, Type type) {
  if (auto memref = dyn_cast<MemRefType>(type))
    type = withoutMemorySpace(memref);
  if (auto unranked = dyn_cast<UnrankedMemRefType>(type))
    type = UnrankedMemRefType::get(unranked.getElementType(), Attribute());
  return converter.convertType(type);
}

/// A builder at the start of the entry block of `op`'s function: slots
/// allocated there do not grow the stack when `op` sits in a loop.
OpBuilder entryBuilder(Operation *op) {
  auto parent = op->getParentOfType<FunctionOpInterface>();
  OpBuilder entry(op->getContext());
  if (parent && !parent.getFunctionBody().empty())
    entry.setInsertionPointToStart(&parent.getFunctionBody().front());
  else
    entry.setInsertionPoint(op);
  return entry;
}

/// The runtime event an async token stands for: the pointer its rewritten
/// producer left behind an unrealized cast.
FailureOr<Value> tokenEvent(Operation *user, Value token) {
  auto cast = token.getDefiningOp<UnrealizedConversionCastOp>();
  if (cast && cast.getInputs().size() == 1 &&
      isa<LLVM::LLVMPointerType>(cast.getInputs()[0].getType()))
    return cast.getInputs()[0];
  return user->emitOpError("depends on an async token the CPU emulation "
                           "cannot follow (it comes from ")
         << (isa<BlockArgument>(token) ? "a block argument"
                                       : "an op it does not run")
         << "); pass tokens directly from gpu op to gpu op";
}

/// An `!llvm.ptr` array of `op`'s dependencies' events (its slot in the
/// entry block) and their count, or failure.
FailureOr<std::pair<Value, Value>> dependencyArray(EmulationModule &emu,
                                                   OpBuilder &b,
                                                   Operation *op) {
  Location loc = op->getLoc();
  auto async = dyn_cast<gpu::AsyncOpInterface>(op);
  SmallVector<Value> events;
  if (async)
    for (Value dep : async.getAsyncDependencies()) {
      FailureOr<Value> event = tokenEvent(op, dep);
      if (failed(event))
        return failure();
      events.push_back(*event);
    }
  Type ptrType = emu.ptrType();
  OpBuilder entry = entryBuilder(op);
  Value count = LLVM::ConstantOp::create(
      entry, loc, entry.getI64Type(),
      entry.getI64IntegerAttr(std::max<size_t>(1, events.size())));
  Value array = LLVM::AllocaOp::create(entry, loc, ptrType, ptrType, count);
  for (auto [i, event] : llvm::enumerate(events)) {
    Value element = LLVM::GEPOp::create(b, loc, ptrType, ptrType, array,
                                        ArrayRef<LLVM::GEPArg>{int32_t(i)});
    LLVM::StoreOp::create(b, loc, event, element);
  }
  return std::make_pair(array, emuIndexConst(b, loc, events.size()));
}

/// Waits (on the host) for what `op` depends on.
LogicalResult waitForDependencies(EmulationModule &emu, OpBuilder &b,
                                  Operation *op) {
  auto async = dyn_cast<gpu::AsyncOpInterface>(op);
  if (!async || async.getAsyncDependencies().empty())
    return success();
  auto deps = dependencyArray(emu, b, op);
  if (failed(deps))
    return failure();
  emu.call(b, op->getLoc(), EXT_EMU_WAIT, {}, {deps->first, deps->second});
  return success();
}

/// Erases a host gpu op once rewritten; its async token, if any, becomes
/// `event` (null: done) behind an unrealized cast its users read.
void eraseHostOp(PatternRewriter &rewriter, Operation *op,
                 Value event = Value()) {
  for (Value result : op->getResults()) {
    if (!isa<gpu::AsyncTokenType>(result.getType()) || result.use_empty())
      continue;
    rewriter.setInsertionPoint(op);
    if (!event)
      event = LLVM::ZeroOp::create(rewriter, op->getLoc(),
                                   LLVM::LLVMPointerType::get(
                                       rewriter.getContext()));
    Value token = UnrealizedConversionCastOp::create(
                      rewriter, op->getLoc(), result.getType(), event)
                      .getResult(0);
    rewriter.replaceAllUsesWith(result, token);
  }
  op->dropAllUses();
  rewriter.eraseOp(op);
}

struct LaunchFuncLowering : EmulationOpPattern<gpu::LaunchFuncOp> {
  using EmulationOpPattern::EmulationOpPattern;

  LogicalResult matchAndRewrite(gpu::LaunchFuncOp launch,
                                PatternRewriter &rewriter) const override {
    Location loc = launch.getLoc();
    if (launch.getAsyncObject())
      return launch.emitOpError("on a stream object is not supported by the "
                                "CPU emulation");
    KernelInfo *kernel = emu.lookupKernel(launch.getKernelModuleName(),
                                          launch.getKernelName());
    if (!kernel)
      return launch.emitOpError("launches '")
             << launch.getKernel() << "', which is not a gpu.func kernel of "
             << "this module";

    OpBuilder &b = rewriter;
    b.setInsertionPoint(launch);
    Type ptrType = emu.ptrType();
    OpBuilder entry = entryBuilder(launch);
    Value one = LLVM::ConstantOp::create(entry, loc, entry.getI64Type(),
                                         entry.getI64IntegerAttr(1));
    ValueRange operands = launch.getKernelOperands();
    Value count = LLVM::ConstantOp::create(
        entry, loc, entry.getI64Type(),
        entry.getI64IntegerAttr(std::max<int64_t>(1, operands.size())));
    Value array = LLVM::AllocaOp::create(entry, loc, ptrType, ptrType, count);
    // Each argument's size: an asynchronous launch copies the values.
    Value sizes = LLVM::AllocaOp::create(entry, loc, ptrType,
                                         entry.getI64Type(), count);
    DataLayout layout = DataLayout::closest(launch);
    for (auto [i, operand] : llvm::enumerate(operands)) {
      Type llvmType = packedType(emu.getTypeConverter(), operand.getType());
      if (!llvmType)
        return launch.emitOpError("argument ")
               << i << " of type " << operand.getType()
               << " cannot be passed by the CPU emulation";
      Value slot = LLVM::AllocaOp::create(entry, loc, ptrType, llvmType, one);
      LLVM::StoreOp::create(b, loc, toLLVM(b, loc, operand, llvmType), slot);
      Value element = LLVM::GEPOp::create(b, loc, ptrType, ptrType, array,
                                          ArrayRef<LLVM::GEPArg>{int32_t(i)});
      LLVM::StoreOp::create(b, loc, slot, element);
      Value size = LLVM::GEPOp::create(b, loc, ptrType, b.getI64Type(), sizes,
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
      LLVM::StoreOp::create(
          b, loc,
          LLVM::ConstantOp::create(
              b, loc, b.getI64Type(),
              b.getI64IntegerAttr(layout.getTypeSize(llvmType))),
          size);
    }
    auto deps = dependencyArray(emu, b, launch);
    if (failed(deps))
      return failure();
    bool async = launch.getAsyncToken() != nullptr;

    auto asIndex = [&](Value v) -> Value {
      if (v.getType().isIndex())
        return v;
      return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
    };
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    // Without clusters, each block is a cluster of its own.
    Value unit = emuIndexConst(b, loc, 1);
    gpu::KernelDim3 cluster = launch.hasClusterSize()
                                  ? launch.getClusterSizeOperandValues()
                                  : gpu::KernelDim3{unit, unit, unit};
    Value dynamicShared = launch.getDynamicSharedMemorySize()
                              ? asIndex(launch.getDynamicSharedMemorySize())
                              : emuIndexConst(b, loc, 0);
    Value fn = func::ConstantOp::create(
        b, loc, kernel->trampoline.getFunctionType(),
        FlatSymbolRefAttr::get(kernel->trampoline.getSymNameAttr()));
    auto [bufferNames, bufferCount, bufferRanges] =
        describeBuffers(b, entry, loc, *kernel, operands);
    std::string sites = kernel->sites->blob();
    SmallVector<Value> args = {
        emu.stringPtr(b, loc, "__ext_emu_kernel_name", kernel->displayName),
        emu.stringPtr(b, loc, "__ext_emu_launch_site",
                      emulationLocationString(loc)),
        emu.stringPtr(b, loc, "__ext_emu_sites", sites),
        emuIndexConst(b, loc, kernel->sites->entries.size()),
        fn,
        array,
        emuIndexConst(b, loc, operands.size()),
        sizes,
        asIndex(grid.x),
        asIndex(grid.y),
        asIndex(grid.z),
        asIndex(block.x),
        asIndex(block.y),
        asIndex(block.z),
        emuIndexConst(b, loc, kernel->staticShared),
        dynamicShared,
        bufferNames,
        bufferCount,
        bufferRanges,
        deps->first,
        deps->second,
        arith::ConstantIntOp::create(b, loc, async ? 1 : 0, 32),
        asIndex(cluster.x),
        asIndex(cluster.y),
        asIndex(cluster.z)};
    Value event = emu.call(b, loc, EXT_EMU_LAUNCH, {ptrType}, args);
    eraseHostOp(rewriter, launch, event);
    return success();
  }

  /// The buffer names, their count and their (space, start, bytes) array
  /// for __ext_emu_launch (the array's slot allocated in `entry`).
  std::tuple<Value, Value, Value>
  describeBuffers(OpBuilder &b, OpBuilder &entry, Location loc,
                  const KernelInfo &kernel, ValueRange operands) const {
    Type ptrType = emu.ptrType();
    std::string names;
    SmallVector<std::array<Value, 3>> ranges;
    auto i64 = [&](Value index) {
      return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
    };
    auto constant = [&](int64_t v) -> Value {
      return LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                      b.getI64IntegerAttr(v));
    };
    for (const WorkgroupBuffer &buffer : kernel.workgroupBuffers) {
      names += buffer.name;
      names.push_back('\0');
      ranges.push_back({constant(EXT_EMU_BUFFER_WORKGROUP),
                        constant(buffer.offset), constant(buffer.bytes)});
    }
    // The private memory each thread keeps on its stack, which the launch
    // sizes by it.
    if (kernel.privateBytes > 0) {
      names += "private memory of @" + kernel.displayName + " (per thread)";
      names.push_back('\0');
      ranges.push_back({constant(EXT_EMU_BUFFER_PRIVATE), constant(0),
                        constant(kernel.privateBytes)});
    }
    for (auto [i, operand] : llvm::enumerate(operands)) {
      auto type = dyn_cast<MemRefType>(operand.getType());
      if (!type)
        continue;
      func::FuncOp func = kernel.func;
      Location argLoc =
          i < func.getNumArguments() ? func.getArgument(i).getLoc() : loc;
      names += emulationBufferName("argument " + Twine(i) + " of @" +
                                       kernel.displayName,
                                   withoutMemorySpace(type), argLoc);
      names.push_back('\0');
      auto [start, bytes] = emitMemRefExtent(
          b, loc, operand, emu.byteSize(type.getElementType()));
      ranges.push_back(
          {constant(EXT_EMU_BUFFER_GLOBAL), i64(start), i64(bytes)});
    }
    Value count = LLVM::ConstantOp::create(
        entry, loc, entry.getI64Type(),
        entry.getI64IntegerAttr(std::max<size_t>(1, 3 * ranges.size())));
    Value array =
        LLVM::AllocaOp::create(entry, loc, ptrType, entry.getI64Type(), count);
    for (auto [i, range] : llvm::enumerate(ranges))
      for (auto [j, value] : llvm::enumerate(range)) {
        Value element =
            LLVM::GEPOp::create(b, loc, ptrType, b.getI64Type(), array,
                                ArrayRef<LLVM::GEPArg>{int32_t(3 * i + j)});
        LLVM::StoreOp::create(b, loc, value, element);
      }
    return {emu.stringPtr(b, loc, "__ext_emu_buffers", names),
            emuIndexConst(b, loc, ranges.size()), array};
  }
};

struct LaunchRejection : OpRewritePattern<gpu::LaunchOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(gpu::LaunchOp op,
                                PatternRewriter &) const override {
    return op.emitOpError("must be outlined first: run gpu-kernel-outlining "
                          "before ext-gpu-to-cpu-emulation");
  }
};

struct AllocLowering : EmulationOpPattern<gpu::AllocOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(gpu::AllocOp alloc,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(alloc);
    if (failed(waitForDependencies(emu, rewriter, alloc)))
      return failure();
    Value m = memref::AllocOp::create(
        rewriter, alloc.getLoc(), alloc.getMemref().getType(),
        alloc.getDynamicSizes(), alloc.getSymbolOperands());
    rewriter.replaceAllUsesWith(alloc.getMemref(), m);
    eraseHostOp(rewriter, alloc);
    return success();
  }
};

struct DeallocLowering : EmulationOpPattern<gpu::DeallocOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(gpu::DeallocOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(op);
    if (failed(waitForDependencies(emu, rewriter, op)))
      return failure();
    memref::DeallocOp::create(rewriter, op.getLoc(), op.getMemref());
    eraseHostOp(rewriter, op);
    return success();
  }
};

struct MemcpyLowering : EmulationOpPattern<gpu::MemcpyOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(gpu::MemcpyOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(op);
    if (failed(waitForDependencies(emu, rewriter, op)))
      return failure();
    memref::CopyOp::create(rewriter, op.getLoc(), op.getSrc(), op.getDst());
    eraseHostOp(rewriter, op);
    return success();
  }
};

/// A loop nest storing the value: works for any layout.
struct MemsetLowering : EmulationOpPattern<gpu::MemsetOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(gpu::MemsetOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dst = op.getDst();
    auto type = cast<MemRefType>(dst.getType());
    SmallVector<Value> ivs;
    rewriter.setInsertionPoint(op);
    if (failed(waitForDependencies(emu, rewriter, op)))
      return failure();
    OpBuilder lb(op);
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value size = memref::DimOp::create(lb, loc, dst, d);
      auto loop = scf::ForOp::create(lb, loc, emuIndexConst(lb, loc, 0), size,
                                     emuIndexConst(lb, loc, 1));
      ivs.push_back(loop.getInductionVar());
      lb.setInsertionPoint(loop.getBody()->getTerminator());
    }
    memref::StoreOp::create(lb, loc, op.getValue(), dst, ivs);
    eraseHostOp(rewriter, op);
    return success();
  }
};

/// `gpu.wait async [deps]` joins its tokens; `gpu.wait [deps]` waits for
/// them (with none, for every grid in flight).
struct WaitLowering : EmulationOpPattern<gpu::WaitOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(gpu::WaitOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(op);
    auto deps = dependencyArray(emu, rewriter, op);
    if (failed(deps))
      return failure();
    if (!op.getAsyncToken()) {
      emu.call(rewriter, op.getLoc(), EXT_EMU_WAIT, {},
               {deps->first, deps->second});
      eraseHostOp(rewriter, op);
      return success();
    }
    Value event = Value();
    if (!op.getAsyncDependencies().empty())
      event = emu.call(rewriter, op.getLoc(), EXT_EMU_JOIN, {emu.ptrType()},
                       {deps->first, deps->second});
    eraseHostOp(rewriter, op, event);
    return success();
  }
};

/// Host memory is device memory: registration only orders.
template <typename Op>
struct HostNoOp : EmulationOpPattern<Op> {
  using EmulationOpPattern<Op>::EmulationOpPattern;
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(op);
    if (failed(waitForDependencies(this->emu, rewriter, op)))
      return failure();
    eraseHostOp(rewriter, op);
    return success();
  }
};

} // namespace

void ext::populateGPUHostToEmulationPatterns(RewritePatternSet &patterns,
                                             EmulationModule &emu) {
  patterns.add<LaunchFuncLowering, AllocLowering, DeallocLowering,
               MemcpyLowering, MemsetLowering, WaitLowering,
               HostNoOp<gpu::HostRegisterOp>, HostNoOp<gpu::HostUnregisterOp>,
               HostNoOp<gpu::SetDefaultDeviceOp>>(emu);
  patterns.add<LaunchRejection>(emu.getContext());
}

LogicalResult ext::buildEmulationTrampoline(EmulationModule &emu,
                                            KernelInfo &kernel) {
  func::FuncOp func = kernel.func;
  Location loc = func.getLoc();
  Type ptrType = emu.ptrType();
  OpBuilder b(emu.getContext());
  b.setInsertionPointAfter(func);
  auto trampoline = func::FuncOp::create(
      b, loc, emu.uniqueName(func.getName().str() + "_emu_entry"),
      b.getFunctionType({ptrType}, {}));
  trampoline.setPrivate();
  emu.getSymbols().insert(trampoline);
  Block *body = trampoline.addEntryBlock();
  b.setInsertionPointToStart(body);
  Value args = body->getArgument(0);
  SmallVector<Value> operands;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    Type llvmType = packedType(emu.getTypeConverter(), type);
    if (!llvmType)
      return func.emitError() << "kernel argument " << i << " of type "
                              << type << " cannot be passed by the CPU "
                                         "emulation";
    Value slotAddr = LLVM::GEPOp::create(b, loc, ptrType, ptrType, args,
                                         ArrayRef<LLVM::GEPArg>{int32_t(i)});
    Value slot = LLVM::LoadOp::create(b, loc, ptrType, slotAddr);
    Value v = LLVM::LoadOp::create(b, loc, llvmType, slot);
    operands.push_back(fromLLVM(b, loc, v, type));
  }
  func::CallOp::create(b, loc, func, operands);
  func::ReturnOp::create(b, loc);
  kernel.trampoline = trampoline;
  return success();
}
