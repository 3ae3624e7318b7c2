//===- BufferFootprint.h - elements a static memref spans -------*- C++ -*-===//

#ifndef EXT_GPU_BUFFERFOOTPRINT_H
#define EXT_GPU_BUFFERFOOTPRINT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

namespace ext {

/// The number of elements an allocation of `type` spans: its static shape
/// for an identity layout, else the furthest element its static strides
/// reach (padded rows of ext-lower-storage-align). Failure when dynamic.
inline mlir::FailureOr<int64_t> getSpannedElements(mlir::MemRefType type) {
  if (!type.hasStaticShape())
    return mlir::failure();
  if (type.getLayout().isIdentity())
    return type.getNumElements();
  llvm::SmallVector<int64_t> strides;
  int64_t offset;
  if (mlir::failed(type.getStridesAndOffset(strides, offset)) ||
      mlir::ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, mlir::ShapedType::isDynamic))
    return mlir::failure();
  int64_t last = offset;
  for (auto [size, stride] : llvm::zip(type.getShape(), strides)) {
    if (size == 0)
      return int64_t(0);
    last += (size - 1) * stride;
  }
  return last + 1;
}

} // namespace ext

#endif // EXT_GPU_BUFFERFOOTPRINT_H
