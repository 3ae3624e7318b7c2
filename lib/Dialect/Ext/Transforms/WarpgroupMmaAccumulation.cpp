//===- WarpgroupMmaAccumulation.cpp - tile computes on sm_90 wgmma --------===//
//
// The #ext.mma<wgmma_k16> strategy: C += A * B with A and B in shared
// memory becomes, per k-tile, one wgmma.mma_async.m64nNk16 per 16-deep
// k-step for each warpgroup (4 consecutive warps, 64 rows of the tile),
// between a wgmma.fence and a commit + wait_group 0; in a k-loop of 3 or
// more stages (ext.mma_in_flight) + wait_group 1, the accumulators carried
// by the loop, so a step's MMAs run while the next step waits for its
// stage and issues. The operands are read
// through matrix descriptors (PTX ISA 9.7.15.5.1.2), so their shared tiles
// must be the instruction's canonical layouts, which ext's swizzled tiles
// are when a row is exactly the swizzle's width:
//
//   A [M][K] (K-major): rows of W = 32, 64 or 128 bytes, swizzled by
//     #ext.swizzle<bits = log2(W / 16), base = 3, shift = 3> (CUTLASS's
//     Swizzle<B,4,3> on bytes); 8-row groups W * 8 bytes apart (SBO); a
//     k-step starts 32 bytes further along the row.
//   B [K][N] (N-major, imm-trans-b): rows of W bytes (N = W / 2 columns),
//     the same swizzle; 8-k groups W * 8 bytes apart (SBO); a k-step starts
//     16 rows further. B [N][K] (K-major): as A, N rows.
//   A wider tile is column panels of W bytes (the swizzle's `panel`): for
//   N-major B the next panel is the next W / 2 columns (LBO), for K-major
//   operands a k-step past a panel's width starts in the next panel.
//
// The swizzle is applied by the hardware to address bits, by ext to tile
// offsets: the two agree when a tile starts at a multiple of its pattern
// (8 W bytes), which the kernel asserts once per stage tile, before the
// k-loop. Each warp's accumulators are
// m16n8k16's (register 4j + i of the wgmma is item i of n-tile j), so the
// fragment storage, the epilogue and the stores are the warp-MMA ones.
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/Transforms/TileAccumulation.h"
#include "ext/Support/IndexConstant.h"

#include "WarpgroupMmaAccumulation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace ext;

