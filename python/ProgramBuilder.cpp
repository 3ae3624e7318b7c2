//===- ProgramBuilder.cpp - ext.compute ops from Python expression trees --===//

#include "ProgramBuilder.h"
#include "ScheduleBindings.h"

#include "ext/Dialect/Ext/IR/ExtDialect.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/ControlFlowSinkUtils.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/StringSwitch.h"

namespace py = pybind11;
using namespace mlir;

namespace ext::python {

std::string describeLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getLine())).str();
  if (auto name = dyn_cast<NameLoc>(loc))
    return describeLocation(name.getChildLoc());
  std::string s;
  llvm::raw_string_ostream os(s);
  os << loc;
  return s;
}

Type parseDtype(MLIRContext *ctx, StringRef name) {
  Builder b(ctx);
  return llvm::StringSwitch<Type>(name)
      .Case("f16", b.getF16Type())
      .Case("bf16", b.getBF16Type())
      .Case("f32", b.getF32Type())
      .Case("f64", b.getF64Type())
      .Case("i1", b.getI1Type())
      .Case("i8", b.getI8Type())
      .Case("i16", b.getI16Type())
      .Case("i32", b.getI32Type())
      .Case("i64", b.getI64Type())
      .Case("index", b.getIndexType())
      .Default(Type());
}

std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

namespace {

bool isFloat(Type t) { return isa<FloatType>(t); }
bool isInt(Type t) { return t.isSignlessInteger(); }

/// Builds one region's expression nodes: every node is
/// (op, dtype, [operand ids], attr, (file, line)).
class ExpressionBuilder {
public:
  ExpressionBuilder(OpBuilder &b, ArrayRef<Value> arguments, StringRef what)
      : b(b), arguments(arguments), what(what.str()) {}

  /// Emits every node, returns the values of `yields`.
  SmallVector<Value> build(const py::list &nodes, const py::list &yields) {
    for (py::handle h : nodes)
      values.push_back(emit(py::reinterpret_borrow<py::tuple>(h)));
    SmallVector<Value> result;
    for (py::handle y : yields)
      result.push_back(value(py::cast<int64_t>(y)));
    return result;
  }

private:
  [[noreturn]] void fail(Location loc, const std::string &message) {
    throw BuildError(describeLocation(loc) + ": " + message);
  }

  llvm::DenseMap<Value, bool> reads;

  Value value(int64_t id) {
    if (id < 0 || id >= static_cast<int64_t>(values.size()))
      throw BuildError("expression node " + std::to_string(id) +
                       " used before it is defined in " + what);
    return values[id];
  }

  Location location(const py::handle &loc) {
    auto t = py::reinterpret_borrow<py::tuple>(loc);
    return FileLineColLoc::get(b.getContext(), py::cast<std::string>(t[0]),
                               py::cast<unsigned>(t[1]), 0);
  }

  Value constant(Location loc, Type type, const py::handle &attr) {
    if (auto ft = dyn_cast<FloatType>(type)) {
      double v = py::cast<double>(attr);
      return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(ft, v));
    }
    if (isInt(type)) {
      // Python ints are unbounded: out-of-range constants are an error, not
      // a silent wrap.
      py::int_ pyValue = py::reinterpret_borrow<py::object>(attr);
      unsigned width = type.getIntOrFloatBitWidth();
      int64_t v;
      try {
        v = py::cast<int64_t>(pyValue);
      } catch (const py::cast_error &) {
        fail(loc, "constant does not fit in " + typeName(type));
      }
      if (width == 1 ? (v != 0 && v != 1)
                     : (width < 64 && (v < -(int64_t(1) << (width - 1)) ||
                                       v >= (int64_t(1) << (width - 1)))))
        fail(loc, "constant " + std::to_string(v) + " does not fit in " +
                      typeName(type));
      return arith::ConstantOp::create(b, loc, type,
                                       b.getIntegerAttr(type, v));
    }
    fail(loc, "no constant of type " + typeName(type));
  }

