//===- FactorLanes.cpp - a computed operand, several k at once ------------===//
//
// See FactorLanes.h. Each value of the factor's body is kept in the most
// specific form known: per-lane affine expressions (index arithmetic,
// folded to constants where k's parity decides it), one scalar for every
// lane, or a vector of the lanes; the magic-number conversion takes a
// value's unsigned bound, tracked through masks, shifts and extensions.
//
//===----------------------------------------------------------------------===//

#include "FactorLanes.h"
#include "LaneIndices.h"

#include "ext/Support/IndexConstant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"


using namespace mlir;
using namespace ext;

namespace {

/// One body value across the lanes.
struct Entry {
  SmallVector<AffineExpr> exprs; // index arithmetic, per lane
  Type type;                     // the body value's type
  Value uniform;                 // the same value in every lane
  Value lanes;                   // vector<L x T>
  Value wide16;                  // L == 2 integers below 2^16: an i32 with
                                 // lane 0 in its low half, lane 1 its high
  Value magic;                   // a converted integer: its value + offset,
  double offset = 0;             // before the magic number's subtraction
  uint64_t bound = ~uint64_t(0); // unsigned upper bound of integer lanes
  Operation *origin = nullptr;   // the body op it was cloned from
};

class LaneBuilder {
public:
  LaneBuilder(RewriterBase &rw, Location loc, TileComputeOp op,
              unsigned xAxis, unsigned kAxis, Value x, Value kVar,
              int64_t kVarRange, int64_t kScale, int64_t kConst,
              int64_t lanes)
      : rw(rw), loc(loc), op(op), xAxis(xAxis), kAxis(kAxis), x(x),
        kVar(kVar), kVarRange(kVarRange), kScale(kScale), kConst(kConst),
        L(lanes), ix(rw.getContext(), kVarRange) {}

  Value build(const ProductFactor &f) {
    Block &body = op.getBodyBlock();
    for (unsigned i : f.inputs)
      table[body.getArgument(i)] = loadInput(i);
    for (Operation *o : f.ops)
      visit(o);
    return vectorOf(get(f.value), f.value.getType());
  }

private:
  // --- forms ------------------------------------------------------------
  VectorType vecOf(Type t) { return VectorType::get({L}, t); }

  /// `e` (over the compute's axes) at lane `c`: d0 = x, d1 = kVar.
  AffineExpr atLane(AffineExpr e, int64_t c) {
    MLIRContext *ctx = rw.getContext();
    SmallVector<AffineExpr> dims(op.getAxisList().size(),
                                 getAffineConstantExpr(0, ctx));
    dims[xAxis] = getAffineDimExpr(0, ctx);
    dims[kAxis] = getAffineDimExpr(1, ctx) * kScale + kConst + c;
    return ix.simplify(e.replaceDimsAndSymbols(dims, {}));
  }

  /// `e` over (x, kVar) as index arithmetic (tile-local indices are never
  /// negative: floordiv and mod are the unsigned divisions).
  Value expand(AffineExpr e) {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      return d.getPosition() == 0 ? x : kVar;
    if (auto cst = dyn_cast<AffineConstantExpr>(e))
      return constIndex(rw, loc, cst.getValue());
    if (auto sym = dyn_cast<AffineSymbolExpr>(e))
      return ix.getSymbols()[sym.getPosition()];
    auto bin = cast<AffineBinaryOpExpr>(e);
    Value l = expand(bin.getLHS()), r = expand(bin.getRHS());
    switch (e.getKind()) {
    case AffineExprKind::Add:
      return rw.createOrFold<arith::AddIOp>(loc, l, r);
    case AffineExprKind::Mul:
      return rw.createOrFold<arith::MulIOp>(loc, l, r);
    case AffineExprKind::FloorDiv:
      return rw.createOrFold<arith::DivUIOp>(loc, l, r);
    case AffineExprKind::CeilDiv:
      return rw.createOrFold<arith::CeilDivUIOp>(loc, l, r);
    default:
      return rw.createOrFold<arith::RemUIOp>(loc, l, r);
    }
  }

