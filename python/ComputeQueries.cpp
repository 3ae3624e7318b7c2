//===- ComputeQueries.cpp - what Python's tuner reads of MLIR computes ----===//

#include "ComputeQueries.h"
#include "ProgramBuilder.h"
#include "ScheduleBindings.h"

#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"

#include <pybind11/stl.h>

namespace py = pybind11;
using namespace mlir;

namespace {

/// The compute ops of @name, in order; throws if there is no such function.
SmallVector<ext::ComputeOp> computesOf(ModuleOp module, StringRef name,
                                       func::FuncOp *funcOut = nullptr) {
  auto func = module.lookupSymbol<func::FuncOp>(name);
  if (!func || func.isExternal())
    throw py::value_error("no func.func @" + name.str() + " with a body");
  if (funcOut)
    *funcOut = func;
  SmallVector<ext::ComputeOp> computes;
  func.walk([&](ext::ComputeOp c) { computes.push_back(c); });
  return computes;
}

/// The value read or cast from a block argument of `body`, or null.
BlockArgument readOf(Value v, Block &body) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp, arith::SIToFPOp>(
            def))
      return {};
    v = def->getOperand(0);
  }
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner() == &body ? arg : BlockArgument();
}

/// C = sum of A * B: the body yields a product of two reads.
bool isProductOfTwoReads(ext::ComputeOp c) {
  if (!c.getCombiner() || *c.getCombiner() != ext::CombinerKind::sum)
    return false;
  Block &body = c.getBody().front();
  auto yield = cast<ext::YieldOp>(body.getTerminator());
  if (yield.getValues().size() != 1)
    return false;
  Operation *mul = yield.getValues()[0].getDefiningOp();
  if (!isa_and_nonnull<arith::MulFOp, arith::MulIOp>(mul))
    return false;
  return readOf(mul->getOperand(0), body) && readOf(mul->getOperand(1), body);
}

/// Verifies `module`, throwing the diagnostics as a ValueError.
void verifyOrThrow(ModuleOp module, const std::string &what) {
  std::string errors;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
    llvm::raw_string_ostream os(errors);
    os << d << "\n";
    return success();
  });
  if (failed(verify(module)))
    throw py::value_error(what + ": " + errors);
}

} // namespace

py::list ext::python::describeComputes(ModuleOp module) {
  py::list out;
  module.walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    SmallVector<ext::ComputeOp> computes;
    func.walk([&](ext::ComputeOp c) { computes.push_back(c); });
    DenseMap<Value, int64_t> writer;
    // Operands reading the same memref share a `value` number.
    DenseMap<Value, int64_t> valueIds;
    for (auto [i, c] : llvm::enumerate(computes)) {
      py::dict d;
      d["function"] = func.getName().str();
      d["index"] = i;
      d["name"] = c.getName() ? py::object(py::str(c.getName()->str()))
                              : py::object(py::none());
      py::list axes;
      for (ext::AxisAttr a : c.getAxisList())
        axes.append(py::make_tuple(
            a.getName().str(), a.isReduce() ? "reduce" : "spatial",
            a.getExtent() == ShapedType::kDynamic
                ? py::object(py::none())
                : py::object(py::int_(a.getExtent()))));
      d["axes"] = axes;
      py::list operands;
      SmallVector<AffineMap> maps = c.getMaps();
      SmallVector<Value> values(c.getInputs());
      llvm::append_range(values, c.getOutputs());
      for (auto [v, map] : llvm::zip(values, maps)) {
        py::dict o;
        auto type = cast<MemRefType>(v.getType());
        o["dtype"] = ext::python::typeName(type.getElementType());
        o["shape"] = std::vector<int64_t>(type.getShape());
        py::list dims;
        bool window = false;
        for (AffineExpr e : map.getResults()) {
          std::vector<int64_t> positions;
          e.walk([&](AffineExpr x) {
            if (auto dim = dyn_cast<AffineDimExpr>(x))
              if (!llvm::is_contained(positions, dim.getPosition()))
                positions.push_back(dim.getPosition());
          });
          llvm::sort(positions);
          window |= positions.size() > 1;
          dims.append(py::cast(positions));
        }
        o["dims"] = dims;
        o["window"] = window;
        auto arg = dyn_cast<BlockArgument>(v);
        o["arg"] = arg && arg.getOwner() == &func.getBody().front()
                       ? int64_t(arg.getArgNumber())
                       : int64_t(-1);
        o["value"] = valueIds.try_emplace(v, valueIds.size()).first->second;
        auto w = writer.find(v);
        o["producer"] = w == writer.end() ? int64_t(-1) : w->second;
        operands.append(o);
      }
      d["operands"] = operands;
      d["num_inputs"] = c.getInputs().size();
      d["combiner"] = c.getCombiner()
                          ? py::object(py::str(
                                ext::stringifyCombinerKind(*c.getCombiner())
                                    .str()))
                          : py::object(py::none());
      d["product"] = isProductOfTwoReads(c);
      d["schedule"] = py::none();
      if (ext::ScheduleAttr s = c.getScheduleAttr()) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << Attribute(s);
        d["schedule"] = text;
      }
      out.append(d);
      for (Value o : c.getOutputs())
        writer[o] = i;
    }
  });
  return out;
}

