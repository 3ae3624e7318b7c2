//===- SubgroupMmaToLanes.cpp - gpu subgroup MMA ops, per lane ------------===//
//
// The gpu dialect's subgroup MMA ops work on an opaque `!gpu.mma_matrix`
// distributed over a warp in a way each target picks. For the CPU emulator
// this pass picks the distribution of NVIDIA's mma.sync m16n8k16 (so the
// compute is two nvgpu.mma.sync, which the emulator runs as warp
// collectives) and rewrites every fragment into the vector<4x2xT> a lane
// holds. With g = lane / 4 and t = lane % 4, element [r][j] of a lane's
// fragment is, of a 16x16 matrix:
//   AOp (m x k): (g + 8 * (r % 2), 2t + j + 8 * (r / 2))   (mma.sync's A)
//   BOp (k x n): (2t + j + 8 * (r % 2), g + 8 * (r / 2))   (B of n 0-7, 8-15)
//   COp (m x n): (g + 8 * (r % 2), 2t + j + 8 * (r / 2))   (C of n 0-7, 8-15)
// Loads and stores are per-lane memref accesses (racecheck sees them), the
// constant and elementwise ops are vector arithmetic.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace ext {
#define GEN_PASS_DEF_EXTSUBGROUPMMATOLANES
#include "ext/Conversion/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext;

namespace {

/// The fragments this distribution covers: 16x16 f16 operands, f16 or f32
/// accumulators.
bool isSupported(gpu::MMAMatrixType type) {
  if (type.getShape() != ArrayRef<int64_t>{16, 16})
    return false;
  Type e = type.getElementType();
  return e.isF16() || (e.isF32() && type.getOperand() == "COp");
}

/// Whether the conversion covers `op`; if not, says why on it.
bool isSupportedOp(Operation *op) {
  if (isa<gpu::SubgroupMmaExtractThreadLocalOp,
          gpu::SubgroupMmaInsertThreadLocalOp>(op)) {
    op->emitOpError("is not supported by the CPU emulation");
    return false;
  }
  if (auto compute = dyn_cast<gpu::SubgroupMmaComputeOp>(op)) {
    // Fragments here hold the matrix as loaded (a `transpose` load holds
    // its transpose); a_transpose/b_transpose name the layout the operand
    // was loaded in, which on a GPU the mma must be told (wmma.load.col
    // pairs with wmma.mma.col). A visible disagreement is a wrong result
    // there: refuse it.
    auto check = [&](Value operand, bool flagged, StringRef flag) {
      auto load = operand.getDefiningOp<gpu::SubgroupMmaLoadMatrixOp>();
      if (!load || load.getTranspose().has_value() == flagged)
        return true;
      InFlightDiagnostic diag = op->emitOpError();
      diag << (flagged ? "has " : "lacks ") << flag << " but its "
           << (flag == "a_transpose" ? "A" : "B") << " operand is loaded "
           << (flagged ? "without" : "with") << " `transpose`; the mma and "
           << "the load must name the same layout";
      diag.attachNote(load.getLoc()) << "loaded here";
      return false;
    };
    if (!check(compute.getOpA(), compute.getATranspose().has_value(),
               "a_transpose") ||
        !check(compute.getOpB(), compute.getBTranspose().has_value(),
               "b_transpose"))
      return false;
  }
  if (auto elementwise = dyn_cast<gpu::SubgroupMmaElementwiseOp>(op)) {
    using E = gpu::MMAElementwiseOp;
    E kind = elementwise.getOpType();
    if (!llvm::is_contained({E::ADDF, E::MULF, E::SUBF, E::MAXF, E::MINF,
                             E::DIVF, E::NEGATEF, E::EXTF},
                            kind)) {
      op->emitOpError("of kind ")
          << gpu::stringifyMMAElementwiseOp(kind)
          << " is not supported by the CPU emulation (its fragments are f16 "
             "or f32)";
      return false;
    }
  }
  return true;
}

VectorType laneFragmentType(gpu::MMAMatrixType type) {
  return VectorType::get({4, 2}, type.getElementType());
}

Value indexConst(OpBuilder &b, Location l, int64_t v) {
  return arith::ConstantIndexOp::create(b, l, v);
}

/// The matrix coordinates of element [r][j] of this lane's fragment of an
/// `operand` ("AOp", "BOp", "COp"; see the file comment).
std::pair<Value, Value> coordinates(OpBuilder &b, Location l, StringRef operand,
                                    Value g, Value t, int64_t r, int64_t j) {
  auto plus = [&](Value v, int64_t c) -> Value {
    return c ? Value(arith::AddIOp::create(b, l, v, indexConst(b, l, c))) : v;
  };
  Value t2 = arith::MulIOp::create(b, l, t, indexConst(b, l, 2));
  if (operand == "BOp")
    return {plus(t2, j + 8 * (r % 2)), plus(g, 8 * (r / 2))};
  return {plus(g, 8 * (r % 2)), plus(t2, j + 8 * (r / 2))};
}

/// A 1-D view of the memory `memref[indices]` starts at, and the offset of
/// element (row, col) of a fragment of leading dimension `ld` in it
/// (transposed: (col, row)).
struct FlatAccess {
  Value flat, base, ld;
  bool transpose;