namespace {

/// The shared tile behind `tile` (through the selects of pipelined stages).
AllocSharedOp allocOf(Value tile) {
  while (auto select = tile.getDefiningOp<arith::SelectOp>())
    tile = select.getTrueValue();
  return tile.getDefiningOp<AllocSharedOp>();
}

/// Every shared tile `tile` may be: each stage's, through the selects.
void stageAllocsOf(Value tile, SmallVectorImpl<AllocSharedOp> &out) {
  if (auto select = tile.getDefiningOp<arith::SelectOp>()) {
    stageAllocsOf(select.getTrueValue(), out);
    stageAllocsOf(select.getFalseValue(), out);
  } else if (auto alloc = tile.getDefiningOp<AllocSharedOp>()) {
    if (!llvm::is_contained(out, alloc))
      out.push_back(alloc);
  }
}

/// Marks a stage tile whose alignment check is emitted.
constexpr llvm::StringLiteral kAlignmentChecked = "ext.wgmma_alignment_checked";

/// How wgmma reads one operand's shared tile.
struct OperandLayout {
  int64_t width = 0; // the swizzle's bytes: a row, 8 rows being a pattern
  bool kMajor = true;
  int64_t rows = 0; // the tile's rows (a column panel's bytes / width)
};

FailureOr<OperandLayout> layoutOf(TileComputeOp op, Value tile, bool kInner,
                                  bool isA) {
  const char *name = isA ? "A" : "B";
  AllocSharedOp alloc = allocOf(tile);
  auto fail = [&]() {
    return op.emitOpError("with #ext.mma<wgmma_k16> reads ")
           << name << " through a wgmma matrix descriptor: ";
  };
  if (!alloc || !alloc.getSwizzle())
    return fail() << "its shared tile must be cached with a swizzle of 32, 64 "
                     "or 128 bytes (#ext.swizzle<bits = 1|2|3, base = 3, "
                     "shift = 3>) and rows of that many bytes";
  SwizzleAttr swizzle = *alloc.getSwizzle();
  auto type = cast<MemRefType>(alloc.getType());
  // A row of the tile, or of one of its column panels.
  int64_t columns = swizzle.getPanel()
                        ? std::min(swizzle.getPanel(), type.getDimSize(1))
                        : type.getDimSize(1);
  int64_t rowBytes = columns * type.getElementTypeBitWidth() / 8;
  int64_t width = int64_t(16) << swizzle.getBits();
  if (swizzle.getBase() != 3 || swizzle.getShift() != 3 ||
      swizzle.getBits() < 1 || swizzle.getBits() > 3 || rowBytes != width)
    return fail() << "its shared tile has rows of " << rowBytes
                  << " bytes swizzled by " << swizzle
                  << "; a W-byte wgmma layout (W = 32, 64, 128) needs rows of "
                     "W bytes and #ext.swizzle<bits = log2(W / 16), base = 3, "
                     "shift = 3>"
                  << " (a wider tile is column panels of W bytes: `panel = "
                     "W / element bytes` in the swizzle)";
  if (isA && !kInner)
    return fail() << "an M-major A (K outermost in shared memory) is not "
                     "supported; cache A as [M][K]";
  return OperandLayout{width, kInner, type.getDimSize(0)};
}

class WarpgroupEmitter {
public:
  WarpgroupEmitter(TileAccumulationContext &context, TileComputeOp op,
                   const WarpgroupProblem &p, OperandLayout a, OperandLayout b)
      : rw(context.getRewriter()), loc(op.getLoc()), p(p), a(a), b(b),
        storage(context.getFragmentStorage(op.getOutputs()[0])),
        tid(context.getThreadId()) {}