  bool isUniform(const Entry &e) {
    return e.uniform || (!e.exprs.empty() && ix.allSame(e.exprs));
  }
  /// `e` as a value of `type` (an index or an integer the body cast it to).
  Value materialize(AffineExpr e, Type type) {
    if (auto cst = dyn_cast<AffineConstantExpr>(e); cst && !type.isIndex())
      return arith::ConstantOp::create(
          rw, loc, rw.getIntegerAttr(type, cst.getValue()));
    Value v = expand(e);
    return type.isIndex() ? v : rw.createOrFold<arith::IndexCastOp>(loc, type, v);
  }
  Value scalarOf(const Entry &e) {
    return e.uniform ? e.uniform : materialize(e.exprs[0], e.type);
  }
  Value vectorOf(const Entry &e, Type elem) {
    if (e.lanes)
      return e.lanes;
    if (isUniform(e))
      return rw.createOrFold<vector::BroadcastOp>(loc, vecOf(elem), scalarOf(e));
    if (auto values = constants(e)) {
      SmallVector<Attribute> attrs;
      for (int64_t v : *values)
        attrs.push_back(rw.getIntegerAttr(elem, v));
      return arith::ConstantOp::create(
          rw, loc, DenseElementsAttr::get(vecOf(elem), attrs));
    }
    SmallVector<Value> items;
    for (AffineExpr x : e.exprs)
      items.push_back(materialize(x, elem));
    return vector::FromElementsOp::create(rw, loc, vecOf(elem), items);
  }
  Value laneOf(const Entry &e, int64_t c) {
    if (isUniform(e))
      return scalarOf(e);
    if (!e.exprs.empty())
      return materialize(e.exprs[c], e.type);
    return vector::ExtractOp::create(rw, loc, e.lanes, c);
  }

  /// The integer constants of the lanes, when they are known.
  std::optional<SmallVector<int64_t>> constants(const Entry &e) {
    SmallVector<int64_t> out;
    if (!e.exprs.empty()) {
      for (AffineExpr x : e.exprs) {
        auto cst = dyn_cast<AffineConstantExpr>(x);
        if (!cst)
          return std::nullopt;
        out.push_back(cst.getValue());
      }
      return out;
    }
    APInt one;
    if (e.uniform && matchPattern(e.uniform, m_ConstantInt(&one)))
      return SmallVector<int64_t>(L, one.getZExtValue());
    DenseIntElementsAttr many;
    if (e.lanes && matchPattern(e.lanes, m_Constant(&many))) {
      for (const APInt &v : many.getValues<APInt>())
        out.push_back(v.getZExtValue());
      return out;
    }
    return std::nullopt;
  }

  /// The entry of `v` (a value from above the body: uniform).
  Entry get(Value v) {
    auto it = table.find(v);
    if (it != table.end())
      return it->second;
    Entry e;
    e.type = v.getType();
    if (v.getType().isIndex())
      e.exprs.assign(L, ix.outsideExpr(v));
    else
      e.uniform = v;
    return e;
  }

  // --- loads ------------------------------------------------------------
  Entry loadInput(unsigned i) {
    Value tile = op.getInputs()[i];
    AffineMap map = op.getInputMap(i);
    SmallVector<SmallVector<AffineExpr>> perLane(L);
    for (int64_t c = 0; c < L; ++c)
      for (AffineExpr e : map.getResults())
        perLane[c].push_back(atLane(e, c));
    auto load = [&](ArrayRef<AffineExpr> exprs) -> Value {
      SmallVector<Value> idx;
      for (AffineExpr e : exprs)
        idx.push_back(expand(e));
      return memref::LoadOp::create(rw, loc, tile, idx);
    };
    Entry e;
    Type elem = cast<MemRefType>(tile.getType()).getElementType();
    e.type = elem;
    if (elem.isInteger() && elem.getIntOrFloatBitWidth() < 64)
      e.bound = (uint64_t(1) << elem.getIntOrFloatBitWidth()) - 1;
    // One load where every lane reads the same element (two int4 codes
    // of a byte, a group's scale).
    auto sameIndex = [&](ArrayRef<AffineExpr> a, ArrayRef<AffineExpr> b) {
      return llvm::all_of(llvm::zip(a, b),
                          [&](auto p) { return ix.same(std::get<0>(p), std::get<1>(p)); });
    };
    if (llvm::all_of(perLane, [&](ArrayRef<AffineExpr> lane) {
          return sameIndex(lane, perLane[0]);
        })) {
      e.uniform = load(perLane[0]);
      return e;
    }
    // One vector load where the lanes read consecutive elements of a row
    // from an aligned start (two int8 or FP8 codes: a 16-bit load).
    if (consecutive(tile, perLane)) {
      SmallVector<Value> idx;
      for (AffineExpr x : perLane[0])
        idx.push_back(expand(x));
      e.lanes = vector::LoadOp::create(
          rw, loc, vecOf(elem), tile, idx, /*nontemporal=*/false,
          llvm::MaybeAlign(L * std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8)));
      return e;
    }
    SmallVector<Value> items;
    for (int64_t c = 0; c < L; ++c)
      items.push_back(load(perLane[c]));
    e.lanes = vector::FromElementsOp::create(rw, loc, vecOf(elem), items);
    return e;
  }

