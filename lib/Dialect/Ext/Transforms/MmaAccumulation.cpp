//===- MmaAccumulation.cpp - tile computes on tensor cores ----------------===//
//
// The accumulation strategy of #ext.mma layouts: a product under a sum
// combiner, C += A * B, with A and B in shared memory and C in the lanes'
// registers in the instruction's accumulator layout, becomes per warp and
// instruction k-step
//
//   NVIDIA: nvgpu.ldmatrix of each A and B fragment (transposed where the
//           shared tile keeps the operand's K outermost) and one
//           nvgpu.mma.sync per instruction tile of the warp tile;
//   AMD:    operand loads from LDS (vectors where K is innermost) and one
//           amdgpu.mfma per instruction tile.
//
// Per-lane operand layouts (PTX ISA "warp-level matrix fragments", AMD's
// matrix instruction tables):
//   m16n8k16 A (vector<4x2>): row g + 8 (r mod 2), k 2 t + c + 8 (r div 2)
//            B (vector<2x2>): k 2 t + c + 8 r, col g
//   m16n8k8  A (vector<4x1>): row g + 8 (r mod 2), k t + 4 (r div 2)
//            B (vector<2x1>): k t + 4 r, col g
//   with g = lane / 4, t = lane mod 4;
//   MFMA MxNxK A: row lane mod M, k (lane div M) * K M / 64 + item; B alike.
// A factor computed from its inputs (C += A * g(Wq, S, Z): a weight
// dequantized from packed bytes) is built element by element in that
// layout: its inputs loaded at their tile maps evaluated at the element's
// (n, k), g's ops cloned over them. Bodies of another shape fall back to the
// element-wise strategy.
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Support/IndexConstant.h"
#include "ext/Dialect/Ext/Transforms/TileAccumulation.h"

#include "FactorLanes.h"
#include "WarpgroupMmaAccumulation.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace ext;

namespace {

/// A tile compute recognised as C += A * B for a matrix instruction.
struct MmaProblem {
  unsigned mAxis = 0, nAxis = 0, kAxis = 0;
  Value a, b;          // shared tiles
  AffineMap aMap, bMap; // their (tile-local) indexing maps
  Type aElem;
  int64_t tileK = 0;
  // A factor with ops (built per element), or none where A or B is read
  // directly.
  std::optional<ProductFactor> aFactor, bFactor;

  const std::optional<ProductFactor> &factor(bool isA) const {
    return isA ? aFactor : bFactor;
  }

  /// Whether K is the innermost dimension of A's (`isA`) or B's shared tile.
  bool kInner(bool isA) const {
    AffineMap map = isA ? aMap : bMap;
    return cast<AffineDimExpr>(map.getResult(1)).getPosition() == kAxis;
  }
};

bool isWorkgroup(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type);
}

/// Which axes a rank-2 map indexes, in order; fails unless both results are
/// plain axes.
std::optional<std::pair<unsigned, unsigned>> mapAxes(AffineMap map) {
  if (map.getNumResults() != 2)
    return std::nullopt;
  auto d0 = dyn_cast<AffineDimExpr>(map.getResult(0));
  auto d1 = dyn_cast<AffineDimExpr>(map.getResult(1));
  if (!d0 || !d1)
    return std::nullopt;
  return std::make_pair(d0.getPosition(), d1.getPosition());
}

std::string matchSteps(TileComputeOp op, MmaLayoutAttr mma,
                       TileAccumulationContext &context, MmaProblem &p);

/// The axes `f` reads: those of its inputs' maps and its ext.index ops.
llvm::SmallBitVector factorAxes(TileComputeOp op, const ProductFactor &f) {
  llvm::SmallBitVector used(op.getAxisList().size());
  for (unsigned i : f.inputs)
    for (unsigned d = 0; d < used.size(); ++d)
      if (op.getInputMap(i).isFunctionOfDim(d))
        used.set(d);
  for (StringRef name : f.axes)
    if (std::optional<unsigned> a = op.getAxisPosition(name))
      used.set(*a);
  return used;
}

