//===- OperandProduct.cpp - products of transformed operands --------------===//
//
// A compute body C += f(A reads) * g(B reads): what a matrix instruction runs
// when each factor is built per element in its operand's fragment (a weight
// dequantized from packed bytes, scales and zeros, times an activation).
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace ext;

/// The factor that computes `v` in `body`; none where it reads something
/// it cannot recompute per element (an op with regions or effects).
static std::optional<ProductFactor> matchFactor(Block &body, Value v) {
  ProductFactor f;
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    v = ext.getIn();
  f.value = v;
  llvm::SetVector<Operation *> ops;
  llvm::SmallSetVector<unsigned, 2> inputs;
  SmallVector<Value> work{v};
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      if (arg.getOwner() == &body)
        inputs.insert(arg.getArgNumber());
      continue;
    }
    Operation *def = x.getDefiningOp();
    if (def->getBlock() != &body || !ops.insert(def))
      continue; // defined above the compute, or seen
    if (def->getNumRegions() || !isPure(def))
      return std::nullopt;
    if (auto index = dyn_cast<IndexOp>(def)) {
      if (!llvm::is_contained(f.axes, index.getAxis()))
        f.axes.push_back(index.getAxis());
      continue;
    }
    llvm::append_range(work, def->getOperands());
  }
  if (inputs.empty())
    return std::nullopt;
  f.inputs.assign(inputs.begin(), inputs.end());
  llvm::sort(f.inputs);
  f.ops.assign(ops.begin(), ops.end());
  llvm::sort(f.ops, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  return f;
}

std::optional<OperandProductBody>
ext::matchOperandProductBody(ComputeLikeOpInterface op) {
  if (op.getCombiner() != CombinerKind::sum || op.getOutputs().size() != 1)
    return std::nullopt;
  Block &body = op.getBodyBlock();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || yield.getValues().size() != 1)
    return std::nullopt;
  auto mul = yield.getValues()[0].getDefiningOp<arith::MulFOp>();
  if (!mul)
    return std::nullopt;
  std::optional<ProductFactor> lhs = matchFactor(body, mul.getLhs());
  std::optional<ProductFactor> rhs = matchFactor(body, mul.getRhs());
  if (!lhs || !rhs ||
      llvm::any_of(lhs->inputs,
                   [&](unsigned i) { return llvm::is_contained(rhs->inputs, i); }))
    return std::nullopt;
  return OperandProductBody{std::move(*lhs), std::move(*rhs)};
}

std::optional<ProductBody> ext::matchProductBody(ComputeLikeOpInterface op) {
  if (op.getInputs().size() != 2)
    return std::nullopt;
  std::optional<OperandProductBody> product = matchOperandProductBody(op);
  if (!product || !product->isPlain())
    return std::nullopt;
  return ProductBody{product->lhs.inputs[0], product->rhs.inputs[0]};
}

std::optional<SmallVector<Type>>
ext::getProductOperandTypes(ComputeLikeOpInterface op) {
  if (matchProductBody(op))
    return llvm::map_to_vector(op.getInputs(), [](Value in) {
      return cast<MemRefType>(in.getType()).getElementType();
    });
  std::optional<OperandProductBody> product = matchOperandProductBody(op);
  if (!product)
    return std::nullopt;
  return SmallVector<Type>{product->lhs.value.getType(),
                           product->rhs.value.getType()};
}
