//===- GuardedReads.h - where a compute reads its inputs --------*- C++ -*-===//
//
// A compute's body names each input's element by a block argument; the
// element is read where the body uses it. When every use sits in one
// branch of an `scf.if` (TVM's if_then_else with a read in one branch), it
// is read only when that branch is taken: `X[y - 1]` under `y >= 1` never
// reads row -1. The verifier checks such an access under its guard (the
// branch conditions, affine in the axes); the lowerings load the element
// at the start of the block that holds its uses.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_DIALECT_EXT_IR_GUARDEDREADS_H
#define EXT_DIALECT_EXT_IR_GUARDEDREADS_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Block.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace ext {

class ComputeOp;

/// The block where the element `arg` (an input's block argument of a
/// compute body, or a value inlined from one) is read: the innermost block
/// of the body that holds all of its uses, the block the value is defined
/// in when a use is there; null when it is unused.
mlir::Block *getReadBlock(mlir::Value arg);

/// True if some input of the body (`body`, a compute's body region) is read
/// only under a branch (its read block is not the entry block).
bool hasGuardedReads(mlir::Region &body);

/// A branch condition on the way from the body's entry to a block: the
/// condition value and whether the branch runs where it holds (`then`) or
/// where it does not (`else`).
struct Guard {
  mlir::Value condition;
  bool holds;
};

/// The guards under which `block`, nested in the body whose entry block is
/// `entry`, runs (outermost first); empty for the entry block.
llvm::SmallVector<Guard> getGuards(mlir::Block *block, mlir::Block *entry);

/// Whether `expr` (over `op`'s axes, all of static extent) stays inside
/// [0, size) at every point of the iteration space where `guards` hold:
/// true, or false with a point where it does not in `witness` (as "y = 0,
/// kh = 0"), or nullopt where the access is not affine. Guards that are not
/// affine comparisons of the axes constrain nothing (a stricter check).
std::optional<bool> inBoundsUnderGuards(ComputeOp op,
                                        llvm::ArrayRef<Guard> guards,
                                        mlir::AffineExpr expr, int64_t size,
                                        std::string &witness);

} // namespace ext

#endif // EXT_DIALECT_EXT_IR_GUARDEDREADS_H
