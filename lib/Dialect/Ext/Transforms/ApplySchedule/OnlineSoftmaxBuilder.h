//===- OnlineSoftmaxBuilder.h - the online softmax's shared state -*- C++ -*-===//
//
// Private to the online-softmax rewrite of ext-apply-schedule (see
// OnlineSoftmax.cpp for the algorithm). The builder is one object whose
// state the phases share: what resolve() reads off the fused computes
// (OnlineSoftmaxAnalysis.cpp), the tile operands and shared copies
// (OnlineSoftmaxOperands.cpp), the steps of one key tile
// (OnlineSoftmaxStep.cpp), and the kernel around them (OnlineSoftmax.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef EXT_DIALECT_EXT_TRANSFORMS_ONLINESOFTMAXBUILDER_H
#define EXT_DIALECT_EXT_TRANSFORMS_ONLINESOFTMAXBUILDER_H

#include "OnlineSoftmax.h"
#include "Fusion.h"
#include "TileIR.h"
#include "ext/Dialect/Ext/Transforms/TilingPlan.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <map>

namespace ext {
namespace tiling {
namespace online {

/// How M is read in a fused sum's body: `exp(u - h(m))` and the ops from m
/// to it.
struct OnlineTerm {
  /// The body's argument that is M's element.
  mlir::BlockArgument m;
  /// h(m): the subtrahend (m itself, or ops of m and constants).
  mlir::Value hm;
  /// The ops computing h(m) from m, in order.
  llvm::SmallVector<mlir::Operation *> hOps;
  /// The exp(u - h(m)) value, and whether it is exp2 (FlashAttention's
  /// form, the scale times log2(e) folded into the scores): the rescale is
  /// then exp2 too.
  mlir::Value exp;
  bool base2 = false;
};

/// What `op` reads: its operands and the values its regions use from
/// above (an scf.if's branches).
llvm::SmallVector<mlir::Value> dependencies(mlir::Operation *op);

/// The ops of `root`'s block that depend on it (a use inside an op's
/// region counts as a use by that op).
llvm::SetVector<mlir::Operation *> forwardSlice(mlir::Value root);

/// Checks that `c`'s summand reads M (its input `mInput`) only in one
/// factor exp(u - h(M)) and fills `term`; reports at the anchor otherwise.
mlir::LogicalResult analyzeTerm(ComputeOp anchor, ComputeOp c,
                                unsigned mInput, llvm::StringRef mName,
                                OnlineTerm &term);

/// For a body whose term x (`masked`: g(S) for M, u for a sum) passes
/// through `select(cond, y, -inf)` with cond `j <= i + c` (j the compute's
/// key axis `kAxis`, i its axis `rowAxis`): c, so key tiles past every row
/// of a row tile can be skipped.
std::optional<int64_t> causalOffset(ComputeOp c, mlir::Value masked,
                                    unsigned kAxis, unsigned rowAxis);

/// The condition of the `select(cond, x, -inf)` (or if_then_else) that
/// `masked` passes through (past casts and scalings that keep -inf), or
/// null.
mlir::Value maskCondition(mlir::Value masked);

/// One compute fused into the kernel, seen from the anchor's tile.
struct Fused {
  mutable ComputeOp op;
  /// Per axis: the anchor's axis at the same point, or -1 for an axis of
  /// its own (a score GEMM's reduce axis), which each tile covers whole.
  llvm::SmallVector<int> anchorAxis;
};

/// Where an input of a fused compute comes from inside the kernel.
struct TileOperand {
  mlir::Value buffer;
  /// Over the tile compute's axes (the compute's, less the dropped ones).
  mlir::AffineMap map;
};

/// The window's view of `memref`: the dimensions the tile fixes dropped
/// (a subview), or `memref` itself when it keeps them all.
mlir::Value rankReducedView(mlir::RewriterBase &rw, mlir::Location loc,
                            mlir::Value memref,
                            llvm::ArrayRef<int64_t> reducedShape,
                            llvm::ArrayRef<mlir::OpFoldResult> offs,
                            llvm::ArrayRef<mlir::OpFoldResult> sizes,
                            llvm::ArrayRef<mlir::OpFoldResult> strides);

class OnlineSoftmaxBuilder {
public:
  OnlineSoftmaxBuilder(mlir::RewriterBase &rw, ComputeOp op,
                       ScheduleAttr schedule, TilingPlan &plan,
                       FragmentLayoutAttrInterface layout,
                       llvm::ArrayRef<mlir::StringAttr> inlined,
                       const ApplyScheduleOptions &options)
      : rw(rw), anchor(op), schedule(schedule), plan(plan), layout(layout),
        inlined(inlined), options(options), ctx(op.getContext()),
        loc(op.getLoc()) {}