  /// Whether lane c reads the element c after lane 0's along the tile's
  /// contiguous innermost dimension, lane 0's a multiple of L elements from
  /// the buffer's start.
  bool consecutive(Value tile, ArrayRef<SmallVector<AffineExpr>> perLane) {
    auto type = cast<MemRefType>(tile.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (L < 2 || type.getElementTypeBitWidth() % 8 ||
        failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1 || ShapedType::isDynamic(offset) || offset % L)
      return false;
    for (int64_t stride : ArrayRef(strides).drop_back())
      if (ShapedType::isDynamic(stride) || stride % L)
        return false;
    size_t last = perLane[0].size() - 1;
    for (int64_t c = 0; c < L; ++c)
      for (size_t d = 0; d <= last; ++d)
        if (!ix.same(perLane[c][d], perLane[0][d] + (d == last ? c : 0)))
          return false;
    auto start = dyn_cast<AffineConstantExpr>(ix.simplify(perLane[0][last] % L));
    return start && start.getValue() == 0;
  }

  // --- ops --------------------------------------------------------------
  void visit(Operation *o) {
    Value result = o->getResult(0);
    Entry e;
    if (auto index = dyn_cast<IndexOp>(o)) {
      unsigned axis = *op.getAxisPosition(index.getAxis());
      for (int64_t c = 0; c < L; ++c)
        e.exprs.push_back(atLane(getAffineDimExpr(axis, rw.getContext()), c));
    } else if (!affineIntOp(o, e)) {
      e = general(o);
    }
    e.origin = o;
    e.type = result.getType();
    if (Type t = result.getType(); t.isInteger() &&
                                    t.getIntOrFloatBitWidth() < 64)
      e.bound = std::min(e.bound, boundOf(o, e, t.getIntOrFloatBitWidth()));
    table[result] = std::move(e);
  }

  /// Index arithmetic over known per-lane expressions stays affine, through
  /// casts to integers too (the TE's `k % 2` is i32 arithmetic on an
  /// index_cast of k; indices fit): k's parity becomes a constant.
  bool affineIntOp(Operation *o, Entry &e) {
    Type type = o->getResult(0).getType();
    if (!type.isIntOrIndex() || type.isInteger(1))
      return false;
    MLIRContext *ctx = rw.getContext();
    APInt value;
    if (isa<arith::ConstantOp>(o) && matchPattern(o->getResult(0), m_ConstantInt(&value))) {
      e.exprs.assign(L, getAffineConstantExpr(value.getSExtValue(), ctx));
      return true;
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(o)) {
      e.exprs = get(o->getOperand(0)).exprs;
      return !e.exprs.empty();
    }
    // Narrowing or extending values that fit both types (a shift amount
    // cast to the byte's type).
    if (isa<arith::TruncIOp, arith::ExtUIOp, arith::ExtSIOp>(o)) {
      Entry in = get(o->getOperand(0));
      unsigned w = std::min(o->getOperand(0).getType().getIntOrFloatBitWidth(),
                            type.getIntOrFloatBitWidth());
      for (AffineExpr x : in.exprs) {
        auto range = ix.interval(x);
        if (!range || range->first < 0 || range->second >= (int64_t(1) << (w - 1)))
          return false;
      }
      e.exprs = in.exprs;
      return !e.exprs.empty();
    }
    if (o->getNumOperands() != 2)
      return false;
    Entry l = get(o->getOperand(0)), r = get(o->getOperand(1));
    if (l.exprs.empty() || r.exprs.empty())
      return false;
    std::optional<int64_t> divisor;
    if (auto cst = dyn_cast<AffineConstantExpr>(r.exprs[0]);
        cst && cst.getValue() > 0 && ix.allSame(r.exprs))
      divisor = cst.getValue();
    for (int64_t c = 0; c < L; ++c) {
      AffineExpr a = l.exprs[c], b = r.exprs[c], out;
      bool divisible = divisor && ix.nonNegative(a);
      if (isa<arith::AddIOp>(o))
        out = a + b;
      else if (isa<arith::SubIOp>(o))
        out = a - b;
      else if (isa<arith::MulIOp>(o) &&
               (isa<AffineConstantExpr>(a) || isa<AffineConstantExpr>(b)))
        out = a * b;
      else if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(o) &&
               divisible)
        out = a.floorDiv(*divisor);
      else if (isa<arith::RemUIOp, arith::RemSIOp>(o) && divisible)
        out = a % *divisor;
      else
        return false;
      e.exprs.push_back(ix.simplify(out));
    }
    return true;
  }

