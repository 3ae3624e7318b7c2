//===- EmulationPatterns.h - shapes of the emulation's patterns -*- C++ -*-===//
//
// Pattern bases the device pattern families share, for the ops whose
// lowering has the same frame: one runtime call in place of the op, or a
// rewrite from the shared-memory address the op names.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_CONVERSION_GPUTOCPUEMULATION_EMULATIONPATTERNS_H
#define EXT_LIB_CONVERSION_GPUTOCPUEMULATION_EMULATIONPATTERNS_H

#include "ext/Conversion/GPUToCPUEmulation/EmulationBuilder.h"

namespace ext {

/// A device op without results that is one call of the runtime entry point
/// `callee`: the call is built before the op, which goes. `arguments` gives
/// the call's operands; by default the op's site, which most entry points
/// take (last, after what the op passes).
template <typename Op> struct RuntimeCallLowering : EmulationOpPattern<Op> {
  RuntimeCallLowering(EmulationModule &emu, llvm::StringRef callee)
      : EmulationOpPattern<Op>(emu), callee(callee) {}

  /// The call's operands, built at `b`; a failure (an error on `op`) leaves
  /// the op in place.
  virtual mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  arguments(Op op, mlir::OpBuilder &b) const {
    return llvm::SmallVector<mlir::Value>{site(b, op)};
  }

  /// The i32 site number of `op`, as a constant at `b`.
  mlir::Value site(mlir::OpBuilder &b, Op op) const {
    return this->emu.function().site(b, op);
  }

  mlir::LogicalResult
  matchAndRewrite(Op op, mlir::PatternRewriter &rewriter) const final {
    rewriter.setInsertionPoint(op);
    mlir::FailureOr<llvm::SmallVector<mlir::Value>> args =
        arguments(op, rewriter);
    if (mlir::failed(args))
      return mlir::failure();
    this->emu.call(rewriter, op->getLoc(), callee, {}, *args);
    rewriter.eraseOp(op);
    return mlir::success();
  }

  llvm::StringRef callee;
};

/// A device op on a word of shared memory it names by address (an mbarrier:
/// nvgpu's by group and index, NVVM's by pointer): rewritten before the op,
/// given the address as an i64.
template <typename Op> struct AddressedOpLowering : EmulationOpPattern<Op> {
  using EmulationOpPattern<Op>::EmulationOpPattern;

  /// The address, built at `b`; a failure (an error on `op`) leaves the op.
  virtual mlir::FailureOr<mlir::Value> address(Op op,
                                               mlir::OpBuilder &b) const = 0;
  virtual mlir::LogicalResult lower(Op op, mlir::Value address,
                                    mlir::PatternRewriter &rewriter) const = 0;

  mlir::LogicalResult
  matchAndRewrite(Op op, mlir::PatternRewriter &rewriter) const final {
    rewriter.setInsertionPoint(op);
    mlir::FailureOr<mlir::Value> addr = address(op, rewriter);
    if (mlir::failed(addr))
      return mlir::failure();
    return lower(op, *addr, rewriter);
  }
};

} // namespace ext

#endif // EXT_LIB_CONVERSION_GPUTOCPUEMULATION_EMULATIONPATTERNS_H