/// Matches C += f(A reads) * g(B reads) with a factor that has ops: each
/// factor's inputs in shared memory, f a function of (M, K), g of (K, N).
std::string matchFactors(TileComputeOp op, MmaLayoutAttr mma,
                         const OperandProductBody &product, MmaProblem &p) {
  if (mma.isWarpgroup())
    return "a factor computed from its inputs (a dequantized operand) is "
           "built in registers, which mma.sync and MFMA take and wgmma's "
           "shared-memory operands do not";
  ProductFactor lhs = product.lhs, rhs = product.rhs;
  if (factorAxes(op, lhs).test(p.nAxis))
    std::swap(lhs, rhs);
  auto within = [&](const ProductFactor &f, unsigned x) {
    llvm::SmallBitVector used = factorAxes(op, f);
    used.reset(x);
    used.reset(p.kAxis);
    return used.none();
  };
  if (!within(lhs, p.mAxis) || !within(rhs, p.nAxis))
    return "its factors are not functions of (M, K) and (K, N)";
  for (const ProductFactor *f : {&lhs, &rhs})
    for (unsigned i : f->inputs)
      if (!isWorkgroup(op.getInputs()[i]))
        return "an input is not in shared memory";
  // A factor without ops is read as a plain operand (ldmatrix).
  auto direct = [&](const ProductFactor &f, Value &tile, AffineMap &map,
                    unsigned x) {
    if (!f.ops.empty())
      return true;
    tile = op.getInputs()[f.inputs[0]];
    map = op.getInputMap(f.inputs[0]);
    std::optional<std::pair<unsigned, unsigned>> ax = mapAxes(map);
    return ax && ((ax->first == x && ax->second == p.kAxis) ||
                  (ax->first == p.kAxis && ax->second == x));
  };
  if (!direct(lhs, p.a, p.aMap, p.mAxis) || !direct(rhs, p.b, p.bMap, p.nAxis))
    return "its inputs are not indexed (M, K) and (K, N) in some order";
  p.aElem = lhs.value.getType();
  Type bElem = rhs.value.getType();
  if (!mma.takesInputType(p.aElem) || p.aElem != bElem) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "the instruction takes " << mma.inputTypesText()
       << " inputs of one type, not " << p.aElem << " and " << bElem;
    return s;
  }
  if (!lhs.ops.empty())
    p.aFactor = lhs;
  if (!rhs.ops.empty())
    p.bFactor = rhs;
  return "";
}

