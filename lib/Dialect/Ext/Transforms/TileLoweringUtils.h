//===- TileLoweringUtils.h - helpers of the tile lowering -------*- C++ -*-===//
//
// Functions of values, types and ops that the tile lowering's units
// (TileLowering.h) and ext-alloc-shared-to-workgroup share: alignment
// proofs, vector widths, fused combining. None depends on the lowering's
// per-launch state, so every unit can use them without using each other.
// Private to the transforms library (all its users live there).
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_TRANSFORMS_TILELOWERINGUTILS_H
#define EXT_LIB_DIALECT_EXT_TRANSFORMS_TILELOWERINGUTILS_H

#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/IR/PatternMatch.h"

#include <string>

namespace ext {
namespace tile_lowering {

/// The conjunction of `conds` (null when empty).
mlir::Value andAll(mlir::OpBuilder &b, mlir::Location loc,
                   llvm::ArrayRef<mlir::Value> conds);

/// Bytes of one element of type `t` (at least 1).
int64_t elementBytes(mlir::Type t);

/// A multiple every value of `v` is known to be (1 when nothing is known),
/// through constants, +, * and mod by a constant: enough to prove that tile
/// origins (`coordinate * tile + constant`) and vector starts keep vector
/// accesses aligned.
int64_t knownMultiple(mlir::Value v);

/// A number the product of two values is a multiple of, given numbers
/// `x` and `y` (positive) each is a multiple of: x * y, or where that
/// overflows, the powers of two of both (all a vector width asks about),
/// at most 2^62, knownMultiple's "any".
int64_t multipleOfProduct(int64_t x, int64_t y);

/// Whether every stride but the innermost is a static multiple of `w`: rows
/// then start `w`-aligned.
bool outerStridesDivisible(llvm::ArrayRef<int64_t> strides, int64_t w);

/// The element offset of a global tile `tile` as runVectorWidth reads it:
/// the type's when static, else 0 when `tile` is a subview whose dynamic
/// offsets are multiples of `width` elements in the source's layout (a
/// tile's origin), else dynamic.
int64_t globalTileOffset(mlir::Value tile, int64_t width);

/// The widest vector (a power of two, at most `maxWidth` elements) along a
/// thread's run of `run` consecutive elements of a memref's rows, with the
/// memref's `strides` and `offset` and `constant` added to its innermost
/// index: the width divides the run (a vector never crosses the run's end
/// or starts unaligned within it: pairs for a run of 6) and every vector
/// starts aligned to its size. 1 when none is wider.
int64_t runVectorWidth(int64_t run, int64_t maxWidth,
                       llvm::ArrayRef<int64_t> strides, int64_t offset,
                       int64_t constant = 0);

/// The widest vector (a power of two, at most `vector` elements and 16
/// bytes) in which rows move between a shared `tile` and a row-major
/// `global` memref (named `globalName` in the reason) at a window whose
/// column offset is `origin`: both rows hold whole aligned vectors and the
/// offset is a multiple of the width, so a vector lies wholly inside or
/// wholly outside the global row (one bounds check covers it). Rows of
/// dynamic length are known only as a multiple of `rowMultiple`. When it is
/// narrower than asked, `why` says so: "W element(s) at a time instead of
/// V: <reason>".
int64_t rowVectorWidth(mlir::MemRefType tile, mlir::MemRefType global,
                       mlir::Value origin, int64_t vector,
                       llvm::StringRef globalName, std::string &why,
                       int64_t rowMultiple = 1);

/// The widest vector (a power of two, at most `vector` elements and 16
/// bytes) in which `op` can move its rows: every vector must start aligned
/// and lie inside one row of the source and of the target. When it is
/// narrower than asked, `why` says "W element(s) at a time instead of V:
/// <reason>".
int64_t copyVectorWidth(CopyOp op, std::string &why);

/// Bytes one cp.async may move.
bool isAsyncCopyWidth(int64_t bytes);

/// Whether `op` becomes cp.async (a staged async copy whose vectors are a
/// width cp.async moves; narrower ones stage through registers).
bool lowersToAsyncCopy(CopyOp op);

/// Combines like combineAccumulators, but a product yielded into a `sum`
/// becomes one fused multiply-add (`math.fma`, one rounding instead of two:
/// C's -ffp-contract=on inside `acc += a * b`), so that NVPTX and AMDGPU
/// emit fma / v_fma instead of mul.rn + add.rn, which they may not contract.
llvm::SmallVector<mlir::Value>
combineFused(mlir::RewriterBase &rw, mlir::Location loc, TileComputeOp op,
             mlir::ValueRange accs, mlir::ValueRange values);

/// The indices of `operand` (accessed through `map`) at domain point
/// `points`; a fragment (`isFragment`) is indexed by the thread's local
/// indices `locals` instead.
llvm::SmallVector<mlir::Value>
accessIndices(mlir::OpBuilder &b, mlir::Location loc, mlir::AffineMap map,
              llvm::ArrayRef<mlir::Value> points,
              llvm::ArrayRef<mlir::Value> locals, bool isFragment);

} // namespace tile_lowering
} // namespace ext

#endif // EXT_LIB_DIALECT_EXT_TRANSFORMS_TILELOWERINGUTILS_H
