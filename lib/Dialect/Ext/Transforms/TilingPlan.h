//===- TilingPlan.h - internals of ext-apply-schedule -----------*- C++ -*-===//
//
// What the files of ext-apply-schedule share: ApplySchedule.cpp (the pass and
// the kernel it builds), TilingPlan.cpp (the plan a compute and its schedule
// give, and the tile geometry built from it), ScheduleResolution.cpp (the
// decomposition and fragment layout chosen for the chip) and KLoop.cpp (the
// k-loop's ragged step and the pipelined k-loop). Not a public header.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_TRANSFORMS_TILINGPLAN_H
#define EXT_LIB_DIALECT_EXT_TRANSFORMS_TILINGPLAN_H

#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallBitVector.h"

#include <optional>

namespace ext {
namespace tiling {

/// One access expression of an input, split for tiling: over a tile whose
/// origin is `o`, the expression sum(coeff_a * x_a) + constant takes values in
/// [origin, origin + size), and the point x's element sits at local(x - o).
struct WindowDim {
  llvm::SmallVector<int64_t> coeffs; // one per axis
  int64_t constant = 0;
  int64_t lo = 0;   // min over the tile box of sum(coeff_a * x_a)
  int64_t size = 1; // window extent
};

/// The window of one input over a tile: per result, its extent and the
/// tile-local access map.
struct InputWindow {
  llvm::SmallVector<WindowDim> dims;
  mlir::AffineMap localMap;
  llvm::SmallVector<int64_t> shape;
  /// What the input's innermost size is known to be a multiple of when it
  /// is dynamic: the `multiple_of` of the axis it is bound to (checked
  /// before the kernel), for the copies' vector width.
  int64_t rowMultiple = 1;
  /// Per input dimension: the window lies inside the input wherever a tile
  /// or k-step puts it (an axis indexing the dimension alone, whose extent,
  /// or stated multiple, the tile divides): the copies need not mask it.
  llvm::SmallVector<bool> inBounds;
};

/// The in_bounds attribute of copies of `window`; null when no dimension
/// is known to be in bounds.
mlir::DenseBoolArrayAttr inBoundsAttr(mlir::Builder &b,
                                      const InputWindow &window);

/// Everything ext-apply-schedule derives from a compute and its schedule.
struct TilingPlan {
  llvm::SmallVector<AxisAttr> axes;
  /// ShapedType::kDynamic for an extent of `?`, whose size is that of the
  /// operand and dimension in `extentSources[a]` (getExtentSource).
  llvm::SmallVector<int64_t> extents, tile, threads;
  llvm::SmallVector<std::optional<std::pair<mlir::Value, unsigned>>>
      extentSources;
  llvm::SmallVector<unsigned>
      blockedAxes; // spatial axes indexing the tile grid
  /// Per blocked axis; ShapedType::kDynamic over a dynamic extent.
  llvm::SmallVector<int64_t> tileCounts;
  std::optional<unsigned> kAxis; // the reduce axis split into iterations
  /// k-steps per tile; ShapedType::kDynamic over a dynamic reduce extent.
  int64_t iters = 1;
  bool useFragments = false;
  llvm::SmallVector<unsigned> spatialAxes;
  llvm::SmallBitVector cached;
  llvm::SmallVector<CacheAttr> cacheAttrs;  // per input, null if not cached
  llvm::SmallVector<CacheAttr> outputCache; // per output, null if not staged
  llvm::SmallVector<InputWindow> windows;   // per input
};

mlir::FailureOr<TilingPlan> planTiling(ComputeOp op, ScheduleAttr schedule);

/// Builds the code of one tile: offsets and valid extents of every axis.
struct TileFrame {
  llvm::SmallVector<mlir::Value> offsets; // per axis
  llvm::SmallVector<mlir::Value> bounds;  // per axis
};

TileFrame buildFrame(mlir::OpBuilder &b, mlir::Location loc,
                     const TilingPlan &plan, mlir::ValueRange coords);

/// Axis `a`'s extent as an index value (memref.dim for a dynamic one).
mlir::Value extentValue(mlir::OpBuilder &b, mlir::Location loc,
                        const TilingPlan &plan, unsigned a);

/// ceil(extent / tile) of axis `a` as an index value: a dynamic axis's tile
/// count or k-step count, computed from the operand's size.
mlir::Value tileCountValue(mlir::OpBuilder &b, mlir::Location loc,
                           const TilingPlan &plan, unsigned a);

/// True if axis `a`'s tile divides its extent, or for a dynamic extent its
/// stated multiple_of (checked when the compute runs): no tile or k-step
/// of the axis is ragged.
bool tileDividesExtent(const TilingPlan &plan, unsigned a);

/// The k-steps per tile: `plan.iters`, or ceil(K / tileK) computed from the
/// operand's size over a dynamic reduce extent.
mlir::OpFoldResult itersValue(mlir::OpBuilder &b, mlir::Location loc,
                              const TilingPlan &plan);

/// constant + sum(coeff_a * offset_a): where a window starts in its input.
mlir::Value windowOrigin(mlir::OpBuilder &b, mlir::Location loc,
                         const WindowDim &d,
                         llvm::ArrayRef<mlir::Value> offsets);

/// Null when the padded tile's size overflows (planTiling checks first).
mlir::MemRefType sharedTileType(llvm::ArrayRef<int64_t> shape, mlir::Type elem,
                                llvm::ArrayRef<StorageAlignAttr> aligns);

/// A static-size view of `source` starting at `origins`.
mlir::Value tileView(mlir::OpBuilder &b, mlir::Location loc, mlir::Value source,
                     mlir::ValueRange origins, llvm::ArrayRef<int64_t> sizes);

/// `loc` named after the phase of the schedule an op implements: the ops
/// lowered from it keep the name, so diagnostics and race reports tell the
/// copy, the compute and the epilogue of one ext.compute apart.
mlir::Location phaseLoc(mlir::Location loc, const llvm::Twine &phase);

/// Resolves the schedule's decomposition for the chip: `auto` becomes its
/// cost model's choice, a Stream-K attribute gets the SM count.
mlir::FailureOr<TileDecompositionAttrInterface>
resolveDecomposition(ComputeOp op, TileDecompositionAttrInterface d,
                     int64_t tiles, int64_t iters, int64_t tileK,
                     const ApplyScheduleOptions &options);

/// The same for a tile count or an iteration count (ShapedType::kDynamic)
/// known only at launch: the decomposition plans there (`auto` chooses
/// there, with the cost of a fixup from `tileK`), so only the SM count is
/// filled in; `report` says what is left to the launch.
mlir::FailureOr<TileDecompositionAttrInterface>
resolveLaunchDecomposition(ComputeOp op, TileDecompositionAttrInterface d,
                           int64_t tiles, int64_t iters, int64_t tileK,
                           const ApplyScheduleOptions &options);

/// The fragment layout of a schedule: its `layout`, or for an `mma` schedule
/// the instruction's accumulator layout over the warps, the instruction
/// chosen for the chip and the inputs' type when it is `auto`.
mlir::FailureOr<FragmentLayoutAttrInterface>
resolveLayout(ComputeOp op, ScheduleAttr schedule, const TilingPlan &plan,
              const ApplyScheduleOptions &options);

/// With `mma = auto` on a chip with wgmma, where the warps and tile suit it:
/// the schedule (set on `op` too) with each of the product's two inputs
/// that is cached without a layout given the swizzle wgmma's descriptors
/// read, so that auto picks wgmma; else `schedule` unchanged.
ScheduleAttr swizzleCachesForAutoWgmma(ComputeOp op, ScheduleAttr schedule,
                                       const TilingPlan &plan,
                                       const ApplyScheduleOptions &options);

/// A compute's `name`, quoted, or "(unnamed)": for diagnostics.
std::string quotedName(ComputeOp op);

/// True if anything besides `except` (and deallocations) may read
/// `memref`: a function argument, or another user.
bool isReadElsewhere(mlir::Value memref,
                     llvm::ArrayRef<mlir::Operation *> except);

/// The first op strictly between `first` and `last` (one block) that uses
/// one of `values`, or null: a fusion that moves work across those ops
/// must not reorder accesses to them.
mlir::Operation *findUseBetween(mlir::Operation *first, mlir::Operation *last,
                                llvm::ArrayRef<mlir::Value> values);

/// The first op strictly between `first` and `last` (one block) that may
/// write one of `values`: a compute with it among its outputs, or any other
/// op using it; null if none.
mlir::Operation *findWriteBetween(mlir::Operation *first,
                                  mlir::Operation *last,
                                  mlir::ValueRange values);

/// Copies `op`'s body into the empty region `dst`, turning every ext.index
/// into (tile-local index + the axis' tile offset).
void cloneBodyWithOffsets(ComputeOp op, mlir::Region &dst,
                          llvm::ArrayRef<mlir::Value> offsets);

/// The other compute named `name` in `op`'s block, which a fusion in `op`'s
/// schedule refers to; reports through `err` when there is none or two.
mlir::FailureOr<ComputeOp>
findNamedCompute(ComputeOp op, llvm::StringRef name,
                 llvm::function_ref<mlir::InFlightDiagnostic()> err);

/// `op` with the element-wise producers its schedule's `compute_inline`
/// names substituted into it (ProducerInlining.cpp): a new compute that
/// replaces `op` (which is erased), or `op` itself without any; a failure,
/// reported at `op` naming both computes, for an inlining that would change
/// what the program computes.
mlir::FailureOr<ComputeOp> inlineProducers(mlir::RewriterBase &rw,
                                           ComputeOp op);

/// `op` with the element-wise producers `names` substituted into it (see
/// inlineProducers); a name whose output `op` does not read is an error if
/// `mustRead`, skipped otherwise.
mlir::FailureOr<ComputeOp>
inlineNamedProducers(mlir::RewriterBase &rw, ComputeOp op,
                     llvm::ArrayRef<mlir::StringAttr> names, bool mustRead);

/// A producer computed in the kernel by the schedule's `compute_at`
/// (ProducerAttachment.cpp).
struct AttachedProducer {
  ComputeOp producer;
  /// The region of its output each tile computes, per output dimension: it
  /// starts at `constant + sum(coeffs[a] * offset_a)` over the anchor's tile
  /// offsets and spans `size` (the union of what its readers read).
  llvm::SmallVector<WindowDim> region;
  /// The anchor's input that reads its output, if the anchor does, and the
  /// map it reads the region's buffer through.
  std::optional<unsigned> anchorInput;
  mlir::AffineMap anchorMap;
  /// Its own plan: tile = the region (spatial axes) or the whole extent
  /// (reduce axes), threads spread over the block.
  TilingPlan plan;
  /// Per axis: the output dimension it indexes (-1 for a reduce axis), and
  /// its offset as a form of the anchor's (zero for a reduce axis).
  llvm::SmallVector<int> outputDim;
  llvm::SmallVector<WindowDim> origin;
  /// Per input: read from a buffer of the kernel (the region of attached
  /// producer `producer`, or else the shared tile of anchor input
  /// `anchorInput`), its window starting at `at` there, or from global
  /// memory when `at` is unset.
  struct Source {
    unsigned anchorInput = 0;
    std::optional<unsigned> producer;
    std::optional<llvm::SmallVector<int64_t>> at;
  };
  llvm::SmallVector<Source> sources;
  /// Also stored to its output: something else reads it.
  bool keepOutput = false;
  /// The shared buffer of its region, once emitted.
  mlir::Value buffer;
};

/// The producers the schedule's `compute_at` names, checked and planned,
/// in program order, with the schedule's inlined producers (`inlined`)
/// substituted into them; a failure (reported at `op`, naming both computes
/// and the axis) for a fusion that would change what the program computes
/// or that ext cannot build yet.
mlir::FailureOr<std::vector<AttachedProducer>>
resolveComputeAt(mlir::RewriterBase &rw, ComputeOp op, ScheduleAttr schedule,
                 const TilingPlan &plan,
                 llvm::ArrayRef<mlir::StringAttr> inlined);

/// With producers attached by compute_at, each name the schedule inlines
/// must be read by the compute or by one of them (without, inlineProducers
/// requires the compute to read it).
mlir::LogicalResult checkInlinedAreRead(ComputeOp op);

/// Emits each producer's tile compute into its shared buffer, at the tile
/// `frame` of the anchor. `anchorBuffers[i]` is the shared tile of anchor
/// input i where the anchor copied one (else null); the producers' buffers
/// are filled in as they are emitted.
void emitAttachedProducers(mlir::RewriterBase &rw, mlir::Location loc,
                           const TileFrame &frame,
                           llvm::ArrayRef<mlir::Value> anchorBuffers,
                           llvm::MutableArrayRef<AttachedProducer> producers);

/// Erases the producers, now computed in the kernel.
void eraseAttachedProducers(mlir::RewriterBase &rw,
                            llvm::ArrayRef<AttachedProducer> producers);

/// An element-wise consumer fused into the kernel's epilogue by the
/// schedule's `reverse_compute_at` (EpilogueFusion.cpp).
struct FusedConsumer {
  ComputeOp consumer;
  unsigned input = 0; // the consumer's input that is the anchor's output
  /// Per consumer axis: the anchor's axis at the same point.
  llvm::SmallVector<unsigned> anchorAxis;
  /// The anchor's output is stored too: a function argument, or used by
  /// anything besides the two computes.
  bool keepAnchorOutput = false;
  /// Ops between the two computes that define the consumer's operands (its
  /// output's allocation, after bufferizing tensors): moved above the anchor,
  /// where the fused kernel uses them. Allocations and pure ops only.
  llvm::SmallVector<mlir::Operation *> hoisted;
};

/// The consumer the schedule's `reverse_compute_at` names, checked: none
/// without one; a failure (reported at `op`, naming both computes) for a
/// fusion that would change what the program computes or that ext cannot
/// build yet.
mlir::FailureOr<std::optional<FusedConsumer>>
resolveReverseComputeAt(ComputeOp op, ScheduleAttr schedule,
                        const TilingPlan &plan);

/// The epilogue store of a tile with a fused consumer: one tile compute
/// over the spatial tile axes (`spatialAxes`, `bounds`) that reads the
/// accumulator `frag` and the consumer's other inputs at the tile's points
/// (`offsets`: the tile's offset per anchor axis) and writes the consumer's
/// value to its output, and the accumulator to `anchorTarget` (through
/// `anchorTargetMap`) when that is given.
void emitFusedStore(mlir::OpBuilder &b, mlir::Location loc,
                    const TilingPlan &plan, const FusedConsumer &fused,
                    mlir::ArrayAttr spatialAxes,
                    llvm::ArrayRef<int64_t> spatialThreads,
                    llvm::ArrayRef<mlir::Value> offsets,
                    mlir::ValueRange bounds, mlir::Value frag,
                    mlir::Value anchorTarget, mlir::AffineMap anchorTargetMap,
                    FragmentLayoutAttrInterface layout);

/// The consumer's name, quoted, for diagnostics and locations.
std::string nameOfConsumer(const FusedConsumer &fused);

/// The k-steps of a unit [kBegin, kEnd): full ones run with a constant bound
/// in [kBegin, fullEnd). A ragged last step either runs as a full one, when
/// the copies' zero fill makes the body yield the combiner's identity, or
/// is peeled (`peeled`): fullEnd stops before step `last` and
/// `emitPeeledStep` runs it with its own bound `rest`, at offset
/// `lastOffset` = last * tileK along the axis (constants over a static
/// extent, values read from the operand's size over a dynamic one).
struct KSteps {
  int64_t tileK = 1;
  bool peeled = false;
  mlir::Value fullEnd, last, lastOffset, rest;
};

KSteps planKSteps(mlir::RewriterBase &rw, mlir::Location loc, ComputeOp op,
                  const TilingPlan &plan, mlir::Value kEnd);

/// Emits `body(steps.last)` under `kEnd > steps.last`. kEnd is the same in
/// every thread of the CTA: the branch does not diverge.
void emitPeeledStep(mlir::RewriterBase &rw, mlir::Location loc,
                    const KSteps &steps, mlir::Value kEnd,
                    llvm::function_ref<void(mlir::Value)> body);

/// The loads of a k-loop through the Tensor Memory Accelerator (`tma =
/// true`, TmaLoads.cpp): per cached input, its tensor map (built by the host
/// before the kernel; null for the other inputs), and the bytes one k-step's
/// copies bring to their stage's mbarrier.
struct TmaLoads {
  llvm::SmallVector<mlir::Value> maps;
  int64_t bytesPerStep = 0;
};

/// Checks that the chip has the copy engine and every cached input's tile is
/// a box it writes in ext's layout of the tile; reports at `op` otherwise.
mlir::LogicalResult checkTmaLoads(ComputeOp op, const TilingPlan &plan,
                                  ScheduleAttr schedule,
                                  const ApplyScheduleOptions &options);

/// The tensor map (built by the host before `kernel`) through which the
/// epilogue stores output `output`'s shared tile `staging` (cached as
/// `cache`) by one bulk tensor store; null, saying why in `why`, where the
/// copy engine cannot (the output's layout, a padded tile, a box too big).
mlir::Value buildTmaStoreMap(mlir::RewriterBase &rw, ComputeOp op,
                             unsigned output, mlir::MemRefType staging,
                             CacheAttr cache, mlir::Operation *kernel,
                             std::string &why);

/// Builds the tensor maps of a checked plan before `kernel`.
TmaLoads buildTmaLoads(mlir::RewriterBase &rw, ComputeOp op,
                       const TilingPlan &plan, mlir::Operation *kernel);

/// The k-loop of a schedule with `stages = N >= 2` over the unit's
/// [kBegin, kEnd): step k computes on buffer k mod N of every cached input.
///
///   prologue: for s < N-1: copy step kBegin+s (if < kEnd); commit
///   for k in [kBegin, fullEnd):
///     wait (all but the newest N-2 groups) + barrier
///     copy step k+N-1 into buffer (k+N-1) mod N = (k-1) mod N (if < kEnd)
///     compute step k; commit
///   [peeled ragged step: wait + barrier; compute with the ragged bound]
///   wait for everything + barrier (the buffers may be reused after)
///
/// Every prologue step and iteration commits a group, copies or not, so the
/// group of step k is always the (k - kBegin)-th and `pending = N-2` covers
/// it. The copy into (k-1) mod N comes after the barrier that follows every
/// thread's compute of step k-1, so one barrier per step suffices.
///
/// With `mmaInFlight` (N >= 3, a warpgroup MMA compute) the copies run N-2
/// steps ahead instead, into (k-2) mod N, and the loop is marked
/// kMmaInFlightAttrName: the compute of step k may leave its MMAs in flight
/// until step k+1's have issued (wgmma.wait_group 1), since the barrier of
/// step k+1 follows every warpgroup's retirement of step k-1's group only.
///
/// With `tma`, one thread loads each step's tiles with bulk tensor copies
/// that complete on the stage's mbarrier (initialized at the unit's start,
/// invalidated at its end, so a CTA's next unit starts at phase 0); each
/// step waits on its stage's mbarrier at the phase of its fill, after the
/// barrier that orders the new copies behind every thread's use of the
/// stage they refill.
void emitPipelinedKLoop(
    mlir::RewriterBase &rw, mlir::Location loc, ComputeOp op,
    const TilingPlan &plan, ScheduleAttr schedule,
    const ApplyScheduleOptions &options, const TileFrame &frame,
    mlir::Value kBegin, mlir::Value kEnd,
    llvm::ArrayRef<llvm::SmallVector<mlir::Value>> stageBufs, bool mmaInFlight,
    const TmaLoads *tma,
    llvm::function_ref<void(llvm::ArrayRef<mlir::Value>,
                            llvm::ArrayRef<mlir::Value>, mlir::ValueRange)>
        compute);

/// Buffer `stage` of a pipelined input's `bufs` (one per stage): a chain of
/// selects tagged as stage selects, which shared-memory lowering folds.
mlir::Value selectStage(mlir::RewriterBase &rw, mlir::Location loc,
                        llvm::ArrayRef<mlir::Value> bufs, mlir::Value stage);

/// The stage after `stage` of `stages`, wrapping to 0 (a compare and a
/// select, no division), and whether it wrapped (an mbarrier's phase flips).
std::pair<mlir::Value, mlir::Value> nextStage(mlir::RewriterBase &rw,
                                              mlir::Location loc,
                                              mlir::Value stage,
                                              int64_t stages);

/// The tile operands of a pipelined k-step at `offsets`: stage `stage` of
/// each cached input, a view of the others.
llvm::SmallVector<mlir::Value>
stepOperands(mlir::RewriterBase &rw, mlir::Location loc, ComputeOp op,
             const TilingPlan &plan,
             llvm::ArrayRef<llvm::SmallVector<mlir::Value>> stageBufs,
             mlir::Value stage, llvm::ArrayRef<mlir::Value> offsets);

/// One thread's issue of a k-step's bulk tensor copies (at `offsets`) into
/// `stage` of every cached input: `arrive.expect_tx` of their bytes on the
/// stage's mbarrier in `barriers`, then one copy per input.
/// With a thread block cluster, an input's copy may be one CTA's for
/// several: issued where `issue` holds, into the CTAs of `mask` (i16, by
/// rank). Null members: the CTA's own copy.
struct TmaMulticast {
  mlir::Value issue, mask;
};
void issueTmaCopies(mlir::RewriterBase &rw, mlir::Location loc, ComputeOp op,
                    const TilingPlan &plan, const TmaLoads &tma,
                    llvm::ArrayRef<mlir::Value> offsets, mlir::Value barriers,
                    mlir::Value stage,
                    llvm::ArrayRef<llvm::SmallVector<mlir::Value>> stageBufs,
                    llvm::ArrayRef<TmaMulticast> multicast = {});

/// Reports at `op` what warp specialization cannot do with this plan: other
/// than warpgroup MMAs, attached producers, a split reduction.
mlir::LogicalResult
checkWarpSpecialization(ComputeOp op, const TilingPlan &plan,
                        ScheduleAttr schedule,
                        FragmentLayoutAttrInterface layout, size_t numAttached,
                        TileDecompositionAttrInterface decomposition);

/// The k-loop of `specialize = cooperative` (WarpSpecializedKLoop.cpp): an
/// ext.warp_specialize whose producer thread copies each k-step's tiles by
/// TMA once its stage is empty, and the consumers' loop that waits for the
/// stage to be full, computes, and releases it (a step later with MMAs in
/// flight). Stages and phases continue from the CTA's previous units
/// (ext.pipeline_base).
void emitWarpSpecializedKLoop(
    mlir::RewriterBase &rw, mlir::Location loc, ComputeOp op,
    const TilingPlan &plan, ScheduleAttr schedule, const TileFrame &frame,
    mlir::Value kBegin, mlir::Value kEnd,
    llvm::ArrayRef<llvm::SmallVector<mlir::Value>> stageBufs, bool mmaInFlight,
    const TmaLoads &tma, bool weakenRelease,
    llvm::function_ref<void(llvm::ArrayRef<mlir::Value>,
                            llvm::ArrayRef<mlir::Value>, mlir::ValueRange)>
        compute);

/// The layout wgmma's descriptors read for a 16-bit shared tile whose rows
/// are `columns` elements: rows of W = 32, 64 or 128 bytes swizzled by
/// #ext.swizzle<bits = log2(W / 16), base = 3, shift = 3>, wider rows as
/// 128-byte column panels. Null when the rows fit none of them.
SwizzleAttr wgmmaOperandSwizzle(mlir::MLIRContext *ctx, int64_t columns,
                                mlir::Type elem);

/// The kernel of a schedule with `online` (OnlineSoftmax.cpp): the max
/// reduction and sums it names fused with `op` into one pass over the keys,
/// the scores producer attached at the keys computed per k-step; a failure,
/// reported at `op`, for computes that are not of the online-softmax shape.
mlir::FailureOr<KernelOp>
applyOnlineSoftmax(mlir::RewriterBase &rw, ComputeOp op, ScheduleAttr schedule,
                   TilingPlan &plan, FragmentLayoutAttrInterface layout,
                   llvm::ArrayRef<mlir::StringAttr> inlined,
                   const ApplyScheduleOptions &options);

} // namespace tiling
} // namespace ext

#endif // EXT_LIB_DIALECT_EXT_TRANSFORMS_TILINGPLAN_H
