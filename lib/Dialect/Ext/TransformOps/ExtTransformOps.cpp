//===- ExtTransformOps.cpp - transform-dialect ops for ext ----------------===//

// ext keeps assertions on (-UNDEBUG), but the installed MLIR is a release
// build: its transform-dialect headers call a checker that exists only in
// assertion builds when NDEBUG is unset. This file sees MLIR as it was built.
#ifndef NDEBUG
#define NDEBUG
#endif

#include "ext/Dialect/Ext/TransformOps/ExtTransformOps.h"

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace ext;

#define GET_OP_CLASSES
#include "ext/Dialect/Ext/TransformOps/ExtTransformOps.cpp.inc"

//===----------------------------------------------------------------------===//
// MatchComputesOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure
transform::MatchComputesOp::apply(transform::TransformRewriter &rewriter,
                                  transform::TransformResults &results,
                                  transform::TransformState &state) {
  SmallVector<Operation *> found;
  for (Operation *root : state.getPayloadOps(getRoot()))
    root->walk([&](ComputeOp compute) {
      if (!getComputeName() || compute.getName() == getComputeName())
        found.push_back(compute);
    });
  if (found.empty()) {
    DiagnosedSilenceableFailure diag = emitSilenceableError();
    if (getComputeName())
      diag << "no ext.compute named '" << *getComputeName()
           << "' in the payload";
    else
      diag << "no ext.compute in the payload";
    return diag;
  }
  results.set(cast<OpResult>(getResult()), found);
  return DiagnosedSilenceableFailure::success();
}

void transform::MatchComputesOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsHandle(getRootMutable(), effects);
  producesHandle(getOperation()->getOpResults(), effects);
  onlyReadsPayload(effects);
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

/// The silenceable failure of a schedule op on a target that is no compute.
static DiagnosedSilenceableFailure notACompute(Operation *transformOp,
                                               Operation *target) {
  DiagnosedSilenceableFailure diag =
      emitSilenceableFailure(transformOp)
      << "expects ext.compute targets, got '" << target->getName() << "'";
  diag.attachNote(target->getLoc()) << "target";
  return diag;
}

/// "'C'" or "(unnamed)".
static std::string quoted(ComputeOp compute) {
  if (StringAttr name = compute.getNameAttr())
    return ("'" + name.getValue() + "'").str();
  return "(unnamed)";
}

/// Checks the computes the schedule's fusions name (compute_at,
/// reverse_compute_at, compute_inline, online) against the computes in the
/// block of `compute`, as ext-apply-schedule will look them up, and the
/// axes of its #ext.at entries against the compute's own: a misspelt name
/// fails here, at the script, not later in the pipeline.
static DiagnosedSilenceableFailure
checkFusionNames(Operation *transformOp, ComputeOp compute,
                 ScheduleAttr schedule) {
  SmallVector<StringRef> others;
  for (Operation &op : *compute->getBlock())
    if (auto c = dyn_cast<ComputeOp>(op); c && c != compute && c.getNameAttr())
      others.push_back(c.getNameAttr().getValue());
  auto quotedList = [](auto range, auto nameOf) {
    std::string text;
    for (const auto &x : range)
      text += (text.empty() ? "'" : ", '") + nameOf(x).str() + "'";
    return text.empty() ? std::string("none") : text;
  };
  auto fail = [&](const std::string &message) -> DiagnosedSilenceableFailure {
    DiagnosedDefiniteFailure diag = emitDefiniteFailure(transformOp, message);
    diag.attachNote(compute.getLoc()) << "the scheduled compute";
    return diag;
  };
  auto checkName = [&](StringRef field, StringRef name) -> std::string {
    size_t count = llvm::count(others, name);
    if (count == 1)
      return "";
    return ("schedule field '" + field + "' names compute '" + name +
            "', but the block of " + quoted(compute) + " holds " +
            (count ? "two computes of that name"
                   : "no other compute of that name") +
            " (other computes there: " +
            quotedList(others, [](StringRef n) { return n; }) + ")")
        .str();
  };
  auto checkAt = [&](StringRef field,
                     ArrayRef<AttachAttr> entries) -> std::string {
    for (AttachAttr at : entries) {
      std::string why = checkName(field, at.getCompute().getValue());
      if (!why.empty())
        return why;
      StringRef axis = at.getAxis().getValue();
      if (!compute.getAxisPosition(axis))
        return ("schedule field '" + field + "' attaches '" +
                at.getCompute().getValue() + "' at axis '" + axis + "', but " +
                quoted(compute) + " has no such axis (axes: " +
                quotedList(compute.getAxisList(),
                           [](AxisAttr a) { return a.getName(); }) +
                ")")
            .str();
    }
    return "";
  };
  std::string why = checkAt("compute_at", schedule.getComputeAt());
  if (why.empty())
    why = checkAt("reverse_compute_at", schedule.getReverseComputeAt());
  for (StringAttr name : schedule.getComputeInline())
    if (why.empty())
      why = checkName("compute_inline", name.getValue());
  for (StringAttr name : schedule.getOnline())
    if (why.empty())
      why = checkName("online", name.getValue());
  if (!why.empty())
    return fail(why);
  return DiagnosedSilenceableFailure::success();
}