  Value cast(Location loc, Value x, Type to) {
    Type from = x.getType();
    if (from == to)
      return x;
    if (isFloat(from) && isFloat(to)) {
      unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
      // f16 <-> bf16 have the same width: go through f32.
      if (fw == tw) {
        Value f32 = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
        return arith::TruncFOp::create(b, loc, to, f32);
      }
      if (fw < tw)
        return arith::ExtFOp::create(b, loc, to, x);
      return arith::TruncFOp::create(b, loc, to, x);
    }
    if (isInt(from) && isInt(to)) {
      unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
      if (fw == 1)  // a boolean is 0 or 1
        return arith::ExtUIOp::create(b, loc, to, x);
      if (tw == 1) {
        Value zero = arith::ConstantOp::create(b, loc, from,
                                               b.getIntegerAttr(from, 0));
        return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
      }
      if (fw < tw)
        return arith::ExtSIOp::create(b, loc, to, x);
      return arith::TruncIOp::create(b, loc, to, x);
    }
    if (isInt(from) && isFloat(to)) {
      if (from.getIntOrFloatBitWidth() == 1)
        return arith::UIToFPOp::create(b, loc, to, x);
      return arith::SIToFPOp::create(b, loc, to, x);
    }
    if (isFloat(from) && isInt(to)) {
      if (to.getIntOrFloatBitWidth() == 1) {
        Value zero = arith::ConstantOp::create(b, loc, from,
                                               b.getFloatAttr(from, 0.0));
        return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                     zero);
      }
      return arith::FPToSIOp::create(b, loc, to, x);
    }
    if (isa<IndexType>(from) && isInt(to))
      return arith::IndexCastOp::create(b, loc, to, x);
    fail(loc, "cannot cast " + typeName(from) + " to " + typeName(to));
  }

  /// Math functions on f16/bf16 run in f32 (the CPU and GPU libraries have
  /// f32 and f64 versions).
  template <typename OpTy>
  Value math(Location loc, Value x) {
    Type t = x.getType();
    if (!isFloat(t))
      fail(loc, "this function needs a floating-point operand, got " +
                    typeName(t));
    if (t.getIntOrFloatBitWidth() < 32) {
      Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
      Value r = OpTy::create(b, loc, wide);
      return arith::TruncFOp::create(b, loc, t, r);
    }
    return OpTy::create(b, loc, x);
  }

  Value unary(Location loc, StringRef op, Value x) {
    Type t = x.getType();
    if (op == "neg") {
      if (isFloat(t))
        return arith::NegFOp::create(b, loc, x);
      Value zero =
          arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, 0));
      return arith::SubIOp::create(b, loc, zero, x);
    }
    if (op == "abs")
      return isFloat(t) ? Value(math::AbsFOp::create(b, loc, x))
                        : Value(math::AbsIOp::create(b, loc, x));
    if (op == "not") {
      if (!isInt(t))
        fail(loc, "'not' needs a boolean or integer, got " + typeName(t));
      Value ones =
          arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, -1));
      return arith::XOrIOp::create(b, loc, x, ones);
    }
#define EXT_MATH(name, Op)                                                     \
  if (op == name)                                                              \
    return math<math::Op>(loc, x);
    EXT_MATH("exp", ExpOp)
    EXT_MATH("exp2", Exp2Op)
    EXT_MATH("log", LogOp)
    EXT_MATH("log2", Log2Op)
    EXT_MATH("log10", Log10Op)
    EXT_MATH("sqrt", SqrtOp)
    EXT_MATH("rsqrt", RsqrtOp)
    EXT_MATH("tanh", TanhOp)
    EXT_MATH("sin", SinOp)
    EXT_MATH("cos", CosOp)
    EXT_MATH("erf", ErfOp)
    EXT_MATH("floor", FloorOp)
    EXT_MATH("ceil", CeilOp)
    EXT_MATH("round", RoundEvenOp)
