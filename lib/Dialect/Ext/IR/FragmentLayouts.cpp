//===- FragmentLayouts.cpp - ext's built-in fragment layouts --------------===//

#include "ext/Dialect/Ext/IR/ExtAttrs.h"
#include "ext/Model/MatrixInstructions.h"

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

//===----------------------------------------------------------------------===//
// MmaLayoutAttr: the accumulator layout of a warp-level MMA instruction.
//===----------------------------------------------------------------------===//

LogicalResult
MmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      MmaShape shape, ArrayRef<int64_t> warps) {
  if (!warps.empty() && warps.size() != 2)
    return emitError() << "mma layout: warps must be [WM, WN], got "
                       << warps.size() << " entries";
  for (int64_t w : warps)
    if (w < 1 || w > 32)
      return emitError() << "mma layout: warp counts must be in [1, 32], got "
                         << w;
  if (shape == MmaShape::automatic && !warps.empty())
    return emitError() << "mma layout: 'auto' names no instruction; give one "
                          "(m16n8k16, m16n8k8, mfma_32x32x8, mfma_16x16x16, "
                          "mfma_32x32x2, wgmma_k16)";
  return success();
}

/// The hardware model's row of the layout's instruction; nullptr for `auto`.
static const MatrixInstruction *instruction(MmaShape shape) {
  return lookupMatrixInstruction(stringifyMmaShape(shape));
}

int64_t MmaLayoutAttr::getM() const {
  const MatrixInstruction *row = instruction(getShape());
  return row ? row->m : 1;
}
int64_t MmaLayoutAttr::getN() const {
  const MatrixInstruction *row = instruction(getShape());
  return row ? row->n : 1;
}
int64_t MmaLayoutAttr::getK() const {
  const MatrixInstruction *row = instruction(getShape());
  return row ? row->k : 1;
}

bool MmaLayoutAttr::isNvidia() const {
  const MatrixInstruction *row = instruction(getShape());
  return row && row->accumulators == AccumulatorLayout::NvidiaQuads;
}

int64_t MmaLayoutAttr::getWarpSize() const {
  const MatrixInstruction *row = instruction(getShape());
  return row ? row->lanes : 32;
}

bool MmaLayoutAttr::takesInputType(Type t) const {
  const MatrixInstruction *row = instruction(getShape());
  std::string name;
  llvm::raw_string_ostream os(name);
  t.print(os);
  return row && row->takes(name);
}

StringRef MmaLayoutAttr::inputTypesText() const {
  const MatrixInstruction *row = instruction(getShape());
  return row ? StringRef(row->inputsText) : StringRef("none");
}

bool MmaLayoutAttr::existsOn(const ChipInfo &chip) const {
  const MatrixInstruction *row = instruction(getShape());
  return row && row->existsOn(chip);
}

LogicalResult MmaLayoutAttr::verifyDistribution(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> shape,
    ArrayRef<int64_t> threads) const {
  if (failed(checkRanks(emitError, "mma", shape, threads)))
    return failure();
  if (getShape() == MmaShape::automatic || getWarps().empty())
    return emitError() << "mma layout " << *this
                       << " names no instruction and warps; a fragment needs "
                          "both (ext-apply-schedule resolves them)";
  if (shape.size() != 2)
    return emitError() << "mma layout: a tile of " << shape.size()
                       << " spatial dimensions; an MMA accumulator has 2";
  int64_t numThreads = threads[0] * threads[1];
  int64_t want = getWarps()[0] * getWarps()[1] * getWarpSize();
  if (numThreads != want)
    return emitError() << "mma layout: " << numThreads
                       << " threads, but warps = [" << getWarps()[0] << ", "
                       << getWarps()[1] << "] of " << getWarpSize()
                       << " lanes need " << want;
  if (isWarpgroup()) {
    // A warpgroup is 4 consecutive warps; with warps [WM, 1] they are 64
    // consecutive rows, 16 each, as wgmma's accumulators are.
    if (getWarps()[1] != 1 || getWarps()[0] % 4 != 0 ||
        shape[0] != getWarps()[0] * 16)
      return emitError() << "mma layout: wgmma_k16 needs warps = [WM, 1] with "
                            "WM a multiple of 4 and 16 rows per warp (tile "
                            "M = 16 WM); got warps = ["
                         << getWarps()[0] << ", " << getWarps()[1]
                         << "] for M = " << shape[0];
    if (shape[1] % 8 != 0 || shape[1] > 256)
      return emitError() << "mma layout: wgmma_k16 computes N = 8..256 in "
                            "steps of 8 per warpgroup; the tile's N is "
                         << shape[1];
  }
  int64_t instr[2] = {getM(), getN()};
  const char *names[2] = {"M", "N"};
  for (unsigned d = 0; d < 2; ++d)
    if (shape[d] % (getWarps()[d] * instr[d]) != 0)
      return emitError() << "mma layout: tile dimension #" << d << " of size "
                         << shape[d] << " is not a multiple of "
                         << getWarps()[d] << " warps x " << instr[d]
                         << " (the instruction's " << names[d] << ")";
  return success();
}

