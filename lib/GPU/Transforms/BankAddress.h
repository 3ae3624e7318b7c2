//===- BankAddress.h - internals of ext-gpu-bank-conflicts ------*- C++ -*-===//
//
// What the files of ext-gpu-bank-conflicts share: BankAddressExpr.cpp (integer
// expressions over thread ids and block-uniform symbols),
// BankAddressAnalysis.cpp (a shared-memory access's byte address as such an
// expression, from the IR) and BankConflicts.cpp (the worst case of each
// access, the report and the pass). Not a public header.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_GPU_TRANSFORMS_BANKADDRESS_H
#define EXT_LIB_GPU_TRANSFORMS_BANKADDRESS_H

#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ext {
namespace bank_conflicts {

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
int64_t wrapAdd(int64_t a, int64_t b);
int64_t wrapMul(int64_t a, int64_t b);

Expr mk(Node n);
Expr cst(int64_t c);
bool isConst(const Expr &e);
Expr add(Expr x, Expr y);
Expr mul(Expr x, int64_t c);
Expr divE(Expr x, int64_t c);
Expr modE(Expr x, int64_t c);
Expr bitE(Node::Kind k, Expr x, Expr y);

/// What one symbol stands for.
struct Symbol {
  std::string name;
  std::optional<int64_t> lo, hi; // known range, for enumeration
};

struct Env {
  int64_t tid[3] = {0, 0, 0};
  std::vector<int64_t> sym;
};

int64_t eval(const Expr &e, const Env &env);
bool hasTid(const Expr &e);
void collectSyms(const Expr &e, llvm::SmallSetVector<unsigned, 4> &out);

/// e = c0 + sum(coef * atom): atoms are Tid, Sym or non-linear nodes.
struct Linear {
  int64_t c0 = 0;
  llvm::SmallVector<std::pair<Expr, int64_t>> terms;
};
void flatten(const Expr &e, int64_t coef, Linear &out);

void print(const Expr &e, llvm::ArrayRef<Symbol> syms, llvm::raw_ostream &os,
           bool top = true);

//===----------------------------------------------------------------------===//
// From IR to expressions
//===----------------------------------------------------------------------===//

/// A memref as seen by the analysis: element `(i...)` lies at byte
/// `base + elemBytes * (offset + sum(i_k * strides_k))` of workgroup memory.
struct View {
  Expr base, offset;
  llvm::SmallVector<int64_t> strides;
  llvm::SmallVector<int64_t> sizes;
  unsigned elemBytes = 0;
};

class KernelAnalysis {
public:
  KernelAnalysis(mlir::Operation *kernel, std::array<int64_t, 3> blockDims,
                 bool dimsKnown, mlir::DataFlowSolver &solver)
      : kernel(kernel), blockDims(blockDims), dimsKnown(dimsKnown),
        solver(solver) {}

  mlir::FailureOr<Expr> index(mlir::Value v);
  mlir::FailureOr<View> view(mlir::Value memref);
  std::string reason;
  std::vector<Symbol> syms;

private:
  Expr newSym(std::string name, std::optional<int64_t> lo = std::nullopt,
              std::optional<int64_t> hi = std::nullopt) {
    syms.push_back({std::move(name), lo, hi});
    return mk({Node::Sym, 0, unsigned(syms.size() - 1), nullptr, nullptr});
  }
  std::optional<std::pair<int64_t, int64_t>> range(mlir::Value v) {
    auto *st = solver.lookupState<mlir::dataflow::IntegerValueRangeLattice>(v);
    if (!st || st->getValue().isUninitialized())
      return std::nullopt;
    const mlir::ConstantIntRanges &r = st->getValue().getValue();
    if (r.smin().getBitWidth() > 64)
      return std::nullopt;
    return std::make_pair(r.smin().getSExtValue(), r.smax().getSExtValue());
  }
  llvm::LogicalResult fail(const llvm::Twine &why) {
    if (reason.empty())
      reason = why.str();
    return mlir::failure();
  }
  mlir::FailureOr<Expr> compute(mlir::Value v);
  bool nonNegative(const Expr &e);

  mlir::Operation *kernel;
  std::array<int64_t, 3> blockDims;
  bool dimsKnown;
  mlir::DataFlowSolver &solver;
  llvm::DenseMap<mlir::Value, Expr> cache;
  unsigned loops = 0, uniforms = 0;
};

} // namespace bank_conflicts
} // namespace ext

#endif // EXT_LIB_GPU_TRANSFORMS_BANKADDRESS_H