#undef EXT_MATH
    fail(loc, "unknown unary operation '" + op.str() + "'");
  }

  /// Python's floor semantics for // and %: the remainder takes the sign of
  /// the divisor.
  Value floorMod(Location loc, Value x, Value y) {
    Type t = x.getType();
    Value r = isFloat(t) ? Value(arith::RemFOp::create(b, loc, x, y))
                         : Value(arith::RemSIOp::create(b, loc, x, y));
    Value zero = isFloat(t) ? Value(arith::ConstantOp::create(
                                  b, loc, t, b.getFloatAttr(t, 0.0)))
                            : Value(arith::ConstantOp::create(
                                  b, loc, t, b.getIntegerAttr(t, 0)));
    auto lt = [&](Value a, Value c) -> Value {
      return isFloat(t) ? Value(arith::CmpFOp::create(
                              b, loc, arith::CmpFPredicate::OLT, a, c))
                        : Value(arith::CmpIOp::create(
                              b, loc, arith::CmpIPredicate::slt, a, c));
    };
    auto ne = [&](Value a, Value c) -> Value {
      return isFloat(t) ? Value(arith::CmpFOp::create(
                              b, loc, arith::CmpFPredicate::UNE, a, c))
                        : Value(arith::CmpIOp::create(
                              b, loc, arith::CmpIPredicate::ne, a, c));
    };
    Value signsDiffer =
        arith::XOrIOp::create(b, loc, lt(r, zero), lt(y, zero));
    Value adjust = arith::AndIOp::create(b, loc, ne(r, zero), signsDiffer);
    Value adjusted = isFloat(t) ? Value(arith::AddFOp::create(b, loc, r, y))
                                : Value(arith::AddIOp::create(b, loc, r, y));
    return arith::SelectOp::create(b, loc, adjust, adjusted, r);
  }

  Value binary(Location loc, StringRef op, Value x, Value y) {
    Type t = x.getType();
    if (t != y.getType())
      fail(loc, "operands of '" + op.str() + "' have types " + typeName(t) +
                    " and " + typeName(y.getType()) +
                    "; cast one with .astype()");
    bool f = isFloat(t);
    if (!f && !isInt(t))
      fail(loc, "'" + op.str() + "' on " + typeName(t));
    if (op == "add")
      return f ? Value(arith::AddFOp::create(b, loc, x, y))
               : Value(arith::AddIOp::create(b, loc, x, y));
    if (op == "sub")
      return f ? Value(arith::SubFOp::create(b, loc, x, y))
               : Value(arith::SubIOp::create(b, loc, x, y));
    if (op == "mul")
      return f ? Value(arith::MulFOp::create(b, loc, x, y))
               : Value(arith::MulIOp::create(b, loc, x, y));
    if (op == "div") {
      if (!f)
        fail(loc, "'/' divides floats; use // for integers");
      return arith::DivFOp::create(b, loc, x, y);
    }
    if (op == "floordiv") {
      if (f)
        return math<math::FloorOp>(loc, arith::DivFOp::create(b, loc, x, y));
      return arith::FloorDivSIOp::create(b, loc, x, y);
    }
    if (op == "mod")
      return floorMod(loc, x, y);
    if (op == "min")
      return f ? Value(arith::MinimumFOp::create(b, loc, x, y))
               : Value(arith::MinSIOp::create(b, loc, x, y));
    if (op == "max")
      return f ? Value(arith::MaximumFOp::create(b, loc, x, y))
               : Value(arith::MaxSIOp::create(b, loc, x, y));
    if (op == "pow") {
      if (!f)
        fail(loc, "'**' needs floating-point operands, got " + typeName(t));
      if (t.getIntOrFloatBitWidth() < 32) {
        Value wx = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
        Value wy = arith::ExtFOp::create(b, loc, b.getF32Type(), y);
        return arith::TruncFOp::create(b, loc, t,
                                       math::PowFOp::create(b, loc, wx, wy));
      }
      return math::PowFOp::create(b, loc, x, y);
    }
    if (op == "and" || op == "or" || op == "xor") {
      if (f)
        fail(loc, "'" + op.str() + "' needs booleans or integers, got " +
                      typeName(t));
      if (op == "and")
        return arith::AndIOp::create(b, loc, x, y);
      if (op == "or")
        return arith::OrIOp::create(b, loc, x, y);
      return arith::XOrIOp::create(b, loc, x, y);
    }
    fail(loc, "unknown binary operation '" + op.str() + "'");
  }

  Value compare(Location loc, StringRef pred, Value x, Value y) {
    Type t = x.getType();
    if (t != y.getType())
      fail(loc, "compared values have types " + typeName(t) + " and " +
                    typeName(y.getType()) + "; cast one with .astype()");
    if (isFloat(t)) {
      auto p = llvm::StringSwitch<std::optional<arith::CmpFPredicate>>(pred)
                   .Case("lt", arith::CmpFPredicate::OLT)
                   .Case("le", arith::CmpFPredicate::OLE)
                   .Case("gt", arith::CmpFPredicate::OGT)
                   .Case("ge", arith::CmpFPredicate::OGE)
                   .Case("eq", arith::CmpFPredicate::OEQ)
                   .Case("ne", arith::CmpFPredicate::UNE)
                   .Default(std::nullopt);
      if (!p)
        fail(loc, "unknown comparison '" + pred.str() + "'");
      return arith::CmpFOp::create(b, loc, *p, x, y);
    }
    auto p = llvm::StringSwitch<std::optional<arith::CmpIPredicate>>(pred)
                 .Case("lt", arith::CmpIPredicate::slt)
                 .Case("le", arith::CmpIPredicate::sle)
                 .Case("gt", arith::CmpIPredicate::sgt)
                 .Case("ge", arith::CmpIPredicate::sge)
                 .Case("eq", arith::CmpIPredicate::eq)
                 .Case("ne", arith::CmpIPredicate::ne)
                 .Default(std::nullopt);
    if (!p || !isInt(t))
      fail(loc, "cannot compare " + typeName(t) + " with '" + pred.str() +
                    "'");
    return arith::CmpIOp::create(b, loc, *p, x, y);
  }

  /// Whether `v` depends on an argument (an element read from a tensor).
  bool readsInput(Value v) {
    if (isa<BlockArgument>(v))
      return true;
    auto [it, inserted] = reads.try_emplace(v, false);
    if (!inserted)
      return it->second;
    bool r = llvm::any_of(v.getDefiningOp()->getOperands(),
                          [&](Value o) { return readsInput(o); });
    reads[v] = r;
    return r;
  }

  Value emit(const py::tuple &node) {
    if (node.size() != 5)
      throw BuildError("malformed expression node in " + what);
    std::string op = py::cast<std::string>(node[0]);
    Location loc = location(node[4]);
    Type type = parseDtype(b.getContext(), py::cast<std::string>(node[1]));
    if (!type)
      fail(loc, "unknown dtype '" + py::cast<std::string>(node[1]) + "'");
    SmallVector<Value> operands;
    for (py::handle id : py::reinterpret_borrow<py::list>(node[2]))
      operands.push_back(value(py::cast<int64_t>(id)));
    py::handle attr = node[3];
    auto expectOperands = [&](size_t n) {
      if (operands.size() != n)
        fail(loc, "'" + op + "' takes " + std::to_string(n) + " operands");
    };
    auto checkType = [&](Value v) {
      if (v.getType() != type)
        fail(loc, "'" + op + "' makes " + typeName(v.getType()) +
                      " where " + typeName(type) + " was expected");
      return v;
    };

    if (op == "input" || op == "arg") {
      int64_t i = py::cast<int64_t>(attr);
      if (i < 0 || i >= static_cast<int64_t>(arguments.size()))
        fail(loc, "no argument #" + std::to_string(i) + " in " + what);
      return checkType(arguments[i]);
    }
    if (op == "index") {
      if (!isInt(type) && !isa<IndexType>(type))
        fail(loc, "an axis is an integer, not " + typeName(type));
      Value index =
          ext::IndexOp::create(b, loc, b.getIndexType(),
                               b.getStringAttr(py::cast<std::string>(attr)));
      return isa<IndexType>(type) ? index : cast(loc, index, type);
    }
    if (op == "const") {
      expectOperands(0);
      return constant(loc, type, attr);
    }
    if (op == "cast") {
      expectOperands(1);
      return cast(loc, operands[0], type);
    }
    if (op == "select") {
      expectOperands(3);
      if (!operands[0].getType().isInteger(1))
        fail(loc, "the condition of if_then_else must be a boolean, got " +
                      typeName(operands[0].getType()));
      if (operands[1].getType() != operands[2].getType())
        fail(loc, "the branches of if_then_else have types " +
                      typeName(operands[1].getType()) + " and " +
                      typeName(operands[2].getType()));
      // A branch that reads a tensor runs only when taken (TVM's
      // if_then_else as a guarded read): an scf.if, into whose branches
      // buildRegion then sinks what only they use, so the read of
      // `X[y - 1]` under `y >= 1` is never made at y = 0.
      if (readsInput(operands[1]) || readsInput(operands[2])) {
        auto ifOp = scf::IfOp::create(b, loc, TypeRange{type}, operands[0],
                                      /*withElseRegion=*/true);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        scf::YieldOp::create(b, loc, operands[1]);
        b.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(b, loc, operands[2]);
        return checkType(ifOp.getResult(0));
      }
      return checkType(arith::SelectOp::create(b, loc, operands[0],
                                               operands[1], operands[2]));
    }
    if (op == "cmp") {
      expectOperands(2);
      return checkType(compare(loc, py::cast<std::string>(attr), operands[0],
                               operands[1]));
    }
    if (operands.size() == 1)
      return checkType(unary(loc, op, operands[0]));
    if (operands.size() == 2)
      return checkType(binary(loc, op, operands[0], operands[1]));
    fail(loc, "unknown expression '" + op + "'");
  }

  OpBuilder &b;
  ArrayRef<Value> arguments;
  std::string what;
  SmallVector<Value> values;
};

