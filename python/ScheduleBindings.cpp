//===- ScheduleBindings.cpp - ext's schedule attributes from Python values ===//
//
// `ext._ext.schedules`: one maker per attribute Python builds, taking the
// attribute's ODS parameters as keywords with their C++ types (an int is an
// int, an enum one of its ODS names, an attribute an Attribute or text).
// Values are checked by the attributes' verifiers through getChecked; the
// names Python offers (fields, mma instructions) come from here, so a
// parameter or instruction added in ODS cannot silently drift from Python.
//
//===----------------------------------------------------------------------===//

#include "ScheduleBindings.h"

#include "ext/Dialect/Ext/IR/DecompositionRegistry.h"
#include "ext/Dialect/Ext/IR/ExtAttrs.h"
#include "ext/Dialect/Ext/IR/ExtDialect.h"
#include "ext/InitAll.h"
#include "ext/Support/ParserHazards.h"
#include "ext/Support/Plugins.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/TypeName.h"

#include <pybind11/stl.h>

#include <optional>
#include <variant>

namespace py = pybind11;
using namespace mlir;
using llvm::StringLiteral;

namespace ext::python {
namespace {

/// Where Python's attributes are first made, verified and printed: ext's
/// dialects and the plugins' (load_plugin_dialects). Never destroyed: Python
/// objects hold its attributes until the interpreter exits.
MLIRContext &scheduleContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    ext::registerAllDialects(registry);
    auto *ctx = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    return ctx;
  }();
  return *context;
}

/// Plugin attributes' escape hatch: text parsed in `ctx`, after the checks
/// that keep the installed parser from crashing.
Attribute parseText(StringRef text, MLIRContext *ctx, EmitError emitError) {
  if (std::optional<ext::ParserHazard> hazard = ext::findParserHazard(text)) {
    emitError() << hazard->message;
    return {};
  }
  // Diagnostics go to the context's handlers, as getChecked's do.
  return parseAttribute(text, ctx);
}

std::string pyRepr(const py::handle &h) {
  return py::repr(h).cast<std::string>();
}

/// 'a', 'b' or 'c'.
std::string quotedChoice(ArrayRef<std::string> names) {
  std::string s;
  for (auto [i, name] : llvm::enumerate(names))
    s += (i == 0 ? "'" : i + 1 == names.size() ? " or '" : ", '") + name + "'";
  return s;
}

/// An ODS enum's names, in value order.
template <typename E>
std::vector<std::string> enumNames(std::optional<E> (*symbolize)(uint32_t),
                                   unsigned maxValue) {
  std::vector<std::string> names;
  for (uint32_t v = 0; v <= maxValue; ++v)
    if (std::optional<E> e = symbolize(v))
      names.push_back(stringifyEnum(*e).str());
  return names;
}

std::vector<std::string> mmaNames() {
  return enumNames<MmaShape>(symbolizeMmaShape, getMaxEnumValForMmaShape());
}
std::vector<std::string> specializeNames() {
  return enumNames<WarpSpecialization>(symbolizeWarpSpecialization,
                                       getMaxEnumValForWarpSpecialization());
}
std::vector<std::string> rasterNames() {
  return enumNames<RasterOrder>(symbolizeRasterOrder,
                                getMaxEnumValForRasterOrder());
}

/// One attribute's keyword arguments, read as its ODS parameters' C++ types.
/// A wrong type is a TypeError naming the parameter; values are for the
/// verifier to judge. None is the parameter's default.
class Keywords {
public:
  Keywords(StringRef attr, ArrayRef<StringLiteral> fields,
           const py::kwargs &kwargs)
      : attr(attr.str()), kwargs(kwargs) {
    for (auto item : kwargs) {
      std::string key = py::cast<std::string>(item.first);
      if (!llvm::is_contained(fields, key))
        throw py::value_error(
            this->attr + " field '" + key +
            "' does not exist in this build of ext; valid fields: " +
            llvm::join(fields, ", "));
    }
  }

  /// No default: the parameter must be given.
  int64_t integer(StringRef name, std::optional<int64_t> byDefault) const {
    py::handle v = find(name, !byDefault);
    return v ? asInteger(name, v) : *byDefault;
  }

