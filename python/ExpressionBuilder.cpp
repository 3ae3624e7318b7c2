//===- ExpressionBuilder.cpp - ext.compute bodies from Python expressions -===//
//
// One region's scalar code from the Python layer's expression nodes (see
// ExpressionBuilder.h). Unsigned integers are signless in the IR; a node's
// dtype ("ui8") says which operations its users take (arith.shrui, extui,
// uitofp, divui, cmpi ult), as upstream MLIR keeps signedness in the ops.
//
//===----------------------------------------------------------------------===//

#include "ExpressionBuilder.h"
#include "ProgramBuilder.h"

#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

namespace py = pybind11;
using namespace mlir;

namespace ext::python {

namespace {

bool isFloat(Type t) { return isa<FloatType>(t); }
bool isInt(Type t) { return t.isSignlessInteger(); }
/// The f8 and f4 formats, which LLVM has no types for.
bool isSmallFloat(Type t) {
  return isa<FloatType>(t) && t.getIntOrFloatBitWidth() <= 8;
}

/// Builds one region's expression nodes: every node is
/// (op, dtype, [operand ids], attr, (file, line)).
class ExpressionBuilder {
public:
  ExpressionBuilder(OpBuilder &b, ArrayRef<Value> arguments, StringRef what)
      : b(b), arguments(arguments), what(what.str()) {}

  /// Emits every node, returns the values of `yields`.
  SmallVector<Value> build(const py::list &nodes, const py::list &yields) {
    for (py::handle h : nodes) {
      auto node = py::reinterpret_borrow<py::tuple>(h);
      values.push_back(emit(node));
      // Unsigned integers are signless in the IR: the node's dtype keeps
      // the signedness its users' operations take.
      unsignedNodes.push_back(
          StringRef(py::cast<std::string>(node[1])).starts_with("ui"));
    }
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

  /// `value`'s bits in `width`, when it is in the signed (or unsigned)
  /// range of that width.
  static std::optional<APInt> integerBits(const py::int_ &value,
                                          unsigned width, bool isUnsigned) {
    try {
      if (isUnsigned && width > 1) {
        auto v = py::cast<uint64_t>(value);
        if (width < 64 && v >= (uint64_t(1) << width))
          return std::nullopt;
        return APInt(width, v);
      }
      auto v = py::cast<int64_t>(value);
      if (width == 1 ? (v != 0 && v != 1)
                     : (width < 64 && (v < -(int64_t(1) << (width - 1)) ||
                                       v >= (int64_t(1) << (width - 1)))))
        return std::nullopt;
      return APInt(width, v, /*isSigned=*/width > 1);
    } catch (const py::cast_error &) {
      return std::nullopt;
    }
  }

  Value constant(Location loc, Type type, const py::handle &attr,
                 bool isUnsigned) {
    if (auto ft = dyn_cast<FloatType>(type)) {
      double v = py::cast<double>(attr);
      return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(ft, v));
    }
    if (isInt(type)) {
      // Python ints are unbounded: out-of-range constants are an error, not
      // a silent wrap.
      py::int_ pyValue = py::reinterpret_borrow<py::object>(attr);
      unsigned width = type.getIntOrFloatBitWidth();
      std::optional<APInt> bits = integerBits(pyValue, width, isUnsigned);
      if (!bits)
        fail(loc, "constant " + py::cast<std::string>(py::str(pyValue)) +
                      " does not fit in " + (isUnsigned ? "u" : "") +
                      typeName(type));
      return arith::ConstantOp::create(b, loc, type,
                                       b.getIntegerAttr(type, *bits));
    }
    fail(loc, "no constant of type " + typeName(type));
  }