/// An affine expression of the axes from ("axis", i) / ("const", c) /
/// (op, lhs, rhs) trees.
AffineExpr buildAffine(MLIRContext *ctx, const py::handle &h, unsigned numDims,
                       const std::string &where) {
  auto t = py::reinterpret_borrow<py::tuple>(h);
  std::string op = py::cast<std::string>(t[0]);
  if (op == "axis") {
    int64_t d = py::cast<int64_t>(t[1]);
    if (d < 0 || d >= numDims)
      throw BuildError(where + ": index names no axis of the compute");
    return getAffineDimExpr(d, ctx);
  }
  if (op == "const")
    return getAffineConstantExpr(py::cast<int64_t>(t[1]), ctx);
  AffineExpr lhs = buildAffine(ctx, t[1], numDims, where);
  AffineExpr rhs = buildAffine(ctx, t[2], numDims, where);
  if (op == "add")
    return lhs + rhs;
  if (op == "sub")
    return lhs - rhs;
  auto rc = dyn_cast<AffineConstantExpr>(rhs);
  auto lc = dyn_cast<AffineConstantExpr>(lhs);
  if (op == "mul") {
    if (!rc && !lc)
      throw BuildError(where + ": an index multiplies two axes; indices "
                               "must be affine in the axes");
    return lhs * rhs;
  }
  if (op == "floordiv" || op == "mod") {
    if (!rc || rc.getValue() <= 0)
      throw BuildError(where + ": an index divides by something other than "
                               "a positive constant");
    return op == "mod" ? lhs % rhs : lhs.floorDiv(rhs);
  }
  throw BuildError(where + ": '" + op + "' in an index is not affine");
}