  bool boolean(StringRef name, bool byDefault) const {
    py::handle v = find(name);
    if (!v)
      return byDefault;
    if (!py::isinstance<py::bool_>(v))
      wrongType(name, "True or False", v);
    return v.cast<bool>();
  }

  SmallVector<int64_t> integers(StringRef name) const {
    SmallVector<int64_t> result;
    for (py::handle item : list(name, "a list of integers"))
      result.push_back(asInteger(name, item));
    return result;
  }

  /// No default: the parameter must be given.
  std::string string(StringRef name) const {
    py::handle v = find(name, /*required=*/true);
    if (!py::isinstance<py::str>(v))
      wrongType(name, "a string", v);
    return v.cast<std::string>();
  }

  SmallVector<std::string> strings(StringRef name) const {
    SmallVector<std::string> result;
    for (py::handle item : list(name, "a list of strings")) {
      if (!py::isinstance<py::str>(item))
        wrongType(name, "a list of strings", item);
      result.push_back(item.cast<std::string>());
    }
    return result;
  }

  template <typename E>
  E enumeration(StringRef name, std::optional<E> byDefault,
                std::vector<std::string> (*names)()) const {
    py::handle v = find(name, !byDefault);
    if (!v)
      return *byDefault;
    std::optional<E> e;
    if (py::isinstance<py::str>(v))
      e = symbolizeEnum<E>(v.cast<std::string>());
    if (!e)
      throw py::value_error(attr + " " + name.str() + " must be " +
                            quotedChoice(names()) + ", got " + pyRepr(v));
    return *e;
  }

  /// An Attribute, or text parsed in C++.
  std::optional<py::object> attribute(StringRef name) const {
    py::handle v = find(name);
    if (!v)
      return std::nullopt;
    return checkedAttribute(name, v);
  }

  std::vector<py::object> attributes(StringRef name) const {
    std::vector<py::object> result;
    for (py::handle item : list(name, "a list of attributes"))
      result.push_back(checkedAttribute(name, item));
    return result;
  }

private:
  /// The value given for `name`; null if absent or None.
  py::handle find(StringRef name, bool required = false) const {
    py::str key(name.str());
    if (kwargs.contains(key) && !kwargs[key].is_none())
      return kwargs[key];
    if (required)
      throw py::value_error(attr + " needs " + name.str());
    return {};
  }

  [[noreturn]] void wrongType(StringRef name, StringRef what,
                              const py::handle &v) const {
    throw py::type_error(attr + " " + name.str() + " takes " + what.str() +
                         ", got " + pyRepr(v));
  }

  int64_t asInteger(StringRef name, const py::handle &v) const {
    if (!py::isinstance<py::int_>(v) || py::isinstance<py::bool_>(v))
      wrongType(name, "integers", v);
    try {
      return v.cast<int64_t>();
    } catch (const py::cast_error &) {
      throw py::value_error(attr + " " + name.str() + ": " + pyRepr(v) +
                            " does not fit in 64 bits");
    }
  }

  py::list list(StringRef name, StringRef what) const {
    py::handle v = find(name);
    if (!v)
      return py::list();
    if (!py::isinstance<py::list>(v) && !py::isinstance<py::tuple>(v))
      wrongType(name, what, v);
    return py::list(py::reinterpret_borrow<py::object>(v));
  }

  py::object checkedAttribute(StringRef name, const py::handle &v) const {
    if (!py::isinstance<AttributeValue>(v) && !py::isinstance<py::str>(v))
      wrongType(name, "an attribute (or its text)", v);
    return py::reinterpret_borrow<py::object>(v);
  }

  std::string attr;
  const py::kwargs &kwargs;
};

/// `value` made in `ctx` as a T (an attribute class or interface); null
/// after reporting that it is not one.
template <typename T>
T getAs(const py::object &value, MLIRContext *ctx, EmitError emitError,
        StringRef notA) {
  Attribute a = getAttribute(value, ctx, emitError);
  if (!a)
    return {};
  T t = dyn_cast<T>(a);
  if (!t)
    emitError() << a << " is not " << notA;
  return t;
}

