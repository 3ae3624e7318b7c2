//===- Serialize.cpp - gpu.module to PTX / HSACO --------------------------===//
//
// Serialization goes through the target attribute's TargetAttrInterface
// (upstream's NVVM and ROCDL serializers, the same ones
// gpu-module-to-binary uses), one gpu.module at a time, so that the output
// is exactly one PTX file or one code object.
//
//===----------------------------------------------------------------------===//

#include "ext/Target/GPU/Serialize.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Support/InstallPaths.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

#ifndef EXT_ROCM_TOOLKIT_DIR
#define EXT_ROCM_TOOLKIT_DIR ""
#endif
#ifndef EXT_CUDA_TOOLKIT_DIR
#define EXT_CUDA_TOOLKIT_DIR ""
#endif

llvm::StringRef ext::getDefaultRocmToolkitPath() {
  // In the build tree, or beside the installed libraries.
  static const std::string path =
      ext::findNextToExtLibraries(EXT_ROCM_TOOLKIT_DIR);
  return path;
}

static llvm::StringRef kindName(ext::GPUBinaryKind kind) {
  return kind == ext::GPUBinaryKind::Ptx ? "PTX" : "HSACO";
}

void ext::useShortSharedPointers() {
  // NVPTX's `nvptx-short-ptr`: 32-bit pointers to shared (and const and
  // local) memory. A shared address is a 32-bit window offset, so 64-bit
  // pointers only add a high half to every shared address computation (two
  // integer instructions instead of one per address in a k-loop). Set once,
  // for the process: it is a codegen option of the NVPTX back end.
  static std::once_flag once;
  std::call_once(once, [] {
    auto &options = llvm::cl::getRegisteredOptions();
    auto it = options.find("nvptx-short-ptr");
    if (it == options.end())
      return;
    if (auto *flag = static_cast<llvm::cl::opt<bool> *>(it->second))
      flag->setValue(true);
  });
}

FailureOr<SmallVector<char, 0>>
ext::serializeGPUModule(gpu::GPUModuleOp module, GPUBinaryKind kind,
                        const SerializeOptions &options) {
  if (kind == GPUBinaryKind::Ptx)
    useShortSharedPointers();
  // The first target of the right kind; a module may carry several.
  Attribute target;
  if (ArrayAttr targets = module.getTargetsAttr())
    for (Attribute attr : targets) {
      if ((kind == GPUBinaryKind::Ptx && isa<NVVM::NVVMTargetAttr>(attr)) ||
          (kind == GPUBinaryKind::Hsaco && isa<ROCDL::ROCDLTargetAttr>(attr))) {
        target = attr;
        break;
      }
    }
  if (!target) {
    return module.emitError()
           << "gpu.module @" << module.getName() << " has no "
           << (kind == GPUBinaryKind::Ptx ? "#nvvm.target" : "#rocdl.target")
           << " to make " << kindName(kind) << " from; lower it with ext-opt "
           << "--ext-gpu-pipeline=\"target="
           << (kind == GPUBinaryKind::Ptx ? "nvvm" : "rocdl") << " chip=...\"";
  }
  auto serializer = dyn_cast<gpu::TargetAttrInterface>(target);
  if (!serializer)
    return module.emitError()
           << target << " cannot serialize: its target interface is not "
           << "registered in this tool";

  std::string toolkit = options.toolkitPath;
  if (toolkit.empty() && kind == GPUBinaryKind::Hsaco)
    toolkit = getDefaultRocmToolkitPath().str();
  // The CUDA root found at configure time, so kernels calling libdevice
  // (math.exp becomes __nv_expf) link it.
  if (toolkit.empty() && kind == GPUBinaryKind::Ptx)
    toolkit = EXT_CUDA_TOOLKIT_DIR;

  Operation *symbolTableOp = SymbolTable::getNearestSymbolTable(
      module->getParentOp() ? module->getParentOp() : module.getOperation());
  std::unique_ptr<SymbolTable> symbolTable;
  auto getSymbolTable = [&]() -> SymbolTable * {
    if (!symbolTable && symbolTableOp)
      symbolTable = std::make_unique<SymbolTable>(symbolTableOp);
    return symbolTable.get();
  };
  gpu::TargetOptions targetOptions(
      toolkit, /*librariesToLink=*/{}, /*cmdOptions=*/"", /*elfSection=*/"",
      kind == GPUBinaryKind::Ptx ? gpu::CompilationTarget::Assembly
                                 : gpu::CompilationTarget::Binary,
      getSymbolTable);
  std::optional<SmallVector<char, 0>> object =
      serializer.serializeToObject(module, targetOptions);
  if (!object)
    return module.emitError() << "could not serialize gpu.module @"
                              << module.getName() << " to "
                              << kindName(kind);
  if (object->empty())
    return module.emitError()
           << "serializing gpu.module @" << module.getName() << " to "
           << kindName(kind)
           << " produced nothing (is the back end built into LLVM?)";
  // PTX comes back NUL-terminated for the driver; the file is plain text.
  if (kind == GPUBinaryKind::Ptx)
    while (!object->empty() && object->back() == '\0')
      object->pop_back();
  return std::move(*object);
}

