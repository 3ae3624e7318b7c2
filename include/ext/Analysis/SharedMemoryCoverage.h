//===- SharedMemoryCoverage.h - loop-carried workgroup buffers --*- C++ -*-===//
//
// Whether a workgroup buffer may carry data across the back-edge of a loop:
// whether a read in one iteration may see what an earlier iteration wrote.
// It does not when, in every iteration, every read comes after a barrier
// that follows writes which together, over all threads of the block, cover
// every byte read. SharedMemoryLiveness grows a buffer's interval over a
// loop only when this analysis cannot prove that.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_ANALYSIS_SHAREDMEMORYCOVERAGE_H
#define EXT_ANALYSIS_SHAREDMEMORYCOVERAGE_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <array>
#include <optional>
#include <string>

namespace ext {

class SharedMemoryCoverage {
public:
  /// `kernel` is a gpu.launch or a gpu.func. Without a static block size
  /// (constant launch sizes, or the gpu.func's known_block_size) nothing is
  /// proved: every buffer may carry data over every loop.
  explicit SharedMemoryCoverage(mlir::Operation *kernel);

  /// Whether the buffer `root` (a workgroup attribution or alloc of
  /// `bufferBytes` bytes), accessed by `accesses` (through any alias), may
  /// carry data across the back-edge of `loop`, an ancestor of some access.
  /// `isUniform` tells values the same in every thread of the block. Sets
  /// `why` (when given) to the reason it may.
  bool mayCarry(mlir::Value root, uint64_t bufferBytes,
                llvm::ArrayRef<mlir::Operation *> accesses,
                mlir::Operation *loop,
                llvm::function_ref<bool(mlir::Value)> isUniform,
                std::string *why = nullptr);

  /// The bytes of `root` (`bufferBytes` long) that the accesses written by
  /// `accesses` among ops nested in `block` write in one execution of the
  /// block, over all threads, counting only writes that run in every
  /// execution; std::nullopt without a static block size or for a buffer
  /// over kMaxBufferBytes. Exposed for tests.
  std::optional<llvm::BitVector>
  coveredBytes(mlir::Value root, uint64_t bufferBytes, mlir::Block *block,
               llvm::ArrayRef<mlir::Operation *> writes);

  /// The most access instances enumerated for one question before giving
  /// up (conservatively).
  static constexpr int64_t kBudget = int64_t(1) << 22;
  /// The largest buffer whose bytes are enumerated (a bit each): 16 MB,
  /// far above any chip's shared memory per block. A larger one is not
  /// analyzed (it may carry data; coveredBytes gives std::nullopt): the
  /// resource checks refuse it.
  static constexpr uint64_t kMaxBufferBytes = uint64_t(1) << 24;

private:
  bool selfContained(mlir::Value root, uint64_t bufferBytes, mlir::Block *body,
                     llvm::ArrayRef<mlir::Operation *> accesses,
                     std::string &why);
  /// Enumerates the bytes `access` touches in one execution of `block` by
  /// every thread into `bytes`. For a write (`mustRun`) only instances that
  /// surely run count, and false means none could be proved; for a read
  /// false means the footprint is unknown.
  bool enumerate(mlir::Value root, uint64_t bufferBytes, mlir::Block *block,
                 mlir::Operation *access, bool mustRun, llvm::BitVector &bytes);

  mlir::Operation *kernel;
  std::optional<std::array<int64_t, 3>> blockSize;
  int64_t budget = 0;
};

} // namespace ext

#endif // EXT_ANALYSIS_SHAREDMEMORYCOVERAGE_H