/// Matches `op` against the instruction; returns why it cannot run on it.
std::string matchProblem(TileComputeOp op, MmaLayoutAttr mma,
                         TileAccumulationContext &context, MmaProblem &p) {
  std::optional<ProductBody> product = matchProductBody(op);
  std::optional<OperandProductBody> factors;
  if (!product) {
    factors = matchOperandProductBody(op);
    if (!factors || factors->isPlain())
      return "its body is not a product under a sum combiner (C += A * B)";
  }
  SmallVector<AxisAttr> axes = op.getAxisList();
  SmallVector<unsigned> spatial, reduce;
  for (auto [a, axis] : llvm::enumerate(axes))
    (axis.isSpatial() ? spatial : reduce).push_back(a);
  if (spatial.size() != 2 || reduce.size() != 1)
    return "it has not two spatial axes and one reduce axis";
  p.mAxis = spatial[0];
  p.nAxis = spatial[1];
  p.kAxis = reduce[0];
  std::optional<std::pair<unsigned, unsigned>> out =
      mapAxes(op.getOutputMap(0));
  if (!out || out->first != p.mAxis || out->second != p.nAxis)
    return "its accumulator is not indexed (M, N)";
  if (factors) {
    if (std::string why = matchFactors(op, mma, *factors, p); !why.empty())
      return why;
    return matchSteps(op, mma, context, p);
  }
  Value lhs = op.getInputs()[product->lhsInput];
  Value rhs = op.getInputs()[product->rhsInput];
  AffineMap lhsMap = op.getInputMap(product->lhsInput);
  AffineMap rhsMap = op.getInputMap(product->rhsInput);
  if (lhsMap.isFunctionOfDim(p.nAxis))
    std::swap(lhs, rhs), std::swap(lhsMap, rhsMap);
  auto uses = [&](AffineMap map, unsigned x, unsigned y) {
    std::optional<std::pair<unsigned, unsigned>> ax = mapAxes(map);
    return ax && ((ax->first == x && ax->second == y) ||
                  (ax->first == y && ax->second == x));
  };
  if (!uses(lhsMap, p.mAxis, p.kAxis) || !uses(rhsMap, p.kAxis, p.nAxis))
    return "its inputs are not indexed (M, K) and (K, N) in some order";
  if (!isWorkgroup(lhs) || !isWorkgroup(rhs))
    return "an input is not in shared memory";
  p.a = lhs;
  p.b = rhs;
  p.aMap = lhsMap;
  p.bMap = rhsMap;
  p.aElem = cast<MemRefType>(lhs.getType()).getElementType();
  Type bElem = cast<MemRefType>(rhs.getType()).getElementType();
  if (!mma.takesInputType(p.aElem) || !mma.takesInputType(bElem)) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "the instruction takes " << mma.inputTypesText() << " inputs, not "
       << p.aElem << " and " << bElem;
    return s;
  }
  return matchSteps(op, mma, context, p);
}

/// The checks of the accumulator and the k-step that every product shares.
std::string matchSteps(TileComputeOp op, MmaLayoutAttr mma,
                       TileAccumulationContext &context, MmaProblem &p) {
  SmallVector<AxisAttr> axes = op.getAxisList();
  Value acc = op.getOutputs()[0];
  if (!cast<MemRefType>(acc.getType()).getElementType().isF32())
    return "the accumulator is not f32";
  p.tileK = axes[p.kAxis].getExtent();
  std::optional<int64_t> kBound =
      getConstantIntValue(context.getBounds()[p.kAxis]);
  if (!kBound || *kBound != p.tileK)
    return "the k-step is not a full tile (a ragged step without zero fill)";
  if (p.tileK % mma.getK() != 0)
    return "the k tile is not a multiple of the instruction's K";
  return "";
}

/// Emits the MMA of one tile compute.
class MmaEmitter {
public:
  MmaEmitter(TileAccumulationContext &context, TileComputeOp op,
             MmaLayoutAttr mma, const MmaProblem &p)
      : rw(context.getRewriter()), loc(op.getLoc()), op(op), mma(mma), p(p),
        storage(context.getFragmentStorage(op.getOutputs()[0])) {
    ArrayRef<int64_t> warps = mma.getWarps();
    warpTileM = op.getAxis(p.mAxis).getExtent() / warps[0];
    warpTileN = op.getAxis(p.nAxis).getExtent() / warps[1];
    tilesM = warpTileM / mma.getM();
    tilesN = warpTileN / mma.getN();
    Value tid = context.getThreadId();
    int64_t ws = mma.getWarpSize();
    lane = arith::RemUIOp::create(rw, loc, tid, c(ws));
    Value warp = arith::DivUIOp::create(rw, loc, tid, c(ws));
    rowBase = arith::MulIOp::create(
        rw, loc, arith::DivUIOp::create(rw, loc, warp, c(warps[1])),
        c(warpTileM));
    colBase = arith::MulIOp::create(
        rw, loc, arith::RemUIOp::create(rw, loc, warp, c(warps[1])),
        c(warpTileN));
  }

