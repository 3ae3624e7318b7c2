//===- DecompositionSpec.h - built-in decompositions, shared -----*- C++ -*-===//
//
// What the built-in decomposition attributes (Decompositions.cpp) and their
// plans at launch (DecompositionsAtLaunch.cpp) share: an attribute in
// TileWork's terms (Spec), the numbers the emitters read (PlanValues), and
// the launch-time planners the attributes call. Private to lib/Dialect/Ext/IR.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_LIB_DIALECT_EXT_IR_DECOMPOSITIONSPEC_H
#define EXT_LIB_DIALECT_EXT_IR_DECOMPOSITIONSPEC_H

#include "ext/Dialect/Ext/IR/ExtAttrs.h"
#include "ext/Model/TileWork.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"

namespace ext::decomposition {

namespace tw = ext::tilework;
using mlir::Attribute;
using mlir::Builder;
using mlir::FailureOr;
using mlir::Location;
using mlir::LogicalResult;
using mlir::OpBuilder;
using mlir::OpFoldResult;
using mlir::Value;

/// The attribute's own `sms`, else the device's.
inline DeviceFacts withSms(const DeviceFacts &device, int64_t sms) {
  DeviceFacts facts = device;
  if (sms > 0)
    facts.numSMs = sms;
  return facts;
}

/// What an attribute is, in TileWork's terms.
struct Spec {
  tw::Kind kind;
  int64_t param = 0; // slices or grid
  int64_t sms = 0;   // the attribute's override
  bool needsSms() const {
    return (kind == tw::Kind::StreamK && param == 0) ||
           kind == tw::Kind::StreamKDP || kind == tw::Kind::StreamK2Tile;
  }
};

/// The missing-SM-count error of the lowering.
inline LogicalResult requireSms(const Spec &spec, Attribute attr,
                                const DeviceFacts &device, Location loc) {
  if (!spec.needsSms() || withSms(device, spec.sms).numSMs > 0)
    return mlir::success();
  return mlir::emitError(loc) << "decomposition " << attr
                        << " needs the SM count: give `sms = N` or the chip "
                           "(ext-apply-schedule{chip=...})";
}

inline Value cst(OpBuilder &b, Location loc, int64_t v) {
  return mlir::arith::ConstantIndexOp::create(b, loc, v);
}

/// An index, as a constant where it is one.
inline Value val(OpBuilder &b, Location loc, OpFoldResult v) {
  return mlir::getValueOrCreateConstantIndexOp(b, loc, v);
}

/// A plan's numbers as the emitters read them: attributes where the plan
/// was made at compile time, host values where it is made at launch.
/// `slices` is always static.
struct PlanValues {
  tw::Kind kind = tw::Kind::DataParallel;
  OpFoldResult tiles, iters, grid, skTiles, skGrid;
  int64_t slices = 1;
};

/// The plan of `spec` for `tiles` tiles, as host code.
FailureOr<LaunchPlan> planAtLaunch(OpBuilder &b, Location loc,
                                   const Spec &spec, Attribute attr,
                                   Value tiles, OpFoldResult iters,
                                   const DeviceFacts &device);

/// The numbers a launch-time plan's work units read.
PlanValues launchValues(tw::Kind kind, int64_t slices, const LaunchPlan &plan,
                        Builder &b);

/// `#ext.auto` at launch: asks ext's launch planner for the best of
/// tw::kLaunchCandidates, then selects that candidate's numbers.
FailureOr<LaunchPlan> autoAtLaunch(OpBuilder &b, Location loc, AutoAttr attr,
                                   Value tiles, OpFoldResult iters,
                                   const DeviceFacts &device,
                                   double partialCost);

} // namespace ext::decomposition

#endif // EXT_LIB_DIALECT_EXT_IR_DECOMPOSITIONSPEC_H
