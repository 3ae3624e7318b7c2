//===- BankAddressAnalysis.cpp - shared-memory addresses from the IR ------===//
//
// How ext-gpu-bank-conflicts sees an access: the memref it reads or writes as a
// view of workgroup memory (base, offset, strides), and each index as an
// address expression over the thread ids, loop counters (symbols with the
// ranges integer range analysis gives them) and values every thread of the
// block agrees on; or the reason it cannot.
//
//===----------------------------------------------------------------------===//

#include "BankAddress.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace ext::bank_conflicts;

namespace {

template <typename T> std::string str(T t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

} // namespace

bool KernelAnalysis::nonNegative(const Expr &e) {
  switch (e->kind) {
  case Node::Const:
    return e->c >= 0;
  case Node::Tid:
    return true;
  case Node::Sym:
    return syms[e->id].lo && *syms[e->id].lo >= 0;
  case Node::Mul:
    return e->c >= 0 && nonNegative(e->a);
  case Node::Div:
  case Node::Mod:
    return nonNegative(e->a);
  default:
    return nonNegative(e->a) && nonNegative(e->b);
  }
}

FailureOr<Expr> KernelAnalysis::index(Value v) {
  if (Expr e = cache.lookup(v))
    return e;
  FailureOr<Expr> e = compute(v);
  if (succeeded(e))
    cache[v] = *e;
  return e;
}

FailureOr<Expr> KernelAnalysis::compute(Value v) {
  if (!v.getType().isIntOrIndex())
    return fail("an index of type " + str(v.getType()));
  auto uniform = [&](std::string name) -> Expr {
    std::optional<std::pair<int64_t, int64_t>> r = range(v);
    return newSym(std::move(name), r ? std::optional(r->first) : std::nullopt,
                  r ? std::optional(r->second) : std::nullopt);
  };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto launch = dyn_cast<gpu::LaunchOp>(owner);
        launch && arg.getOwner() == &launch.getBody().front()) {
      unsigned n = arg.getArgNumber();
      if (n >= 3 && n < 6)
        return mk({Node::Tid, 0, n - 3, nullptr, nullptr});
      if (n >= 9 && n < 12 && dimsKnown)
        return cst(blockDims[n - 9]);
      return uniform("launch.arg" + std::to_string(n));
    }
    if (owner == kernel && arg.getOwner() == &kernel->getRegion(0).front())
      return uniform("arg" + std::to_string(arg.getArgNumber()));
    if (auto loop = dyn_cast<scf::ForOp>(owner);
        loop && arg == loop.getInductionVar()) {
      // iv = lb + step * it, `it` the iteration count (uniform).
      std::optional<int64_t> step = getConstantIntValue(loop.getStep());
      if (!step || *step <= 0)
        return fail("a loop index with a non-constant step");
      FailureOr<Expr> lb = index(loop.getLowerBound());
      if (failed(lb))
        return failure();
      std::optional<int64_t> hi;
      auto ivr = range(arg), lbr = range(loop.getLowerBound());
      int64_t span;
      if (ivr && lbr && ivr->second >= lbr->first &&
          !llvm::SubOverflow(ivr->second, lbr->first, span))
        hi = span / *step;
      Expr it = newSym("it" + std::to_string(loops++), 0, hi);
      return add(*lb, mul(it, *step));
    }
    return fail("a block argument that is not a loop index");
  }
  Operation *op = v.getDefiningOp();
  if (auto c = getConstantIntValue(v))
    return cst(*c);
  if (auto t = dyn_cast<gpu::ThreadIdOp>(op))
    return mk({Node::Tid, 0, unsigned(t.getDimension()), nullptr, nullptr});
  if (auto d = dyn_cast<gpu::BlockDimOp>(op); d && dimsKnown)
    return cst(blockDims[unsigned(d.getDimension())]);
  if (isa<gpu::LaneIdOp>(op)) {
    if (!dimsKnown)
      return fail("gpu.lane_id with an unknown block size");
    Expr x = mk({Node::Tid, 0, 0, nullptr, nullptr});
    Expr y = mk({Node::Tid, 0, 1, nullptr, nullptr});
    Expr z = mk({Node::Tid, 0, 2, nullptr, nullptr});
    Expr lin = add(x, mul(add(y, mul(z, blockDims[1])), blockDims[0]));
    return modE(lin, 32);
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp>(op))
    return index(op->getOperand(0));

  auto binary = [&]() -> FailureOr<std::pair<Expr, Expr>> {
    FailureOr<Expr> x = index(op->getOperand(0));
    if (failed(x))
      return failure();
    FailureOr<Expr> y = index(op->getOperand(1));
    if (failed(y))
      return failure();
    return std::make_pair(*x, *y);
  };
  // A pure op of values that do not depend on the thread is uniform.
  auto uniformOr = [&](const Twine &why) -> FailureOr<Expr> {
    if (op->getNumResults() != 1 || !isMemoryEffectFree(op) ||
        op->getNumRegions() != 0)
      return fail(why);
    for (Value o : op->getOperands()) {
      FailureOr<Expr> e = index(o);
      if (failed(e) || hasTid(*e))
        return fail(why);
    }
    reason.clear();
    return uniform("u" + std::to_string(uniforms++));
  };

  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::ShLIOp,
          arith::DivUIOp, arith::RemUIOp, arith::DivSIOp, arith::RemSIOp,
          arith::FloorDivSIOp, arith::ShRUIOp, arith::ShRSIOp, arith::XOrIOp,
          arith::AndIOp, arith::OrIOp>(op)) {
    auto xy = binary();
    if (failed(xy))
      return uniformOr(reason);
    auto [x, y] = *xy;
    std::string name = op->getName().getStringRef().str();
    if (isa<arith::AddIOp>(op))
      return add(x, y);
    if (isa<arith::SubIOp>(op))
      return add(x, mul(y, -1));
    if (isa<arith::MulIOp>(op)) {
      if (isConst(y))
        return mul(x, y->c);
      if (isConst(x))
        return mul(y, x->c);
      return uniformOr("a product of two values that vary (" + name + ")");
    }
    if (isa<arith::XOrIOp, arith::AndIOp, arith::OrIOp>(op)) {
      if (!nonNegative(x) || !nonNegative(y))
        return uniformOr("a bitwise op on a value that may be negative");
      return bitE(isa<arith::XOrIOp>(op)   ? Node::Xor
                  : isa<arith::AndIOp>(op) ? Node::And
                                           : Node::Or,
                  x, y);
    }
    if (!isConst(y) || y->c <= 0 ||
        (isa<arith::ShLIOp, arith::ShRUIOp, arith::ShRSIOp>(op) && y->c >= 62))
      return uniformOr(name + " by a value that is not a positive constant");
    if (isa<arith::ShLIOp>(op))
      return mul(x, int64_t(1) << y->c);
    // Unsigned and truncating divisions are floor divisions of values that
    // cannot be negative.
    if (!isa<arith::FloorDivSIOp>(op) && !nonNegative(x))
      return uniformOr(name + " of a value that may be negative");
    if (isa<arith::ShRUIOp, arith::ShRSIOp>(op))
      return divE(x, int64_t(1) << y->c);
    if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(op))
      return divE(x, y->c);
    return modE(x, y->c);
  }
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    SmallVector<Expr> operands;
    for (Value o : apply.getOperands()) {
      FailureOr<Expr> e = index(o);
      if (failed(e))
        return uniformOr(reason);
      operands.push_back(*e);
    }
    unsigned nd = apply.getAffineMap().getNumDims();
    std::function<FailureOr<Expr>(AffineExpr)> conv =
        [&](AffineExpr a) -> FailureOr<Expr> {
      if (auto c = dyn_cast<AffineConstantExpr>(a))
        return cst(c.getValue());
      if (auto d = dyn_cast<AffineDimExpr>(a))
        return operands[d.getPosition()];
      if (auto s = dyn_cast<AffineSymbolExpr>(a))
        return operands[nd + s.getPosition()];
      auto bin = cast<AffineBinaryOpExpr>(a);
      FailureOr<Expr> l = conv(bin.getLHS()), r = conv(bin.getRHS());
      if (failed(l) || failed(r))
        return failure();
      switch (a.getKind()) {
      case AffineExprKind::Add:
        return add(*l, *r);
      case AffineExprKind::Mul:
        if (isConst(*r))
          return mul(*l, (*r)->c);
        if (isConst(*l))
          return mul(*r, (*l)->c);
        return failure();
      case AffineExprKind::FloorDiv:
        if (!isConst(*r) || (*r)->c <= 0)
          return failure();
        return divE(*l, (*r)->c);
      case AffineExprKind::Mod:
        if (!isConst(*r) || (*r)->c <= 0)
          return failure();
        return modE(*l, (*r)->c);
      default:
        return failure(); // ceildiv
      }
    };
    FailureOr<Expr> e = conv(apply.getAffineMap().getResult(0));
    if (failed(e))
      return uniformOr("an affine map with a non-constant multiplier or a "
                       "ceildiv");
    return e;
  }
  return uniformOr("a value computed by " + op->getName().getStringRef().str());
}