  void emit() {
    SmallVector<SmallVector<Value>> acc(tilesM, SmallVector<Value>(tilesN));
    for (int64_t i = 0; i < tilesM; ++i)
      for (int64_t j = 0; j < tilesN; ++j)
        acc[i][j] = loadAccumulator(i, j);
    for (int64_t k0 = 0; k0 < p.tileK; k0 += mma.getK()) {
      SmallVector<Value> aFrags, bFrags;
      for (int64_t i = 0; i < tilesM; ++i)
        aFrags.push_back(loadOperand(/*isA=*/true, i, k0));
      for (int64_t j = 0; j < tilesN;) {
        // Two n-tiles' B fragments in one ldmatrix.x4 where it can.
        if (j + 1 < tilesN && pairableB()) {
          auto [first, second] = loadNvidiaBPair(j, k0);
          bFrags.append({first, second});
          j += 2;
          continue;
        }
        bFrags.push_back(loadOperand(/*isA=*/false, j++, k0));
      }
      for (int64_t i = 0; i < tilesM; ++i)
        for (int64_t j = 0; j < tilesN; ++j)
          acc[i][j] = multiply(aFrags[i], bFrags[j], acc[i][j]);
    }
    for (int64_t i = 0; i < tilesM; ++i)
      for (int64_t j = 0; j < tilesN; ++j)
        storeAccumulator(i, j, acc[i][j]);
  }

  /// Why operand loads are scalar instead of ldmatrix / vectors (empty
  /// when they are not).
  std::string scalarReason;

private:
  Value c(int64_t v) { return constIndex(rw, loc, v); }
  Value add(Value a, int64_t b) {
    return b == 0 ? a : rw.createOrFold<arith::AddIOp>(loc, a, c(b));
  }
  Value add(Value a, Value b) {
    return rw.createOrFold<arith::AddIOp>(loc, a, b);
  }
  Value mul(Value a, int64_t b) {
    return rw.createOrFold<arith::MulIOp>(loc, a, c(b));
  }
  Value div(Value a, int64_t b) {
    return rw.createOrFold<arith::DivUIOp>(loc, a, c(b));
  }
  Value rem(Value a, int64_t b) {
    return rw.createOrFold<arith::RemUIOp>(loc, a, c(b));
  }

  /// Storage indices of accumulator item `item` of instruction tile (i, j).
  std::pair<int64_t, int64_t> accIndex(int64_t i, int64_t j, int64_t item) {
    if (mma.isNvidia()) // vector<2x2>: [row half][column]
      return {i * 2 + item / 2, j * 2 + item % 2};
    return {i * mma.getAccumulatorsPerLane() + item, j};
  }

  VectorType accType() {
    Type f32 = rw.getF32Type();
    if (mma.isNvidia())
      return VectorType::get({2, 2}, f32);
    return VectorType::get({mma.getAccumulatorsPerLane()}, f32);
  }

  Value loadAccumulator(int64_t i, int64_t j) {
    SmallVector<Value> items;
    for (int64_t item = 0; item < mma.getAccumulatorsPerLane(); ++item) {
      auto [r, col] = accIndex(i, j, item);
      items.push_back(
          memref::LoadOp::create(rw, loc, storage, ValueRange{c(r), c(col)}));
    }
    return vector::FromElementsOp::create(rw, loc, accType(), items);
  }

  void storeAccumulator(int64_t i, int64_t j, Value acc) {
    VectorType type = accType();
    for (int64_t item = 0; item < mma.getAccumulatorsPerLane(); ++item) {
      auto [r, col] = accIndex(i, j, item);
      SmallVector<int64_t> pos =
          type.getRank() == 2 ? SmallVector<int64_t>{item / 2, item % 2}
                              : SmallVector<int64_t>{item};
      Value v = vector::ExtractOp::create(rw, loc, acc, pos);
      memref::StoreOp::create(rw, loc, v, storage, ValueRange{c(r), c(col)});
    }
  }

  /// Indices into an operand's shared tile of the element at (outer
  /// coordinate `x` along M or N, `k`).
  SmallVector<Value> tileIndices(bool isA, Value x, Value k) {
    AffineMap map = isA ? p.aMap : p.bMap;
    unsigned xAxis = isA ? p.mAxis : p.nAxis;
    SmallVector<Value> idx;
    for (AffineExpr e : map.getResults())
      idx.push_back(cast<AffineDimExpr>(e).getPosition() == xAxis ? x : k);
    return idx;
  }