SmallVector<int64_t>
MmaLayoutAttr::getLocalShape(ArrayRef<int64_t> shape,
                             ArrayRef<int64_t> threads) const {
  int64_t tilesM = shape[0] / (getWarps()[0] * getM());
  int64_t tilesN = shape[1] / (getWarps()[1] * getN());
  if (isNvidia()) // two rows (g, g + 8) x two columns per lane and tile
    return {tilesM * 2, tilesN * 2};
  // AMD: M * N / 64 rows of one column per lane and tile.
  return {tilesM * getAccumulatorsPerLane(), tilesN};
}

SmallVector<Value> MmaLayoutAttr::emitPointIndices(
    OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
    ArrayRef<int64_t> threads, ValueRange threadCoords,
    ValueRange locals) const {
  auto c = [&](int64_t v) { return indexConst(b, loc, v); };
  auto div = [&](Value v, int64_t d) {
    return d == 1 ? v : b.createOrFold<arith::DivUIOp>(loc, v, c(d));
  };
  auto rem = [&](Value v, int64_t d) {
    return d == 1 ? c(0) : b.createOrFold<arith::RemUIOp>(loc, v, c(d));
  };
  Value tid = mulAdd(b, loc, threadCoords[0], threads[1], threadCoords[1]);
  int64_t ws = getWarpSize();
  Value warp = div(tid, ws), lane = rem(tid, ws);
  int64_t wn = getWarps()[1];
  int64_t warpTileM = shape[0] / getWarps()[0];
  int64_t warpTileN = shape[1] / wn;
  Value rowBase = b.createOrFold<arith::MulIOp>(loc, div(warp, wn),
                                                c(warpTileM));
  Value colBase =
      b.createOrFold<arith::MulIOp>(loc, rem(warp, wn), c(warpTileN));
  Value lm = locals[0], ln = locals[1];
  Value row, col;
  if (isNvidia()) {
    // row: (lm / 2) * 16 + (lm % 2) * 8 + lane / 4
    // col: (ln / 2) * 8 + (lane % 4) * 2 + ln % 2
    row = mulAdd(b, loc, div(lm, 2), 16,
                 mulAdd(b, loc, rem(lm, 2), 8, div(lane, 4)));
    col = mulAdd(b, loc, div(ln, 2), 8,
                 mulAdd(b, loc, rem(lane, 4), 2, rem(ln, 2)));
  } else {
    int64_t m = getM(), perLane = getAccumulatorsPerLane();
    int64_t groups = ws / m; // lanes groups of m, each holding 4 rows
    // item r of tile i: row 4 * groups * (r / 4) + 4 * (lane / m) + r % 4
    Value i = div(lm, perLane), r = rem(lm, perLane);
    Value inTile = mulAdd(b, loc, div(r, 4), 4 * groups,
                          mulAdd(b, loc, div(lane, m), 4, rem(r, 4)));
    row = mulAdd(b, loc, i, m, inTile);
    col = mulAdd(b, loc, ln, getN(), rem(lane, m));
  }
  return {b.createOrFold<arith::AddIOp>(loc, rowBase, row),
          b.createOrFold<arith::AddIOp>(loc, colBase, col)};
}

