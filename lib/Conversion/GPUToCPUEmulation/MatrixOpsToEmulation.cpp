//===- MatrixOpsToEmulation.cpp - warp matrix instructions ---------------===//
//
// nvgpu.ldmatrix, nvgpu.mma.sync and amdgpu.mfma are warp collectives: each
// lane holds a fragment of the matrices in the instruction's per-lane layout
// and the instruction reads the fragments of all lanes. Each lane writes its
// operands to a private buffer (allocated once at the function entry),
// publishes the buffer's address in its scratch slot and meets its warp; the
// runtime (runtime/cpu/MatrixOps.cpp, ABI in
// ext/Runtime/CpuEmulationMatrixABI.h) then computes the lane's result from
// the published buffers with the hardware's layouts, and a second rendezvous
// keeps the buffers alive until every lane has read them.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Runtime/CpuEmulationABI.h"
#include "ext/Runtime/CpuEmulationMatrixABI.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace ext;
using namespace ext::emu;

namespace {

int64_t align8(int64_t x) { return (x + 7) / 8 * 8; }

/// The number of elements of a fragment (a vector or a scalar).
int64_t elementCount(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements();
  return 1;
}

/// A lane's operands and results in a private byte buffer, and the warp
/// rendezvous around the runtime call that reads the other lanes' buffers.
class WarpMatrixCall {
public:
  WarpMatrixCall(EmulationModule &emu, OpBuilder &b, Operation *op,
                 int64_t bytes)
      : fn(emu.function()), b(b), op(op), l(op->getLoc()) {
    // At the entry, so that a call in a loop does not grow the stack.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&fn.getFunc().getBody().front());
    buffer =
        memref::AllocaOp::create(b, l, MemRefType::get({bytes}, b.getI8Type()),
                                 ValueRange{}, b.getI64IntegerAttr(16));
  }

  /// Stores the elements of `value` (a vector in row-major order, or a
  /// scalar) at `offset` bytes.
  void store(Value value, int64_t offset) {
    Type type = value.getType();
    auto vector = dyn_cast<VectorType>(type);
    Value view = viewAt(offset, vector ? vector.getElementType() : type,
                        elementCount(type));
    if (!vector) {
      memref::StoreOp::create(b, l, value, view, emuIndexConst(b, l, 0));
      return;
    }
    for (int64_t i = 0, e = vector.getNumElements(); i < e; ++i) {
      Value x = vector::ExtractOp::create(b, l, value, position(vector, i));
      memref::StoreOp::create(b, l, x, view, emuIndexConst(b, l, i));
    }
  }

  /// Loads a value of `type` stored as `store` does at `offset` bytes.
  Value load(Type type, int64_t offset) {
    auto vector = dyn_cast<VectorType>(type);
    Value view = viewAt(offset, vector ? vector.getElementType() : type,
                        elementCount(type));
    if (!vector)
      return memref::LoadOp::create(b, l, view, emuIndexConst(b, l, 0));
    Value result = arith::ConstantOp::create(b, l, b.getZeroAttr(vector));
    for (int64_t i = 0, e = vector.getNumElements(); i < e; ++i) {
      Value x = memref::LoadOp::create(b, l, view, emuIndexConst(b, l, i));
      result = vector::InsertOp::create(b, l, x, result, position(vector, i));
    }
    return result;
  }

  /// Publishes this lane's `address` (i64) and meets the warp; returns the
  /// lanes that took part and the address of lane 0's slot.
  FailureOr<std::pair<Value, Value>> publish(Value address) {
    FailureOr<Value> slots = fn.scratch(b, op, b.getI64Type());
    if (failed(slots))
      return failure();
    memref::StoreOp::create(b, l, address, *slots, fn.linearThreadId());
    Value mask = fn.warpSync(b, op, fn.warpSizeI32(b, l));
    Value scratch = LLVM::PtrToIntOp::create(b, l, b.getI64Type(),
                                             fn.entryPtr(EXT_EMU_SCRATCH));
    Value warpOffset = arith::IndexCastOp::create(
        b, l, b.getI64Type(),
        arith::MulIOp::create(b, l, fn.warpBase(),
                              emuIndexConst(b, l, EXT_EMU_SCRATCH_BYTES_PER_THREAD)));
    return std::make_pair(
        mask, Value(arith::AddIOp::create(b, l, scratch, warpOffset)));
  }

  /// The buffer's address as an i64.
  Value address() {
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, l, buffer);
    return arith::IndexCastOp::create(b, l, b.getI64Type(), base);
  }

