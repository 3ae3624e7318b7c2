//===- GPUPipeline.cpp - ext-gpu-pipeline and ext-gpu-host-pipeline -------===//
//
// Upstream gpu IR (gpu.launch or outlined gpu.module/gpu.func, workgroup
// memref.allocs, barriers, shuffles, scf, arith, math, memref) lowered to the
// NVVM or ROCDL flavour of the LLVM dialect inside target-attached
// gpu.modules. Serialization is left to `ext-translate --ext-to-ptx /
// --ext-to-hsaco` or to `gpu-module-to-binary`, so the IR after the pipeline
// can be inspected and tested, and one lowering serves PTX, cubin and HSACO.
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/Transforms/Passes.h"
#include "ext/GPU/Transforms/Passes.h"
#include "ext/Pipelines/Pipelines.h"
#include "ext/Model/Chip.h"
#include "ext/Target/GPU/Serialize.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/OptimizeForNVVM.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>

using namespace mlir;
using ext::ChipInfo;
using ext::kDefaultAmdChip;
using ext::kDefaultChip;
using ext::lookupChipInfo;

namespace {

constexpr llvm::StringLiteral kNvvmTriple = "nvptx64-nvidia-cuda";
constexpr llvm::StringLiteral kRocdlTriple = "amdgcn-amd-amdhsa";

/// Whether LLVM's back end for `triple` knows processor `chip`. Asking the
/// subtarget table (rather than a list of our own) keeps the check in step
/// with the installed LLVM.
bool isKnownProcessor(llvm::StringRef triple, llvm::StringRef chip) {
  static const bool initialized = [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargetMCs();
    return true;
  }();
  (void)initialized;
  std::string error;
  llvm::Triple parsed(triple);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(parsed, error);
  if (!target)
    return false;
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(parsed, "", ""));
  return info && info->isCPUStringValid(chip);
}

} // namespace

FailureOr<ext::GPUTarget>
ext::resolveGPUTarget(const GPUTarget &requested, std::string &error) {
  GPUTarget resolved = requested;
  llvm::StringRef target = resolved.target;
  std::string chip = resolved.chip;
  std::optional<ChipInfo> info = lookupChipInfo(chip);
  if (target == "nvvm") {
    if (chip.empty())
      chip = kDefaultChip;
    else if (!info || !info->isNvidia()) {
      error = "ext-gpu-pipeline: chip '" + chip +
              "' is not an NVIDIA chip; target=nvvm takes sm_NN (sm_80, "
              "sm_90, ...)" +
              (info ? std::string(" (gfx chips need target=rocdl)")
                    : std::string());
      return failure();
    }
    if (!isKnownProcessor(kNvvmTriple, chip)) {
      error = "ext-gpu-pipeline: LLVM's NVPTX back end does not know chip '" +
              chip + "'";
      return failure();
    }
  } else if (target == "rocdl") {
    if (chip.empty())
      chip = kDefaultAmdChip;
    else if (!info || !info->isAmd()) {
      error = "ext-gpu-pipeline: chip '" + chip +
              "' is not an AMD chip; target=rocdl takes gfxNNN (gfx90a, "
              "gfx942, ...)" +
              (info ? std::string(" (sm_ chips need target=nvvm)")
                    : std::string());
      return failure();
    }
    if (!isKnownProcessor(kRocdlTriple, chip)) {
      error = "ext-gpu-pipeline: LLVM's AMDGPU back end does not know chip '" +
              chip + "'";
      return failure();
    }
    llvm::StringRef abi = resolved.abi;
    if (abi != "400" && abi != "500" && abi != "600") {
      error = "ext-gpu-pipeline: abi must be 400, 500 or 600, not '" +
              abi.str() + "'";
      return failure();
    }
  } else {
    error = "ext-gpu-pipeline: unknown target '" + target.str() +
            "'; expected 'nvvm' or 'rocdl'";
    return failure();
  }
  if (resolved.optLevel > 3) {
    error = "ext-gpu-pipeline: O must be 0, 1, 2 or 3, not " +
            std::to_string(resolved.optLevel);
    return failure();
  }
  if (llvm::any_of(resolved.features,
                   [](char c) { return llvm::isSpace(c) || c == '}'; })) {
    error = "ext-gpu-pipeline: features must be a comma-free list such as "
            "+ptx80, without spaces";
    return failure();
  }
  resolved.chip = chip;
  // The PTX ISA the chip's TMA and mbarrier PTX needs where LLVM's default
  // for it is older (the chip model's nvptxFeatures).
  if (target == "nvvm" && resolved.features.empty() && info)
    resolved.features = info->nvptxFeatures;
  return resolved;
}

