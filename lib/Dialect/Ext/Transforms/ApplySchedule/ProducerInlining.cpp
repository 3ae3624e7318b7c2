//===- ProducerInlining.cpp - compute_inline in ext-apply-schedule --------===//
//
// A schedule's `compute_inline = ["T"]` substitutes T, an element-wise
// producer of one of the scheduled compute's inputs, into the compute: the
// compute reads T's inputs instead (through T's maps composed with its own
// access of T) and applies T's body to them where it read T's element. T's
// output is then never read by the kernel; T itself is erased when nothing
// else reads it. Casts, scaling, bias and dequantization of an input cost no
// kernel and no round trip through memory.
//
//===----------------------------------------------------------------------===//

#include "Fusion.h"
#include "TileIR.h"
#include "ext/Dialect/Ext/IR/GuardedReads.h"
#include "ext/Dialect/Ext/Transforms/TilingPlan.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace ext;
using namespace ext::tiling;

namespace {

/// The producer named `name` in `op`'s block, checked for inlining into
/// `op`: its input position in `op` in `position`. Null (success) when `op`
/// does not read its output and need not (`mustRead` false).
FailureOr<ComputeOp> findProducer(ComputeOp op, StringRef name,
                                  unsigned &position, bool mustRead) {
  auto err = [&]() {
    return op.emitOpError() << "schedule: compute_inline '" << name << "': ";
  };
  FailureOr<ComputeOp> found = findNamedCompute(op, name, err);
  if (failed(found))
    return failure();
  ComputeOp producer = *found;
  Value out = producer.getOutputs().front();
  if (!mustRead && !llvm::is_contained(op.getInputs(), out))
    return ComputeOp();
  if (!producer->isBeforeInBlock(op))
    return err() << "it comes after " << quotedName(op)
                 << ", so " << quotedName(op) << " does not read what it computes";
  if (producer.getScheduleAttr())
    return err() << "it has its own schedule; an inlined compute runs inside "
                 << quotedName(op);
  for (AxisAttr a : producer.getAxisList())
    if (a.isReduce())
      return err() << "it is a reduction (axis '" << a.getName()
                   << "'); compute_inline substitutes an element-wise "
                      "compute (a reduction goes to compute_at)";
  if (producer.getOutputs().size() != 1)
    return err() << "it has " << producer.getOutputs().size()
                 << " outputs; compute_inline substitutes a compute with one";
  std::optional<unsigned> reads;
  for (auto [i, in] : llvm::enumerate(op.getInputs())) {
    if (in != out)
      continue;
    if (reads)
      return err() << quotedName(op) << " reads its output twice";
    reads = i;
  }
  if (!reads)
    return err() << quotedName(op) << " does not read its output";
  if (llvm::is_contained(producer.getInputs(), out))
    return err() << "it reads its own output";
  if (ArrayAttr indirect = op.getIndirectAttr())
    for (auto read : indirect.getAsRange<IndirectAttr>())
      if (read.getInput() == *reads || read.getTable() == *reads)
        return err() << quotedName(op) << " reads its output "
                     << (read.getTable() == *reads ? "as a table"
                                                   : "at a table's entry")
                     << " (`indirect`), which substitution cannot express";
  // Nothing between the two may write what the inlined body reads, or the
  // producer's output (the compute now reads neither at the producer's
  // place). Reads between are fine: the producer stays for them.
  SmallVector<Value> moved(producer.getInputs());
  moved.push_back(out);
  if (Operation *between = findWriteBetween(producer, op, moved))
    return err() << "'" << between->getName() << "' between "
                 << quotedName(producer) << " and " << quotedName(op)
                 << " writes a memref the inlining reorders";
  position = *reads;
  return producer;
}

/// `op` with `producer` (its input `p`) substituted: `p` is replaced by the
/// producer's inputs, read through their maps composed with `op`'s access
/// of the producer's output, and the body computes the producer's value
/// from them first. Cache entries of operand `p` apply to every one of the
/// producer's inputs; later operands shift.
ComputeOp inlineOne(RewriterBase &rw, ComputeOp op, ComputeOp producer,
                    unsigned p, ScheduleAttr schedule) {
  MLIRContext *ctx = op.getContext();
  unsigned numAxes = op.getAxisList().size();
  unsigned numInputs = op.getInputs().size();
  unsigned added = producer.getInputs().size();
  // Anchor point -> producer point: the producer's output map is a
  // permutation of its axes (each spatial axis once), so invertible.
  AffineMap toProducer =
      inversePermutation(producer.getOutputMap(0)).compose(op.getInputMap(p));

  SmallVector<Value> inputs;
  SmallVector<Attribute> maps;
  for (unsigned i = 0; i < numInputs; ++i) {
    if (i != p) {
      inputs.push_back(op.getInputs()[i]);
      maps.push_back(AffineMapAttr::get(op.getInputMap(i)));
      continue;
    }
    for (auto [j, in] : llvm::enumerate(producer.getInputs())) {
      inputs.push_back(in);
      maps.push_back(
          AffineMapAttr::get(producer.getInputMap(j).compose(toProducer)));
    }
  }
  for (unsigned o = 0; o < op.getOutputs().size(); ++o)
    maps.push_back(AffineMapAttr::get(op.getOutputMap(o)));

  // The schedule without the entry, its cache renumbered.
  SmallVector<CacheAttr> cache;
  for (CacheAttr c : schedule ? schedule.getCache() : ArrayRef<CacheAttr>()) {
    int64_t operand = c.getOperand();
    if (operand != p) {
      cache.push_back(CacheAttr::get(ctx, operand > p ? operand + added - 1
                                                      : operand,
                                     c.getAlign(), c.getSwizzle()));
      continue;
    }
    for (unsigned j = 0; j < added; ++j)
      cache.push_back(CacheAttr::get(ctx, p + j, c.getAlign(), c.getSwizzle()));
  }
  SmallVector<StringAttr> rest;
  if (schedule)
    for (StringAttr n : schedule.getComputeInline())
      if (n != producer.getNameAttr())
        rest.push_back(n);
  auto newSchedule = !schedule ? ScheduleAttr() : ScheduleAttr::get(
      ctx, schedule.getTile(), schedule.getBlocks(), schedule.getThreads(),
      cache, schedule.getDecomposition(), schedule.getRaster(),
      schedule.getSwizzle(), schedule.getVector(), schedule.getUnroll(),
      schedule.getLayout(), schedule.getMma(), schedule.getWarps(),
      schedule.getStages(), schedule.getAsync(), schedule.getComputeAt(),
      schedule.getReverseComputeAt(),
      rest, schedule.getOnline(), schedule.getTma(), schedule.getSpecialize(),
      schedule.getCluster(), schedule.getFastMath());

  rw.setInsertionPoint(op);
  auto fused = ComputeOp::create(
      rw, op.getLoc(), op.getAxes(), inputs, op.getOutputs(),
      rw.getArrayAttr(maps), op.getCombinerAttr(), op.getIdentityAttr(),
      newSchedule, op.getNameAttr());
  if (ArrayAttr indirect = op.getIndirectAttr()) {
    // The anchor's indirect reads, their inputs renumbered as the cache's.
    auto renumber = [&](int64_t i) { return i > p ? i + added - 1 : i; };
    SmallVector<Attribute> reads;
    for (auto read : indirect.getAsRange<IndirectAttr>())
      reads.push_back(IndirectAttr::get(ctx, renumber(read.getInput()),
                                        read.getSymbol(),
                                        renumber(read.getTable())));
    fused.setIndirectAttr(rw.getArrayAttr(reads));
  }
  if (!op.getReducer().empty()) {
    IRMapping mapping;
    op.getReducer().cloneInto(&fused.getReducer(), mapping);
  }

  // Body: the compute's body with the producer's value where it read its
  // element, computed there by the producer's body on its inputs' elements
  // (its ext.index of axis t is toProducer's result t over the compute's
  // indices). A read under an if_then_else branch stays under it: the
  // producer's body goes to the start of the block that read its element
  // (GuardedReads.h), so its inputs are read only where the branch runs.
  Block &old = op.getBodyBlock();
  SmallVector<Type> argTypes;
  for (Value in : inputs)
    argTypes.push_back(cast<MemRefType>(in.getType()).getElementType());
  SmallVector<Location> argLocs(argTypes.size(), op.getLoc());
  Block *body = rw.createBlock(&fused.getBody(), {}, argTypes, argLocs);
  rw.setInsertionPointToStart(body);
  Value placeholder =
      UnrealizedConversionCastOp::create(rw, op.getLoc(),
                                         old.getArgument(p).getType(),
                                         ValueRange{})
          .getResult(0);
  IRMapping anchorMapping;
  for (unsigned i = 0, next = 0; i < numInputs; ++i) {
    if (i == p) {
      anchorMapping.map(old.getArgument(i), placeholder);
      next += added;
      continue;
    }
    anchorMapping.map(old.getArgument(i), body->getArgument(next++));
  }
  for (Operation &inner : old)
    rw.clone(inner, anchorMapping);

  Block *read = getReadBlock(placeholder);
  rw.setInsertionPointToStart(read ? read : body);
  IRMapping mapping;
  Block &src = producer.getBodyBlock();
  for (unsigned j = 0; j < added; ++j)
    mapping.map(src.getArgument(j), body->getArgument(p + j));
  SmallVector<Value> anchorIndex;
  SmallVector<AxisAttr> axes = op.getAxisList();
  auto indexOf = [&](unsigned a) {
    if (anchorIndex.empty())
      for (AxisAttr axis : axes)
        anchorIndex.push_back(IndexOp::create(rw, op.getLoc(),
                                              rw.getIndexType(),
                                              axis.getName()));
    return anchorIndex[a];
  };
  for (Operation &inner : src.without_terminator()) {
    if (auto index = dyn_cast<IndexOp>(inner)) {
      unsigned t = *producer.getAxisPosition(index.getAxis());
      AffineExpr e = toProducer.getResult(t);
      Value v;
      if (auto d = dyn_cast<AffineDimExpr>(e)) {
        v = indexOf(d.getPosition());
      } else {
        SmallVector<Value> all;
        for (unsigned a = 0; a < numAxes; ++a)
          all.push_back(indexOf(a));
        v = affine::AffineApplyOp::create(
            rw, index.getLoc(), AffineMap::get(numAxes, 0, e, ctx), all);
      }
      mapping.map(index.getResult(), v);
      continue;
    }
    rw.clone(inner, mapping);
  }
  Value produced = mapping.lookupOrDefault(
      cast<YieldOp>(src.getTerminator()).getValues()[0]);
  rw.replaceAllUsesWith(placeholder, produced);
  rw.eraseOp(placeholder.getDefiningOp());
  return fused;
}

} // namespace

