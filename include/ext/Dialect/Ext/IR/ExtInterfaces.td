//===- ExtInterfaces.td - ext interfaces -------------------*- tablegen -*-===//

#ifndef EXT_DIALECT_EXT_IR_EXTINTERFACES_TD
#define EXT_DIALECT_EXT_IR_EXTINTERFACES_TD

include "mlir/IR/OpBase.td"

def TileDecompositionAttrInterface
    : AttrInterface<"TileDecompositionAttrInterface"> {
  let cppNamespace = "::ext";
  let description = [{
    A tile decomposition decides which CTA computes which *work unit*: an
    output tile and a range `[k_begin, k_end)` of its reduce iterations.
    Data-parallel gives each CTA one whole tile; split-K and Stream-K split
    a tile's iterations over several CTAs and combine the partial results.

    `ext-kernel-to-gpu` asks the attribute for the grid size (it is
    told the chip's SM count), for the partial tiles its fixup keeps in a
    global workspace, and for a second, reduction launch; then it hands it a
    `TileWorkEmitter` that emits the pieces of a unit: the main loop over a
    k range, the epilogue that writes a finished tile, and what a fixup
    needs (store a unit's partial accumulators in a workspace slot, set the
    slot's flag after a release fence, wait for a flag with acquire, and
    combine a slot's partials into the accumulators with the compute's own
    combiner, custom multi-value reducers included).
    The attribute emits the control flow that maps
    the block id to units around them. A new decomposition, ext's own or a
    plugin's, is a new attribute implementing this interface: the lowering
    does not change.

    `#ext.auto` asks every decomposition in the registry
    (ext/Dialect/Ext/IR/DecompositionRegistry.h: ext's own and those plugins
    register) for its candidates for the problem (`getAutoCandidates`),
    predicts each that can run the problem (`verifyProblem`) with
    `predictWork` (one cost model: ext/Model/TileWork.h) and keeps the
    shortest predicted makespan. The defaults cover a
    decomposition that does not split the reduction: one candidate (itself),
    a prediction of whole tiles in waves, and the grid-limit check.
  }];
  let methods = [
    InterfaceMethod<[{
        Number of CTAs of the main launch for `numTiles` output tiles of
        `itersPerTile` reduce iterations each on `device`.
      }], "int64_t", "getNumBlocks",
      (ins "int64_t":$numTiles, "int64_t":$itersPerTile,
           "const ::ext::DeviceFacts &":$device)>,
    InterfaceMethod<[{
        True if one tile's reduce iterations may be split over several
        CTAs (so partial tiles need a fixup).
      }], "bool", "splitsReduction", (ins)>,
    InterfaceMethod<[{
        Checks the decomposition against a problem; reports with
        `emitError` and fails if it cannot decompose it. `device` may be
        unknown (no SM count: the verifier's case); a decomposition that
        needs it fails only where it is known to be missing (lowering).
        By default: both launches fit the grid's x limit.
      }], "::llvm::LogicalResult", "verifyProblem",
      (ins "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError,
           "int64_t":$numTiles, "int64_t":$itersPerTile,
           "const ::ext::DeviceFacts &":$device),
      /*methodBody=*/"", /*defaultImplementation=*/[{
        return ::ext::verifyGridLimits(
            $_attr, emitError,
            $_attr.getNumBlocks(numTiles, itersPerTile, device),
            $_attr.getNumReductionBlocks(numTiles, itersPerTile, device));
      }]>,
    InterfaceMethod<[{
        Partial tiles the fixup keeps in the global workspace (one flag
        each). The lowering allocates the workspace on the host, zeroes it
        before every launch and passes it to the kernel; 0 asks for none.
      }], "int64_t", "getNumPartials",
      (ins "int64_t":$numTiles, "int64_t":$itersPerTile,
           "const ::ext::DeviceFacts &":$device),
      /*methodBody=*/"", /*defaultImplementation=*/"return 0;">,
    InterfaceMethod<[{
        CTAs of a second launch that combines the partials (0: none).
      }], "int64_t", "getNumReductionBlocks",
      (ins "int64_t":$numTiles, "int64_t":$itersPerTile,
           "const ::ext::DeviceFacts &":$device),
      /*methodBody=*/"", /*defaultImplementation=*/"return 0;">,
    InterfaceMethod<[{
        Emits, at the builder's insertion point inside the main launch, the
        code that maps `blockId` to its work units and runs each through
        `emitter`.
      }], "::llvm::LogicalResult", "emitWorkUnits",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::mlir::Value":$blockId, "int64_t":$numTiles,
           "int64_t":$itersPerTile, "const ::ext::DeviceFacts &":$device,
           "::ext::TileWorkEmitter &":$emitter)>,
    InterfaceMethod<[{
        Emits the body of the reduction launch (when
        `getNumReductionBlocks` is not 0).
      }], "::llvm::LogicalResult", "emitReductionUnits",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::mlir::Value":$blockId, "int64_t":$numTiles,
           "int64_t":$itersPerTile, "const ::ext::DeviceFacts &":$device,
           "::ext::TileWorkEmitter &":$emitter),
      /*methodBody=*/"", /*defaultImplementation=*/"return ::mlir::failure();">,
    InterfaceMethod<[{
        What the decomposition predicts for the problem on `device`'s SMs
        (grid, waves, units and iterations of the busiest CTA, fixups,
        makespan, utilization), a fixup (storing or combining one partial
        tile) costing `partialCost` iterations; `auto` ranks candidates by
        it and `ext-apply-schedule{report=true}` prints it. None when the
        SM count is unknown or the decomposition cannot take the problem.
        By default (a decomposition that does not split the reduction):
        whole tiles, spread evenly over the grid, the CTAs in waves.
      }], "std::optional<::ext::WorkPrediction>", "predictWork",
      (ins "int64_t":$numTiles, "int64_t":$itersPerTile,
           "const ::ext::DeviceFacts &":$device, "double":$partialCost),
      /*methodBody=*/"", /*defaultImplementation=*/[{
        if ($_attr.splitsReduction())
          return std::nullopt;
        return ::ext::predictWholeTiles(
            numTiles, itersPerTile,
            $_attr.getNumBlocks(numTiles, itersPerTile, device),
            device.numSMs);
      }]>,
    InterfaceMethod<[{
        True if the decomposition can plan a tile count known only at
        launch (a blocked axis of dynamic extent), or an iteration count
        known only then (a reduce axis of dynamic extent): `emitLaunchPlan` computes
        the plan on the host, `emitLaunchWorkUnits` maps block ids to units
        from its numbers. By default, no: the schedule verifier refuses it
        on a dynamic extent.
      }], "bool", "plansAtLaunch", (ins),
      /*methodBody=*/"", /*defaultImplementation=*/"return false;">,
    InterfaceMethod<[{
        Emits, at the builder's insertion point on the host before the
        launch, the code that plans `numTiles` (an index value) tiles of
        `itersPerTile` iterations (a constant or an index value) on
        `device`: the grid, the workspace's
        partial tiles, the reduction launch's grid and the numbers the work
        units read (`ext::LaunchPlan`). A fixup costs `partialCost`
        iterations (for a decomposition that chooses at launch). Reports at
        `loc` and fails if it cannot.
      }], "::mlir::FailureOr<::ext::LaunchPlan>", "emitLaunchPlan",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::mlir::Value":$numTiles, "::mlir::OpFoldResult":$itersPerTile,
           "const ::ext::DeviceFacts &":$device, "double":$partialCost),
      /*methodBody=*/"", /*defaultImplementation=*/[{
        return ::mlir::emitError(loc)
               << "decomposition " << $_attr
               << " cannot plan a tile count known only at launch";
      }]>,
    InterfaceMethod<[{
        `emitWorkUnits` for a plan made at launch: maps `blockId` to its
        units from `plan`'s numbers (host values, which become kernel
        arguments).
      }], "::mlir::LogicalResult", "emitLaunchWorkUnits",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::mlir::Value":$blockId, "const ::ext::LaunchPlan &":$plan,
           "::ext::TileWorkEmitter &":$emitter),
      /*methodBody=*/"", /*defaultImplementation=*/"return ::mlir::failure();">,
    InterfaceMethod<[{
        `emitReductionUnits` for a plan made at launch (when its
        `reductionGrid` is set).
      }], "::mlir::LogicalResult", "emitLaunchReductionUnits",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::mlir::Value":$blockId, "const ::ext::LaunchPlan &":$plan,
           "::ext::TileWorkEmitter &":$emitter),
      /*methodBody=*/"", /*defaultImplementation=*/"return ::mlir::failure();">,
    InterfaceMethod<[{
        The concrete decompositions of this kind that `auto` weighs for the
        problem (each predicted with `predictWork`), simplest first: ties
        go to the earlier candidate. By default the attribute itself.
      }], "::llvm::SmallVector<::mlir::Attribute>", "getAutoCandidates",
      (ins "int64_t":$numTiles, "int64_t":$itersPerTile,
           "const ::ext::DeviceFacts &":$device),
      /*methodBody=*/"", /*defaultImplementation=*/[{
        return {$_attr};
      }]>
  ];
}

