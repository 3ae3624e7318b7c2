//===- Combiner.cpp - built-in reduction combiners ------------------------===//

#include "ext/Dialect/Ext/IR/Combiner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

using namespace mlir;

namespace ext {

bool isCombinableType(CombinerKind kind, Type type) {
  if (kind == CombinerKind::custom)
    return false;
  return type.isIntOrIndexOrFloat();
}

TypedAttr getCombinerIdentity(CombinerKind kind, Type type) {
  if (!isCombinableType(kind, type))
    return {};
  if (auto ft = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    switch (kind) {
    case CombinerKind::sum:
      return FloatAttr::get(ft, llvm::APFloat::getZero(sem));
    case CombinerKind::prod:
      return FloatAttr::get(ft, llvm::APFloat::getOne(sem));
    case CombinerKind::max:
      return FloatAttr::get(ft, llvm::APFloat::getInf(sem, /*Negative=*/true));
    case CombinerKind::min:
      return FloatAttr::get(ft, llvm::APFloat::getInf(sem, /*Negative=*/false));
    case CombinerKind::custom:
      return {};
    }
  }
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  switch (kind) {
  case CombinerKind::sum:
    return IntegerAttr::get(type, llvm::APInt(width, 0));
  case CombinerKind::prod:
    return IntegerAttr::get(type, llvm::APInt(width, 1));
  case CombinerKind::max:
    return IntegerAttr::get(type, llvm::APInt::getSignedMinValue(width));
  case CombinerKind::min:
    return IntegerAttr::get(type, llvm::APInt::getSignedMaxValue(width));
  case CombinerKind::custom:
    return {};
  }
  return {};
}

Value buildCombine(OpBuilder &b, Location loc, CombinerKind kind, Value acc,
                   Value value) {
  bool isFloat = isa<FloatType>(acc.getType());
  switch (kind) {
  case CombinerKind::sum:
    return isFloat ? arith::AddFOp::create(b, loc, acc, value).getResult()
                   : arith::AddIOp::create(b, loc, acc, value).getResult();
  case CombinerKind::prod:
    return isFloat ? arith::MulFOp::create(b, loc, acc, value).getResult()
                   : arith::MulIOp::create(b, loc, acc, value).getResult();
  case CombinerKind::max:
    return isFloat ? arith::MaximumFOp::create(b, loc, acc, value).getResult()
                   : arith::MaxSIOp::create(b, loc, acc, value).getResult();
  case CombinerKind::min:
    return isFloat ? arith::MinimumFOp::create(b, loc, acc, value).getResult()
                   : arith::MinSIOp::create(b, loc, acc, value).getResult();
  case CombinerKind::custom:
    break;
  }
  return {};
}

} // namespace ext