  /// An unsigned bound of `o`'s integer result `e` (width `w`).
  uint64_t boundOf(Operation *o, const Entry &e, unsigned w) {
    uint64_t full = (uint64_t(1) << w) - 1;
    auto bound = [&](unsigned i) { return get(o->getOperand(i)).bound; };
    auto consts = [&](unsigned i) { return constants(get(o->getOperand(i))); };
    if (auto mine = constants(e))
      return *llvm::max_element(*mine);
    if (isa<arith::AndIOp>(o))
      return std::min(bound(0), bound(1));
    if (isa<arith::ExtUIOp, arith::TruncIOp>(o))
      return std::min(bound(0), full);
    if (isa<arith::ShRUIOp>(o))
      if (auto s = consts(1))
        return bound(0) >> *llvm::min_element(*s);
    if (isa<arith::OrIOp, arith::XOrIOp>(o)) {
      uint64_t most = std::max(bound(0), bound(1));
      return std::min(full, (uint64_t(1) << llvm::bit_width(most)) - 1);
    }
    return full;
  }

  /// A clone of `o` over the lanes: scalar where every operand is uniform,
  /// vector ops where `o` maps element-wise, one clone per lane otherwise;
  /// with the conversions and the code-pair extraction of FactorLanes.h.
  Entry general(Operation *o) {
    SmallVector<Entry> ins;
    for (Value v : o->getOperands())
      ins.push_back(get(v));
    if (Entry e; magicConversion(o, ins, e) || smallFloatConversion(o, e) ||
                 decidedCompare(o, ins, e) || magicDifference(o, ins, e))
      return e;
    // A select on a known condition is its chosen operand (which may be
    // index arithmetic: the TE's floor-mod fix-up of a non-negative k).
    if (isa<arith::SelectOp>(o))
      if (auto cond = constants(ins[0]); cond && llvm::all_equal(*cond))
        return ins[(*cond)[0] ? 1 : 2];
    Entry e;
    if (llvm::all_of(ins, [&](const Entry &in) { return isUniform(in); })) {
      SmallVector<Value> operands;
      for (const Entry &in : ins)
        operands.push_back(scalarOf(in));
      e.uniform = cloneWith(o, operands, o->getResultTypes());
      return e;
    }
    Type type = o->getResult(0).getType();
    bool smallFloat = llvm::any_of(o->getOperandTypes(), isSmallFloat) ||
                      isSmallFloat(type);
    if (OpTrait::hasElementwiseMappableTraits(o) && o->getNumResults() == 1 &&
        !smallFloat) {
      SmallVector<Value> operands;
      for (auto [in, v] : llvm::zip(ins, o->getOperands()))
        operands.push_back(vectorOf(in, v.getType()));
      e.lanes = cloneWith(o, operands, {vecOf(type)});
      if (L == 2)
        e.wide16 = codePair(o, ins);
      if (L == 2 && !e.wide16)
        e.wide16 = wideBitwise(o, ins);
      return e;
    }
    SmallVector<Value> items;
    for (int64_t c = 0; c < L; ++c) {
      SmallVector<Value> operands;
      for (const Entry &in : ins)
        operands.push_back(laneOf(in, c));
      items.push_back(cloneWith(o, operands, o->getResultTypes()));
    }
    e.lanes = vector::FromElementsOp::create(rw, loc, vecOf(type), items);
    return e;
  }

