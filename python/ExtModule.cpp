//===- ExtModule.cpp - ext's Python extension module ----------------------===//
//
// The C++ half of `import ext`: parse and print modules, run pass pipelines,
// and run a function on the CPU with numpy arrays as its memref arguments.
// Errors become Python exceptions carrying MLIR's diagnostics.
//
//===----------------------------------------------------------------------===//

#include "ext/InitAll.h"
#include "ext/Pipelines/Pipelines.h"
#include "ext/Support/ParserHazards.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/TargetSelect.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>

namespace py = pybind11;
using namespace mlir;

namespace {

void registerEverythingOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    mlir::registerAllPasses();
    ext::registerAllPasses();
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// Collects the diagnostics emitted while it is alive, as text.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &d) {
          llvm::raw_string_ostream os(text);
          os << d.getLocation() << ": " << d << "\n";
          for (Diagnostic &note : d.getNotes())
            os << "  " << note.getLocation() << ": note: " << note << "\n";
          return success();
        }) {}
  std::string text;

private:
  ScopedDiagnosticHandler handler;
};

class ContextHandle {
public:
  ContextHandle() {
    registerEverythingOnce();
    DialectRegistry registry;
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    mlir::registerAllToLLVMIRTranslations(registry);
    ext::registerAllDialects(registry);
    context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
    // Diagnostics become exception text: the message, not an op dump.
    context->printOpOnDiagnostic(false);
  }
  MLIRContext *get() { return context.get(); }

private:
  std::unique_ptr<MLIRContext> context;
};

class ModuleHandle {
public:
  ModuleHandle(std::shared_ptr<ContextHandle> ctx, OwningOpRef<ModuleOp> module)
      : ctx(std::move(ctx)), module(std::move(module)) {}

  static ModuleHandle parse(std::shared_ptr<ContextHandle> ctx,
                        const std::string &text) {
    // Text the installed parser crashes on (it would take Python down).
    if (std::optional<ext::ParserHazard> hazard = ext::findParserHazard(text)) {
      StringRef before = StringRef(text).take_front(hazard->offset);
      throw py::value_error("could not parse the module: line " +
                            std::to_string(before.count('\n') + 1) + ": " +
                            hazard->message);
    }
    DiagnosticCollector diags(ctx->get());
    OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(text, ctx->get());
    if (!m)
      throw py::value_error("could not parse the module:\n" + diags.text);
    return ModuleHandle(std::move(ctx), std::move(m));
  }

  std::string str() {
    std::string s;
    llvm::raw_string_ostream os(s);
    module->print(os);
    return s;
  }

  void runPipeline(const std::string &pipeline) {
    DiagnosticCollector diags(ctx->get());
    PassManager pm(ctx->get());
    std::string errors;
    llvm::raw_string_ostream errorStream(errors);
    if (failed(parsePassPipeline(pipeline, pm, errorStream)))
      throw py::value_error("bad pipeline '" + pipeline + "': " + errors);
    if (failed(pm.run(*module)))
      throw std::runtime_error("pipeline '" + pipeline + "' failed:\n" +
                               diags.text);
  }