/// ext's schedules first (a no-op on plain gpu IR), then the workgroup
/// buffers of every launch packed before outlining.
static void buildScheduleStage(OpPassManager &pm,
                               const ext::GPUTarget &options) {
  ext::buildScheduleToGPUPipeline(pm, /*dropBarrier=*/-1,
                                  /*rejectTileLevel=*/false, options.chip);
  if (options.reuseSharedMemory)
    pm.addPass(ext::createExtGPUReuseSharedMemory());
}

/// Outlining, target attachment and the device lowering.
static void buildDeviceStage(OpPassManager &pm, const ext::GPUTarget &options) {
  bool nvvm = options.isNvvm();
  // Ops the chip lacks are rejected before upstream lowers them to IR that
  // does not verify.
  // They, like the schedule stage, read the chip from the module's
  // #ext.target.
  pm.addPass(ext::createExtGPUCheckTargetSupport());
  // Above 48 KB an NVIDIA block's shared memory must be dynamic.
  pm.addPass(ext::createExtGPUDynamicSharedMemory());
  pm.addPass(ext::createExtGPUCheckResourceLimits());
  pm.addPass(createGpuKernelOutliningPass());
  if (nvvm) {
    GpuNVVMAttachTargetOptions attach;
    attach.chip = options.chip;
    attach.optLevel = options.optLevel;
    attach.features = options.features;
    pm.addPass(createGpuNVVMAttachTarget(attach));
  } else {
    GpuROCDLAttachTargetOptions attach;
    attach.chip = options.chip;
    attach.optLevel = options.optLevel;
    attach.abiVersion = options.abi;
    attach.features = options.features;
    pm.addPass(createGpuROCDLAttachTarget(attach));
  }
  // Tensor maps reach NVIDIA kernels as pointers.
  if (nvvm)
    pm.addPass(ext::createExtGPUTensorMapArguments());
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(ext::createExtGPUPromoteWorkgroupAllocs());
  device.addPass(createLowerAffinePass());
  if (nvvm) {
    // Pipelined stages' asynchronous copies (nvgpu.device_async_*) to
    // cp.async; the memref descriptors it leaves go with convert-gpu-to-nvvm.
    // Tensor-core tile computes' nvgpu.ldmatrix / nvgpu.mma.sync likewise
    // (bf16 mma.sync, which it does not convert, goes to NVVM first).
    // Before scf-to-cf: nvgpu's types carried by loops (a warpgroup
    // accumulator through an scf.for, as upstream's sm90 programs write
    // it) are converted with the loops, not as cf block arguments, which
    // convert-nvgpu-to-nvvm leaves alone.
    device.addPass(ext::createExtGPULowerBF16MmaSync());
    device.addPass(createConvertNVGPUToNVVMPass());
  }
  device.addPass(createSCFToControlFlowPass());
  device.addPass(memref::createExpandStridedMetadataPass());
  device.addPass(createLowerAffinePass());
  if (nvvm) {
    // No __assertfail call in a wgmma kernel: it would serialize them (the
    // traps are branches: after scf-to-cf).
    device.addPass(ext::createExtGPUWgmmaAssertsToTraps());
    // afn math (a schedule's fast_math) as approximate PTX, not libdevice.
    device.addPass(ext::createExtGPUFastMathToNVVM());
    ConvertGpuOpsToNVVMOpsOptions convert;
    // redux.sync: integer subgroup reductions in one instruction.
    convert.hasRedux = lookupChipInfo(options.chip)->hasRedux;
    device.addPass(createConvertGpuOpsToNVVMOps(convert));
    device.addPass(ext::createExtGPUAlignSharedMemory());
    device.addPass(ext::createExtGPUCapRegistersAtEntry());
    device.addPass(ext::createExtGPUMagicNumberLop3());
    device.addPass(LLVM::createNVVMOptimizeForTargetPass());
    // NVVM ops that are inline PTX (wgmma.mma_async, the TMA and mbarrier
    // forms) become llvm.inline_asm.
    device.addPass(createConvertNVVMToLLVMPass());
  } else {
    // Tensor-core tile computes' amdgpu.mfma to rocdl intrinsics.
    ConvertAMDGPUToROCDLPassOptions amdgpu;
    amdgpu.chipset = options.chip;
    device.addPass(createConvertAMDGPUToROCDLPass(amdgpu));
    ConvertGpuOpsToROCDLOpsOptions convert;
    convert.chipset = options.chip;
    device.addPass(createConvertGpuOpsToROCDLOps(convert));
  }
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());
}

