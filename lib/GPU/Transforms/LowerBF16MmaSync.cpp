//===- LowerBF16MmaSync.cpp - bf16 nvgpu.mma.sync to nvvm.mma.sync --------===//
//
// convert-nvgpu-to-nvvm leaves bf16 mma.sync unconverted; NVVM has it. The
// rewrite works on vectors before the LLVM conversion: operand rows of two
// bf16 become i32 registers, accumulators scalars.
//
//===----------------------------------------------------------------------===//

#include "ext/GPU/Transforms/Passes.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPULOWERBF16MMASYNC
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {

/// The rows of `v` (vector<Rx2xbf16>) as i32 registers.
SmallVector<Value> packedRows(OpBuilder &b, Location loc, Value v) {
  auto type = cast<VectorType>(v.getType());
  auto i32x1 = VectorType::get({1}, b.getI32Type());
  SmallVector<Value> regs;
  for (int64_t r = 0; r < type.getDimSize(0); ++r) {
    Value row = vector::ExtractOp::create(b, loc, v, r);
    Value packed = vector::BitCastOp::create(b, loc, i32x1, row);
    regs.push_back(vector::ExtractOp::create(b, loc, packed, 0));
  }
  return regs;
}

LogicalResult lower(nvgpu::MmaSyncOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto cType = cast<VectorType>(op.getMatrixC().getType());
  if (ArrayRef<int64_t>(op.getMmaShapeAsArray()) != ArrayRef<int64_t>{16, 8, 16} ||
      cType.getShape() != ArrayRef<int64_t>{2, 2} ||
      !cType.getElementType().isF32())
    return op.emitOpError("with bf16 operands is lowered for m16n8k16 with "
                          "vector<2x2xf32> accumulators only");
  SmallVector<Value> c;
  for (int64_t i = 0; i < 4; ++i)
    c.push_back(vector::ExtractOp::create(b, loc, op.getMatrixC(),
                                          ArrayRef<int64_t>{i / 2, i % 2}));
  Type f32 = b.getF32Type();
  auto result = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                 {f32, f32, f32, f32});
  auto mma = NVVM::MmaOp::create(
      b, loc, result, packedRows(b, loc, op.getMatrixA()),
      packedRows(b, loc, op.getMatrixB()), c, {16, 8, 16}, std::nullopt,
      std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                    NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> d;
  for (int64_t i = 0; i < 4; ++i)
    d.push_back(LLVM::ExtractValueOp::create(b, loc, mma, i));
  op.replaceAllUsesWith(
      vector::FromElementsOp::create(b, loc, cType, d).getResult());
  op.erase();
  return success();
}

struct ExtGPULowerBF16MmaSyncPass
    : ext::impl::ExtGPULowerBF16MmaSyncBase<ExtGPULowerBF16MmaSyncPass> {
  void runOnOperation() override {
    SmallVector<nvgpu::MmaSyncOp> ops;
    getOperation()->walk([&](nvgpu::MmaSyncOp op) {
      if (cast<VectorType>(op.getMatrixA().getType()).getElementType().isBF16())
        ops.push_back(op);
    });
    for (nvgpu::MmaSyncOp op : ops)
      if (failed(lower(op)))
        return signalPassFailure();
  }
};

} // namespace
