//===- Passes.td - ext's passes on upstream gpu IR ---------*- tablegen -*-===//

#ifndef EXT_GPU_TRANSFORMS_PASSES_TD
#define EXT_GPU_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ExtGpuPromoteWorkgroupAllocs
    : Pass<"ext-gpu-promote-workgroup-allocs", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Turn workgroup-memory memref.alloc/alloca in kernels into "
                "gpu.func workgroup attributions";
  let description = [{
    Kernels written against upstream's `gpu` dialect (and the kernels ext's
    own passes emit) allocate shared memory with
    `memref.alloc() : memref<..., #gpu.address_space<workgroup>>` anywhere in
    the kernel body. Upstream's `convert-gpu-to-nvvm` / `convert-gpu-to-rocdl`
    only give *workgroup attributions* of a `gpu.func` static shared storage
    (an `addrspace(3)` global); an `memref.alloc` would become a device-side
    `malloc`. This pass rewrites every such allocation in every `gpu.func` of
    the module into a workgroup attribution of the function and erases its
    `memref.dealloc`s.

    An allocation with an identity layout becomes an attribution of the same
    type. One with a static strided layout (padded rows, as
    `ext-lower-storage-align` makes) becomes a 1-D attribution spanning
    `offset + sum((size_i - 1) * stride_i) + 1` elements, viewed through a
    `memref.reinterpret_cast` to the original type. Dynamically sized or
    dynamically strided workgroup allocations are rejected with an error:
    their size would have to be dynamic shared memory, which the launch must
    request.

    Allocations in the private address space are left alone (they lower to
    `alloca`).
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def ExtGpuStageKernelOperands
    : Pass<"ext-gpu-stage-kernel-operands", "::mlir::ModuleOp"> {
  let summary = "Copy host memrefs passed to gpu.launch_func into device "
                "buffers around the launch";
  let description = [{
    Host code written for the CPU (and for ext's CPU emulator) passes ordinary
    host memrefs (`memref.alloc`, `memref.get_global`) to kernels. A discrete
    GPU cannot read them. Around every synchronous `gpu.launch_func`, for
    every memref operand in the default (or global) memory space, this pass
    allocates a device buffer (`gpu.alloc`, with the operand's dynamic sizes)
    and copies the operand in before the launch, launches on the device
    buffer, then copies it back unless the kernel only reads it and frees it.
    The allocs and copies are asynchronous ops on one stream per side of the
    launch (`gpu.wait async` ... `gpu.wait`), the form `gpu-to-llvm` lowers;
    the launch itself stays synchronous, so the program's semantics do not
    change. Each launch pays its copies, which the runner's per-launch
    timing (events around the launch) excludes.

    A kernel operand that is read only (in the outlined `gpu.func`, the
    argument is used only by `memref.load`, directly or through view-like
    ops) is not copied back, so read-only constant globals stay untouched.

    Memrefs with a non-identity layout cannot be copied as one contiguous
    block; they are reported as errors.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def ExtGpuCheckTargetSupport
    : Pass<"ext-gpu-check-target-support", "::mlir::ModuleOp"> {
  let summary = "Reject GPU ops that the target chip cannot run, at the op, "
                "before they are lowered";
  let description = [{
    Upstream's `convert-gpu-to-nvvm` lowers an op whether or not the chip has
    it: `gpu.cluster_id` on `sm_80` becomes `nvvm.read.ptx.sreg.clusterid.x`,
    which then fails to verify after the conversion (invalid IR out of a
    pass), and a `gpu.launch_func` with a cluster size becomes a
    `mgpuLaunchClusterKernel` call that fails only when the driver runs it.
    `ext-gpu-pipeline` runs this pass first, with its `chip`, so such input
    gets one error at the op that needs the feature, naming the chip that
    does not have it.

    Checked, in kernels (`gpu.module` bodies and `gpu.launch` regions):

    - thread block clusters (`gpu.cluster_id`, `gpu.cluster_dim`,
      `gpu.cluster_block_id`, `gpu.cluster_dim_blocks`, and `gpu.launch` /
      `gpu.launch_func` with a cluster size) need `sm_90` or later; AMD chips
      have none;
    - NVVM ops already in the input need the SM version their
      `RequiresSMInterface` declares (`nvvm-attach-target` would otherwise
      make them invalid by attaching an older chip).

    The pass changes nothing; it only reports.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "Target chip: sm_NN[a] for NVIDIA, gfxNNN for AMD">
  ];
}

#endif // EXT_GPU_TRANSFORMS_PASSES_TD
