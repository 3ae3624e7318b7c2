//===- ExtAttrs.td - ext attributes and enums --------------*- tablegen -*-===//

#ifndef EXT_DIALECT_EXT_IR_EXTATTRS_TD
#define EXT_DIALECT_EXT_IR_EXTATTRS_TD

include "ext/Dialect/Ext/IR/ExtDialect.td"
include "ext/Dialect/Ext/IR/ExtInterfaces.td"
include "mlir/IR/EnumAttr.td"
// The decompositions' names: one registry, shared with the model library.
include "ext/Model/TileWorkKindCases.td"

def Ext_AxisKind : I32EnumAttr<"AxisKind", "kind of an iteration axis", [
    I32EnumAttrCase<"spatial", 0>,
    I32EnumAttrCase<"reduce", 1>
  ]> {
  let cppNamespace = "::ext";
  let genSpecializedAttr = 0;
}

def Ext_CombinerKind : I32EnumAttr<"CombinerKind",
    "how values along the reduce axes are combined", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"prod", 1>,
    I32EnumAttrCase<"max", 2>,
    I32EnumAttrCase<"min", 3>,
    I32EnumAttrCase<"custom", 4>
  ]> {
  let cppNamespace = "::ext";
}

// An axis extent: a positive integer, or `?` (ShapedType::kDynamic).
def Ext_ExtentParameter : AttrParameter<"int64_t",
    "a positive extent, or ? for one known at run time"> {
  let parser = [{
    [&]() -> ::mlir::FailureOr<int64_t> {
      if (succeeded($_parser.parseOptionalQuestion()))
        return ::mlir::ShapedType::kDynamic;
      int64_t value;
      if ($_parser.parseInteger(value))
        return ::mlir::failure();
      return value;
    }()
  }];
  let printer = [{
    if (::mlir::ShapedType::isDynamic($_self))
      $_printer << "?";
    else
      $_printer << $_self;
  }];
}

