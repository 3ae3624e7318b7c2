//===- OnlineSoftmaxReads.cpp - the windows of the fused computes' reads -===//
//
// What each read of a fused compute's input map is (an axis, a constant, an
// expression the tile fixes, a kept axis shifted by one such as a head of a
// packed projection, a page of a paged read or its row) and the window of
// global memory the online softmax copies for it, bounded where the read's
// axis ends: so a head padded to the lanes reads zeros, a page past the
// table's pages fails the launch. The copies of pages shorter than a key
// step go page by page.
//
//===----------------------------------------------------------------------===//

#include "OnlineSoftmaxBuilder.h"

#include "ext/Dialect/Ext/IR/IndirectReads.h"
#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Support/IndexConstant.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace ext;
using namespace ext::tiling;
using namespace ext::tiling::online;

//===----------------------------------------------------------------------===//
// Paged (indirect) operands
//===----------------------------------------------------------------------===//

OnlineSoftmaxBuilder::ReadKind
OnlineSoftmaxBuilder::readKind(const Fused &f, AffineExpr e) const {
  if (isa<AffineConstantExpr, AffineDimExpr>(e))
    return ReadKind::plain;
  if (isa<AffineSymbolExpr>(e))
    return ReadKind::page;
  if (e.getKind() == AffineExprKind::Mod) {
    auto bin = cast<AffineBinaryOpExpr>(e);
    auto d = dyn_cast<AffineDimExpr>(bin.getLHS());
    if (d && f.anchorAxis[d.getPosition()] == static_cast<int>(kAxis) &&
        isa<AffineConstantExpr>(bin.getRHS()))
      return ReadKind::pageRow;
  }
  if (fixedRead(f, e))
    return ReadKind::fixed;
  return shiftedRead(f, e) ? ReadKind::shifted : ReadKind::other;
}

bool OnlineSoftmaxBuilder::fixedRead(const Fused &f, AffineExpr e) const {
  // Over anchor axes of a tile of 1 (never the keys), no symbol.
  bool fixed = true;
  e.walk([&](AffineExpr sub) {
    if (isa<AffineSymbolExpr>(sub))
      fixed = false;
    if (auto d = dyn_cast<AffineDimExpr>(sub)) {
      int a = f.anchorAxis[d.getPosition()];
      fixed &= a >= 0 && a != static_cast<int>(kAxis) && !kept(f, d.getPosition());
    }
  });
  return fixed;
}

std::optional<std::pair<AffineDimExpr, AffineExpr>>
OnlineSoftmaxBuilder::shiftedRead(const Fused &f, AffineExpr e) const {
  // The addends of e: exactly one a kept axis, the rest fixed by the tile.
  SmallVector<AffineExpr> addends, work{e};
  while (!work.empty()) {
    AffineExpr x = work.pop_back_val();
    if (x.getKind() == AffineExprKind::Add) {
      auto bin = cast<AffineBinaryOpExpr>(x);
      work.push_back(bin.getLHS());
      work.push_back(bin.getRHS());
    } else {
      addends.push_back(x);
    }
  }
  std::optional<AffineDimExpr> axis;
  AffineExpr shift = getAffineConstantExpr(0, ctx);
  for (AffineExpr x : addends) {
    auto d = dyn_cast<AffineDimExpr>(x);
    if (d && !axis && kept(f, d.getPosition())) {
      axis = d;
      continue;
    }
    if (!fixedRead(f, x))
      return std::nullopt;
    shift = shift + x;
  }
  if (!axis ||
      ShapedType::isDynamic(f.op.getAxisList()[axis->getPosition()].getExtent()))
    return std::nullopt;
  return std::make_pair(*axis, shift);
}

