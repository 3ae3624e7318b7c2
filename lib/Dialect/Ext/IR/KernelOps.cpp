//===- KernelOps.cpp - ext.kernel and the tile-level memory ops -----------===//
//
// The ops ext-apply-schedule emits around its tile computes: ext.kernel (the
// tile grid, its decomposition and the combining of partial tiles), the
// shared tiles (ext.alloc_shared with its padding and swizzle), the
// fragments, and the copies between them and memory (ext.copy,
// ext.copy_wait, ext.store_tile).
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/IR/Combiner.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Model/Chip.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace ext;

//===----------------------------------------------------------------------===//
// WarpSpecializeOp and PipelineBaseOp
//===----------------------------------------------------------------------===//

LogicalResult WarpSpecializeOp::verify() {
  auto kernel = dyn_cast_if_present<KernelOp>((*this)->getParentOp());
  if (!kernel || (*this)->getBlock() != &kernel.getBody().front())
    return emitOpError("must be directly in an ext.kernel's body");
  if (getProducerThreads() != 128)
    return emitOpError() << "has " << getProducerThreads()
                         << " producer threads; the producer is one "
                            "warpgroup (128)";
  int64_t consumers = kernel.getThreads() - getProducerThreads();
  if (consumers < 128 || consumers % 128)
    return emitOpError() << "leaves " << consumers
                         << " of the kernel's " << kernel.getThreads()
                         << " threads to the consumers; they must be whole "
                            "warpgroups (a multiple of 128)";
  if (auto splitK = dyn_cast<SplitKAttr>(kernel.getDecomposition());
      (splitK && splitK.getMode() == SplitKMode::parallel) ||
      isa<AutoAttr>(kernel.getDecomposition()))
    return emitOpError() << "in a kernel whose decomposition is "
                         << kernel.getDecomposition()
                         << ": a second launch (parallel split-K's reduction) "
                            "has no producer part";
  for (Value group : {getFull(), getEmpty()}) {
    auto type = dyn_cast<nvgpu::MBarrierGroupType>(group.getType());
    auto create = group.getDefiningOp<nvgpu::MBarrierCreateOp>();
    if (!type || !create || create->getBlock() != (*this)->getBlock())
      return emitOpError("takes two !nvgpu.mbarrier.group values created "
                         "(nvgpu.mbarrier.create) in the kernel's body");
  }
  if (getFull().getType() != getEmpty().getType())
    return emitOpError("has full and empty barriers of different types");
  if (getReleaseCtas() < 1 || getReleaseCtas() > kernel.getClusterSize())
    return emitOpError() << "has stages released by " << getReleaseCtas()
                         << " CTAs; its kernel's cluster has "
                         << kernel.getClusterSize();
  for (Operation &op : kernel.getBody().front())
    if (&op != getOperation() && isa<WarpSpecializeOp>(op))
      return emitOpError("is the second in its kernel; a kernel has one "
                         "producer part");
  return success();
}

