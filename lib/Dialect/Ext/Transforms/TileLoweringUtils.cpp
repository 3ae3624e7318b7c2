//===- TileLoweringUtils.cpp - helpers of the tile lowering ---------------===//
//
// See TileLoweringUtils.h.
//
//===----------------------------------------------------------------------===//

#include "TileLoweringUtils.h"

#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <numeric>

using namespace mlir;
using namespace ext;
using namespace ext::tile_lowering;

Value tile_lowering::andAll(OpBuilder &b, Location loc, ArrayRef<Value> conds) {
  Value r;
  for (Value c : conds)
    r = r ? arith::AndIOp::create(b, loc, r, c).getResult() : c;
  return r;
}

int64_t tile_lowering::elementBytes(Type t) {
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

int64_t tile_lowering::multipleOfProduct(int64_t x, int64_t y) {
  constexpr int64_t any = int64_t(1) << 62;
  if (std::optional<int64_t> p = llvm::checkedMul(x, y))
    return std::min(*p, any);
  return int64_t(1) << std::min(62, llvm::countr_zero(uint64_t(x)) +
                                        llvm::countr_zero(uint64_t(y)));
}

int64_t tile_lowering::knownMultiple(Value v) {
  constexpr int64_t any = int64_t(1) << 62;
  if (std::optional<int64_t> c = getConstantIntValue(v)) {
    // 0 is a multiple of anything; |INT64_MIN| does not fit, 2^62 divides it.
    if (*c == 0 || *c == std::numeric_limits<int64_t>::min())
      return any;
    return std::abs(*c);
  }
  Operation *def = v.getDefiningOp();
  if (auto mul = dyn_cast_or_null<arith::MulIOp>(def))
    return multipleOfProduct(knownMultiple(mul.getLhs()),
                             knownMultiple(mul.getRhs()));
  if (auto add = dyn_cast_or_null<arith::AddIOp>(def))
    return std::gcd(knownMultiple(add.getLhs()), knownMultiple(add.getRhs()));
  // An exact quotient (a packed window's origin, x a multiple of c).
  if (auto div = dyn_cast_or_null<arith::DivSIOp>(def))
    if (std::optional<int64_t> c = getConstantIntValue(div.getRhs());
        c && *c > 0 && knownMultiple(div.getLhs()) % *c == 0)
      return knownMultiple(div.getLhs()) / *c;
  // x mod c = x - c * q: a multiple of what divides both x and c.
  if (auto rem = dyn_cast_or_null<arith::RemUIOp>(def))
    if (std::optional<int64_t> c = getConstantIntValue(rem.getRhs()); c && *c)
      return std::gcd(knownMultiple(rem.getLhs()), std::abs(*c));
  return 1;
}

bool tile_lowering::outerStridesDivisible(ArrayRef<int64_t> strides,
                                          int64_t w) {
  return llvm::all_of(strides.drop_back(), [&](int64_t s) {
    return !ShapedType::isDynamic(s) && s % w == 0;
  });
}

int64_t tile_lowering::globalTileOffset(Value out, int64_t width) {
  auto type = cast<MemRefType>(out.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return ShapedType::kDynamic;
  if (!ShapedType::isDynamic(offset))
    return offset;
  auto subview = out.getDefiningOp<memref::SubViewOp>();
  if (!subview)
    return ShapedType::kDynamic;
  SmallVector<int64_t> sourceStrides;
  int64_t sourceOffset;
  if (failed(subview.getSourceType().getStridesAndOffset(sourceStrides,
                                                          sourceOffset)) ||
      ShapedType::isDynamic(sourceOffset) || sourceOffset % width != 0)
    return ShapedType::kDynamic;
  for (auto [ofr, stride] :
       llvm::zip(subview.getMixedOffsets(), sourceStrides)) {
    if (ShapedType::isDynamic(stride))
      return ShapedType::kDynamic;
    std::optional<int64_t> c = getConstantIntValue(ofr);
    int64_t multiple = c ? (*c == 0 ? int64_t(1) << 62 : std::abs(*c))
                         : knownMultiple(cast<Value>(ofr));
    if (multipleOfProduct(multiple, stride) % width != 0)
      return ShapedType::kDynamic;
  }
  return 0;
}

int64_t tile_lowering::runVectorWidth(int64_t run, int64_t maxWidth,
                                      ArrayRef<int64_t> strides, int64_t offset,
                                      int64_t constant) {
  int64_t w = std::min(maxWidth, run);
  w = w > 1 ? int64_t(1) << llvm::Log2_64(w) : 1;
  while (w > 1 && run % w != 0)
    w /= 2;
  if (ShapedType::isDynamic(offset))
    return 1;
  while (w > 1 && (offset % w != 0 || constant % w != 0 ||
                   !outerStridesDivisible(strides, w)))
    w /= 2;
  return w;
}

int64_t tile_lowering::rowVectorWidth(MemRefType tile, MemRefType global,
                                      Value origin, int64_t vector,
                                      StringRef globalName, std::string &why,
                                      int64_t rowMultiple) {
  int64_t asked =
      std::min<int64_t>(vector, 16 / elementBytes(tile.getElementType()));
  if (asked <= 1 || tile.getRank() == 0)
    return 1;
  llvm::raw_string_ostream os(why);
  auto narrower = [&](int64_t w) -> llvm::raw_ostream & {
    return os << w << " element(s) at a time instead of " << asked << ": ";
  };
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(tile.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 || ShapedType::isDynamic(offset)) {
    narrower(1) << "the tile's innermost dimension is not contiguous";
    return 1;
  }
  // Rows of a row-major memref start at multiples of its row length: only
  // the innermost size must be known, or known to be a multiple (a dynamic
  // M keeps vector copies; a dynamic K needs its multiple_of).
  bool dynamicRows = ShapedType::isDynamic(global.getShape().back());
  if (!global.getLayout().isIdentity() || (dynamicRows && rowMultiple == 1)) {
    narrower(1) << "the " << globalName
                << (dynamicRows ? "'s rows have a dynamic length not known "
                                  "to be a multiple of anything (give the "
                                  "axis a multiple_of)"
                                : " is not a row-major memref");
    return 1;
  }
  int64_t rowLen = dynamicRows ? rowMultiple : global.getShape().back();
  int64_t tileRow = tile.getShape().back();
  int64_t known = knownMultiple(origin);
  auto fits = [&](int64_t w) {
    return rowLen % w == 0 && tileRow % w == 0 && known % w == 0 &&
           offset % w == 0 && outerStridesDivisible(strides, w);
  };
  int64_t w = asked;
  while (w > 1 && !fits(w))
    w /= 2;
  if (w < asked) {
    narrower(w);
    if (rowLen % asked != 0 && dynamicRows)
      os << "the " << globalName << "'s rows are known to be a multiple of "
         << rowLen << " elements only";
    else if (rowLen % asked != 0)
      os << "the " << globalName << "'s rows are " << rowLen
         << " elements long";
    else if (tileRow % asked != 0)
      os << "the tile's rows are " << tileRow << " elements long";
    else if (known % asked != 0)
      os << "the window's column offset is not known to be a multiple of "
         << asked;
    else
      os << "the tile's row stride is not a multiple of " << asked;
  }
  return w;
}

int64_t tile_lowering::copyVectorWidth(CopyOp op, std::string &why) {
  // A 0-d window (one element the tile fixes: a sequence's length) is one
  // element.
  if (op.getOffsets().empty())
    return 1;
  int64_t vector = op.getVector();
  // A swizzle keeps runs of 2^base elements together: wider vectors would
  // straddle its chunks.
  if (auto alloc = op.getTarget().getDefiningOp<AllocSharedOp>())
    if (SwizzleAttr swizzle = alloc.getSwizzle().value_or(SwizzleAttr());
        swizzle && vector > (int64_t(1) << swizzle.getBase())) {
      vector = int64_t(1) << swizzle.getBase();
      llvm::raw_string_ostream(why)
          << vector << " element(s) at a time instead of " << op.getVector()
          << ": the target's swizzle moves chunks of " << vector;
    }
  // A view that fixes outer dimensions of a row-major memref (a batch's
  // matrix) and keeps whole rows has the rows of that memref: each starts
  // at a multiple of the row length, whatever the fixed indices.
  auto source = cast<MemRefType>(op.getSource().getType());
  if (auto view = op.getSource().getDefiningOp<memref::SubViewOp>()) {
    MemRefType base = view.getSourceType();
    ArrayRef<int64_t> offsets = view.getStaticOffsets(),
                      sizes = view.getStaticSizes(),
                      strides = view.getStaticStrides();
    // (Only the row length must be static: outer sizes a symbolic length
    // leaves dynamic do not move where rows start.)
    bool wholeRows = base.getLayout().isIdentity() &&
                     !ShapedType::isDynamic(base.getShape().back()) &&
                     source.getRank() >= 1 && offsets.back() == 0 &&
                     sizes.back() == base.getShape().back() &&
                     llvm::all_of(strides, [](int64_t s) { return s == 1; });
    if (wholeRows)
      source = MemRefType::get(source.getShape(), source.getElementType());
  }
  return rowVectorWidth(cast<MemRefType>(op.getTarget().getType()), source,
                        op.getOffsets().back(), vector, "source", why,
                        op.getRowMultiple());
}

bool tile_lowering::isAsyncCopyWidth(int64_t bytes) {
  return bytes == 4 || bytes == 8 || bytes == 16;
}

bool tile_lowering::lowersToAsyncCopy(CopyOp op) {
  if (op.getStaged() != CopyStaging::async)
    return false;
  std::string why;
  Type elem = cast<MemRefType>(op.getTarget().getType()).getElementType();
  return isAsyncCopyWidth(copyVectorWidth(op, why) * elementBytes(elem));
}

SmallVector<Value> tile_lowering::combineFused(RewriterBase &rw, Location loc,
                                               TileComputeOp op,
                                               ValueRange accs,
                                               ValueRange values) {
  if (accs.size() == 1 && op.getCombiner() == CombinerKind::sum)
    if (auto mul = values[0].getDefiningOp<arith::MulFOp>();
        mul && mul->use_empty()) {
      Value fma =
          math::FmaOp::create(rw, loc, mul.getLhs(), mul.getRhs(), accs[0]);
      rw.eraseOp(mul);
      return {fma};
    }
  return combineAccumulators(rw, loc, *op.getCombiner(), op.getReducer(), accs,
                             values);
}

SmallVector<Value> tile_lowering::accessIndices(OpBuilder &b, Location loc,
                                                AffineMap map,
                                                ArrayRef<Value> points,
                                                ArrayRef<Value> locals,
                                                bool isFragment) {
  SmallVector<Value> idx;
  for (AffineExpr e : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(e)) {
      idx.push_back(isFragment ? locals[dim.getPosition()]
                               : points[dim.getPosition()]);
      continue;
    }
    idx.push_back(affine::expandAffineExpr(b, loc, e, points, ValueRange{}));
  }
  return idx;
}
