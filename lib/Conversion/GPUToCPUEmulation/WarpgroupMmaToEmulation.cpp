//===- WarpgroupMmaToEmulation.cpp - sm_90 wgmma on the CPU ---------------===//
//
// nvvm.wgmma.fence.aligned, nvvm.wgmma.mma_async, nvvm.wgmma.commit.group
// and nvvm.wgmma.wait.group become calls of the runtime
// (runtime/cpu/WarpgroupMma.cpp), which decodes the matrix descriptors and
// computes the thread's accumulators with the hardware's layouts. The
// accumulator struct goes through a private f32 buffer, allocated once at
// the function's entry.
//
// nvgpu's warpgroup ops reach them through upstream's lowering to NVVM (the
// patterns of convert-nvgpu-to-nvvm, which ext-gpu-pipeline runs too), so
// the emulator runs the descriptors and wgmma sequence a GPU gets.
//
//===----------------------------------------------------------------------===//

#include "EmulationPatterns.h"
#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Runtime/CpuEmulationABI.h"
#include "ext/Runtime/CpuEmulationMatrixABI.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace ext;
using namespace ext::emu;

namespace {

/// wgmma.wait_group: the runtime retires the thread's groups but the
/// newest `group` (fence and commit pass their site only).
struct WgmmaWaitLowering : RuntimeCallLowering<NVVM::WgmmaWaitGroupSyncOp> {
  WgmmaWaitLowering(EmulationModule &emu)
      : RuntimeCallLowering(emu, EXT_EMU_WGMMA_WAIT) {}
  FailureOr<SmallVector<Value>> arguments(NVVM::WgmmaWaitGroupSyncOp op,
                                          OpBuilder &b) const override {
    return SmallVector<Value>{
        site(b, op), emuI32Const(b, op.getLoc(), int32_t(op.getGroup()))};
  }
};

/// setmaxnreg: a call that checks the warpgroup executes it as PTX asks.
struct SetMaxRegisterLowering : RuntimeCallLowering<NVVM::SetMaxRegisterOp> {
  SetMaxRegisterLowering(EmulationModule &emu)
      : RuntimeCallLowering(emu, EXT_EMU_SETMAXNREG) {}
  FailureOr<SmallVector<Value>> arguments(NVVM::SetMaxRegisterOp op,
                                          OpBuilder &b) const override {
    Location l = op.getLoc();
    bool increase = op.getAction() == NVVM::SetMaxRegisterAction::increase;
    return SmallVector<Value>{site(b, op),
                              emuI32Const(b, l, int32_t(op.getRegCount())),
                              emuI32Const(b, l, increase ? 1 : 0)};
  }
};

struct WgmmaMmaAsyncLowering : EmulationOpPattern<NVVM::WgmmaMmaAsyncOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(NVVM::WgmmaMmaAsyncOp op,
                                PatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    NVVM::MMAShapeAttr shape = op.getShape();
    auto structType = cast<LLVM::LLVMStructType>(op.getInouts().getType());
    NVVM::WGMMATypes a = op.getTypeA(), b = op.getTypeB(), d = op.getTypeD();
    std::optional<WarpgroupMmaKind> kind;
    if (d == NVVM::WGMMATypes::f32 && a == b) {
      if (a == NVVM::WGMMATypes::f16 && shape.getK() == 16)
        kind = EXT_EMU_WGMMA_F16_F32;
      else if (a == NVVM::WGMMATypes::bf16 && shape.getK() == 16)
        kind = EXT_EMU_WGMMA_BF16_F32;
      else if (a == NVVM::WGMMATypes::tf32 && shape.getK() == 8)
        kind = EXT_EMU_WGMMA_TF32_F32;
    }
    int64_t n = shape.getN();
    bool f32Registers =
        int64_t(structType.getBody().size()) == n / 2 &&
        llvm::all_of(structType.getBody(), [](Type t) { return t.isF32(); });
    // Upstream's lowering asks for `wrapped` integer overflow, which floats
    // ignore.
    bool satfinite = op.getSatfinite() == NVVM::MMAIntOverflow::satfinite;
    if (!kind || shape.getM() != 64 || !f32Registers || satfinite)
      return op.emitOpError("of shape m")
             << shape.getM() << "n" << n << "k" << shape.getK() << " with "
             << stringifyWGMMATypes(a) << "/" << stringifyWGMMATypes(b)
             << " inputs and " << stringifyWGMMATypes(d)
             << " accumulators is not supported by the CPU emulation (f16 "
                "and bf16 k16, tf32 k8, f32 accumulators)";

    int32_t flags = 0;
    if (op.getLayoutA() == NVVM::MMALayout::col)
      flags |= EXT_EMU_WGMMA_TRANS_A; // M-major A
    if (op.getLayoutB() == NVVM::MMALayout::row)
      flags |= EXT_EMU_WGMMA_TRANS_B; // N-major B
    if (op.getScaleD() == NVVM::WGMMAScaleOut::one)
      flags |= EXT_EMU_WGMMA_ACCUMULATE;
    if (op.getScaleA() == NVVM::WGMMAScaleIn::neg)
      flags |= EXT_EMU_WGMMA_NEGATE_A;
    if (op.getScaleB() == NVVM::WGMMAScaleIn::neg)
      flags |= EXT_EMU_WGMMA_NEGATE_B;

    // The accumulators in a private buffer, allocated at the entry.
    EmulationFunction &fn = emu.function();
    Value buffer;
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&fn.getFunc().getBody().front());
      buffer = memref::AllocaOp::create(
          rewriter, l, MemRefType::get({n / 2}, rewriter.getF32Type()),
          ValueRange{}, rewriter.getI64IntegerAttr(16));
    }
    rewriter.setInsertionPoint(op);
    for (int64_t i = 0; i < n / 2; ++i) {
      Value x = LLVM::ExtractValueOp::create(rewriter, l, op.getInouts(), i);
      memref::StoreOp::create(rewriter, l, x, buffer,
                              emuIndexConst(rewriter, l, i));
    }
    Value address = arith::IndexCastOp::create(
        rewriter, l, rewriter.getI64Type(),
        memref::ExtractAlignedPointerAsIndexOp::create(rewriter, l, buffer));
    emu.call(rewriter, l, EXT_EMU_WGMMA, {},
             {fn.site(rewriter, op), op.getDescriptorA(), op.getDescriptorB(),
              emuI32Const(rewriter, l, *kind),
              emuI32Const(rewriter, l, int32_t(n)),
              emuI32Const(rewriter, l, flags), address});
    Value result = LLVM::PoisonOp::create(rewriter, l, structType);
    for (int64_t i = 0; i < n / 2; ++i) {
      Value x = memref::LoadOp::create(rewriter, l, buffer,
                                       emuIndexConst(rewriter, l, i));
      result = LLVM::InsertValueOp::create(rewriter, l, result, x, i);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A per-thread accumulator: one struct of N/2 f32 per 64-row block, as
/// convert-nvgpu-to-nvvm converts it (in the pass, not its patterns).
Type accumulatorStruct(nvgpu::WarpgroupAccumulatorType type) {
  VectorType frag = type.getFragmented();
  MLIRContext *ctx = type.getContext();
  int64_t m = frag.getDimSize(0), n = frag.getDimSize(1);
  Type block = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(n / 2, Float32Type::get(ctx)));
  return LLVM::LLVMStructType::getLiteral(ctx,
                                          SmallVector<Type>(m / 64, block));
}

