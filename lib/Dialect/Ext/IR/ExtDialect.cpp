//===- ExtDialect.cpp - the ext dialect -----------------------------------===//

#include "ext/Dialect/Ext/IR/ExtDialect.h"
#include "ext/Dialect/Ext/IR/ExtAttrs.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Model/Chip.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ext;

#include "ext/Dialect/Ext/IR/ExtOpsDialect.cpp.inc"
#include "ext/Dialect/Ext/IR/ExtEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "ext/Dialect/Ext/IR/ExtAttrs.cpp.inc"

void ExtDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ext/Dialect/Ext/IR/ExtOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ext/Dialect/Ext/IR/ExtAttrs.cpp.inc"
      >();
}

#include "ext/Dialect/Ext/IR/ExtAttrInterfaces.cpp.inc"

LogicalResult StorageAlignAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t dim, int64_t factor,
    int64_t offset) {
  if (dim < 0)
    return emitError() << "storage_align dimension must be non-negative";
  if (factor < 1)
    return emitError() << "storage_align factor must be positive, got "
                       << factor;
  if (offset < 0 || offset >= factor)
    return emitError() << "storage_align offset must be in [0, factor), got "
                       << offset << " with factor " << factor;
  return success();
}

LogicalResult SwizzleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t bits, int64_t base, int64_t shift,
                                  int64_t panel) {
  if (panel < 0)
    return emitError() << "swizzle panel must be non-negative (0: none)";
  if (bits < 0 || base < 0 || shift < 0)
    return emitError() << "swizzle bits, base and shift must be non-negative";
  if (bits + base + shift > 40)
    return emitError() << "swizzle reaches bit " << bits + base + shift
                       << "; shared tiles have fewer than 2^40 elements";
  // With shift 0 the XOR clears bits: two offsets share a slot.
  if (bits > 0 && shift == 0)
    return emitError() << "swizzle with shift 0 is not a bijection (offsets "
                          "differing only in bit "
                       << base << " collide)";
  return success();
}

std::optional<int64_t> SwizzleAttr::findEscape(int64_t n) const {
  // The swizzle only moves bits below `top`: it permutes every aligned
  // block of 2^top offsets, so only the last, partial block can escape.
  // A partial block longer than any shared memory is not searched: -1.
  int64_t top = getBits() + getBase() + getShift();
  int64_t block = int64_t(1) << top;
  int64_t first = (n / block) * block;
  if (n - first > (int64_t(1) << 24))
    return -1;
  for (int64_t o = first; o < n; ++o)
    if (apply(o) >= n)
      return o;
  return std::nullopt;
}

/// An attribute without parameters: refuses a body rather than dropping it.
template <typename AttrT>
static Attribute parseWithoutParameters(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalLess())) {
    parser.emitError(loc) << "#ext." << AttrT::getMnemonic()
                          << " takes no parameters";
    return {};
  }
  return AttrT::get(parser.getContext());
}

Attribute CyclicLayoutAttr::parse(AsmParser &parser, Type) {
  return parseWithoutParameters<CyclicLayoutAttr>(parser);
}
void CyclicLayoutAttr::print(AsmPrinter &) const {}

Attribute DataParallelAttr::parse(AsmParser &parser, Type) {
  return parseWithoutParameters<DataParallelAttr>(parser);
}
void DataParallelAttr::print(AsmPrinter &) const {}