FailureOr<ComputeOp> tiling::inlineNamedProducers(RewriterBase &rw,
                                                  ComputeOp op,
                                                  ArrayRef<StringAttr> names,
                                                  bool mustRead) {
  bool changed = false;
  for (StringAttr name : names) {
    unsigned position = 0;
    FailureOr<ComputeOp> producer =
        findProducer(op, name.getValue(), position, mustRead);
    if (failed(producer))
      return failure();
    if (!*producer)
      continue;
    ComputeOp next =
        inlineOne(rw, op, *producer, position, op.getScheduleAttr());
    rw.eraseOp(op);
    op = next;
    changed = true;
    // The producer goes when nothing else reads what it wrote.
    if (!isReadElsewhere(producer->getOutputs()[0], {*producer}))
      rw.eraseOp(*producer);
  }
  if (changed && failed(mlir::verify(op)))
    return failure();
  return op;
}

FailureOr<ComputeOp> tiling::inlineProducers(RewriterBase &rw, ComputeOp op) {
  ScheduleAttr schedule = op.getScheduleAttr();
  if (!schedule || schedule.getComputeInline().empty())
    return op;
  // With producers attached by compute_at, a name may be read by them
  // alone (ext-apply-schedule checks that someone reads it).
  SmallVector<StringAttr> names(schedule.getComputeInline());
  return inlineNamedProducers(rw, op, names,
                              /*mustRead=*/schedule.getComputeAt().empty());
}
