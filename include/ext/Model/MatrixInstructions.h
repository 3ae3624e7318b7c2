//===- MatrixInstructions.h - the table of matrix instructions --*- C++ -*-===//
//
// One row per warp-level matrix instruction ext emits (tensor cores, matrix
// cores): its shape, the lanes that run it, the operand types it takes,
// the feature a chip needs for it, how its accumulators sit in the lanes
// and its share of the chip's f16 matrix peak. `#ext.mma<...>` names a row
// (its MmaShape cases are checked against this table by a unit test),
// fragment layouts read the shape and lanes from it, and Python's tuner
// and cost model list the rows instead of keeping their own tables. Adding
// an instruction is a row here, its MmaShape case, and, for a new
// accumulator arrangement, its fragment code. Plain C++, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_MODEL_MATRIXINSTRUCTIONS_H
#define EXT_MODEL_MATRIXINSTRUCTIONS_H

#include "ext/Model/Chip.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace ext {

/// How one instruction tile's accumulators sit in the lanes.
enum class AccumulatorLayout {
  /// NVIDIA's m16n8 C fragment: lane l holds rows l/4 and l/4 + 8, columns
  /// 2 (l mod 4) and 2 (l mod 4) + 1 (mma.sync; wgmma per warp).
  NvidiaQuads,
  /// AMD MFMA: lane l holds column l mod M and, per group of 4 rows, the
  /// rows 4 (l / M) + j.
  AmdColumns,
};

/// The chip feature an instruction needs (ChipInfo's flag of that name).
enum class MatrixFeature { MmaSync, WarpgroupMma, Mfma };

struct MatrixInstruction {
  /// The name `#ext.mma<NAME>` and Python use.
  llvm::StringLiteral name;
  /// The instruction as the ISA writes it, for messages and docs.
  llvm::StringLiteral mnemonic;
  GpuVendor vendor;
  MatrixFeature feature;
  /// M x N x K of the tile one warp's fragment covers (a warpgroup
  /// instruction: each of its `warps` warps covers m rows).
  int64_t m, n, k;
  /// Warps that issue one instruction together (4 for wgmma).
  unsigned warps;
  /// Lanes of a warp or wave that run it.
  unsigned lanes;
  /// Input element types, as MLIR spells them ("f16", "bf16", "f32").
  llvm::StringLiteral inputs[2];
  /// The inputs in words, for diagnostics.
  llvm::StringLiteral inputsText;
  /// Whether the instruction rounds its inputs (f32 to tf32): a result that
  /// differs from the f32 computation, never chosen without being asked.
  bool roundsInputs;
  AccumulatorLayout accumulators;
  /// Dense throughput as a share of the chip's f16 matrix peak
  /// (ChipThroughput::tensorF16Tflops), before sm_90 and on sm_90 and later
  /// (where mma.sync runs at half of wgmma's rate).
  double peakFraction, peakFractionSm90;

  /// Whether `chip` has it.
  bool existsOn(const ChipInfo &chip) const;
  /// Whether it takes inputs of `elementType` (MLIR's spelling).
  bool takes(llvm::StringRef elementType) const;
  /// Its share of `chip`'s f16 matrix peak.
  double peakFractionOn(const ChipInfo &chip) const;
};

/// Every matrix instruction ext emits.
llvm::ArrayRef<MatrixInstruction> matrixInstructions();

/// The row named `name`; nullptr for a name that is none.
const MatrixInstruction *lookupMatrixInstruction(llvm::StringRef name);

} // namespace ext

#endif // EXT_MODEL_MATRIXINSTRUCTIONS_H
