//===- Fusion.h - fusions of computes into one kernel ------------*- C++ -*-===//
//
// compute_inline (ProducerInlining.cpp), compute_at (ProducerAttachment.cpp),
// reverse_compute_at (EpilogueFusion.cpp), and the checks that a fusion
// reorders no access (FusionChecks.cpp). Private to ext-apply-schedule.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_FUSION_H
#define EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_FUSION_H

#include "TileIR.h"

#include "ext/Dialect/Ext/Transforms/TilingPlan.h"
#include "ext/Dialect/Ext/Transforms/Transforms.h"

#include "mlir/IR/PatternMatch.h"

namespace ext {
namespace tiling {

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

/// Refuses a scheduled compute that, or a compute its schedule fuses, reads
/// an input indirectly (`indirect`): no tiled copy reads a table yet.
mlir::LogicalResult refuseIndirectReads(ComputeOp op);

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

} // namespace tiling
} // namespace ext

#endif // EXT_LIB_DIALECT_EXT_TRANSFORMS_APPLYSCHEDULE_FUSION_H