  /// The operand's element at tile-local (`x` along M or N, `k`), read
  /// from its tile.
  Value element(bool isA, Value x, Value k) {
    return memref::LoadOp::create(rw, loc, isA ? p.a : p.b,
                                  tileIndices(isA, x, k));
  }

  /// A computed factor's `lanes` consecutive k at tile-local (x, kScale *
  /// kVar + kConst + c) (FactorLanes.h).
  Value factorRun(bool isA, Value x, Value kVar, int64_t kVarRange,
                  int64_t kScale, int64_t kConst, int64_t lanes) {
    return buildFactorLanes(rw, loc, op, *p.factor(isA),
                            isA ? p.mAxis : p.nAxis, p.kAxis, x, kVar,
                            kVarRange, kScale, kConst, lanes);
  }

  /// Whether a vector read (ldmatrix rows, AMD operand vectors) of `elems`
  /// consecutive elements can read the operand's tile: contiguous rows
  /// starting aligned, and a swizzle, if any, that keeps runs of `elems`
  /// together.
  bool vectorReadable(bool isA, int64_t elems) {
    Value tile = isA ? p.a : p.b;
    if (auto alloc = tile.getDefiningOp<AllocSharedOp>();
        alloc && alloc.getSwizzle() &&
        (int64_t(1) << alloc.getSwizzle()->getBase()) < elems) {
      scalarReason = "the shared tile's swizzle moves chunks of fewer than " +
                     std::to_string(elems) + " elements";
      return false;
    }
    auto type = cast<MemRefType>(tile.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        strides[1] != 1 || ShapedType::isDynamic(strides[0]) ||
        strides[0] % elems != 0 || ShapedType::isDynamic(offset) ||
        offset % elems != 0) {
      scalarReason = "the shared tile's rows are not aligned to " +
                     std::to_string(elems) + " elements";
      return false;
    }
    return true;
  }

  /// Fragment of instruction tile `t` (along M for A, N for B) at `k0`.
  Value loadOperand(bool isA, int64_t t, int64_t k0) {
    int64_t extent = isA ? mma.getM() : mma.getN();
    Value base = add(isA ? rowBase : colBase, t * extent);
    return mma.isNvidia() ? loadNvidia(isA, base, k0)
                          : loadAmd(isA, base, k0);
  }

  /// Whether B fragments come from ldmatrix (16-bit, rows readable as
  /// 16-byte vectors), so that two n-tiles share one .x4.
  bool pairableB() {
    return mma.isNvidia() && p.aElem.getIntOrFloatBitWidth() == 16 &&
           !p.bFactor && vectorReadable(/*isA=*/false, 8);
  }

  /// The B fragments of n-tiles j and j + 1 at `k0` by one ldmatrix.x4:
  /// lane l gives row l mod 8 of matrix q = l / 8, which is n-tile j + q / 2
  /// and K half q mod 2, so registers 0-1 are tile j's fragment and 2-3
  /// tile j + 1's.
  std::pair<Value, Value> loadNvidiaBPair(int64_t j, int64_t k0) {
    Value base = add(colBase, j * mma.getN());
    Value q = div(lane, 8), r = rem(lane, 8);
    Value x = add(base, mul(div(q, 2), 8));
    Value k = add(mul(rem(q, 2), 8), k0);
    bool inner = p.kInner(/*isA=*/false);
    if (inner) // B as [n][k]: the lanes' rows are n
      x = add(x, r);
    else // B as [k][n], transposed: the lanes' rows are k
      k = add(k, r);
    auto type = VectorType::get({4, 2}, p.aElem);
    Value both = nvgpu::LdMatrixOp::create(rw, loc, type, p.b,
                                           tileIndices(false, x, k),
                                           /*transpose=*/!inner, 4);
    // Row moves (lowered to LLVM as array element moves, unlike a 2-D
    // strided slice).
    auto fragType = VectorType::get({2, 2}, p.aElem);
    auto half = [&](int64_t row) -> Value {
      Value frag = arith::ConstantOp::create(
          rw, loc, fragType, rw.getZeroAttr(fragType));
      for (int64_t i = 0; i < 2; ++i)
        frag = vector::InsertOp::create(
            rw, loc, vector::ExtractOp::create(rw, loc, both, row + i), frag,
            i);
      return frag;
    };
    return {half(0), half(2)};
  }

