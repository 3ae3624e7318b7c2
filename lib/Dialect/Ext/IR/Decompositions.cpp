//===- Decompositions.cpp - ext's built-in tile decompositions ------------===//

#include "ext/Dialect/Ext/IR/ExtAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace ext;

//===----------------------------------------------------------------------===//
// DataParallelAttr: one CTA per tile, the whole reduce range.
//===----------------------------------------------------------------------===//

int64_t DataParallelAttr::getNumBlocks(int64_t numTiles,
                                       int64_t itersPerTile) const {
  return numTiles;
}

bool DataParallelAttr::splitsReduction() const { return false; }

LogicalResult DataParallelAttr::verifyProblem(
    function_ref<InFlightDiagnostic()> emitError, int64_t numTiles,
    int64_t itersPerTile) const {
  if (numTiles > std::numeric_limits<int32_t>::max())
    return emitError() << "data_parallel needs one CTA per tile, and "
                       << numTiles << " tiles exceed the grid's x limit";
  return success();
}

LogicalResult DataParallelAttr::emitWorkUnits(OpBuilder &b, Location loc,
                                              Value blockId, int64_t numTiles,
                                              int64_t itersPerTile,
                                              TileWorkEmitter &emitter) const {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value iters = arith::ConstantIndexOp::create(b, loc, itersPerTile);
  FailureOr<SmallVector<Value>> fragments =
      emitter.emitMainloop(b, loc, blockId, zero, iters);
  if (failed(fragments))
    return failure();
  return emitter.emitEpilogue(b, loc, blockId, *fragments);
}