  static bool isSmallFloat(Type t) {
    return isa<FloatType>(t) && t.getIntOrFloatBitWidth() < 16;
  }

  Value cloneWith(Operation *o, ValueRange operands, TypeRange types) {
    OperationState state(loc, o->getName());
    state.addOperands(operands);
    state.addTypes(types);
    state.addAttributes(o->getAttrs());
    Operation *made = rw.create(state);
    SmallVector<Value> folded;
    if (succeeded(rw.tryFold(made, folded)) && !folded.empty()) {
      rw.eraseOp(made);
      return folded[0];
    }
    return made->getResult(0);
  }

  /// `andi(shrui(byte, s_c), m)` with one byte (or word) for both lanes:
  /// both codes moved into the halves of a 32-bit word at once. With
  /// w = byte >> s0 and d = s1 - s0 (constants, or a shift known at run
  /// time whose lanes differ by a constant: int2's 4 (t mod 2) and 2 bits
  /// further), the word is (w | w << (16 - d)) & (m | m << 16), valid where
  /// m keeps w's low bits out of the high half's (m < 2^(16 - d)); a 32-bit
  /// word whose codes sit 16 bits apart (ext.quant's fragment layout, d =
  /// 16) needs no second shift, only m < 2^16.
  Value codePair(Operation *o, ArrayRef<Entry> ins) {
    if (!isa<arith::AndIOp>(o))
      return {};
    auto mask = constants(ins[1]);
    Operation *shift = ins[0].origin;
    if (!mask || !llvm::all_equal(*mask) || !isa_and_nonnull<arith::ShRUIOp>(shift))
      return {};
    Entry byte = get(shift->getOperand(0));
    Entry amount = get(shift->getOperand(1));
    if (!byte.uniform)
      return {};
    unsigned w = byte.uniform.getType().getIntOrFloatBitWidth();
    Type i32 = rw.getI32Type();
    auto cst = [&](int64_t v) {
      return arith::ConstantIntOp::create(rw, loc, i32, v).getResult();
    };
    int64_t m = (*mask)[0], d = -1;
    Value s0;
    if (auto amounts = constants(amount)) {
      if ((*amounts)[0] < 0 || (*amounts)[0] >= int64_t(w))
        return {};
      d = (*amounts)[1] - (*amounts)[0];
      s0 = cst((*amounts)[0]);
    } else if (amount.exprs.size() == 2) {
      if (auto delta = dyn_cast<AffineConstantExpr>(
              ix.simplify(amount.exprs[1] - amount.exprs[0])))
        d = delta.getValue();
      s0 = materialize(amount.exprs[0], i32);
    }
    bool fits = w <= 16 ? d >= 0 && d < 16 : w == 32 && d == 16;
    if (!fits || m < 0 || m >= (int64_t(1) << (d < 16 ? 16 - d : 16)))
      return {};
    Value word = w < 32 ? arith::ExtUIOp::create(rw, loc, i32, byte.uniform)
                        : byte.uniform;
    word = rw.createOrFold<arith::ShRUIOp>(loc, word, s0);
    if (d < 16)
      word = arith::OrIOp::create(
          rw, loc, word, arith::ShLIOp::create(rw, loc, word, cst(16 - d)));
    return arith::AndIOp::create(rw, loc, word, cst(m | (m << 16)));
  }