LogicalResult PipelineBaseOp::verify() {
  if (!(*this)->getParentOfType<KernelOp>())
    return emitOpError("must be inside an ext.kernel");
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

int64_t KernelOp::getNumTiles() {
  int64_t n = 1;
  for (int64_t t : getTiles()) {
    if (ShapedType::isDynamic(t))
      return ShapedType::kDynamic;
    n *= t;
  }
  return n;
}

int64_t KernelOp::getClusterSize() {
  int64_t n = 1;
  if (std::optional<ArrayRef<int64_t>> cluster = getCluster())
    for (int64_t c : *cluster)
      n *= c;
  return n;
}

int64_t KernelOp::getNumWorkTiles() {
  std::optional<ArrayRef<int64_t>> cluster = getCluster();
  if (!cluster)
    return getNumTiles();
  ArrayRef<int64_t> tiles = getTiles();
  int64_t n = 1;
  for (auto [d, t] : llvm::enumerate(tiles)) {
    if (ShapedType::isDynamic(t))
      return ShapedType::kDynamic;
    size_t fromEnd = tiles.size() - d;
    n *= fromEnd <= 2 ? llvm::divideCeil(t, (*cluster)[2 - fromEnd]) : t;
  }
  return n;
}

OpFoldResult KernelOp::getMixedIters() {
  if (Value v = getDynamicIters())
    return v;
  return IntegerAttr::get(IndexType::get(getContext()), getIters());
}

LogicalResult KernelOp::verify() {
  if (llvm::any_of(getTiles(), [](int64_t t) {
        return t < 1 && !ShapedType::isDynamic(t);
      }))
    return emitOpError("tile counts must be positive");
  if (failed(verifyListOfOperandsOrIntegers(*this, "tile count",
                                            getTiles().size(), getTiles(),
                                            getDynamicTiles())))
    return failure();
  if (hasDynamicIters() != ShapedType::isDynamic(getIters()))
    return emitOpError("iters must be a value exactly when its attribute is "
                       "dynamic");
  if (!hasDynamicIters() && getIters() < 1)
    return emitOpError("needs at least one reduce iteration per tile");
  if (getThreads() < 1 || getThreads() > 1024)
    return emitOpError() << "has " << getThreads()
                         << " threads per block; a block holds 1 to 1024";
  if (getSwizzle() < 1)
    return emitOpError("swizzle must be positive");
  if (getFixupCost() && !(getFixupCost()->convertToDouble() >= 0))
    return emitOpError("fixup_cost must be a non-negative cost");
  if (std::optional<ArrayRef<int64_t>> cluster = getCluster()) {
    if (cluster->size() != 2 || getTiles().size() < 2 ||
        llvm::any_of(*cluster, [](int64_t c) { return c < 1; }))
      return emitOpError("cluster must be [CM, CN], positive CTA counts over "
                         "the last two of at least two tile dimensions");
    if (getClusterSize() > kPortableClusterCtas)
      return emitOpError() << "has a cluster of " << getClusterSize()
                           << " CTAs; at most " << kPortableClusterCtas
                           << " (the portable limit)";
    if (!isa<DataParallelAttr, PersistentAttr>(getDecomposition()))
      return emitOpError()
             << "has a cluster, whose CTAs share every k-step's tiles, but "
                "decomposition "
             << getDecomposition()
             << " may give them different k-ranges or tile counts (use "
                "#ext.data_parallel or #ext.persistent)";
  }
  // A grid or reduce range known at run time: the decomposition plans it
  // at launch.
  if (plansAtLaunch()) {
    if (!getDecomposition().plansAtLaunch())
      return emitOpError() << "has "
                           << (hasDynamicTiles() ? "tile counts"
                                                 : "an iteration count")
                           << " known at run time, but decomposition "
                           << getDecomposition()
                           << " plans its grid only from static counts";
    return success();
  }
  return getDecomposition().verifyProblem([&]() { return emitOpError(); },
                                          getNumWorkTiles(), getIters(),
                                          DeviceFacts());
}

/// A reducer over whole fragments: the accumulated fragments, then the
/// partial ones (plain memrefs of their shapes and element types, any
/// layout), combined in place into the first by the region's tile ops; no
/// identity (a work unit with an empty range leaves it).
static LogicalResult verifyFragmentReducer(KernelOp op, ValueRange fragments,
                                           Block &reducer) {
  unsigned numFrags = fragments.size();
  if (op.getIdentity())
    return op.emitOpError("takes no identity with a reducer over whole "
                          "fragments: a work unit with no iterations leaves "
                          "it");
  for (auto [i, frag] : llvm::enumerate(fragments)) {
    auto type = cast<MemRefType>(frag.getType());
    auto partial = dyn_cast<MemRefType>(
        reducer.getArgument(numFrags + i).getType());
    if (reducer.getArgument(i).getType() != type || !partial ||
        partial.getShape() != type.getShape() ||
        partial.getElementType() != type.getElementType())
      return op.emitOpError()
             << "reducer over whole fragments takes each fragment's type "
                "twice (accumulated, then partial); #"
             << i << " is " << type;
  }
  auto yield = dyn_cast<YieldOp>(reducer.getTerminator());
  if (!yield || !yield.getValues().empty())
    return op.emitOpError("reducer over whole fragments must end in an "
                          "empty ext.yield (it combines in place)");
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  unsigned numDims = getNumTileDims();
  Block &body = getBody().front();
  if (body.getNumArguments() != numDims + 2 ||
      !llvm::all_of(body.getArgumentTypes(),
                    [](Type t) { return t.isIndex(); }))
    return emitOpError() << "body takes " << numDims
                         << " tile coordinates, k_begin and k_end, all index";
  auto yield = dyn_cast<KernelYieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end in ext.kernel_yield");
  Block &epilogue = getEpilogue().front();
  unsigned numFrags = yield.getFragments().size();
  if (epilogue.getNumArguments() != numDims + numFrags)
    return emitOpError() << "epilogue takes " << numDims
                         << " tile coordinates and the " << numFrags
                         << " fragments the body yields";
  for (unsigned d = 0; d < numDims; ++d)
    if (!epilogue.getArgument(d).getType().isIndex())
      return emitOpError("epilogue's tile coordinates must be index");
  for (auto [i, frag] : llvm::enumerate(yield.getFragments()))
    if (epilogue.getArgument(numDims + i).getType() != frag.getType())
      return emitOpError() << "epilogue argument #" << numDims + i
                           << " has type "
                           << epilogue.getArgument(numDims + i).getType()
                           << " but the body yields " << frag.getType();
  auto epilogueYield = dyn_cast<KernelYieldOp>(epilogue.getTerminator());
  if (!epilogueYield || !epilogueYield.getFragments().empty())
    return emitOpError("epilogue must end in an empty ext.kernel_yield");
  // Partial accumulators of a split tile combine with the combiner.
  if (!getCombiner()) {
    if (getIdentity() || !getReducer().empty())
      return emitOpError("has an identity or a reducer but no combiner");
    if (numFrags != 0 && getIters() != 1 &&
        getDecomposition().splitsReduction())
      return emitOpError() << "splits its reduction with " << getDecomposition()
                           << " but has no combiner for the partial tiles";
    return success();
  }
  if (*getCombiner() != CombinerKind::custom) {
    if (getIdentity() || !getReducer().empty())
      return emitOpError("takes an identity and a reducer only with the "
                         "custom combiner");
    for (Value frag : yield.getFragments()) {
      Type elem = cast<MemRefType>(frag.getType()).getElementType();
      if (!isCombinableType(*getCombiner(), elem))
        return emitOpError()
               << "combiner " << stringifyCombinerKind(*getCombiner())
               << " is not defined on fragment element type " << elem;
    }
    return success();
  }
  if (!getReducer().hasOneBlock())
    return emitOpError() << "with a custom combiner needs one identity per "
                            "fragment ("
                         << numFrags << ") and a reducer";
  Block &reducer = getReducer().front();
  if (reducer.getNumArguments() != 2 * numFrags)
    return emitOpError() << "reducer takes the " << numFrags
                         << " accumulated values and the " << numFrags
                         << " new ones";
  if (numFrags != 0 && isa<MemRefType>(reducer.getArgument(0).getType()))
    return verifyFragmentReducer(*this, yield.getFragments(), reducer);
  if (!getIdentity() || getIdentity()->size() != numFrags)
    return emitOpError() << "with a custom combiner needs one identity per "
                            "fragment ("
                         << numFrags << ") and a reducer";
  for (auto [i, frag] : llvm::enumerate(yield.getFragments())) {
    Type elem = cast<MemRefType>(frag.getType()).getElementType();
    if (reducer.getArgument(i).getType() != elem ||
        reducer.getArgument(numFrags + i).getType() != elem ||
        cast<TypedAttr>((*getIdentity())[i]).getType() != elem)
      return emitOpError() << "reducer argument and identity #" << i
                           << " must have the fragment's element type " << elem;
  }
  auto reducerYield = dyn_cast<YieldOp>(reducer.getTerminator());
  if (!reducerYield || reducerYield.getValues().size() != numFrags)
    return emitOpError() << "reducer must yield " << numFrags << " values";
  return success();
}

//===----------------------------------------------------------------------===//
// AllocSharedOp, AllocFragmentOp, CopyOp
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>>
AllocSharedOp::computeAlignedStrides(ArrayRef<int64_t> shape,
                                     ArrayRef<StorageAlignAttr> aligns) {
  // Every step is checked: shapes and factors come from the input IR.
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    std::optional<int64_t> stride = 1;
    if (d + 1 < static_cast<int64_t>(shape.size()))
      stride = llvm::checkedMul(strides[d + 1], shape[d + 1]);
    for (StorageAlignAttr a : aligns) {
      if (!stride)
        break;
      if (a.getDim() != d)
        continue;
      // (factor + offset - stride % factor) % factor, with offset < factor
      // (the attribute's verifier): the same value without the overflowing
      // sum.
      int64_t rem = *stride % a.getFactor();
      int64_t pad = a.getOffset() >= rem
                        ? a.getOffset() - rem
                        : a.getFactor() - (rem - a.getOffset());
      stride = llvm::checkedAdd(*stride, pad % a.getFactor());
    }
    if (!stride)
      return failure();
    strides[d] = *stride;
  }
  if (!shape.empty() && !llvm::checkedMul(strides[0], shape[0]))
    return failure();
  return strides;
}

