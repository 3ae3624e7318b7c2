//===- BankConflicts.cpp - worst-case bank conflicts of shared accesses ---===//
//
// For every workgroup-memory access of a kernel, the byte address is built as
// a small expression over the thread id, loop iteration counters and values
// every thread of the block agrees on (block ids, kernel arguments, ...).
// One warp's addresses are then enumerated (every warp of the block, every
// value of a counter that enters the address non-linearly) and costed with
// ext::bank, taking the worst case over the values that enter linearly.
//
//===----------------------------------------------------------------------===//

#include "ext/Analysis/BankConflicts.h"
#include "ext/GPU/Transforms/Passes.h"
#include "ext/GPU/Transforms/Transforms.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <numeric>

namespace ext {
#define GEN_PASS_DEF_EXTBANKCONFLICTS
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {

//===----------------------------------------------------------------------===//
// Address expressions
//===----------------------------------------------------------------------===//

struct Node;
using Expr = std::shared_ptr<const Node>;

/// An integer expression over thread ids (`Tid`, dimension in `id`) and
/// symbols (`Sym`, values uniform over the block). Mul, Div and Mod take a
/// constant `c`; Xor, And and Or combine two operands bit by bit.
struct Node {
  enum Kind { Const, Tid, Sym, Add, Mul, Div, Mod, Xor, And, Or } kind;
  int64_t c = 0;
  unsigned id = 0;
  Expr a, b;
};

// Input IR may carry any constants: arithmetic wraps (defined) instead of
// overflowing, and addresses far outside shared memory are refused below.
int64_t wrapAdd(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
int64_t wrapMul(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }

template <typename T> std::string str(T t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

Expr mk(Node n) { return std::make_shared<const Node>(std::move(n)); }
Expr cst(int64_t c) { return mk({Node::Const, c, 0, nullptr, nullptr}); }
bool isConst(const Expr &e) { return e->kind == Node::Const; }

Expr add(Expr x, Expr y) {
  if (isConst(x) && isConst(y))
    return cst(wrapAdd(x->c, y->c));
  if (isConst(x) && x->c == 0)
    return y;
  if (isConst(y) && y->c == 0)
    return x;
  return mk({Node::Add, 0, 0, x, y});
}
Expr mul(Expr x, int64_t c) {
  if (isConst(x))
    return cst(wrapMul(x->c, c));
  if (c == 0)
    return cst(0);
  if (c == 1)
    return x;
  if (x->kind == Node::Mul)
    return mul(x->a, wrapMul(x->c, c));
  return mk({Node::Mul, c, 0, x, nullptr});
}
int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
Expr divE(Expr x, int64_t c) {
  if (isConst(x))
    return cst(floorDiv(x->c, c));
  if (c == 1)
    return x;
  if (x->kind == Node::Mul && x->c % c == 0)
    return mul(x->a, x->c / c);
  // (a + c*k*b) floordiv c = a floordiv c + k*b.
  if (x->kind == Node::Add) {
    if (x->b->kind == Node::Mul && x->b->c % c == 0)
      return add(divE(x->a, c), mul(x->b->a, x->b->c / c));
    if (x->a->kind == Node::Mul && x->a->c % c == 0)
      return add(divE(x->b, c), mul(x->a->a, x->a->c / c));
  }
  return mk({Node::Div, c, 0, x, nullptr});
}
Expr modE(Expr x, int64_t c) {
  if (isConst(x))
    return cst(x->c - floorDiv(x->c, c) * c);
  if (x->kind == Node::Mul && x->c % c == 0)
    return cst(0);
  // (a + c*k*b) mod c = a mod c.
  if (x->kind == Node::Add) {
    if (x->b->kind == Node::Mul && x->b->c % c == 0)
      return modE(x->a, c);
    if (x->a->kind == Node::Mul && x->a->c % c == 0)
      return modE(x->b, c);
  }
  return mk({Node::Mod, c, 0, x, nullptr});
}
Expr bitE(Node::Kind k, Expr x, Expr y) {
  if (isConst(x) && isConst(y))
    return cst(k == Node::Xor ? (x->c ^ y->c)
                              : k == Node::And ? (x->c & y->c) : (x->c | y->c));
  return mk({k, 0, 0, x, y});
}

/// What one symbol stands for.
struct Symbol {
  std::string name;
  std::optional<int64_t> lo, hi; // known range, for enumeration
};

struct Env {
  int64_t tid[3] = {0, 0, 0};
  std::vector<int64_t> sym;
};

int64_t eval(const Expr &e, const Env &env) {
  switch (e->kind) {
  case Node::Const: return e->c;
  case Node::Tid: return env.tid[e->id];
  case Node::Sym: return env.sym[e->id];
  case Node::Add: return wrapAdd(eval(e->a, env), eval(e->b, env));
  case Node::Mul: return wrapMul(eval(e->a, env), e->c);
  case Node::Div: return floorDiv(eval(e->a, env), e->c);
  case Node::Mod: {
    int64_t v = eval(e->a, env);
    return v - wrapMul(floorDiv(v, e->c), e->c);
  }
  case Node::Xor: return eval(e->a, env) ^ eval(e->b, env);
  case Node::And: return eval(e->a, env) & eval(e->b, env);
  case Node::Or: return eval(e->a, env) | eval(e->b, env);
  }
  return 0;
}

bool hasTid(const Expr &e) {
  if (e->kind == Node::Tid)
    return true;
  return (e->a && hasTid(e->a)) || (e->b && hasTid(e->b));
}

void collectSyms(const Expr &e, llvm::SmallSetVector<unsigned, 4> &out) {
  if (e->kind == Node::Sym)
    out.insert(e->id);
  if (e->a)
    collectSyms(e->a, out);
  if (e->b)
    collectSyms(e->b, out);
}

/// e = c0 + sum(coef * atom): atoms are Tid, Sym or non-linear nodes.
struct Linear {
  int64_t c0 = 0;
  SmallVector<std::pair<Expr, int64_t>> terms;
};
void flatten(const Expr &e, int64_t coef, Linear &out) {
  switch (e->kind) {
  case Node::Const: out.c0 = wrapAdd(out.c0, wrapMul(coef, e->c)); return;
  case Node::Add: flatten(e->a, coef, out); flatten(e->b, coef, out); return;
  case Node::Mul: flatten(e->a, wrapMul(coef, e->c), out); return;
  default: break;
  }
  for (auto &[atom, c] : out.terms) {
    bool same = atom == e || (atom->kind == e->kind &&
                              (e->kind == Node::Tid || e->kind == Node::Sym) &&
                              atom->id == e->id);
    if (same) {
      c = wrapAdd(c, coef);
      return;
    }
  }
  out.terms.push_back({e, coef});
}

void print(const Expr &e, ArrayRef<Symbol> syms, llvm::raw_ostream &os,
           bool top = true) {
  static const char *dims[] = {"tid.x", "tid.y", "tid.z"};
  switch (e->kind) {
  case Node::Const: os << e->c; return;
  case Node::Tid: os << dims[e->id]; return;
  case Node::Sym: os << syms[e->id].name; return;
  default: break;
  }
  if (top && (e->kind == Node::Add || e->kind == Node::Mul)) {
    Linear lin;
    flatten(e, 1, lin);
    bool first = true;
    for (auto &[atom, c] : lin.terms) {
      if (c == 0)
        continue;
      uint64_t mag = c < 0 ? 0 - uint64_t(c) : uint64_t(c);
      os << (first ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + "));
      if (mag != 1)
        os << mag << "*";
      bool paren = atom->kind != Node::Tid && atom->kind != Node::Sym;
      if (paren)
        os << "(";
      print(atom, syms, os, true);
      if (paren)
        os << ")";
      first = false;
    }
    if (first)
      os << lin.c0;
    else if (lin.c0 != 0)
      os << (lin.c0 < 0 ? " - " : " + ")
         << (lin.c0 < 0 ? 0 - uint64_t(lin.c0) : uint64_t(lin.c0));
    return;
  }
  const char *opName = e->kind == Node::Div   ? " floordiv "
                       : e->kind == Node::Mod ? " mod "
                       : e->kind == Node::Xor ? " xor "
                       : e->kind == Node::And ? " and "
                                              : " or ";
  auto operand = [&](const Expr &x) {
    bool paren = x->kind != Node::Tid && x->kind != Node::Sym &&
                 x->kind != Node::Const;
    if (paren)
      os << "(";
    print(x, syms, os, true);
    if (paren)
      os << ")";
  };
  operand(e->a);
  os << opName;
  if (e->b)
    operand(e->b);
  else
    os << e->c;
}

//===----------------------------------------------------------------------===//
// From IR to expressions
//===----------------------------------------------------------------------===//

/// The bytes every workgroup buffer's start is assumed aligned to (upstream's
/// lowering of workgroup attributions to NVVM/ROCDL globals aligns them so).
constexpr int64_t kBufferAlignment = 16;

/// A memref as seen by the analysis: element `(i...)` lies at byte
/// `base + elemBytes * (offset + sum(i_k * strides_k))` of workgroup memory.
struct View {
  Expr base, offset;
  SmallVector<int64_t> strides;
  SmallVector<int64_t> sizes;
  unsigned elemBytes = 0;
};

class KernelAnalysis {
public:
  KernelAnalysis(Operation *kernel, std::array<int64_t, 3> blockDims,
                 bool dimsKnown, DataFlowSolver &solver)
      : kernel(kernel), blockDims(blockDims), dimsKnown(dimsKnown),
        solver(solver) {}

  FailureOr<Expr> index(Value v);
  FailureOr<View> view(Value memref);
  std::string reason;
  std::vector<Symbol> syms;

private:
  Expr newSym(std::string name, std::optional<int64_t> lo = std::nullopt,
              std::optional<int64_t> hi = std::nullopt) {
    syms.push_back({std::move(name), lo, hi});
    return mk({Node::Sym, 0, unsigned(syms.size() - 1), nullptr, nullptr});
  }
  std::optional<std::pair<int64_t, int64_t>> range(Value v) {
    auto *st = solver.lookupState<dataflow::IntegerValueRangeLattice>(v);
    if (!st || st->getValue().isUninitialized())
      return std::nullopt;
    const ConstantIntRanges &r = st->getValue().getValue();
    if (r.smin().getBitWidth() > 64)
      return std::nullopt;
    return std::make_pair(r.smin().getSExtValue(), r.smax().getSExtValue());
  }
  LogicalResult fail(const Twine &why) {
    if (reason.empty())
      reason = why.str();
    return failure();
  }
  FailureOr<Expr> compute(Value v);
  bool nonNegative(const Expr &e);

  Operation *kernel;
  std::array<int64_t, 3> blockDims;
  bool dimsKnown;
  DataFlowSolver &solver;
  DenseMap<Value, Expr> cache;
  unsigned loops = 0, uniforms = 0;
};

bool KernelAnalysis::nonNegative(const Expr &e) {
  switch (e->kind) {
  case Node::Const: return e->c >= 0;
  case Node::Tid: return true;
  case Node::Sym: return syms[e->id].lo && *syms[e->id].lo >= 0;
  case Node::Mul: return e->c >= 0 && nonNegative(e->a);
  case Node::Div:
  case Node::Mod: return nonNegative(e->a);
  default: return nonNegative(e->a) && nonNegative(e->b);
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
    if (!isConst(y) || y->c <= 0 || (isa<arith::ShLIOp, arith::ShRUIOp,
                                         arith::ShRSIOp>(op) &&
                                     y->c >= 62))
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
      case AffineExprKind::Add: return add(*l, *r);
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
      default: return failure(); // ceildiv
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
      return fail("elements of type " +
                   str(type.getElementType()));
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

//===----------------------------------------------------------------------===//
// The worst case of one access
//===----------------------------------------------------------------------===//

struct Verdict {
  bool known = false;
  std::string why;     // when unknown
  ext::bank::Cost cost;
  std::string pattern; // the byte address, printed
  unsigned bytes = 0;
  int64_t paddingBytes = 0;
};

Verdict worstCase(const Expr &addr, unsigned bytes, unsigned elemBytes,
                  ArrayRef<Symbol> syms, std::array<int64_t, 3> dims,
                  bool dimsKnown, const ext::bank::BankModel &model) {
  Verdict out;
  out.bytes = bytes;
  Linear lin;
  flatten(addr, 1, lin);
  // Symbols that enter linearly only shift the whole warp: their multiples
  // (and the buffer's alignment) give the residues the base can take.
  llvm::SmallSetVector<unsigned, 4> enumerated;
  for (auto &[atom, c] : lin.terms)
    if (atom->kind != Node::Sym && atom->kind != Node::Tid)
      collectSyms(atom, enumerated);
  // Shared memory is far below 2^40 bytes: larger coefficients only come
  // from nonsensical input, and would overflow the costing.
  constexpr int64_t kLimit = int64_t(1) << 40;
  auto tooLarge = [&](int64_t v) { return v > kLimit || v < -kLimit; };
  if (tooLarge(lin.c0) ||
      llvm::any_of(lin.terms, [&](auto &t) { return tooLarge(t.second); })) {
    out.why = "the address has a coefficient beyond any shared memory";
    return out;
  }
  int64_t step = kBufferAlignment;
  SmallVector<std::pair<Expr, int64_t>> laneTerms;
  for (auto &[atom, c] : lin.terms) {
    if (c == 0)
      continue;
    if (atom->kind == Node::Sym && !enumerated.contains(atom->id))
      step = std::gcd(step, c < 0 ? -c : c);
    else
      laneTerms.push_back({atom, c});
  }
  bool usesTid = llvm::any_of(laneTerms, [](auto &t) { return hasTid(t.first); });
  if (usesTid && !dimsKnown) {
    out.why = "the block size is not a known constant";
    return out;
  }
  // Enumerate the symbols inside non-linear terms over their ranges.
  SmallVector<unsigned> enumList(enumerated.begin(), enumerated.end());
  uint64_t combos = 1;
  for (unsigned s : enumList) {
    if (!syms[s].lo || !syms[s].hi || *syms[s].hi < *syms[s].lo) {
      out.why = "'" + syms[s].name +
                "' enters the address non-linearly and its range is unknown";
      return out;
    }
    uint64_t n = uint64_t(*syms[s].hi) - uint64_t(*syms[s].lo);
    combos = n >= 4096 ? 4097 : combos * (n + 1);
    if (combos > 4096) {
      out.why = "too many values of '" + syms[s].name +
                "' enter the address non-linearly";
      return out;
    }
  }
  if (usesTid && (dims[0] > 1024 || dims[1] > 1024 || dims[2] > 1024 ||
                  dims[0] * dims[1] * dims[2] > 1024)) {
    out.why = "a block of more than 1024 threads";
    return out;
  }
  int64_t threads = dims[0] * dims[1] * dims[2];
  unsigned W = model.warpSize;
  int64_t warps = usesTid ? (threads + W - 1) / W : 1;
  Env env;
  env.sym.assign(syms.size(), 0);
  std::vector<int64_t> addrs(W);
  std::vector<char> active(W);
  bool aligned = true;
  for (uint64_t combo = 0; combo < combos; ++combo) {
    uint64_t rest = combo;
    for (unsigned s : enumList) {
      uint64_t n = *syms[s].hi - *syms[s].lo + 1;
      env.sym[s] = *syms[s].lo + int64_t(rest % n);
      rest /= n;
    }
    for (int64_t w = 0; w < warps; ++w) {
      bool full = true;
      for (unsigned l = 0; l < W; ++l) {
        int64_t t = w * W + l;
        active[l] = !usesTid || t < threads;
        full &= bool(active[l]);
        env.tid[0] = t % dims[0];
        env.tid[1] = (t / dims[0]) % dims[1];
        env.tid[2] = t / (dims[0] * dims[1]);
        int64_t a = lin.c0;
        for (auto &[atom, c] : laneTerms)
          a = wrapAdd(a, wrapMul(c, eval(atom, env)));
        if (tooLarge(a)) {
          out.why = "an address beyond any shared memory";
          return out;
        }
        addrs[l] = a;
        if (active[l] && (a % bytes != 0 || step % bytes != 0))
          aligned = false;
      }
      ext::bank::Cost cost;
      int64_t d = addrs[1] - addrs[0];
      bool affine = full;
      for (unsigned l = 2; affine && l < W; ++l)
        affine = addrs[l] - addrs[l - 1] == d;
      if (affine) {
        ext::bank::AffineAccess acc;
        acc.baseResidue = addrs[0];
        acc.baseStep = step;
        acc.laneStride = d;
        acc.bytes = bytes;
        cost = ext::bank::worstCaseAffine(model, acc);
      } else {
        std::vector<int64_t> shifted(W);
        for (int64_t r = 0; r < model.period(); r += std::gcd(step, model.period())) {
          for (unsigned l = 0; l < W; ++l)
            shifted[l] = addrs[l] + r;
          ext::bank::Cost c = ext::bank::countWavefronts(
              model, shifted.data(),
              reinterpret_cast<const bool *>(active.data()), bytes);
          cost.wavefronts = std::max(cost.wavefronts, c.wavefronts);
          cost.phases = std::max(cost.phases, c.phases);
          cost.degree = std::max(cost.degree, c.degree);
        }
      }
      out.cost.wavefronts = std::max(out.cost.wavefronts, cost.wavefronts);
      out.cost.phases = std::max(out.cost.phases, cost.phases);
      out.cost.degree = std::max(out.cost.degree, cost.degree);
    }
  }
  if (bytes > elemBytes && !aligned) {
    out.why = "the " + std::to_string(bytes) +
              "-byte vector access is not provably " + std::to_string(bytes) +
              "-byte aligned (the backend may split it)";
    return out;
  }
  out.known = true;
  return out;
}

bool isWorkgroup(Type t) {
  auto m = dyn_cast<MemRefType>(t);
  return m && gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(m);
}

struct Row {
  std::string access, location;
  Verdict verdict;
};

/// Remarks (and the summary table) for one kernel.
struct Reporter {
  Reporter(const ext::ExtBankConflictsOptions &options,
           const ext::bank::BankModel &model)
      : chip(options.chip), summary(options.summary), model(model) {}

  std::string chip;
  bool summary;
  ext::bank::BankModel model;
  bool hadError = false;

  void signalPassFailure() { hadError = true; }

  void analyzeKernel(Operation *kernel, std::array<int64_t, 3> dims,
                     bool known, const ext::bank::BankModel &model) {
    DataFlowSolver solver;
    solver.load<dataflow::DeadCodeAnalysis>();
    solver.load<dataflow::SparseConstantPropagation>();
    solver.load<dataflow::IntegerRangeAnalysis>();
    if (failed(solver.initializeAndRun(kernel))) {
      kernel->emitError("ext-bank-conflicts: integer range analysis failed");
      return signalPassFailure();
    }
    std::vector<Row> rows;
    kernel->walk([&](Operation *op) {
      if (op != kernel && isa<gpu::LaunchOp, gpu::GPUFuncOp>(op))
        return;
      Value memref;
      if (auto l = dyn_cast<memref::LoadOp>(op))
        memref = l.getMemRef();
      else if (auto s = dyn_cast<memref::StoreOp>(op))
        memref = s.getMemRef();
      else if (auto l = dyn_cast<vector::LoadOp>(op))
        memref = l.getBase();
      else if (auto s = dyn_cast<vector::StoreOp>(op))
        memref = s.getBase();
      else if (auto a = dyn_cast<memref::AtomicRMWOp>(op))
        memref = a.getMemref();
      else {
        // Any other op touching workgroup memory is not modelled.
        bool touches = false;
        for (Value o : op->getOperands())
          touches |= isWorkgroup(o.getType());
        auto mem = dyn_cast<MemoryEffectOpInterface>(op);
        if (!touches || (mem && !mem.hasEffect<MemoryEffects::Read>() &&
                         !mem.hasEffect<MemoryEffects::Write>()) ||
            op->hasTrait<OpTrait::IsTerminator>() ||
            isa<ViewLikeOpInterface, memref::CastOp>(op))
          return;
        Verdict v;
        v.why = "'" + op->getName().getStringRef().str() +
                "' is not a modelled access";
        report(op, v, rows);
        return;
      }
      if (!isWorkgroup(memref.getType()))
        return;
      report(op, analyzeAccess(op, memref, kernel, dims, known, solver, model),
             rows);
    });
    if (summary && !rows.empty())
      printSummary(kernel, rows, model);
  }

  Verdict analyzeAccess(Operation *op, Value memref, Operation *kernel,
                        std::array<int64_t, 3> dims, bool known,
                        DataFlowSolver &solver,
                        const ext::bank::BankModel &model) {
    KernelAnalysis ka(kernel, dims, known, solver);
    Verdict v;
    FailureOr<View> view = ka.view(memref);
    if (failed(view)) {
      v.why = "its buffer is " + ka.reason;
      return v;
    }
    // Padding: the elements a padded layout allocates (the outermost
    // extent times its stride, as ext-alloc-shared-to-workgroup allocates) minus
    // those of the view.
    int64_t alloc = 1, elems = 1;
    for (auto [s, st] : llvm::zip(view->sizes, view->strides)) {
      alloc = std::max(alloc, s * st);
      elems *= s;
    }
    v.paddingBytes = (alloc - elems) * view->elemBytes;

    unsigned bytes = view->elemBytes;
    SmallVector<Value> indices;
    if (auto l = dyn_cast<memref::LoadOp>(op))
      indices = l.getIndices();
    else if (auto s = dyn_cast<memref::StoreOp>(op))
      indices = s.getIndices();
    else if (auto a = dyn_cast<memref::AtomicRMWOp>(op))
      indices = a.getIndices();
    else {
      VectorType vt = isa<vector::LoadOp>(op)
                          ? cast<vector::LoadOp>(op).getVectorType()
                          : cast<vector::StoreOp>(op).getVectorType();
      indices = isa<vector::LoadOp>(op) ? cast<vector::LoadOp>(op).getIndices()
                                        : cast<vector::StoreOp>(op).getIndices();
      if (vt.getRank() != 1 || view->strides.empty() ||
          view->strides.back() != 1) {
        v.why = "a vector access that is not one contiguous run";
        return v;
      }
      bytes = vt.getNumElements() * view->elemBytes;
    }
    if (bytes == 0 || bytes > 16 || (bytes & (bytes - 1)) != 0) {
      v.why = "a " + std::to_string(bytes) +
              "-byte access is not one shared-memory instruction";
      return v;
    }
    Expr elem = view->offset;
    for (auto [i, st] : llvm::zip(indices, view->strides)) {
      FailureOr<Expr> e = ka.index(i);
      if (failed(e)) {
        v.why = "its index depends on " + ka.reason;
        return v;
      }
      elem = add(elem, mul(*e, st));
    }
    Expr addr = add(view->base, mul(elem, view->elemBytes));
    Verdict w = worstCase(addr, bytes, view->elemBytes, ka.syms, dims, known,
                          model);
    w.paddingBytes = v.paddingBytes;
    llvm::raw_string_ostream os(w.pattern);
    print(addr, ka.syms, os);
    return w;
  }

  void report(Operation *op, const Verdict &v, std::vector<Row> &rows) {
    InFlightDiagnostic d = op->emitRemark();
    if (!v.known) {
      d << "bank conflicts unknown: " << v.why;
    } else {
      if (v.cost.degree <= 1)
        d << "conflict-free";
      else
        d << v.cost.degree << "-way bank conflict";
      d << ": " << v.cost.wavefronts << " wavefront"
        << (v.cost.wavefronts == 1 ? "" : "s") << " per warp for "
        << v.bytes << "-byte accesses at byte " << v.pattern;
    }
    // "name file:line:col" for the names ext's lowerings give their ops.
    std::string loc;
    llvm::raw_string_ostream os(loc);
    Location l = op->getLoc();
    if (auto named = dyn_cast<NameLoc>(l)) {
      os << named.getName().getValue() << " ";
      l = named.getChildLoc();
    }
    if (auto fl = dyn_cast<FileLineColLoc>(l))
      os << llvm::sys::path::filename(fl.getFilename()) << ":" << fl.getLine()
         << ":" << fl.getColumn();
    else
      os << l;
    rows.push_back({op->getName().getStringRef().str(), loc, v});
  }

  void printSummary(Operation *kernel, ArrayRef<Row> rows,
                    const ext::bank::BankModel &model) {
    std::string name = "gpu.launch";
    if (auto f = dyn_cast<gpu::GPUFuncOp>(kernel))
      name = "@" + f.getName().str();
    else if (auto fn = kernel->getParentOfType<FunctionOpInterface>())
      name = "gpu.launch in @" + fn.getName().str();
    llvm::raw_ostream &os = llvm::errs();
    os << "ext-bank-conflicts: " << name << " (" << chip << ": "
       << model.banks << " banks x " << model.bankBytes << " B, "
       << model.warpSize << " lanes)\n";
    os << llvm::formatv("  {0,7} {1,10} {2,9}  {3,-13} {4}\n", "n-way",
                        "wavefronts", "padding B", "access", "location");
    unsigned worst = 0, unknown = 0;
    for (const Row &r : rows) {
      std::string nway = r.verdict.known
                             ? std::to_string(std::max(1u, r.verdict.cost.degree))
                             : "unknown";
      std::string wf =
          r.verdict.known ? std::to_string(r.verdict.cost.wavefronts) : "-";
      os << llvm::formatv("  {0,7} {1,10} {2,9}  {3,-13} {4}\n", nway, wf,
                          r.verdict.paddingBytes, r.access, r.location);
      if (r.verdict.known)
        worst = std::max(worst, r.verdict.cost.degree);
      else
        ++unknown;
    }
    os << "  worst: " << std::max(1u, worst) << "-way, "
       << rows.size() << " accesses, " << unknown << " unknown\n";
  }
};

} // namespace

LogicalResult ext::reportBankConflicts(Operation *kernel,
                                       const ExtBankConflictsOptions &options) {
  std::optional<ext::bank::BankModel> model =
      ext::bank::BankModel::forChip(options.chip);
  if (!model)
    return kernel->emitError()
           << "ext-bank-conflicts: no bank model for chip '" << options.chip
           << "' (sm_NN for NVIDIA, gfx9NN for AMD CDNA other than gfx950)";
  std::array<int64_t, 3> dims{1, 1, 1};
  bool known = true;
  if (auto launch = dyn_cast<gpu::LaunchOp>(kernel)) {
    Value sizes[] = {launch.getBlockSizeX(), launch.getBlockSizeY(),
                     launch.getBlockSizeZ()};
    for (int d = 0; d < 3; ++d) {
      std::optional<int64_t> c = getConstantIntValue(sizes[d]);
      known &= c.has_value() && *c > 0;
      dims[d] = c.value_or(1);
    }
  } else if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel)) {
    if (func.isExternal())
      return success();
    std::optional<ArrayRef<int32_t>> k = func.getKnownBlockSize();
    known = k.has_value() && k->size() == 3 &&
            llvm::all_of(*k, [](int32_t v) { return v > 0; });
    if (known)
      for (int d = 0; d < 3; ++d)
        dims[d] = (*k)[d];
  } else {
    return kernel->emitError("ext-bank-conflicts: expected a gpu.launch or a "
                             "gpu.func");
  }
  Reporter reporter(options, *model);
  reporter.analyzeKernel(kernel, dims, known, *model);
  return failure(reporter.hadError);
}

namespace {

struct ExtBankConflictsPass
    : ext::impl::ExtBankConflictsBase<ExtBankConflictsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (!ext::bank::BankModel::forChip(chip)) {
      emitError(getOperation()->getLoc())
          << "ext-bank-conflicts: no bank model for chip '" << chip
          << "' (sm_NN for NVIDIA, gfx9NN for AMD CDNA other than gfx950)";
      return signalPassFailure();
    }
    ext::ExtBankConflictsOptions options;
    options.chip = chip;
    options.summary = summary;
    SmallVector<Operation *> kernels;
    getOperation()->walk([&](Operation *op) {
      auto func = dyn_cast<gpu::GPUFuncOp>(op);
      if (isa<gpu::LaunchOp>(op) || (func && func.isKernel()))
        kernels.push_back(op);
    });
    for (Operation *kernel : kernels)
      if (failed(ext::reportBankConflicts(kernel, options)))
        return signalPassFailure();
  }
};

} // namespace
