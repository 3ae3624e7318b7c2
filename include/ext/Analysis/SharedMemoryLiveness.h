//===- SharedMemoryLiveness.h - live ranges of workgroup buffers -*- C++ -*-===//
//
// For one GPU kernel (a gpu.launch body or a gpu.func), the workgroup
// buffers, every alias of each, the interval of program points over which
// each buffer's contents are live for the *block* (not just one thread), and
// the interference between buffers. ext-gpu-reuse-shared-memory packs the
// buffers from this.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_ANALYSIS_SHAREDMEMORYLIVENESS_H
#define EXT_ANALYSIS_SHAREDMEMORYLIVENESS_H

#include "ext/Analysis/SharedMemoryCoverage.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>

namespace ext {

/// A workgroup buffer of a kernel with the ops that touch it and the
/// interval over which its contents are live for the block.
struct LiveSharedBuffer {
  /// A workgroup attribution (block argument) or a workgroup memref.alloc.
  mlir::Value root;
  mlir::MemRefType type;
  /// Bytes and alignment (element size unless raised); 0 bytes if dynamic.
  uint64_t sizeBytes = 0;
  uint64_t alignment = 1;
  bool dynamic = false;
  /// Ops that read or write the buffer through any alias, in program order.
  llvm::SmallVector<mlir::Operation *> accesses;
  /// Live interval in the kernel's op numbering (inclusive); empty (-1) for a
  /// buffer nobody touches.
  int64_t begin = -1, end = -1;
  /// Loops around accesses whose back-edge carries no data of the buffer
  /// (every iteration writes what it reads first): the interval does not
  /// grow over them, so other buffers of the loop body may share its bytes.
  llvm::SmallVector<mlir::Operation *> uncarriedLoops;
  bool isLive() const { return begin >= 0; }
};

class SharedMemoryLiveness {
public:
  /// `kernel` is a gpu.launch or a gpu.func; `minAlignment` raises every
  /// buffer's alignment to at least that many bytes.
  SharedMemoryLiveness(mlir::Operation *kernel, uint64_t minAlignment = 0);

  llvm::ArrayRef<LiveSharedBuffer> getBuffers() const { return buffers; }
  /// Both buffers' contents are live at one point for some thread.
  bool interfere(unsigned a, unsigned b) const;
  /// The op with number `index` and the number of `op`.
  mlir::Operation *getOp(int64_t index) const { return order[index]; }
  int64_t getIndex(mlir::Operation *op) const { return index.lookup(op); }
  /// Whether `v` has the same value in every thread of the block.
  bool isUniform(mlir::Value v);

private:
  void numberOps(mlir::Region &body);
  void collectBuffers(mlir::Region &body, uint64_t minAlignment);
  void computeInterval(LiveSharedBuffer &buffer);
  bool isLoop(mlir::Operation *op) const;

  mlir::Operation *kernel;
  llvm::SmallVector<mlir::Operation *> order;
  llvm::DenseMap<mlir::Operation *, int64_t> index;
  /// The last op number nested in each op (itself when it has no regions).
  llvm::DenseMap<mlir::Operation *, int64_t> lastNested;
  llvm::DenseMap<mlir::Value, bool> uniform;
  /// Values in `uniform`, in the order they were concluded.
  llvm::SmallVector<mlir::Value> uniformLog;
  SharedMemoryCoverage coverage;
  llvm::SmallVector<LiveSharedBuffer> buffers;
};

} // namespace ext

#endif // EXT_ANALYSIS_SHAREDMEMORYLIVENESS_H