  mlir::FailureOr<KernelOp> build();

private:
  mlir::InFlightDiagnostic err() {
    return anchor.emitOpError() << "schedule: online: ";
  }

  // --- Resolution (OnlineSoftmaxAnalysis.cpp) -------------------------------
  mlir::LogicalResult resolve();
  mlir::FailureOr<ComputeOp> findFused(mlir::StringAttr name);
  mlir::LogicalResult resolveMax();
  mlir::LogicalResult resolveSums();
  mlir::LogicalResult moveSumsBeforeAnchor();
  mlir::LogicalResult resolveValueFactor();
  mlir::LogicalResult resolveScores();
  void resolveCausalMask();
  /// `f`'s axes as the anchor's: its spatial axes by where it and the
  /// anchor read M (`readByF`, `readByAnchor`), its reduce axis the keys.
  mlir::LogicalResult mapAxes(Fused &f, mlir::AffineMap readByAnchor,
                              mlir::AffineMap readByF);

  // --- Tile operands (OnlineSoftmaxOperands.cpp) ----------------------------
  bool kept(const Fused &f, unsigned axis) const;
  llvm::SmallVector<unsigned> keptAxes(const Fused &f) const;
  /// The window of `f`'s input `i` at this tile and k-step, as a tile
  /// operand: a shared copy (`copy`) or a view of global memory.
  mlir::FailureOr<TileOperand> inputTile(const Fused &f, unsigned i, bool copy,
                                         llvm::ArrayRef<unsigned> over = {});
  using CopyCacheKey = std::pair<void *, llvm::SmallVector<int64_t>>;
  /// A window that moves with the keys under `stages`: its N buffers, its
  /// copy for every prefetch, and this step's buffer.
  TileOperand stagedTile(const Fused &f, unsigned i, mlir::AffineMap local,
                         CopyCacheKey cacheKey);
  /// `memref` read by `f` through `map` at this tile (and k-step): a view
  /// without the dimensions the tile fixes (those of a tile of 1,
  /// constants), the window's origin in it and its shape.
  struct Window {
    mlir::Value view;
    llvm::SmallVector<mlir::Value> origins;
    llvm::SmallVector<int64_t> shape;
  };
  Window window(const Fused &f, mlir::Value memref, mlir::AffineMap map);
  /// The tile operand of value `v` read by `f` through `map` if it is a
  /// buffer of the kernel (M's running max, an L, the scores).
  std::optional<TileOperand> kernelBuffer(const Fused &f, mlir::Value v,
                                          mlir::AffineMap map,
                                          llvm::ArrayRef<unsigned> over = {});

