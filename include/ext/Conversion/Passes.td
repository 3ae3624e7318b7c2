//===- Passes.td - ext conversion passes -------------------*- tablegen -*-===//

#ifndef EXT_CONVERSION_PASSES_TD
#define EXT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ExtGPUToCPUEmulation : Pass<"ext-gpu-to-cpu-emulation", "::mlir::ModuleOp"> {
  let summary = "Run outlined gpu kernels on the CPU through ext's emulation runtime";
  let description = [{
    Rewrites a `gpu.container_module` (after `gpu-kernel-outlining`) into
    host code that runs every kernel on the CPU emulation runtime
    (`runtime/cpu`, ABI in `ext/Runtime/CpuEmulationABI.h`), where each GPU
    thread is a cooperative fiber:

    - every function of a `gpu.module` moves into the host module (renamed
      `<module>_<name>`); a kernel `gpu.func` becomes a `func.func` run once
      per thread, plus a trampoline taking its arguments packed as `void **`;
    - `gpu.thread_id`, `block_id`, `block_dim`, `grid_dim`, `global_id`,
      `lane_id`, `subgroup_id`, `num_subgroups`, `subgroup_size` become
      runtime queries hoisted to the function entry;
    - workgroup attributions and static workgroup `memref.alloc`s get offsets
      in the block's workgroup memory, `gpu.dynamic_shared_memory` the part
      after them; private attributions become `memref.alloca`;
    - `gpu.barrier` yields until the whole block arrives; `gpu.shuffle`,
      `gpu.rotate`, `gpu.subgroup_broadcast`, `gpu.subgroup_reduce` and
      `gpu.all_reduce` exchange values through per-block scratch between warp
      or block rendezvous (reductions combine in lane order, so all lanes
      get the same bits); `gpu.printf` calls `printf`;
    - a call to `__ext_emu_access` (address, size, kind, source location)
      precedes every workgroup-memory load and store and every atomic, and
      follows every `llvm.fence`: these are the scheduler's yield points, so
      spin-waits make progress and a missing barrier changes results
      (`ext-instrument-global-accesses`, run before, adds the other loads and
      stores for race detection; the sites it numbered are kept);
    - on the host, `gpu.launch_func` calls `__ext_emu_launch` with the grid,
      `gpu.alloc`/`dealloc`/`memcpy`/`memset` become memref code and
      `gpu.host_register` disappears;
    - async tokens become the runtime's events: `gpu.launch_func async
      [deps]` starts its grid once its dependencies are done and returns at
      once, so grids on different streams run at the same time (and may
      wait on each other, as on a GPU); `gpu.wait async [deps]` joins
      tokens, `gpu.wait [deps]` waits for them (with none, for every grid in
      flight); the other async ops wait for their dependencies, then run.
      Tokens pass from gpu op to gpu op; another user is an error.

    The op families are pattern sets (`populateGPU*Patterns` in
    `ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h`), applied to each
    device function in the IR's order. An op the emulator cannot run is an
    error naming it at its location.
    Memory spaces `#gpu.address_space<...>` are dropped at the end. A module
    without gpu ops is left as it is.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def ExtSubgroupMmaToLanes
    : Pass<"ext-subgroup-mma-to-lanes", "::mlir::ModuleOp"> {
  let summary = "Give the gpu dialect's subgroup MMA ops a per-lane "
                "distribution the CPU emulator runs";
  let description = [{
    `!gpu.mma_matrix` fragments are opaque: each target distributes them over
    a warp its own way. For the CPU emulation (`ext-cpu-pipeline` runs this
    first) a 16x16 fragment becomes the `vector<4x2xT>` a lane holds in the
    layout of NVIDIA's `mma.sync.m16n8k16` (A: mma.sync's A fragment; B and C:
    two of mma.sync's B and C fragments, columns 0-7 and 8-15), and

    - `gpu.subgroup_mma_load_matrix` / `_store_matrix` become each lane's
      loads and stores of its elements (`leadDimension` and `transpose`
      honoured; racecheck sees them);
    - `gpu.subgroup_mma_compute` becomes two `nvgpu.mma.sync` m16n8k16, which
      `ext-gpu-to-cpu-emulation` runs as warp collectives;
    - `gpu.subgroup_mma_constant_matrix` and `_elementwise` become vector
      arithmetic;
    - `scf` ops carrying fragments are converted with them.

    Supported: 16x16 f16 operands, f16 or f32 accumulators; anything else is
    an error naming the op. A fragment loaded with `transpose` holds the
    transposed matrix; `subgroup_mma_compute`'s `a_transpose` and
    `b_transpose` say how its operands were loaded (the fragment layouts a
    GPU's load and mma must agree on), so one that disagrees with the
    `subgroup_mma_load_matrix` producing the operand is an error.
    docs/CpuEmulation.md gives the distribution.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def ExtInstrumentGlobalAccesses
    : Pass<"ext-instrument-global-accesses", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Report every global-memory load and store of a gpu.module's "
                "functions to the CPU emulator's race detector";
  let description = [{
    Runs between `gpu-kernel-outlining` and `ext-gpu-to-cpu-emulation`
    (`ext-cpu-pipeline{racecheck=true}` and `ext-run --racecheck` do): before
    every `memref.load` and `memref.store` of a device function (a
    `gpu.func`, or a `func.func` with a body) whose memref is not in
    workgroup memory, it calls `__ext_emu_access` with the address, the size,
    the kind (global, load or store) and the access's site, so that the
    emulator's race detector (`EXT_EMU_RACECHECK=1`) sees global memory too.
    Workgroup accesses, atomics and fences are the emulation lowering's own
    yield points and are reported by it.

    Sites are numbered per gpu.module; their source locations are left in
    the module's `ext.emu_sites` attribute (an array of strings), which
    `ext-gpu-to-cpu-emulation` continues.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def ExtAsyncToRuntime
    : Pass<"ext-async-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Lower the async dialect to calls to MLIR's async runtime, "
                "where a module has async ops";
  let description = [{
    Runs upstream's `async-to-async-runtime`, `async-runtime-ref-counting`,
    `async-runtime-ref-counting-opt` and `convert-async-to-llvm` on a module
    that uses the async dialect (`async.execute`, `async.await`, tokens,
    values and groups): each `async.execute` body becomes a coroutine the
    async runtime (`libmlir_async_runtime`, which `ext-run` and the Python
    bindings load) runs on its thread pool. `ext-cpu-pipeline` runs it after
    the emulation lowering, so an `async.execute` may launch kernels: the
    emulator takes launches from any thread. A module without async ops is
    left unchanged (the upstream lowering declares the runtime's functions
    in every module it sees).
  }];
}

def ExtFromLinalg : Pass<"ext-from-linalg", "::mlir::ModuleOp"> {
  let summary = "Turn linalg structured ops into ext.computes";
  let description = [{
    The way in for MLIR front ends (torch-mlir, StableHLO, TOSA through
    `tosa-to-linalg`, hand-written linalg): every `linalg.generic` and named
    structured op (`matmul`, `batch_matmul`, `fill`, `transpose`, `reduce`,
    `map`, the convolutions, ...) on memrefs becomes an `ext.compute` that
    ext's schedules, fusions and lowerings take:

    - the op's loops become axes `d0`, `d1`, ... (parallel ones `spatial`,
      reductions `reduce`), their extents the static loop ranges (`?` where
      a dimension is dynamic);
    - the indexing maps become the compute's maps, the region its body
      (`linalg.index` becomes `ext.index`), a constant scalar input (as
      `linalg.fill`'s) a constant in the body;
    - a reduction's combiner is read off the region: each output's yield
      `out <op> v` with `v` independent of the outputs gives `sum` (`addf`,
      `addi`), `prod`, `max` (`maximumf`, `maxnumf`, `maxsi`) or `min`; a
      region that combines several outputs together (argmax) becomes a
      `custom` reducer whose new values are the region's values independent
      of the outputs (one per output, told apart by type) and whose
      identities are the constants the outputs were filled with;
    - linalg accumulates into its outputs, ext.compute overwrites them: a
      `linalg.fill` of the combiner's identity into the output just before
      the op (nothing between touching it) is dropped; otherwise the
      reduction goes into a new buffer and a second, element-wise compute
      combines it with the output's previous contents. An element-wise op
      that reads its output reads it as an input (in place, same map).

    Each compute is named after its op (`matmul_0`, `generic_3`, ...), so
    schedules can fuse the chains a front end produces (`compute_inline`,
    `compute_at`, `reverse_compute_at`). `linalg.softmax` and the other
    ops with a decomposition (`AggregatedOpInterface`) are decomposed
    first. Ops on tensors are bufferized first with one-shot bufferization
    over the module (function boundaries included, identity layouts) when
    `bufferize` is set (the default); before that, an op that does not
    read its destination's contents gets a fresh `tensor.empty` of its own
    (and an op starting from a shared fill a fill of its own), so values
    alive at different times do not share a buffer: a shared buffer would
    order the computes and keep fusions from putting them in one kernel.

    An op that cannot be expressed stays linalg, with a remark saying why
    (an output map that is not a permutation of the parallel loops, a
    region with memory effects, a non-constant scalar input, a combination
    ext does not recognize); the rest of the module is still converted.
  }];
  let options = [
    Option<"bufferize", "bufferize", "bool", /*default=*/"true",
           "Bufferize tensor programs (one-shot, function boundaries "
           "included) before converting">
  ];
  let dependentDialects = [
    "::ext::ExtDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def ExtComputeToLoops : Pass<"ext-compute-to-loops"> {
  let summary = "Lower ext.compute to scf loops (the reference semantics)";
  let description = [{
    Rewrites every `ext.compute` into a nest of `scf.for` loops: one loop per
    spatial axis, in axis order, outermost; inside it, the combiner's identity
    initialises one accumulator per output and one loop per reduce axis (in
    axis order) carries the accumulators as `iter_args`. Each iteration loads
    one element of every input through its indexing map (`affine.apply` for
    compound accesses), inlines the body, and combines its values into the
    accumulators (a built-in combiner's arith op, or the inlined `reducer`).
    After the reduce loops the accumulators are stored through the output
    maps. A compute without reduce axes stores the body's values directly.

    A dynamic extent (`?`) is the size (`memref.dim`) of a dynamic operand
    dimension the axis indexes alone. Every other operand dimension an axis
    indexes alone is checked against it before the loops (`cf.assert`), so
    operands whose sizes disagree stop the program instead of being read
    out of bounds.

    This is the definition every other lowering of `ext.compute` is checked
    against.

    Conversions from and to the small float formats LLVM has no types for
    (`arith.extf` / `arith.truncf` of `f8E4M3FN`, `f8E5M2`, `f4E2M1FN`),
    wherever they are, kernels included, become integer code on their bits
    through `f32`: exact decoding, and encoding rounded to nearest even with
    `arith.truncf`'s overflow (`f8E5M2`: inf; `f8E4M3FN`: NaN; `f4E2M1FN`: its
    largest value).

    With `reject-tile-level`, any ext op left afterwards (`ext.kernel` and
    the tile ops, which only the GPU path lowers) is an error at that op:
    `ext-cpu-pipeline` sets it, as upstream's loop lowerings would otherwise
    break the single-block regions of those ops.
  }];
  let options = [
    Option<"rejectTileLevel", "reject-tile-level", "bool", /*default=*/"false",
           "Fail, with an error at the op, on ext ops that remain after "
           "lowering (the tile level)">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def ExtKernelToGPU : Pass<"ext-kernel-to-gpu"> {
  let summary = "Lower ext.kernel to gpu.launch through its tile decomposition";
  let description = [{
    Replaces each `ext.kernel` by a `gpu.launch` whose grid is what the
    kernel's decomposition asks for (`getNumBlocks`) and whose block has the
    kernel's thread count. Inside, the decomposition emits the mapping from
    the block id to work units (`emitWorkUnits`); the pass gives it a
    `TileWorkEmitter` that inlines the kernel's body for a tile and k range
    and its epilogue for a finished tile. Linear tile indices become tile
    coordinates in the kernel's raster order: the last two tile dimensions
    are walked in groups of `swizzle` rows (`row`) or columns (`col`) for L2
    reuse, leading dimensions outermost.

    A decomposition that splits tiles asks for a workspace of partial tiles
    (`getNumPartials`): the pass allocates it on the host (`gpu.alloc`),
    zeroes it (`gpu.memset`) before the launch, frees it after, and records
    its size on the launch as `ext.workspace_bytes`. The layout: one `i32`
    flag per slot, then per fragment the slots' partial tiles, each part
    16-byte aligned. A contributor's threads store their fragment elements
    in its slot, a barrier follows, and thread 0 issues a release fence and
    sets the flag (a relaxed atomic `llvm.store`); an owner's thread 0 spins
    on the flag (relaxed atomic `llvm.load`), issues an acquire fence, and a
    barrier lets every thread combine the slot into its fragment with the
    kernel's combiner. Parallel split-K adds a second launch that combines
    the partials and runs the epilogue.

    A kernel whose tile counts are values (a blocked axis of dynamic
    extent) is planned at launch: the decomposition emits host code that
    computes the grid, the workspace's slots and the numbers its work units
    read from the tile count (`emitLaunchPlan`; `#ext.auto` also calls the
    launch planner, `__ext_choose_decomposition`), the workspace is sized
    from them, and the work units read them as kernel arguments
    (`emitLaunchWorkUnits`). The launches run only if the tile count and
    the grid are below 2^31 (and the plan's own conditions hold): otherwise
    an `ext.guarded` assert reports it.

    `drop-fixup-wait` (a debugging aid for tests) omits the owner's wait,
    `drop-fixup-fence` the contributor's release fence, to show that the
    race detector reports them.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The chip the kernels are for (default: the module's "
           "#ext.target; its SM count sizes Stream-K grids whose attribute "
           "gives none)">,
    Option<"sms", "sms", "int64_t", /*default=*/"0",
           "SM (or CU) count; overrides the chip's">,
    Option<"dropFixupWait", "drop-fixup-wait", "bool", /*default=*/"false",
           "Omit the owner's wait for a contributor's flag (tests only)">,
    Option<"dropFixupFence", "drop-fixup-fence", "bool", /*default=*/"false",
           "Omit the contributor's release fence (tests only)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // EXT_CONVERSION_PASSES_TD