//===----------------------------------------------------------------------===//
// ComputeLikeOpInterface
//===----------------------------------------------------------------------===//

def ComputeLikeOpInterface : OpInterface<"ComputeLikeOpInterface"> {
  let cppNamespace = "::ext";
  let description = [{
    An op with the structure of `ext.compute`: an iteration domain of named
    axes (`#ext.axis`), inputs and outputs each accessed through one affine
    map of the axes, a scalar `body`, and for reduce axes a combiner (with a
    `reducer` region and `identity` when it is `custom`). `ext.compute` and
    `ext.tile_compute` implement it; their verifier and every lowering that
    does not care which of the two it has use this interface.
  }];
  let methods = [
    InterfaceMethod<"The iteration axes, as `#ext.axis` attributes.",
      "::mlir::ArrayAttr", "getAxes">,
    InterfaceMethod<"The memrefs read.",
      "::mlir::Operation::operand_range", "getInputs">,
    InterfaceMethod<"The memrefs written.",
      "::mlir::Operation::operand_range", "getOutputs">,
    InterfaceMethod<"One affine map per operand, inputs first.",
      "::mlir::ArrayAttr", "getIndexingMaps">,
    InterfaceMethod<"How reduce axes are combined, if there are any.",
      "std::optional<::ext::CombinerKind>", "getCombiner">,
    InterfaceMethod<"One typed identity per output (custom combiners).",
      "std::optional<::mlir::ArrayAttr>", "getIdentity">,
    InterfaceMethod<"The scalar body.", "::mlir::Region &", "getBody">,
    InterfaceMethod<"The custom combiner's region (empty otherwise).",
      "::mlir::Region &", "getReducer">,
    InterfaceMethod<"Number of axes.", "unsigned", "getNumAxes", (ins), [{}],
      [{ return $_op.getAxes().size(); }]>,
    InterfaceMethod<"Axis number `i`.", "::ext::AxisAttr", "getAxis",
      (ins "unsigned":$i), [{}],
      [{ return ::llvm::cast<::ext::AxisAttr>($_op.getAxes()[i]); }]>,
    InterfaceMethod<"The axes as a list.",
      "::llvm::SmallVector<::ext::AxisAttr>", "getAxisList", (ins), [{}],
      [{ return ::llvm::to_vector($_op.getAxes()
                                      .template getAsRange<::ext::AxisAttr>()); }]>,
    InterfaceMethod<"Position of the axis called `name`, if any.",
      "std::optional<unsigned>", "getAxisPosition",
      (ins "::llvm::StringRef":$name), [{}], [{
        for (auto [i, axis] : ::llvm::enumerate(
                 $_op.getAxes().template getAsRange<::ext::AxisAttr>()))
          if (axis.getName() == name)
            return static_cast<unsigned>(i);
        return std::nullopt;
      }]>,
    InterfaceMethod<"Whether some axis is a reduce axis.", "bool",
      "hasReduceAxes", (ins), [{}], [{
        return ::llvm::any_of(
            $_op.getAxes().template getAsRange<::ext::AxisAttr>(),
            [](::ext::AxisAttr a) { return a.isReduce(); });
      }]>,
    InterfaceMethod<"Every axis' extent, in axis order.",
      "::llvm::SmallVector<int64_t>", "getExtents", (ins), [{}], [{
        return ::llvm::map_to_vector(
            $_op.getAxes().template getAsRange<::ext::AxisAttr>(),
            [](::ext::AxisAttr a) { return a.getExtent(); });
      }]>,
    InterfaceMethod<"The indexing maps as a list.",
      "::llvm::SmallVector<::mlir::AffineMap>", "getMaps", (ins), [{}], [{
        return ::llvm::to_vector($_op.getIndexingMaps()
            .template getAsValueRange<::mlir::AffineMapAttr>());
      }]>,
    InterfaceMethod<"The map of input `i`.", "::mlir::AffineMap",
      "getInputMap", (ins "unsigned":$i), [{}],
      [{ return $_op.getMaps()[i]; }]>,
    InterfaceMethod<"The map of output `i`.", "::mlir::AffineMap",
      "getOutputMap", (ins "unsigned":$i), [{}],
      [{ return $_op.getMaps()[$_op.getInputs().size() + i]; }]>,
    InterfaceMethod<"The body's block.", "::mlir::Block &", "getBodyBlock",
      (ins), [{}], [{ return $_op.getBody().front(); }]>,
    InterfaceMethod<"Whether the combiner is a custom `reducer` region.",
      "bool", "hasCustomReducer", (ins), [{}], [{
        return $_op.getCombiner() &&
               *$_op.getCombiner() == ::ext::CombinerKind::custom;
      }]>
  ];
}

