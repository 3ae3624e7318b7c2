//===- ProgramBuilder.cpp - ext.compute ops from Python expression trees --===//

#include "ProgramBuilder.h"
#include "ExpressionBuilder.h"
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
      // Unsigned integers are signless; the operations carry the signedness.
      .Case("ui8", b.getI8Type())
      .Case("ui16", b.getI16Type())
      .Case("ui32", b.getI32Type())
      .Case("ui64", b.getI64Type())
      .Case("i4", b.getIntegerType(4))
      .Case("i2", b.getIntegerType(2))
      .Case("f8E4M3FN", b.getType<Float8E4M3FNType>())
      .Case("f8E5M2", b.getType<Float8E5M2Type>())
      .Case("f4E2M1FN", b.getType<Float4E2M1FNType>())
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
  // A table's element (an indirect read), bound by the compute's `indirect`.
  if (op == "sym") {
    int64_t s = py::cast<int64_t>(t[1]);
    if (s < 0)
      throw BuildError(where + ": a negative symbol");
    return getAffineSymbolExpr(s, ctx);
  }
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
  SmallVector<Value> yields =
      buildExpressions(b, args, desc["nodes"], desc["yields"],
                       "the " + regionName + " of " + where);
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
      unsigned numSymbols = 0;
      for (AffineExpr e : exprs)
        e.walk([&](AffineExpr s) {
          if (auto sym = dyn_cast<AffineSymbolExpr>(s))
            numSymbols = std::max(numSymbols, sym.getPosition() + 1);
        });
      maps.push_back(AffineMapAttr::get(
          AffineMap::get(axes.size(), numSymbols, exprs, ctx)));
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
        else if (type && type.isSignlessInteger())
          // An unsigned identity (255 for ui8's min) is its bits.
          values.push_back(b.getIntegerAttr(
              type, APInt(type.getIntOrFloatBitWidth(),
                          py::cast<int64_t>(t[0]), /*isSigned=*/true,
                          /*implicitTrunc=*/true)));
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
    // Indirect reads: (input, symbol, table) per symbol of an input's map.
    if (c.contains("indirect") && py::len(c["indirect"]) != 0) {
      SmallVector<Attribute> reads;
      for (py::handle r : py::reinterpret_borrow<py::list>(c["indirect"])) {
        auto t = py::reinterpret_borrow<py::tuple>(r);
        reads.push_back(ext::IndirectAttr::get(ctx, py::cast<int64_t>(t[0]),
                                               py::cast<int64_t>(t[1]),
                                               py::cast<int64_t>(t[2])));
      }
      compute.setIndirectAttr(b.getArrayAttr(reads));
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
