//===- MemRefDescriptor.h - host buffers as memref arguments ----*- C++ -*-===//
//
// A function lowered by ext's pipelines takes each memref as the fields of
// its descriptor (allocated and aligned pointers, offset, sizes, strides in
// elements). This builds descriptors for host buffers (ext-run's .npy files,
// Python's numpy arrays) after checking a buffer against the memref type,
// and packs them the way ExecutionEngine::invokePacked takes arguments.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNNER_MEMREFDESCRIPTOR_H
#define EXT_RUNNER_MEMREFDESCRIPTOR_H

#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>

namespace ext::runner {

/// The descriptor of one memref argument.
struct MemRefDescriptor {
  void *allocated = nullptr;
  void *aligned = nullptr;
  int64_t offset = 0;
  llvm::SmallVector<int64_t, 4> sizes, strides;

  /// A buffer at `data` with `shape` and `byteStrides` (numpy's strides) of
  /// `elementBytes`-byte elements.
  static MemRefDescriptor get(void *data, llvm::ArrayRef<int64_t> shape,
                              llvm::ArrayRef<int64_t> byteStrides,
                              unsigned elementBytes);
  /// A C-contiguous (row-major) buffer at `data` with `shape`.
  static MemRefDescriptor getContiguous(void *data,
                                        llvm::ArrayRef<int64_t> shape);
};

/// Pointers to every field of every descriptor, in argument order, as
/// ExecutionEngine::invokePacked takes them; valid while `args` is.
llvm::SmallVector<void *>
packArguments(llvm::MutableArrayRef<MemRefDescriptor> args);

/// Bytes per stored element of a memref ext's runners can pass (f16, bf16,
/// f32, f64, index and integers of 1, 8, 16, 32 or 64 bits; i1 takes a
/// byte); nullopt for other element types.
std::optional<unsigned> getStoredElementBytes(mlir::Type element);

/// A host buffer as numpy describes one: element kind ('f' float, 'i' and
/// 'u' integer, 'b' bool, 'V' raw bytes) and size, shape, byte strides.
struct HostBuffer {
  char kind = 'V';
  unsigned elementBytes = 0;
  /// The element type's name, for messages ("float32").
  std::string elementName;
  llvm::SmallVector<int64_t, 4> shape, byteStrides;
  bool writable = true;
  bool cContiguous = true;
};

/// How a checked buffer is passed.
enum class Passing {
  /// Its own memory, described by its strides.
  Direct,
  /// Through a C-contiguous copy, copied back after the call (an identity
  /// layout memref and a buffer that is not in C order).
  ContiguousCopy,
};

/// Checks `buffer` as argument `where` ("array #2") of memref type `type`:
/// rank, static sizes, element type, writability and strides.
llvm::Expected<Passing> checkBuffer(const HostBuffer &buffer,
                                    mlir::MemRefType type,
                                    llvm::StringRef where);

} // namespace ext::runner

#endif // EXT_RUNNER_MEMREFDESCRIPTOR_H