/// Moves every side-effect-free op whose users all sit in one branch of an
/// scf.if into it (upstream's control-flow sinking, to a fixed point for
/// nested branches): the branch then alone reads the tensor elements it
/// uses.
void sinkIntoBranches(Region &region) {
  DominanceInfo dominance(region.getParentOp());
  size_t moved;
  do {
    SmallVector<Region *> regions;
    region.walk([&](scf::IfOp ifOp) {
      getSinglyExecutedRegionsToSink(
          cast<RegionBranchOpInterface>(ifOp.getOperation()), regions);
    });
    moved = controlFlowSink(
        regions, dominance,
        [](Operation *op, Region *) { return isMemoryEffectFree(op); },
        [](Operation *op, Region *into) {
          op->moveBefore(&into->front(), into->front().begin());
        });
  } while (moved != 0);
}

/// Fills `region` with one block of `argTypes` computing the expression
/// nodes of `desc`, ending in an ext.yield of values of `yieldTypes`.
void buildRegion(OpBuilder &b, Region &region, ArrayRef<Type> argTypes,
                 ArrayRef<Type> yieldTypes, const py::dict &desc,
                 const std::string &regionName, const std::string &where,
                 Location loc) {
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Location> locs(argTypes.size(), loc);
  Block *block = b.createBlock(&region, {}, argTypes, locs);
  SmallVector<Value> args(block->getArguments());
  ExpressionBuilder expressions(b, args, "the " + regionName + " of " + where);
  SmallVector<Value> yields = expressions.build(desc["nodes"], desc["yields"]);
  if (yields.size() != yieldTypes.size())
    throw BuildError(where + ": the " + regionName + " yields " +
                     std::to_string(yields.size()) + " values for " +
                     std::to_string(yieldTypes.size()) + " outputs");
  for (auto [i, y] : llvm::enumerate(yields))
    if (y.getType() != yieldTypes[i])
      throw BuildError(where + ": output #" + std::to_string(i) + " is " +
                       typeName(yieldTypes[i]) + " but the " + regionName +
                       "'s value is " + typeName(y.getType()));
  ext::YieldOp::create(b, loc, yields);
  sinkIntoBranches(region);
}

