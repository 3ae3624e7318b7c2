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

#include "ProgramBuilder.h"
#include "ScheduleBindings.h"

#include "ext/InitAll.h"
#include "ext/Pipelines/Pipelines.h"
#include "ext/Support/InstallPaths.h"
#include "ext/Support/ParserHazards.h"
#include "ext/Support/Plugins.h"
#include "ext/Target/GPU/Serialize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
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
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

namespace py = pybind11;
using namespace mlir;
using ext::python::BuildError;

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

/// A runtime library: next to this module in `_lib/` when ext is installed
/// (pip install .), else where the build tree put it.
std::string runtimeLibrary(llvm::StringRef buildPath) {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&runtimeLibrary), &info) &&
      info.dli_fname) {
    llvm::SmallString<256> path(llvm::sys::path::parent_path(info.dli_fname));
    llvm::sys::path::append(path, "_lib", llvm::sys::path::filename(buildPath));
    if (llvm::sys::fs::exists(path))
      return std::string(path);
  }
  // Installed with cmake --install: beside ext's libraries.
  return ext::findNextToExtLibraries(buildPath);
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
          for (Diagnostic &note : d.getNotes())
            os << "  " << ext::python::describeLocation(note.getLocation())
               << ": note: " << note << "\n";
          return success();
        }) {}
  std::string text;

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
/// ext-reuse-shared-memory has packed it.
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
      // host code allocates and zeroes it).
      workspace = 0;
      root->walk([&](gpu::LaunchOp launch) {
        if (auto bytes =
                launch->getAttrOfType<IntegerAttr>("ext.workspace_bytes"))
          workspace = std::max(workspace, bytes.getInt());
      });
    }
    if (argument == "ext-reuse-shared-memory") {
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
  /// The largest workspace of one launch, in bytes.
  int64_t workspace = 0;
};

/// An array passed as a memref: its descriptor, and the contiguous copy made
/// when the caller's layout is not the memref's.
struct PassedArray {
  py::array caller, passed;
  bool copyBack = false;
  std::vector<int64_t> descriptor;
};

bool elementMatches(Type e, const py::array &a) {
  char kind = a.dtype().kind();
  size_t size = a.itemsize();
  bool isInt = kind == 'i' || kind == 'u';
  return (e.isF16() && kind == 'f' && size == 2) ||
         // bf16: numpy has no bfloat16; raw bits as uint16 (or ml_dtypes').
         (e.isBF16() && size == 2 && (kind == 'u' || kind == 'V')) ||
         (e.isF32() && kind == 'f' && size == 4) ||
         (e.isF64() && kind == 'f' && size == 8) ||
         (e.isInteger(1) && kind == 'b' && size == 1) ||
         (e.isInteger(8) && isInt && size == 1) ||
         (e.isInteger(16) && isInt && size == 2) ||
         (e.isInteger(32) && isInt && size == 4) ||
         ((e.isInteger(64) || e.isIndex()) && kind == 'i' && size == 8);
}