Attribute CacheAttr::parse(AsmParser &parser, Type) {
  int64_t operand = 0;
  SmallVector<StorageAlignAttr> align;
  SwizzleAttr swizzle;
  if (parser.parseLess() || parser.parseKeyword("operand") ||
      parser.parseEqual() || parser.parseInteger(operand))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (key == "align") {
      if (parser.parseCommaSeparatedList(
              AsmParser::Delimiter::Square, [&]() -> ParseResult {
                StorageAlignAttr a;
                if (parser.parseCustomAttributeWithFallback(a))
                  return failure();
                align.push_back(a);
                return success();
              }))
        return {};
    } else if (key == "swizzle") {
      if (parser.parseCustomAttributeWithFallback(swizzle))
        return {};
    } else {
      parser.emitError(keyLoc) << "expected 'align' or 'swizzle', got '" << key
                               << "'";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return CacheAttr::getChecked(
      [&]() { return parser.emitError(parser.getNameLoc()); },
      parser.getContext(), operand, align, swizzle);
}

void CacheAttr::print(AsmPrinter &printer) const {
  printer << "<operand = " << getOperand();
  if (!getAlign().empty()) {
    printer << ", align = [";
    llvm::interleaveComma(getAlign(), printer, [&](StorageAlignAttr a) {
      printer.printStrippedAttrOrType(a);
    });
    printer << "]";
  }
  if (getSwizzle()) {
    printer << ", swizzle = ";
    printer.printAttribute(getSwizzle());
  }
  printer << ">";
}

LogicalResult CacheAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t operand,
                                ArrayRef<StorageAlignAttr> align,
                                SwizzleAttr swizzle) {
  if (!align.empty() && swizzle)
    return emitError() << "a cached operand takes either align (padding) or "
                          "swizzle, not both";
  return success();
}

LogicalResult ScheduleAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> tile,
    ArrayRef<StringAttr> blocks, ArrayRef<int64_t> threads,
    ArrayRef<CacheAttr> cache, TileDecompositionAttrInterface decomposition,
    RasterOrder raster, int64_t swizzle, int64_t vector, int64_t unroll,
    FragmentLayoutAttrInterface layout, MmaLayoutAttr mma,
    ArrayRef<int64_t> warps, int64_t stages, bool async,
    ArrayRef<AttachAttr> computeAt, ArrayRef<AttachAttr> reverseComputeAt,
    ArrayRef<StringAttr> computeInline, ArrayRef<StringAttr> online,
    bool tma, WarpSpecialization specialize, ArrayRef<int64_t> cluster,
    bool fastMath) {
  // One role per compute: each name once across the four lists.
  llvm::StringSet<> attachedNames;
  auto once = [&](StringAttr name) {
    return attachedNames.insert(name.getValue()).second;
  };
  for (AttachAttr at : computeAt)
    if (!once(at.getCompute()))
      return emitError() << "schedule attaches '" << at.getCompute().getValue()
                         << "' twice";
  for (AttachAttr at : reverseComputeAt)
    if (!once(at.getCompute()))
      return emitError() << "schedule attaches '" << at.getCompute().getValue()
                         << "' twice";
  for (StringAttr name : computeInline)
    if (!once(name))
      return emitError() << "schedule attaches '" << name.getValue()
                         << "' twice";
  for (StringAttr name : online)
    if (!once(name))
      return emitError() << "schedule attaches '" << name.getValue()
                         << "' twice";
  if (online.size() == 1)
    return emitError() << "online names the max reduction and at least one "
                          "sum over the same axis (['M', 'L']); it names only '"
                       << online.front().getValue() << "'";
  if (reverseComputeAt.size() > 1)
    return emitError() << "schedule fuses " << reverseComputeAt.size()
                       << " consumers with reverse_compute_at; one is "
                          "supported (write the chain as one compute)";
  for (int64_t t : tile)
    if (t < 1)
      return emitError() << "schedule tile sizes must be positive, got " << t;
  for (int64_t t : threads)
    if (t < 1)
      return emitError() << "schedule thread counts must be positive, got "
                         << t;
  if (swizzle < 1)
    return emitError() << "schedule swizzle must be positive, got " << swizzle;
  if (vector < 1 || vector > 8 || !llvm::isPowerOf2_64(vector))
    return emitError() << "schedule vector width must be 1, 2, 4 or 8, got "
                       << vector;
  if (unroll < 1)
    return emitError() << "schedule unroll must be positive, got " << unroll;
  if (mma && layout)
    return emitError() << "schedule gives both layout and mma; an mma "
                          "schedule's layout is the instruction's";
  if (mma && !mma.getWarps().empty())
    return emitError() << "schedule: give the warps as `warps = [...]`, not "
                          "inside mma";
  if (mma && warps.size() != 2)
    return emitError() << "schedule with mma needs warps = [WM, WN]";
  if (!mma && !warps.empty())
    return emitError() << "schedule gives warps without mma";
  for (int64_t w : warps)
    if (w < 1 || w > 32)
      return emitError() << "schedule warp counts must be in [1, 32], got "
                         << w;
  if (stages < 1)
    return emitError() << "schedule stages must be positive, got " << stages
                       << " (1: one buffer, no pipelining)";
  if (stages > 8)
    return emitError() << "schedule stages must be at most 8, got " << stages;
  if (tma && stages < 2)
    return emitError() << "schedule with tma = true needs stages >= 2 (TMA "
                          "loads the next k-steps' tiles while one computes)";
  if (tma && !async)
    return emitError() << "schedule gives both tma = true and async = false";
  if (tma && !online.empty())
    return emitError() << "schedule with tma = true: the online-softmax "
                          "kernel loads its tiles with cp.async";
  if (specialize != WarpSpecialization::none) {
    if (!tma)
      return emitError() << "schedule with specialize = "
                         << stringifyWarpSpecialization(specialize)
                         << " needs tma = true (its producer warpgroup "
                            "issues bulk tensor copies)";
    if (!mma ||
        (!mma.isWarpgroup() && mma.getShape() != MmaShape::automatic))
      return emitError() << "schedule with specialize = "
                         << stringifyWarpSpecialization(specialize)
                         << " needs mma = #ext.mma<wgmma_k16> (its consumer "
                            "warpgroups compute on warpgroup MMAs)";
  }
  if (!cluster.empty()) {
    if (cluster.size() != 2 || llvm::any_of(cluster, [](int64_t c) {
          return c < 1;
        }))
      return emitError() << "schedule cluster must be [CM, CN], two "
                            "positive CTA counts over the last two blocked "
                            "axes";
    if (cluster[0] * cluster[1] > kPortableClusterCtas)
      return emitError() << "schedule cluster of " << cluster[0] << " x "
                         << cluster[1]
                         << " CTAs: a thread block cluster holds at most "
                         << kPortableClusterCtas << " (the portable limit)";
    if (specialize == WarpSpecialization::none && cluster[0] * cluster[1] > 1)
      return emitError() << "schedule with cluster needs specialize = "
                            "cooperative or pingpong (the producer warpgroup "
                            "multicasts the shared tiles)";
  }
  return success();
}