  void emit() {
    Type f32 = rw.getF32Type();
    int64_t n = p.tileN;
    auto accType = LLVM::LLVMStructType::getLiteral(
        rw.getContext(), SmallVector<Type>(n / 2, f32));
    // In a k-loop that lets groups stay in flight, the accumulators are the
    // loop's: read from the storage before it, carried as wgmma registers
    // from step to step, written back once the last group retired.
    scf::ForOp loop = inFlightLoop();
    Value acc;
    scf::YieldOp yield;
    if (loop) {
      // The loop is rebuilt with one more iter_arg (its body moved over):
      // the tile lowering keeps loops only for unstaged copies and shared
      // writes (fenceCopyLoops), which a pipelined k-loop has not.
      Operation *at = &*rw.getInsertionPoint();
      rw.setInsertionPoint(loop);
      Value init = loadAccumulators(accType);
      auto grown = loop.replaceWithAdditionalYields(
          rw, init, /*replaceInitOperandUsesInLoop=*/false,
          [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
            return SmallVector<Value>{args.back()};
          });
      loop = cast<scf::ForOp>(grown->getOperation());
      acc = loop.getRegionIterArgs().back();
      yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      rw.setInsertionPoint(at);
    } else {
      acc = loadAccumulators(accType);
    }
    // Once per stage tile, where it is allocated (before the k-loop): no
    // call (cf.assert's __assertfail) between the wgmmas, which would make
    // ptxas serialize them (C7510).
    checkAlignmentOnce(p.a, a, "A");
    checkAlignmentOnce(p.b, b, "B");
    Value aBase = baseOf(p.a), bBase = baseOf(p.b);
    // This warpgroup's 64 rows of A.
    Value group = arith::DivUIOp::create(rw, loc, tid, c(128));
    Value aRows = arith::MulIOp::create(
        rw, loc, arith::IndexCastOp::create(rw, loc, rw.getI64Type(), group),
        c64(64 * a.width));
    aBase = arith::AddIOp::create(rw, loc, aBase, aRows);
    NVVM::WgmmaFenceAlignedOp::create(rw, loc);
    auto type =
        p.elem.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
    auto types = NVVM::WGMMATypesAttr::get(rw.getContext(), type);
    auto one =
        NVVM::WGMMAScaleInAttr::get(rw.getContext(), NVVM::WGMMAScaleIn::one);
    // Each tile's descriptor once; a k16 step's is it plus the step's byte
    // offset / 16 (the address field is bits 0-13 of address / 16, and a
    // CTA's shared addresses stay below 2^18 bytes: no carry leaves it).
    Value descABase = descriptor(aBase, a, 0);
    Value descBBase = descriptor(bBase, b, 0, p.tileK);
    auto at = [&](Value desc, int64_t offset) {
      return offset == 0 ? desc
                         : arith::AddIOp::create(rw, loc, desc, c64(offset >> 4))
                               .getResult();
    };
    for (int64_t k0 = 0; k0 < p.tileK; k0 += 16) {
      // K-major: 32 bytes further along a row, in the next column panel
      // past its width; N-major B: 16 rows further.
      Value descA = at(descABase, kMajorOffset(a, k0));
      Value descB =
          at(descBBase, b.kMajor ? kMajorOffset(b, k0) : k0 * b.width);
      acc = NVVM::WgmmaMmaAsyncOp::create(
          rw, loc, accType, acc, descA, descB,
          NVVM::MMAShapeAttr::get(rw.getContext(), 64, n, 16), types, types,
          NVVM::WGMMATypesAttr::get(rw.getContext(), NVVM::WGMMATypes::f32),
          NVVM::WGMMAScaleOutAttr::get(rw.getContext(),
                                       NVVM::WGMMAScaleOut::one),
          one, one,
          NVVM::MMALayoutAttr::get(rw.getContext(), NVVM::MMALayout::row),
          NVVM::MMALayoutAttr::get(rw.getContext(), b.kMajor
                                                        ? NVVM::MMALayout::col
                                                        : NVVM::MMALayout::row),
          NVVM::MMAIntOverflowAttr());
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rw, loc);
    if (!loop) {
      NVVM::WgmmaWaitGroupSyncOp::create(rw, loc, 0);
      storeAccumulators(acc);
      return;
    }
    // The previous step's group retires; this one runs on while the next
    // step waits for its stage and issues.
    NVVM::WgmmaWaitGroupSyncOp::create(rw, loc, 1);
    rw.modifyOpInPlace(yield, [&] {
      yield->setOperand(yield->getNumOperands() - 1, acc);
    });
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPointAfter(loop);
    NVVM::WgmmaWaitGroupSyncOp::create(rw, loc, 0);
    storeAccumulators(loop.getResults().back());
  }

private:
  Value c(int64_t v) { return constIndex(rw, loc, v); }
  Value c64(int64_t v) {
    return arith::ConstantIntOp::create(rw, loc, rw.getI64Type(), v);
  }

  /// Bytes from a K-major tile's start to k element `k0` of its first row:
  /// column panels of `width` bytes, each `rows` rows long.
  static int64_t kMajorOffset(OperandLayout l, int64_t k0) {
    return k0 * 2 / l.width * (l.rows * l.width) + k0 * 2 % l.width;
  }

  /// The enclosing k-loop, when it lets this op's groups stay in flight
  /// (kMmaInFlightAttrName) and the op is directly in its body with the
  /// accumulators' storage touched by nothing else in the loop.
  scf::ForOp inFlightLoop() {
    auto loop = dyn_cast<scf::ForOp>(rw.getInsertionBlock()->getParentOp());
    if (!loop || !loop->hasAttr(kMmaInFlightAttrName) ||
        rw.getInsertionPoint() == rw.getInsertionBlock()->end() ||
        loop->isAncestor(storage.getParentBlock()->getParentOp()))
      return {};
    for (Operation *user : storage.getUsers())
      if (loop->isAncestor(user))
        return {};
    return loop;
  }

  /// The warp's accumulators as the wgmma's registers: register 4j + i is
  /// item i of n-tile j, stored at [i / 2][2 j + i % 2].
  Value loadAccumulators(Type accType) {
    Value acc = LLVM::PoisonOp::create(rw, loc, accType);
    for (int64_t r = 0; r < p.tileN / 2; ++r) {
      Value v = memref::LoadOp::create(rw, loc, storage, storageIndex(r));
      acc = LLVM::InsertValueOp::create(rw, loc, acc, v, r);
    }
    return acc;
  }