def Ext_AxisAttr : Ext_Attr<"Axis", "axis"> {
  let summary = "a named iteration axis: spatial or reduce, with its extent";
  let description = [{
    One axis of an `ext.compute` iteration domain. A `spatial` axis indexes
    the outputs; a `reduce` axis (TVM's `te.reduce_axis`) is combined over
    with the compute's combiner and does not appear in any output access.
    The axis iterates over `[0, extent)`.

    The extent may be `?`: a symbolic size, known when the compute runs. It
    is bound to the dynamic operand dimensions the axis indexes alone
    (`memref<?x512xf32>` indexed `(i, k)` binds `i` to dimension #0); the
    compute's verifier requires at least one such dimension, and every
    dimension the axis indexes alone must be dynamic. Where several bind it,
    the lowering checks at run time that they agree. A schedule takes a
    dynamic extent on a spatial axis bound to blocks: the host computes the
    axis' tile count when the kernel runs (`ext.kernel tiles [%n, 5]`), the
    decomposition plans the grid from it, and the last tile is masked.

    `multiple_of = m` states that the extent is a multiple of `m`: a static
    extent must be one; for `?` it is a fact the lowering checks when the
    compute runs (a size that breaks it is refused with a message, never
    run), and a schedule whose tile on the axis divides `m` needs no mask
    on it (Triton's divisibility specialization, stated instead of
    inferred).

    ```mlir
    #ext.axis<"k", reduce, 512>
    #ext.axis<"i", spatial, ?>
    #ext.axis<"i", spatial, ?, multiple_of = 16>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"axis name, unique within a compute">:$name,
    EnumParameter<Ext_AxisKind>:$kind,
    Ext_ExtentParameter:$extent,
    DefaultValuedParameter<"int64_t", "1",
        "a number the extent is a multiple of">:$multiple_of
  );
  let builders = [
    AttrBuilder<(ins "::llvm::StringRef":$name, "::ext::AxisKind":$kind,
                     "int64_t":$extent), [{
      return $_get($_ctxt, name, kind, extent, 1);
    }]>
  ];
  let assemblyFormat =
      "`<` $name `,` $kind `,` $extent (`,` `multiple_of` `=` $multiple_of^)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isReduce() const { return getKind() == ::ext::AxisKind::reduce; }
    bool isSpatial() const { return getKind() == ::ext::AxisKind::spatial; }
    /// Whether the extent is `?` (known at run time).
    bool isDynamic() const { return ::mlir::ShapedType::isDynamic(getExtent()); }
  }];
}

def Ext_IndirectAttr : Ext_Attr<"Indirect", "indirect"> {
  let summary = "a symbol of an input's map bound to another input's element";
  let description = [{
    A data-dependent (indirect) read of an `ext.compute`: symbol `symbol` of
    input `input`'s indexing map is, at each point of the domain, the
    element of input `table` read through `table`'s own map (an integer:
    any signless width, or `index`). A paged KV cache reads a key as
    `Kc[T[b, j floordiv P], j mod P, d]`: input `Kc`'s map is
    `(b, j, d)[s0] -> (s0, j mod P, d)` and `s0` is bound to `T`'s element
    at `(b, j floordiv P)`.

    ```mlir
    #ext.indirect<input = 1, symbol = 0, table = 2>
    ```
  }];
  let parameters = (ins "int64_t":$input, "int64_t":$symbol, "int64_t":$table);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Ext_RasterOrder : I32EnumAttr<"RasterOrder",
    "order in which linear tile indices walk the tile grid", [
    I32EnumAttrCase<"row", 0>,
    I32EnumAttrCase<"col", 1>
  ]> {
  let cppNamespace = "::ext";
}

def Ext_CopyStaging : I32EnumAttr<"CopyStaging",
    "how a pipelined copy reaches shared memory", [
    I32EnumAttrCase<"async", 0>,
    I32EnumAttrCase<"registers", 1>
  ]> {
  let cppNamespace = "::ext";
}

//===----------------------------------------------------------------------===//
// Fragment layouts
//===----------------------------------------------------------------------===//

def Ext_CyclicLayoutAttr : Ext_Attr<"CyclicLayout", "cyclic", [
    DeclareAttrInterfaceMethods<FragmentLayoutAttrInterface>]> {
  let summary = "thread t of a dimension with H threads holds points t, t + H, ...";
  let description = [{
    The default fragment layout: along every dimension, thread `t` of `H`
    holds points `t, t + H, t + 2H, ...` (local index `l` is point
    `t + l * H`). A warp's threads touch consecutive points, which suits
    global stores and column reads of shared memory; a thread's own points
    are never consecutive (unless the dimension has one thread), so its
    shared reads are scalar.

    ```mlir
    #ext.cyclic
    ```
  }];
  // Its own parser: the generated one would drop a body (`#ext.cyclic<1>`).
  let hasCustomAssemblyFormat = 1;
}

def Ext_BlockedLayoutAttr : Ext_Attr<"BlockedLayout", "blocked", [
    DeclareAttrInterfaceMethods<FragmentLayoutAttrInterface>]> {
  let summary = "each thread holds runs of thread_tile consecutive points";
  let description = [{
    Along dimension `d`, thread `t` of `H` holds runs of `b = thread_tile[d]`
    consecutive points, the runs `H * b` apart: local index `l` is point
    `(l div b) * H * b + t * b + (l mod b)`. The tile must be a multiple of
    `H * b`. A thread's run is contiguous in a row-major shared tile, so it
    is read with one vector load (up to 16 bytes); a register-blocked GEMM
    uses `thread_tile = [4, 4]` (the classic 8x8 per thread is a 128-tile
    over 16 threads: two runs of 4 per dimension, 64 apart).

    ```mlir
    #ext.blocked<thread_tile = [4, 4]>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$thread_tile);
  let assemblyFormat = "`<` `thread_tile` `=` `[` $thread_tile `]` `>`";
  let genVerifyDecl = 1;
}

def Ext_MmaShape : I32EnumAttr<"MmaShape",
    "a warp-level matrix instruction (tensor core / matrix core)", [
    I32EnumAttrCase<"automatic", 0, "auto">,
    I32EnumAttrCase<"m16n8k16", 1>,
    I32EnumAttrCase<"m16n8k8", 2>,
    I32EnumAttrCase<"mfma_32x32x8", 3>,
    I32EnumAttrCase<"mfma_16x16x16", 4>,
    I32EnumAttrCase<"mfma_32x32x2", 5>,
    I32EnumAttrCase<"wgmma_k16", 6>
  ]> {
  let cppNamespace = "::ext";
  let genSpecializedAttr = 0;
}

def Ext_MmaLayoutAttr : Ext_Attr<"MmaLayout", "mma", [
    DeclareAttrInterfaceMethods<FragmentLayoutAttrInterface,
        ["getLocalShape"]>]> {
  let summary = "the per-lane accumulator layout of a warp-level MMA instruction";
  let description = [{
    Names a warp-level matrix instruction and, as a fragment layout, the
    tile distribution its accumulators impose: the tile (M x N) is split
    over `warps = [WM, WN]` warps (wavefronts on AMD), each warp's tile into
    instruction tiles, and every instruction tile's accumulators sit in the
    lanes as the instruction defines them.

    * `m16n8k16`: NVIDIA `mma.sync.aligned.m16n8k16`, f16 or bf16 inputs
      with f32 accumulation (sm_80 and later). Lane `l` holds rows
      `l / 4` and `l / 4 + 8`, columns `2 (l mod 4)` and `2 (l mod 4) + 1`.
    * `m16n8k8`: the same for tf32 (f32 inputs rounded to tf32).
    * `mfma_32x32x8`, `mfma_16x16x16`: AMD `v_mfma_f32_32x32x8f16` /
      `v_mfma_f32_16x16x16f16` (gfx908, gfx90a, gfx94x), f16 inputs, f32
      accumulation on 64-lane wavefronts; `mfma_32x32x2`: f32 inputs
      (`v_mfma_f32_32x32x2f32`). Lane `l` holds column `l mod 32` (`l mod
      16`) and rows `8 i + 4 (l / 32) + j` (`4 (l / 16) + j`).
    * `wgmma_k16`: NVIDIA's warpgroup MMA, `wgmma.mma_async.m64nNk16` (sm_90a),
      f16 or bf16 inputs from shared memory with f32 accumulation. A
      warpgroup (4 consecutive warps) computes 64 x N; each warp's 16 rows
      sit in its lanes as `m16n8k16`'s accumulators do (so fragments,
      epilogues and stores are the same), hence `warps = [WM, 1]` with 16
      rows per warp, WM a multiple of 4, and N (the tile's) at most 256.
      The operands' shared tiles are the instruction's canonical layouts:
      A K-major, rows of 32, 64 or 128 bytes swizzled by
      `#ext.swizzle<bits = 1|2|3, base = 3, shift = 3>` (its 32/64/128-byte
      mode); B likewise K-major ([N][K]), or N-major ([K][N]). A tile wider
      than one such row is column panels of it (the swizzle's `panel`, 64
      for f16 at 128 bytes).
    * `auto` (a schedule's `mma = auto` only): `ext-apply-schedule` picks the
      instruction for the chip and the inputs' type: `wgmma_k16` on sm_90a
      for f16 and bf16 where the schedule fits it (its warps rule, and A
      and B cached in one of the layouts above), `m16n8k16` on NVIDIA
      otherwise, MFMA on AMD.

    In a schedule, `mma = #ext.mma<m16n8k16>` with `warps = [WM, WN]`;
    `ext-apply-schedule` gives fragments and tile computes the layout with
    the warps. `ext-tile-ops-to-threads` lowers a product under a `sum`
    combiner on such a fragment to `nvgpu.ldmatrix` + `nvgpu.mma.sync` or
    `amdgpu.mfma`; other bodies take the element-wise path.

    ```mlir
    #ext.mma<m16n8k16>
    #ext.mma<mfma_32x32x8, warps = [2, 2]>
    ```
  }];
  let parameters = (ins EnumParameter<Ext_MmaShape>:$shape,
                        OptionalArrayRefParameter<"int64_t">:$warps);
  let assemblyFormat = "`<` $shape (`,` `warps` `=` `[` $warps^ `]`)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The instruction's M, N and K.
    int64_t getM() const;
    int64_t getN() const;
    int64_t getK() const;
    /// Lanes that execute one instruction together (32 or 64).
    int64_t getWarpSize() const;
    bool isNvidia() const;
    /// Whether the instruction takes inputs of element type `t`.
    bool takesInputType(::mlir::Type t) const;
    /// The input types it takes, for messages ("f16 or bf16").
    ::llvm::StringRef inputTypesText() const;
    /// Whether `chip` has the instruction (ext/Model/Chip.h).
    bool existsOn(const ::ext::ChipInfo &chip) const;
    /// Whether the instruction is sm_90's warpgroup MMA (wgmma).
    bool isWarpgroup() const {
      return getShape() == ::ext::MmaShape::wgmma_k16;
    }
    /// Accumulators per lane of one instruction.
    int64_t getAccumulatorsPerLane() const {
      return getM() * getN() / getWarpSize();
    }
  }];
}

def Ext_SliceLayoutAttr : Ext_Attr<"SliceLayout", "slice", [
    DeclareAttrInterfaceMethods<FragmentLayoutAttrInterface,
        ["getLocalShape"]>]> {
  let summary = "a parent layout with one dimension removed: per-row values of an MMA fragment";
  let description = [{
    The points of a tile that has the parent layout's dimensions less `dim`:
    a thread holds point `r` if it holds some point of the parent fragment
    whose other coordinates are `r`, so the threads that hold a parent row
    all hold (a copy of) that row's value. Triton calls it a slice layout;
    FlashAttention keeps its row max and row sum this way, in registers
    next to the scores whose rows they summarize.

    Today the parent is an `#ext.mma` accumulator layout with `warps = [WM,
    1]` and `dim = 1` (the columns): a 1-D tile of the fragment's rows over
    the same `WM` warps (`threads = [WM x lanes]`), each lane holding the
    rows its accumulators are in (2 per 16-row instruction tile on
    NVIDIA, the 4 lanes of a quad sharing them). Its local index is the
    parent's row-local index, so a tile compute of the parent layout reads
    and writes a slice fragment through a map to its row axis, and a
    fragment reduction along the columns leaves the row's value in every
    lane that holds the row (no shared memory, no barrier). A tile compute
    of the slice layout is element-wise (each lane computes its rows, the
    copies alike); writing memory other than a fragment, it stores from one
    lane per row (the one holding the row's first column).

    ```mlir
    %m = ext.alloc_fragment threads [256]
           layout(#ext.slice<dim = 1, parent = #ext.mma<wgmma_k16, warps = [8, 1]>>)
           : memref<128xf32>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "::ext::MmaLayoutAttr":$parent);
  let assemblyFormat = "`<` `dim` `=` $dim `,` `parent` `=` qualified($parent) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether the thread at `threadCoords` is the one that stores the point
    /// at `locals` (the lane holding the row's first column).
    ::mlir::Value emitIsOwner(::mlir::OpBuilder &builder, ::mlir::Location loc,
                              ::llvm::ArrayRef<int64_t> shape,
                              ::llvm::ArrayRef<int64_t> threads,
                              ::mlir::ValueRange threadCoords,
                              ::mlir::ValueRange locals) const;
  }];
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

def Ext_StorageAlignAttr : Ext_Attr<"StorageAlign", "storage_align"> {
  let summary = "TVM's storage_align: pad a shared buffer's stride";
  let description = [{
    Pads the stride of dimension `dim` of a shared-memory buffer so that
    `stride % factor == offset` (TVM's `storage_align(axis, factor,
    offset)`): `stride += (factor + offset - stride % factor) % factor`.
    Strides are computed from the innermost dimension out, each from the
    padded stride of the next. With 32 banks of 4 bytes, padding a row of
    32 floats to 33 puts a column's elements in 32 different banks.

    ```mlir
    #ext.storage_align<dim = 0, factor = 32, offset = 1>
    ```
  }];
  let parameters = (ins "int64_t":$dim, "int64_t":$factor, "int64_t":$offset);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Ext_SwizzleAttr : Ext_Attr<"Swizzle", "swizzle"> {
  let summary = "CUTLASS's Swizzle<B, M, S>: an XOR of address bits";
  let description = [{
    Permutes the elements of a shared tile without padding it: the
    row-major element offset `o` of an element is stored at

    ```
    o ^ ((o >> shift) & (((1 << bits) - 1) << base))
    ```

    that is, the `bits` bits of `o` starting at bit `base + shift` are
    XORed into the `bits` bits starting at bit `base` (CUTLASS's
    `Swizzle<B, M, S>` with `B = bits`, `M = base`, `S = shift`). With
    32 x 32 f32 tiles, `bits = 5, base = 0, shift = 5` XORs the row into
    the column, so a column's 32 elements land in 32 different banks;
    for f16 tiles read as 16-byte vectors, `base = 3` keeps each group of
    8 halves together.

    Every shift of at least 1 makes this a bijection on all offsets (each
    changed bit is XORed with a higher, unchanged one); a tile needs it to
    map the tile's offsets `[0, n)` onto themselves, which the ops that
    take a swizzle check.

    With `panel = P` (0: none), the tile's innermost dimension is cut into
    column panels of P elements stored one after another, each holding every
    row's P elements: `o` is the row-major offset within the panel plus the
    panel's index times its size, then swizzled. This is the layout of wgmma's
    N-major operands wider than one swizzle row: `panel = 64` with the
    128-byte swizzle of f16 makes a [K][256] tile four [K][64] panels of
    128-byte rows. The innermost dimension must be a multiple of P.

    ```mlir
    #ext.swizzle<bits = 5, base = 0, shift = 5>
    #ext.swizzle<bits = 3, base = 3, shift = 3, panel = 64>
    ```
  }];
  let parameters = (ins "int64_t":$bits, "int64_t":$base, "int64_t":$shift,
                        DefaultValuedParameter<"int64_t", "0">:$panel);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Where element offset `offset` is stored.
    int64_t apply(int64_t offset) const {
      int64_t mask = ((int64_t(1) << getBits()) - 1) << getBase();
      return offset ^ ((offset >> getShift()) & mask);
    }
    /// An offset in [0, n) that the swizzle moves out of [0, n), if any:
    /// then it is not a bijection on a tile of n elements (-1: n is too
    /// large to search, beyond any shared memory).
    std::optional<int64_t> findEscape(int64_t n) const;
  }];
}

def Ext_CacheAttr : Ext_Attr<"Cache", "cache"> {
  let summary = "an operand staged in shared memory, laid out padded or swizzled";
  let description = [{
    Operand `operand` of the scheduled compute (inputs first, then outputs)
    is staged in a shared-memory buffer laid out with `align` (rows padded
    by storage_align) or with `swizzle` (an XOR permutation of the
    elements, no padding): the two are alternatives. Copies into a swizzled
    tile move at most the swizzle's chunk (2^base elements) at a time, and
    pipelined `stages` work with either layout.

    An input is copied into it one tile window at a time. An output (of a
    compute with reduce axes: TVM's `cache_write`, CUTLASS's epilogue
    shared storage) is written through it: the epilogue stores the
    accumulator fragments into the shared tile by their layout, then the
    CTA stores the tile to the output in coalesced rows (`ext.store_tile`,
    vector-wide as the schedule's `vector` allows), skipping what lies
    beyond a ragged edge. `ext-gpu-reuse-shared-memory` can give the staging
    tile the bytes of the main loop's tiles, which are dead by then.

    ```mlir
    #ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]>
    #ext.cache<operand = 0, swizzle = #ext.swizzle<bits = 5, base = 0, shift = 5>>
    ```
  }];
  let parameters = (ins
    "int64_t":$operand,
    OptionalArrayRefParameter<"::ext::StorageAlignAttr">:$align,
    OptionalParameter<"::ext::SwizzleAttr">:$swizzle
  );
  // `align` and `swizzle` are optional keywords after a comma, which ODS
  // formats cannot express (the comma would start the first group only).
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Ext_AttachAttr : Ext_Attr<"Attach", "at"> {
  let summary = "another compute, attached to a scheduled one at a tile axis";
  let description = [{
    Names a compute of the same block (by its `name`) and an axis of the
    scheduled compute (the anchor) where it runs, as TVM's `compute_at` and
    `reverse_compute_at` take a block and a loop. In a schedule's
    `reverse_compute_at` list, the named compute is an element-wise
    consumer of the anchor's output, applied to each finished output tile
    in registers before the store; the axis must be a spatial axis of the
    anchor (the consumer runs once per output tile). In a `compute_at`
    list, it is a producer of the anchor's inputs, computed in the kernel
    for the region each tile reads; the axis must be bound to blocks.

    ```mlir
    #ext.at<"D", "j">
    ```
  }];
  let parameters = (ins "::mlir::StringAttr":$compute,
                        "::mlir::StringAttr":$axis);
  let assemblyFormat = "`<` $compute `,` $axis `>`";
}

def Ext_DataParallelAttr : Ext_Attr<"DataParallel", TileWork_DataParallel.str, [
    DeclareAttrInterfaceMethods<TileDecompositionAttrInterface,
        ["predictWork", "plansAtLaunch", "emitLaunchPlan",
         "emitLaunchWorkUnits"]>]> {
  let summary = "one CTA per output tile, all of its reduce iterations";
  let description = [{
    The classic decomposition: the grid has one CTA per output tile, and
    each CTA runs the tile's whole reduce loop, then its epilogue. No
    partial tiles, no fixup. Its wave efficiency on S SMs is
    t / (S * ceil(t / S)) for t tiles.

    ```mlir
    #ext.data_parallel
    ```
  }];
  // Its own parser: the generated one would drop a body
  // (`#ext.data_parallel<1>`).
  let hasCustomAssemblyFormat = 1;
}

def Ext_SplitKMode : I32EnumAttr<"SplitKMode",
    "how split-K combines the slices of a tile", [
    I32EnumAttrCase<"serial", 0>,
    I32EnumAttrCase<"parallel", 1>
  ]> {
  let cppNamespace = "::ext";
  let genSpecializedAttr = 0;
}

def Ext_PersistentAttr : Ext_Attr<"Persistent", "persistent", [
    DeclareAttrInterfaceMethods<TileDecompositionAttrInterface,
        ["verifyProblem", "predictWork", "plansAtLaunch", "emitLaunchPlan",
         "emitLaunchWorkUnits", "getAutoCandidates"]>]> {
  let summary = "a persistent grid: each CTA walks whole tiles a grid apart";
  let description = [{
    `grid` CTAs (the SM count by default: `sms`, or the chip's; never more
    than the tiles), CTA `c` running tiles `c, c + grid, c + 2 grid, ...`
    whole, each followed by its epilogue. No partial tiles, no fixup; the
    wave efficiency is data-parallel's, but a CTA's per-CTA setup (a warp-
    specialized pipeline's mbarriers, its registers) is paid once, and its
    producer warpgroup loads the next tile's first stages while the
    consumers store the last one's. `auto` does not weigh it: its cost model
    predicts it as data-parallel.

    ```mlir
    #ext.persistent
    #ext.persistent<grid = 66>
    ```
  }];
  let parameters = (ins
    DefaultValuedParameter<"int64_t", "0">:$grid,
    DefaultValuedParameter<"int64_t", "0">:$sms
  );
  let assemblyFormat = "(`<` struct(params)^ `>`)?";
  let genVerifyDecl = 1;
}

def Ext_WarpSpecialization : I32EnumAttr<"WarpSpecialization",
    "which warps of a CTA load the k-loop's tiles and which compute", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"cooperative", 1>,
    I32EnumAttrCase<"pingpong", 2>
  ]> {
  let cppNamespace = "::ext";
  let genSpecializedAttr = 0;
}

def Ext_SplitKAttr : Ext_Attr<"SplitK", TileWork_SplitKSerial.str, [
    DeclareAttrInterfaceMethods<TileDecompositionAttrInterface,
        ["verifyProblem", "getNumPartials", "getNumReductionBlocks",
         "emitReductionUnits", "predictWork", "getAutoCandidates",
         "plansAtLaunch", "emitLaunchPlan", "emitLaunchWorkUnits",
         "emitLaunchReductionUnits"]>]> {
  let summary = "each tile's reduce iterations split into `slices` CTAs";
  let description = [{
    The grid has `slices` CTAs per tile: CTA `c` runs slice `c / tiles` of
    tile `c % tiles`, the iterations `[s * iters / slices, (s + 1) * iters /
    slices)` (shares within one iteration of each other).

    * `serial`: slices `0 .. slices-2` store their partial accumulators in a
      workspace and set a flag; the last slice (the highest CTA ids) writes
      the tile. The partials are combined along a fixed binomial tree (as
      in `stream_k`): slice `s` first combines slices `s - 1`, `s - 2`,
      `s - 4`, ... as far as its subtree reaches, so the last slice
      combines `ceil(log2(slices))` partials, every wait is on a CTA that
      started earlier, and results are bitwise identical run to run.
    * `parallel`: every slice stores its partial tile; a second launch, one
      CTA per tile, combines the `slices` partials in slice order and writes
      the tile. No CTA waits on another.

    The combine uses the compute's combiner, custom reducers included.

    ```mlir
    #ext.split_k<slices = 4, mode = serial>
    ```
  }];
  let parameters = (ins
    "int64_t":$slices,
    DefaultValuedParameter<"::ext::SplitKMode", "::ext::SplitKMode::serial">:$mode
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

class Ext_StreamKFamilyAttr<string name, string mnemonic, string sum>
    : Ext_Attr<name, mnemonic, [
        DeclareAttrInterfaceMethods<TileDecompositionAttrInterface,
            ["verifyProblem", "getNumPartials", "predictWork",
             "getAutoCandidates", "plansAtLaunch", "emitLaunchPlan",
             "emitLaunchWorkUnits"]>]> {
  let summary = sum;
  let genVerifyDecl = 1;
  let assemblyFormat = "(`<` struct(params)^ `>`)?";
}

def Ext_StreamKAttr : Ext_StreamKFamilyAttr<"StreamK", TileWork_StreamK.str,
    "Stream-K: all tiles' iterations shared evenly by `grid` CTAs"> {
  let description = [{
    Stream-K (Osama et al., PPoPP 2023). The `tiles * iters` iterations of
    all tiles, in tile order, are cut into `grid` contiguous ranges: CTA `c`
    runs `[c * N / grid, (c + 1) * N / grid)`, so every CTA's share is within
    one iteration of every other's and a tile may be split at any
    iteration. `grid` defaults to the SM count (`sms`, or the chip's).

    The CTA that runs a tile's last iteration owns it: the other CTAs that
    touch the tile (always lower CTA ids) store their partial accumulators
    in a workspace slot and set its flag after a release fence. The
    partials meet along a fixed binomial tree: ranking the tile's CTAs by
    distance from the owner (the owner 0), rank `r` waits (acquire) for and
    combines ranks `r + 1, r + 2, r + 4, ...` below `r + lowbit(r)`, then
    stores the result; the owner combines `ceil(log2(n + 1))` partials of
    `n` contributors instead of `n` in a row. The tree is fixed, so the
    result is bitwise identical run to run, and every wait is on a CTA
    that started earlier: no deadlock for any grid, even one larger than
    the CTAs the chip holds at once. A CTA runs its units from its last
    iteration backward, so it stores its partial first and combines last.

    ```mlir
    #ext.stream_k
    #ext.stream_k<grid = 7>
    ```
  }];
  let parameters = (ins
    DefaultValuedParameter<"int64_t", "0">:$grid,
    DefaultValuedParameter<"int64_t", "0">:$sms
  );
}

def Ext_StreamKDPAttr : Ext_StreamKFamilyAttr<"StreamKDP", TileWork_StreamKDP.str,
    "data-parallel full waves, Stream-K over the remaining tiles"> {
  let description = [{
    On `S` SMs, `tiles mod S` tiles are left over after the full waves: one
    wave's worth of CTAs (at most one per iteration) shares their
    iterations Stream-K style, and the remaining tiles get one CTA each.
    Full waves only: data-parallel. `sms` overrides the chip's SM count.

    ```mlir
    #ext.stream_k_dp
    #ext.stream_k_dp<sms = 108>
    ```
  }];
  let parameters = (ins DefaultValuedParameter<"int64_t", "0">:$sms);
}

def Ext_StreamK2TileAttr : Ext_StreamKFamilyAttr<"StreamK2Tile",
    TileWork_StreamK2Tile.str, "the paper's hybrid: two tiles of Stream-K per CTA, then DP"> {
  let description = [{
    The hybrid the Stream-K paper recommends: with `tiles = F * S + R` on
    `S` SMs and `R != 0`, the last full wave and the partial one (`S + R`
    tiles, between one and two tiles per CTA) are shared Stream-K style by
    `S` CTAs, and the other `(F - 1) * S` tiles get one CTA each. With fewer
    tiles than SMs it is `stream_k` on `S` CTAs; with full waves only,
    data-parallel.

    ```mlir
    #ext.stream_k_2tile
    ```
  }];
  let parameters = (ins DefaultValuedParameter<"int64_t", "0">:$sms);
}

def Ext_AutoAttr : Ext_Attr<"Auto", "auto", [
    DeclareAttrInterfaceMethods<TileDecompositionAttrInterface,
        ["verifyProblem", "getAutoCandidates", "plansAtLaunch",
         "emitLaunchPlan", "emitLaunchWorkUnits"]>]> {
  let summary = "the decomposition a cost model predicts fastest";
  let description = [{
    `ext-apply-schedule` replaces it with the candidate of the shortest
    predicted time among every registered decomposition's candidates that
    can run the problem (ext/Dialect/Ext/IR/DecompositionRegistry.h):
    data-parallel, split-K (serial and parallel, 2, 4, 8 and 16 slices),
    `stream_k`, `stream_k_dp`, `stream_k_2tile`, and those plugins
    register. The model (ext/Model/TileWork.h) schedules each candidate's
    CTAs on the SMs in launch order, counting main-loop iterations, waves,
    and the cost of storing and combining partial tiles (from the tile's
    reduce step), in time and memory independent of the tile count;
    `report=true` prints every candidate's predicted utilization. `sms`
    overrides the chip's SM count. An `ext.kernel` over a static tile
    count must name the chosen decomposition: there `auto` itself does not
    lower.

    Over a tile count known only at launch (a blocked axis of dynamic
    extent), the choice is made at launch with the same model: the host
    code asks ext's launch planner (`__ext_choose_decomposition`,
    ext/Runtime/LaunchPlannerABI.h) for the best of data-parallel,
    `stream_k` on the SM count, `stream_k_dp` and `stream_k_2tile`, which
    share one kernel (each is a Stream-K region of some tiles on some CTAs,
    then one CTA per remaining tile), and computes that plan's numbers;
    split-K, whose slices would need a second kernel body, is left out.

    ```mlir
    #ext.auto
    ```
  }];
  let parameters = (ins DefaultValuedParameter<"int64_t", "0">:$sms);
  let assemblyFormat = "(`<` struct(params)^ `>`)?";
  let genVerifyDecl = 1;
}

def Ext_ScheduleAttr : Ext_Attr<"Schedule", "schedule"> {
  let summary = "a TVM-style schedule attached to an ext.compute";
  let description = [{
    How `ext-apply-schedule` turns an `ext.compute` into an `ext.kernel`:

    * `tile`: the tile size of every axis, in axis order. A tile may be
      larger than its axis (a 64-row tile for M = 1): the points past the
      extent are masked like a ragged edge tile's (zero-filled copies,
      guarded stores). A spatial axis tiled below its extent must be bound
      to blocks; a reduce axis whose tile is not its extent is split into
      iterations, the tile being its step per iteration (a larger tile is
      one zero-filled step).
    * `blocks`: the axes whose tiles index the grid. A reduce axis may be
      bound to blocks only with a decomposition that splits the reduction.
    * `threads`: threads per block along every axis, in axis order (their
      product is the block size). A reduce axis bound to more than one
      thread is covered by one tile and combined across threads with a
      shuffle and shared-memory tree.
    * `layout`: how a tile's spatial points are distributed over the
      threads (a `FragmentLayoutAttrInterface`, one entry per spatial axis):
      `#ext.cyclic` by default (thread `t` of an axis takes points `t, t +
      threads, ...`), or `#ext.blocked<thread_tile = [...]>` (runs of
      consecutive points per thread, read from shared memory as vectors).
    * `mma`, `warps`: run a product under a `sum` combiner (`C += A * B`,
      with `arith.extf` of the inputs allowed) on tensor cores: `mma =
      #ext.mma<m16n8k16>` (or `m16n8k8`, `mfma_32x32x8`, `mfma_16x16x16`,
      `mfma_32x32x2`) or `mma = auto` (the instruction for the chip and the
      inputs' type: on sm_90a `wgmma_k16` where the schedule is one it runs,
      warps down M and both inputs cached in a swizzled layout its
      descriptors read, else mma.sync `m16n8k16`), and `warps = [WM, WN]` splitting the M x N tile over
      warps. The fragment layout becomes the instruction's accumulator
      layout; the threads must number `WM * WN` warps, the tile must be a
      multiple of warps times the instruction's shape, and both inputs must
      be cached in shared memory.
    * `cache`: inputs staged in shared memory, each with its storage_align.
    * `decomposition`: a `TileDecompositionAttrInterface` attribute
      (`#ext.data_parallel` by default; `#ext.split_k`, `#ext.stream_k`,
      `#ext.stream_k_dp`, `#ext.stream_k_2tile`, `#ext.auto`).
    * `raster`, `swizzle`: tiles are walked in `row` or `col` order, in
      groups of `swizzle` rows (or columns) for L2 reuse (1: no grouping).
    * `vector`, `unroll`: the widest vector (in elements, at most 16 bytes
      are moved at once) of global-to-shared copies and of shared-memory
      reads, and the unroll factor of the innermost loop. Where contiguity
      or alignment does not allow `vector`, a narrower width is used and a
      remark says why.
    * `stages`: shared-memory buffers per cached operand (1 by default: one
      buffer, each k-step copies then computes). With `N >= 2` the k-loop is
      software-pipelined: a prologue issues the copies of the first `N - 1`
      k-steps, each step waits for its oldest stage, passes one barrier,
      issues the copy of the step `N - 1` ahead into the buffer the previous
      step freed, and computes; needs a reduce axis split into k-steps and a
      cached operand.
    * `reverse_compute_at`: element-wise consumers of the output fused into
      the kernel (`#ext.at<"D", "j">`: compute `D` at the output tile, a
      spatial axis `j` naming its loop). `D` reads the anchor's output at the point it writes; its
      other inputs are read at the tile's points, and its body runs on the
      accumulator in registers before the store (GEMM + bias + ReLU, a cast
      to f16). `D`'s output is stored instead of the anchor's, which is
      stored too only if anything else uses it. `ext-apply-schedule`
      checks the fusion and erases `D`.
    * `compute_at`: producers of the inputs computed inside the kernel
      (`#ext.at<"P", "i">`: compute `P` at the tile loop of blocked axis
      `i`), a reduction too: for each tile, `P` runs over exactly the
      region of its output the tile reads (softmax's row max and row sum at
      the row tile, LayerNorm's mean and variance), its reduce axes whole,
      into a shared-memory buffer the compute then reads instead of `P`'s
      output. `P` reads its inputs from the compute's shared tiles where
      they cover what it reads (one read of `X` from global memory for all
      of softmax), from global memory otherwise, and from the buffers of
      producers attached before it. Its threads are the block's: a
      reduction puts up to 256 of them on its innermost reduce axis (a
      shuffle and shared-memory combine), the rest on its spatial axes.
      The region may change only with the blocked axes up to `i` in
      `blocks` order; `P`'s output is stored too only if anything else
      reads it.
    * `compute_inline`: element-wise producers of the inputs substituted
      into the compute (`["T"]`, by name): the compute reads T's inputs
      instead, through T's maps, and applies T's body where it read T's
      element (a cast, a scale, a dequantization); a cache of T's output
      caches T's inputs. T is erased when nothing else reads its output.
      Producers attached with `compute_at` that read T get it substituted
      too.
    * `async`: with `stages >= 2`, whether global-to-shared copies may be
      asynchronous (`cp.async` through `nvgpu.device_async_copy` on sm_80
      and later; `true` by default). Elsewhere (AMD, older NVIDIA chips,
      `async = false`) the next stage goes through registers: loaded before
      the step's compute, stored to shared memory after it.
    * `tma`: with `stages >= 2` on sm_90 and later, the cached inputs'
      tiles are loaded by the Tensor Memory Accelerator (`false` by
      default): one thread issues a bulk tensor copy per input and k-step
      (`cp.async.bulk.tensor`, the tensor maps built by the host code
      before the launch, out-of-bounds elements zero), and each stage has
      an mbarrier its copies complete (`arrive.expect_tx`) and the threads
      wait on (`try_wait.parity`, the stage's phase). Each cached tile must
      be a TMA box: dense rows (no `align`) of a multiple of 16 bytes, or
      rows of exactly 32, 64 or 128 bytes swizzled as wgmma reads them
      (`#ext.swizzle<bits = 1|2|3, base = log2(16 / element bytes), shift =
      3>`); each input row-major with rows of a multiple of 16 bytes; one
      work unit per CTA (data-parallel or split-K decompositions).
    * `specialize`: with `tma = true` on warpgroup MMAs (`wgmma_k16`),
      `cooperative` adds a producer warpgroup to the CTA (`none` by
      default). Its one issuing thread runs the k-loop's copies: for each
      k-step it waits on the stage's *empty* mbarrier, then arrives with
      `expect_tx` on its *full* mbarrier and issues the bulk tensor copies.
      The `threads` of the schedule are the consumers: all their
      warpgroups compute every tile together, wait on the stage's full
      mbarrier and, once `wgmma.wait_group` has retired the step's MMAs,
      release it (one arrival per consumer warpgroup). The producer keeps
      40 registers per thread (`setmaxnreg.dec`), the consumers take the
      rest (`setmaxnreg.inc`, 232 with two consumer warpgroups). The
      pipeline's stage and phase run on across the work units of a CTA.
      Any decomposition but parallel split-K (whose second launch has no
      producer) and `auto`: `#ext.persistent` walks tiles with one pipeline
      per CTA, Stream-K's and serial split-K's fixups synchronize the
      consumers alone (`bar.sync 1, N`).
      `pingpong` (CUTLASS's ping-pong kernel) gives each tile to one
      consumer warpgroup (`threads` of 128, `warps = [4, 1]`): the CTA has
      two, which take the CTA's tiles in turn, so one's epilogue runs while
      the other's MMAs do; both share the producer's pipeline, the stages
      filled in tile order. It needs `#ext.persistent` (several tiles per
      CTA).
    * `cluster`: with `specialize`, `[CM, CN]` CTAs of the last two blocked
      axes' tiles form a thread block cluster (sm_90; at most 8 CTAs), so
      that the inputs they share are read from L2 once: the tile of an
      input that does not move with the row tiles (B of a GEMM) is loaded
      by the cluster column's first CTA and multicast into the shared
      memory of the CM CTAs that use it, and likewise an input that does not
      move with the column tiles (A) across the CN CTAs of a cluster row
      (`cp.async.bulk.tensor` with a CTA mask). A stage is refilled once the
      consumers of every CTA it is written into have released it: each
      consumer warpgroup arrives on its own CTA's *empty* mbarrier and, via
      distributed shared memory (`mapa`), on those of its cluster row and
      column. The decomposition (data-parallel or `#ext.persistent`) then
      deals out clusters: its units are cluster tiles (`CM x CN` tiles; those
      past the grid's edge compute zeros and store nothing) and a persistent
      `grid` counts clusters.

    * `online`: the online-softmax rewrite (FlashAttention's), `["M", "L",
      ...]` by name. `M` is a max reduction over the compute's reduce axis
      `j` (the keys); the compute (a sum over `j`) and each `L` (sums over
      `j`) read `M` only inside a factor `exp(u - h(M))` (or `exp2`) of
      their summands, the compute's summand a product `P * V` of that
      factor and a value input's element. The kernel computes all of them
      in one pass over `j`: per k-step the running maximum, each sum and
      the accumulator rescaled by `exp(h(m_old) - h(m_new))`, the step's
      terms added (docs/Attention.md). A producer of the scores attached at
      `j` (`compute_at = [#ext.at<"S", "j">]`) runs per k-step on tensor
      cores under `mma`, kept in registers where its rows each sit in one
      warp; `reverse_compute_at`'s consumer may read `M` and the `L`s,
      which are stored to their outputs only when something else reads
      them; `stages = N` copies the windows that move with `j` N - 1 steps
      ahead. The decomposition must be data-parallel.
    * `fast_math`: the kernel's f32 math in its fast forms (`true` by
      default; `false` keeps the precise ones): `ext-gpu-fast-math` marks
      multiplies, adds and subtracts `contract` (fused into FMAs; not in an
      online softmax, whose key step would need more registers), writes
      `exp(x)` as `exp2(x * log2 e)` (an FMA where `x` is a difference) and
      marks exponentials, divisions, `rsqrt` and `tanh` `afn`, which the
      NVVM lowering turns into `ex2.approx.ftz`, a multiply by
      `rcp.approx.ftz`, `rsqrt.approx.ftz` and `tanh.approx` (sm_75 and
      later) and the emulator computes within those instructions' error
      (docs/FastMath.md).

    ```mlir
    #ext.schedule<tile = [64, 64, 16], blocks = ["i", "j"], threads = [16, 16, 1],
                  cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$tile,
    OptionalArrayRefParameter<"::mlir::StringAttr">:$blocks,
    ArrayRefParameter<"int64_t">:$threads,
    OptionalArrayRefParameter<"::ext::CacheAttr">:$cache,
    OptionalParameter<"::ext::TileDecompositionAttrInterface">:$decomposition,
    DefaultValuedParameter<"::ext::RasterOrder", "::ext::RasterOrder::row">:$raster,
    DefaultValuedParameter<"int64_t", "1">:$swizzle,
    DefaultValuedParameter<"int64_t", "1">:$vector,
    DefaultValuedParameter<"int64_t", "1">:$unroll,
    OptionalParameter<"::ext::FragmentLayoutAttrInterface">:$layout,
    OptionalParameter<"::ext::MmaLayoutAttr">:$mma,
    OptionalArrayRefParameter<"int64_t">:$warps,
    DefaultValuedParameter<"int64_t", "1">:$stages,
    DefaultValuedParameter<"bool", "true">:$async,
    OptionalArrayRefParameter<"::ext::AttachAttr">:$compute_at,
    OptionalArrayRefParameter<"::ext::AttachAttr">:$reverse_compute_at,
    OptionalArrayRefParameter<"::mlir::StringAttr">:$compute_inline,
    OptionalArrayRefParameter<"::mlir::StringAttr">:$online,
    DefaultValuedParameter<"bool", "false">:$tma,
    DefaultValuedParameter<"::ext::WarpSpecialization",
                           "::ext::WarpSpecialization::none">:$specialize,
    OptionalArrayRefParameter<"int64_t">:$cluster,
    DefaultValuedParameter<"bool", "true">:$fast_math
  );
  // Keyword = value pairs in any order, comma-separated (a custom parser:
  // ODS formats cannot combine optional parameters with comma separators).
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The decomposition, data-parallel when none is given.
    ::ext::TileDecompositionAttrInterface getDecompositionOrDefault() const;
    int64_t getNumThreads() const;
    /// The fragment layout, cyclic when none is given.
    ::ext::FragmentLayoutAttrInterface getLayoutOrDefault() const;
  }];
}

//===----------------------------------------------------------------------===//
// Target
//===----------------------------------------------------------------------===//

def Ext_TargetAttr : Ext_Attr<"Target", "target"> {
  let summary = "the chip a module's kernels are compiled for";
  let description = [{
    Set once on a `builtin.module` as its `ext.target` attribute (by
    `ext-set-target{chip=...}`, which the pipelines run first, or by the
    user) and read by every pass and runner that needs a hardware fact: the
    SM or CU count, the warp or wave width, shared-memory limits and banks,
    registers, and which matrix and copy instructions exist. The facts
    themselves are ext's one chip model (`ext/Model/Chip.h`); the
    attribute names the chip and may override its SM count (`sms`, for a
    product with fewer SMs than the chip's usual one).

    A pass given `chip=` sets the target where the module has none; a `chip=`
    that contradicts the module's target is an error.

    ```mlir
    module attributes {ext.target = #ext.target<chip = "sm_90a">} { ... }
    module attributes {ext.target = #ext.target<chip = "gfx942", sms = 228>} { ... }
    ```
  }];
  let parameters = (ins
    StringRefParameter<"chip name: sm_NN[a|f] or gfxNNN">:$chip,
    DefaultValuedParameter<"int64_t", "0",
                           "SM/CU count (0: the chip's)">:$sms);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The chip's facts, the SM count override applied.
    ::ext::ChipInfo getInfo() const;
  }];
}

#endif // EXT_DIALECT_EXT_IR_EXTATTRS_TD