  Value site() { return fn.site(b, op); }
  Value lane() {
    return arith::IndexCastOp::create(b, l, b.getI32Type(), fn.laneId());
  }
  /// Meets the warp again: no lane reuses its buffer before all have read.
  void finish() { fn.warpSync(b, op, fn.warpSizeI32(b, l)); }

private:
  EmulationFunction &fn;
  OpBuilder &b;
  Operation *op;
  Location l;
  Value buffer;

  Value viewAt(int64_t offset, Type elementType, int64_t count) {
    return memref::ViewOp::create(b, l, MemRefType::get({count}, elementType),
                                  buffer, emuIndexConst(b, l, offset),
                                  ValueRange{});
  }

  /// The static position of the `linear`-th element of `type`, row-major.
  static SmallVector<int64_t> position(VectorType type, int64_t linear) {
    SmallVector<int64_t> pos(type.getRank());
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      pos[d] = linear % type.getDimSize(d);
      linear /= type.getDimSize(d);
    }
    return pos;
  }
};

/// D = A * B + C of `kind` through __ext_emu_mma: the lane's A, B and C
/// elements in register order, each part 8-byte aligned (the ABI's packing).
FailureOr<Value> emitMma(EmulationModule &emu, OpBuilder &b, Operation *op,
                         MatrixKind kind, Value a, Value bValue, Value c) {
  int64_t aBytes = align8(elementCount(a.getType()) *
                          emu.byteSize(getElementTypeOrSelf(a.getType())));
  int64_t bBytes = align8(elementCount(bValue.getType()) *
                          emu.byteSize(getElementTypeOrSelf(bValue.getType())));
  int64_t cBytes = align8(elementCount(c.getType()) *
                          emu.byteSize(getElementTypeOrSelf(c.getType())));
  WarpMatrixCall call(emu, b, op, aBytes + bBytes + cBytes);
  call.store(a, 0);
  call.store(bValue, aBytes);
  call.store(c, aBytes + bBytes);
  FailureOr<std::pair<Value, Value>> published = call.publish(call.address());
  if (failed(published))
    return failure();
  Location l = op->getLoc();
  emu.call(b, l, EXT_EMU_MMA, {},
           {call.site(), published->first, published->second, call.lane(),
            emuI32Const(b, l, kind)});
  call.finish();
  return call.load(c.getType(), aBytes + bBytes);
}

struct LdMatrixLowering : EmulationOpPattern<nvgpu::LdMatrixOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(nvgpu::LdMatrixOp op,
                                PatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    b.setInsertionPoint(op);
    Location l = op.getLoc();
    auto memrefType = cast<MemRefType>(op.getSrcMemref().getType());
    Type elementType = memrefType.getElementType();
    auto resultType = cast<VectorType>(op.getRes().getType());
    int64_t numTiles = op.getNumTiles();
    if (emu.byteSize(elementType) != 2 ||
        resultType.getNumElements() != 2 * numTiles)
      return op.emitOpError("of ")
             << elementType << " elements is not supported by the CPU "
             << "emulation (16-bit elements only)";
    EmulationFunction &fn = emu.function();

    // Lanes 0 .. 8*numTiles-1 each read one 16-byte row (a yield point for
    // racecheck and the bank-conflict count, as the hardware's request is).
    Value row = emitElementAddress(b, l, op.getSrcMemref(), op.getIndices(), 2);
    Value row64 = arith::IndexCastOp::create(b, l, b.getI64Type(), row);
    Value supplies =
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, fn.laneId(),
                              emuIndexConst(b, l, 8 * numTiles));
    scf::IfOp::create(b, l, supplies, [&](OpBuilder &tb, Location tl) {
      int32_t site = fn.getSites().id(l);
      emu.call(tb, tl, EXT_EMU_ACCESS, {},
               {row64,
                arith::ConstantIntOp::create(tb, tl, tb.getI64Type(), 16),
                emuI32Const(tb, tl, EXT_EMU_LOAD | EXT_EMU_WORKGROUP),
                emuI32Const(tb, tl, site)});
      scf::YieldOp::create(tb, tl);
    });

    WarpMatrixCall call(emu, b, op, 4 * numTiles);
    FailureOr<std::pair<Value, Value>> published = call.publish(row64);
    if (failed(published))
      return failure();
    emu.call(b, l, EXT_EMU_LDMATRIX, {},
             {call.site(), published->first, published->second, call.lane(),
              emuI32Const(b, l, numTiles),
              emuI32Const(b, l, op.getTranspose() ? 1 : 0), call.address()});
    call.finish();
    rewriter.replaceOp(op, call.load(resultType, 0));
    return success();
  }
};