void ext::python::setComputeSchedule(ModuleOp module,
                                     const std::string &function,
                                     int64_t index,
                                     const py::handle &schedule) {
  SmallVector<ext::ComputeOp> computes = computesOf(module, function);
  if (py::isinstance<py::str>(schedule) &&
      schedule.cast<std::string>().empty()) {
    for (ext::ComputeOp c : computes)
      c.removeScheduleAttr();
    return verifyOrThrow(module, "without schedules");
  }
  if (index < 0 || index >= int64_t(computes.size()))
    throw py::value_error("@" + function + " has " +
                          std::to_string(computes.size()) +
                          " computes; there is no compute #" +
                          std::to_string(index));
  std::string errors, text = py::str(schedule).cast<std::string>();
  Attribute attr;
  {
    ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
      llvm::raw_string_ostream os(errors);
      os << d << "\n";
      return success();
    });
    // A typed attribute (ext._ext.schedules) is made in the module's
    // context; text is parsed there.
    MLIRContext *ctx = module.getContext();
    attr = getAttribute(schedule, ctx,
                        [&] { return mlir::emitError(UnknownLoc::get(ctx)); });
  }
  auto s = dyn_cast_or_null<ext::ScheduleAttr>(attr);
  if (!s)
    throw py::value_error("not an #ext.schedule: " + text + "\n" + errors);
  computes[index].setScheduleAttr(s);
  verifyOrThrow(module, "compute #" + std::to_string(index) + " of @" +
                            function + " with " + text);
}

void ext::python::resizeComputes(
    ModuleOp module, const std::string &function,
    const std::map<std::string, int64_t> &extents) {
  // Checked before any #ext.axis is built from them.
  for (const auto &[axis, extent] : extents)
    if (extent < 1)
      throw py::value_error("cannot resize: axis '" + axis + "' to extent " +
                            std::to_string(extent) +
                            "; extents must be positive");
  func::FuncOp func;
  SmallVector<ext::ComputeOp> computes = computesOf(module, function, &func);
  // Other functions may call this one with its old types: the copy keeps
  // only the function and the functions it calls.
  llvm::StringSet<> callees;
  func.walk([&](func::CallOp call) { callees.insert(call.getCallee()); });
  for (auto other : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (other != func && !callees.contains(other.getName()))
      other.erase();
  llvm::MapVector<Value, SmallVector<int64_t>> shapes;
  for (auto [index, c] : llvm::enumerate(computes)) {
    SmallVector<ext::AxisAttr> axes = c.getAxisList();
    // "N.axis" names axis `axis` of compute #N alone, "axis" it in every
    // compute.
    auto lookup = [&, index = index](StringRef name) {
      auto it = extents.find(std::to_string(index) + "." + name.str());
      return it != extents.end() ? it : extents.find(name.str());
    };
    SmallVector<Attribute> resized;
    for (ext::AxisAttr a : axes) {
      auto it = lookup(a.getName());
      resized.push_back(it == extents.end()
                            ? a
                            : ext::AxisAttr::get(c.getContext(), a.getName(),
                                                 a.getKind(), it->second));
    }
    SmallVector<Value> values(c.getInputs());
    llvm::append_range(values, c.getOutputs());
    for (auto [v, map] : llvm::zip(values, c.getMaps())) {
      auto type = cast<MemRefType>(v.getType());
      auto [entry, fresh] = shapes.try_emplace(v, type.getShape());
      for (auto [d, e] : llvm::enumerate(map.getResults())) {
        auto dim = dyn_cast<AffineDimExpr>(e);
        bool touches = false;
        e.walk([&](AffineExpr x) {
          if (auto xd = dyn_cast<AffineDimExpr>(x))
            touches |= lookup(axes[xd.getPosition()].getName()) !=
                       extents.end();
        });
        if (!touches)
          continue;
        if (!dim)
          throw py::value_error(
              "cannot resize: dimension #" + std::to_string(d) +
              " of an operand of compute #" + std::to_string(index) +
              " reads a resized axis through more than the axis alone");
        int64_t size = lookup(axes[dim.getPosition()].getName())->second;
        int64_t &slot = entry->second[d];
        if (slot != type.getShape()[d] && slot != size)
          throw py::value_error("cannot resize: a memref dimension would be "
                                "both " + std::to_string(slot) + " and " +
                                std::to_string(size));
        slot = size;
      }
    }
    c.setAxesAttr(ArrayAttr::get(c.getContext(), resized));
  }
  for (auto &[v, shape] : shapes) {
    auto type = cast<MemRefType>(v.getType());
    if (llvm::equal(shape, type.getShape()))
      continue;
    if (!type.getLayout().isIdentity())
      throw py::value_error("cannot resize a memref with a layout: " +
                            ext::python::typeName(type));
    auto fresh = MemRefType::get(shape, type.getElementType(), nullptr,
                                 type.getMemorySpace());
    if (auto arg = dyn_cast<BlockArgument>(v);
        arg && arg.getOwner() == &func.getBody().front())
      arg.setType(fresh);
    else if (isa_and_nonnull<memref::AllocOp>(v.getDefiningOp()))
      v.setType(fresh);
    else
      throw py::value_error("cannot resize " + ext::python::typeName(type) +
                            ": not a function argument or a memref.alloc");
  }
  func.setFunctionType(FunctionType::get(
      module.getContext(), func.getBody().front().getArgumentTypes(),
      func.getResultTypes()));
  verifyOrThrow(module, "resized");
}