  FlatAccess(OpBuilder &b, Location l, Value memref, ValueRange indices,
             int64_t leadDimension, bool transpose)
      : transpose(transpose) {
    auto type = cast<MemRefType>(memref.getType());
    auto meta = memref::ExtractStridedMetadataOp::create(b, l, memref);
    Value one = indexConst(b, l, 1);
    Value span = one;
    base = indexConst(b, l, 0);
    for (auto [index, size, stride] :
         llvm::zip(indices, meta.getSizes(), meta.getStrides())) {
      span = arith::AddIOp::create(
          b, l, span,
          arith::MulIOp::create(b, l, arith::SubIOp::create(b, l, size, one),
                                stride));
      base = arith::AddIOp::create(b, l, base,
                                   arith::MulIOp::create(b, l, index, stride));
    }
    auto flatType = MemRefType::get(
        {ShapedType::kDynamic}, type.getElementType(),
        StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, {1}),
        type.getMemorySpace());
    flat = memref::ReinterpretCastOp::create(
        b, l, flatType, meta.getBaseBuffer(), OpFoldResult(meta.getOffset()),
        ArrayRef<OpFoldResult>{span},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    ld = indexConst(b, l, leadDimension);
  }

  Value offset(OpBuilder &b, Location l, Value row, Value col) const {
    if (transpose)
      std::swap(row, col);
    return arith::AddIOp::create(
        b, l, base,
        arith::AddIOp::create(b, l, arith::MulIOp::create(b, l, row, ld), col));
  }
};

/// g = lane / 4 and t = lane % 4.
std::pair<Value, Value> laneGroup(OpBuilder &b, Location l) {
  Value lane = gpu::LaneIdOp::create(b, l, /*upperBound=*/nullptr);
  return {arith::DivUIOp::create(b, l, lane, indexConst(b, l, 4)),
          arith::RemUIOp::create(b, l, lane, indexConst(b, l, 4))};
}

struct LoadMatrixLowering : OpConversionPattern<gpu::SubgroupMmaLoadMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaLoadMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<gpu::MMAMatrixType>(op.getRes().getType());
    Location l = op.getLoc();
    auto [g, t] = laneGroup(rewriter, l);
    FlatAccess access(rewriter, l, adaptor.getSrcMemref(), adaptor.getIndices(),
                      op.getLeadDimension().getSExtValue(),
                      op.getTranspose().has_value());
    VectorType vectorType = laneFragmentType(type);
    Value result = arith::ConstantOp::create(rewriter, l,
                                             rewriter.getZeroAttr(vectorType));
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t j = 0; j < 2; ++j) {
        auto [row, col] =
            coordinates(rewriter, l, type.getOperand(), g, t, r, j);
        Value x = memref::LoadOp::create(rewriter, l, access.flat,
                                         access.offset(rewriter, l, row, col));
        result = vector::InsertOp::create(rewriter, l, x, result,
                                          ArrayRef<int64_t>{r, j});
      }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct StoreMatrixLowering
    : OpConversionPattern<gpu::SubgroupMmaStoreMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaStoreMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<gpu::MMAMatrixType>(op.getSrc().getType());
    Location l = op.getLoc();
    auto [g, t] = laneGroup(rewriter, l);
    FlatAccess access(rewriter, l, adaptor.getDstMemref(), adaptor.getIndices(),
                      op.getLeadDimension().getSExtValue(),
                      op.getTranspose().has_value());
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t j = 0; j < 2; ++j) {
        auto [row, col] =
            coordinates(rewriter, l, type.getOperand(), g, t, r, j);
        Value x = vector::ExtractOp::create(rewriter, l, adaptor.getSrc(),
                                            ArrayRef<int64_t>{r, j});
        memref::StoreOp::create(rewriter, l, x, access.flat,
                                access.offset(rewriter, l, row, col));
      }
    rewriter.eraseOp(op);
    return success();
  }
};

struct ConstantMatrixLowering
    : OpConversionPattern<gpu::SubgroupMmaConstantMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaConstantMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = laneFragmentType(cast<gpu::MMAMatrixType>(op.getType()));
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, type,
                                                     adaptor.getValue());
    return success();
  }
};