/// Sets `schedule` on `compute` and verifies it; restores the old schedule
/// when it does not fit (the verifier has said why, at the compute).
static DiagnosedSilenceableFailure attachSchedule(Operation *transformOp,
                                                  ComputeOp compute,
                                                  ScheduleAttr schedule) {
  if (DiagnosedSilenceableFailure named =
          checkFusionNames(transformOp, compute, schedule);
      !named.succeeded())
    return named;
  ScheduleAttr old = compute.getScheduleAttr();
  compute.setScheduleAttr(schedule);
  if (failed(mlir::verify(compute))) {
    if (old)
      compute.setScheduleAttr(old);
    else
      compute.removeScheduleAttr();
    return emitDefiniteFailure(transformOp)
           << "the schedule does not fit the compute (see its diagnostic)";
  }
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure transform::SetScheduleOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto compute = dyn_cast<ComputeOp>(target);
  if (!compute)
    return notACompute(*this, target);
  return attachSchedule(*this, compute, getSchedule());
}

void transform::SetScheduleOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsHandle(getTargetMutable(), effects);
  modifiesPayload(effects);
}

namespace {

/// Reads the fields of an update_schedule over a schedule (or none),
/// reporting the first field of the wrong kind.
class ScheduleFields {
public:
  ScheduleFields(DictionaryAttr fields,
                 std::function<InFlightDiagnostic()> emitError)
      : fields(fields), emitError(std::move(emitError)) {}

  std::optional<SmallVector<int64_t>> integers(StringRef key,
                                               ArrayRef<int64_t> old) {
    Attribute a = fields.get(key);
    if (!a)
      return SmallVector<int64_t>(old);
    if (auto dense = dyn_cast<DenseI64ArrayAttr>(a))
      return SmallVector<int64_t>(dense.asArrayRef());
    SmallVector<int64_t> values;
    auto array = dyn_cast<ArrayAttr>(a);
    for (Attribute e : array ? array.getValue() : ArrayRef<Attribute>{}) {
      auto i = dyn_cast<IntegerAttr>(e);
      if (!i)
        return wrong(key, "an array of integers");
      values.push_back(i.getInt());
    }
    if (!array)
      return wrong(key, "an array of integers");
    return values;
  }

  template <typename T>
  std::optional<SmallVector<T>> attributes(StringRef key, ArrayRef<T> old,
                                           StringRef what) {
    Attribute a = fields.get(key);
    if (!a)
      return SmallVector<T>(old);
    auto array = dyn_cast<ArrayAttr>(a);
    if (!array)
      return wrong(key, what);
    SmallVector<T> values;
    for (Attribute e : array) {
      auto t = dyn_cast<T>(e);
      if (!t)
        return wrong(key, what);
      values.push_back(t);
    }
    return values;
  }

  std::optional<int64_t> integer(StringRef key, int64_t old) {
    Attribute a = fields.get(key);
    if (!a)
      return old;
    if (auto i = dyn_cast<IntegerAttr>(a))
      return i.getInt();
    return wrong(key, "an integer");
  }