  void storeAccumulators(Value acc) {
    for (int64_t r = 0; r < p.tileN / 2; ++r) {
      Value v = LLVM::ExtractValueOp::create(rw, loc, acc, r);
      memref::StoreOp::create(rw, loc, v, storage, storageIndex(r));
    }
  }

  SmallVector<Value> storageIndex(int64_t r) {
    int64_t j = r / 4, i = r % 4;
    return {c(i / 2), c(2 * j + i % 2)};
  }

  /// The tile's shared-window address (an i64).
  Value baseOf(Value tile) {
    Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(rw, loc, tile);
    return arith::IndexCastOp::create(rw, loc, rw.getI64Type(), ptr);
  }

  /// The hardware swizzles address bits, ext tile offsets: a tile must
  /// start at a multiple of its pattern (8 rows) for the two to agree.
  /// ext-gpu-reuse-shared-memory places such tiles at multiples of 1024
  /// bytes; what is left to check is the shared window's base, once per
  /// stage tile, right after its allocation.
  void checkAlignmentOnce(Value tile, OperandLayout l, StringRef name) {
    SmallVector<AllocSharedOp> allocs;
    stageAllocsOf(tile, allocs);
    OpBuilder::InsertionGuard guard(rw);
    for (AllocSharedOp alloc : allocs) {
      if (alloc->hasAttr(kAlignmentChecked))
        continue;
      alloc->setAttr(kAlignmentChecked, rw.getUnitAttr());
      rw.setInsertionPointAfter(alloc);
      Location at = alloc.getLoc();
      Value ptr =
          memref::ExtractAlignedPointerAsIndexOp::create(rw, at, alloc);
      Value base = arith::IndexCastOp::create(rw, at, rw.getI64Type(), ptr);
      Value rem = arith::RemUIOp::create(
          rw, at, base,
          arith::ConstantIntOp::create(rw, at, rw.getI64Type(), 8 * l.width));
      Value ok = arith::CmpIOp::create(
          rw, at, arith::CmpIPredicate::eq, rem,
          arith::ConstantIntOp::create(rw, at, rw.getI64Type(), 0));
      cf::AssertOp::create(rw, at, ok,
                           ("wgmma: the shared tile of " + name +
                            " does not start at a multiple of its swizzle "
                            "pattern (" +
                            std::to_string(8 * l.width) + " bytes)")
                               .str());
    }
  }

  /// A wgmma matrix descriptor at `offset` bytes from `base`.
  Value descriptor(Value base, OperandLayout l, int64_t offset,
                   int64_t tileK = 0) {
    int64_t mode = l.width == 128 ? 1 : l.width == 64 ? 2 : 3;
    // K-major: the leading offset is unused (1); N-major: the next W-byte
    // column panel (N elements further) is a whole panel of k rows further.
    int64_t leading = l.kMajor ? 16 : tileK * l.width;
    uint64_t fields = (uint64_t(leading >> 4) << 16) |
                      (uint64_t((8 * l.width) >> 4) << 32) |
                      (uint64_t(mode) << 62);
    Value start = arith::AddIOp::create(rw, loc, base, c64(offset));
    Value encoded = arith::ShRUIOp::create(
        rw, loc, arith::AndIOp::create(rw, loc, start, c64(0x3FFFF)), c64(4));
    return arith::OrIOp::create(rw, loc, encoded, c64(int64_t(fields)));
  }

  RewriterBase &rw;
  Location loc;
  const WarpgroupProblem &p;
  OperandLayout a, b;
  Value storage, tid;
};

} // namespace

LogicalResult ext::emitWarpgroupMma(TileAccumulationContext &context,
                                    TileComputeOp op,
                                    const WarpgroupProblem &p) {
  FailureOr<OperandLayout> a = layoutOf(op, p.a, p.aKInner, /*isA=*/true);
  if (failed(a))
    return failure();
  FailureOr<OperandLayout> b = layoutOf(op, p.b, p.bKInner, /*isA=*/false);
  if (failed(b))
    return failure();
  WarpgroupEmitter(context, op, p, *a, *b).emit();
  return success();
}