/// Makes the schedule (an Attribute from ext.schedule, or attribute text)
/// in the compute's context, attaches it and runs the compute's verifier:
/// its messages are reported at the schedule's line.
template <typename LocationOf>
void attachSchedule(ext::ComputeOp compute, const py::tuple &schedule,
                    const py::list &inputNames, LocationOf locationOf) {
  MLIRContext *ctx = compute->getContext();
  Location at = locationOf(schedule[1]);
  std::string where = describeLocation(at) + ": ";
  FirstDiagnostic diagnostic(ctx);
  Attribute attr =
      getAttribute(schedule[0], ctx, [&] { return emitError(at); });
  if (!attr)
    throw BuildError(where + "invalid schedule: " + diagnostic.message);
  auto scheduleAttr = dyn_cast<ext::ScheduleAttr>(attr);
  if (!scheduleAttr)
    throw BuildError(where + "not a schedule: " +
                     py::cast<std::string>(py::str(schedule[0])));
  compute.setScheduleAttr(scheduleAttr);
  if (succeeded(mlir::verify(compute)))
    return;
  // In the user's terms: no op name, and which tensor an input number is.
  std::string message = diagnostic.message;
  StringRef prefix = "'ext.compute' op schedule: ";
  if (StringRef(message).starts_with(prefix))
    message = message.substr(prefix.size());
  std::string inputs;
  for (auto [i, name] : llvm::enumerate(inputNames))
    inputs += (i ? ", #" : " (input #") + std::to_string(i) + " is " +
              py::cast<std::string>(name);
  if (!inputs.empty())
    inputs += ")";
  std::string name;
  if (auto nameLoc = dyn_cast<NameLoc>(compute->getLoc()))
    name = nameLoc.getName().str();
  throw BuildError(where + "invalid schedule for compute '" + name +
                   "': " + message + inputs);
}

} // namespace