LogicalResult OnlineSoftmaxBuilder::checkRead(const Fused &f, unsigned i) {
  AffineMap map = f.op.getInputMap(i);
  auto refuse = [&]() {
    return err() << quotedName(f.op) << " reads input #" << i << " at "
                 << AffineMapAttr::get(map) << "; ";
  };
  std::optional<int64_t> page;
  for (AffineExpr e : map.getResults()) {
    switch (readKind(f, e)) {
    case ReadKind::plain:
    case ReadKind::fixed:
    case ReadKind::shifted:
    case ReadKind::page:
      break;
    case ReadKind::pageRow: {
      int64_t p = cast<AffineConstantExpr>(
                      cast<AffineBinaryOpExpr>(e).getRHS())
                      .getValue();
      if (!map.getNumSymbols() || (page && *page != p))
        return refuse() << "a fused compute reads the keys modulo a page "
                           "size only in a paged read (a page from a table, "
                           "one page size)";
      page = p;
      break;
    }
    case ReadKind::other:
      return refuse() << "a fused compute reads at plain axes, constants, "
                         "expressions of axes its tile fixes, an axis plus "
                         "such an expression, and pages of a paged read (a "
                         "table's entry, its row j mod P)";
    }
  }
  if (!map.getNumSymbols())
    return success();
  if (!page)
    return refuse() << "a table's entry indexes it but no dimension reads "
                       "the keys as the row of a page (j mod P)";
  int64_t step = plan.tile[kAxis];
  // Keys past the length would come from a real page (not zero-filled as
  // past the end of a dense K): every step whole.
  if (ShapedType::isDynamic(plan.extents[kAxis]) ||
      plan.extents[kAxis] % step != 0)
    return refuse() << "a paged read needs the keys' extent a multiple of "
                       "the key step ("
                    << step << ")";
  if (*page % step != 0 && step % *page != 0)
    return refuse() << "pages of " << *page << " keys and key steps of "
                    << step
                    << ": one must divide the other (a step within a page, "
                       "or whole pages per step)";
  if (step > *page && warpgroup)
    return refuse() << "pages of " << *page << " keys are shorter than the "
                       "key step of " << step
                    << ", whose swizzled wgmma tile is not copied by pages";
  // Each table read at the keys' page (`j floordiv P`: the keys gone once
  // that is replaced) and otherwise at axes the tile fixes.
  for (unsigned t : f.op.getIndirectTables(i)) {
    AffineMap tmap = f.op.getInputMap(t);
    for (AffineExpr e : tmap.getResults()) {
      for (unsigned d = 0; d < tmap.getNumDims(); ++d)
        if (f.anchorAxis[d] == static_cast<int>(kAxis))
          e = e.replace(getAffineDimExpr(d, ctx).floorDiv(*page),
                        getAffineConstantExpr(0, ctx));
      bool fixed = true;
      e.walk([&](AffineExpr sub) {
        if (auto d = dyn_cast<AffineDimExpr>(sub)) {
          int a = f.anchorAxis[d.getPosition()];
          fixed &= a >= 0 && a != static_cast<int>(kAxis) &&
                   !kept(f, d.getPosition());
        }
      });
      if (!fixed)
        return err() << quotedName(f.op) << " reads its table (input #" << t
                     << ") at " << AffineMapAttr::get(tmap)
                     << "; a table is read at the keys' page (j floordiv "
                     << *page << ") and at axes the tile fixes";
    }
  }
  return success();
}

