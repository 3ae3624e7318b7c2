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

def ExtGPULowerBF16MmaSync
    : Pass<"ext-gpu-lower-bf16-mma-sync", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower bf16 nvgpu.mma.sync to nvvm.mma.sync";
  let description = [{
    Upstream's `convert-nvgpu-to-nvvm` lowers `nvgpu.mma.sync` for f16,
    tf32, f64 and integer operands but not bf16, whose
    `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` the NVVM dialect
    has. This pass rewrites every bf16 `nvgpu.mma.sync` (f32 accumulators)
    into `nvvm.mma.sync`: each pair of bf16 operand elements is one 32-bit
    register, the four accumulators are scalars, and the result struct is
    put back into the `vector<2x2xf32>` the nvgpu op yields. It runs before
    `convert-nvgpu-to-nvvm`; the CPU emulator keeps executing the nvgpu op.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def ExtGPUWgmmaAssertsToTraps
    : Pass<"ext-gpu-wgmma-asserts-to-traps", "::mlir::gpu::GPUModuleOp"> {
  let summary = "In kernels with wgmma, a failed cf.assert traps instead of "
                "calling __assertfail";
  let description = [{
    Upstream lowers `cf.assert` in a kernel to a call of `__assertfail`. A
    call anywhere in a function makes ptxas serialize every
    `wgmma.mma_async` in it ("(C7510) wgmma.mma_async instructions are
    serialized due to wgmma pipeline crossing function boundary at a
    function call"), wrapping each in its own warpgroup arrive and wait.
    In each `gpu.func` holding a wgmma op (`nvvm.wgmma.mma_async`, its
    fence, commit or wait), this pass
    rewrites every `cf.assert` into a branch to `llvm.intr.trap`: a failed
    check still stops the kernel (the launch reports an error), without
    its message. The CPU emulator lowers `cf.assert` itself, with the
    message, and this pass runs only in the NVVM pipeline, after
    `convert-scf-to-cf`. Kernels without wgmma keep their messages.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::cf::ControlFlowDialect"
  ];
}

def ExtGPUTensorMapArguments
    : Pass<"ext-gpu-tensor-map-arguments", "::mlir::ModuleOp"> {
  let summary = "Pass a kernel's tensor maps as pointers, the type they "
                "have on the device";
  let description = [{
    A tensor map (`!nvgpu.tensormap.descriptor`, what
    `nvgpu.tma.create.descriptor` builds on the host) used in a
    `gpu.launch` becomes an argument of the outlined kernel of that type,
    which `convert-gpu-to-nvvm` cannot lower (it knows no nvgpu type) and
    `convert-nvgpu-to-nvvm` does not convert in a signature. On the device a
    map is the address of its 128 bytes: this pass makes each such argument
    an `!llvm.ptr`, cast back to the map's type at the kernel's entry, and
    casts the launches' operands the same way on the host, so both sides'
    lowerings meet at the pointer (`reconcile-unrealized-casts` removes the
    casts). It runs after outlining, in the NVVM pipelines.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ExtGPUAlignSharedMemory
    : Pass<"ext-gpu-align-shared-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare NVIDIA dynamic shared memory as the extern array "
                "it is; align tile buffers to 1024 bytes where swizzles need "
                "it";
  let description = [{
    `convert-gpu-to-nvvm` declares a kernel's dynamic shared memory as an
    internal zero-sized array, which the NVPTX back end emits as a one-byte
    static variable: it sits at offset 0 while it is the only static one,
    but once another static variable exists (an `nvgpu.mbarrier.create`
    group) ptxas may place either first, and the tiles would overlap the
    barriers or start misaligned. This pass makes each such global
    external (`.extern .shared .b8 name[]`: the dynamic region, after every
    static variable). In modules with a bulk tensor copy or a wgmma, whose
    32/64/128-byte swizzles are of address bits and repeat every 1024
    bytes, it also aligns every shared buffer but the mbarrier groups (the
    dynamic region and the static workgroup buffers, whose tiles ext
    places at multiples of 1024 bytes) to 1024 bytes. It runs after
    `convert-gpu-to-nvvm`, in the NVVM pipeline.
  }];
}

def ExtGPUCapRegistersAtEntry
    : Pass<"ext-gpu-cap-registers-at-entry", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Give kernels that set their warpgroups' registers "
                "(setmaxnreg) one CTA per SM, so ptxas fixes their count at "
                "entry";
  let description = [{
    `setmaxnreg` moves registers between the warpgroups of a CTA (a
    warp-specialized kernel's producer gives up registers its consumers
    take), out of the pool the CTA was given at launch. ptxas honors it
    only when the kernel's register count at entry is known: its thread
    limit (`.maxntid`, from the launch's block size) and `.minnctapersm 1`,
    under which it allocates 64K registers over the CTA's threads. Without
    them it ignores the instruction (warning C7508) and allocates what the
    code needs, which leaves a consumer's `setmaxnreg.inc` waiting for
    registers the pool does not have. This pass sets `nvvm.minctasm = 1` on
    every kernel with a `nvvm.setmaxregister`, and fails on one whose block
    size is unknown. It runs after `convert-gpu-to-nvvm`, in the NVVM
    pipeline.
  }];
}

def ExtGPUFastMath : Pass<"ext-gpu-fast-math", "::mlir::ModuleOp"> {
  let summary = "A scheduled kernel's f32 math in its fast forms";
  let description = [{
    For each `gpu.launch` marked `ext.fast_math` (a schedule's `fast_math`,
    true by default, carried there by ext-apply-schedule and
    ext-kernel-to-gpu), the launch's scalar and vector f32 `arith.mulf`,
    `addf` and `subf` are marked `contract` (LLVM fuses a multiply and an
    add or subtract into one FMA), and its scalar f32 math becomes the
    target-neutral form of the approximate instructions:

    - `math.exp(x)` becomes `math.exp2(x * log2 e)`; where `x = a - b`, the
      argument is `math.fma(a, log2 e, b * -log2 e)` (one FMA per element
      where `b` is a row's maximum);
    - `arith.divf(a, b)` becomes `a * divf(1, b)`, the reciprocal computed
      once where `b` is (a row's sum: one per row, then multiplies);
    - `math.exp2`, the reciprocal, `math.rsqrt` and `math.tanh` are marked
      `afn`.

    ext-gpu-fast-math-to-nvvm turns the `afn` ops into `ex2.approx.ftz.f32`,
    `rcp.approx.ftz.f32`, `rsqrt.approx.ftz.f32` and `tanh.approx.f32`; on
    ROCDL the flags reach LLVM's AMDGPU back end (FMAs; the reciprocal as
    one `v_rcp_f32` instead of the div_scale / div_fmas / div_fixup
    sequence; exp2 and rsqrt as before); the CPU emulator computes them
    with the NVIDIA instructions' semantics (subnormal inputs and results
    flushed to a zero of their sign). The attribute is dropped.

    A launch also marked `ext.no_contract` (ext-apply-schedule's online
    softmax, whose key step ptxas gives 138 registers with FMAs instead of
    the 128 its tiles are chosen for) gets no `contract` flags and no FMA
    in its exponentials; the approximations stay.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def ExtGPUFastMathToNVVM
    : Pass<"ext-gpu-fast-math-to-nvvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Approximate (afn) f32 math to NVIDIA's approximate "
                "instructions";
  let description = [{
    Scalar f32 ops marked `afn` (ext-gpu-fast-math's, or a user's) become
    the PTX instructions that compute them approximately, before
    `convert-gpu-to-nvvm` would call libdevice's precise functions:
    `math.exp2` to `ex2.approx.ftz.f32` (max 2 ulp), `arith.divf(a, b)` to
    `a * rcp.approx.ftz.f32(b)` (the reciprocal max 1 ulp; `a` of 1.0 is the
    reciprocal alone), `math.rsqrt` to `rsqrt.approx.ftz.f32` (max 2 ulp)
    and, on sm_75 and later (the gpu.module's NVVM target), `math.tanh` to
    `tanh.approx.f32` (max relative error 2^-10.987). The `.ftz` forms flush
    subnormal inputs and results to a zero of their sign; without `.ftz`
    `ex2.approx.f32` is four SASS instructions, with it one MUFU.EX2.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def ExtGPUMagicNumberLop3
    : Pass<"ext-gpu-magic-number-lop3", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Merge a packed-code mask and its magic-number OR into one "
                "lop3.b32";
  let description = [{
    A low-bit weight's two codes are converted to f16x2 (bf16x2) by masking
    them into the halves of a word and ORing in the mantissa of 1024.0
    (128.0): `(w & M) | 0x64006400`, then one f16x2 subtraction
    (ext-apply-schedule's dequantized operands, FactorLanes). PTX has no
    instruction LLVM selects for the pair: it emits `and.b32` and `or.b32`
    with immediates, which ptxas keeps as two LOP3 (one takes at most one
    immediate). Written as one `lop3.b32 d, w, M, C, 0xEA` (the function
    (a & b) | c), ptxas keeps one constant in a register and issues one
    LOP3 per two codes, BitBLAS's form. This pass rewrites every i32
    `llvm.or(llvm.and(w, M), C)` with C one of the two magic words and M
    disjoint from C, the AND used only there, into that inline PTX. It runs
    after `convert-gpu-to-nvvm`, in the NVVM pipeline; the emulator runs the
    arith form.
  }];
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
    An operand that is a `gpu.alloc`'s buffer (or a cast or view of one) is
    device memory already and is passed as it is: host code that keeps its
    data on the device (a benchmark's timing loop) pays no copies.
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
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip: sm_NN[a] for NVIDIA, gfxNNN for AMD (default: the "
           "module's #ext.target, else sm_80)">
  ];
}

def ExtGPUReuseSharedMemory : Pass<"ext-gpu-reuse-shared-memory"> {
  let summary = "Pack a kernel's workgroup buffers into one allocation, reusing "
                "bytes between buffers that are never live together";
  let description = [{
    For every `gpu.launch` and `gpu.func`, takes its workgroup buffers
    (workgroup attributions and workgroup `memref.alloc`s of static shape),
    computes when each is live for the block (`SharedMemoryLiveness`:
    `mlir::Liveness` over every alias — views, casts, `scf` iter_args and
    yields, selects, branch arguments — widened over every loop that may
    carry the buffer's data into its next iteration, and over `scf.if`s
    whose condition depends on the thread, since threads of a block run both
    sides at once), and gives each an offset in one `i8` workgroup buffer
    so that interfering buffers never overlap. Each old buffer becomes a
    `memref.view` at its offset.

    **Loop-carried data.** A loop carries a buffer's data when a read in
    one iteration may see a write of an earlier one. It does not when, in
    every iteration (or every execution of a uniform block inside it that
    holds all the accesses, such as a k-loop's body), every read comes after
    a barrier that follows writes which together, over all threads of the
    block, cover every byte read (`SharedMemoryCoverage`: the writes' and
    reads' bytes are enumerated for every thread of the static block size
    and every iteration of the loops inside, from indices computed from
    thread ids, induction variables and constants; conservative for dynamic
    block sizes, other indices and writes that may not run). Such a buffer
    is live only from its first to its last access in the body, so the
    tiles of a persistent loop's k-loop and its epilogue's staging tile can
    share bytes; the input program is assumed race-free.

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
    them at that level. When both sit in the body of a loop that carries
    neither, the next iteration's first buffer takes the bytes back from
    this iteration's second: a barrier ends the body unless one in it
    already follows the second's last access or precedes the first's first.

    Buffers of dynamic size are left alone with a remark; kernels with one
    buffer or none are untouched. The footprint is recorded as
    `ext.shared_memory_bytes` on the kernel. `report=true` prints, per
    kernel, each buffer's size, alignment, live interval and offset, the
    total, the clique lower bound and the naive sum, and the footprint with
    and without reuse (saying when it is the largest buffer, not the sum).
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

def ExtGPUDynamicSharedMemory
    : Pass<"ext-gpu-dynamic-shared-memory", "::mlir::ModuleOp"> {
  let summary = "Move the workgroup buffers of a kernel above the static "
                "shared-memory limit into dynamic shared memory";
  let description = [{
    An NVIDIA kernel may declare at most 48 KB of shared memory statically;
    a block gets more (up to 163 KB on `sm_80`, 227 KB on `sm_90`) only as
    dynamic shared memory, sized at launch, after the host opts the kernel
    in (`cuFuncSetAttribute` with
    `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`; ext's CUDA runtime
    does so in `mgpuLaunchKernel` for every launch above 48 KB).

    For every `gpu.launch` (or outlined kernel `gpu.func`) whose static
    workgroup attributions exceed the chip's static limit, each attribution
    becomes a `memref.view` of `gpu.dynamic_shared_memory` at a 16-byte
    aligned offset (after the launch's own constant dynamic bytes, if any),
    and the `dynamic_shared_memory_size` of the launch (of every
    `gpu.launch_func` of the kernel) becomes the total. Upstream's GPU-to-NVVM
    lowering turns `gpu.dynamic_shared_memory` into an `extern .shared`
    array; the CPU emulator sizes it at launch. AMD chips (whose whole LDS
    is static) and kernels under the limit are left alone. The per-block
    limit itself is `ext-gpu-check-resource-limits`' business, which
    `ext-gpu-pipeline` runs after this pass.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip: sm_NN[a] for NVIDIA, gfxNNN for AMD (default: the "
           "module's #ext.target, else sm_80)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def ExtGPUCheckResourceLimits
    : Pass<"ext-gpu-check-resource-limits", "::mlir::ModuleOp"> {
  let summary = "Check each kernel's shared memory, threads per block and "
                "per-thread private buffers against the chip's limits";
  let description = [{
    Without this check the limits of the chip are found by `ptxas` (a block
    declaring more than 48 KB of static shared memory) or not at all (a
    per-thread tile too large for the register file silently becomes a
    stack frame in local memory). `ext-gpu-pipeline` runs this pass with its
    `chip` before outlining, after shared buffers have been packed, so each
    kernel is checked once, at the `gpu.launch` (whose location is the
    scheduled `ext.compute`'s), against the limits in `ext/Model/Chip.h`.

    Kernels are `gpu.launch` regions and `gpu.func` kernels; launches of
    outlined kernels (`gpu.launch_func`) have their block size checked.

    Errors:

    - shared memory per block (workgroup attributions, workgroup
      `memref.alloc`/`alloca`, workgroup `memref.get_global`s, plus a
      constant dynamic shared memory size) above the chip's per-block limit
      (`sm_80` 163 KB, `sm_90` 227 KB, `gfx90a`/`gfx942` 64 KB of LDS);
    - on NVIDIA chips, static shared memory above 48 KB, the most a kernel
      can declare statically (`ext-gpu-dynamic-shared-memory`, which
      `ext-gpu-pipeline` runs first, moves such buffers into dynamic shared
      memory);
    - threads per block above 1024, or a block dimension above its limit
      (x, y 1024; z 64 on NVIDIA, 1024 on AMD).

    Warning: a kernel whose private buffers (per-thread fragments, private
    attributions and `memref.alloca`s) need more 32-bit registers than a
    thread has (255 on NVIDIA; 512 VGPRs on `gfx90a`/`gfx942`, 256 on other
    AMD chips) will spill them to local (NVIDIA) or scratch (AMD) memory:
    the warning gives the bytes and notes each buffer. The estimate counts
    only those buffers, so a kernel just under the limit may still spill.

    The pass changes nothing; it only reports. Each message names the
    kernel (the function around the launch, or the `gpu.func`), the bytes or
    threads, the limit and the chip.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip: sm_NN[a] for NVIDIA, gfxNNN for AMD (default: the "
           "module's #ext.target, else sm_80)">
  ];
}

def ExtGPUReportHostComputes
    : Pass<"ext-gpu-report-host-computes", "::mlir::ModuleOp"> {
  let summary = "Remark on each ext.compute without a schedule: it runs on "
                "the host, not as a GPU kernel";
  let description = [{
    `ext-gpu-pipeline` makes one GPU kernel of each scheduled `ext.compute`;
    one without a `schedule` becomes plain loops in the host function around
    it (the reference semantics), which is right for setup code and wrong
    when the user meant a kernel. The pipeline runs this pass first, so each
    such compute gets a remark at its location instead of silently
    disappearing from the kernels (and `ext-translate --ext-to-ptx` then
    finding none).

    The pass changes nothing; it only reports.
  }];
}

//===----------------------------------------------------------------------===//
// ext-gpu-bank-conflicts (issue 18)
//===----------------------------------------------------------------------===//

def ExtGPUBankConflicts : Pass<"ext-gpu-bank-conflicts", "::mlir::ModuleOp"> {
  let summary = "Report the worst-case bank conflict of every shared-memory "
                "access of a warp";
  let description = [{
    An analysis: for every load and store of workgroup memory
    (`memref.load`/`store`, `vector.load`/`store`, `memref.atomic_rmw`,
    `nvgpu.ldmatrix` as its lanes' 16-byte row loads) in a
    kernel (a `gpu.launch` body or a kernel `gpu.func`), it builds the byte
    address from the thread id, loop iteration counters (a loop index is
    `lb + step * it`) and values uniform over the block, through the
    buffer's views (`memref.reinterpret_cast`, `view`, `subview`, `cast`),
    and emits one remark at the access:

    * `conflict-free: W wavefronts per warp for B-byte accesses at byte E`,
    * `N-way bank conflict: W wavefronts per warp ...`, or
    * `bank conflicts unknown: <why>` when the address is not built from
      `+`, `-`, `*`, floor division and remainder by constants, shifts and
      bitwise ops (XOR swizzles) of such values, or the block size is not a
      constant, or a symbol that enters the address non-linearly has no
      known range. Nothing is guessed.

    The cost is the worst over every warp of the block (all lanes active),
    every value of a counter that enters the address non-linearly (over its
    range from `IntegerRangeAnalysis`) and every offset that the values
    entering linearly allow (modulo the 128-byte bank period; buffers are
    taken to start 16-byte aligned). The hardware model
    (`ext/Model/BankConflicts.h`): 32 banks of 4 bytes; a warp's
    request is served in phases — all 32 lanes for accesses of up to 4
    bytes, half-warps for 8-byte and quarter-warps for 16-byte accesses;
    lanes touching the same 4-byte word share it (broadcast); a phase takes
    as many wavefronts as the most words any bank must deliver; `N-way` is
    the largest phase's count. `chip=gfx9NN` (CDNA, not gfx950) models AMD's
    LDS: the same 32 x 4-byte banks and phase widths over a 64-lane wave
    (2, 4 or 8 phases).

    A vector access is costed as one instruction only when every lane's
    address is provably aligned to its size; otherwise it is unknown (the
    backend may split it). `summary=true` prints, per kernel, a table of the
    accesses (op, location, n-way, wavefronts, bytes of padding of the
    accessed view) to stderr.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip: sm_NN (NVIDIA) or gfx9NN (AMD CDNA) (default: the "
           "module's #ext.target, else sm_80)">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Print a table of the accesses per kernel">
  ];
}

#endif // EXT_GPU_TRANSFORMS_PASSES_TD
