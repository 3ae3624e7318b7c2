//===- ExtModule.cpp - ext's Python extension module ----------------------===//
//
// The C++ half of `import ext`: build modules from the Python layer's
// program descriptions (ProgramBuilder), parse and print them, run pass
// pipelines, compile them for the CPU, NVVM (PTX) or ROCDL (HSACO) keeping
// the IR after every pass, and run functions on the CPU emulator or a CUDA
// device with numpy arrays as their memref arguments. Errors become Python
// exceptions carrying MLIR's diagnostics, located at the user's lines.
//
//===----------------------------------------------------------------------===//

#include "ComputeQueries.h"
#include "ModelBindings.h"
#include "ProgramBuilder.h"
#include "ScheduleBindings.h"

#include "ext/GPU/Transforms/Passes.h"
#include "ext/InitAll.h"
#include "ext/Pipelines/Pipelines.h"
#include "ext/Runner/Executable.h"
#include "ext/Runner/RuntimeLibraries.h"
#include "ext/Support/ParserHazards.h"
#include "ext/Support/Plugins.h"
#include "ext/Support/ReportSvg.h"
#include "ext/Target/GPU/Serialize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace py = pybind11;
using namespace mlir;
using ext::python::BuildError;
namespace runner = ext::runner;

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

/// Collects the diagnostics emitted while it is alive, as text:
/// `file:line: error: message`.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &d) {
          llvm::raw_string_ostream os(text);
          auto severity = [](DiagnosticSeverity s) {
            switch (s) {
            case DiagnosticSeverity::Error:
              return "error";
            case DiagnosticSeverity::Warning:
              return "warning";
            case DiagnosticSeverity::Remark:
              return "remark";
            case DiagnosticSeverity::Note:
              return "note";
            }
            return "error";
          };
          os << ext::python::describeLocation(d.getLocation()) << ": "
             << severity(d.getSeverity()) << ": " << d << "\n";
          std::string message = d.str();
          for (Diagnostic &note : d.getNotes()) {
            os << "  " << ext::python::describeLocation(note.getLocation())
               << ": note: " << note << "\n";
            message += "\n  note: " + note.str();
          }
          // Warnings and remarks go to Python's warnings at the user's line.
          if (d.getSeverity() == DiagnosticSeverity::Warning ||
              d.getSeverity() == DiagnosticSeverity::Remark) {
            auto [file, line] = sourceLine(d.getLocation());
            messages.push_back(
                {severity(d.getSeverity()), file, line, std::move(message)});
          }
          return success();
        }) {}
  std::string text;
  /// (severity, file, line, message) of each warning and remark; file is
  /// empty where the location names none.
  struct Message {
    std::string severity, file;
    unsigned line;
    std::string text;
  };
  std::vector<Message> messages;

  py::list messageList() const {
    py::list out;
    for (const Message &m : messages)
      out.append(py::make_tuple(m.severity, m.file, m.line, m.text));
    return out;
  }