  /// `x` (unsigned when `fromUnsigned`) converted to `to` (unsigned when
  /// `toUnsigned`).
  Value cast(Location loc, Value x, Type to, bool fromUnsigned = false,
             bool toUnsigned = false) {
    Type from = x.getType();
    if (from == to)
      return x;
    // The f8/f4 formats convert to and from f32 only (the lowering expands
    // those two conversions into integer code): anything else goes by f32.
    Type f32 = b.getF32Type();
    if ((isSmallFloat(from) || isSmallFloat(to)) && from != f32 && to != f32)
      return cast(loc, cast(loc, x, f32, fromUnsigned), to, false,
                  toUnsigned);
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
        return fromUnsigned ? Value(arith::ExtUIOp::create(b, loc, to, x))
                            : Value(arith::ExtSIOp::create(b, loc, to, x));
      if (fw == tw)  // signed <-> unsigned of one width: the same bits
        return x;
      return arith::TruncIOp::create(b, loc, to, x);
    }
    if (isInt(from) && isFloat(to)) {
      if (from.getIntOrFloatBitWidth() == 1 || fromUnsigned)
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
      if (toUnsigned)
        return arith::FPToUIOp::create(b, loc, to, x);
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

  Value unary(Location loc, StringRef op, Value x, bool isUnsigned) {
    Type t = x.getType();
    if (isSmallFloat(t))
      fail(loc, "'" + op.str() + "' on " + typeName(t) +
                    ": the f8/f4 formats have no arithmetic; convert them "
                    "first");
    if (op == "abs" && isUnsigned)
      return x;
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

  Value binary(Location loc, StringRef op, Value x, Value y, bool isUnsigned) {
    Type t = x.getType();
    if (t != y.getType())
      fail(loc, "operands of '" + op.str() + "' have types " + typeName(t) +
                    " and " + typeName(y.getType()) +
                    "; cast one with .astype()");
    bool f = isFloat(t);
    if ((!f && !isInt(t)) || isSmallFloat(t))
      fail(loc, "'" + op.str() + "' on " + typeName(t));
    if (isUnsigned) {
      if (op == "floordiv")
        return arith::DivUIOp::create(b, loc, x, y);
      if (op == "mod")
        return arith::RemUIOp::create(b, loc, x, y);
      if (op == "min")
        return arith::MinUIOp::create(b, loc, x, y);
      if (op == "max")
        return arith::MaxUIOp::create(b, loc, x, y);
    }
    if (op == "shl" || op == "shr") {
      if (f)
        fail(loc, "shifts need integers, got " + typeName(t));
      if (op == "shl")
        return arith::ShLIOp::create(b, loc, x, y);
      // Logical for unsigned values, arithmetic (the sign copied) else.
      return isUnsigned ? Value(arith::ShRUIOp::create(b, loc, x, y))
                        : Value(arith::ShRSIOp::create(b, loc, x, y));
    }
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

  Value compare(Location loc, StringRef pred, Value x, Value y,
                bool isUnsigned) {
    Type t = x.getType();
    if (isSmallFloat(t))
      fail(loc, "cannot compare " + typeName(t) + " values; convert them "
                "first");
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
                 .Case("lt", isUnsigned ? arith::CmpIPredicate::ult
                                        : arith::CmpIPredicate::slt)
                 .Case("le", isUnsigned ? arith::CmpIPredicate::ule
                                        : arith::CmpIPredicate::sle)
                 .Case("gt", isUnsigned ? arith::CmpIPredicate::ugt
                                        : arith::CmpIPredicate::sgt)
                 .Case("ge", isUnsigned ? arith::CmpIPredicate::uge
                                        : arith::CmpIPredicate::sge)
                 .Case("eq", arith::CmpIPredicate::eq)
                 .Case("ne", arith::CmpIPredicate::ne)
                 .Default(std::nullopt);
    if (!p || !isInt(t))
      fail(loc, "cannot compare " + typeName(t) + " with '" + pred.str() +
                    "'");
    return arith::CmpIOp::create(b, loc, *p, x, y);
  }

  /// `table[index]` for a constant table: a tree of selects on the index's
  /// bits, low bit first (every target runs it; an index past the table
  /// picks its last entry, one past the bits a lower entry).
  Value lookup(Location loc, Type type, Value index, const py::handle &attr,
               bool isUnsigned) {
    Type it = index.getType();
    if (!isInt(it) || it.isInteger(1))
      fail(loc, "the index of a lookup is an integer, not " + typeName(it));
    auto table = py::reinterpret_borrow<py::sequence>(attr);
    size_t n = table.size();
    if (n == 0 || n > 256)
      fail(loc, "a lookup table has 1 to 256 entries, not " +
                    std::to_string(n));
    SmallVector<Value> level;
    for (py::handle entry : table)
      level.push_back(constant(loc, type, entry, isUnsigned));
    unsigned levels = llvm::Log2_64_Ceil(n);
    level.resize(size_t(1) << levels, level.back());
    unsigned width = it.getIntOrFloatBitWidth();
    Value zero = arith::ConstantOp::create(b, loc, it, b.getIntegerAttr(it, 0));
    for (unsigned bit = 0; bit < levels; ++bit) {
      SmallVector<Value> next;
      for (size_t j = 0; j + 1 < level.size(); j += 2) {
        if (bit >= width) {  // the index has no such bit: it is zero
          next.push_back(level[j]);
          continue;
        }
        Value mask = arith::ConstantOp::create(
            b, loc, it, b.getIntegerAttr(it, APInt::getOneBitSet(width, bit)));
        Value set = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ne,
            arith::AndIOp::create(b, loc, index, mask), zero);
        next.push_back(
            arith::SelectOp::create(b, loc, set, level[j + 1], level[j]));
      }
      level = std::move(next);
    }
    return level.front();
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
    SmallVector<bool> operandUnsigned;
    for (py::handle id : py::reinterpret_borrow<py::list>(node[2])) {
      operands.push_back(value(py::cast<int64_t>(id)));
      operandUnsigned.push_back(unsignedNodes[py::cast<int64_t>(id)]);
    }
    bool isUnsigned =
        StringRef(py::cast<std::string>(node[1])).starts_with("ui");
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
      return constant(loc, type, attr, isUnsigned);
    }
    if (op == "cast") {
      expectOperands(1);
      return cast(loc, operands[0], type, operandUnsigned[0], isUnsigned);
    }
    if (op == "bitcast") {
      expectOperands(1);
      Type from = operands[0].getType();
      if (from.isInteger(1) || type.isInteger(1) ||
          !from.isIntOrFloat() || !type.isIntOrFloat() ||
          from.getIntOrFloatBitWidth() != type.getIntOrFloatBitWidth())
        fail(loc, "cannot reinterpret " + typeName(from) + " as " +
                      typeName(type) + " (the widths must match)");
      return arith::BitcastOp::create(b, loc, type, operands[0]);
    }
    if (op == "lut") {
      expectOperands(1);
      return lookup(loc, type, operands[0], attr, isUnsigned);
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
                               operands[1], operandUnsigned[0]));
    }
    if (operands.size() == 1)
      return checkType(unary(loc, op, operands[0], operandUnsigned[0]));
    if (operands.size() == 2)
      return checkType(binary(loc, op, operands[0], operands[1],
                              operandUnsigned[0]));
    fail(loc, "unknown expression '" + op + "'");
  }

  OpBuilder &b;
  ArrayRef<Value> arguments;
  std::string what;
  SmallVector<Value> values;
  SmallVector<bool> unsignedNodes;
};

} // namespace

SmallVector<Value> buildExpressions(OpBuilder &b, ArrayRef<Value> arguments,
                                    const py::list &nodes,
                                    const py::list &yields, StringRef what) {
  return ExpressionBuilder(b, arguments, what).build(nodes, yields);
}

} // namespace ext::python
