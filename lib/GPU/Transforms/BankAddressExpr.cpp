//===- BankAddressExpr.cpp - address expressions of the bank analysis -----===//
//
// The small integer expressions ext-gpu-bank-conflicts builds a shared-memory
// byte address from: thread ids, block-uniform symbols, constants, and sums,
// products, floor divisions, remainders and bit operations of them, folded
// as they are built; their value for one thread, their linear part, and the
// text of the address the remarks print.
//
//===----------------------------------------------------------------------===//

#include "BankAddress.h"

using namespace mlir;

namespace ext {
namespace bank_conflicts {

int64_t wrapAdd(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) + uint64_t(b));
}
int64_t wrapMul(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) * uint64_t(b));
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
static int64_t floorDiv(int64_t a, int64_t b) {
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
    return cst(k == Node::Xor   ? (x->c ^ y->c)
               : k == Node::And ? (x->c & y->c)
                                : (x->c | y->c));
  return mk({k, 0, 0, x, y});
}

int64_t eval(const Expr &e, const Env &env) {
  switch (e->kind) {
  case Node::Const:
    return e->c;
  case Node::Tid:
    return env.tid[e->id];
  case Node::Sym:
    return env.sym[e->id];
  case Node::Add:
    return wrapAdd(eval(e->a, env), eval(e->b, env));
  case Node::Mul:
    return wrapMul(eval(e->a, env), e->c);
  case Node::Div:
    return floorDiv(eval(e->a, env), e->c);
  case Node::Mod: {
    int64_t v = eval(e->a, env);
    return v - wrapMul(floorDiv(v, e->c), e->c);
  }
  case Node::Xor:
    return eval(e->a, env) ^ eval(e->b, env);
  case Node::And:
    return eval(e->a, env) & eval(e->b, env);
  case Node::Or:
    return eval(e->a, env) | eval(e->b, env);
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

void flatten(const Expr &e, int64_t coef, Linear &out) {
  switch (e->kind) {
  case Node::Const:
    out.c0 = wrapAdd(out.c0, wrapMul(coef, e->c));
    return;
  case Node::Add:
    flatten(e->a, coef, out);
    flatten(e->b, coef, out);
    return;
  case Node::Mul:
    flatten(e->a, wrapMul(coef, e->c), out);
    return;
  default:
    break;
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
           bool top) {
  static const char *dims[] = {"tid.x", "tid.y", "tid.z"};
  switch (e->kind) {
  case Node::Const:
    os << e->c;
    return;
  case Node::Tid:
    os << dims[e->id];
    return;
  case Node::Sym:
    os << syms[e->id].name;
    return;
  default:
    break;
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
    bool paren =
        x->kind != Node::Tid && x->kind != Node::Sym && x->kind != Node::Const;
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

} // namespace bank_conflicts
} // namespace ext
