//===- ExtAttrs.td - ext attributes and enums --------------*- tablegen -*-===//

#ifndef EXT_DIALECT_EXT_IR_EXTATTRS_TD
#define EXT_DIALECT_EXT_IR_EXTATTRS_TD

include "ext/Dialect/Ext/IR/ExtDialect.td"
include "ext/Dialect/Ext/IR/ExtInterfaces.td"
include "mlir/IR/EnumAttr.td"

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

def Ext_AxisAttr : Ext_Attr<"Axis", "axis"> {
  let summary = "a named iteration axis: spatial or reduce, with its extent";
  let description = [{
    One axis of an `ext.compute` iteration domain. A `spatial` axis indexes
    the outputs; a `reduce` axis (TVM's `te.reduce_axis`) is combined over
    with the compute's combiner and does not appear in any output access.
    The axis iterates over `[0, extent)`.

    ```mlir
    #ext.axis<"k", reduce, 512>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"axis name, unique within a compute">:$name,
    EnumParameter<Ext_AxisKind>:$kind,
    "int64_t":$extent
  );
  let assemblyFormat = "`<` $name `,` $kind `,` $extent `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isReduce() const { return getKind() == ::ext::AxisKind::reduce; }
    bool isSpatial() const { return getKind() == ::ext::AxisKind::spatial; }
  }];
}

def Ext_RasterOrder : I32EnumAttr<"RasterOrder",
    "order in which linear tile indices walk the tile grid", [
    I32EnumAttrCase<"row", 0>,
    I32EnumAttrCase<"col", 1>
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

def Ext_CacheAttr : Ext_Attr<"Cache", "cache"> {
  let summary = "an input staged in shared memory, with its storage alignment";
  let description = [{
    Input `operand` of the scheduled compute is copied, one tile window at
    a time, into a shared-memory buffer laid out with `align`.

    ```mlir
    #ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]>
    ```
  }];
  let parameters = (ins
    "int64_t":$operand,
    OptionalArrayRefParameter<"::ext::StorageAlignAttr">:$align
  );
  let assemblyFormat = "`<` `operand` `=` $operand (`,` `align` `=` `[` $align^ `]`)? `>`";
}

def Ext_DataParallelAttr : Ext_Attr<"DataParallel", "data_parallel", [
    DeclareAttrInterfaceMethods<TileDecompositionAttrInterface>]> {
  let summary = "one CTA per output tile, all of its reduce iterations";
  let description = [{
    The classic decomposition: the grid has one CTA per output tile, and
    each CTA runs the tile's whole reduce loop, then its epilogue. No
    partial tiles, no fixup. Its wave efficiency on S SMs is
    t / (S * ceil(t / S)) for t tiles.
  }];
}

def Ext_ScheduleAttr : Ext_Attr<"Schedule", "schedule"> {
  let summary = "a TVM-style schedule attached to an ext.compute";
  let description = [{
    How `ext-apply-schedule` turns an `ext.compute` into an `ext.kernel`:

    * `tile`: the tile size of every axis, in axis order. A spatial axis
      tiled below its extent must be bound to blocks; the tile of the reduce
      axis split into iterations is its step per iteration.
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
    * `cache`: inputs staged in shared memory, each with its storage_align.
    * `decomposition`: a `TileDecompositionAttrInterface` attribute
      (`#ext.data_parallel` by default).
    * `raster`, `swizzle`: tiles are walked in `row` or `col` order, in
      groups of `swizzle` rows (or columns) for L2 reuse (1: no grouping).
    * `vector`, `unroll`: the widest vector (in elements, at most 16 bytes
      are moved at once) of global-to-shared copies and of shared-memory
      reads, and the unroll factor of the innermost loop. Where contiguity
      or alignment does not allow `vector`, a narrower width is used and a
      remark says why.

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
    OptionalParameter<"::ext::FragmentLayoutAttrInterface">:$layout
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

#endif // EXT_DIALECT_EXT_IR_EXTATTRS_TD
