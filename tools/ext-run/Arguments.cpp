//===- Arguments.cpp - memref arguments for ext-run's entry ---------------===//
//
// .npy files follow numpy's format description (numpy.lib.format): a magic
// string, a version, a little-endian header length and a Python dict
// literal with 'descr', 'fortran_order' and 'shape', padded to 64 bytes.
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstring>
#include <random>

using namespace mlir;
using namespace ext;

namespace {

std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// numpy's dtype string for an element type; empty if numpy has none.
std::string npyDescr(Type type) {
  if (type.isF16())
    return "<f2";
  if (type.isF32())
    return "<f4";
  if (type.isF64())
    return "<f8";
  if (type.isIndex())
    return "<i8";
  if (type.isInteger(1))
    return "|b1";
  if (type.isInteger(8))
    return "|i1";
  if (type.isInteger(16))
    return "<i2";
  if (type.isInteger(32))
    return "<i4";
  if (type.isInteger(64))
    return "<i8";
  return "";
}

/// Bytes per stored element, or 0 for a type ext-run cannot fill.
unsigned storedBytes(Type type) {
  if (type.isInteger() && !type.isSignlessInteger())
    return 0;
  return runner::getStoredElementBytes(type).value_or(0);
}

/// Element `i` as a double (integers exactly up to 2^53).
double readElement(const MemRefArgument &arg, size_t i) {
  Type type = arg.type.getElementType();
  const char *p = arg.data.data() + i * arg.elementBytes;
  if (type.isF32()) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (type.isF64()) {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (type.isF16() || type.isBF16()) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    llvm::APFloat value(type.isF16() ? llvm::APFloat::IEEEhalf()
                                     : llvm::APFloat::BFloat(),
                        llvm::APInt(16, bits));
    return value.convertToFloat();
  }
  switch (arg.elementBytes) {
  case 1:
    return type.isInteger(1) ? double(*p != 0) : double(int8_t(*p));
  case 2: {
    int16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case 4: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  default: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return double(v);
  }
  }
}

void writeElement(MemRefArgument &arg, size_t i, double value) {
  Type type = arg.type.getElementType();
  char *p = arg.data.data() + i * arg.elementBytes;
  if (type.isF32()) {
    float v = value;
    std::memcpy(p, &v, 4);
  } else if (type.isF64()) {
    std::memcpy(p, &value, 8);
  } else if (type.isF16() || type.isBF16()) {
    llvm::APFloat v(value);
    bool lost;
    v.convert(type.isF16() ? llvm::APFloat::IEEEhalf()
                           : llvm::APFloat::BFloat(),
              llvm::APFloat::rmNearestTiesToEven, &lost);
    uint16_t bits = v.bitcastToAPInt().getZExtValue();
    std::memcpy(p, &bits, 2);
  } else {
    int64_t v = int64_t(value);
    std::memcpy(p, &v, arg.elementBytes); // little-endian host
  }
}

/// Seeded values, the same on every platform: floats uniform in [-1, 1) on
/// a 2^-10 grid (exact in f16 and bf16), integers in [-8, 8], i1 0 or 1.
void fillRandom(MemRefArgument &arg, std::mt19937_64 &rng) {
  Type type = arg.type.getElementType();
  size_t n = arg.data.size() / arg.elementBytes;
  for (size_t i = 0; i < n; ++i) {
    uint64_t r = rng();
    double value;
    if (isa<FloatType>(type))
      value = double(int64_t(r % 2048) - 1024) / 1024.0;
    else if (type.isInteger(1))
      value = double(r & 1);
    else
      value = double(int64_t(r % 17) - 8);
    writeElement(arg, i, value);
  }
}

/// The value of `key` in a .npy header dict: the text after "'key':" up to
/// the next top-level comma or the closing brace.
std::optional<StringRef> headerField(StringRef header, StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  if (rest.starts_with("(")) {
    size_t close = rest.find(')');
    return close == StringRef::npos ? std::nullopt
                                    : std::optional(rest.take_front(close + 1));
  }
  return rest.take_until([](char c) { return c == ',' || c == '}'; }).trim();
}

LogicalResult loadNpy(StringRef path, MemRefArgument &arg, Location loc,
                      unsigned index) {
  auto fail = [&](const Twine &why) {
    return emitError(loc) << "argument " << index << " (" << arg.type
                          << "): '" << path << "' " << why;
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file)
    return fail("cannot be read: " + file.getError().message());
  StringRef bytes = (*file)->getBuffer();
  if (!bytes.consume_front("\x93NUMPY") || bytes.size() < 4)
    return fail("is not a .npy file");
  unsigned major = uint8_t(bytes[0]);
  bytes = bytes.drop_front(2);
  size_t headerLength;
  if (major == 1) {
    headerLength = llvm::support::endian::read16le(bytes.data());
    bytes = bytes.drop_front(2);
  } else {
    if (bytes.size() < 4)
      return fail("is not a .npy file");
    headerLength = llvm::support::endian::read32le(bytes.data());
    bytes = bytes.drop_front(4);
  }
  if (bytes.size() < headerLength)
    return fail("is truncated");
  StringRef header = bytes.take_front(headerLength);
  StringRef payload = bytes.drop_front(headerLength);

  std::string want = npyDescr(arg.type.getElementType());
  if (want.empty())
    return fail("cannot fill it: numpy has no dtype for " +
                typeString(arg.type.getElementType()));
  std::optional<StringRef> descr = headerField(header, "descr");
  std::optional<StringRef> order = headerField(header, "fortran_order");
  std::optional<StringRef> shapeText = headerField(header, "shape");
  if (!descr || !order || !shapeText)
    return fail("has no descr, fortran_order or shape in its header");
  StringRef got = descr->trim("'\"");
  // Single-byte dtypes are written with '|' or '='; '<' and '=' agree on
  // the little-endian hosts ext runs on.
  auto normalized = [](StringRef d) {
    return d.size() == 3 && (d[0] == '=' || d[0] == '|')
               ? ("<" + d.drop_front()).str()
               : d.str();
  };
  if (normalized(got) != normalized(want))
    return fail("holds dtype " + got + "; the argument needs " + want);
  SmallVector<int64_t> shape;
  SmallVector<StringRef> parts;
  shapeText->trim("()").split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    int64_t size;
    if (part.trim().getAsInteger(10, size))
      return fail("has an unreadable shape " + *shapeText);
    shape.push_back(size);
  }
  // A dynamic dimension takes the file's size: the argument becomes the
  // static type of what the file holds.
  bool fits = shape.size() == size_t(arg.type.getRank());
  for (size_t d = 0; fits && d < shape.size(); ++d)
    fits = shape[d] >= 0 && (arg.type.isDynamicDim(d)
                                 ? shape[d] > 0
                                 : shape[d] == arg.type.getDimSize(d));
  if (!fits) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "has shape (";
    llvm::interleaveComma(shape, os);
    os << ")";
    return fail(s);
  }
  if (!arg.type.hasStaticShape()) {
    std::optional<int64_t> elements = 1;
    for (int64_t size : shape)
      if (elements)
        elements = llvm::checkedMul(*elements, size);
    if (!elements || *elements > (int64_t(1) << 40) / arg.elementBytes)
      return fail("is larger than ext-run fills (2^40 bytes)");
    arg.type = MemRefType::get(shape, arg.type.getElementType());
    arg.data.assign(size_t(*elements) * arg.elementBytes, 0);
  }
  if (payload.size() != arg.data.size())
    return fail("holds " + Twine(payload.size()) + " bytes of data, not " +
                Twine(arg.data.size()));
  if (*order != "True") {
    std::memcpy(arg.data.data(), payload.data(), payload.size());
    return success();
  }
  // Column-major file: element (i0, ..., in) sits at sum(i_k * prod(s_<k)).
  size_t n = arg.data.size() / arg.elementBytes;
  SmallVector<int64_t> position(shape.size(), 0);
  for (size_t linear = 0; linear < n; ++linear) {
    size_t source = 0, scale = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      source += position[d] * scale;
      scale *= shape[d];
    }
    std::memcpy(arg.data.data() + linear * arg.elementBytes,
                payload.data() + source * arg.elementBytes, arg.elementBytes);
    for (int d = int(shape.size()) - 1; d >= 0; --d) {
      if (++position[d] < shape[d])
        break;
      position[d] = 0;
    }
  }
  return success();
}