/// No gpu.module under `root`: says why, from what the input holds.
static LogicalResult reportNoKernel(Operation *root, ext::GPUBinaryKind kind) {
  Operation *launch = nullptr;
  ext::ComputeOp scheduled, unscheduled;
  root->walk([&](Operation *op) {
    if (isa<gpu::LaunchOp>(op) && !launch)
      launch = op;
    if (auto compute = dyn_cast<ext::ComputeOp>(op)) {
      if (compute.getScheduleAttr() && !scheduled)
        scheduled = compute;
      if (!compute.getScheduleAttr() && !unscheduled)
        unscheduled = compute;
    }
  });
  StringRef target = kind == ext::GPUBinaryKind::Ptx ? "nvvm" : "rocdl";
  if (launch || scheduled)
    return (launch ? launch : scheduled.getOperation())->emitError()
           << "this kernel has not been lowered: run ext-opt "
              "--ext-gpu-pipeline=\"target="
           << target << " chip=...\" first, then translate its output";
  if (unscheduled)
    return unscheduled.emitError()
           << "this ext.compute has no schedule, so it is not a GPU kernel "
              "and there is nothing to make "
           << kindName(kind) << " from: attach a #ext.schedule to it";
  return root->emitError()
         << "the input holds no GPU kernel to make " << kindName(kind)
         << " from: ext-gpu-pipeline makes a kernel of each scheduled "
            "ext.compute (and gpu.launch), and lowers an ext.compute without "
            "a schedule to loops in the host code (it names each one with a "
            "remark)";
}

/// The gpu.modules under `root` (the named one, when a name is given); an
/// error when there are none.
static FailureOr<SmallVector<gpu::GPUModuleOp>>
findGPUModules(Operation *root, ext::GPUBinaryKind kind,
               const ext::SerializeOptions &options) {
  SmallVector<gpu::GPUModuleOp> modules;
  root->walk([&](gpu::GPUModuleOp module) {
    if (options.moduleName.empty() || module.getName() == options.moduleName)
      modules.push_back(module);
  });
  if (modules.empty()) {
    if (!options.moduleName.empty())
      return root->emitError()
             << "no gpu.module named '" << options.moduleName << "'";
    (void)reportNoKernel(root, kind);
    return failure();
  }
  return modules;
}

FailureOr<SmallVector<char, 0>>
ext::serializeGPUModuleIn(Operation *root, GPUBinaryKind kind,
                          const SerializeOptions &options) {
  FailureOr<SmallVector<gpu::GPUModuleOp>> found =
      findGPUModules(root, kind, options);
  if (failed(found))
    return failure();
  SmallVector<gpu::GPUModuleOp> &modules = *found;
  if (modules.size() > 1) {
    InFlightDiagnostic diag = root->emitError()
                              << modules.size()
                              << " gpu.modules, but one " << kindName(kind)
                              << " output holds one; choose one with "
                                 "--ext-gpu-module=NAME or write them all "
                                 "with --ext-output-dir=DIR:";
    for (gpu::GPUModuleOp module : modules)
      diag << " @" << module.getName();
    return diag;
  }
  return serializeGPUModule(modules.front(), kind, options);
}