  /// An attribute of interface or class `T`, or its old value.
  template <typename T>
  std::optional<T> attribute(StringRef key, T old, StringRef what) {
    Attribute a = fields.get(key);
    if (!a)
      return old;
    if (auto t = dyn_cast<T>(a))
      return t;
    return wrong(key, what);
  }

  /// Whether any field is outside `known`.
  bool checkKnown(ArrayRef<StringRef> known) {
    for (NamedAttribute field : fields)
      if (!llvm::is_contained(known, field.getName().getValue())) {
        InFlightDiagnostic d = emitError();
        d << "unknown schedule field '" << field.getName().getValue()
          << "' (fields:";
        for (StringRef k : known)
          d << " " << k;
        d << ")";
        return false;
      }
    return true;
  }

  bool failed = false;

private:
  std::nullopt_t wrong(StringRef key, StringRef what) {
    if (!failed)
      emitError() << "schedule field '" << key << "' expects " << what
                  << ", got " << fields.get(key);
    failed = true;
    return std::nullopt;
  }

  DictionaryAttr fields;
  std::function<InFlightDiagnostic()> emitError;
};

} // namespace

DiagnosedSilenceableFailure transform::UpdateScheduleOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto compute = dyn_cast<ComputeOp>(target);
  if (!compute)
    return notACompute(*this, target);
  MLIRContext *ctx = getContext();
  ScheduleAttr old = compute.getScheduleAttr();
  ScheduleFields f(getFields(), [&]() { return emitOpError(); });
  static constexpr StringRef kKnown[] = {
      "tile",   "blocks", "threads", "cache",  "decomposition",
      "raster", "swizzle", "vector", "unroll", "layout",
      "mma",    "warps",  "stages",  "async",  "compute_at",
      "reverse_compute_at", "compute_inline", "online", "tma", "specialize", "cluster"};
  if (!f.checkKnown(kKnown))
    return DiagnosedSilenceableFailure::definiteFailure();

  auto tile = f.integers("tile", old ? old.getTile() : ArrayRef<int64_t>{});
  auto threads =
      f.integers("threads", old ? old.getThreads() : ArrayRef<int64_t>{});
  auto warps = f.integers("warps", old ? old.getWarps() : ArrayRef<int64_t>{});
  auto cluster =
      f.integers("cluster", old ? old.getCluster() : ArrayRef<int64_t>{});
  auto blocks = f.attributes<StringAttr>(
      "blocks", old ? old.getBlocks() : ArrayRef<StringAttr>{},
      "an array of axis names");
  auto inlined = f.attributes<StringAttr>(
      "compute_inline", old ? old.getComputeInline() : ArrayRef<StringAttr>{},
      "an array of compute names");
  auto online = f.attributes<StringAttr>(
      "online", old ? old.getOnline() : ArrayRef<StringAttr>{},
      "an array of compute names");
  auto cache = f.attributes<CacheAttr>(
      "cache", old ? old.getCache() : ArrayRef<CacheAttr>{},
      "an array of #ext.cache");
  auto computeAt = f.attributes<AttachAttr>(
      "compute_at", old ? old.getComputeAt() : ArrayRef<AttachAttr>{},
      "an array of #ext.at");
  auto reverseComputeAt = f.attributes<AttachAttr>(
      "reverse_compute_at",
      old ? old.getReverseComputeAt() : ArrayRef<AttachAttr>{},
      "an array of #ext.at");
  auto decomposition = f.attribute<TileDecompositionAttrInterface>(
      "decomposition", old ? old.getDecomposition() : nullptr,
      "a tile decomposition (#ext.split_k<...>, #ext.stream_k<...>, ...)");
  auto layout = f.attribute<FragmentLayoutAttrInterface>(
      "layout", old ? old.getLayout() : nullptr,
      "a fragment layout (#ext.cyclic, #ext.blocked<...>)");
  MmaLayoutAttr mma = old ? old.getMma() : nullptr;
  if (Attribute a = getFields().get("mma")) {
    auto s = dyn_cast<StringAttr>(a);
    if (s && s.getValue() == "auto")
      mma = MmaLayoutAttr::get(ctx, MmaShape::automatic, {});
    else if (!(mma = dyn_cast<MmaLayoutAttr>(a)))
      return emitDefiniteFailure()
             << "schedule field 'mma' expects an #ext.mma<...> or \"auto\", "
                "got "
             << a;
  }
  RasterOrder raster = old ? old.getRaster() : RasterOrder::row;
  if (Attribute a = getFields().get("raster")) {
    auto s = dyn_cast<StringAttr>(a);
    std::optional<RasterOrder> r =
        s ? symbolizeRasterOrder(s.getValue()) : std::nullopt;
    if (!r)
      return emitDefiniteFailure()
             << "schedule field 'raster' expects \"row\" or \"col\", got " << a;
    raster = *r;
  }
  // A bool field: its value, the old schedule's, or `fallback`.
  auto boolField = [&](StringRef name, std::optional<bool> previous,
                       bool fallback) -> FailureOr<bool> {
    Attribute a = getFields().get(name);
    if (!a)
      return previous.value_or(fallback);
    auto b = dyn_cast<BoolAttr>(a);
    if (!b) {
      DiagnosedSilenceableFailure diag =
          emitDefiniteFailure()
          << "schedule field '" << name << "' expects a bool, got " << a;
      (void)diag.checkAndReport();
      return failure();
    }
    return b.getValue();
  };
  FailureOr<bool> async = boolField(
      "async", old ? std::optional<bool>(old.getAsync()) : std::nullopt, true);
  FailureOr<bool> tma = boolField(
      "tma", old ? std::optional<bool>(old.getTma()) : std::nullopt, false);
  FailureOr<bool> fastMath = boolField(
      "fast_math",
      old ? std::optional<bool>(old.getFastMath()) : std::nullopt, true);
  if (failed(async) || failed(tma) || failed(fastMath))
    return DiagnosedSilenceableFailure::definiteFailure();
  WarpSpecialization specialize =
      old ? old.getSpecialize() : WarpSpecialization::none;
  if (Attribute a = getFields().get("specialize")) {
    auto s = dyn_cast<StringAttr>(a);
    std::optional<WarpSpecialization> w =
        s ? symbolizeWarpSpecialization(s.getValue()) : std::nullopt;
    if (!w)
      return emitDefiniteFailure() << "schedule field 'specialize' expects "
                                      "\"none\", \"cooperative\" or \"pingpong\", got "
                                   << a;
    specialize = *w;
  }
  auto swizzle = f.integer("swizzle", old ? old.getSwizzle() : 1);
  auto vector = f.integer("vector", old ? old.getVector() : 1);
  auto unroll = f.integer("unroll", old ? old.getUnroll() : 1);
  auto stages = f.integer("stages", old ? old.getStages() : 1);
  if (f.failed)
    return DiagnosedSilenceableFailure::definiteFailure();
  if (tile->empty() || threads->empty())
    return emitDefiniteFailure()
           << "the compute has no schedule yet: give at least 'tile' and "
              "'threads'";

  auto schedule = ScheduleAttr::getChecked(
      [&]() { return emitOpError(); }, ctx, ArrayRef(*tile), ArrayRef(*blocks),
      ArrayRef(*threads), ArrayRef(*cache), *decomposition, raster, *swizzle,
      *vector, *unroll, *layout, mma, ArrayRef(*warps), *stages, *async,
      ArrayRef(*computeAt), ArrayRef(*reverseComputeAt), ArrayRef(*inlined),
      ArrayRef(*online), *tma, specialize, ArrayRef(*cluster), *fastMath);
  if (!schedule)
    return DiagnosedSilenceableFailure::definiteFailure();
  return attachSchedule(*this, compute, schedule);
}

void transform::UpdateScheduleOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsHandle(getTargetMutable(), effects);
  modifiesPayload(effects);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

namespace {
class ExtTransformDialectExtension
    : public transform::TransformDialectExtension<
          ExtTransformDialectExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExtTransformDialectExtension)

  ExtTransformDialectExtension() {
    declareDependentDialect<ExtDialect>();
    registerTransformOps<
#define GET_OP_LIST
#include "ext/Dialect/Ext/TransformOps/ExtTransformOps.cpp.inc"
        >();
  }
};
} // namespace

void ext::registerTransformDialectExtension(DialectRegistry &registry) {
  registry.addExtensions<ExtTransformDialectExtension>();
}