  /// A comparison of index arithmetic decided per element: their
  /// difference a constant, or a non-negative value against zero (the sign
  /// tests of the TE's floor division).
  bool decidedCompare(Operation *o, ArrayRef<Entry> ins, Entry &e) {
    auto cmp = dyn_cast<arith::CmpIOp>(o);
    if (!cmp || ins[0].exprs.empty() || ins[1].exprs.empty())
      return false;
    using P = arith::CmpIPredicate;
    P pred = cmp.getPredicate();
    SmallVector<int64_t> decided;
    for (int64_t c = 0; c < L; ++c) {
      AffineExpr l = ins[0].exprs[c], r = ins[1].exprs[c];
      bool nonNeg = ix.nonNegative(l) && ix.nonNegative(r);
      std::optional<bool> truth;
      if (auto diff = dyn_cast<AffineConstantExpr>(ix.simplify(l - r))) {
        int64_t d = diff.getValue();
        bool unsignedOk = nonNeg || d == 0;
        switch (pred) {
        case P::eq: truth = d == 0; break;
        case P::ne: truth = d != 0; break;
        case P::slt: truth = d < 0; break;
        case P::sle: truth = d <= 0; break;
        case P::sgt: truth = d > 0; break;
        case P::sge: truth = d >= 0; break;
        case P::ult: if (unsignedOk) truth = d < 0; break;
        case P::ule: if (unsignedOk) truth = d <= 0; break;
        case P::ugt: if (unsignedOk) truth = d > 0; break;
        case P::uge: if (unsignedOk) truth = d >= 0; break;
        }
      } else if (auto zero = dyn_cast<AffineConstantExpr>(r);
                 zero && zero.getValue() == 0 && ix.nonNegative(l)) {
        if (pred == P::slt)
          truth = false;
        else if (pred == P::sge)
          truth = true;
      }
      if (!truth)
        return false;
      decided.push_back(*truth);
    }
    Type i1 = rw.getI1Type();
    if (llvm::all_equal(decided)) {
      e.uniform = arith::ConstantIntOp::create(rw, loc, i1, decided[0]);
      return true;
    }
    SmallVector<Attribute> attrs;
    for (int64_t v : decided)
      attrs.push_back(rw.getIntegerAttr(i1, v));
    e.lanes = arith::ConstantOp::create(
        rw, loc, DenseElementsAttr::get(vecOf(i1), attrs));
    return true;
  }

  /// A bitwise op with a constant keeps a code pair's 16-bit form (the
  /// sign flip of symmetric int4 / int2 codes).
  Value wideBitwise(Operation *o, ArrayRef<Entry> ins) {
    // Narrowing or widening keeps it where the codes fit either width.
    if (isa<arith::TruncIOp, arith::ExtUIOp>(o) && ins[0].wide16) {
      unsigned w = std::min(16u, o->getResult(0).getType().getIntOrFloatBitWidth());
      return ins[0].bound < (uint64_t(1) << w) ? ins[0].wide16 : Value();
    }
    if (!isa<arith::XOrIOp, arith::OrIOp, arith::AndIOp>(o))
      return {};
    for (int side = 0; side < 2; ++side) {
      auto value = constants(ins[1 - side]);
      if (!ins[side].wide16 || !value || !llvm::all_equal(*value) ||
          (*value)[0] < 0 || (*value)[0] >= (1 << 16))
        continue;
      int64_t c = (*value)[0];
      Value cst = arith::ConstantIntOp::create(rw, loc, rw.getI32Type(),
                                               c | (c << 16));
      return cloneWith(o, {ins[side].wide16, cst}, {rw.getI32Type()});
    }
    return {};
  }