std::string formatElement(const MemRefArgument &arg, size_t i) {
  double value = readElement(arg, i);
  if (isa<FloatType>(arg.type.getElementType())) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.6g", value);
    return text;
  }
  return std::to_string(int64_t(value));
}

void printDim(llvm::raw_ostream &os, const MemRefArgument &arg, size_t dim,
              size_t base, bool summarize, unsigned indent) {
  ArrayRef<int64_t> shape = arg.type.getShape();
  size_t stride = 1;
  for (size_t d = dim + 1; d < shape.size(); ++d)
    stride *= shape[d];
  os << "[";
  int64_t size = shape[dim];
  for (int64_t i = 0; i < size; ++i) {
    if (summarize && size > 6 && i == 3) {
      os << (dim + 1 == shape.size() ? "..., " : "...,\n");
      if (dim + 1 != shape.size())
        os.indent(indent + 1);
      i = size - 3;
    }
    if (dim + 1 == shape.size())
      os << formatElement(arg, base + i);
    else
      printDim(os, arg, dim + 1, base + i * stride, summarize, indent + 1);
    if (i + 1 < size) {
      os << (dim + 1 == shape.size() ? ", " : ",\n");
      if (dim + 1 != shape.size())
        os.indent(indent + 1);
    }
  }
  os << "]";
}

} // namespace