/// Like getAs; an absent value is a null T. False after reporting.
template <typename T>
bool getOptional(const std::optional<py::object> &value, MLIRContext *ctx,
                 EmitError emitError, StringRef notA, T &out) {
  if (value)
    out = getAs<T>(*value, ctx, emitError, notA);
  return !value || out;
}

template <typename T>
bool getAll(ArrayRef<py::object> values, MLIRContext *ctx, EmitError emitError,
            StringRef notA, SmallVectorImpl<T> &out) {
  for (const py::object &v : values) {
    out.push_back(getAs<T>(v, ctx, emitError, notA));
    if (!out.back())
      return false;
  }
  return true;
}

/// The number of parameters of an attribute's ODS `get` after the context:
/// the field tables below must name each of them.
template <typename R, typename... Args>
constexpr size_t parameterCount(R (*)(MLIRContext *, Args...)) {
  return sizeof...(Args);
}

// Each attribute's ODS parameters, in ODS order: the keywords its maker
// takes (and `ext.schedule_fields()` lists for #ext.schedule).
constexpr StringLiteral kScheduleFields[] = {
    "tile",   "blocks",  "threads", "cache",  "decomposition",
    "raster", "swizzle", "vector",  "unroll", "layout",
    "mma",    "warps",   "stages",  "async",
    "compute_at", "reverse_compute_at", "compute_inline", "online", "tma",
    "specialize", "cluster", "fast_math"};
constexpr StringLiteral kAttachFields[] = {"compute", "axis"};
constexpr StringLiteral kCacheFields[] = {"operand", "align", "swizzle"};
constexpr StringLiteral kStorageAlignFields[] = {"dim", "factor", "offset"};
constexpr StringLiteral kSwizzleFields[] = {"bits", "base", "shift", "panel"};
constexpr StringLiteral kBlockedFields[] = {"thread_tile"};
constexpr StringLiteral kMmaFields[] = {"shape", "warps"};