Attribute ScheduleAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> tile, threads;
  SmallVector<StringAttr> blocks;
  SmallVector<CacheAttr> cache;
  TileDecompositionAttrInterface decomposition;
  FragmentLayoutAttrInterface layout;
  MmaLayoutAttr mma;
  SmallVector<int64_t> warps, cluster;
  SmallVector<AttachAttr> computeAt, reverseComputeAt;
  SmallVector<StringAttr> computeInline, online;
  RasterOrder raster = RasterOrder::row;
  int64_t swizzle = 1, vector = 1, unroll = 1, stages = 1;
  bool async = true, tma = false, fastMath = true;
  WarpSpecialization specialize = WarpSpecialization::none;
  bool hasTile = false, hasThreads = false;
  llvm::StringSet<> seen;

  auto parseInts = [&](SmallVectorImpl<int64_t> &out) {
    return parser.parseCommaSeparatedList(
        AsmParser::Delimiter::Square, [&]() -> ParseResult {
          int64_t v;
          if (parser.parseInteger(v))
            return failure();
          out.push_back(v);
          return success();
        });
  };
  // `[#ext.x<...>, ...]` of one of ext's attributes.
  auto parseAttrs = [&](auto &out) {
    return parser.parseCommaSeparatedList(
        AsmParser::Delimiter::Square, [&]() -> ParseResult {
          typename std::decay_t<decltype(out)>::value_type a;
          if (parser.parseCustomAttributeWithFallback(a))
            return failure();
          out.push_back(a);
          return success();
        });
  };
  // `key = word` of an enum: its value, or an error listing `choices`.
  auto parseEnumKeyword = [&](StringRef key, StringRef choices,
                              auto &out) -> ParseResult {
    StringRef value;
    SMLoc valueLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&value))
      return failure();
    auto parsed = symbolizeEnum<std::decay_t<decltype(out)>>(value);
    if (!parsed)
      return parser.emitError(valueLoc) << key << " must be " << choices
                                        << ", got '" << value << "'";
    out = *parsed;
    return success();
  };
  auto parseEntry = [&]() -> ParseResult {
    StringRef key;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (!seen.insert(key).second)
      return parser.emitError(loc) << "schedule gives '" << key << "' twice";
    if (key == "tile") {
      hasTile = true;
      return parseInts(tile);
    }
    if (key == "threads") {
      hasThreads = true;
      return parseInts(threads);
    }
    if (key == "blocks" || key == "compute_inline" || key == "online")
      return parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            std::string name;
            if (parser.parseString(&name))
              return failure();
            (key == "blocks"           ? blocks
             : key == "compute_inline" ? computeInline
                                       : online)
                .push_back(StringAttr::get(parser.getContext(), name));
            return success();
          });
    if (key == "cache")
      return parseAttrs(cache);
    if (key == "decomposition") {
      Attribute attr;
      SMLoc attrLoc = parser.getCurrentLocation();
      if (parser.parseAttribute(attr))
        return failure();
      decomposition = dyn_cast<TileDecompositionAttrInterface>(attr);
      if (!decomposition)
        return parser.emitError(attrLoc)
               << attr << " is not a tile decomposition (it does not "
                          "implement TileDecompositionAttrInterface)";
      return success();
    }
    if (key == "layout") {
      Attribute attr;
      SMLoc attrLoc = parser.getCurrentLocation();
      if (parser.parseAttribute(attr))
        return failure();
      layout = dyn_cast<FragmentLayoutAttrInterface>(attr);
      if (!layout)
        return parser.emitError(attrLoc)
               << attr << " is not a fragment layout (it does not implement "
                          "FragmentLayoutAttrInterface)";
      return success();
    }
    if (key == "mma") {
      // `auto` or an #ext.mma attribute.
      if (succeeded(parser.parseOptionalKeyword("auto"))) {
        mma = MmaLayoutAttr::get(parser.getContext(), MmaShape::automatic, {});
        return success();
      }
      Attribute attr;
      SMLoc attrLoc = parser.getCurrentLocation();
      if (parser.parseAttribute(attr))
        return failure();
      mma = dyn_cast<MmaLayoutAttr>(attr);
      if (!mma)
        return parser.emitError(attrLoc)
               << "mma must be `auto` or an #ext.mma<...> instruction, got "
               << attr;
      return success();
    }
    if (key == "warps")
      return parseInts(warps);
    if (key == "cluster")
      return parseInts(cluster);
    if (key == "compute_at")
      return parseAttrs(computeAt);
    if (key == "reverse_compute_at")
      return parseAttrs(reverseComputeAt);
    if (key == "raster")
      return parseEnumKeyword(key, "'row' or 'col'", raster);
    if (key == "swizzle")
      return parser.parseInteger(swizzle);
    if (key == "vector")
      return parser.parseInteger(vector);
    if (key == "unroll")
      return parser.parseInteger(unroll);
    if (key == "stages")
      return parser.parseInteger(stages);
    if (key == "async" || key == "tma" || key == "fast_math") {
      StringRef value;
      SMLoc valueLoc = parser.getCurrentLocation();
      if (parser.parseKeyword(&value))
        return failure();
      if (value != "true" && value != "false")
        return parser.emitError(valueLoc)
               << key << " must be 'true' or 'false', got '" << value << "'";
      (key == "async" ? async : key == "tma" ? tma : fastMath) =
          value == "true";
      return success();
    }
    if (key == "specialize")
      return parseEnumKeyword(key, "'none', 'cooperative' or 'pingpong'",
                              specialize);
    return parser.emitError(loc)
           << "unknown schedule key '" << key
           << "' (expected tile, blocks, threads, cache, decomposition, "
              "layout, mma, warps, raster, swizzle, vector, unroll, stages, "
              "async, tma, specialize, cluster, fast_math, compute_at, "
              "reverse_compute_at, compute_inline or online)";
  };

  SMLoc start = parser.getCurrentLocation();
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::LessGreater,
                                     parseEntry))
    return {};
  if (!hasTile || !hasThreads) {
    parser.emitError(start) << "schedule needs 'tile' and 'threads'";
    return {};
  }
  return parser.getChecked<ScheduleAttr>(
      start, parser.getContext(), tile, blocks, threads, cache, decomposition,
      raster, swizzle, vector, unroll, layout, mma, warps, stages, async,
      computeAt, reverseComputeAt, computeInline, online, tma, specialize,
      cluster, fastMath);
}

