//===- ExtOps.td - ext operations ---------------------------*- tablegen -*-===//

#ifndef EXT_DIALECT_EXT_IR_EXTOPS_TD
#define EXT_DIALECT_EXT_IR_EXTOPS_TD

include "ext/Dialect/Ext/IR/ExtDialect.td"
include "ext/Dialect/Ext/IR/ExtAttrs.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Ext_AxisArrayAttr : TypedArrayAttrBase<Ext_AxisAttr, "array of ext.axis">;

//===----------------------------------------------------------------------===//
// ComputeOp
//===----------------------------------------------------------------------===//

def Ext_ComputeOp : Ext_Op<"compute", [
    AttrSizedOperandSegments, ComputeLikeOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "a computation over named spatial and reduce axes";
  let description = [{
    `ext.compute` is TVM's `te.compute` on memrefs. Its iteration domain is
    the box of its `axes` (each `#ext.axis<name, spatial|reduce, extent>`).
    Every operand, inputs first and then outputs, is accessed through one
    affine map from the domain (one dimension per axis, in order) to the
    operand's indices.

    The `body` region computes, for one point of the domain, one value per
    output from one element of each input (its block arguments, in input
    order); `ext.index "name"` gives an axis' current index. If there are
    reduce axes, each output element is the combination, over every point
    of the reduce axes, of the body's values, starting from the combiner's
    identity:

    * `sum`, `prod`, `max`, `min` apply element-wise to each output, with
      identities 0, 1, the lowest value (`-inf` for floats) and the highest
      value; integers are compared as signed.
    * `custom` takes a commutative reducer (TVM's `comm_reducer`): the
      `reducer` region gets the accumulated values followed by the new
      values and yields the combined ones, and `identity` lists one typed
      identity per output. A reducer may carry several values, as argmax
      carries a value and its index.

    An input's element is read where the body uses it. When every use of a
    block argument sits in one branch of an `scf.if` (TVM's `if_then_else`
    with a read in one branch), the element is read only when that branch
    runs: `X[y + kh - 1]` under `0 <= y + kh - 1 < H` pads a convolution
    in the compute itself, and never reads outside `X`. The verifier checks
    such an access under the branch conditions on the way to it (affine
    comparisons of the axes, signed or unsigned, joined by `arith.andi`;
    other conditions constrain nothing) and names a point where it would
    leave its operand; an access used outside any branch is checked over
    the whole domain.

    An input may be read indirectly, at a place another input's element
    gives (a paged KV cache's block table, a gather): its map then has
    symbols, and `indirect` binds each symbol to the element of a table
    input read through the table's own map
    (`#ext.indirect<input = k, symbol = s, table = t>`). Every symbol of
    every map is bound exactly once; a table is read through a map without
    symbols (no chains) and holds integers (signless, any width, or
    `index`); outputs are never indirect. The verifier does not bound the
    dimensions whose access uses a symbol (it checks the others as above);
    the lowering checks each one where it reads, and a table entry that
    would leave its dimension fails the compute's run with a message
    naming the compute, the table and the input it indexes.

    ```mlir
    // S[b, j] = sum_d Q[b, d] * Kc[T[b, j floordiv 16], j mod 16, d]
    ext.compute [#ext.axis<"b", spatial, 2>, #ext.axis<"j", spatial, 64>,
                 #ext.axis<"d", reduce, 32>]
        ins(%Q, %Kc, %T : memref<2x32xf32>, memref<8x16x32xf32>, memref<2x4xi32>)
        outs(%S : memref<2x64xf32>)
        maps [affine_map<(b, j, d) -> (b, d)>,
              affine_map<(b, j, d)[s0] -> (s0, j mod 16, d)>,
              affine_map<(b, j, d) -> (b, j floordiv 16)>,
              affine_map<(b, j, d) -> (b, j)>]
        indirect [#ext.indirect<input = 1, symbol = 0, table = 2>]
        combiner(sum) { ... }
    ```

    Output maps name only spatial axes, each spatial axis exactly once, so
    every output element is written once. The previous contents of the
    outputs are not read. Body and reducer ops must be free of memory
    effects: all memory traffic is the compute's own accesses.

    An optional `schedule` (`#ext.schedule<...>`) says how
    `ext-apply-schedule` maps the compute onto a GPU kernel; the verifier
    checks that it fits the compute. An optional `name` identifies the
    compute to the schedules of others in its block (fusion: a schedule's
    `compute_at`, `reverse_compute_at` and `compute_inline`), and names it
    in diagnostics.

    Example (matmul, `k` a reduce axis):

    ```mlir
    ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 32>,
                 #ext.axis<"k", reduce, 16>]
        ins(%A, %B : memref<64x16xf32>, memref<16x32xf32>)
        outs(%C : memref<64x32xf32>)
        maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
              affine_map<(i, j, k) -> (i, j)>]
        combiner(sum) {
    ^bb0(%a: f32, %b: f32):
      %p = arith.mulf %a, %b : f32
      ext.yield %p : f32
    }
    ```
  }];

  let arguments = (ins
    Ext_AxisArrayAttr:$axes,
    Variadic<AnyMemRef>:$inputs,
    Variadic<AnyMemRef>:$outputs,
    AffineMapArrayAttr:$indexing_maps,
    OptionalAttr<Ext_CombinerKind>:$combiner,
    OptionalAttr<TypedArrayAttrBase<TypedAttrInterface, "typed identities">>:$identity,
    OptionalAttr<Ext_ScheduleAttr>:$schedule,
    OptionalAttr<StrAttr>:$name,
    OptionalAttr<TypedArrayAttrBase<Ext_IndirectAttr,
                                    "indirect reads">>:$indirect
  );
  let regions = (region SizedRegion<1>:$body, AnyRegion:$reducer);

  let assemblyFormat = [{
    $axes
    (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    `outs` `(` $outputs `:` type($outputs) `)`
    `maps` $indexing_maps
    (`indirect` $indirect^)?
    (`combiner` `(` $combiner^ `)`)?
    (`identity` $identity^)?
    attr-dict-with-keyword
    $body
    (`reducer` $reducer^)?
  }];

  let builders = [
    // Without indirect reads (every map affine in the axes alone).
    OpBuilder<(ins "::mlir::ArrayAttr":$axes, "::mlir::ValueRange":$inputs,
                   "::mlir::ValueRange":$outputs,
                   "::mlir::ArrayAttr":$indexing_maps,
                   "::ext::CombinerKindAttr":$combiner,
                   "::mlir::ArrayAttr":$identity,
                   "::ext::ScheduleAttr":$schedule,
                   "::mlir::StringAttr":$name), [{
      build($_builder, $_state, axes, inputs, outputs, indexing_maps, combiner,
            identity, schedule, name, /*indirect=*/::mlir::ArrayAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    /// The binding of each symbol of input `input`'s map: the table input
    /// that gives it, per symbol (empty without symbols).
    ::llvm::SmallVector<unsigned> getIndirectTables(unsigned input);
    /// Whether some input is read indirectly.
    bool hasIndirectReads() { return getIndirectAttr() != nullptr; }
  }];

  let hasVerifier = 1;
  let hasRegionVerifier = 1;

}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

def Ext_YieldOp : Ext_Op<"yield", [Pure, ReturnLike, Terminator,
                                    ParentOneOf<["ComputeOp", "TileComputeOp", "KernelOp"]>]> {
  let summary = "yields the values of an ext.compute body or reducer";
  let description = [{
    Terminates the `body` of an `ext.compute` or `ext.tile_compute` (one
    value per output) or its `reducer` (the combined values, one per
    output), or the `reducer` of an `ext.kernel`.
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

//===----------------------------------------------------------------------===//
// IndexOp
//===----------------------------------------------------------------------===//

def Ext_IndexOp : Ext_Op<"index", [Pure]> {
  let summary = "the current index along a named axis";
  let description = [{
    Inside the `body` of an `ext.compute` or `ext.tile_compute`, the index
    of the current domain point along the axis named `axis` (as
    `linalg.index`, by name). In a tile compute it is the index within the
    tile.

    ```mlir
    %k = ext.index "k" : index
    ```
  }];
  let arguments = (ins StrAttr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tile level
//===----------------------------------------------------------------------===//

def Ext_KernelOp : Ext_Op<"kernel", [RecursiveMemoryEffects,
                                      AttrSizedOperandSegments]> {
  let summary = "a grid of output tiles computed by work units";
  let description = [{
    The tile level of a scheduled compute (close to TileLang). The output is
    a grid of `tiles` (one count per blocked axis), each tile with `iters`
    reduce iterations. A *work unit* is a tile and a range `[k_begin,
    k_end)` of its iterations; which CTA runs which unit is the
    `decomposition`'s business (`TileDecompositionAttrInterface`).

    `body` computes one work unit: its block arguments are the tile's
    coordinates (one index per blocked axis), then `k_begin` and `k_end`;
    it yields the accumulator fragments it leaves. `epilogue` writes a
    finished tile: its arguments are the tile's coordinates and the
    fragments. A kernel without an accumulator does all its work in `body`
    and yields nothing. `combiner` (with `identity` and `reducer` when
    custom, as on `ext.compute`) says how two partial accumulators of one
    tile combine; a decomposition that splits the reduction needs it. A
    custom `reducer` may also combine whole fragments: its arguments are
    then the accumulated fragments followed by the partial ones (memrefs of
    the same shapes and element types, views of the fixup's workspace), its
    tile ops combine them in place into the first, it ends in an empty
    `ext.yield` and takes no `identity` (a work unit with no iterations
    leaves it). The online softmax's split of the keys combines its state
    (accumulator rows x values, row max, row sums) this way. Tiles are linearized in `raster` order, in groups of
    `swizzle` rows or columns. `threads` is the CTA size.

    A tile count may be an SSA value (`tiles [%m, 3]`): the grid of a
    compute whose blocked axis has a dynamic extent, computed on the host
    before the kernel. Its decomposition must plan at launch
    (`plansAtLaunch`: data-parallel, split-K, the Stream-K family, and
    `auto`, which chooses at launch); `fixup_cost`, set by
    `ext-apply-schedule` from the reduce tile, is what the cost model
    charges for a fixup there, in main-loop iterations.

    `iters` may be an SSA value too (`iters %k`): the k-steps of a reduce
    axis of dynamic extent, computed on the host. The decomposition then
    plans at launch from it whether or not the tile counts are static.

    `cluster` (`[CM, CN]`, sm_90) groups the CTAs into thread block
    clusters over the last two tile dimensions: the decomposition's units
    are then cluster tiles, CM x CN tiles run by the CM * CN CTAs of one
    cluster (the CTA of rank `r` takes tile `(r mod CM, r / CM)` of it).
    Tiles past the grid's edge run the body (its loads fill zeros) but not
    the epilogue.

    `ext-kernel-to-gpu` turns it into a `gpu.launch`.
  }];
  let arguments = (ins
    Variadic<Index>:$dynamic_tiles,
    DenseI64ArrayAttr:$tiles,
    Optional<Index>:$dynamic_iters,
    I64Attr:$iters,
    I64Attr:$threads,
    TileDecompositionAttrInterface:$decomposition,
    DefaultValuedAttr<Ext_RasterOrder, "::ext::RasterOrder::row">:$raster,
    DefaultValuedAttr<I64Attr, "1">:$swizzle,
    OptionalAttr<Ext_CombinerKind>:$combiner,
    OptionalAttr<TypedArrayAttrBase<TypedAttrInterface, "typed identities">>:$identity,
    OptionalAttr<F64Attr>:$fixup_cost,
    OptionalAttr<DenseI64ArrayAttr>:$cluster
  );
  let regions = (region SizedRegion<1>:$body, SizedRegion<1>:$epilogue,
                 AnyRegion:$reducer);
  let assemblyFormat = [{
    `tiles` custom<DynamicIndexList>($dynamic_tiles, $tiles)
    `iters` custom<DynamicIndex>($dynamic_iters, $iters) `threads` $threads
    `decomposition` $decomposition
    (`raster` $raster^)? (`swizzle` $swizzle^)? (`cluster` $cluster^)?
    (`combiner` `(` $combiner^ `)`)? (`identity` $identity^)?
    attr-dict-with-keyword $body `epilogue` $epilogue
    (`reducer` $reducer^)?
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of tiles, or ShapedType::kDynamic if a count is a value.
    int64_t getNumTiles();
    /// CTAs per thread block cluster (1 without `cluster`).
    int64_t getClusterSize();
    /// The decomposition's tiles: the tiles, or with a cluster the cluster
    /// tiles (kDynamic if a count is a value).
    int64_t getNumWorkTiles();
    unsigned getNumTileDims() { return getTiles().size(); }
    bool hasDynamicTiles() { return !getDynamicTiles().empty(); }
    bool hasDynamicIters() { return static_cast<bool>(getDynamicIters()); }
    /// The reduce iterations per tile: the attribute, or the host value.
    ::mlir::OpFoldResult getMixedIters();
    /// True if the decomposition plans on the host at launch: a tile count
    /// or the iteration count is a value.
    bool plansAtLaunch() { return hasDynamicTiles() || hasDynamicIters(); }
  }];
}

def Ext_KernelYieldOp : Ext_Op<"kernel_yield", [Pure, ReturnLike, Terminator,
                                                HasParent<"KernelOp">]> {
  let summary = "yields a work unit's accumulator fragments";
  let arguments = (ins Variadic<AnyMemRef>:$fragments);
  let assemblyFormat = "attr-dict ($fragments^ `:` type($fragments))?";
}

def Ext_WarpSpecializeOp : Ext_Op<"warp_specialize", [SingleBlock,
                                                      NoTerminator]> {
  let summary = "the producer warpgroup's part of a work unit";
  let description = [{
    In an `ext.kernel`'s body: the CTA's last `producer_threads` threads (a
    warpgroup) run this region for the work unit, the others (the
    consumers) the rest of the body. `full` and `empty` are the k-loop's
    mbarrier groups (`!nvgpu.mbarrier.group`, one barrier per stage),
    created in the body itself: the producer arrives on `full` with the
    stage's transaction bytes (one arrival per phase), each consumer
    warpgroup arrives on `empty` once it no longer reads the stage.

    `ext-kernel-to-gpu` gives each role its own walk over the CTA's work
    units (warp specialization): the body's `ext.alloc_shared` and
    `nvgpu.mbarrier.create` move to the start of the kernel, where thread 0
    initializes the barriers before a block barrier. Then the producer
    warpgroup lowers its registers (`setmaxnreg.dec` to 40) and its first
    thread runs the region once per unit, while the consumers raise theirs
    (`setmaxnreg.inc`) and run the body without it. The two roles meet only
    at the mbarriers: the consumers' fixup (Stream-K, serial split-K)
    synchronizes them alone (`bar.sync 1, N`), and nothing else in the body
    may synchronize the whole CTA. Parallel split-K (a second launch) and
    `auto` are refused.

    With `pingpong`, each consumer warpgroup runs whole units on its own:
    warpgroup `w` of `G` takes the CTA's units `w, w + G, ...` (its thread
    ids in the body counted from its first thread), and each stage has one
    consumer warpgroup, so `empty` takes one arrival.

    With a thread block cluster, the producer may multicast a stage's tiles
    into other CTAs: `release_ctas` is the number of CTAs (this one
    included) whose consumers release each of this CTA's stages, arriving
    on its `empty` barrier through distributed shared memory.

    ```mlir
    ext.warp_specialize producer_threads 128 full(%full) empty(%empty)
        : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>,
          !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4> {
      ...
    }
    ```
  }];
  let arguments = (ins I64Attr:$producer_threads, AnyType:$full,
                       AnyType:$empty, UnitAttr:$pingpong,
                       DefaultValuedAttr<I64Attr, "1">:$release_ctas);
  let regions = (region SizedRegion<1>:$region);
  let assemblyFormat = [{
    `producer_threads` $producer_threads (`pingpong` $pingpong^)?
    `full` `(` $full `)` `empty` `(` $empty `)` `:` type($full) `,`
    type($empty) attr-dict-with-keyword $region
  }];
  let hasVerifier = 1;
}

def Ext_PipelineBaseOp : Ext_Op<"pipeline_base", [Pure]> {
  let summary = "k-steps the CTA's pipeline ran before this work unit";
  let description = [{
    In an `ext.kernel`'s body (or its `ext.warp_specialize`): how many
    k-steps the CTA's role ran through its stages in the work units before
    the current one (0 in its first). A warp-specialized pipeline carries
    its stages and mbarrier phases across units with it: step `t` of a
    unit starting at `k_begin` is the CTA's step `base + t - k_begin`.
    `ext-kernel-to-gpu` counts it per thread.
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Ext_AllocSharedOp : Ext_Op<"alloc_shared"> {
  let summary = "a shared-memory tile buffer with storage_align padding";
  let description = [{
    A buffer in workgroup memory (`#gpu.address_space<workgroup>`), one per
    CTA, of static shape. Its layout's strides are the row-major strides
    padded by every `#ext.storage_align` in `storage_align`, which the
    verifier recomputes. `ext-alloc-shared-to-workgroup` makes it a workgroup
    `memref.alloc` of the padded size viewed through those strides.

    With `swizzle` instead (an `#ext.swizzle`), the buffer is not padded
    (row-major layout) and element `(i...)` is stored at the swizzled
    row-major offset; the swizzle must map the tile's offsets onto
    themselves. `ext-alloc-shared-to-workgroup` then rewrites every access
    of the buffer into one of a flat buffer at the swizzled offset:
    `memref.load`/`store`, `vector.load`/`store`, `nvgpu.device_async_copy`
    into it and `nvgpu.ldmatrix` from it, also through `arith.select`s among
    such buffers (a pipelined k-loop's stages). An access of a run of 2^p
    elements keeps its width when p is at most the swizzle's `base` (the XOR
    moves whole chunks of 2^base) and its start is provably a multiple of
    2^p; otherwise it is an error.

    ```mlir
    %a = ext.alloc_shared {storage_align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]}
        : memref<64x32xf32, strided<[33, 1]>, #gpu.address_space<workgroup>>
    %b = ext.alloc_shared {swizzle = #ext.swizzle<bits = 5, base = 0, shift = 5>}
        : memref<32x32xf32, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins
    OptionalAttr<TypedArrayAttrBase<Ext_StorageAlignAttr, "storage alignments">>:$storage_align,
    OptionalAttr<Ext_SwizzleAttr>:$swizzle);
  let results = (outs AnyMemRef:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Row-major strides of `shape` padded by `aligns` (TVM's rule); fails
    /// when a stride or the padded element count overflows int64_t.
    static ::mlir::FailureOr<::llvm::SmallVector<int64_t>>
    computeAlignedStrides(::llvm::ArrayRef<int64_t> shape,
                          ::llvm::ArrayRef<::ext::StorageAlignAttr> aligns);
    ::llvm::SmallVector<::ext::StorageAlignAttr> getAligns();
  }];
}

def Ext_AllocFragmentOp : Ext_Op<"alloc_fragment"> {
  let summary = "a register tile distributed over a CTA's threads";
  let description = [{
    A block-level tile held in registers, distributed over `threads` by
    `layout` (`#ext.cyclic` when absent: element `(i0, i1, ...)` lives in
    the thread whose coordinate along dimension `d` is `i_d mod
    threads[d]`, at local index `i_d floordiv threads[d]`). Only
    `ext.tile_compute`s with the same threads and layout may access it.
  }];
  let arguments = (ins DenseI64ArrayAttr:$threads,
                       OptionalAttr<FragmentLayoutAttrInterface>:$layout);
  let results = (outs AnyStaticShapeMemRef:$fragment);
  let assemblyFormat = [{
    `threads` $threads (`layout` `(` $layout^ `)`)? attr-dict `:` type($fragment)
  }];
  let extraClassDeclaration = [{
    /// The layout, cyclic when none is given.
    ::ext::FragmentLayoutAttrInterface getLayoutOrDefault();
  }];
  let hasVerifier = 1;
}

def Ext_CopyOp : Ext_Op<"copy", [AttrSizedOperandSegments]> {
  let summary = "a CTA's cooperative copy of a tile window into a buffer";
  let description = [{
    Every thread of the CTA takes part in copying the window of `source`
    that starts at `offsets` and has the shape of `target` into `target`.
    Elements of the window outside `source` are written as zero (never
    read), so ragged edge tiles need no special case in the copy. Up to
    `vector` elements of the innermost dimension (at most 16 bytes) move
    together where the row lengths, strides and offsets keep every vector
    inside one row and aligned; `ext-lower-tile-ops` remarks where it must
    use a narrower width. A source whose innermost size is dynamic has rows
    of unknown length, so its copies move one element at a time unless
    `row_multiple = N` says that length is a multiple of N (a fact the
    caller checked before the kernel: an axis's `multiple_of`).
    `in_bounds` (one flag per dimension, as on `vector.transfer_read`) says
    which dimensions of the window lie inside the source wherever it is
    copied from (a fact of the caller: a tile that divides its axis); the
    lowering checks only the others, so a window in bounds everywhere is
    copied without masking.

    `if %active` (a CTA-uniform `i1`): the copy happens only where it holds.

    Without `staged`, the copy is complete when the op returns (and the
    lowering puts a barrier after a group of copies into shared memory).
    A `staged` copy belongs to a software pipeline: it is issued here and
    lands in `target` at the latest when an `ext.copy_wait` covers the
    group that the next `ext.copy_commit` closes. `staged async` lowers to
    asynchronous copies (`nvgpu.device_async_copy`, 4, 8 or 16 bytes each;
    narrower copies go through registers, with a remark); `staged registers`
    loads into registers here and stores them to `target` at the commit.
    No barrier is implied: `ext.copy_wait` has it.
  }];
  let arguments = (ins AnyMemRef:$source, Variadic<Index>:$offsets,
                       AnyMemRef:$target, Optional<I1>:$active,
                       DefaultValuedAttr<I64Attr, "1">:$vector,
                       OptionalAttr<Ext_CopyStaging>:$staged,
                       DefaultValuedAttr<I64Attr, "1">:$row_multiple,
                       OptionalAttr<DenseBoolArrayAttr>:$in_bounds);
  let assemblyFormat = [{
    $source `[` $offsets `]` `to` $target (`if` $active^)?
    (`staged` $staged^)? attr-dict `:` type($source) `to` type($target)
  }];
  let hasVerifier = 1;
}

def Ext_StoreTileOp : Ext_Op<"store_tile", [AttrSizedOperandSegments]> {
  let summary = "a CTA's cooperative store of a tile into a window of a buffer";
  let description = [{
    The opposite of `ext.copy`: every thread of the CTA takes part in
    storing `source` (a tile, usually in shared memory) into the window of
    `target` that starts at `offsets` and has the shape of `source`.
    Elements of the window outside `target` are skipped, so a ragged edge
    tile writes only its valid part. Threads take consecutive elements of a
    row (a row-major thread mapping, so a warp writes contiguous bytes), up
    to `vector` elements (at most 16 bytes) at a time where the rows,
    strides and offsets keep every vector inside one row and aligned;
    `ext-tile-ops-to-threads` remarks where it must use a narrower width.

    `ext-apply-schedule` emits it for an output cached in the schedule
    (`#ext.cache` naming an output): the epilogue writes the accumulator
    fragments into a shared tile by their layout, then this op stores the
    tile in coalesced rows.

    With `tensor_map` (a `!nvgpu.tensormap.descriptor` of `target` whose
    box is the tile, built by the host; `tma = true` schedules on sm_90)
    the tile goes by one bulk tensor store instead: its writers fence
    their writes for the async proxy (`fence.proxy.async.shared::cta`),
    one thread issues `cp.async.bulk.tensor` from shared memory to the
    window (the copy engine skips elements outside `target`), and waits
    for its reads of the tile (`cp.async.bulk.wait_group.read 0`) before
    anyone may rewrite it.
  }];
  let arguments = (ins AnyMemRef:$source, AnyMemRef:$target,
                       Variadic<Index>:$offsets,
                       Optional<AnyType>:$tensor_map,
                       DefaultValuedAttr<I64Attr, "1">:$vector);
  let assemblyFormat = [{
    $source `to` $target `[` $offsets `]`
    (`tensor_map` `(` $tensor_map^ `:` type($tensor_map) `)`)?
    attr-dict `:` type($source) `to` type($target)
  }];
  let hasVerifier = 1;
}

def Ext_CopyCommitOp : Ext_Op<"copy_commit"> {
  let summary = "closes the group of staged copies issued since the last one";
  let description = [{
    Per thread, as on hardware: the staged `ext.copy`s this thread issued
    since its previous commit form one group. Copies staged through
    registers are stored to shared memory here.
  }];
  let assemblyFormat = "attr-dict";
}

def Ext_CopyWaitOp : Ext_Op<"copy_wait"> {
  let summary = "waits for all but the newest `pending` copy groups, then a barrier";
  let description = [{
    Each thread waits until at most `pending` of its committed groups of
    staged copies are still in flight, then the CTA passes a barrier, so
    every thread sees every thread's landed copies (and every read of a
    buffer before the wait is done before any copy issued after it).
  }];
  let arguments = (ins I64Attr:$pending);
  let assemblyFormat = "`pending` `=` $pending attr-dict";
  let hasVerifier = 1;
}

def Ext_TileComputeOp : Ext_Op<"tile_compute", [
    AttrSizedOperandSegments, ComputeLikeOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "an ext.compute over one tile, computed by a CTA's threads";
  let description = [{
    The semantics of `ext.compute` over a tile domain (the axes' extents are
    tile sizes), plus:

    * `threads`: threads along every axis. Spatial points are distributed
      by `layout` (cyclically when absent); a reduce axis over several
      threads is combined across them (a warp-shuffle and shared-memory
      tree) and its result written by the axis' thread 0.
    * `bounds`: optional valid extents per axis (index values <= the tile
      size): points beyond them are skipped, which handles ragged edges.
    * `accumulate`: with reduce axes, start from the outputs' contents
      instead of the combiner's identity (an accumulator carried across the
      reduce iterations of a work unit).
    * `vector`: the widest vector (in elements; at most 16 bytes are read
      at once) in which inputs in shared memory may be read.

    A reduction of an MMA fragment along its columns has one spatial axis
    (the rows) and one reduce axis (the columns), in that order, and the
    fragment's `#ext.mma` layout and threads for both: each lane folds its
    own points of a row in registers, the lanes holding the row's other
    columns fold theirs (xor shuffles: the 4 lanes of a quad for NVIDIA's
    instructions, the N lanes of an MFMA row), and the row's first lane
    writes (or, with `accumulate`, combines into) the output. Its rows must
    each sit in one warp (`warps = [WM, 1]`), its outputs be 32-bit. The
    online softmax's row max and row sum read the scores this way.

    `ext-tile-ops-to-threads` lowers it to per-thread loops on `gpu.thread_id`.
  }];
  let arguments = (ins
    Ext_AxisArrayAttr:$axes,
    DenseI64ArrayAttr:$threads,
    Variadic<Index>:$bounds,
    Variadic<AnyMemRef>:$inputs,
    Variadic<AnyMemRef>:$outputs,
    AffineMapArrayAttr:$indexing_maps,
    OptionalAttr<Ext_CombinerKind>:$combiner,
    OptionalAttr<TypedArrayAttrBase<TypedAttrInterface, "typed identities">>:$identity,
    UnitAttr:$accumulate,
    OptionalAttr<FragmentLayoutAttrInterface>:$layout,
    DefaultValuedAttr<I64Attr, "1">:$vector
  );
  let regions = (region SizedRegion<1>:$body, AnyRegion:$reducer);
  let assemblyFormat = [{
    $axes `threads` $threads
    (`layout` $layout^)?
    (`bounds` `(` $bounds^ `)`)?
    (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    `outs` `(` $outputs `:` type($outputs) `)`
    `maps` $indexing_maps
    (`combiner` `(` $combiner^ `)`)?
    (`identity` $identity^)?
    (`accumulate` $accumulate^)?
    attr-dict-with-keyword
    $body
    (`reducer` $reducer^)?
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getNumThreads();
    /// The layout of the spatial points, cyclic when none is given.
    ::ext::FragmentLayoutAttrInterface getLayoutOrDefault();
  }];
}

#endif // EXT_DIALECT_EXT_IR_EXTOPS_TD
