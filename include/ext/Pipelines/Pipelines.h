//===- Pipelines.h - ext's pass pipelines -----------------------*- C++ -*-===//

#ifndef EXT_PIPELINES_PIPELINES_H
#define EXT_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace ext {

/// Options of ext-cpu-pipeline.
struct CpuPipelineOptions : mlir::PassPipelineOptions<CpuPipelineOptions> {
  Option<bool> reference{
      *this, "reference",
      llvm::cl::desc("Ignore schedules: every ext.compute runs as plain loops "
                     "(the reference semantics)"),
      llvm::cl::init(false)};
  Option<bool> reuseSharedMemory{
      *this, "reuse-shared-memory",
      llvm::cl::desc("Pack kernels' workgroup buffers (ext-gpu-reuse-shared-memory)"),
      llvm::cl::init(true)};
  Option<int> dropBarrier{
      *this, "drop-barrier",
      llvm::cl::desc("Tests only: omit the N-th barrier ext-tile-ops-to-threads "
                     "inserts (-1 keeps all)"),
      llvm::cl::init(-1)};
  Option<bool> dropHazardBarriers{
      *this, "drop-hazard-barriers",
      llvm::cl::desc("Tests only: omit the barriers shared-memory reuse needs"),
      llvm::cl::init(false)};
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("The GPU the kernels stand for (sm_80, sm_90, gfx90a, "
                     "gfx942): its SM count sizes Stream-K grids and auto"),
      llvm::cl::init("")};
  Option<int64_t> sms{
      *this, "sms",
      llvm::cl::desc("SM count for Stream-K grids and auto (overrides chip)"),
      llvm::cl::init(0)};
  Option<bool> weakenAsyncWait{
      *this, "weaken-async-wait",
      llvm::cl::desc("Tests only: pipelined k-loops wait for one copy group "
                     "fewer than they must, or with wgmma groups in flight "
                     "copy one step too far ahead (ext-apply-schedule)"),
      llvm::cl::init(false)};
  Option<bool> racecheck{
      *this, "racecheck",
      llvm::cl::desc("Instrument global accesses in kernels too "
                     "(ext-instrument-global-accesses), for "
                     "the emulator's race detection (EXT_EMU_RACECHECK=1)"),
      llvm::cl::init(false)};
};

/// ext-cpu-pipeline: scheduled ext.computes to gpu.launch kernels (as
/// ext-schedule-to-gpu does, then ext-gpu-reuse-shared-memory), the rest to
/// loops, kernels to calls into the CPU emulation runtime, everything to the
/// LLVM dialect, ready for the ExecutionEngine or mlir-translate.
void buildCpuPipeline(mlir::OpPassManager &pm,
                      const CpuPipelineOptions &options = {});

/// ext-cpu-pipeline for `options`, as pipeline text (its passes with every
/// option, as `--dump-pass-pipeline` prints them).
std::string getCpuPipelineText(const CpuPipelineOptions &options);

//===----------------------------------------------------------------------===//
// Pieces the CPU and GPU pipelines share (CommonPipelines.cpp)
//===----------------------------------------------------------------------===//

/// ext-schedule-to-gpu: ext-apply-schedule, ext-kernel-to-gpu,
/// ext-tile-ops-to-threads, ext-alloc-shared-to-workgroup, then
/// ext-compute-to-loops for the unscheduled computes, canonicalization, and
/// index computations sunk into the launches (so outlining passes no
/// constants as kernel arguments). `dropBarrier` is ext-tile-ops-to-threads'
/// test option; `rejectTileLevel` makes ext-compute-to-loops report
/// tile-level ops left over.
/// `chip` and `sms` (an override; 0: the chip's) size the tile
/// decompositions that depend on the SM count (Stream-K, `auto`).
void buildScheduleToGPUPipeline(mlir::OpPassManager &pm, int dropBarrier = -1,
                                bool rejectTileLevel = false,
                                llvm::StringRef chip = "", int64_t sms = 0,
                                bool weakenAsyncWait = false);

/// Adds to `pm` a pipeline stage: passes appended at one point of a shared
/// pipeline; may be null (nothing added).
using PipelineStage = llvm::function_ref<void(mlir::OpPassManager &)>;

/// The host's lowering to the LLVM dialect after the kernels are dealt with:
/// `kernelLowering` runs once loops and affine code are lowered (the CPU
/// emulation), `launchLowering` right before memrefs become LLVM
/// (gpu-to-llvm for a real device).
void buildHostToLLVMPipeline(mlir::OpPassManager &pm,
                             PipelineStage kernelLowering = nullptr,
                             PipelineStage launchLowering = nullptr);