void ScheduleAttr::print(AsmPrinter &printer) const {
  // `, key = [v, ...]`, left out when empty.
  auto printList = [&](StringRef key, auto values) {
    if (values.empty())
      return;
    printer << ", " << key << " = [";
    llvm::interleaveComma(values, printer, [&](auto v) { printer << v; });
    printer << "]";
  };
  printer << "<tile = [";
  llvm::interleaveComma(getTile(), printer);
  printer << "]";
  printList("blocks", getBlocks());
  printList("threads", getThreads());
  printList("cache", getCache());
  if (getDecomposition())
    printer << ", decomposition = " << getDecomposition();
  if (getLayout())
    printer << ", layout = " << getLayout();
  if (MmaLayoutAttr mma = getMma()) {
    printer << ", mma = ";
    if (mma.getShape() == MmaShape::automatic)
      printer << "auto";
    else
      printer << mma;
  }
  printList("warps", getWarps());
  if (getRaster() != RasterOrder::row)
    printer << ", raster = " << stringifyRasterOrder(getRaster());
  if (getSwizzle() != 1)
    printer << ", swizzle = " << getSwizzle();
  if (getVector() != 1)
    printer << ", vector = " << getVector();
  if (getUnroll() != 1)
    printer << ", unroll = " << getUnroll();
  if (getStages() != 1)
    printer << ", stages = " << getStages();
  if (!getAsync())
    printer << ", async = false";
  if (getTma())
    printer << ", tma = true";
  if (getSpecialize() != WarpSpecialization::none)
    printer << ", specialize = " << stringifyWarpSpecialization(getSpecialize());
  printList("cluster", getCluster());
  if (!getFastMath())
    printer << ", fast_math = false";
  printList("compute_at", getComputeAt());
  printList("reverse_compute_at", getReverseComputeAt());
  printList("compute_inline", getComputeInline());
  printList("online", getOnline());
  printer << ">";
}

