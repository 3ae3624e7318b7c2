//===- Serpentine.cpp - a tile decomposition from a plugin ----------------===//
//
// #ext_example.serpentine: all of the plugin's code that faces ext's
// TileDecompositionAttrInterface (and its TileWorkEmitter) is in this file,
// so a change of that interface is a change here only. The interface's
// defaults do the rest: the grid-limit check, `auto`'s candidate (the
// registered prototype, Plugin.cpp) and its prediction (whole tiles).
//
//===----------------------------------------------------------------------===//

#include "ExampleDialect.h"

using namespace mlir;
using namespace ext_example;

LogicalResult
SerpentineAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t run) {
  if (run < 1)
    return emitError() << "serpentine run must be at least 1, got " << run;
  return success();
}

int64_t SerpentineAttr::getNumBlocks(int64_t numTiles, int64_t itersPerTile,
                                     const ext::DeviceFacts &) const {
  return numTiles;
}

bool SerpentineAttr::splitsReduction() const { return false; }

/// Block b takes tile b, except in odd runs, which are mirrored:
///   r = b / run, start = r * run, len = min(run, numTiles - start),
///   tile = r odd ? start + (start + len - 1) - b : b
/// a permutation of [0, numTiles), the short last run included.
LogicalResult SerpentineAttr::emitWorkUnits(OpBuilder &b, Location loc,
                                            Value blockId, int64_t numTiles,
                                            int64_t itersPerTile,
                                            const ext::DeviceFacts &,
                                            ext::TileWorkEmitter &emitter) const {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value run = index(getRun());
  Value r = arith::DivUIOp::create(b, loc, blockId, run);
  Value start = arith::MulIOp::create(b, loc, r, run);
  Value left = arith::SubIOp::create(b, loc, index(numTiles), start);
  Value len = arith::MinUIOp::create(b, loc, left, run);
  Value last = arith::SubIOp::create(
      b, loc, arith::AddIOp::create(b, loc, start, len), index(1));
  Value mirrored = arith::SubIOp::create(
      b, loc, arith::AddIOp::create(b, loc, start, last), blockId);
  Value odd = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne,
      arith::RemUIOp::create(b, loc, r, index(2)), index(0));
  Value tile = arith::SelectOp::create(b, loc, odd, mirrored, blockId);

  FailureOr<SmallVector<Value>> fragments =
      emitter.emitMainloop(b, loc, tile, index(0), index(itersPerTile));
  if (failed(fragments))
    return failure();
  return emitter.emitEpilogue(b, loc, tile, *fragments);
}