/// The passes of `pm` as pipeline text, without its anchor
/// (`a,b{opt=..},gpu.module(c)`), for docs and diagnostics.
std::string getPassListText(mlir::OpPassManager &pm);

//===----------------------------------------------------------------------===//
// GPU pipelines (GPUPipeline.cpp)
//===----------------------------------------------------------------------===//

/// The device ext-gpu-pipeline compiles for.
struct GPUTarget {
  /// nvvm (NVIDIA, PTX) or rocdl (AMD, HSACO).
  std::string target = "nvvm";
  /// sm_NN or gfxNNN; empty: sm_80 / gfx90a.
  std::string chip;
  /// Target features; empty: the back end's default for the chip.
  std::string features;
  /// AMDHSA code object version (rocdl).
  std::string abi = "500";
  /// Device code optimization level.
  unsigned optLevel = 2;
  /// Pack each kernel's workgroup buffers (ext-gpu-reuse-shared-memory).
  bool reuseSharedMemory = true;

  bool isNvvm() const { return target == "nvvm"; }
};

/// The device options of ext-gpu-pipeline, shared by every pipeline that
/// compiles for a GPU target (`Derived` is the options struct itself).
template <typename Derived>
struct GPUTargetOptions : mlir::PassPipelineOptions<Derived> {
  using Base = mlir::PassPipelineOptions<Derived>;
  typename Base::template Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Device back end: nvvm (NVIDIA, PTX) or rocdl (AMD, "
                     "HSACO)"),
      llvm::cl::init("nvvm")};
  typename Base::template Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Device to compile for: sm_NN for nvvm (default "
                     "sm_80), gfxNNN for rocdl (default gfx90a)"),
      llvm::cl::init("")};
  typename Base::template Option<std::string> features{
      *this, "features",
      llvm::cl::desc("Target features (nvvm default: the lowest PTX ISA the "
                     "chip needs; +ptx80 asks for more)"),
      llvm::cl::init("")};
  typename Base::template Option<unsigned> optLevel{
      *this, "O", llvm::cl::desc("Device code optimization level (0-3)"),
      llvm::cl::init(2)};
  typename Base::template Option<std::string> abi{
      *this, "abi",
      llvm::cl::desc("rocdl only: AMDHSA code object version (400, 500 or "
                     "600)"),
      llvm::cl::init("500")};
  typename Base::template Option<bool> reuseSharedMemory{
      *this, "reuse-shared-memory",
      llvm::cl::desc("Pack each kernel's workgroup buffers into one "
                     "allocation (ext-gpu-reuse-shared-memory)"),
      llvm::cl::init(true)};

  GPUTarget toTarget() const {
    GPUTarget t;
    t.reuseSharedMemory = reuseSharedMemory;
    t.target = target;
    t.chip = chip;
    t.features = features;
    t.abi = abi;
    t.optLevel = optLevel;
    return t;
  }
};

/// Options of ext-gpu-pipeline.
struct GPUPipelineOptions : GPUTargetOptions<GPUPipelineOptions> {};

/// Checks `requested` (a known target, a chip of that target LLVM knows, the
/// opt level, the ABI) and fills in the default chip; on failure returns
/// failure and the message to report in `error`.
mlir::FailureOr<GPUTarget> resolveGPUTarget(const GPUTarget &requested,
                                            std::string &error);

/// ext-gpu-pipeline: outlines gpu.launch bodies into gpu.modules, attaches an
/// #nvvm.target / #rocdl.target and lowers the kernels to the NVVM / ROCDL
/// LLVM dialect. Host code is left as is; the target-attached gpu.modules
/// are what `ext-translate --ext-to-ptx / --ext-to-hsaco` serializes and
/// what `gpu-module-to-binary` accepts. `target` must have been resolved.
void buildGPUPipeline(mlir::OpPassManager &pm, const GPUTarget &target);

/// The pass pipeline ext-gpu-pipeline runs for resolved `target`, as text.
std::string getGPUPipelineText(const GPUTarget &target);

/// For running on a device from the host: ext-gpu-stage-kernel-operands,
/// ext-gpu-pipeline, gpu-module-to-binary (format `format`: isa, bin or
/// fatbin; `toolkit` may be empty) and the host's lowering to the LLVM
/// dialect, gpu.launch_func becoming mgpu* runtime calls.
void buildGPUHostPipeline(mlir::OpPassManager &pm, const GPUTarget &target,
                          llvm::StringRef format, llvm::StringRef toolkit);

/// Registers ext-schedule-to-gpu and ext-cpu-pipeline with the global pass
/// registry.
void registerPipelines();

/// Registers ext-gpu-pipeline (and ext-gpu-host-pipeline).
void registerGPUPipelines();

} // namespace ext

#endif // EXT_PIPELINES_PIPELINES_H
