//===- FragmentLayouts.cpp - ext's built-in fragment layouts --------------===//

#include "ext/Dialect/Ext/IR/ExtAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace ext;

static Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return b.createOrFold<arith::ConstantIndexOp>(loc, v);
}

/// `base + scale * v`, folded where `v` is constant.
static Value mulAdd(OpBuilder &b, Location loc, Value v, int64_t scale,
                    Value base) {
  Value scaled =
      scale == 1 ? v
                 : b.createOrFold<arith::MulIOp>(loc, v,
                                                 indexConst(b, loc, scale));
  return b.createOrFold<arith::AddIOp>(loc, base, scaled);
}

static LogicalResult
checkRanks(function_ref<InFlightDiagnostic()> emitError, StringRef name,
           ArrayRef<int64_t> shape, ArrayRef<int64_t> threads) {
  if (shape.size() != threads.size())
    return emitError() << name << " layout: " << shape.size()
                       << " dimensions but " << threads.size()
                       << " thread counts";
  return success();
}

//===----------------------------------------------------------------------===//
// CyclicLayoutAttr: thread t holds t, t + H, t + 2H, ...
//===----------------------------------------------------------------------===//

LogicalResult CyclicLayoutAttr::verifyDistribution(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> shape,
    ArrayRef<int64_t> threads) const {
  if (failed(checkRanks(emitError, "cyclic", shape, threads)))
    return failure();
  for (auto [d, size, h] : llvm::enumerate(shape, threads))
    if (h < 1 || size % h != 0)
      return emitError() << "cyclic layout: dimension #" << d << " of size "
                         << size << " is not a multiple of its " << h
                         << " threads";
  return success();
}

SmallVector<Value> CyclicLayoutAttr::emitPointIndices(
    OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
    ArrayRef<int64_t> threads, ValueRange threadCoords,
    ValueRange locals) const {
  SmallVector<Value> points;
  for (auto [h, t, l] : llvm::zip(threads, threadCoords, locals))
    points.push_back(h == 1 ? l : mulAdd(b, loc, l, h, t));
  return points;
}

int64_t CyclicLayoutAttr::getContiguity(unsigned dim, ArrayRef<int64_t> shape,
                                        ArrayRef<int64_t> threads) const {
  return threads[dim] == 1 ? shape[dim] : 1;
}

//===----------------------------------------------------------------------===//
// BlockedLayoutAttr: runs of thread_tile consecutive points, H * b apart.
//===----------------------------------------------------------------------===//

LogicalResult
BlockedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<int64_t> threadTile) {
  if (threadTile.empty())
    return emitError() << "blocked layout needs a thread_tile";
  for (int64_t b : threadTile)
    if (b < 1)
      return emitError() << "blocked layout: thread_tile entries must be "
                            "positive, got "
                         << b;
  return success();
}

LogicalResult BlockedLayoutAttr::verifyDistribution(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> shape,
    ArrayRef<int64_t> threads) const {
  if (failed(checkRanks(emitError, "blocked", shape, threads)))
    return failure();
  if (getThreadTile().size() != shape.size())
    return emitError() << "blocked layout has " << getThreadTile().size()
                       << " thread_tile entries for " << shape.size()
                       << " spatial dimensions";
  for (auto [d, size, h, b] :
       llvm::enumerate(shape, threads, getThreadTile())) {
    std::optional<int64_t> span = llvm::checkedMul(h, b);
    if (h < 1 || !span || size % *span != 0)
      return emitError() << "blocked layout: dimension #" << d << " of size "
                         << size << " is not a multiple of " << h
                         << " threads x thread_tile " << b;
  }
  return success();
}

SmallVector<Value> BlockedLayoutAttr::emitPointIndices(
    OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
    ArrayRef<int64_t> threads, ValueRange threadCoords,
    ValueRange locals) const {
  SmallVector<Value> points;
  for (auto [h, run, t, l] :
       llvm::zip(threads, getThreadTile(), threadCoords, locals)) {
    // (l div run) * h * run + t * run + (l mod run)
    Value inRun = run == 1 ? indexConst(b, loc, 0)
                           : b.createOrFold<arith::RemUIOp>(
                                 loc, l, indexConst(b, loc, run));
    Value runIdx = run == 1 ? l
                            : b.createOrFold<arith::DivUIOp>(
                                  loc, l, indexConst(b, loc, run));
    Value start = h == 1 ? indexConst(b, loc, 0)
                         : b.createOrFold<arith::MulIOp>(
                               loc, t, indexConst(b, loc, run));
    points.push_back(
        mulAdd(b, loc, runIdx, h * run, mulAdd(b, loc, inRun, 1, start)));
  }
  return points;
}

int64_t BlockedLayoutAttr::getContiguity(unsigned dim, ArrayRef<int64_t> shape,
                                         ArrayRef<int64_t> threads) const {
  return threads[dim] == 1 ? shape[dim] : getThreadTile()[dim];
}