  /// Lowers with ext-cpu-pipeline and calls `entry` with the arrays as its
  /// memref arguments (outputs are written in place).
  void runCpu(const std::string &entry, const py::list &arrays, unsigned opt) {
    auto func = module->lookupSymbol<func::FuncOp>(entry);
    if (!func || func.isExternal())
      throw py::value_error("no func.func @" + entry + " with a body");
    auto type = func.getFunctionType();
    if (type.getNumResults() != 0)
      throw py::value_error("@" + entry + " must return nothing");
    if (type.getNumInputs() != arrays.size())
      throw py::value_error("@" + entry + " takes " +
                            std::to_string(type.getNumInputs()) +
                            " memrefs, got " + std::to_string(arrays.size()) +
                            " arrays");

    // Descriptors: {allocated, aligned, offset, sizes[r], strides[r]}.
    std::vector<std::vector<int64_t>> descriptors;
    std::vector<py::array> keep;
    for (auto [i, t] : llvm::enumerate(type.getInputs())) {
      auto memref = dyn_cast<MemRefType>(t);
      if (!memref)
        throw py::value_error("argument #" + std::to_string(i) +
                              " of @" + entry + " is not a memref");
      py::array a = py::reinterpret_borrow<py::array>(arrays[i]);
      checkArray(a, memref, i);
      keep.push_back(a);
      std::vector<int64_t> d(3 + 2 * memref.getRank());
      void *data = a.mutable_data();
      std::memcpy(&d[0], &data, sizeof(void *));
      std::memcpy(&d[1], &data, sizeof(void *));
      d[2] = 0;
      for (int64_t r = 0; r < memref.getRank(); ++r) {
        d[3 + r] = a.shape(r);
        d[3 + memref.getRank() + r] = a.strides(r) / a.itemsize();
      }
      descriptors.push_back(std::move(d));
    }

    // A private copy to lower, with the C interface on the entry point.
    OwningOpRef<ModuleOp> lowered = module->clone();
    lowered->lookupSymbol<func::FuncOp>(entry)->setAttr(
        "llvm.emit_c_interface", UnitAttr::get(ctx->get()));
    DiagnosticCollector diags(ctx->get());
    PassManager pm(ctx->get());
    ext::buildCpuPipeline(pm, ext::CpuPipelineOptions());
    if (failed(pm.run(*lowered)))
      throw std::runtime_error("ext-cpu-pipeline failed:\n" + diags.text);

    // ExecutionEngineOptions holds a function_ref: keep the callable alive.
    std::function<llvm::Error(llvm::Module *)> transformer =
        makeOptimizingTransformer(opt, 0, nullptr);
    ExecutionEngineOptions options;
    options.transformer = transformer;
    SmallVector<StringRef> libs = {EXT_RUNNER_UTILS_LIB, EXT_C_RUNNER_UTILS_LIB,
                                   EXT_CPU_EMULATION_LIB};
    options.sharedLibPaths = libs;
    auto engine = ExecutionEngine::create(*lowered, options);
    if (!engine)
      throw std::runtime_error("could not compile: " +
                               llvm::toString(engine.takeError()) + "\n" +
                               diags.text);
    std::vector<void *> pointers, args;
    for (auto &d : descriptors)
      pointers.push_back(d.data());
    for (void *&p : pointers)
      args.push_back(&p);
    llvm::MutableArrayRef<void *> argRef(args);
    if (llvm::Error err =
            (*engine)->invokePacked("_mlir_ciface_" + entry, argRef))
      throw std::runtime_error("running @" + entry +
                               " failed: " + llvm::toString(std::move(err)));
  }

private:
  static void checkArray(py::array &a, MemRefType t, size_t i) {
    std::string where = "array #" + std::to_string(i);
    if (a.ndim() != t.getRank())
      throw py::value_error(where + " has rank " + std::to_string(a.ndim()) +
                            ", the memref " + std::to_string(t.getRank()));
    for (int64_t r = 0; r < t.getRank(); ++r) {
      if (!t.isDynamicDim(r) && t.getDimSize(r) != a.shape(r))
        throw py::value_error(where + " dimension " + std::to_string(r) +
                              " is " + std::to_string(a.shape(r)) +
                              ", the memref's is " +
                              std::to_string(t.getDimSize(r)));
      if (a.strides(r) % a.itemsize() != 0)
        throw py::value_error(where + " has strides that are not a multiple "
                                      "of its element size");
    }
    Type e = t.getElementType();
    char kind = a.dtype().kind();
    size_t size = a.itemsize();
    bool ok = (e.isF16() && kind == 'f' && size == 2) ||
              (e.isF32() && kind == 'f' && size == 4) ||
              (e.isF64() && kind == 'f' && size == 8) ||
              (e.isInteger(8) && (kind == 'i' || kind == 'u') && size == 1) ||
              (e.isInteger(16) && (kind == 'i' || kind == 'u') && size == 2) ||
              (e.isInteger(32) && (kind == 'i' || kind == 'u') && size == 4) ||
              ((e.isInteger(64) || e.isIndex()) && kind == 'i' && size == 8);
    if (!ok) {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << e;
      throw py::value_error(where + " has dtype " +
                            std::string(py::str(a.dtype())) +
                            ", which does not match the element type " + s);
    }
    if (!a.writeable())
      throw py::value_error(where + " is read-only");
  }

  std::shared_ptr<ContextHandle> ctx;
  OwningOpRef<ModuleOp> module;
};

} // namespace

PYBIND11_MODULE(_ext, m) {
  m.doc() = "ext: TVM-style scheduling for MLIR (C++ core)";
  py::class_<ContextHandle, std::shared_ptr<ContextHandle>>(m, "Context")
      .def(py::init<>());
  py::class_<ModuleHandle>(m, "Module")
      .def_static("parse", &ModuleHandle::parse, py::arg("context"),
                  py::arg("text"), "Parse and verify MLIR text")
      .def("__str__", &ModuleHandle::str)
      .def("run_pipeline", &ModuleHandle::runPipeline, py::arg("pipeline"),
           "Run a textual pass pipeline (anchored on the module) in place")
      .def("run_cpu", &ModuleHandle::runCpu, py::arg("entry"), py::arg("arrays"),
           py::arg("opt") = 2,
           "Lower a copy with ext-cpu-pipeline and call `entry` with numpy "
           "arrays as its memref arguments");
}