#define EXT_CHECK_FIELDS(Attr, fields)                                         \
  static_assert(parameterCount(&Attr::get) == std::size(fields), #Attr         \
                "'s ODS parameters changed: update " #fields " and its maker")
EXT_CHECK_FIELDS(ScheduleAttr, kScheduleFields);
EXT_CHECK_FIELDS(CacheAttr, kCacheFields);
EXT_CHECK_FIELDS(StorageAlignAttr, kStorageAlignFields);
EXT_CHECK_FIELDS(SwizzleAttr, kSwizzleFields);
EXT_CHECK_FIELDS(BlockedLayoutAttr, kBlockedFields);
EXT_CHECK_FIELDS(MmaLayoutAttr, kMmaFields);
EXT_CHECK_FIELDS(AttachAttr, kAttachFields);
#undef EXT_CHECK_FIELDS

AttributeValue::Maker readSchedule(const Keywords &k) {
  SmallVector<int64_t> tile = k.integers("tile"),
                       threads = k.integers("threads"),
                       warps = k.integers("warps"),
                       cluster = k.integers("cluster");
  SmallVector<std::string> blocks = k.strings("blocks"),
                           inlined = k.strings("compute_inline"),
                           online = k.strings("online");
  std::vector<py::object> cache = k.attributes("cache"),
                          attached = k.attributes("reverse_compute_at"),
                          attachedAt = k.attributes("compute_at");
  std::optional<py::object> decomposition = k.attribute("decomposition"),
                            layout = k.attribute("layout"),
                            mma = k.attribute("mma");
  RasterOrder raster =
      k.enumeration<RasterOrder>("raster", RasterOrder::row, rasterNames);
  int64_t swizzle = k.integer("swizzle", 1), vector = k.integer("vector", 1),
          unroll = k.integer("unroll", 1), stages = k.integer("stages", 1);
  bool async = k.boolean("async", true), tma = k.boolean("tma", false),
       fastMath = k.boolean("fast_math", true);
  WarpSpecialization specialize = k.enumeration<WarpSpecialization>(
      "specialize", WarpSpecialization::none, specializeNames);
  return [=](MLIRContext *ctx, EmitError emitError) -> Attribute {
    SmallVector<StringAttr> blockNames, inlinedNames, onlineNames;
    for (const std::string &b : blocks)
      blockNames.push_back(StringAttr::get(ctx, b));
    for (const std::string &n : inlined)
      inlinedNames.push_back(StringAttr::get(ctx, n));
    for (const std::string &n : online)
      onlineNames.push_back(StringAttr::get(ctx, n));
    SmallVector<CacheAttr> caches;
    SmallVector<AttachAttr> computeAt, reverseComputeAt;
    TileDecompositionAttrInterface d;
    FragmentLayoutAttrInterface l;
    MmaLayoutAttr m;
    if (!getAll(cache, ctx, emitError, "a cache entry (#ext.cache)", caches) ||
        !getAll(attached, ctx, emitError, "an attached compute (#ext.at)",
                reverseComputeAt) ||
        !getAll(attachedAt, ctx, emitError, "an attached compute (#ext.at)",
                computeAt) ||
        !getOptional(decomposition, ctx, emitError,
                     "a tile decomposition (it does not implement "
                     "TileDecompositionAttrInterface)",
                     d) ||
        !getOptional(layout, ctx, emitError,
                     "a fragment layout (it does not implement "
                     "FragmentLayoutAttrInterface)",
                     l) ||
        !getOptional(mma, ctx, emitError, "an #ext.mma<...> instruction", m))
      return {};
    // ArrayRefs: the attributes' own getChecked, not AttrBase's template.
    return ScheduleAttr::getChecked(
        emitError, ctx, ArrayRef(tile), ArrayRef(blockNames), ArrayRef(threads),
        ArrayRef(caches), d, raster, swizzle, vector, unroll, l, m,
        ArrayRef(warps), stages, async, ArrayRef(computeAt),
        ArrayRef(reverseComputeAt), ArrayRef(inlinedNames),
        ArrayRef(onlineNames), tma, specialize, ArrayRef(cluster), fastMath);
  };
}

AttributeValue::Maker readCache(const Keywords &k) {
  int64_t operand = k.integer("operand", std::nullopt);
  std::vector<py::object> align = k.attributes("align");
  std::optional<py::object> swizzle = k.attribute("swizzle");
  return [=](MLIRContext *ctx, EmitError emitError) -> Attribute {
    SmallVector<StorageAlignAttr> aligns;
    SwizzleAttr s;
    if (!getAll(align, ctx, emitError, "an #ext.storage_align", aligns) ||
        !getOptional(swizzle, ctx, emitError, "an #ext.swizzle", s))
      return {};
    return CacheAttr::getChecked(emitError, ctx, operand, ArrayRef(aligns), s);
  };
}

AttributeValue::Maker readStorageAlign(const Keywords &k) {
  int64_t dim = k.integer("dim", std::nullopt),
          factor = k.integer("factor", std::nullopt),
          offset = k.integer("offset", std::nullopt);
  return [=](MLIRContext *ctx, EmitError emitError) -> Attribute {
    return StorageAlignAttr::getChecked(emitError, ctx, dim, factor, offset);
  };
}

AttributeValue::Maker readSwizzle(const Keywords &k) {
  int64_t bits = k.integer("bits", std::nullopt),
          base = k.integer("base", std::nullopt),
          shift = k.integer("shift", std::nullopt),
          panel = k.integer("panel", 0);
  return [=](MLIRContext *ctx, EmitError emitError) -> Attribute {
    return SwizzleAttr::getChecked(emitError, ctx, bits, base, shift, panel);
  };
}

AttributeValue::Maker readCyclic(const Keywords &) {
  return [](MLIRContext *ctx, EmitError) -> Attribute {
    return CyclicLayoutAttr::get(ctx);
  };
}

AttributeValue::Maker readBlocked(const Keywords &k) {
  SmallVector<int64_t> threadTile = k.integers("thread_tile");
  return [=](MLIRContext *ctx, EmitError emitError) -> Attribute {
    return BlockedLayoutAttr::getChecked(emitError, ctx, ArrayRef(threadTile));
  };
}

AttributeValue::Maker readMma(const Keywords &k) {
  MmaShape shape = k.enumeration<MmaShape>("shape", std::nullopt, mmaNames);
  SmallVector<int64_t> warps = k.integers("warps");
  return [=](MLIRContext *ctx, EmitError emitError) -> Attribute {
    return MmaLayoutAttr::getChecked(emitError, ctx, shape, ArrayRef(warps));
  };
}

AttributeValue::Maker readAttach(const Keywords &k) {
  std::string compute = k.string("compute"), axis = k.string("axis");
  return [=](MLIRContext *ctx, EmitError) -> Attribute {
    return AttachAttr::get(ctx, StringAttr::get(ctx, compute),
                           StringAttr::get(ctx, axis));
  };
}

/// The attributes Python makes: `ext._ext.schedules.<name>(**fields)`.
struct AttributeKind {
  const char *name;
  ArrayRef<StringLiteral> fields;
  AttributeValue::Maker (*read)(const Keywords &);
};

const AttributeKind kKinds[] = {
    {"schedule", kScheduleFields, readSchedule},
    {"cache", kCacheFields, readCache},
    {"storage_align", kStorageAlignFields, readStorageAlign},
    {"swizzle", kSwizzleFields, readSwizzle},
    {"cyclic", {}, readCyclic},
    {"blocked", kBlockedFields, readBlocked},
    {"mma", kMmaFields, readMma},
    {"at", kAttachFields, readAttach},
};

/// `a` as a Python Attribute; in another context it is made again from its
/// text (as a plugin's is). None for a null attribute.
py::object wrap(Attribute a) {
  if (!a)
    return py::none();
  std::string text;
  llvm::raw_string_ostream(text) << a;
  return py::cast(AttributeValue(
      [a, text](MLIRContext *ctx, EmitError emitError) -> Attribute {
        return ctx == a.getContext() ? a : parseText(text, ctx, emitError);
      }));
}

template <typename T>
py::list wrapAll(ArrayRef<T> attrs) {
  py::list out;
  for (T a : attrs)
    out.append(wrap(a));
  return out;
}

std::vector<std::string> strings(ArrayRef<StringAttr> attrs) {
  std::vector<std::string> out;
  for (StringAttr a : attrs)
    out.push_back(a.str());
  return out;
}

template <typename T>
std::vector<int64_t> ints(ArrayRef<T> values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

/// The parameters of one of ext's schedule attributes (or decompositions)
/// as the keywords its maker takes: remade from them, it is `a` again.
py::dict fieldsOf(Attribute a) {
  py::dict d;
  if (auto s = dyn_cast<ScheduleAttr>(a)) {
    d["tile"] = ints(s.getTile());
    d["blocks"] = strings(s.getBlocks());
    d["threads"] = ints(s.getThreads());
    d["cache"] = wrapAll(s.getCache());
    d["decomposition"] = wrap(s.getDecomposition());
    d["raster"] = stringifyEnum(s.getRaster()).str();
    d["swizzle"] = s.getSwizzle();
    d["vector"] = s.getVector();
    d["unroll"] = s.getUnroll();
    d["layout"] = wrap(s.getLayout());
    d["mma"] = wrap(s.getMma());
    d["warps"] = ints(s.getWarps());
    d["stages"] = s.getStages();
    d["async"] = s.getAsync();
    d["compute_at"] = wrapAll(s.getComputeAt());
    d["reverse_compute_at"] = wrapAll(s.getReverseComputeAt());
    d["compute_inline"] = strings(s.getComputeInline());
    d["online"] = strings(s.getOnline());
    d["tma"] = s.getTma();
    d["specialize"] = stringifyEnum(s.getSpecialize()).str();
    d["cluster"] = ints(s.getCluster());
    d["fast_math"] = s.getFastMath();
  } else if (auto c = dyn_cast<CacheAttr>(a)) {
    d["operand"] = c.getOperand();
    d["align"] = wrapAll(c.getAlign());
    d["swizzle"] = wrap(c.getSwizzle());
  } else if (auto al = dyn_cast<StorageAlignAttr>(a)) {
    d["dim"] = al.getDim();
    d["factor"] = al.getFactor();
    d["offset"] = al.getOffset();
  } else if (auto sw = dyn_cast<SwizzleAttr>(a)) {
    d["bits"] = sw.getBits();
    d["base"] = sw.getBase();
    d["shift"] = sw.getShift();
    d["panel"] = sw.getPanel();
  } else if (auto b = dyn_cast<BlockedLayoutAttr>(a)) {
    d["thread_tile"] = ints(b.getThreadTile());
  } else if (auto m = dyn_cast<MmaLayoutAttr>(a)) {
    d["shape"] = stringifyEnum(m.getShape()).str();
    d["warps"] = ints(m.getWarps());
  } else if (auto at = dyn_cast<AttachAttr>(a)) {
    d["compute"] = at.getCompute().str();
    d["axis"] = at.getAxis().str();
  } else if (auto p = dyn_cast<PersistentAttr>(a)) {
    d["grid"] = p.getGrid();
    d["sms"] = p.getSms();
  } else if (auto k = dyn_cast<SplitKAttr>(a)) {
    d["slices"] = k.getSlices();
    d["mode"] = stringifyEnum(k.getMode()).str();
  } else if (auto k = dyn_cast<StreamKAttr>(a)) {
    d["grid"] = k.getGrid();
    d["sms"] = k.getSms();
  } else if (auto k = dyn_cast<StreamKDPAttr>(a)) {
    d["sms"] = k.getSms();
  } else if (auto k = dyn_cast<StreamK2TileAttr>(a)) {
    d["sms"] = k.getSms();
  } else if (auto k = dyn_cast<AutoAttr>(a)) {
    d["sms"] = k.getSms();
  } else if (!isa<CyclicLayoutAttr, DataParallelAttr>(a)) {
    std::string text;
    llvm::raw_string_ostream(text) << a;
    throw py::value_error("fields() reads ext's schedule attributes and "
                          "decompositions, not " + text);
  }
  return d;
}

} // namespace

AttributeValue::AttributeValue(Maker make) : make(std::move(make)) {
  MLIRContext *ctx = &scheduleContext();
  FirstDiagnostic diagnostic(ctx);
  local =
      this->make(ctx, [&] { return mlir::emitError(UnknownLoc::get(ctx)); });
  if (!local)
    throw py::value_error(diagnostic.message.empty() ? "invalid attribute"
                                                     : diagnostic.message);
}

Attribute AttributeValue::get(MLIRContext *ctx, EmitError emitError) const {
  return ctx == local.getContext() ? local : make(ctx, emitError);
}

std::string AttributeValue::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  local.print(os);
  return s;
}