  Value loadNvidia(bool isA, Value base, int64_t k0) {
    bool half = p.aElem.getIntOrFloatBitWidth() == 16;
    int64_t rows = isA ? 4 : 2, cols = half ? 2 : 1;
    auto type = VectorType::get({rows, cols}, p.aElem);
    Value tile = isA ? p.a : p.b;
    // ldmatrix moves 16-byte rows of 8x8 16-bit matrices (it could move
    // tf32 pairs untransposed, which the emulator does not execute: tf32
    // stays on loads whose numbers it checks).
    if (!half)
      scalarReason = "tf32 operands are read element by element (ldmatrix "
                     "moves 16-bit elements)";
    if (half && !p.factor(isA) && vectorReadable(isA, 8)) {
      bool inner = p.kInner(isA);
      // Lane l gives the row address of matrix l / 8, row l mod 8.
      Value q = div(lane, 8), r = rem(lane, 8);
      int64_t kHalf = 8; // K of one 8x8 16-bit matrix
      Value x, k;
      if (isA && inner) { // matrices (m 0-7 | 8-15) x (k lo | hi)
        x = add(base, rem(lane, 16));
        k = add(mul(div(lane, 16), kHalf), k0);
      } else if (isA) { // K outermost: rows are k, transposed
        x = add(base, mul(rem(q, 2), 8));
        k = add(add(r, mul(div(q, 2), 8)), k0);
      } else if (inner) { // B as [n][k]: matrices (k lo | hi)
        x = add(base, r);
        k = add(mul(rem(q, 2), kHalf), k0);
      } else { // B as [k][n], transposed
        x = base;
        k = add(rem(lane, 16), k0);
      }
      return nvgpu::LdMatrixOp::create(rw, loc, type, tile,
                                       tileIndices(isA, x, k),
                                       /*transpose=*/!inner, rows);
    }
    Value g = div(lane, 4), tg = rem(lane, 4);
    if (p.factor(isA)) { // each register's run of k built at once
      Value frag =
          arith::ConstantOp::create(rw, loc, type, rw.getZeroAttr(type));
      for (int64_t r = 0; r < rows; ++r) {
        Value x = isA ? add(base, add(g, 8 * (r % 2))) : add(base, g);
        int64_t kConst = (half ? 8 : 4) * (isA ? r / 2 : r) + k0;
        Value run = factorRun(isA, x, tg, 4, half ? 2 : 1, kConst, cols);
        frag = vector::InsertOp::create(rw, loc, run, frag, r);
      }
      return frag;
    }
    // Scalar loads by the per-lane layout.
    SmallVector<Value> items;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t col = 0; col < cols; ++col) {
        Value x, k;
        if (half) {
          k = add(mul(tg, 2), col + 8 * (isA ? r / 2 : r) + k0);
          x = isA ? add(base, add(g, 8 * (r % 2))) : add(base, g);
        } else {
          k = add(tg, 4 * (isA ? r / 2 : r) + k0);
          x = isA ? add(base, add(g, 8 * (r % 2))) : add(base, g);
        }
        items.push_back(element(isA, x, k));
      }
    return vector::FromElementsOp::create(rw, loc, type, items);
  }

  Value loadAmd(bool isA, Value base, int64_t k0) {
    int64_t m = isA ? mma.getM() : mma.getN();
    int64_t kPerLane = mma.getK() * m / mma.getWarpSize();
    Value tile = isA ? p.a : p.b;
    Value x = add(base, rem(lane, m));
    if (p.factor(isA)) {
      Value run = factorRun(isA, x, div(lane, m), mma.getWarpSize() / m,
                            kPerLane, k0, kPerLane);
      return kPerLane == 1 ? vector::ExtractOp::create(rw, loc, run, 0) : run;
    }
    Value kFirst = add(mul(div(lane, m), kPerLane), k0);
    if (kPerLane == 1)
      return element(isA, x, kFirst);
    auto type = VectorType::get({kPerLane}, p.aElem);
    if (!p.factor(isA) && p.kInner(isA) && vectorReadable(isA, kPerLane))
      return vector::LoadOp::create(
          rw, loc, type, tile, tileIndices(isA, x, kFirst),
          /*nontemporal=*/false,
          llvm::MaybeAlign(kPerLane * p.aElem.getIntOrFloatBitWidth() / 8));
    SmallVector<Value> items;
    for (int64_t e = 0; e < kPerLane; ++e)
      items.push_back(element(isA, x, add(kFirst, e)));
    return vector::FromElementsOp::create(rw, loc, type, items);
  }

  Value multiply(Value a, Value b, Value acc) {
    if (mma.isNvidia())
      return nvgpu::MmaSyncOp::create(
          rw, loc, a, b, acc,
          ArrayRef<int64_t>{mma.getM(), mma.getN(), mma.getK()},
          /*tf32Enabled=*/p.aElem.isF32());
    return amdgpu::MFMAOp::create(
        rw, loc, acc.getType(), mma.getM(), mma.getN(), mma.getK(),
        /*blocks=*/1, a, b, acc);
  }

  RewriterBase &rw;
  Location loc;
  TileComputeOp op;
  MmaLayoutAttr mma;
  const MmaProblem &p;
  Value storage;
  int64_t warpTileM = 0, warpTileN = 0, tilesM = 0, tilesN = 0;
  Value lane, rowBase, colBase;
};