FailureOr<std::vector<MemRefArgument>>
ext::makeArguments(func::FuncOp entry, const ArgumentOptions &options) {
  FunctionType type = entry.getFunctionType();
  if (type.getNumResults() != 0)
    return entry.emitError() << "@" << entry.getName()
                             << " returns values; ext-run runs functions "
                                "that write their results into memref "
                                "arguments";
  if (options.inputFiles.size() > type.getNumInputs())
    return entry.emitError()
           << "--inputs names " << options.inputFiles.size()
           << " files, but @" << entry.getName() << " takes "
           << type.getNumInputs() << " arguments";
  std::mt19937_64 rng(options.randomSeed.value_or(0));
  std::vector<MemRefArgument> args(type.getNumInputs());
  for (auto [index, input] : llvm::enumerate(type.getInputs())) {
    Location loc = entry.getArgument(index).getLoc();
    auto memref = dyn_cast<MemRefType>(input);
    unsigned bytes = memref ? storedBytes(memref.getElementType()) : 0;
    if (!memref || !memref.getLayout().isIdentity() ||
        memref.getMemorySpace() || !bytes)
      return emitError(loc)
             << "argument " << index << " of @" << entry.getName() << " is "
             << input
             << "; ext-run fills memrefs with the identity layout of f16, "
                "bf16, f32, f64, index or i1/i8/i16/i32/i64";
    bool fromFile = index < options.inputFiles.size();
    if (!memref.hasStaticShape() && !fromFile)
      return emitError(loc)
             << "argument " << index << " of @" << entry.getName() << " is "
             << input
             << ", of dynamic shape: give it with --inputs (a .npy file of "
                "any size in its dynamic dimensions)";
    MemRefArgument &arg = args[index];
    arg.type = memref;
    arg.elementBytes = bytes;
    if (memref.hasStaticShape())
      arg.data.assign(size_t(memref.getNumElements()) * bytes, 0);
    if (fromFile) {
      if (failed(loadNpy(options.inputFiles[index], arg, loc, index)))
        return failure();
    } else if (options.randomSeed) {
      fillRandom(arg, rng);
    }
    arg.initial = arg.data;
    // The file's sizes where the declared type has `?`.
    arg.descriptor = runner::MemRefDescriptor::getContiguous(
        arg.data.data(), arg.type.getShape());
  }
  return args;
}

void ext::printArgument(llvm::raw_ostream &os, StringRef name,
                        const MemRefArgument &arg) {
  os << name << " = " << arg.type << " ";
  if (arg.type.getRank() == 0) {
    os << formatElement(arg, 0) << "\n";
    return;
  }
  // numpy's print options: beyond 1000 elements, 3 at each end of a dim.
  bool summarize = arg.type.getNumElements() > 1000;
  printDim(os, arg, 0, 0, summarize, 0);
  os << "\n";
}

bool ext::writeNpy(StringRef path, const MemRefArgument &arg,
                   std::string &error) {
  std::string descr = npyDescr(arg.type.getElementType());
  if (descr.empty()) {
    error = "numpy has no dtype for " + typeString(arg.type.getElementType());
    return false;
  }
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': (";
  // Python's tuple syntax: (), (3,), (3, 4).
  header += llvm::join(llvm::map_range(arg.type.getShape(),
                                       [](int64_t size) {
                                         return std::to_string(size);
                                       }),
                       ", ");
  if (arg.type.getRank() == 1)
    header += ",";
  header += "), }";
  // Magic (6) + version (2) + length (2) + header + '\n', a multiple of 64.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = ec.message();
    return false;
  }
  os << "\x93NUMPY" << char(1) << char(0);
  char length[2];
  llvm::support::endian::write16le(length, uint16_t(header.size()));
  os.write(length, 2);
  os << header;
  os.write(arg.data.data(), arg.data.size());
  return true;
}
