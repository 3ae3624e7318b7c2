//===- MemRefDescriptor.cpp - host buffers as memref arguments ------------===//

#include "ext/Runner/MemRefDescriptor.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace ext::runner;

MemRefDescriptor MemRefDescriptor::get(void *data,
                                       llvm::ArrayRef<int64_t> shape,
                                       llvm::ArrayRef<int64_t> byteStrides,
                                       unsigned elementBytes) {
  MemRefDescriptor d;
  d.allocated = d.aligned = data;
  d.sizes.assign(shape.begin(), shape.end());
  for (int64_t stride : byteStrides)
    d.strides.push_back(stride / static_cast<int64_t>(elementBytes));
  return d;
}

MemRefDescriptor
MemRefDescriptor::getContiguous(void *data, llvm::ArrayRef<int64_t> shape) {
  MemRefDescriptor d;
  d.allocated = d.aligned = data;
  d.sizes.assign(shape.begin(), shape.end());
  d.strides.assign(shape.size(), 1);
  for (int r = int(shape.size()) - 2; r >= 0; --r)
    d.strides[r] = d.strides[r + 1] * shape[r + 1];
  return d;
}

llvm::SmallVector<void *>
ext::runner::packArguments(llvm::MutableArrayRef<MemRefDescriptor> args) {
  llvm::SmallVector<void *> packed;
  for (MemRefDescriptor &arg : args) {
    packed.push_back(&arg.allocated);
    packed.push_back(&arg.aligned);
    packed.push_back(&arg.offset);
    for (int64_t &size : arg.sizes)
      packed.push_back(&size);
    for (int64_t &stride : arg.strides)
      packed.push_back(&stride);
  }
  return packed;
}

std::optional<unsigned> ext::runner::getStoredElementBytes(Type type) {
  if (type.isBF16() || type.isF16())
    return 2;
  if (type.isF32())
    return 4;
  if (type.isF64() || type.isIndex())
    return 8;
  // The f8/f4 formats and i2/i4 take a byte each (LLVM's store size).
  if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() <= 8)
    return 1;
  if (auto integer = dyn_cast<IntegerType>(type))
    if (llvm::is_contained({1u, 2u, 4u, 8u, 16u, 32u, 64u}, integer.getWidth()))
      return std::max(1u, integer.getWidth() / 8);
  return std::nullopt;
}

/// Whether numpy's `kind` of elements holds `type`'s values.
static bool kindMatches(Type type, char kind) {
  bool isInt = kind == 'i' || kind == 'u';
  if (isa<FloatType>(type))
    // bf16 and the f8/f4 formats: numpy has no such floats; raw bits as
    // uint16 or uint8 (or ml_dtypes').
    return type.isBF16() || type.getIntOrFloatBitWidth() <= 8
               ? kind == 'u' || kind == 'V'
               : kind == 'f';
  if (type.isInteger(1))
    return kind == 'b';
  if (type.isIndex() || type.isInteger(64))
    return kind == 'i';
  return isInt;
}

llvm::Expected<Passing> ext::runner::checkBuffer(const HostBuffer &buffer,
                                                 MemRefType type,
                                                 llvm::StringRef where) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(where + why);
  };
  int64_t rank = type.getRank();
  if (int64_t(buffer.shape.size()) != rank)
    return fail(" has rank " + llvm::Twine(buffer.shape.size()) +
                ", the memref " + llvm::Twine(rank));
  for (int64_t r = 0; r < rank; ++r)
    if (!type.isDynamicDim(r) && type.getDimSize(r) != buffer.shape[r])
      return fail(" dimension " + llvm::Twine(r) + " is " +
                  llvm::Twine(buffer.shape[r]) + ", the memref's is " +
                  llvm::Twine(type.getDimSize(r)));
  Type element = type.getElementType();
  std::optional<unsigned> bytes = getStoredElementBytes(element);
  if (!bytes || *bytes != buffer.elementBytes ||
      !kindMatches(element, buffer.kind)) {
    std::string name;
    llvm::raw_string_ostream os(name);
    os << element;
    return fail(" has dtype " + buffer.elementName +
                ", which does not match the element type " + name);
  }
  if (!buffer.writable)
    return fail(" is read-only");

  llvm::SmallVector<int64_t> layoutStrides;
  int64_t layoutOffset = 0;
  if (failed(type.getStridesAndOffset(layoutStrides, layoutOffset)))
    return fail(": the memref's layout is not strided");
  if (type.getLayout().isIdentity())
    return buffer.cContiguous ? Passing::Direct : Passing::ContiguousCopy;
  // Another layout is the caller's promise about strides: the buffer must
  // keep it exactly.
  for (int64_t r = 0; r < rank; ++r) {
    int64_t byteStride = buffer.byteStrides[r];
    int64_t stride = byteStride / int64_t(buffer.elementBytes);
    if (byteStride % int64_t(buffer.elementBytes) != 0 ||
        (!ShapedType::isDynamic(layoutStrides[r]) &&
         layoutStrides[r] != stride) ||
        stride < 0)
      return fail(" has strides that do not match the memref's layout");
  }
  if (layoutOffset != 0 && !ShapedType::isDynamic(layoutOffset))
    return fail(": the memref's layout has an offset");
  return Passing::Direct;
}