/// Checks `a` against argument `i` of type `t` and makes its descriptor. A
/// memref with the identity layout needs C order: other layouts (Fortran,
/// sliced, negative strides) go through a contiguous copy, copied back
/// after the call; a memref with another layout must match the array's
/// strides exactly.
PassedArray passArray(py::handle object, MemRefType t, size_t i) {
  std::string where = "array #" + std::to_string(i);
  if (!py::isinstance<py::array>(object))
    throw py::type_error(where + " is not a numpy array");
  PassedArray p;
  p.caller = py::reinterpret_borrow<py::array>(object);
  py::array &a = p.caller;
  if (a.ndim() != t.getRank())
    throw py::value_error(where + " has rank " + std::to_string(a.ndim()) +
                          ", the memref " + std::to_string(t.getRank()));
  for (int64_t r = 0; r < t.getRank(); ++r)
    if (!t.isDynamicDim(r) && t.getDimSize(r) != a.shape(r))
      throw py::value_error(where + " dimension " + std::to_string(r) +
                            " is " + std::to_string(a.shape(r)) +
                            ", the memref's is " +
                            std::to_string(t.getDimSize(r)));
  if (!elementMatches(t.getElementType(), a)) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << t.getElementType();
    throw py::value_error(where + " has dtype " +
                          std::string(py::str(a.dtype())) +
                          ", which does not match the element type " + s);
  }
  if (!a.writeable())
    throw py::value_error(where + " is read-only");

  SmallVector<int64_t> layoutStrides;
  int64_t layoutOffset = 0;
  if (failed(t.getStridesAndOffset(layoutStrides, layoutOffset)))
    throw py::value_error(where + ": the memref's layout is not strided");
  bool cContiguous = a.flags() & py::array::c_style;
  p.passed = a;
  if (t.getLayout().isIdentity()) {
    if (!cContiguous) {
      p.passed = py::module_::import("numpy").attr("ascontiguousarray")(a);
      p.copyBack = true;
    }
  } else {
    for (int64_t r = 0; r < t.getRank(); ++r) {
      int64_t stride = a.strides(r) / static_cast<int64_t>(a.itemsize());
      if (a.strides(r) % a.itemsize() != 0 ||
          (!ShapedType::isDynamic(layoutStrides[r]) &&
           layoutStrides[r] != stride) ||
          stride < 0)
        throw py::value_error(where + " has strides that do not match the "
                                      "memref's layout");
    }
    if (layoutOffset != 0 && !ShapedType::isDynamic(layoutOffset))
      throw py::value_error(where + ": the memref's layout has an offset");
  }

  py::array &q = p.passed;
  std::vector<int64_t> &d = p.descriptor;
  d.resize(3 + 2 * t.getRank());
  void *data = q.mutable_data();
  std::memcpy(&d[0], &data, sizeof(void *));
  std::memcpy(&d[1], &data, sizeof(void *));
  d[2] = 0;
  for (int64_t r = 0; r < t.getRank(); ++r) {
    d[3 + r] = q.shape(r);
    d[3 + t.getRank() + r] = q.strides(r) / static_cast<int64_t>(q.itemsize());
  }
  return p;
}

/// The CUDA runtime library's control API (runtime/cuda/ExtCudaRuntime.cpp).
struct CudaRuntime {
  int (*init)(int, char *, size_t) = nullptr;
  int (*deviceInfo)(char *, size_t, int *, int *) = nullptr;
  int (*errorCount)() = nullptr;
};

/// Loads ext's CUDA runtime and the driver, or throws saying why not.
CudaRuntime &loadCudaRuntime(std::string &chip) {
  static CudaRuntime rt;
  static std::string error, deviceChip;
  static std::once_flag once;
  std::call_once(once, [] {
    // RTLD_GLOBAL: the JIT resolves mgpu* against this very copy.
    std::string path = runtimeLibrary(EXT_CUDA_RUNTIME_LIB);
    void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!library) {
      error = "cannot load ext's CUDA runtime library '" + path +
              "': " + dlerror();
      return;
    }
    rt.init = reinterpret_cast<decltype(rt.init)>(dlsym(library, "extCudaInit"));
    rt.deviceInfo = reinterpret_cast<decltype(rt.deviceInfo)>(
        dlsym(library, "extCudaDeviceInfo"));
    rt.errorCount = reinterpret_cast<decltype(rt.errorCount)>(
        dlsym(library, "extCudaErrorCount"));
    if (!rt.init || !rt.deviceInfo || !rt.errorCount) {
      error = "ext's CUDA runtime library lacks its extCuda* entry points";
      return;
    }
    char message[1024] = {0};
    if (rt.init(/*ordinal=*/0, message, sizeof(message)) != 0) {
      error = std::string("target='cuda' needs an NVIDIA GPU and its "
                          "driver: ") +
              message;
      return;
    }
    char name[256] = {0};
    int major = 0, minor = 0;
    if (rt.deviceInfo(name, sizeof(name), &major, &minor) == 0)
      deviceChip = "sm_" + std::to_string(major) + std::to_string(minor);
  });
  if (!error.empty())
    throw std::runtime_error(error);
  chip = deviceChip;
  return rt;
}