int64_t MmaLayoutAttr::getContiguity(unsigned dim, ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> threads) const {
  if (isNvidia())
    return dim == 1 ? 2 : 1;
  return dim == 0 ? 4 : 1;
}

//===----------------------------------------------------------------------===//
// SliceLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult
SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned dim, MmaLayoutAttr parent) {
  if (dim != 1)
    return emitError() << "slice layout: only dim = 1 (an MMA fragment's "
                          "columns) is supported, got dim = "
                       << dim;
  if (!parent || parent.getShape() == MmaShape::automatic ||
      parent.getWarps().size() != 2 || parent.getWarps()[1] != 1)
    return emitError() << "slice layout: the parent must be an #ext.mma "
                          "layout naming its instruction with warps = [WM, "
                          "1] (each row in one warp), got "
                       << parent;
  return success();
}

/// The parent's tile and thread grid behind a slice of `shape` over
/// `threads`: the rows, and one instruction's columns (a row's distribution
/// does not depend on the columns with warps = [WM, 1]).
static std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
sliceParentGrid(MmaLayoutAttr parent, ArrayRef<int64_t> shape,
                ArrayRef<int64_t> threads) {
  return {{shape[0], parent.getN()}, {1, threads[0]}};
}

LogicalResult SliceLayoutAttr::verifyDistribution(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> shape,
    ArrayRef<int64_t> threads) const {
  if (failed(checkRanks(emitError, "slice", shape, threads)))
    return failure();
  if (shape.size() != 1)
    return emitError() << "slice layout: a tile of " << shape.size()
                       << " dimensions; a slice of an MMA fragment's columns "
                          "has 1 (the rows)";
  auto [pShape, pThreads] = sliceParentGrid(getParent(), shape, threads);
  return getParent().verifyDistribution(emitError, pShape, pThreads);
}

SmallVector<int64_t>
SliceLayoutAttr::getLocalShape(ArrayRef<int64_t> shape,
                               ArrayRef<int64_t> threads) const {
  auto [pShape, pThreads] = sliceParentGrid(getParent(), shape, threads);
  return {getParent().getLocalShape(pShape, pThreads)[0]};
}

/// The parent fragment's (row, column) of a slice point: the point's row
/// at the row's first column that the thread holds.
static SmallVector<Value> parentPoint(MmaLayoutAttr parent, OpBuilder &b,
                                      Location loc, ArrayRef<int64_t> shape,
                                      ArrayRef<int64_t> threads,
                                      ValueRange threadCoords,
                                      ValueRange locals) {
  auto [pShape, pThreads] = sliceParentGrid(parent, shape, threads);
  Value zero = indexConst(b, loc, 0);
  return parent.emitPointIndices(b, loc, pShape, pThreads,
                                 {zero, threadCoords[0]}, {locals[0], zero});
}

SmallVector<Value> SliceLayoutAttr::emitPointIndices(OpBuilder &b, Location loc,
                                                     ArrayRef<int64_t> shape,
                                                     ArrayRef<int64_t> threads,
                                                     ValueRange threadCoords,
                                                     ValueRange locals) const {
  return {parentPoint(getParent(), b, loc, shape, threads, threadCoords,
                      locals)[0]};
}

Value SliceLayoutAttr::emitIsOwner(OpBuilder &b, Location loc,
                                   ArrayRef<int64_t> shape,
                                   ArrayRef<int64_t> threads,
                                   ValueRange threadCoords,
                                   ValueRange locals) const {
  Value col =
      parentPoint(getParent(), b, loc, shape, threads, threadCoords, locals)[1];
  return b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, col,
                                       indexConst(b, loc, 0));
}

int64_t SliceLayoutAttr::getContiguity(unsigned, ArrayRef<int64_t>,
                                       ArrayRef<int64_t>) const {
  return 1;
}