/// nvgpu's warpgroup types as the NVVM ops carry them.
void addWarpgroupTypeConversions(TypeConverter &types) {
  types.addConversion([](nvgpu::WarpgroupAccumulatorType t) -> Type {
    return accumulatorStruct(t);
  });
  types.addConversion([](nvgpu::WarpgroupMatrixDescriptorType t) -> Type {
    return IntegerType::get(t.getContext(), 64);
  });
}

} // namespace

LogicalResult ext::lowerNVGPUWarpgroupOps(Operation *func) {
  // The emulator's wgmma runs f32 accumulators only: refuse others here,
  // in nvgpu's terms, before their structs take another shape.
  bool any = false;
  WalkResult unsupported = func->walk([&](Operation *op) {
    if (!isa<nvgpu::WarpgroupMmaOp, nvgpu::WarpgroupMmaStoreOp,
             nvgpu::WarpgroupMmaInitAccumulatorOp,
             nvgpu::WarpgroupGenerateDescriptorOp>(op))
      return WalkResult::advance();
    any = true;
    SmallVector<Type> types(op->getOperandTypes());
    llvm::append_range(types, op->getResultTypes());
    for (Type t : types) {
      auto acc = dyn_cast<nvgpu::WarpgroupAccumulatorType>(t);
      if (acc && !acc.getFragmented().getElementType().isF32()) {
        op->emitOpError("with ")
            << acc << " is not supported by the CPU emulation (f32 "
            << "accumulators)";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  if (unsupported.wasInterrupted())
    return failure();
  if (!any)
    return success();
  MLIRContext *ctx = func->getContext();
  // Upstream's patterns, whose generate.descriptor reads the operand's LLVM
  // memref descriptor: its pointer in address space 0, the CPU's one, as the
  // memref will be once the emulation strips memory spaces.
  LLVMTypeConverter llvmTypes(ctx);
  llvmTypes.addTypeAttributeConversion(
      [](BaseMemRefType,
         Attribute) -> TypeConverter::AttributeConversionResult {
        return Attribute();
      });
  addWarpgroupTypeConversions(llvmTypes);
  // generate.descriptor reads only its map's type (the emulation's maps are
  // addresses in casts, which the TMA patterns look through).
  llvmTypes.addConversion([](nvgpu::TensorMapDescriptorType t) -> Type {
    return LLVM::LLVMPointerType::get(t.getContext());
  });
  RewritePatternSet patterns(ctx);
  populateNVGPUToNVVMConversionPatterns(llvmTypes, patterns);

  // scf ops carrying accumulators are converted with them, nothing else.
  TypeConverter carried;
  carried.addConversion([](Type t) { return t; });
  addWarpgroupTypeConversions(carried);
  auto materialize = [](OpBuilder &b, Type type, ValueRange inputs,
                        Location l) -> Value {
    return UnrealizedConversionCastOp::create(b, l, type, inputs).getResult(0);
  };
  carried.addSourceMaterialization(materialize);
  carried.addTargetMaterialization(materialize);
  ConversionTarget target(*ctx);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addIllegalOp<nvgpu::WarpgroupMmaOp, nvgpu::WarpgroupMmaStoreOp,
                      nvgpu::WarpgroupMmaInitAccumulatorOp,
                      nvgpu::WarpgroupGenerateDescriptorOp>();
  scf::populateSCFStructuralTypeConversionsAndLegality(carried, patterns,
                                                       target);
  // mma.store's lowering reads %tid.x, which the emulation runs as
  // gpu.thread_id (the kernel's own NVVM registers stay refused).
  DenseSet<Operation *> kernelRegisters;
  func->walk([&](NVVM::ThreadIdXOp op) { kernelRegisters.insert(op); });
  if (failed(applyPartialConversion(func, target, std::move(patterns))))
    return failure();
  SmallVector<NVVM::ThreadIdXOp> registers;
  func->walk([&](NVVM::ThreadIdXOp op) {
    if (!kernelRegisters.contains(op))
      registers.push_back(op);
  });
  for (NVVM::ThreadIdXOp op : registers) {
    OpBuilder b(op);
    Value x = gpu::ThreadIdOp::create(b, op.getLoc(), gpu::Dimension::x);
    op.replaceAllUsesWith(
        arith::IndexCastOp::create(b, op.getLoc(), op.getType(), x)
            .getResult());
    op.erase();
  }
  return success();
}

void ext::populateNVVMWarpgroupMmaToEmulationPatterns(
    RewritePatternSet &patterns, EmulationModule &emu) {
  patterns.add<RuntimeCallLowering<NVVM::WgmmaFenceAlignedOp>>(
      emu, EXT_EMU_WGMMA_FENCE);
  patterns.add<RuntimeCallLowering<NVVM::WgmmaGroupSyncAlignedOp>>(
      emu, EXT_EMU_WGMMA_COMMIT);
  patterns
      .add<WgmmaWaitLowering, WgmmaMmaAsyncLowering, SetMaxRegisterLowering>(
          emu);
}