/// Sets an environment variable for the lifetime of the object, then puts
/// back what was there.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const std::string &value) : name(name) {
    if (value.empty())
      return;
    active = true;
    if (const char *old = std::getenv(name))
      previous = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (!active)
      return;
    if (previous)
      setenv(name, previous->c_str(), 1);
    else
      unsetenv(name);
  }

private:
  const char *name;
  bool active = false;
  std::optional<std::string> previous;
};

/// How a CPU executable drives ext's emulator around a run.
struct EmulatorControl {
  /// The lanes of the chip the emulated kernels stand for ("64" for AMD's
  /// waves, as ext-run --chip=gfx... sets it); empty for the default of 32.
  std::string warpSize;
  /// The runtime's __ext_emu_return_errors and __ext_emu_take_error: a
  /// failed launch becomes a Python exception instead of ending the
  /// interpreter. Null when the runtime lacks them (or on CUDA).
  void (*returnErrors)(int32_t) = nullptr;
  const char *(*takeError)() = nullptr;

  /// The entry points of the runtime library at `path`, which the execution
  /// engine has loaded.
  static EmulatorControl forLibrary(const std::string &path,
                                    std::string warpSize) {
    EmulatorControl c;
    c.warpSize = std::move(warpSize);
    if (void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
      c.returnErrors = reinterpret_cast<void (*)(int32_t)>(
          dlsym(handle, "__ext_emu_return_errors"));
      c.takeError = reinterpret_cast<const char *(*)()>(
          dlsym(handle, "__ext_emu_take_error"));
      if (!c.returnErrors || !c.takeError)
        c.returnErrors = nullptr, c.takeError = nullptr;
      dlclose(handle); // the engine keeps its own reference
    }
    return c;
  }
};

/// A function compiled once (CPU emulator or CUDA) and called many times.
class Executable {
public:
  Executable(std::unique_ptr<ExecutionEngine> engine, std::string entry,
             FunctionType type, bool cuda, EmulatorControl emulator)
      : engine(std::move(engine)), entry(std::move(entry)), type(type),
        cuda(cuda), emulator(std::move(emulator)) {}

  void call(const py::list &arrays) {
    if (type.getNumInputs() != arrays.size())
      throw py::value_error("@" + entry + " takes " +
                            std::to_string(type.getNumInputs()) +
                            " memrefs, got " + std::to_string(arrays.size()) +
                            " arrays");
    std::vector<PassedArray> passed;
    for (auto [i, t] : llvm::enumerate(type.getInputs()))
      passed.push_back(passArray(arrays[i], cast<MemRefType>(t), i));
    std::vector<void *> pointers, args;
    for (PassedArray &p : passed)
      pointers.push_back(p.descriptor.data());
    for (void *&p : pointers)
      args.push_back(&p);
    int errorsBefore = 0;
    std::string chip;
    if (cuda)
      errorsBefore = loadCudaRuntime(chip).errorCount();
    llvm::Error err = llvm::Error::success();
    std::string emulatorError;
    {
      // The emulator reads its configuration at each launch.
      ScopedEnv warp("EXT_EMU_WARP_SIZE", emulator.warpSize);
      py::gil_scoped_release release;
      if (emulator.returnErrors)
        emulator.returnErrors(1);
      err = engine->invokePacked("_mlir_ciface_" + entry, args);
      if (emulator.returnErrors) {
        if (const char *kept = emulator.takeError())
          emulatorError = kept;
        emulator.returnErrors(0);
      }
    }
    if (err)
      throw std::runtime_error("running @" + entry +
                               " failed: " + llvm::toString(std::move(err)));
    if (!emulatorError.empty())
      throw std::runtime_error("running @" + entry +
                               " on ext's emulator failed: " + emulatorError);
    if (cuda && loadCudaRuntime(chip).errorCount() != errorsBefore)
      throw std::runtime_error("running @" + entry +
                               " on the GPU: a CUDA driver call failed");
    for (PassedArray &p : passed)
      if (p.copyBack)
        p.caller[py::ellipsis()] = p.passed;
  }

private:
  std::unique_ptr<ExecutionEngine> engine;
  std::string entry;
  FunctionType type;
  bool cuda;
  EmulatorControl emulator;
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