  /// uitofp / sitofp of small integers to f16 or bf16: the value ORed into
  /// the mantissa of 1024.0 (128.0), then one subtraction (exact: both are
  /// representable); sitofp of iN biased by 2^(N-1) first.
  bool magicConversion(Operation *o, ArrayRef<Entry> ins, Entry &e) {
    if (!isa<arith::UIToFPOp, arith::SIToFPOp>(o))
      return false;
    Type to = getElementTypeOrSelf(o->getResult(0).getType());
    Type from = o->getOperand(0).getType();
    if (!(to.isF16() || to.isBF16()) || !from.isInteger() ||
        from.getIntOrFloatBitWidth() > 32)
      return false;
    unsigned w = from.getIntOrFloatBitWidth();
    uint64_t limit = to.isF16() ? 1024 : 128;
    int64_t magic = to.isF16() ? 0x6400 : 0x4300;
    Entry in = ins[0];
    int64_t bias = 0; // subtracted after the magic number's
    bool flip = isa<arith::SIToFPOp>(o); // x ^ 2^(N-1): iN as unsigned
    Operation *sub = in.origin;
    auto minus = sub && isa<arith::SubIOp>(sub)
                     ? constants(get(sub->getOperand(1)))
                     : std::nullopt;
    if (isa<arith::SIToFPOp>(o) && minus && llvm::all_equal(*minus) &&
        (*minus)[0] >= 0 && (*minus)[0] < (int64_t(1) << (w - 1)) &&
        get(sub->getOperand(0)).bound < std::min<uint64_t>(limit, uint64_t(1) << (w - 1))) {
      // sitofp(y - C) = uitofp(y) - C for small y and C: the subtraction
      // joins the magic number's.
      in = get(sub->getOperand(0));
      bias = (*minus)[0];
      flip = false;
    } else if (isa<arith::SIToFPOp>(o)) {
      if (w > 8)
        return false;
      bias = int64_t(1) << (w - 1);
      in.bound = (uint64_t(1) << w) - 1;
      in.wide16 = {};
    }
    if (in.bound >= limit)
      return false;
    bool uniform = isUniform(in);
    auto shaped = [&](Type t) -> Type { return uniform ? t : vecOf(t); };
    Type i16 = rw.getI16Type();
    Value v = uniform ? scalarOf(in) : in.lanes;
    if (!uniform && !v)
      v = vectorOf(in, from);
    if (flip)
      v = arith::XOrIOp::create(rw, loc, v,
                                splat(from, rw.getIntegerAttr(from, bias), uniform));
    Value asFloat;
    if (in.wide16) { // both lanes in one word: one OR, then its halves
      Type i32 = rw.getI32Type();
      Value ored = arith::OrIOp::create(
          rw, loc, in.wide16,
          arith::ConstantIntOp::create(rw, loc, i32, magic | (magic << 16)));
      Value word = vector::BroadcastOp::create(rw, loc,
                                               VectorType::get({1}, i32), ored);
      asFloat = vector::BitCastOp::create(rw, loc, vecOf(to), word);
    } else {
      Value narrow = v;
      if (w < 16)
        narrow = arith::ExtUIOp::create(rw, loc, shaped(i16), v);
      else if (w > 16)
        narrow = arith::TruncIOp::create(rw, loc, shaped(i16), v);
      Value ored = arith::OrIOp::create(
          rw, loc, narrow, splat(i16, rw.getIntegerAttr(i16, magic), uniform));
      asFloat = arith::BitcastOp::create(rw, loc, shaped(to), ored);
    }
    double offset = double(int64_t(limit) + bias);
    Value result = arith::SubFOp::create(
        rw, loc, asFloat, splat(to, rw.getFloatAttr(to, offset), uniform));
    (uniform ? e.uniform : e.lanes) = result;
    e.magic = asFloat;
    e.offset = offset;
    return true;
  }

  /// x - z of two integers converted alike (a code and its integer zero):
  /// (x + o) - (z + o), both exact, the magic number's subtraction gone.
  bool magicDifference(Operation *o, ArrayRef<Entry> ins, Entry &e) {
    if (!isa<arith::SubFOp>(o) || !ins[0].magic || !ins[1].magic ||
        ins[0].offset != ins[1].offset)
      return false;
    Type type = o->getResult(0).getType();
    bool uniform = isUniform(ins[0]) && isUniform(ins[1]);
    auto operand = [&](const Entry &in) -> Value {
      if (uniform || !isUniform(in))
        return in.magic;
      return rw.createOrFold<vector::BroadcastOp>(loc, vecOf(type), in.magic);
    };
    Value diff = arith::SubFOp::create(rw, loc, operand(ins[0]), operand(ins[1]));
    (uniform ? e.uniform : e.lanes) = diff;
    return true;
  }

  /// A constant of `t` (a scalar, or a splat over the lanes).
  Value splat(Type t, Attribute a, bool uniform) {
    if (uniform)
      return arith::ConstantOp::create(rw, loc, cast<TypedAttr>(a));
    return arith::ConstantOp::create(rw, loc,
                                     DenseElementsAttr::get(vecOf(t), a));
  }

