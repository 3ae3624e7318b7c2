//===- Target.h - the chip a module is compiled for -------------*- C++ -*-===//
//
// How passes find the chip they work for: the module's `#ext.target`
// (attribute `ext.target`, set once by `ext-set-target` or by the user), or
// a pass's own `chip=` option, which must then agree with it. The facts come
// from ext's one chip model (ext/Model/Chip.h).
//
//===----------------------------------------------------------------------===//

#ifndef EXT_DIALECT_EXT_IR_TARGET_H
#define EXT_DIALECT_EXT_IR_TARGET_H

#include "ext/Dialect/Ext/IR/ExtAttrs.h"

#include "mlir/IR/BuiltinOps.h"

namespace ext {

/// The name of the discardable attribute that holds a module's target.
inline constexpr llvm::StringLiteral kTargetAttrName = "ext.target";

/// The `#ext.target` of `op` or of its closest ancestor that has one; null
/// when none has.
TargetAttr getTargetAttr(mlir::Operation *op);

/// The device a pass on `op` works for: its `chipOption` when given (it must
/// agree with the enclosing `#ext.target`, if any), else the target's chip,
/// else `fallbackChip` (empty: the chip is unknown, `chip` std::nullopt).
/// `smsOption` (when positive) overrides the SM count, else the target's
/// `sms`. Reports at `op`, naming `passName`, and fails for a chip name
/// that is neither sm_NN nor gfxNNN or a contradiction.
mlir::FailureOr<DeviceFacts> resolveDevice(mlir::Operation *op,
                                           llvm::StringRef passName,
                                           llvm::StringRef chipOption,
                                           int64_t smsOption = 0,
                                           llvm::StringRef fallbackChip = "");

/// Sets `module`'s `#ext.target` to `chip` (and `sms`, 0: the chip's), or
/// checks that the one it has names the same chip; reports at the module.
mlir::LogicalResult setTarget(mlir::ModuleOp module, llvm::StringRef chip,
                              int64_t sms = 0);

} // namespace ext

#endif // EXT_DIALECT_EXT_IR_TARGET_H