  // Paged (indirect) operands.
  /// What a result of `f`'s input map is besides an axis or a constant: an
  /// expression of axes the tile fixes (`h floordiv 4` under a tile of 1),
  /// a kept axis shifted by one (`d + h * 64`: a head of a packed
  /// projection), a page (a symbol, a table's entry) or the row in a page
  /// (`j mod P`, j the keys).
  enum class ReadKind { plain, fixed, shifted, page, pageRow, other };
  ReadKind readKind(const Fused &f, mlir::AffineExpr e) const;
  /// A shifted read's axis and its shift (an expression the tile fixes).
  std::optional<std::pair<mlir::AffineDimExpr, mlir::AffineExpr>>
  shiftedRead(const Fused &f, mlir::AffineExpr e) const;
  /// Whether `e` reads only axes the tile fixes (never the keys), no symbol.
  bool fixedRead(const Fused &f, mlir::AffineExpr e) const;
  /// Checks `f`'s input `i` for a windowed copy (success for a plain map):
  /// pages of P rows read at `j mod P`, whole pages per key step (P a
  /// multiple of the step), the table read at `j floordiv P` and axes the
  /// tile fixes. Reports what it cannot copy.
  mlir::LogicalResult checkRead(const Fused &f, unsigned i);
  /// window() of `f`'s input `i`, the origins of a paged read's page (its
  /// table entry, checked against the page count) and row (`kOffset mod
  /// P`) and of the expressions the tile fixes included.
  Window inputWindow(const Fused &f, unsigned i);
  /// The entry of `f`'s table that gives symbol `s` of input `i` at this
  /// tile and k-step, checked to lie in dimension `r` of the input.
  mlir::Value pageEntry(const Fused &f, unsigned i, unsigned s, unsigned r);
  /// Copies window `w` of `f`'s input `i` into `target`: one copy, or for
  /// pages shorter than the key step one copy per page, each with its own
  /// table entry, into its rows of `target`.
  void copyWindow(const Fused &f, unsigned i, Window w, mlir::Value target,
                  mlir::Location at, mlir::Value active,
                  CopyStagingAttr staging);
  /// While a staged copy's window is built: whether its step exists (a
  /// prefetch past the last step reads no table entry).
  mlir::Value pageActive;
  /// The inputs of `f` that the values `needed` read, as tile operands: the
  /// kernel's buffers, or shared copies of global windows (copied here,
  /// each k-step). `args[k]` becomes the operand of body argument k, -1
  /// where none is needed.
  mlir::FailureOr<llvm::SmallVector<TileOperand>>
  operands(const Fused &f, llvm::SmallVectorImpl<int> &args,
           llvm::ArrayRef<mlir::Value> needed,
           llvm::ArrayRef<unsigned> over = {});
  /// `map` over the tile compute of `f` on axes `over` (its kept axes by
  /// default), without the dimensions the tile fixes.
  mlir::AffineMap localMap(const Fused &f, mlir::AffineMap map,
                           llvm::SmallVectorImpl<int64_t> *shape = nullptr,
                           llvm::ArrayRef<unsigned> over = {});
  mlir::Value origin(const Fused &f, mlir::AffineExpr e);
  TileComputeOp tileCompute(const Fused &f, llvm::ArrayRef<unsigned> axes,
                            llvm::ArrayRef<int64_t> threads,
                            mlir::ValueRange bounds,
                            llvm::ArrayRef<TileOperand> ins,
                            llvm::ArrayRef<TileOperand> outs,
                            CombinerKindAttr combiner, bool accumulate,
                            FragmentLayoutAttrInterface layout,
                            bool allSpatial = false);
  /// Clones into `tc`'s (empty) body the ops of `f`'s body that `results`
  /// need, `args[k]` standing for the body's argument k, and yields
  /// `finish(cloned results)`.
  void fillBody(const Fused &f, TileComputeOp tc, llvm::ArrayRef<int> args,
                llvm::ArrayRef<mlir::Value> results,
                llvm::function_ref<llvm::SmallVector<mlir::Value>(
                    mlir::OpBuilder &, llvm::ArrayRef<mlir::Value>)>
                    finish = nullptr);
  mlir::Value cloneSlice(mlir::OpBuilder &b, const Fused &f,
                         llvm::ArrayRef<unsigned> axes, mlir::Value v,
                         mlir::IRMapping &map);
  /// Whether `a` in `fa`'s body and `b` in `fb`'s compute the same value at
  /// each point of the tile: the same ops over inputs that are the same tile
  /// operands (`argsX[k]` the operand in `insX` of body argument k, both
  /// over the same axes) and indices of the same anchor axes.
  bool sameValue(const Fused &fa, llvm::ArrayRef<int> argsA,
                 llvm::ArrayRef<TileOperand> insA, mlir::Value a,
                 const Fused &fb, llvm::ArrayRef<int> argsB,
                 llvm::ArrayRef<TileOperand> insB, mlir::Value b);
  /// Threads over rows x keys: as few on the keys as the rows allow; empty
  /// when no power of two fits.
  llvm::SmallVector<int64_t> rowThreads() const;
  /// Whether V's copy waits for the scores, so that V takes K's shared
  /// bytes (see emitKeyStep()).
  bool valueAfterScores();
  /// A shared tile, allocated at the start of the kernel's body (one buffer
  /// for the whole kernel; shared-memory reuse packs them by liveness).
  /// A 2-D tile is swizzled for wgmma when `swizzle` is given, else its
  /// rows are padded by 16 bytes, which spreads the rows that threads (and
  /// ldmatrix) read together over the banks.
  mlir::Value allocShared(const llvm::Twine &what,
                          llvm::ArrayRef<int64_t> shape, mlir::Type elem,
                          SwizzleAttr swizzle = {});
  /// Under wgmma, the swizzle its descriptors read for a 2-D tile; null
  /// otherwise.
  SwizzleAttr operandSwizzle(llvm::ArrayRef<int64_t> shape,
                             mlir::Type elem) const;
  mlir::Value allocFragment(mlir::MemRefType type,
                            llvm::ArrayRef<int64_t> threads,
                            FragmentLayoutAttrInterface fragLayout);
  /// A row buffer of the statistics: a fragment of the row slice with the
  /// scores in registers, else a shared tile.
  mlir::Value allocRowBuffer(const llvm::Twine &what, mlir::Type elem);