struct MmaAccumulationModel
    : TileAccumulationAttrInterface::ExternalModel<MmaAccumulationModel,
                                                   MmaLayoutAttr> {
  LogicalResult emitAccumulation(Attribute attr,
                                 TileAccumulationContext &context,
                                 Operation *operation) const {
    auto mma = cast<MmaLayoutAttr>(attr);
    auto op = cast<TileComputeOp>(operation);
    const std::optional<ChipInfo> &chip = context.getChip();
    if (chip && !mma.existsOn(*chip))
      return op.emitOpError()
             << "has fragment layout " << mma << ", whose instruction does "
             << "not exist on chip " << chip->name;
    MmaProblem problem;
    std::string why = matchProblem(op, mma, context, problem);
    if (!why.empty()) {
      // Main-loop computes read shared tiles; a decomposition's fixup
      // (combining workspace partials) is element-wise by nature.
      bool mainLoop = llvm::any_of(op.getInputs(), isWorkgroup);
      if (mainLoop)
        op.emitRemark() << "accumulates without tensor cores (element-wise, "
                           "in the layout of "
                        << mma << "): " << why;
      return context.emitElementwise(op);
    }
    if (mma.isWarpgroup()) {
      return emitWarpgroupMma(
          context, op,
          {problem.a, problem.b, problem.kInner(/*isA=*/true),
           problem.kInner(/*isA=*/false), problem.aElem, problem.tileK,
           op.getAxis(problem.nAxis).getExtent()});
    }
    MmaEmitter emitter(context, op, mma, problem);
    emitter.emit();
    if (!emitter.scalarReason.empty())
      op.emitRemark() << "reads MMA operands from shared memory with scalar "
                         "loads: "
                      << emitter.scalarReason;
    return success();
  }
};

} // namespace

void ext::attachMmaAccumulationModel(MLIRContext *context) {
  MmaLayoutAttr::attachInterface<MmaAccumulationModel>(*context);
}