LogicalResult ext::serializeGPUModulesToDirectory(
    Operation *root, GPUBinaryKind kind, const SerializeOptions &options,
    llvm::StringRef directory, llvm::raw_ostream &listing) {
  FailureOr<SmallVector<gpu::GPUModuleOp>> found =
      findGPUModules(root, kind, options);
  if (failed(found))
    return failure();
  SmallVector<gpu::GPUModuleOp> &modules = *found;
  if (std::error_code error = llvm::sys::fs::create_directories(directory))
    return root->emitError() << "cannot create directory '" << directory
                             << "': " << error.message();
  // Every module is serialized before any file is written, so a failure
  // leaves no partial set behind.
  SmallVector<std::pair<std::string, SmallVector<char, 0>>> outputs;
  for (gpu::GPUModuleOp module : modules) {
    FailureOr<SmallVector<char, 0>> object =
        serializeGPUModule(module, kind, options);
    if (failed(object))
      return failure();
    SmallString<128> path(directory);
    llvm::sys::path::append(path, module.getName() +
                                      (kind == GPUBinaryKind::Ptx ? ".ptx"
                                                                  : ".hsaco"));
    outputs.emplace_back(path.str().str(), std::move(*object));
  }
  for (auto &[path, object] : outputs) {
    std::error_code error;
    llvm::raw_fd_ostream file(path, error,
                              kind == GPUBinaryKind::Ptx
                                  ? llvm::sys::fs::OF_Text
                                  : llvm::sys::fs::OF_None);
    if (error)
      return root->emitError()
             << "cannot write '" << path << "': " << error.message();
    file.write(object.data(), object.size());
    listing << path << "\n";
  }
  return success();
}

namespace {
struct TranslationOptions {
  llvm::cl::opt<std::string> moduleName{
      "ext-gpu-module",
      llvm::cl::desc("--ext-to-ptx/--ext-to-hsaco: the gpu.module to "
                     "serialize when there are several"),
      llvm::cl::init("")};
  llvm::cl::opt<std::string> rocmPath{
      "ext-rocm-path",
      llvm::cl::desc("--ext-to-hsaco: folder with amdgcn/bitcode and "
                     "llvm/bin/ld.lld (default: the one ext's build made)"),
      llvm::cl::init("")};
  llvm::cl::opt<std::string> outputDir{
      "ext-output-dir",
      llvm::cl::desc("--ext-to-ptx/--ext-to-hsaco: write every gpu.module "
                     "(or the one --ext-gpu-module names) to DIR/NAME.ptx or "
                     "DIR/NAME.hsaco, one per kernel, and list the files"),
      llvm::cl::value_desc("DIR"), llvm::cl::init("")};
  llvm::cl::opt<std::string> cudaPath{
      "ext-cuda-path",
      llvm::cl::desc("--ext-to-ptx: CUDA root whose nvvm/libdevice is "
                     "linked (default: upstream's detection)"),
      llvm::cl::init("")};
};

TranslationOptions &getTranslationOptions() {
  static TranslationOptions options;
  return options;
}

LogicalResult translate(Operation *op, llvm::raw_ostream &os,
                        ext::GPUBinaryKind kind) {
  TranslationOptions &cl = getTranslationOptions();
  ext::SerializeOptions options;
  options.moduleName = cl.moduleName;
  options.toolkitPath =
      kind == ext::GPUBinaryKind::Ptx ? cl.cudaPath : cl.rocmPath;
  if (!cl.outputDir.empty())
    return ext::serializeGPUModulesToDirectory(op, kind, options,
                                               cl.outputDir, os);
  FailureOr<SmallVector<char, 0>> object =
      ext::serializeGPUModuleIn(op, kind, options);
  if (failed(object))
    return failure();
  os.write(object->data(), object->size());
  return success();
}
} // namespace

void ext::registerGPUTranslations(
    std::function<void(DialectRegistry &)> registerDialects) {
  (void)getTranslationOptions();
  auto registry = [registerDialects](DialectRegistry &registry) {
    registerAllDialects(registry);
    registerAllExtensions(registry);
    registerAllToLLVMIRTranslations(registry);
    NVVM::registerNVVMTargetInterfaceExternalModels(registry);
    ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
    if (registerDialects)
      registerDialects(registry);
  };
  TranslateFromMLIRRegistration ptx(
      "ext-to-ptx",
      "serialize the #nvvm.target gpu.module (after ext-gpu-pipeline) to PTX",
      [](Operation *op, llvm::raw_ostream &os) {
        return translate(op, os, GPUBinaryKind::Ptx);
      },
      registry);
  TranslateFromMLIRRegistration hsaco(
      "ext-to-hsaco",
      "serialize the #rocdl.target gpu.module (after ext-gpu-pipeline) to an "
      "HSACO code object",
      [](Operation *op, llvm::raw_ostream &os) {
        return translate(op, os, GPUBinaryKind::Hsaco);
      },
      registry);
}