TileDecompositionAttrInterface ScheduleAttr::getDecompositionOrDefault() const {
  if (getDecomposition())
    return getDecomposition();
  return DataParallelAttr::get(getContext());
}

FragmentLayoutAttrInterface ScheduleAttr::getLayoutOrDefault() const {
  if (getLayout())
    return getLayout();
  return CyclicLayoutAttr::get(getContext());
}

int64_t ScheduleAttr::getNumThreads() const {
  // Saturates at INT64_MAX (the counts come from the input).
  int64_t n = 1;
  for (int64_t t : getThreads())
    n = llvm::checkedMul(n, t).value_or(INT64_MAX);
  return n;
}

LogicalResult AxisAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               StringRef name, AxisKind kind, int64_t extent,
                               int64_t multipleOf) {
  if (name.empty())
    return emitError() << "axis name must not be empty";
  if (extent < 1 && !ShapedType::isDynamic(extent))
    return emitError() << "axis '" << name << "' has extent " << extent
                       << "; extents must be positive (or ? for a size known "
                          "at run time)";
  if (multipleOf < 1)
    return emitError() << "axis '" << name << "': multiple_of must be "
                       << "positive, got " << multipleOf;
  if (!ShapedType::isDynamic(extent) && extent % multipleOf != 0)
    return emitError() << "axis '" << name << "' has extent " << extent
                       << ", not a multiple of " << multipleOf
                       << " as its multiple_of states";
  return success();
}