Value OnlineSoftmaxBuilder::pageEntry(const Fused &f, unsigned i, unsigned s,
                                      unsigned r) {
  unsigned t = f.op.getIndirectTables(i)[s];
  Value table = f.op.getInputs()[t];
  AffineMap tmap = f.op.getInputMap(t);
  // The table's indices at the step's first key (one page holds the step).
  SmallVector<Value> points;
  for (unsigned d = 0; d < tmap.getNumDims(); ++d) {
    int a = f.anchorAxis[d];
    points.push_back(a < 0 ? constIndex(rw, loc, 0)
                     : static_cast<unsigned>(a) == kAxis ? kOffset
                                                         : frame.offsets[a]);
  }
  Value zero = constIndex(rw, loc, 0);
  SmallVector<Value> indices;
  for (AffineExpr e : tmap.getResults()) {
    Value index = affine::AffineApplyOp::create(
        rw, loc, AffineMap::get(tmap.getNumDims(), 0, e), points);
    // A prefetch past the last step reads the table's first entry instead
    // (its copy does not run).
    if (pageActive)
      index = arith::SelectOp::create(rw, loc, pageActive, index, zero);
    indices.push_back(index);
  }
  Value entry = memref::LoadOp::create(rw, loc, table, indices);
  if (!entry.getType().isIndex())
    entry = arith::IndexCastOp::create(rw, loc, rw.getIndexType(), entry);
  Value input = f.op.getInputs()[i];
  auto type = cast<MemRefType>(input.getType());
  Value size = memref::DimOp::create(rw, loc, input, r);
  Value inside = arith::AndIOp::create(
      rw, loc,
      arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::sge, entry, zero),
      arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::slt, entry, size));
  // As ext-compute-to-loops checks it; the copy then reads page 0.
  cf::AssertOp::create(
      rw, loc, inside,
      "ext.compute " + quotedName(f.op) + ": an entry of table " +
          describeInput(f.op, t) + " indexes dimension #" + std::to_string(r) +
          " of " + describeInput(f.op, i) + " outside [0, " +
          (type.isDynamicDim(r) ? std::string("its size")
                                : std::to_string(type.getDimSize(r))) +
          ")");
  return arith::SelectOp::create(rw, loc, inside, entry, zero);
}

OnlineSoftmaxBuilder::Window OnlineSoftmaxBuilder::inputWindow(const Fused &f,
                                                               unsigned i) {
  Value memref = f.op.getInputs()[i];
  AffineMap map = f.op.getInputMap(i);
  if (llvm::all_of(map.getResults(), [&](AffineExpr e) {
        return readKind(f, e) == ReadKind::plain;
      }))
    return window(f, memref, map);
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<OpFoldResult> offs, sizes, strides;
  SmallVector<int64_t> reducedShape;
  Window w;
  for (auto [d, e] : llvm::enumerate(map.getResults())) {
    strides.push_back(rw.getIndexAttr(1));
    ReadKind kind = readKind(f, e);
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (kind == ReadKind::pageRow ||
        (kind == ReadKind::plain && dim && kept(f, dim.getPosition()))) {
      // Kept whole; the window's origin in it and its extent.
      unsigned pos = kind == ReadKind::pageRow
                         ? cast<AffineDimExpr>(
                               cast<AffineBinaryOpExpr>(e).getLHS())
                               .getPosition()
                         : dim.getPosition();
      offs.push_back(rw.getIndexAttr(0));
      sizes.push_back(type.isDynamicDim(d)
                          ? OpFoldResult(memref::DimOp::create(rw, loc, memref, d)
                                             .getResult())
                          : OpFoldResult(rw.getIndexAttr(type.getDimSize(d))));
      reducedShape.push_back(type.getDimSize(d));
      int a = f.anchorAxis[pos];
      w.shape.push_back(a < 0 ? f.op.getAxisList()[pos].getExtent()
                              : plan.tile[a]);
      if (kind == ReadKind::pageRow) {
        int64_t page = cast<AffineConstantExpr>(
                           cast<AffineBinaryOpExpr>(e).getRHS())
                           .getValue();
        w.origins.push_back(arith::RemUIOp::create(
            rw, loc, kOffset, constIndex(rw, loc, page)));
      } else {
        w.origins.push_back(origin(f, e));
      }
      continue;
    }
    if (kind == ReadKind::shifted) {
      // The axis's extent from the shift on (bounds at the axis's end, not
      // the tensor's: a padded head reads zeros, not the next head), the
      // axis's origin in it.
      auto [axis, shift] = *shiftedRead(f, e);
      SmallVector<Value> points;
      for (unsigned p = 0; p < map.getNumDims(); ++p)
        points.push_back(f.anchorAxis[p] < 0 ? constIndex(rw, loc, 0)
                                             : frame.offsets[f.anchorAxis[p]]);
      offs.push_back(affine::AffineApplyOp::create(
                         rw, loc, AffineMap::get(map.getNumDims(), 0, shift),
                         points)
                         .getResult());
      unsigned pos = axis.getPosition();
      int64_t extent = f.op.getAxisList()[pos].getExtent();
      sizes.push_back(rw.getIndexAttr(extent));
      reducedShape.push_back(extent);
      int a = f.anchorAxis[pos];
      w.shape.push_back(a < 0 ? extent : plan.tile[a]);
      w.origins.push_back(origin(f, axis));
      continue;
    }
    sizes.push_back(rw.getIndexAttr(1));
    if (kind == ReadKind::page) {
      offs.push_back(pageEntry(
          f, i, cast<AffineSymbolExpr>(e).getPosition(), d));
      continue;
    }
    if (kind == ReadKind::fixed) {
      SmallVector<Value> points;
      for (unsigned p = 0; p < map.getNumDims(); ++p)
        points.push_back(f.anchorAxis[p] < 0 ? constIndex(rw, loc, 0)
                                             : frame.offsets[f.anchorAxis[p]]);
      offs.push_back(affine::AffineApplyOp::create(
                         rw, loc, AffineMap::get(map.getNumDims(), 0, e), points)
                         .getResult());
      continue;
    }
    offs.push_back(origin(f, e));
  }
  w.view = rankReducedView(rw, loc, memref, reducedShape, offs, sizes,
                           strides);
  return w;
}