Attribute getAttribute(const py::handle &value, MLIRContext *ctx,
                       EmitError emitError) {
  if (py::isinstance<AttributeValue>(value))
    return value.cast<const AttributeValue &>().get(ctx, emitError);
  if (py::isinstance<py::str>(value))
    return parseText(value.cast<std::string>(), ctx, emitError);
  emitError() << "expected an attribute or its text, got " << pyRepr(value);
  return {};
}

void bindSchedules(py::module &m) {
  py::module s = m.def_submodule(
      "schedules", "ext's schedule attributes from typed values (ODS's "
                   "getChecked), and the names ODS defines");
  py::class_<AttributeValue>(s, "Attribute",
                             "An attribute made from typed values; str() is "
                             "its IR text")
      .def("__str__", &AttributeValue::str)
      .def("__repr__",
           [](const AttributeValue &a) { return "Attribute(" + a.str() + ")"; })
      .def("__eq__",
           [](const AttributeValue &a, const py::object &other) {
             return py::isinstance<AttributeValue>(other) &&
                    a.attribute() ==
                        other.cast<const AttributeValue &>().attribute();
           })
      .def("__hash__",
           [](const AttributeValue &a) {
             return size_t(mlir::hash_value(a.attribute()));
           })
      .def_property_readonly(
          "name",
          [](const AttributeValue &a) {
            return a.attribute().getAbstractAttribute().getName().str();
          },
          "The attribute's name: 'ext.schedule', 'ext.stream_k', ...")
      .def(
          "fields",
          [](const AttributeValue &a) { return fieldsOf(a.attribute()); },
          "The parameters of one of ext's schedule attributes or "
          "decompositions, typed (ints, names, Attributes, None), as its "
          "maker's keywords: `schedules.schedule(**s.fields()) == s`");
  for (const AttributeKind &kind : kKinds)
    s.def(
        kind.name,
        [kind](const py::kwargs &kwargs) {
          return AttributeValue(
              kind.read(Keywords(kind.name, kind.fields, kwargs)));
        },
        ("#ext." + std::string(kind.name) + " from its parameters (" +
         llvm::join(kind.fields, ", ") + ") as keywords")
            .c_str());
  s.def(
      "parse",
      [](const std::string &text) {
        return AttributeValue([text](MLIRContext *ctx, EmitError emitError) {
          return parseText(text, ctx, emitError);
        });
      },
      py::arg("text"), "An attribute from its text (a plugin's attribute)");
  s.def(
      "fields",
      [](const std::string &name) {
        for (const AttributeKind &kind : kKinds)
          if (name == kind.name)
            return std::vector<std::string>(kind.fields.begin(),
                                            kind.fields.end());
        throw py::value_error("no attribute maker '" + name + "'");
      },
      py::arg("name"), "The ODS parameters of attribute `name`, in order");
  s.def(
      "decompositions",
      [] {
        py::list out;
        for (const DecompositionEntry &e : getTileDecompositions())
          out.append(py::make_tuple(
              e.name, e.summary,
              std::vector<std::string>(e.parameters.begin(),
                                       e.parameters.end())));
        return out;
      },
      "Every registered tile decomposition (ext's own, then the plugins'): "
      "(name, summary, parameters)");
  s.def(
      "decomposition",
      [](const std::string &name, const py::kwargs &kwargs) {
        // Plain values, so the attribute can be made again in the context
        // the program is built in.
        using Value = std::variant<int64_t, std::string>;
        std::vector<std::pair<std::string, Value>> params;
        for (auto [key, value] : kwargs) {
          std::string k = py::cast<std::string>(key);
          if (value.is_none())
            continue; // the attribute's default
          if (py::isinstance<py::int_>(value) &&
              !py::isinstance<py::bool_>(value)) {
            try {
              params.push_back({k, value.cast<int64_t>()});
            } catch (const py::cast_error &) {
              throw py::value_error("decomposition '" + name + "': " + k +
                                    " = " + pyRepr(value) +
                                    " does not fit in 64 bits");
            }
          } else if (py::isinstance<py::str>(value)) {
            params.push_back({k, value.cast<std::string>()});
          } else {
            throw py::type_error("decomposition '" + name + "': " + k +
                                 " takes an int or a name, got " +
                                 pyRepr(value));
          }
        }
        return AttributeValue([name, params](MLIRContext *ctx,
                                             EmitError emitError) {
          Builder b(ctx);
          SmallVector<NamedAttribute> attrs;
          for (const auto &[k, v] : params)
            attrs.push_back(b.getNamedAttr(
                k, std::holds_alternative<int64_t>(v)
                       ? Attribute(b.getI64IntegerAttr(std::get<int64_t>(v)))
                       : Attribute(b.getStringAttr(std::get<std::string>(v)))));
          FailureOr<TileDecompositionAttrInterface> d =
              buildTileDecomposition(ctx, name, attrs, emitError);
          return succeeded(d) ? Attribute(*d) : Attribute();
        });
      },
      py::arg("name"),
      "The registered decomposition `name` from its parameters as keywords "
      "(ints, or enum values by name), through its parser and verifier");
  s.def("mma_names", &mmaNames,
        "The mma instructions (ODS's MmaShape), 'auto' first");
  s.def(
      "load_plugin_dialects",
      [](const std::string &path) {
        DialectRegistry registry;
        // A plugin of passes only has no dialects to add.
        if (llvm::Error err = ext::loadDialectPlugin(path, registry)) {
          llvm::consumeError(std::move(err));
          return;
        }
        scheduleContext().appendDialectRegistry(registry);
      },
      py::arg("path"),
      "Adds a loaded plugin's dialects to the context schedules are made in");
}

} // namespace ext::python
