//===- FusionChecks.cpp - what a fusion must not reorder ------------------===//
//
// Queries every fusion of ext-apply-schedule asks before it moves a
// compute's work into another's kernel: the compute a schedule names, and
// the ops between two computes that read or write what the move reorders.
//
//===----------------------------------------------------------------------===//

#include "Fusion.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace ext;
using namespace ext::tiling;

FailureOr<ComputeOp>
tiling::findNamedCompute(ComputeOp op, StringRef name,
                         function_ref<InFlightDiagnostic()> err) {
  ComputeOp found;
  for (Operation &other : *op->getBlock()) {
    auto c = dyn_cast<ComputeOp>(other);
    if (!c || c == op || !c.getNameAttr() || c.getNameAttr().getValue() != name)
      continue;
    if (found)
      return err() << "two computes of that name in the block";
    found = c;
  }
  if (!found)
    return err() << "no compute of that name in the block";
  return found;
}

bool tiling::isReadElsewhere(Value memref, ArrayRef<Operation *> except) {
  if (isa<BlockArgument>(memref))
    return true;
  return llvm::any_of(memref.getUsers(), [&](Operation *user) {
    return !llvm::is_contained(except, user) && !isa<memref::DeallocOp>(user);
  });
}

Operation *tiling::findUseBetween(Operation *first, Operation *last,
                                  ArrayRef<Value> values) {
  for (Operation *op = first->getNextNode(); op != last; op = op->getNextNode())
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return llvm::is_contained(values, v); }))
      return op;
  return nullptr;
}

Operation *tiling::findWriteBetween(Operation *first, Operation *last,
                                    ValueRange values) {
  auto touches = [&](ValueRange operands) {
    return llvm::any_of(operands,
                        [&](Value v) { return llvm::is_contained(values, v); });
  };
  for (Operation *op = first->getNextNode(); op != last; op = op->getNextNode()) {
    if (auto compute = dyn_cast<ComputeOp>(op)) {
      if (touches(compute.getOutputs()))
        return op;
      continue;
    }
    if (touches(op->getOperands()))
      return op;
  }
  return nullptr;
}
