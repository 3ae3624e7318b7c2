//===- Passes.td - ext's passes on upstream gpu IR ---------*- tablegen -*-===//

#ifndef EXT_GPU_TRANSFORMS_PASSES_TD
#define EXT_GPU_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ExtGPUPromoteWorkgroupAllocs
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
    `ext-alloc-shared-to-workgroup` makes) becomes a 1-D attribution spanning
    `offset + sum((size_i - 1) * stride_i) + 1` elements, viewed through a
    `memref.reinterpret_cast` to the original type. Dynamically sized or
    dynamically strided workgroup allocations are rejected with an error:
    their size would have to be dynamic shared memory, which the launch must
    request.

    Allocations in the private address space are left alone (they lower to
    `alloca`). Every workgroup attribution without an `llvm.align` gets 16
    bytes, the alignment vector accesses (`ld.shared.v4`, `ds_read_b128`)
    need.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def ExtGPUStageKernelOperands
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

def ExtGPUCheckTargetSupport
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

def ExtReuseSharedMemory : Pass<"ext-reuse-shared-memory"> {
  let summary = "Pack a kernel's workgroup buffers into one allocation, reusing "
                "bytes between buffers that are never live together";
  let description = [{
    For every `gpu.launch` and `gpu.func`, takes its workgroup buffers
    (workgroup attributions and workgroup `memref.alloc`s of static shape),
    computes when each is live for the block (`SharedMemoryLiveness`:
    `mlir::Liveness` over every alias — views, casts, `scf` iter_args and
    yields, selects, branch arguments — widened over loops, since a buffer
    may carry data into the next iteration, and over `scf.if`s whose
    condition depends on the thread, since threads of a block run both
    sides at once), and gives each an offset in one `i8` workgroup buffer
    so that interfering buffers never overlap. Each old buffer becomes a
    `memref.view` at its offset.

    **Placement.** Minimising the footprint is dynamic storage allocation,
    NP-hard; its optimum can exceed the simple lower bound, the heaviest
    clique of interfering buffers. Kernels have few buffers, so up to
    `exact-limit` (16) buffers per interference component the placement is
    exact: a branch and bound over "gravity" packings (let every buffer of
    an optimal packing fall to the lowest aligned offset free of the buffers
    it interferes with; each then sits at 0 or right on top of one of them,
    so placing buffers in offset order at those candidates reaches an
    optimum), seeded with best-fit decreasing and stopped when it meets the
    clique bound. Beyond the limit best-fit decreasing alone places them,
    and a remark says so.

    **Hazards.** When a buffer takes bytes another buffer used earlier,
    other threads may still be reading the old buffer when this thread
    first writes the new one: a `gpu.barrier` must separate the old buffer's
    last access from the new one's first. One is inserted, at the level of
    the innermost block containing both (never inside divergent control
    flow: such buffers interfere), unless a barrier already sits between
    them at that level.

    Buffers of dynamic size are left alone with a remark; kernels with one
    buffer or none are untouched. The footprint is recorded as
    `ext.shared_memory_bytes` on the kernel. `report=true` prints, per
    kernel, each buffer's size, alignment, live interval and offset, the
    total, the clique lower bound and the naive sum.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Print a table of buffers, live ranges and offsets per kernel">,
    Option<"minAlignment", "min-alignment", "unsigned", /*default=*/"0",
           "Align every buffer to at least this many bytes">,
    Option<"exactLimit", "exact-limit", "unsigned", /*default=*/"16",
           "Largest interference component solved exactly">,
    Option<"dropHazardBarriers", "drop-hazard-barriers", "bool",
           /*default=*/"false",
           "Do not insert the barriers reuse needs (tests only: shows the "
           "race they prevent)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

#endif // EXT_GPU_TRANSFORMS_PASSES_TD
