//===- Serialize.cpp - gpu.module to PTX / HSACO --------------------------===//
//
// Serialization goes through the target attribute's TargetAttrInterface
// (upstream's NVVM and ROCDL serializers, the same ones
// gpu-module-to-binary uses), one gpu.module at a time, so that the output
// is exactly one PTX file or one code object.
//
//===----------------------------------------------------------------------===//

#include "ext/Target/GPU/Serialize.h"
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
#include "llvm/Support/raw_ostream.h"

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

FailureOr<SmallVector<char, 0>>
ext::serializeGPUModule(gpu::GPUModuleOp module, GPUBinaryKind kind,
                        const SerializeOptions &options) {
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

FailureOr<SmallVector<char, 0>>
ext::serializeGPUModuleIn(Operation *root, GPUBinaryKind kind,
                          const SerializeOptions &options) {
  SmallVector<gpu::GPUModuleOp> modules;
  root->walk([&](gpu::GPUModuleOp module) {
    if (options.moduleName.empty() || module.getName() == options.moduleName)
      modules.push_back(module);
  });
  if (modules.empty()) {
    if (!options.moduleName.empty())
      return root->emitError()
             << "no gpu.module named '" << options.moduleName << "'";
    return root->emitError()
           << "no gpu.module to make " << kindName(kind)
           << " from; lower gpu.launch kernels with ext-opt "
              "--ext-gpu-pipeline first";
  }
  if (modules.size() > 1) {
    InFlightDiagnostic diag = root->emitError()
                              << modules.size()
                              << " gpu.modules, but one " << kindName(kind)
                              << " output holds one; choose with "
                                 "--ext-gpu-module=NAME:";
    for (gpu::GPUModuleOp module : modules)
      diag << " @" << module.getName();
    return diag;
  }
  return serializeGPUModule(modules.front(), kind, options);
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