FailureOr<View> KernelAnalysis::view(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type)
    return fail("not a memref");
  View v;
  v.elemBytes = type.getElementTypeBitWidth() / 8;
  if (!type.getElementType().isIntOrFloat() ||
      type.getElementTypeBitWidth() % 8 != 0) {
    if (auto vt = dyn_cast<VectorType>(type.getElementType());
        vt && vt.hasStaticShape() && vt.getElementTypeBitWidth() % 8 == 0)
      v.elemBytes = vt.getNumElements() * vt.getElementTypeBitWidth() / 8;
    else
      return fail("elements of type " + str(type.getElementType()));
  }
  v.sizes = llvm::to_vector(type.getShape());
  int64_t offset;
  if (failed(type.getStridesAndOffset(v.strides, offset)) ||
      llvm::any_of(v.strides, ShapedType::isDynamic))
    return fail("a memref with dynamic strides");

  auto offsetOf = [&](ArrayRef<OpFoldResult> ofrs) -> FailureOr<Expr> {
    if (ofrs.size() != 1)
      return fail("an offset list");
    if (auto a = dyn_cast<Attribute>(ofrs[0]))
      return cst(cast<IntegerAttr>(a).getInt());
    return index(cast<Value>(ofrs[0]));
  };
  Operation *def = memref.getDefiningOp();
  if (!def) {
    // A workgroup attribution (or a kernel argument: not shared memory).
    v.base = cst(0);
    v.offset = cst(ShapedType::isDynamic(offset) ? 0 : offset);
    return v;
  }
  if (isa<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(def) ||
      def->getName().getStringRef() == "ext.alloc_shared") {
    v.base = cst(0);
    v.offset = cst(offset);
    return v;
  }
  if (auto cast = dyn_cast<memref::CastOp>(def)) {
    FailureOr<View> src = view(cast.getSource());
    if (failed(src))
      return failure();
    src->sizes = v.sizes;
    return src;
  }
  if (auto rc = dyn_cast<memref::ReinterpretCastOp>(def)) {
    FailureOr<View> src = view(rc.getSource());
    if (failed(src))
      return failure();
    if (src->elemBytes != v.elemBytes)
      return fail("a reinterpret_cast that changes the element size");
    FailureOr<Expr> off = offsetOf(rc.getMixedOffsets());
    if (failed(off))
      return failure();
    v.base = src->base;
    v.offset = *off;
    return v;
  }
  if (auto vw = dyn_cast<memref::ViewOp>(def)) {
    FailureOr<View> src = view(vw.getSource());
    if (failed(src))
      return failure();
    FailureOr<Expr> shift = index(vw.getByteShift());
    if (failed(shift))
      return failure();
    v.base = add(add(src->base, mul(src->offset, src->elemBytes)), *shift);
    v.offset = cst(0);
    return v;
  }
  if (auto sv = dyn_cast<memref::SubViewOp>(def)) {
    FailureOr<View> src = view(sv.getSource());
    if (failed(src))
      return failure();
    Expr off = src->offset;
    for (auto [d, ofr] : llvm::enumerate(sv.getMixedOffsets())) {
      FailureOr<Expr> o = offsetOf({ofr});
      if (failed(o))
        return failure();
      off = add(off, mul(*o, src->strides[d]));
    }
    v.base = src->base;
    v.offset = off;
    return v;
  }
  if (auto select = dyn_cast<arith::SelectOp>(def)) {
    // Pipelined stages pick one of N like tiles per k-step: the same banks
    // when the tiles start at the same phase of the 128-byte bank row.
    FailureOr<View> a = view(select.getTrueValue());
    FailureOr<View> b = view(select.getFalseValue());
    if (failed(a) || failed(b))
      return failure();
    auto start = [](const View &w) {
      return add(w.base, mul(w.offset, w.elemBytes));
    };
    Expr sa = start(*a), sb = start(*b);
    if (a->strides != b->strides || a->elemBytes != b->elemBytes ||
        !isConst(sa) || !isConst(sb) || (sa->c - sb->c) % 128 != 0)
      return fail("a select of shared tiles that may map to different banks");
    return a;
  }
  return fail("a memref made by " + def->getName().getStringRef().str());
}