OwningOpRef<ModuleOp> buildProgram(MLIRContext *ctx, const py::dict &program) {
  OpBuilder b(ctx);
  Location unknown = UnknownLoc::get(ctx);
  auto locationOf = [&](const py::handle &loc) -> Location {
    auto t = py::reinterpret_borrow<py::tuple>(loc);
    return FileLineColLoc::get(ctx, py::cast<std::string>(t[0]),
                               py::cast<unsigned>(t[1]), 0);
  };

  OwningOpRef<ModuleOp> module = ModuleOp::create(unknown);
  b.setInsertionPointToEnd(module->getBody());

  // Arguments: one memref per placeholder, output and intermediate; then
  // the function's own buffers (intermediates only fused consumers read).
  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  py::list args = program["args"];
  size_t numArgs = args.size();
  py::list tensors = args;
  if (program.contains("locals"))
    tensors = py::list(args + py::reinterpret_borrow<py::list>(program["locals"]));
  for (py::handle h : tensors) {
    auto arg = py::reinterpret_borrow<py::dict>(h);
    std::string name = py::cast<std::string>(arg["name"]);
    Location loc = NameLoc::get(b.getStringAttr(name), locationOf(arg["loc"]));
    Type element = parseDtype(ctx, py::cast<std::string>(arg["dtype"]));
    if (!element)
      throw BuildError(describeLocation(loc) + ": tensor '" + name +
                       "' has an unknown dtype");
    SmallVector<int64_t> shape;
    for (py::handle s : py::reinterpret_borrow<py::list>(arg["shape"])) {
      // None: a symbolic size (ext.var), a dynamic dimension.
      if (s.is_none()) {
        shape.push_back(ShapedType::kDynamic);
        continue;
      }
      int64_t extent = py::cast<int64_t>(s);
      if (extent <= 0)
        throw BuildError(describeLocation(loc) + ": tensor '" + name +
                         "' has extent " + std::to_string(extent) +
                         "; extents must be positive");
      shape.push_back(extent);
    }
    argTypes.push_back(MemRefType::get(shape, element));
    argLocs.push_back(loc);
  }

  std::string funcName = py::cast<std::string>(program["name"]);
  auto func = func::FuncOp::create(
      b, unknown, funcName,
      b.getFunctionType(ArrayRef(argTypes).take_front(numArgs), {}));
  Block *entry = func.addEntryBlock();
  for (auto [arg, loc] : llvm::zip(entry->getArguments(), argLocs))
    arg.setLoc(loc);
  b.setInsertionPointToEnd(entry);
  // Every tensor the computes name: the arguments, then the local buffers.
  SmallVector<Value> tensorValues(entry->getArguments());
  for (size_t i = numArgs; i < argTypes.size(); ++i) {
    // A symbolic dimension's size is read from the argument dimension that
    // has it: {"sizes": [None | (argument, dimension), ...]}.
    auto local = py::reinterpret_borrow<py::dict>(tensors[i]);
    SmallVector<Value> dynamicSizes;
    if (local.contains("sizes"))
      for (py::handle s : py::reinterpret_borrow<py::list>(local["sizes"])) {
        if (s.is_none())
          continue;
        auto source = py::reinterpret_borrow<py::tuple>(s);
        auto arg = py::cast<size_t>(source[0]);
        auto dim = py::cast<int64_t>(source[1]);
        if (arg >= numArgs ||
            dim >= cast<MemRefType>(argTypes[arg]).getRank())
          throw BuildError(describeLocation(argLocs[i]) +
                           ": a local buffer's size names no argument");
        dynamicSizes.push_back(memref::DimOp::create(
            b, argLocs[i], entry->getArgument(arg), dim));
      }
    auto type = cast<MemRefType>(argTypes[i]);
    if (dynamicSizes.size() != static_cast<size_t>(type.getNumDynamicDims()))
      throw BuildError(describeLocation(argLocs[i]) +
                       ": a local buffer's symbolic sizes are not all given");
    tensorValues.push_back(
        memref::AllocOp::create(b, argLocs[i], type, dynamicSizes));
  }

  for (py::handle h : py::reinterpret_borrow<py::list>(program["computes"])) {
    auto c = py::reinterpret_borrow<py::dict>(h);
    std::string name = py::cast<std::string>(c["name"]);
    Location loc = NameLoc::get(b.getStringAttr(name), locationOf(c["loc"]));
    std::string where = describeLocation(loc) + ": compute '" + name + "'";

    SmallVector<Attribute> axes;
    for (py::handle a : py::reinterpret_borrow<py::list>(c["axes"])) {
      auto t = py::reinterpret_borrow<py::tuple>(a);
      std::string kind = py::cast<std::string>(t[1]);
      int64_t extent =
          t[2].is_none() ? ShapedType::kDynamic : py::cast<int64_t>(t[2]);
      // Checked here, before the #ext.axis is built (its get asserts).
      if (py::cast<std::string>(t[0]).empty())
        throw BuildError(where + ": an axis has an empty name");
      if (extent <= 0 && !ShapedType::isDynamic(extent))
        throw BuildError(where + ": axis '" + py::cast<std::string>(t[0]) +
                         "' has extent " + std::to_string(extent) +
                         "; extents must be positive");
      // A symbolic size's divisibility fact (ext.var(..., multiple_of=m)).
      int64_t multipleOf = t.size() > 3 ? py::cast<int64_t>(t[3]) : 1;
      if (multipleOf < 1 ||
          (!ShapedType::isDynamic(extent) && extent % multipleOf != 0))
        throw BuildError(where + ": axis '" + py::cast<std::string>(t[0]) +
                         "' cannot be a multiple of " +
                         std::to_string(multipleOf));
      axes.push_back(ext::AxisAttr::get(
          ctx, py::cast<std::string>(t[0]),
          kind == "reduce" ? ext::AxisKind::reduce : ext::AxisKind::spatial,
          extent, multipleOf));
    }

    size_t numInputs = py::cast<size_t>(c["num_inputs"]);
    SmallVector<Value> inputs, outputs;
    SmallVector<Attribute> maps;
    size_t index = 0;
    for (py::handle o : py::reinterpret_borrow<py::list>(c["operands"])) {
      auto t = py::reinterpret_borrow<py::tuple>(o);
      int64_t arg = py::cast<int64_t>(t[0]);
      if (arg < 0 || arg >= static_cast<int64_t>(tensorValues.size()))
        throw BuildError(where + ": operand names no argument");
      Value v = tensorValues[arg];
      SmallVector<AffineExpr> exprs;
      for (py::handle e : py::reinterpret_borrow<py::list>(t[1]))
        exprs.push_back(buildAffine(ctx, e, axes.size(), where));
      if (exprs.size() !=
          static_cast<size_t>(cast<MemRefType>(v.getType()).getRank()))
        throw BuildError(where + ": an access has " +
                         std::to_string(exprs.size()) + " indices for a rank-" +
                         std::to_string(
                             cast<MemRefType>(v.getType()).getRank()) +
                         " tensor");
      maps.push_back(
          AffineMapAttr::get(AffineMap::get(axes.size(), 0, exprs, ctx)));
      (index++ < numInputs ? inputs : outputs).push_back(v);
    }

    ext::CombinerKindAttr combiner;
    if (!c["combiner"].is_none()) {
      std::optional<ext::CombinerKind> kind =
          ext::symbolizeCombinerKind(py::cast<std::string>(c["combiner"]));
      if (!kind)
        throw BuildError(where + ": unknown combiner");
      combiner = ext::CombinerKindAttr::get(ctx, *kind);
    }
    ArrayAttr identity;
    if (!c["identity"].is_none()) {
      SmallVector<Attribute> values;
      for (auto [i, v] : llvm::enumerate(
               py::reinterpret_borrow<py::list>(c["identity"]))) {
        auto t = py::reinterpret_borrow<py::tuple>(v);
        Type type = parseDtype(ctx, py::cast<std::string>(t[1]));
        if (auto ft = dyn_cast_or_null<FloatType>(type))
          values.push_back(b.getFloatAttr(ft, py::cast<double>(t[0])));
        else if (type && isInt(type))
          values.push_back(b.getIntegerAttr(type, py::cast<int64_t>(t[0])));
        else
          throw BuildError(where + ": identity #" + std::to_string(i) +
                           " has an unsupported type");
      }
      identity = b.getArrayAttr(values);
    }

    auto compute = ext::ComputeOp::create(
        b, loc, b.getArrayAttr(axes), inputs, outputs, b.getArrayAttr(maps),
        combiner, identity, ext::ScheduleAttr(), b.getStringAttr(name));

    // The body gets one element per input; the reducer the accumulated
    // values, then the new ones.
    SmallVector<Type> inputTypes, outputTypes;
    for (Value in : inputs)
      inputTypes.push_back(cast<MemRefType>(in.getType()).getElementType());
    for (Value out : outputs)
      outputTypes.push_back(cast<MemRefType>(out.getType()).getElementType());
    buildRegion(b, compute.getBody(), inputTypes, outputTypes,
                py::reinterpret_borrow<py::dict>(c["body"]), "body", where, loc);
    if (!c["reducer"].is_none()) {
      SmallVector<Type> reducerTypes(outputTypes);
      reducerTypes.append(outputTypes);
      buildRegion(b, compute.getReducer(), reducerTypes, outputTypes,
                  py::reinterpret_borrow<py::dict>(c["reducer"]), "reducer",
                  where, loc);
    }
    if (!c["schedule"].is_none())
      attachSchedule(compute, py::reinterpret_borrow<py::tuple>(c["schedule"]),
                     py::reinterpret_borrow<py::list>(c["input_names"]),
                     locationOf);
  }
  for (Value local : ArrayRef(tensorValues).drop_front(numArgs))
    memref::DeallocOp::create(b, unknown, local);
  func::ReturnOp::create(b, unknown);
  return module;
}

} // namespace ext::python
