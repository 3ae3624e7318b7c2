//===- LaunchToEmulation.cpp - host gpu ops on the CPU emulator -----------===//
//
// On the host, `gpu.launch_func` calls __ext_emu_launch with the grid, the
// kernel's trampoline, its packed arguments and what race reports need to
// name buffers and source locations; memory ops become memref code, and
// registration and stream ops go: host memory is device memory and every op
// is synchronous.
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

/// Erases a host gpu op once rewritten; its async tokens must be unused
/// (their users, rewritten before it, are gone).
LogicalResult eraseSynchronousOp(PatternRewriter &rewriter, Operation *op) {
  for (Value result : op->getResults()) {
    if (!isa<gpu::AsyncTokenType>(result.getType()))
      continue;
    if (!result.use_empty())
      return op->emitOpError("produces an async token used by '")
             << (*result.getUsers().begin())->getName()
             << "'; the CPU emulation runs gpu ops synchronously and "
                "cannot pass tokens through it";
  }
  op->dropAllUses();
  rewriter.eraseOp(op);
  return success();
}

struct LaunchFuncLowering : EmulationOpPattern<gpu::LaunchFuncOp> {
  using EmulationOpPattern::EmulationOpPattern;

  LogicalResult matchAndRewrite(gpu::LaunchFuncOp launch,
                                PatternRewriter &rewriter) const override {
    Location loc = launch.getLoc();
    if (launch.getAsyncObject())
      return launch.emitOpError("on a stream object is not supported by the "
                                "CPU emulation");
    if (launch.hasClusterSize())
      return launch.emitOpError("with thread block clusters is not "
                                "supported by the CPU emulation");
    KernelInfo *kernel = emu.lookupKernel(launch.getKernelModuleName(),
                                          launch.getKernelName());
    if (!kernel)
      return launch.emitOpError("launches '")
             << launch.getKernel() << "', which is not a gpu.func kernel of "
             << "this module";

    OpBuilder &b = rewriter;
    b.setInsertionPoint(launch);
    Type ptrType = emu.ptrType();
    // Argument slots live in the enclosing function's entry block, so a
    // launch in a loop does not grow the stack.
    auto parent = launch->getParentOfType<FunctionOpInterface>();
    OpBuilder entry(emu.getContext());
    if (parent && !parent.getFunctionBody().empty())
      entry.setInsertionPointToStart(&parent.getFunctionBody().front());
    else
      entry.setInsertionPoint(launch);
    Value one = LLVM::ConstantOp::create(entry, loc, entry.getI64Type(),
                                         entry.getI64IntegerAttr(1));
    ValueRange operands = launch.getKernelOperands();
    Value count = LLVM::ConstantOp::create(
        entry, loc, entry.getI64Type(),
        entry.getI64IntegerAttr(std::max<int64_t>(1, operands.size())));
    Value array = LLVM::AllocaOp::create(entry, loc, ptrType, ptrType, count);
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
    }

    auto asIndex = [&](Value v) -> Value {
      if (v.getType().isIndex())
        return v;
      return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
    };
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
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
        bufferRanges};
    emu.call(b, loc, EXT_EMU_LAUNCH, {}, args);
    return eraseSynchronousOp(rewriter, launch);
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

struct AllocLowering : OpRewritePattern<gpu::AllocOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(gpu::AllocOp alloc,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(alloc);
    Value m = memref::AllocOp::create(
        rewriter, alloc.getLoc(), alloc.getMemref().getType(),
        alloc.getDynamicSizes(), alloc.getSymbolOperands());
    rewriter.replaceAllUsesWith(alloc.getMemref(), m);
    return eraseSynchronousOp(rewriter, alloc);
  }
};

struct DeallocLowering : OpRewritePattern<gpu::DeallocOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(gpu::DeallocOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(op);
    memref::DeallocOp::create(rewriter, op.getLoc(), op.getMemref());
    return eraseSynchronousOp(rewriter, op);
  }
};

struct MemcpyLowering : OpRewritePattern<gpu::MemcpyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(gpu::MemcpyOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(op);
    memref::CopyOp::create(rewriter, op.getLoc(), op.getSrc(), op.getDst());
    return eraseSynchronousOp(rewriter, op);
  }
};

/// A loop nest storing the value: works for any layout.
struct MemsetLowering : OpRewritePattern<gpu::MemsetOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(gpu::MemsetOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dst = op.getDst();
    auto type = cast<MemRefType>(dst.getType());
    SmallVector<Value> ivs;
    OpBuilder lb(op);
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value size = memref::DimOp::create(lb, loc, dst, d);
      auto loop = scf::ForOp::create(lb, loc, emuIndexConst(lb, loc, 0), size,
                                     emuIndexConst(lb, loc, 1));
      ivs.push_back(loop.getInductionVar());
      lb.setInsertionPoint(loop.getBody()->getTerminator());
    }
    memref::StoreOp::create(lb, loc, op.getValue(), dst, ivs);
    return eraseSynchronousOp(rewriter, op);
  }
};

/// Host memory is device memory and every op is synchronous.
template <typename Op>
struct SynchronousNoOp : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    return eraseSynchronousOp(rewriter, op);
  }
};

} // namespace

void ext::populateGPUHostToEmulationPatterns(RewritePatternSet &patterns,
                                             EmulationModule &emu) {
  patterns.add<LaunchFuncLowering>(emu);
  patterns.add<LaunchRejection, AllocLowering, DeallocLowering,
               MemcpyLowering, MemsetLowering,
               SynchronousNoOp<gpu::HostRegisterOp>,
               SynchronousNoOp<gpu::HostUnregisterOp>,
               SynchronousNoOp<gpu::WaitOp>,
               SynchronousNoOp<gpu::SetDefaultDeviceOp>>(emu.getContext());
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