LogicalResult
ext::verifySwizzleOnTile(SwizzleAttr swizzle, ArrayRef<int64_t> shape,
                         function_ref<InFlightDiagnostic()> emitError) {
  int64_t numElements = 1;
  for (int64_t s : shape)
    numElements *= s;
  if (int64_t panel = swizzle.getPanel();
      panel && (shape.empty() || shape.back() % panel != 0))
    return emitError() << swizzle << " cuts the innermost dimension into "
                       << panel << "-element panels, but it has "
                       << (shape.empty() ? 0 : shape.back()) << " elements";
  std::optional<int64_t> escape = swizzle.findEscape(numElements);
  if (!escape)
    return success();
  if (*escape < 0)
    return emitError() << swizzle << " cannot be checked on a tile of "
                       << numElements << " elements (too large)";
  return emitError() << swizzle << " is not a bijection on a tile of "
                     << numElements << " elements: offset " << *escape
                     << " maps to " << swizzle.apply(*escape);
}

SmallVector<StorageAlignAttr> AllocSharedOp::getAligns() {
  if (!getStorageAlign())
    return {};
  return llvm::to_vector(getStorageAlign()->getAsRange<StorageAlignAttr>());
}

LogicalResult AllocSharedOp::verify() {
  auto type = cast<MemRefType>(getBuffer().getType());
  if (!type.hasStaticShape())
    return emitOpError() << "needs a static shape, got " << type;
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  if (!space || space.getValue() != gpu::AddressSpace::Workgroup)
    return emitOpError() << "result must be in #gpu.address_space<workgroup>, "
                            "got "
                         << type;
  SmallVector<StorageAlignAttr> aligns = getAligns();
  for (StorageAlignAttr a : aligns)
    if (a.getDim() >= type.getRank())
      return emitOpError() << "storage_align names dimension " << a.getDim()
                           << " of a rank-" << type.getRank() << " buffer";
  FailureOr<SmallVector<int64_t>> expectedOr =
      computeAlignedStrides(type.getShape(), aligns);
  if (failed(expectedOr))
    return emitOpError() << "padded size of " << type
                         << " overflows a 64-bit element count";
  if (std::optional<SwizzleAttr> swizzle = getSwizzle()) {
    if (!aligns.empty())
      return emitOpError() << "takes either storage_align (padding) or "
                              "swizzle, not both";
    if (failed(verifySwizzleOnTile(*swizzle, type.getShape(),
                                   [&]() { return emitOpError(); })))
      return failure();
  }
  SmallVector<int64_t> &expected = *expectedOr;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || offset != 0 ||
      strides != ArrayRef<int64_t>(expected)) {
    std::string str;
    llvm::raw_string_ostream os(str);
    llvm::interleaveComma(expected, os);
    return emitOpError() << "layout must have offset 0 and strides [" << str
                         << "] (row-major padded by storage_align), got "
                         << type;
  }
  return success();
}

