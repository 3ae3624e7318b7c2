//===- Passes.td - ext transformation passes ---------------*- tablegen -*-===//

#ifndef EXT_DIALECT_EXT_TRANSFORMS_PASSES_TD
#define EXT_DIALECT_EXT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ExtSetTarget : Pass<"ext-set-target", "::mlir::ModuleOp"> {
  let summary = "Set the chip the module's kernels are for (#ext.target)";
  let description = [{
    Attaches `ext.target = #ext.target<chip = "...", sms = N>` to the
    module: the one place every later pass and the runners read the chip's
    facts from (SM count, warp or wave width, shared-memory limits and
    banks, matrix and copy instructions; `ext/Model/Chip.h`). The
    pipelines run it first with their `chip`. A module that already names
    the same chip is left as it is; one that names another is an error, so
    a chip is never silently changed half-way through a pipeline. With
    `if-unset`, a module that names a chip keeps it: that is how the
    pipelines apply their default chip (sm_80) to a module without one.

    ```mlir
    // ext-opt --ext-set-target="chip=sm_90a"
    module attributes {ext.target = #ext.target<chip = "sm_90a">} { ... }
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "The chip: sm_NN[a|f] (NVIDIA) or gfxNNN (AMD)">,
    Option<"sms", "sms", "int64_t", /*default=*/"0",
           "SM (or CU) count, when the product has fewer than the chip's "
           "usual one (0: the chip's)">,
    Option<"ifUnset", "if-unset", "bool", /*default=*/"false",
           "Only set the target of a module that has none (a default chip)">
  ];
}

def ExtApplyTransformScript
    : Pass<"ext-apply-transform-script", "::mlir::ModuleOp"> {
  let summary = "Run the module's transform script on it, then drop the script";
  let description = [{
    A schedule may live in a transform-dialect script beside its payload:
    a `transform.named_sequence @__transform_main` in the module (or in a
    nested `module attributes {transform.with_named_sequence}`), with the
    other named sequences it includes. This pass takes the script out of
    the module, runs it with the transform interpreter on what is left
    (the entry's argument is the module), and leaves the payload alone
    without the script, ready for ext's lowering. ext's pipelines
    (`ext-schedule-to-gpu` and what builds on it: ext-run, the GPU
    pipelines, Python) run it first; a module without a script is left as
    it is. A failing transform reports its diagnostic and fails the pass.

    The script may use any registered transform op: `transform.ext.*`
    (match computes, set or edit their schedules), upstream's structured
    and nvgpu transforms, and `transform.apply_registered_pass` (for
    instance `"ext-from-linalg"` before scheduling what it made).
  }];
}

def ExtClearTarget : Pass<"ext-clear-target", "::mlir::ModuleOp"> {
  let summary = "Remove the module's #ext.target once nothing reads it";
  let description = [{
    Drops `ext.target` from the module. ext-cpu-pipeline ends with it: the
    kernels are lowered and the runner has read the lanes by then, and a
    module without ext attributes is one upstream tools (mlir-translate,
    mlir-runner) read without ext's dialect.
  }];
}

def ExtApplySchedule : Pass<"ext-apply-schedule"> {
  let summary = "Turn scheduled ext.computes into tile-level ext.kernels";
  let description = [{
    For every `ext.compute` carrying a `#ext.schedule`, builds the tile-level
    `ext.kernel`: the grid of output tiles over the axes bound to blocks, the
    reduce iterations of the one reduce axis tiled below its extent, and a
    body that computes one work unit:

    * with reduce axes on one thread each: accumulator fragments
      (`ext.alloc_fragment`) initialised to the combiner's identity, a loop
      over the unit's `[k_begin, k_end)` that stages the cached inputs'
      windows in shared memory (`ext.copy` into `ext.alloc_shared` with the
      schedule's storage_align) and accumulates one tile (`ext.tile_compute
      ... accumulate`); the epilogue stores the fragments into the output
      tile;
    * otherwise (no reduce axis, or a reduce axis bound to threads and
      covered by the tile): one `ext.tile_compute` from the inputs' windows
      straight into the output tile.

    Edge tiles get `bounds` (`min(tile, extent - offset)`) so ragged shapes
    need no padding. Every access must be linear in the axes. Computes
    without a schedule are left alone.

    The decomposition is resolved for the chip (`chip=sm_90`, or `sms=N`
    SMs): `#ext.auto` becomes the candidate the cost model predicts fastest
    (`report=true` prints every candidate's predicted utilization as a
    remark), and a Stream-K attribute without an SM count gets the chip's.

    A schedule with `stages = N` (N >= 2) gets N shared buffers per cached
    input and a software-pipelined k-loop over the unit's range: a prologue
    issues the staged copies (`ext.copy ... staged`) of the first N - 1
    steps, one `ext.copy_commit` each; every step waits for its own stage
    (`ext.copy_wait pending = N - 2`, which holds the step's one barrier),
    issues the copy of the step N - 1 ahead into the buffer the previous
    step freed (only while it lies in the unit's range), computes, and
    commits; a final `ext.copy_wait pending = 0` drains the pipeline before
    the buffers are reused. The copies are `async` on chips with
    asynchronous copies (sm_80 and later) unless the schedule says
    `async = false`, and go through `registers` otherwise.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The chip the kernels are for (sm_80, sm_90, gfx90a, gfx942; "
           "default: the module's #ext.target): its SM count sizes Stream-K "
           "grids and auto's cost model">,
    Option<"sms", "sms", "int64_t", /*default=*/"0",
           "SM (or CU) count; overrides the chip's">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Print, as a remark, each kernel's decomposition and every auto "
           "candidate's predicted utilization">,
    Option<"weakenAsyncWait", "weaken-async-wait", "bool", /*default=*/"false",
           "Tests only: pipelined k-loops wait for one copy group fewer than "
           "they must, or with wgmma groups in flight copy one step too far "
           "ahead (the emulator shows wrong numbers, a race or a write "
           "under an MMA)">
  ];
  // nvgpu, NVVM and LLVM: a `tma = true` schedule's tensor maps, mbarriers
  // and bulk tensor copies.
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::LLVM::LLVMDialect"
  ];
}

def ExtTileOpsToThreads : Pass<"ext-tile-ops-to-threads"> {
  let summary = "Lower tile ops to per-thread loops, barriers and tree reductions";
  let description = [{
    Inside each `gpu.launch` (one-dimensional blocks), rewrites the tile
    ops into code every thread runs, with its coordinates taken from
    `gpu.thread_id x` (the last axis varies fastest):

    * `ext.copy`: the CTA's threads stride over the target's vectors (up to
      the copy's `vector` elements and 16 bytes, where rows, strides and
      offsets keep them aligned; a remark says why when narrower); each
      loads a source vector, zero outside the source (a clamped address and
      a select for static sources: no branch), and stores it.
      A `gpu.barrier` follows every group of copies into workgroup memory
      (its data is read by other threads), and a loop that copies into
      workgroup memory ends with a barrier (the next iteration's copy
      overwrites what this one's compute reads).
    * `ext.alloc_fragment`: a private buffer per thread of the tile divided
      by the thread grid.
    * `ext.tile_compute`: spatial points distributed over the threads by
      the op's fragment layout (guarded by `bounds`). Accumulating into
      fragments goes through the layout's accumulation strategy; for the
      element-wise layouts (`#ext.cyclic`, `#ext.blocked`) that is register
      blocking: the reduce loop outermost (its innermost axis stepping
      `vector` points), each input's slice for the thread's points loaded
      once per step (vector loads along runs of consecutive points, up to
      16 bytes; a remark says why when narrower), and every point updated
      from registers, a product under `sum` as one `math.fma`. Points
      beyond the bounds are computed unguarded (and never stored) when all
      inputs are in shared memory or fragments and the body is
      speculatable. Otherwise each point carries its accumulators through
      the reduce loops. A reduce axis over
      several threads combines the threads' partial values with a butterfly
      of `gpu.shuffle xor` inside the warp and a pass through workgroup
      memory across warps (a workgroup-memory tree when the axis is not the
      fastest), then the axis' thread 0 stores. Barriers are never placed
      under thread-dependent control flow.

    Each fragment layout brings its accumulation strategy
    (`TileAccumulationAttrInterface`). For `#ext.mma` layouts, a product
    under a `sum` combiner (`arith.extf` of the inputs allowed) with both
    inputs in shared memory becomes, per warp and k-step of the
    instruction, `nvgpu.ldmatrix` loads of the A and B fragments
    (transposed where the shared tile holds the operand with its K
    dimension outermost; scalar loads where ldmatrix cannot read it: a
    swizzled tile, tf32 operands) and one `nvgpu.mma.sync` per
    instruction tile of the warp, or on AMD `amdgpu.mfma` with operands
    read from LDS. The accumulators live in the lanes' registers in the
    instruction's layout. Other bodies take the element-wise path, with a
    remark. With `chip`, the instruction must exist on the chip.

    Staged copies of a pipelined k-loop: `staged async` ones become one
    `nvgpu.device_async_copy` per vector of 4, 8 or 16 bytes (zero fill
    through its `srcElements`: 0 for a vector outside the source), each
    `ext.copy_commit` an `nvgpu.device_async_create_group`, each
    `ext.copy_wait` an `nvgpu.device_async_wait {numGroups = pending}` and
    a barrier. `staged registers` ones (and async ones narrower than 4
    bytes, with a remark) load into a private buffer at the copy and store
    it to shared memory at the commit.

    `drop-barrier=N` (a debugging aid for tests) omits the N-th barrier the
    pass would insert, to show that the result then goes wrong.
  }];
  let options = [
    Option<"dropBarrier", "drop-barrier", "int", /*default=*/"-1",
           "Omit the N-th inserted barrier (tests only; -1 keeps all)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The chip the kernels are for (sm_80, gfx942, ...; default: the "
           "module's #ext.target): a tile "
           "compute's matrix instructions must exist on it (empty: not "
           "checked)">
  ];
  let dependentDialects = [
    "::mlir::amdgpu::AMDGPUDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def ExtAllocSharedToWorkgroup : Pass<"ext-alloc-shared-to-workgroup"> {
  let summary = "Lower ext.alloc_shared to padded workgroup buffers";
  let description = [{
    Each `ext.alloc_shared` becomes a workgroup attribution of its enclosing
    `gpu.launch` (or `gpu.func`): a one-dimensional buffer of the padded
    size (`stride[0] * shape[0]` elements, strides from TVM's rule
    `stride += (factor + offset - stride % factor) % factor`), viewed through
    a `memref.reinterpret_cast` with the op's strided layout.

    A swizzled `ext.alloc_shared` (`swizzle = #ext.swizzle<...>`) becomes a
    one-dimensional attribution of the tile's element count, and every
    `memref.load` / `memref.store` of it an access of that buffer at the
    swizzled row-major offset `o ^ ((o >> shift) & mask)`, so writers and
    readers of the tile agree; any other use is an error.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

#endif // EXT_DIALECT_EXT_TRANSFORMS_PASSES_TD