void OnlineSoftmaxBuilder::copyWindow(const Fused &f, unsigned i, Window w,
                                      Value target, Location at, Value active,
                                      CopyStagingAttr staging) {
  auto copy = [&](const Window &from, Value to) {
    CopyOp::create(rw, at, from.view, from.origins, to, active,
                   schedule.getVector(), staging, 1, DenseBoolArrayAttr());
  };
  // The page's rows among the window's dimensions, if pages are shorter
  // than the step (checkRead: then the step holds whole pages).
  AffineMap map = f.op.getInputMap(i);
  std::optional<unsigned> rowDim;
  int64_t page = 0, window = 0;
  for (AffineExpr e : map.getResults()) {
    ReadKind kind = readKind(f, e);
    if (kind == ReadKind::pageRow) {
      rowDim = window;
      page = cast<AffineConstantExpr>(cast<AffineBinaryOpExpr>(e).getRHS())
                 .getValue();
    }
    auto dim = dyn_cast<AffineDimExpr>(e);
    window += kind == ReadKind::pageRow || kind == ReadKind::shifted ||
              (kind == ReadKind::plain && dim && kept(f, dim.getPosition()));
  }
  int64_t step = plan.tile[kAxis];
  if (!rowDim || step <= page)
    return copy(w, target);
  auto type = cast<MemRefType>(target.getType());
  Value first = kOffset;
  for (int64_t p = 0; p < step / page; ++p) {
    if (p) {
      kOffset = arith::AddIOp::create(rw, loc, first,
                                      constIndex(rw, loc, p * page));
      w = inputWindow(f, i);
    }
    w.shape[*rowDim] = page;
    SmallVector<int64_t> offs(type.getRank(), 0), sizes(w.shape),
        strides(type.getRank(), 1);
    offs[*rowDim] = p * page;
    auto rowsType = cast<MemRefType>(
        memref::SubViewOp::inferResultType(type, offs, sizes, strides));
    copy(w, memref::SubViewOp::create(rw, loc, rowsType, target, offs, sizes,
                                      strides));
  }
  kOffset = first;
}

