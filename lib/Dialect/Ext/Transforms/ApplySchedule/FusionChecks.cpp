//===- FusionChecks.cpp - what a fusion must not reorder ------------------===//
//
// Queries every fusion of ext-apply-schedule asks before it moves a
// compute's work into another's kernel: the compute a schedule names, and
// the ops between two computes that read or write what the move reorders,
// and the reads (indirect ones) no scheduled kernel makes yet.
//
//===----------------------------------------------------------------------===//

#include "Fusion.h"
#include "ext/Dialect/Ext/IR/IndirectReads.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

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

/// Indirect reads (a table's entry as an index) have no tiled copies yet:
/// the scheduled compute and every compute its schedule fuses must read
/// through the axes alone. Refused, naming the compute and the input.
LogicalResult tiling::refuseIndirectReads(ComputeOp op) {
  ScheduleAttr schedule = op.getScheduleAttr();
  llvm::SmallDenseSet<StringRef> fused;
  for (AttachAttr at : schedule.getComputeAt())
    fused.insert(at.getCompute().getValue());
  for (AttachAttr at : schedule.getReverseComputeAt())
    fused.insert(at.getCompute().getValue());
  for (StringAttr name : schedule.getComputeInline())
    fused.insert(name.getValue());
  for (StringAttr name : schedule.getOnline())
    fused.insert(name.getValue());
  // The online softmax copies the windows of its fused computes' paged
  // reads itself (OnlineSoftmaxOperands.cpp), and refuses what it cannot;
  // an inlined producer's reads are composed with the anchor's, which a
  // table's entry does not survive.
  bool online = !schedule.getOnline().empty();
  llvm::SmallDenseSet<StringRef> inlined;
  for (StringAttr name : schedule.getComputeInline())
    inlined.insert(name.getValue());
  for (ComputeOp other : op->getBlock()->getOps<ComputeOp>()) {
    if (other != op && !(other.getName() && fused.contains(*other.getName())))
      continue;
    ArrayAttr indirect = other.getIndirectAttr();
    if (!indirect ||
        (online && !(other.getName() && inlined.contains(*other.getName()))))
      continue;
    auto read = cast<IndirectAttr>(indirect[0]);
    InFlightDiagnostic d = op.emitOpError() << "schedule: ";
    if (other != op)
      d << "fused compute '" << *other.getName() << "' ";
    return d << "reads " << describeInput(other, read.getInput())
             << " at an entry of " << describeInput(other, read.getTable())
             << " (`indirect`), which a scheduled kernel cannot read yet; "
                "leave the compute unscheduled (it runs as loops)";
  }
  return success();
}