  /// Lowers a copy for `target` (cpu, nvvm or rocdl) and returns what a
  /// kernel object shows: the IR after every pass, the PTX or HSACO of
  /// every gpu.module, each kernel's shared memory and the diagnostics.
  py::dict compile(const std::string &target, const std::string &chip,
                   const std::string &features, unsigned optLevel,
                   bool keepStages) {
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

    OwningOpRef<ModuleOp> lowered = module->clone();
    lowered->lookupSymbol<func::FuncOp>(entry)->setAttr(
        "llvm.emit_c_interface", UnitAttr::get(ctx->get()));
    DiagnosticCollector diags(ctx->get());
    PassManager pm(ctx->get());
    SmallVector<std::string> libs = {EXT_RUNNER_UTILS_LIB,
                                     EXT_C_RUNNER_UTILS_LIB};
    std::string emulationLib;
    bool cuda = target == "cuda";
    if (cuda) {
      std::string deviceChip;
      loadCudaRuntime(deviceChip);
      ext::GPUTarget requested;
      requested.chip = chip.empty() ? deviceChip : chip;
      std::string error;
      FailureOr<ext::GPUTarget> resolved =
          ext::resolveGPUTarget(requested, error);
      if (failed(resolved))
        throw py::value_error(error);
      ext::buildGPUHostPipeline(pm, *resolved, "isa", "");
      libs.push_back(runtimeLibrary(EXT_CUDA_RUNTIME_LIB));
    } else if (target == "cpu") {
      // The chip the emulated kernels stand for sizes persistent grids.
      ext::CpuPipelineOptions options;
      options.chip = chip;
      ext::buildCpuPipeline(pm, options);
      emulationLib = runtimeLibrary(EXT_CPU_EMULATION_LIB);
      libs.push_back(emulationLib);
    } else {
      throw py::value_error("unknown run target '" + target +
                            "' (expected cpu or cuda)");
    }
    if (failed(pm.run(*lowered)))
      throw std::runtime_error("lowering for target '" + target +
                               "' failed:\n" + diags.text);

    // ExecutionEngineOptions holds a function_ref: keep the callable alive.
    std::function<llvm::Error(llvm::Module *)> transformer =
        makeOptimizingTransformer(opt, 0, nullptr);
    ExecutionEngineOptions options;
    options.transformer = transformer;
    SmallVector<StringRef> libRefs(libs.begin(), libs.end());
    options.sharedLibPaths = libRefs;
    auto engine = ExecutionEngine::create(*lowered, options);
    if (!engine)
      throw std::runtime_error("could not compile: " +
                               llvm::toString(engine.takeError()) + "\n" +
                               diags.text);
    EmulatorControl emulator;
    if (!cuda)
      // An AMD chip's kernels run on the emulator in 64-lane waves.
      emulator = EmulatorControl::forLibrary(
          emulationLib, StringRef(chip).starts_with("gfx") ? "64" : "");
    return std::make_shared<Executable>(std::move(*engine), entry, type, cuda,
                                        std::move(emulator));
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
  ext::python::bindSchedules(m);
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
      .def("run_pipeline", &ModuleHandle::runPipeline, py::arg("pipeline"),
           "Run a textual pass pipeline (anchored on the module) in place")
      .def("compile", &ModuleHandle::compile, py::arg("target"),
           py::arg("chip") = "", py::arg("features") = "", py::arg("opt") = 2,
           py::arg("keep_stages") = true,
           "Lower a copy for cpu, nvvm or rocdl: stages, binaries, shared "
           "memory per kernel")
      .def("executable", &ModuleHandle::executable, py::arg("entry"),
           py::arg("target") = "cpu", py::arg("opt") = 2, py::arg("chip") = "",
           "Compile `entry` once for calls with numpy arrays")
      .def("run_cpu", &ModuleHandle::runCpu, py::arg("entry"), py::arg("arrays"),
           py::arg("opt") = 2,
           "Lower a copy with ext-cpu-pipeline and call `entry` with numpy "
           "arrays as its memref arguments (any layout: arrays that are not "
           "C-contiguous go through a copy, copied back after the call)");
}
