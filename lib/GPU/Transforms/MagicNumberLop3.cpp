//===- MagicNumberLop3.cpp - (w & M) | magic as one lop3.b32 --------------===//
//
// A packed weight's two codes become f16x2 by `(w & M) | 0x64006400` and one
// subtraction. LLVM emits the AND and the OR with immediates, which ptxas
// keeps as two LOP3 (a LOP3 takes one immediate); one `lop3.b32` with both
// makes ptxas hold one in a register and issue one LOP3 per two codes.
//
//===----------------------------------------------------------------------===//

#include "ext/GPU/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUMAGICNUMBERLOP3
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {

/// The mantissa ORs of 1024.0 (f16) and 128.0 (bf16), in both halves.
bool isMagicWord(uint64_t c) { return c == 0x64006400 || c == 0x43004300; }

struct ExtGPUMagicNumberLop3Pass
    : ext::impl::ExtGPUMagicNumberLop3Base<ExtGPUMagicNumberLop3Pass> {
  void runOnOperation() override {
    SmallVector<LLVM::OrOp> ors;
    getOperation().walk([&](LLVM::OrOp op) { ors.push_back(op); });
    for (LLVM::OrOp orOp : ors) {
      if (!orOp.getType().isInteger(32))
        continue;
      for (unsigned side = 0; side < 2; ++side) {
        APInt magic, mask;
        auto andOp = orOp->getOperand(side).getDefiningOp<LLVM::AndOp>();
        if (!andOp || !andOp->hasOneUse() ||
            !matchPattern(orOp->getOperand(1 - side), m_ConstantInt(&magic)) ||
            !isMagicWord(magic.getZExtValue()) ||
            !matchPattern(andOp.getRhs(), m_ConstantInt(&mask)) ||
            (mask & magic) != 0)
          continue;
        OpBuilder b(orOp);
        std::string text = "lop3.b32 $0, $1, " +
                           std::to_string(mask.getZExtValue()) + ", " +
                           std::to_string(magic.getZExtValue()) + ", 0xEA;";
        auto lop3 = LLVM::InlineAsmOp::create(
            b, orOp.getLoc(), orOp.getType(), ValueRange{andOp.getLhs()}, text,
            "=r,r", /*has_side_effects=*/false, /*is_align_stack=*/false,
            LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
        orOp.replaceAllUsesWith(lop3.getResult(0));
        orOp.erase();
        andOp.erase();
        break;
      }
    }
  }
};

} // namespace