  /// An FP8 byte to f16 or bf16 (the TE's reinterpret(byte, f8).astype:
  /// truncf(extf(bitcast)), or one extf) from its bits: E5M2 is the top
  /// byte of an f16; E4M3FN's sign, exponent and mantissa placed in an f16
  /// (bf16) are its value times 2^-8 (2^-120), scaled back exactly, and its
  /// NaN (S.1111.111) selected. Exact: both formats hold every E4M3 value.
  bool smallFloatConversion(Operation *o, Entry &e) {
    Type to = o->getResult(0).getType();
    Value src;
    if (isa<arith::TruncFOp>(o)) {
      Operation *ext = get(o->getOperand(0)).origin;
      if (!isa_and_nonnull<arith::ExtFOp>(ext))
        return false;
      src = ext->getOperand(0);
    } else if (isa<arith::ExtFOp>(o)) {
      src = o->getOperand(0);
    } else {
      return false;
    }
    Operation *reinterpret = get(src).origin;
    bool e5m2 = isa<Float8E5M2Type>(src.getType());
    bool e4m3 = isa<Float8E4M3FNType>(src.getType());
    if (!(to.isF16() || to.isBF16()) || !(e4m3 || (e5m2 && to.isF16())) ||
        !isa_and_nonnull<arith::BitcastOp>(reinterpret) ||
        !reinterpret->getOperand(0).getType().isInteger(8))
      return false;
    Entry byte = get(reinterpret->getOperand(0));
    bool uniform = isUniform(byte);
    Type i16 = rw.getI16Type();
    Type shaped16 = uniform ? i16 : Type(vecOf(i16));
    auto c16 = [&](int64_t v) {
      return splat(i16, rw.getIntegerAttr(i16, v), uniform);
    };
    Value x = arith::ExtUIOp::create(
        rw, loc, shaped16, uniform ? scalarOf(byte) : vectorOf(byte, byte.type));
    Type shaped = uniform ? to : Type(vecOf(to));
    if (e5m2) {
      Value bits = arith::ShLIOp::create(rw, loc, x, c16(8));
      (uniform ? e.uniform : e.lanes) =
          arith::BitcastOp::create(rw, loc, shaped, bits);
      return true;
    }
    Value magnitude = arith::AndIOp::create(rw, loc, x, c16(0x7F));
    Value sign = arith::ShLIOp::create(
        rw, loc, arith::AndIOp::create(rw, loc, x, c16(0x80)), c16(8));
    Value bits = arith::OrIOp::create(
        rw, loc, sign,
        arith::ShLIOp::create(rw, loc, magnitude, c16(to.isF16() ? 7 : 4)));
    Value scaled = arith::MulFOp::create(
        rw, loc, arith::BitcastOp::create(rw, loc, shaped, bits),
        splat(to, rw.getFloatAttr(to, to.isF16() ? 256.0 : 0x1p120), uniform));
    Value nan = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq,
                                      magnitude, c16(0x7F));
    Value result = arith::SelectOp::create(
        rw, loc, nan,
        splat(to, rw.getFloatAttr(to, APFloat::getNaN(
                                          cast<FloatType>(to).getFloatSemantics())),
              uniform),
        scaled);
    (uniform ? e.uniform : e.lanes) = result;
    return true;
  }

  RewriterBase &rw;
  Location loc;
  TileComputeOp op;
  unsigned xAxis, kAxis;
  Value x, kVar;
  int64_t kVarRange, kScale, kConst, L;
  llvm::DenseMap<Value, Entry> table;
  LaneIndices ix; // the index arithmetic's simplifications
};

} // namespace

Value ext::buildFactorLanes(RewriterBase &rw, Location loc, TileComputeOp op,
                            const ProductFactor &f, unsigned xAxis,
                            unsigned kAxis, Value x, Value kVar,
                            int64_t kVarRange, int64_t kScale, int64_t kConst,
                            int64_t lanes) {
  return LaneBuilder(rw, loc, op, xAxis, kAxis, x, kVar, kVarRange, kScale,
                     kConst, lanes)
      .build(f);
}