struct MmaSyncLowering : EmulationOpPattern<nvgpu::MmaSyncOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(nvgpu::MmaSyncOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(op);
    SmallVector<int64_t> shape;
    for (Attribute d : op.getMmaShape())
      shape.push_back(cast<IntegerAttr>(d).getInt());
    Type a = getElementTypeOrSelf(op.getMatrixA().getType());
    Type c = getElementTypeOrSelf(op.getMatrixC().getType());
    std::optional<MatrixKind> kind;
    if (shape == ArrayRef<int64_t>{16, 8, 16} && a.isF16() && c.isF32())
      kind = EXT_EMU_MMA_M16N8K16_F16_F32;
    else if (shape == ArrayRef<int64_t>{16, 8, 16} && a.isF16() && c.isF16())
      kind = EXT_EMU_MMA_M16N8K16_F16_F16;
    else if (shape == ArrayRef<int64_t>{16, 8, 16} && a.isBF16() && c.isF32())
      kind = EXT_EMU_MMA_M16N8K16_BF16_F32;
    else if (shape == ArrayRef<int64_t>{16, 8, 8} && a.isF32() && c.isF32() &&
             op.getTf32Enabled())
      kind = EXT_EMU_MMA_M16N8K8_TF32_F32;
    else if (shape == ArrayRef<int64_t>{16, 8, 4} && a.isF32() && c.isF32() &&
             op.getTf32Enabled())
      kind = EXT_EMU_MMA_M16N8K4_TF32_F32;
    if (!kind)
      return op.emitOpError("of shape [")
             << shape << "] on " << a << " with " << c
             << " accumulators is not supported by the CPU emulation "
                "(m16n8k16 f16/bf16, m16n8k8 and m16n8k4 tf32)";
    FailureOr<Value> d = emitMma(emu, rewriter, op, *kind, op.getMatrixA(),
                                 op.getMatrixB(), op.getMatrixC());
    if (failed(d))
      return failure();
    rewriter.replaceOp(op, *d);
    return success();
  }
};

struct MfmaLowering : EmulationOpPattern<amdgpu::MFMAOp> {
  using EmulationOpPattern::EmulationOpPattern;
  LogicalResult matchAndRewrite(amdgpu::MFMAOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(op);
    Type a = getElementTypeOrSelf(op.getSourceA().getType());
    Type c = getElementTypeOrSelf(op.getDestC().getType());
    auto shape = std::make_tuple(op.getM(), op.getN(), op.getK());
    std::optional<MatrixKind> kind;
    if (op.getBlocks() == 1 && c.isF32()) {
      if (shape == std::make_tuple(32u, 32u, 8u) && a.isF16())
        kind = EXT_EMU_MFMA_32X32X8_F16_F32;
      else if (shape == std::make_tuple(16u, 16u, 16u) && a.isF16())
        kind = EXT_EMU_MFMA_16X16X16_F16_F32;
      else if (shape == std::make_tuple(32u, 32u, 2u) && a.isF32())
        kind = EXT_EMU_MFMA_32X32X2_F32_F32;
    }
    if (!kind)
      return op.emitOpError("")
             << op.getM() << "x" << op.getN() << "x" << op.getK() << " on " << a
             << " (" << op.getBlocks()
             << " blocks) is not supported by the CPU emulation (32x32x8 "
                "and 16x16x16 f16, 32x32x2 f32, one block)";
    if (op.getCbsz() != 0 || op.getAbid() != 0 ||
        op.getBlgp() != amdgpu::MFMAPermB::none || op.getReducePrecision() ||
        op.getNegateA() || op.getNegateB() || op.getNegateC())
      return op.emitOpError("with lane permutations (cbsz, abid, blgp), "
                            "reduced precision or negation is not supported "
                            "by the CPU emulation");
    FailureOr<Value> d = emitMma(emu, rewriter, op, *kind, op.getSourceA(),
                                 op.getSourceB(), op.getDestC());
    if (failed(d))
      return failure();
    rewriter.replaceOp(op, *d);
    return success();
  }
};

} // namespace

void ext::populateGPUMatrixOpsToEmulationPatterns(RewritePatternSet &patterns,
                                                  EmulationModule &emu) {
  patterns.add<LdMatrixLowering, MmaSyncLowering, MfmaLowering>(emu);
}