struct ElementwiseLowering
    : OpConversionPattern<gpu::SubgroupMmaElementwiseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location l = op.getLoc();
    ValueRange x = adaptor.getArgs();
    auto type = laneFragmentType(cast<gpu::MMAMatrixType>(op.getType()));
    Value r;
    using E = gpu::MMAElementwiseOp;
    switch (op.getOpType()) {
    case E::ADDF:
      r = arith::AddFOp::create(rewriter, l, x[0], x[1]);
      break;
    case E::MULF:
      r = arith::MulFOp::create(rewriter, l, x[0], x[1]);
      break;
    case E::SUBF:
      r = arith::SubFOp::create(rewriter, l, x[0], x[1]);
      break;
    case E::MAXF:
      r = arith::MaximumFOp::create(rewriter, l, x[0], x[1]);
      break;
    case E::MINF:
      r = arith::MinimumFOp::create(rewriter, l, x[0], x[1]);
      break;
    case E::DIVF:
      r = arith::DivFOp::create(rewriter, l, x[0], x[1]);
      break;
    case E::NEGATEF:
      r = arith::NegFOp::create(rewriter, l, x[0]);
      break;
    case E::EXTF:
      r = arith::ExtFOp::create(rewriter, l, type, x[0]);
      break;
    default: // rejected before the conversion (isSupportedOp)
      return failure();
    }
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// C + A * B on 16x16x16: two mma.sync m16n8k16, one per 8 columns of B
/// and C (rows 0-1 and 2-3 of their lane fragments).
struct ComputeLowering : OpConversionPattern<gpu::SubgroupMmaComputeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaComputeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // The operands' fragments hold A and B as loaded, transposed or not.
    Location l = op.getLoc();
    auto cType = cast<VectorType>(adaptor.getOpC().getType());
    auto halfType = [](VectorType t) {
      return VectorType::get({2, 2}, t.getElementType());
    };
    auto half = [&](Value v, int64_t h) -> Value {
      auto vType = cast<VectorType>(v.getType());
      Value out = arith::ConstantOp::create(
          rewriter, l, rewriter.getZeroAttr(halfType(vType)));
      for (int64_t r = 0; r < 2; ++r) {
        Value row = vector::ExtractOp::create(rewriter, l, v,
                                              ArrayRef<int64_t>{2 * h + r});
        out = vector::InsertOp::create(rewriter, l, row, out,
                                       ArrayRef<int64_t>{r});
      }
      return out;
    };
    Value result =
        arith::ConstantOp::create(rewriter, l, rewriter.getZeroAttr(cType));
    for (int64_t h = 0; h < 2; ++h) {
      Value d = nvgpu::MmaSyncOp::create(
          rewriter, l, adaptor.getOpA(), half(adaptor.getOpB(), h),
          half(adaptor.getOpC(), h), ArrayRef<int64_t>{16, 8, 16});
      for (int64_t r = 0; r < 2; ++r) {
        Value row =
            vector::ExtractOp::create(rewriter, l, d, ArrayRef<int64_t>{r});
        result = vector::InsertOp::create(rewriter, l, row, result,
                                          ArrayRef<int64_t>{2 * h + r});
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ExtSubgroupMmaToLanesPass
    : ext::impl::ExtSubgroupMmaToLanesBase<ExtSubgroupMmaToLanesPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = false, unsupported = false;
    module.walk([&](Operation *op) {
      auto check = [&](Type type) {
        auto mma = dyn_cast<gpu::MMAMatrixType>(type);
        if (!mma)
          return;
        any = true;
        if (!isSupported(mma) && !unsupported) {
          op->emitOpError("on ")
              << mma << " is not supported by the CPU emulation (16x16 f16 "
              << "operands, f16 or f32 accumulators)";
          unsupported = true;
        }
      };
      for (Type t : op->getResultTypes())
        check(t);
      for (Type t : op->getOperandTypes())
        check(t);
      if (!unsupported && !isSupportedOp(op))
        unsupported = true;
    });
    if (unsupported)
      return signalPassFailure();
    if (!any)
      return;

    MLIRContext *ctx = &getContext();
    TypeConverter converter;
    converter.addConversion([](Type t) { return t; });
    converter.addConversion(
        [](gpu::MMAMatrixType t) -> Type { return laneFragmentType(t); });
    ConversionTarget target(*ctx);
    target.addLegalDialect<arith::ArithDialect, memref::MemRefDialect,
                           vector::VectorDialect, nvgpu::NVGPUDialect>();
    target.addLegalOp<gpu::LaneIdOp>();
    target.addIllegalOp<
        gpu::SubgroupMmaLoadMatrixOp, gpu::SubgroupMmaStoreMatrixOp,
        gpu::SubgroupMmaComputeOp, gpu::SubgroupMmaConstantMatrixOp,
        gpu::SubgroupMmaElementwiseOp>();
    RewritePatternSet patterns(ctx);
    patterns.add<LoadMatrixLowering, StoreMatrixLowering,
                 ConstantMatrixLowering, ElementwiseLowering, ComputeLowering>(
        converter, ctx);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