  // --- The kernel (OnlineSoftmax.cpp) ---------------------------------------
  mlir::LogicalResult planTile();
  llvm::SmallVector<const Fused *>
  fusedComputes(llvm::SmallPtrSetImpl<mlir::Value> &internal);
  void sourceDynamicExtents();
  void guardDynamicSizes();
  mlir::FailureOr<KernelOp> createKernel();
  void placeScores();
  void allocRowStatistics();
  void emitInit();
  mlir::scf::ForOp emitKeyLoop(mlir::Value kBegin, mlir::Value kEnd);
  mlir::LogicalResult storeRowStatistic(const Fused &f, mlir::Value buf,
                                        llvm::ArrayRef<mlir::Operation *> fused);
  mlir::LogicalResult storeTile(const Fused &f, mlir::Value out,
                                mlir::AffineMap outMap,
                                llvm::ArrayRef<TileOperand> ins,
                                llvm::ArrayRef<int> args, mlir::Value yielded);
  mlir::LogicalResult storeConsumer(const FusedConsumer &fc);
  mlir::LogicalResult emitEpilogue();

  // --- A length per tile (OnlineSoftmaxLengths.cpp) ------------------------
  /// Keys j < len (or <= len) where every fused body masks with an input's
  /// element the tile fixes (a sequence's length, read at its batch): the
  /// key loop stops after ceil((len + slack) / keys) steps.
  struct KeyLength {
    mlir::Value input;
    mlir::AffineMap map; // over the anchor's axes
    int64_t slack = 0;
    bool operator==(const KeyLength &o) const {
      return input == o.input && map == o.map && slack == o.slack;
    }
  };
  std::optional<KeyLength> keyLength;
  std::optional<KeyLength> keyLengthOf(const Fused &f, mlir::Value masked);
  void resolveKeyLength();
  mlir::Value keyLengthSteps();

  // --- Keys split over CTAs (OnlineSoftmaxSplit.cpp) ------------------------
  mlir::LogicalResult checkSplit();
  llvm::SmallVector<mlir::Value> splitState();
  mlir::Value rescaleFactor(mlir::OpBuilder &b, const OnlineTerm &t,
                            mlir::Value m, mlir::Value mEff);
  /// -inf in M's type, and whether `m` is it.
  mlir::FloatAttr negInfAttr(mlir::OpBuilder &b) const;
  mlir::Value isNegInf(mlir::OpBuilder &b, mlir::Value m) const;
  /// The max a state's sums are relative to: m, or 0 while m = -inf (the
  /// row has seen nothing).
  mlir::Value effectiveMax(mlir::OpBuilder &b, mlir::Value m) const;
  /// `tc`'s body block, one argument per input element.
  mlir::Block *createBody(TileComputeOp tc, llvm::ArrayRef<TileOperand> ins);
  void buildCombine(KernelOp kernel);
  mlir::LogicalResult emitSplitEnd(KernelOp kernel);

  // --- One key tile (OnlineSoftmaxStep.cpp) ---------------------------------
  mlir::LogicalResult emitKeyStep();
  mlir::LogicalResult emitScores();
  void emitScoresOnTensorCores(llvm::ArrayRef<TileOperand> ins,
                               llvm::ArrayRef<int> args,
                               llvm::ArrayRef<int64_t> sShape,
                               mlir::AffineMap sOut, mlir::Type sElem,
                               llvm::ArrayRef<int64_t> sThreads);
  mlir::LogicalResult emitRowReduction(const Fused &f, mlir::Value out,
                                       mlir::Value foldOld, bool accumulate);
  void emitRescale();
  mlir::LogicalResult emitSharedSoftmaxFactor();
  mlir::LogicalResult emitSoftmaxFactorTile();
  mlir::LogicalResult emitAccumulate();

