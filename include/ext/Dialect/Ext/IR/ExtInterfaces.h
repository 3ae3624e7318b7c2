//===- ExtInterfaces.h - ext interfaces -------------------------*- C++ -*-===//

#ifndef EXT_DIALECT_EXT_IR_EXTINTERFACES_H
#define EXT_DIALECT_EXT_IR_EXTINTERFACES_H

#include "ext/Model/Chip.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpDefinition.h"

#include <optional>
#include <string>

namespace ext {

/// What the tile lowering gives a layout's accumulation strategy
/// (TileAccumulationAttrInterface); defined by the transforms library
/// (ext/Dialect/Ext/Transforms/TileAccumulation.h).
class TileAccumulationContext;

/// What a decomposition may know about the chip it is lowered for.
struct DeviceFacts {
  /// The chip's facts, when the chip is known (the module's #ext.target or a
  /// pass's `chip=`).
  std::optional<ChipInfo> chip;
  /// SMs (NVIDIA) or CUs (AMD): the chip's, or a `sms` override; 0 when
  /// unknown.
  int64_t numSMs = 0;

  /// The facts of `chip`, its SM count replaced by `smsOverride` when that
  /// is positive.
  static DeviceFacts of(std::optional<ChipInfo> chip, int64_t smsOverride = 0) {
    DeviceFacts facts;
    facts.chip = std::move(chip);
    if (facts.chip)
      facts.numSMs = facts.chip->multiprocessors;
    if (smsOverride > 0)
      facts.numSMs = smsOverride;
    return facts;
  }
};

/// What a decomposition predicts for one problem on a number of SMs.
struct WorkPrediction {
  int64_t grid = 0, waves = 0;
  /// Work units and reduce iterations of the busiest CTA.
  int64_t maxUnitsPerCta = 0, maxItersPerCta = 0;
  /// Partial tiles stored in the workspace (each combined once).
  int64_t fixups = 0;
  /// Main-loop iterations of time until the last CTA ends (fixups costed
  /// in iterations): what `auto` minimizes.
  double makespan = 0;
  /// Useful iterations over SMs x predicted makespan.
  double utilization = 0;
};

/// The default prediction of a decomposition that runs whole tiles on
/// `grid` CTAs (each ceil(numTiles / grid) tiles) on `sms` SMs; none when
/// `sms` or `grid` is 0.
std::optional<WorkPrediction> predictWholeTiles(int64_t numTiles,
                                                int64_t itersPerTile,
                                                int64_t grid, int64_t sms);

/// Fails, reporting through `emitError` with `attr`, when a launch of
/// `numBlocks` or `numReductionBlocks` CTAs exceeds the grid's x limit.
mlir::LogicalResult
verifyGridLimits(mlir::Attribute attr,
                 llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                 int64_t numBlocks, int64_t numReductionBlocks);

/// A decomposition's plan for a tile count known only at launch: host
/// values the lowering sizes the launches and the workspace with, and the
/// numbers the work units read (inside the launch they are kernel
/// arguments).
struct LaunchPlan {
  mlir::Value grid;          // CTAs of the main launch
  mlir::Value numPartials;   // workspace slots (one flag each); null: none
  mlir::Value reductionGrid; // CTAs of the reduction launch; null: none
  mlir::OpFoldResult itersPerTile; // an attribute unless K is dynamic
  llvm::SmallVector<mlir::Value> params; // the decomposition's own numbers
  /// Conditions (i1 host values) the plan holds only under, with what to
  /// say when one fails: the lowering checks them before the launch.
  llvm::SmallVector<std::pair<mlir::Value, std::string>> checks;
};

/// What a tile decomposition needs from the lowering of an ext.kernel to
/// build its work units. Tiles are named by their linear index in
/// [0, numTiles); the emitter applies the kernel's rasterization.
class TileWorkEmitter {
public:
  virtual ~TileWorkEmitter() = default;

  /// Emits the main loop of one work unit: the kernel body for tile `tile`
  /// over reduce iterations [kBegin, kEnd). Returns the accumulator
  /// fragments it leaves (empty for kernels without an accumulator).
  virtual mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  emitMainloop(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tile,
               mlir::Value kBegin, mlir::Value kEnd) = 0;

  /// Emits the epilogue that writes the finished accumulators of `tile`.
  virtual mlir::LogicalResult emitEpilogue(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           mlir::Value tile,
                                           mlir::ValueRange fragments) = 0;

  // The fixup. Slots index the workspace the decomposition asked for with
  // `getNumPartials`; every slot has a flag, zero at launch.

  /// Stores the unit's accumulator fragments in workspace slot `slot`.
  virtual mlir::LogicalResult emitStorePartial(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               mlir::Value slot,
                                               mlir::ValueRange fragments) = 0;
  /// Combines the partial in slot `slot` into `fragments` with the
  /// compute's combiner (fragments = combine(fragments, partial)).
  virtual mlir::LogicalResult
  emitCombinePartial(mlir::OpBuilder &b, mlir::Location loc, mlir::Value slot,
                     mlir::ValueRange fragments) = 0;
  /// After every thread's stores: a block barrier, then one thread makes
  /// them visible to the device (release fence) and sets the slot's flag.
  virtual void emitSignal(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value slot) = 0;
  /// One thread spins until the slot's flag is set, then an acquire fence
  /// and a block barrier: afterwards every thread may read the partial.
  virtual void emitWait(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value slot) = 0;
};

} // namespace ext

#include "ext/Dialect/Ext/IR/ExtAttrInterfaces.h.inc"

#endif // EXT_DIALECT_EXT_IR_EXTINTERFACES_H