private:
  /// The first file and line inside `loc` (a NameLoc naming a schedule's
  /// phase, a fused or call-site location).
  static std::pair<std::string, unsigned> sourceLine(Location loc) {
    std::pair<std::string, unsigned> found = {"", 0};
    loc->walk([&](Location inner) {
      if (auto file = dyn_cast<FileLineColLoc>(inner)) {
        found = {file.getFilename().str(), file.getLine()};
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return found;
  }

private:
  ScopedDiagnosticHandler handler;
};

/// The dialects of plugins loaded with load_plugin, and the live contexts:
/// a plugin's dialects reach every context, older ones included.
DialectRegistry &pluginDialects() {
  static DialectRegistry registry;
  return registry;
}
std::set<MLIRContext *> &liveContexts() {
  static std::set<MLIRContext *> contexts;
  return contexts;
}

class ContextHandle {
public:
  ContextHandle() {
    registerEverythingOnce();
    DialectRegistry registry;
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    mlir::registerAllToLLVMIRTranslations(registry);
    ext::registerAllDialects(registry);
    pluginDialects().appendTo(registry);
    context = std::make_unique<MLIRContext>(registry);
    liveContexts().insert(context.get());
    context->loadAllAvailableDialects();
    // Diagnostics become exception text: the message, not an op dump.
    context->printOpOnDiagnostic(false);
    // Stage snapshots print the module between passes: one thread.
    context->disableMultithreading();
  }
  ~ContextHandle() { liveContexts().erase(context.get()); }
  MLIRContext *get() { return context.get(); }

  static std::shared_ptr<ContextHandle> getDefault() {
    static std::shared_ptr<ContextHandle> context =
        std::make_shared<ContextHandle>();
    return context;
  }

private:
  std::unique_ptr<MLIRContext> context;
};

/// ext.load_plugin: checks the plugin's ext version, registers its passes
/// and adds its dialects to every context. Loading a file twice is a no-op.
void loadPlugin(const std::string &path) {
  registerEverythingOnce();
  static llvm::StringSet<> loaded;
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(path, real))
    throw py::import_error("no plugin file '" + path + "'");
  if (loaded.contains(real))
    return;
  DialectRegistry registry;
  if (llvm::Error err = ext::loadPlugin(real, registry))
    throw py::import_error(llvm::toString(std::move(err)));
  loaded.insert(real);
  registry.appendTo(pluginDialects());
  for (MLIRContext *context : liveContexts())
    context->appendDialectRegistry(registry);
}

std::string print(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

/// Records the module after every pass, under the pass' argument name (a
/// repeated pass as `name#2`, ...), and each kernel's shared memory once
/// ext-gpu-reuse-shared-memory has packed it.
class StageRecorder : public PassInstrumentation {
public:
  StageRecorder(Operation *root, bool keepStages,
                std::vector<std::pair<std::string, std::string>> &stages,
                std::vector<std::pair<std::string, int64_t>> &sharedMemory)
      : root(root), keepStages(keepStages), stages(stages),
        sharedMemory(sharedMemory) {}

  void runAfterPass(Pass *pass, Operation *) override {
    llvm::StringRef argument = pass->getArgument();
    if (argument.empty()) // pass managers' adaptors
      return;
    if (argument == "ext-kernel-to-gpu") {
      // The global workspace each launch's decomposition asked for (the
      // host code allocates and zeroes it); -1 if one is sized at launch.
      workspace = 0;
      root->walk([&](gpu::LaunchOp launch) {
        if (auto bytes =
                launch->getAttrOfType<IntegerAttr>("ext.workspace_bytes"))
          workspace = workspace < 0 || bytes.getInt() < 0
                          ? -1
                          : std::max(workspace, bytes.getInt());
      });
    }
    if (argument == "ext-gpu-reuse-shared-memory") {
      sharedMemory.clear();
      root->walk([&](func::FuncOp func) {
        unsigned n = 0;
        func->walk([&](gpu::LaunchOp launch) {
          ++n;
          if (auto bytes = launch->getAttrOfType<IntegerAttr>(
                  "ext.shared_memory_bytes"))
            sharedMemory.emplace_back("@" + func.getName().str() +
                                          " launch #" + std::to_string(n),
                                      bytes.getInt());
        });
      });
    }
    if (!keepStages)
      return;
    std::string name = argument.str();
    unsigned count = ++seen[name];
    if (count > 1)
      name += "#" + std::to_string(count);
    stages.emplace_back(name, print(root));
  }

private:
  Operation *root;
  bool keepStages;
  std::vector<std::pair<std::string, std::string>> &stages;
  std::vector<std::pair<std::string, int64_t>> &sharedMemory;
  llvm::StringMap<unsigned> seen;

public:
  /// The largest workspace of one launch, in bytes (-1: sized at launch).
  int64_t workspace = 0;
};

/// An array passed as a memref: its descriptor, and the contiguous copy made
/// when the caller's layout is not the memref's.
struct PassedArray {
  py::array caller, passed;
  bool copyBack = false;
  runner::MemRefDescriptor descriptor;
};

/// Checks `object` as argument `i` of type `t` (ext/Runner/MemRefDescriptor.h
/// says which arrays fit) and makes its descriptor.
PassedArray passArray(py::handle object, MemRefType t, size_t i) {
  std::string where = "array #" + std::to_string(i);
  if (!py::isinstance<py::array>(object))
    throw py::type_error(where + " is not a numpy array");
  PassedArray p;
  p.caller = p.passed = py::reinterpret_borrow<py::array>(object);
  py::array &a = p.caller;
  runner::HostBuffer buffer;
  buffer.kind = a.dtype().kind();
  buffer.elementBytes = a.itemsize();
  buffer.elementName = py::str(a.dtype());
  buffer.shape.assign(a.shape(), a.shape() + a.ndim());
  buffer.byteStrides.assign(a.strides(), a.strides() + a.ndim());
  buffer.writable = a.writeable();
  buffer.cContiguous = a.flags() & py::array::c_style;
  llvm::Expected<runner::Passing> passing =
      runner::checkBuffer(buffer, t, where);
  if (!passing)
    throw py::value_error(llvm::toString(passing.takeError()));
  if (*passing == runner::Passing::ContiguousCopy) {
    p.passed = py::module_::import("numpy").attr("ascontiguousarray")(a);
    p.copyBack = true;
  }
  py::array &q = p.passed;
  p.descriptor = runner::MemRefDescriptor::get(
      q.mutable_data(), llvm::ArrayRef(q.shape(), q.ndim()),
      llvm::ArrayRef(q.strides(), q.ndim()), q.itemsize());
  return p;
}

/// A function compiled once (CPU emulator or CUDA) and called many times.
class Executable {
public:
  Executable(std::unique_ptr<runner::Executable> executable, std::string entry,
             FunctionType type, runner::CallOptions options)
      : executable(std::move(executable)), entry(std::move(entry)),
        type(type), options(std::move(options)) {}

  void call(const py::list &arrays) {
    if (type.getNumInputs() != arrays.size())
      throw py::value_error("@" + entry + " takes " +
                            std::to_string(type.getNumInputs()) +
                            " memrefs, got " + std::to_string(arrays.size()) +
                            " arrays");
    std::vector<PassedArray> passed;
    for (auto [i, t] : llvm::enumerate(type.getInputs()))
      passed.push_back(passArray(arrays[i], cast<MemRefType>(t), i));
    SmallVector<runner::MemRefDescriptor> descriptors;
    for (PassedArray &p : passed)
      descriptors.push_back(p.descriptor);
    // Other Python threads run meanwhile, their calls with their options.
    llvm::Error err = [&] {
      py::gil_scoped_release release;
      return executable->call(entry, descriptors, options);
    }();
    if (err)
      throw std::runtime_error(llvm::toString(std::move(err)));
    for (PassedArray &p : passed)
      if (p.copyBack)
        p.caller[py::ellipsis()] = p.passed;
  }

private:
  std::unique_ptr<runner::Executable> executable;
  std::string entry;
  FunctionType type;
  runner::CallOptions options;
};

class ModuleHandle {
public:
  ModuleHandle(std::shared_ptr<ContextHandle> ctx, OwningOpRef<ModuleOp> module)
      : ctx(std::move(ctx)), module(std::move(module)) {}

  static ModuleHandle parse(std::shared_ptr<ContextHandle> ctx,
                            const std::string &text) {
    if (!ctx)
      ctx = ContextHandle::getDefault();
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

  static ModuleHandle build(std::shared_ptr<ContextHandle> ctx,
                            const py::dict &program) {
    if (!ctx)
      ctx = ContextHandle::getDefault();
    DiagnosticCollector diags(ctx->get());
    OwningOpRef<ModuleOp> m;
    try {
      m = ext::python::buildProgram(ctx->get(), program);
    } catch (const BuildError &e) {
      throw py::value_error(e.what());
    }
    if (failed(mlir::verify(*m)))
      throw py::value_error(diags.text);
    return ModuleHandle(std::move(ctx), std::move(m));
  }

  std::string str() { return print(*module); }

  std::string toString(bool locations) {
    std::string s;
    llvm::raw_string_ostream os(s);
    OpPrintingFlags flags;
    if (locations)
      flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    module->print(os, flags);
    return s;
  }

  ModuleHandle clone() { return ModuleHandle(ctx, module->clone()); }

  py::list computes() { return ext::python::describeComputes(*module); }

  /// A copy with compute #`index` of @`function` scheduled by `schedule` (a
  /// typed attribute or its text; "": every compute of the function without
  /// a schedule).
  ModuleHandle withSchedule(const std::string &function, int64_t index,
                            const py::object &schedule) {
    ModuleHandle copy = clone();
    ext::python::setComputeSchedule(*copy.module, function, index, schedule);
    return copy;
  }

  /// A copy with @`function`'s computes at other extents.
  ModuleHandle resized(const std::string &function,
                       const std::map<std::string, int64_t> &extents) {
    ModuleHandle copy = clone();
    ext::python::resizeComputes(*copy.module, function, extents);
    return copy;
  }

  /// Returns the warnings and remarks the passes emitted, as
  /// (severity, file, line, text) tuples (a report pass's findings).
  py::list runPipeline(const std::string &pipeline) {
    DiagnosticCollector diags(ctx->get());
    // Anchored text (`builtin.module(...)`, as ext-opt --pass-pipeline takes)
    // runs on the module itself; a manager anchored on `any` would nest it
    // and look for modules inside this one, silently running nothing.
    StringRef text = StringRef(pipeline).ltrim();
    StringRef moduleName = ModuleOp::getOperationName();
    bool anchored = text.starts_with((moduleName + "(").str());
    PassManager pm(ctx->get(),
                   anchored ? moduleName : PassManager::getAnyOpAnchorName());
    std::string errors;
    llvm::raw_string_ostream errorStream(errors);
    if (anchored) {
      FailureOr<OpPassManager> parsed = parsePassPipeline(text, errorStream);
      if (failed(parsed))
        throw py::value_error("bad pipeline '" + pipeline + "': " + errors);
      static_cast<OpPassManager &>(pm) = *parsed;
    } else if (failed(parsePassPipeline(pipeline, pm, errorStream))) {
      throw py::value_error("bad pipeline '" + pipeline + "': " + errors);
    }
    if (failed(pm.run(*module)))
      throw std::runtime_error("pipeline '" + pipeline + "' failed:\n" +
                               diags.text);
    return diags.messageList();
  }

  /// Lowers a copy for `target` (cpu, nvvm or rocdl) and returns what a
  /// kernel object shows: the IR after every pass, the PTX or HSACO of
  /// every gpu.module, each kernel's shared memory and the diagnostics.
  py::dict compile(const std::string &target, const std::string &chip,
                   const std::string &features, unsigned optLevel,
                   bool keepStages, const std::string &svgDir) {
    // Kernel.plot: the passes draw their plans and packings there.
    std::optional<ext::ScopedReportSvgDirectory> svgs;
    if (!svgDir.empty())
      svgs.emplace(svgDir);
    OwningOpRef<ModuleOp> lowered = module->clone();
    DiagnosticCollector diags(ctx->get());
    PassManager pm(ctx->get());
    std::vector<std::pair<std::string, std::string>> stages;
    std::vector<std::pair<std::string, int64_t>> sharedMemory;
    stages.emplace_back("input", print(*lowered));
    auto recorder = std::make_unique<StageRecorder>(
        lowered->getOperation(), keepStages, stages, sharedMemory);
    StageRecorder *recorded = recorder.get();
    pm.addInstrumentation(std::move(recorder));
    py::dict result;
    bool gpu = target == "nvvm" || target == "rocdl";
    if (gpu) {
      ext::GPUTarget requested;
      requested.target = target;
      requested.chip = chip;
      requested.features = features;
      requested.optLevel = optLevel;
      std::string error;
      FailureOr<ext::GPUTarget> resolved =
          ext::resolveGPUTarget(requested, error);
      if (failed(resolved))
        throw py::value_error(error);
      ext::buildGPUPipeline(pm, *resolved);
      result["chip"] = resolved->chip;
    } else if (target == "cpu") {
      // The chip the emulated kernels stand for sizes persistent grids.
      ext::CpuPipelineOptions options;
      options.chip = chip;
      // A compute without a schedule runs as loops on the host: say so
      // (a remark, an ext.ExtRemark in Python).
      pm.addPass(ext::createExtGPUReportHostComputes());
      ext::buildCpuPipeline(pm, options);
      if (!chip.empty())
        result["chip"] = chip;
    } else {
      throw py::value_error("unknown target '" + target +
                            "' (expected cpu, nvvm or rocdl)");
    }
    if (failed(pm.run(*lowered)))
      throw std::runtime_error("compiling for " + target + " failed:\n" +
                               diags.text);
    py::list stageList;
    for (auto &[name, text] : stages)
      stageList.append(py::make_tuple(name, text));
    result["stages"] = stageList;
    py::list svgList;
    if (svgs)
      for (const std::string &path : svgs->written())
        svgList.append(path);
    result["svgs"] = svgList;
    py::dict shared;
    for (auto &[kernel, bytes] : sharedMemory)
      shared[py::str(kernel)] = bytes;
    result["shared_memory"] = shared;
    result["workspace"] = recorded->workspace;
    py::dict binaries;
    if (gpu) {
      ext::GPUBinaryKind kind = target == "nvvm" ? ext::GPUBinaryKind::Ptx
                                                 : ext::GPUBinaryKind::Hsaco;
      for (auto m : lowered->getOps<gpu::GPUModuleOp>()) {
        FailureOr<SmallVector<char, 0>> binary =
            ext::serializeGPUModule(m, kind, ext::SerializeOptions());
        if (failed(binary))
          throw std::runtime_error("serializing gpu.module @" +
                                   m.getName().str() + " failed:\n" +
                                   diags.text);
        binaries[py::str(m.getName().str())] =
            py::bytes(binary->data(), binary->size());
      }
    }
    result["binaries"] = binaries;
    result["diagnostics"] = diags.text;
    result["messages"] = diags.messageList();
    return result;
  }

  /// Compiles `entry` for calling with numpy arrays: on the CPU
  /// (ext-cpu-pipeline, GPU kernels on the emulator) or a CUDA device.
  std::shared_ptr<Executable> executable(const std::string &entry,
                                         const std::string &target,
                                         unsigned opt, const std::string &chip) {
    auto func = module->lookupSymbol<func::FuncOp>(entry);
    if (!func || func.isExternal())
      throw py::value_error("no func.func @" + entry + " with a body");
    FunctionType type = func.getFunctionType();
    if (type.getNumResults() != 0)
      throw py::value_error("@" + entry + " must return nothing");
    for (auto [i, t] : llvm::enumerate(type.getInputs()))
      if (!isa<MemRefType>(t))
        throw py::value_error("argument #" + std::to_string(i) + " of @" +
                              entry + " is not a memref");

    runner::CompileOptions options;
    options.optLevel = opt;
    runner::CallOptions call;
    if (target == "cuda") {
      const runner::CudaRuntime &cuda = runner::getCudaRuntime();
      if (!cuda.loadError.empty())
        throw std::runtime_error(cuda.loadError);
      if (!cuda.deviceError.empty())
        throw std::runtime_error(
            "target='cuda' needs an NVIDIA GPU and its driver: " +
            cuda.deviceError);
      options.target = runner::Target::Cuda;
      options.cudaChip = chip;
    } else if (target == "cpu") {
      // The chip the emulated kernels stand for sizes persistent grids, and
      // an AMD chip's run on the emulator in 64-lane waves (below: the
      // chip, else the module's #ext.target).
      options.cpu.chip = chip;
    } else {
      throw py::value_error("unknown run target '" + target +
                            "' (expected cpu or cuda)");
    }
    if (options.target == runner::Target::Cpu)
      call.emulator = runner::emulatorOptionsFor(*module, options);
    OwningOpRef<ModuleOp> lowered = module->clone();
    DiagnosticCollector diags(ctx->get());
    std::string error;
    if (failed(runner::lower(*lowered, options, error))) {
      if (!error.empty())
        throw py::value_error(error);
      throw std::runtime_error("lowering for target '" + target +
                               "' failed:\n" + diags.text);
    }
    auto executable = runner::Executable::create(*lowered, options);
    if (!executable)
      throw std::runtime_error("could not compile: " +
                               llvm::toString(executable.takeError()) + "\n" +
                               diags.text);
    return std::make_shared<Executable>(std::move(*executable), entry, type,
                                        std::move(call));
  }

  /// Lowers with ext-cpu-pipeline and calls `entry` with the arrays as its
  /// memref arguments (outputs are written in place).
  void runCpu(const std::string &entry, const py::list &arrays, unsigned opt) {
    // Arguments are checked before the (slow) compilation.
    auto func = module->lookupSymbol<func::FuncOp>(entry);
    if (func && !func.isExternal() &&
        func.getFunctionType().getNumInputs() == arrays.size())
      for (auto [i, t] : llvm::enumerate(func.getFunctionType().getInputs()))
        if (auto memref = dyn_cast<MemRefType>(t))
          passArray(arrays[i], memref, i);
    executable(entry, "cpu", opt, "")->call(arrays);
  }

private:
  std::shared_ptr<ContextHandle> ctx;
  OwningOpRef<ModuleOp> module;
};

} // namespace

PYBIND11_MODULE(_ext, m) {
  m.doc() = "ext: TVM-style scheduling for MLIR (C++ core)";
  ext::python::bindModel(m);
  ext::python::bindSchedules(m);
  m.def("cuda_device", [] {
        const runner::CudaRuntime &cuda = runner::getCudaRuntime();
        py::dict d;
        d["available"] = cuda.isReady();
        d["name"] = cuda.deviceName;
        d["chip"] = cuda.chip;
        d["error"] = cuda.loadError.empty() ? cuda.deviceError : cuda.loadError;
        return d;
      }, "CUDA device 0 as the runner (ext-run --target=cuda, Kernel.run) "
         "finds it: available, name, chip (sm_NN), error (why not: no "
         "driver, no device); the driver is probed once per process");
  m.def("load_plugin", &loadPlugin, py::arg("path"),
        "Load a dialect and/or pass plugin built against this ext: its passes\n"
        "are registered and its dialects reach every Context. ImportError if\n"
        "it cannot be loaded or was built against another ext version.\n\n"
        ">>> ext.load_plugin(\"ExtExamplePlugin.so\")  # doctest: +SKIP");
  py::class_<ContextHandle, std::shared_ptr<ContextHandle>>(m, "Context")
      .def(py::init<>())
      .def_static("default", &ContextHandle::getDefault,
                  "The context ext uses when none is given");
  py::class_<Executable, std::shared_ptr<Executable>>(m, "Executable")
      .def("__call__", &Executable::call, py::arg("arrays"),
           "Call the function with numpy arrays as its memref arguments");
  py::class_<ModuleHandle>(m, "Module")
      .def_static(
          "parse",
          [](const std::string &text) {
            return ModuleHandle::parse(nullptr, text);
          },
          py::arg("text"),
          "Parse and verify MLIR text in ext's default context.\n\n"
          "    >>> m = ext.Module.parse('func.func @f() { return }')")
      .def_static("parse", &ModuleHandle::parse, py::arg("context"),
                  py::arg("text"), "Parse and verify MLIR text")
      .def_static("build", &ModuleHandle::build, py::arg("context"),
                  py::arg("program"),
                  "Build a module from a program description (ext.te)")
      .def("__str__", &ModuleHandle::str)
      .def("to_string", &ModuleHandle::toString, py::arg("locations") = false,
           "The module as MLIR text; with locations=True each op's location "
           "(for built computes, the Python file and line that wrote it).\n\n"
           "    >>> print(kernel.module.to_string(locations=True))")
      .def("clone", &ModuleHandle::clone, "A deep copy")
      .def("computes", &ModuleHandle::computes,
           "Every ext.compute: function, index, name, axes, operands (dtype, "
           "shape, the axes each dimension reads, argument, producer), "
           "combiner, whether it is a product of two reads, schedule")
      .def("with_schedule", &ModuleHandle::withSchedule, py::arg("function"),
           py::arg("index"), py::arg("schedule"),
           "A copy with compute #index of @function scheduled by the "
           "#ext.schedule (an ext._ext.schedules.Attribute, or its text; "
           "\"\": every schedule of the function removed), verified")
      .def("resized", &ModuleHandle::resized, py::arg("function"),
           py::arg("extents"),
           "A copy with @function's axes named in `extents` at those sizes "
           "and its memrefs to match, verified")
      .def("run_pipeline", &ModuleHandle::runPipeline, py::arg("pipeline"),
           "Run a textual pass pipeline (anchored on the module) in place; "
           "returns its warnings and remarks as (severity, file, line, "
           "text)")
      .def("compile", &ModuleHandle::compile, py::arg("target"),
           py::arg("chip") = "", py::arg("features") = "", py::arg("opt") = 2,
           py::arg("keep_stages") = true, py::arg("svg_dir") = "",
           "Lower a copy for cpu, nvvm or rocdl: stages, binaries, shared "
           "memory per kernel; with `svg_dir`, pictures of the decomposition "
           "plans and shared-memory packings written there (`svgs`)")
      .def("executable", &ModuleHandle::executable, py::arg("entry"),
           py::arg("target") = "cpu", py::arg("opt") = 2, py::arg("chip") = "",
           "Compile `entry` once for calls with numpy arrays")
      .def("run_cpu", &ModuleHandle::runCpu, py::arg("entry"), py::arg("arrays"),
           py::arg("opt") = 2,
           "Lower a copy with ext-cpu-pipeline and call `entry` with numpy "
           "arrays as its memref arguments (any layout: arrays that are not "
           "C-contiguous go through a copy, copied back after the call)");
}