  mlir::RewriterBase &rw;
  ComputeOp anchor;
  ScheduleAttr schedule;
  TilingPlan &plan;
  FragmentLayoutAttrInterface layout;
  /// What the schedule inlines (into the anchor already, here into the
  /// fused computes too).
  llvm::ArrayRef<mlir::StringAttr> inlined;
  const ApplyScheduleOptions &options;
  mlir::MLIRContext *ctx;
  mlir::Location loc;

  // What resolve() finds.
  unsigned kAxis = 0;
  Fused self, max;
  llvm::SmallVector<Fused> sums;
  std::optional<Fused> scores; // attached at j
  llvm::SmallVector<OnlineTerm> sumTerms;
  OnlineTerm anchorTerm;
  unsigned anchorMInput = 0;
  /// The anchor's summand as P * W: the operand of its product that holds
  /// the exp (P) and the other (W, over the value axes).
  mlir::Value pValue, wValue;
  unsigned wInput = 0;
  std::optional<int64_t> causal;
  /// The consumer fused by reverse_compute_at, if any.
  std::optional<FusedConsumer> consumer;
  /// Anchor axes of the rows (M's output) and of the values.
  llvm::SmallVector<unsigned> rowAxes, valueAxes;

  // The tile, as planTile() and placeScores() fix it.
  int64_t block = 0, rows = 0, keys = 0;
  /// Threads over rows x keys of a row reduction without the fragment, and
  /// over the rows alone of the statistics in shared memory.
  llvm::SmallVector<int64_t> rowKeyThreads;
  int64_t rowOnly = 0;
  MmaLayoutAttr mma;
  unsigned rowAxis = 0;
  /// Anchor axes of the accumulator fragment, its shape and threads.
  llvm::SmallVector<unsigned> accAxes;
  llvm::SmallVector<int64_t> accShape, accThreads;
  llvm::SmallVector<unsigned> rowOnlyAxes, rowKeyAxes;
  bool scoresInRegisters = false;
  llvm::SmallVector<int64_t> statThreads;
  FragmentLayoutAttrInterface statLayout;
  /// Anchor-axis maps of the row buffers and the accumulator.
  mlir::AffineMap rowId, accId, accRow;
  mlir::Type mType, f32;
  mlir::MemRefType accType;
  mlir::Value acc;

  /// The kernel's decomposition, and whether it may split a tile's keys
  /// over CTAs (the state is then yielded and combined, the epilogue in the
  /// kernel's epilogue region).
  TileDecompositionAttrInterface kernelDecomposition;
  bool split = false;

  // Per tile / k-step state while building.
  TileFrame frame;
  mlir::Value kOffset, kValid, rowsValid;
  mlir::Value mBuf, mEffBuf, mNewBuf, sBuf;
  /// The scores in registers (the MMA fragment), read in place by the row
  /// reductions and P when its rows each sit in one warp (warps [WM, 1]):
  /// then nothing of the scores goes through shared memory.
  mlir::Value sFrag;
  FragmentLayoutAttrInterface sFragLayout;
  llvm::SmallVector<int64_t> sFragThreads;
  llvm::SmallVector<mlir::Value> sumBufs;
  mlir::Value alphaAcc;
  /// P computed once into a fragment (the scores in registers), and which
  /// sums fold it from there.
  mlir::Value pFrag;
  llvm::SmallVector<bool> fromP;
  /// P's shared tile for the second GEMM, in `pElem`; W's element type.
  mlir::Value pBuf;
  mlir::Type pElem, wElem;
  /// The key loop (copies that do not move with the keys go before it) and
  /// the shared copies made so far, by input and window.
  mlir::Operation *keyLoop = nullptr;
  mlir::Block *kernelBody = nullptr;
  /// With `stages = N >= 2`, the windows that move with the keys are
  /// copied N - 1 steps ahead into N buffers: the copies of each step are
  /// made before `commits[s]` (the prologue's steps, then the loop's
  /// prefetch), the step's buffer picked by `stage`.
  struct Prefetch {
    mlir::Operation *commit;
    mlir::Value offset, active, stage;
  };
  llvm::SmallVector<Prefetch> prefetches;
  mlir::Value stage;
  /// Both GEMMs on sm_90a's warpgroup MMA: their shared operands swizzled.
  bool warpgroup = false;
  std::map<CopyCacheKey, mlir::Value> copies;
};

} // namespace online
} // namespace tiling
} // namespace ext

#endif // EXT_DIALECT_EXT_TRANSFORMS_ONLINESOFTMAXBUILDER_H