LogicalResult AllocFragmentOp::verify() {
  auto type = cast<MemRefType>(getFragment().getType());
  if (static_cast<int64_t>(getThreads().size()) != type.getRank())
    return emitOpError() << "has " << getThreads().size()
                         << " thread counts for a rank-" << type.getRank()
                         << " fragment";
  // A slice layout holds each row in several lanes: its rows need not be
  // a multiple of its threads (its verifyDistribution has the rule).
  bool slice = isa_and_nonnull<SliceLayoutAttr>(getLayoutAttr());
  for (auto [d, t] : llvm::enumerate(getThreads()))
    if (t < 1 || (!slice && type.getDimSize(d) % t != 0))
      return emitOpError() << "dimension #" << d << " of size "
                           << type.getDimSize(d) << " is not a multiple of its "
                           << t << " threads";
  if (!type.getLayout().isIdentity() || type.getMemorySpace())
    return emitOpError("must be a plain identity-layout memref");
  return getLayoutOrDefault().verifyDistribution(
      [&]() { return emitOpError(); }, type.getShape(), getThreads());
}

FragmentLayoutAttrInterface AllocFragmentOp::getLayoutOrDefault() {
  if (FragmentLayoutAttrInterface layout = getLayoutAttr())
    return layout;
  return CyclicLayoutAttr::get(getContext());
}