void ext::buildGPUPipeline(OpPassManager &pm, const GPUTarget &options) {
  // Computes without a schedule stay on the host: say so.
  pm.addPass(ext::createExtApplyTransformScript());
  pm.addPass(ext::createExtGPUReportHostComputes());
  buildScheduleStage(pm, options);
  buildDeviceStage(pm, options);
}

std::string ext::getGPUPipelineText(const GPUTarget &options) {
  OpPassManager pm(ModuleOp::getOperationName());
  buildGPUPipeline(pm, options);
  return getPassListText(pm);
}

// The host's part is ext-cpu-pipeline's lowering with gpu-to-llvm turning
// gpu.launch_func, gpu.alloc and gpu.memcpy into mgpu* runtime calls (ext's
// runtime library implements them) instead of the CPU emulation.
void ext::buildGPUHostPipeline(OpPassManager &pm, const GPUTarget &options,
                               llvm::StringRef format,
                               llvm::StringRef toolkit) {
  pm.addPass(createExtApplyTransformScript());
  buildScheduleStage(pm, options);
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createExtGPUStageKernelOperands());
  buildDeviceStage(pm, options);
  useShortSharedPointers();
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = format.str();
  binary.toolkitPath = toolkit.str();
  pm.addPass(createGpuModuleToBinaryPass(binary));
  buildHostToLLVMPipeline(pm, /*kernelLowering=*/nullptr,
                          [](OpPassManager &launches) {
                            launches.addPass(createGpuToLLVMConversionPass());
                          });
}

namespace {
/// Options of ext-gpu-host-pipeline: the device's, plus the binary format.
struct GPUHostPipelineOptions
    : ext::GPUTargetOptions<GPUHostPipelineOptions> {
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("gpu-module-to-binary format: isa (PTX, JIT-compiled "
                     "by the driver), bin or fatbin"),
      llvm::cl::init("isa")};
  Option<std::string> toolkit{*this, "toolkit",
                              llvm::cl::desc("toolkit path for serialization"),
                              llvm::cl::init("")};
};

FailureOr<ext::GPUTarget>
resolveOrReport(const ext::GPUTarget &requested,
                function_ref<LogicalResult(const Twine &)> errorHandler) {
  std::string error;
  FailureOr<ext::GPUTarget> resolved = ext::resolveGPUTarget(requested, error);
  if (failed(resolved))
    (void)errorHandler(error);
  return resolved;
}
} // namespace

void ext::registerGPUPipelines() {
  // Registered by hand rather than through PassPipelineRegistration so that
  // invalid options (an unknown target, an AMD chip for nvvm) are reported
  // through the pipeline parser's error handler instead of being accepted.
  registerPassPipeline(
      "ext-gpu-pipeline",
      "Outline gpu kernels, attach an NVVM or ROCDL target and lower them to "
      "the LLVM dialect (serialize with ext-translate --ext-to-ptx / "
      "--ext-to-hsaco)",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        GPUPipelineOptions parsed;
        if (failed(parsed.parseFromString(optionsText)))
          return failure();
        FailureOr<GPUTarget> options =
            resolveOrReport(parsed.toTarget(), errorHandler);
        if (failed(options))
          return failure();
        buildGPUPipeline(pm, *options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(GPUPipelineOptions());
      });

  registerPassPipeline(
      "ext-gpu-host-pipeline",
      "ext-gpu-pipeline for a program that runs on the device: host memrefs "
      "staged to device buffers, kernels serialized into gpu.binary, host "
      "code lowered to the LLVM dialect with mgpu* runtime calls",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        GPUHostPipelineOptions parsed;
        if (failed(parsed.parseFromString(optionsText)))
          return failure();
        StringRef format = parsed.format.getValue();
        if (format != "isa" && format != "bin" && format != "fatbin")
          return errorHandler("ext-gpu-host-pipeline: format must be isa, "
                              "bin or fatbin, not '" +
                              format + "'");
        FailureOr<GPUTarget> options =
            resolveOrReport(parsed.toTarget(), errorHandler);
        if (failed(options))
          return failure();
        buildGPUHostPipeline(pm, *options, format, parsed.toolkit.getValue());
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(GPUHostPipelineOptions());
      });
}