//===----------------------------------------------------------------------===//
// Fragment layouts
//===----------------------------------------------------------------------===//

def FragmentLayoutAttrInterface : AttrInterface<"FragmentLayoutAttrInterface"> {
  let cppNamespace = "::ext";
  let description = [{
    How a tile's spatial points are distributed over a CTA's threads: which
    thread holds a point, and where in its registers. A fragment
    (`ext.alloc_fragment`) and every `ext.tile_compute` that touches it name
    the same layout; `ext-lower-tile-ops` asks the layout for each thread's
    points and, through `getContiguity`, for how many consecutive points of
    a dimension a thread holds (the width its shared-memory reads can take
    at once).

    Dimensions are the tile's spatial axes, in order; `threads` gives the
    threads along each. Thread coordinates come from the linear thread id
    with the last dimension fastest. `#ext.cyclic` (thread `t` takes points
    `t, t + H, ...`) and `#ext.blocked<thread_tile = [...]>` (runs of
    consecutive points per thread) implement it; a tensor-core fragment
    layout (per-lane MMA operand and accumulator layouts) is added as another
    attribute.
  }];
  let methods = [
    InterfaceMethod<[{
        Checks that the layout can distribute a tile of `shape` over
        `threads` (one count per dimension); reports with `emitError`.
      }], "::llvm::LogicalResult", "verifyDistribution",
      (ins "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError,
           "::llvm::ArrayRef<int64_t>":$shape,
           "::llvm::ArrayRef<int64_t>":$threads)>,
    InterfaceMethod<[{
        Emits the tile indices of a thread's point: `threadCoords` are the
        thread's coordinates, `locals` the point's index in the thread's
        registers (one per dimension, in `[0, shape[d] / threads[d])`).
      }], "::llvm::SmallVector<::mlir::Value>", "emitPointIndices",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::llvm::ArrayRef<int64_t>":$shape,
           "::llvm::ArrayRef<int64_t>":$threads,
           "::mlir::ValueRange":$threadCoords, "::mlir::ValueRange":$locals)>,
    InterfaceMethod<[{
        How many consecutive points of dimension `dim` one thread holds in
        consecutive local indices, starting at local indices that are
        multiples of it (1 when none are consecutive).
      }], "int64_t", "getContiguity",
      (ins "unsigned":$dim, "::llvm::ArrayRef<int64_t>":$shape,
           "::llvm::ArrayRef<int64_t>":$threads)>,
    InterfaceMethod<[{
        The shape of one thread's registers for a tile of `shape` over
        `threads` (the range of `locals` in `emitPointIndices`); by default
        `shape[d] / threads[d]` per dimension.
      }], "::llvm::SmallVector<int64_t>", "getLocalShape",
      (ins "::llvm::ArrayRef<int64_t>":$shape,
           "::llvm::ArrayRef<int64_t>":$threads), [{}], [{
        ::llvm::SmallVector<int64_t> local;
        for (auto [s, t] : ::llvm::zip(shape, threads))
          local.push_back(s / t);
        return local;
      }]>
  ];
}

def TileAccumulationAttrInterface
    : AttrInterface<"TileAccumulationAttrInterface"> {
  let cppNamespace = "::ext";
  let description = [{
    The strategy by which `ext-tile-ops-to-threads` lowers an
    `ext.tile_compute` that accumulates into fragments of a layout: each
    fragment layout provides one (attached as an external model by the
    transforms library, which owns the instructions it emits: register
    blocking for `#ext.cyclic` and `#ext.blocked`, tensor-core instructions
    for `#ext.mma`). A layout without it cannot be accumulated into.
  }];
  let methods = [
    InterfaceMethod<[{
        Emits, at the context's insertion point, the per-thread code of the
        accumulating tile compute `tileCompute` (an `ext.tile_compute`).
      }], "::llvm::LogicalResult", "emitAccumulation",
      (ins "::ext::TileAccumulationContext &":$context,
           "::mlir::Operation *":$tileCompute)>
  ];
}

#endif // EXT_DIALECT_EXT_IR_EXTINTERFACES_TD