LogicalResult CopyOp::verify() {
  auto src = cast<MemRefType>(getSource().getType());
  auto dst = cast<MemRefType>(getTarget().getType());
  if (src.getRank() != dst.getRank())
    return emitOpError() << "copies a rank-" << dst.getRank()
                         << " window out of a rank-" << src.getRank()
                         << " source";
  if (getOffsets().size() != static_cast<size_t>(src.getRank()))
    return emitOpError() << "needs one offset per source dimension ("
                         << src.getRank() << "), got " << getOffsets().size();
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "copies " << src.getElementType() << " into "
                         << dst.getElementType();
  if (!dst.hasStaticShape())
    return emitOpError("target must have a static shape");
  if (getVector() < 1 || !llvm::isPowerOf2_64(getVector()))
    return emitOpError("vector width must be a power of two");
  if (getInBounds() && getInBounds()->size() != size_t(src.getRank()))
    return emitOpError() << "has " << getInBounds()->size()
                         << " in_bounds flags for a rank-" << src.getRank()
                         << " source";
  if (getRowMultiple() < 1)
    return emitOpError("row_multiple must be positive");
  if (src.getRank() > 0 && !ShapedType::isDynamic(src.getShape().back()) &&
      src.getShape().back() % getRowMultiple() != 0)
    return emitOpError() << "row_multiple " << getRowMultiple()
                         << " does not divide the source's rows of "
                         << src.getShape().back();
  if (getStaged() &&
      !isa_and_nonnull<gpu::AddressSpaceAttr>(dst.getMemorySpace()))
    return emitOpError("stages its copy into ")
           << dst << "; a staged copy targets shared memory";
  return success();
}

LogicalResult CopyWaitOp::verify() {
  if (getPendingAttr().getInt() < 0)
    return emitOpError() << "pending must be non-negative, got "
                         << getPendingAttr().getInt();
  return success();
}

LogicalResult StoreTileOp::verify() {
  auto src = cast<MemRefType>(getSource().getType());
  auto dst = cast<MemRefType>(getTarget().getType());
  if (src.getRank() != dst.getRank())
    return emitOpError() << "stores a rank-" << src.getRank()
                         << " tile into a rank-" << dst.getRank() << " target";
  if (getOffsets().size() != static_cast<size_t>(dst.getRank()))
    return emitOpError() << "needs one offset per target dimension ("
                         << dst.getRank() << "), got " << getOffsets().size();
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "stores " << src.getElementType() << " into "
                         << dst.getElementType();
  if (!src.hasStaticShape())
    return emitOpError("source must have a static shape");
  if (getVector() < 1 || !llvm::isPowerOf2_64(getVector()))
    return emitOpError("vector width must be a power of two");
  if (Value map = getTensorMap()) {
    auto type = dyn_cast<nvgpu::TensorMapDescriptorType>(map.getType());
    if (!type)
      return emitOpError() << "tensor_map must be an "
                              "!nvgpu.tensormap.descriptor, got "
                           << map.getType();
    if (type.getTensor().getShape() != src.getShape() ||
        type.getTensor().getElementType() != src.getElementType())
      return emitOpError() << "stores a " << src
                           << " tile through a tensor map whose box is "
                           << type.getTensor();
    if (!gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(src))
      return emitOpError("stores through a tensor map from shared memory "
                         "only (the copy engine's source)");
  }
  return success();
}
