//===- CheckResourceLimits.cpp - kernels against the chip's limits --------===//
//
// A schedule whose shared tiles exceed the chip's per-block limit passes
// every pass and fails in ptxas or at launch; a per-thread tile larger than the register file compiles silently
// into a stack frame. This pass finds both (and oversized blocks) before
// outlining, with the limits of ext/Model/Chip.h, at the launch.
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/IR/Target.h"
#include "ext/GPU/BufferFootprint.h"
#include "ext/Model/Chip.h"
#include "ext/GPU/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUCHECKRESOURCELIMITS
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {

/// One buffer a kernel holds: in shared memory per block or privately per
/// thread.
struct Buffer {
  Value value;
  Location loc;
  MemRefType type;
  uint64_t bytes;
};

/// What one kernel needs.
struct Footprint {
  SmallVector<Buffer> shared;
  SmallVector<Buffer> privateBuffers;
  uint64_t sharedBytes = 0;
  uint64_t privateBytes = 0;
  /// mbarrier groups' static words (nvgpu.mbarrier.create): with bulk
  /// tensor copies, up to 1024 bytes, the swizzle period the tile buffers
  /// after them are aligned to (ext-gpu-align-shared-memory).
  uint64_t barrierBytes = 0;
};

bool isPrivateMemRef(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Private;
}

/// Sizes saturate here: a buffer or a sum past 2^64 bytes is over every
/// limit anyway, and must not wrap below one.
uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  return llvm::SaturatingAdd(a, b);
}

/// Bytes of a statically shaped buffer; nothing for a dynamic one (those
/// are reported by the passes that must give them storage).
std::optional<uint64_t> bufferBytes(MemRefType type, Operation *scope) {
  // The element count of a shape from the input may overflow: multiplied
  // out checked here, not by getNumElements.
  for (int64_t size : type.getShape())
    if (size == 0)
      return 0;
  uint64_t elements = 1;
  for (int64_t size : type.getShape())
    elements = llvm::SaturatingMultiply(elements, uint64_t(size));
  if (!type.hasStaticShape())
    return std::nullopt;
  if (!type.getLayout().isIdentity()) {
    // ext::getSpannedElements, saturating: the furthest element the static
    // strides reach (padded rows of ext-lower-storage-align).
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset) || offset < 0 ||
        llvm::any_of(strides, [](int64_t s) {
          return ShapedType::isDynamic(s) || s < 0;
        }))
      return std::nullopt;
    uint64_t last = uint64_t(offset);
    for (auto [size, stride] : llvm::zip(type.getShape(), strides))
      last = saturatingAdd(
          last, llvm::SaturatingMultiply(uint64_t(size - 1), uint64_t(stride)));
    elements = saturatingAdd(last, 1);
  }
  uint64_t elementBytes =
      DataLayout::closest(scope).getTypeSize(type.getElementType());
  return llvm::SaturatingMultiply(elements, elementBytes);
}

void addBuffer(SmallVectorImpl<Buffer> &list, uint64_t &total, Value value,
               Location loc, MemRefType type, Operation *scope) {
  if (std::optional<uint64_t> bytes = bufferBytes(type, scope)) {
    list.push_back({value, loc, type, *bytes});
    total = saturatingAdd(total, *bytes);
  }
}

/// The buffers of a gpu.launch region or a gpu.func kernel.
Footprint measure(Operation *kernel, ArrayRef<BlockArgument> workgroup,
                  ArrayRef<BlockArgument> privates, Region &body) {
  Footprint fp;
  for (BlockArgument arg : workgroup)
    addBuffer(fp.shared, fp.sharedBytes, arg, arg.getLoc(),
              cast<MemRefType>(arg.getType()), kernel);
  for (BlockArgument arg : privates)
    addBuffer(fp.privateBuffers, fp.privateBytes, arg, arg.getLoc(),
              cast<MemRefType>(arg.getType()), kernel);
  llvm::StringSet<> globals;
  body.walk([&](Operation *op) {
    if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
      auto type = cast<MemRefType>(op->getResult(0).getType());
      if (gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type))
        addBuffer(fp.shared, fp.sharedBytes, op->getResult(0), op->getLoc(),
                  type, kernel);
      // An alloca in the default memory space is per thread, too; an alloc
      // there is a device-side malloc.
      else if (isPrivateMemRef(type) ||
               (isa<memref::AllocaOp>(op) && !type.getMemorySpace()))
        addBuffer(fp.privateBuffers, fp.privateBytes, op->getResult(0),
                  op->getLoc(), type, kernel);
    } else if (auto create = dyn_cast<nvgpu::MBarrierCreateOp>(op)) {
      fp.barrierBytes = saturatingAdd(
          fp.barrierBytes,
          8 * uint64_t(create.getBarriers().getType().getNumBarriers()));
    } else if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
      // A workgroup global is one buffer however often it is named.
      if (gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(get.getType()) &&
          globals.insert(get.getName()).second)
        addBuffer(fp.shared, fp.sharedBytes, get, get.getLoc(),
                  get.getType(), kernel);
    }
  });
  bool bulkCopies = false;
  body.walk([&](Operation *op) {
    bulkCopies |= isa<nvgpu::TmaAsyncLoadOp, nvgpu::TmaAsyncStoreOp>(op);
  });
  if (bulkCopies && fp.barrierBytes)
    fp.barrierBytes = llvm::alignTo(fp.barrierBytes, 1024);
  return fp;
}

/// "the kernel in @f" or "kernel @k": what the user calls the code.
std::string describeKernel(Operation *kernel) {
  if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel))
    return ("kernel @" + func.getName()).str();
  if (auto parent = kernel->getParentOfType<FunctionOpInterface>())
    return ("the kernel in @" + parent.getName()).str();
  return "the kernel";
}

class Checker {
public:
  explicit Checker(const ext::ChipInfo &chip) : chip(chip) {}

  /// Shared memory of one block: `dynamicBytes` is the launch's constant
  /// dynamic shared memory size, if any.
  LogicalResult checkShared(Operation *kernel, const Footprint &fp,
                            uint64_t dynamicBytes) {
    uint64_t total = saturatingAdd(
        saturatingAdd(fp.sharedBytes, dynamicBytes), fp.barrierBytes);
    if (total > chip.maxSharedBytesPerBlock) {
      InFlightDiagnostic diag = kernel->emitError();
      diag << describeKernel(kernel) << " uses " << ext::formatBytes(total)
           << " of shared memory per block";
      if (dynamicBytes)
        diag << " (" << ext::formatBytes(dynamicBytes) << " of it dynamic)";
      if (fp.barrierBytes)
        diag << " (" << ext::formatBytes(fp.barrierBytes)
             << " of it mbarriers and the tiles' alignment after them)";
      diag << "; " << chip.name << " allows at most "
           << ext::formatBytes(chip.maxSharedBytesPerBlock)
           << (chip.isNvidia() ? "" : " of LDS")
           << " per block: use smaller tiles or cache fewer operands in "
              "the schedule";
      noteBuffers(diag, fp.shared, "shared");
      return failure();
    }
    if (chip.isNvidia() && fp.sharedBytes > chip.staticSharedBytesPerBlock) {
      InFlightDiagnostic diag = kernel->emitError();
      diag << describeKernel(kernel) << " declares "
           << ext::formatBytes(fp.sharedBytes)
           << " of static shared memory; NVIDIA chips allow "
           << ext::formatBytes(chip.staticSharedBytesPerBlock)
           << " of static shared memory per block (" << chip.name
           << " gives a block up to "
           << ext::formatBytes(chip.maxSharedBytesPerBlock)
           << " only as dynamic shared memory): run "
              "ext-gpu-dynamic-shared-memory first, as ext-gpu-pipeline does";
      noteBuffers(diag, fp.shared, "shared");
      return failure();
    }
    return success();
  }

  /// Block size; `dims` holds std::nullopt where the size is not constant.
  LogicalResult checkThreads(Operation *at, Operation *kernel,
                             ArrayRef<std::optional<int64_t>> dims) {
    static const char *names[] = {"x", "y", "z"};
    for (auto [i, dim] : llvm::enumerate(dims)) {
      if (dim && *dim > int64_t(chip.maxBlockDim[i]))
        return at->emitError()
               << describeKernel(kernel) << " has a block of " << *dim
               << " threads along " << names[i] << "; " << chip.name
               << " allows at most " << chip.maxBlockDim[i];
    }
    if (llvm::any_of(dims, [](std::optional<int64_t> d) { return !d; }))
      return success();
    int64_t threads = 1;
    for (std::optional<int64_t> dim : dims)
      threads *= *dim;
    if (threads > int64_t(chip.maxThreadsPerBlock))
      return at->emitError()
             << describeKernel(kernel) << " has " << threads
             << " threads per block (" << *dims[0] << "x" << *dims[1] << "x"
             << *dims[2] << "); " << chip.name << " allows at most "
             << chip.maxThreadsPerBlock << ": use fewer threads in the "
             << "schedule";
    return success();
  }

  /// Private buffers larger than a thread's local (scratch) memory: no
  /// launch can run the kernel, so an error. Checked before the warning of
  /// checkRegisters, which such buffers would otherwise get.
  LogicalResult checkPrivate(Operation *kernel, const Footprint &fp) {
    if (fp.privateBytes <= chip.maxPrivateBytesPerThread)
      return success();
    InFlightDiagnostic diag = kernel->emitError();
    diag << describeKernel(kernel) << " keeps "
         << ext::formatBytes(fp.privateBytes)
         << " of private buffers per thread; " << chip.name
         << " gives a thread at most "
         << ext::formatBytes(chip.maxPrivateBytesPerThread) << " of "
         << (chip.isNvidia() ? "local" : "scratch")
         << " memory: use a smaller per-thread tile (more threads or a "
            "smaller tile in the schedule)";
    noteBuffers(diag, fp.privateBuffers, "private");
    return failure();
  }

  /// Private buffers that cannot live in registers: a warning, since the
  /// kernel still runs (slowly, from local or scratch memory).
  void checkRegisters(Operation *kernel, const Footprint &fp) {
    if (fp.privateBytes > chip.maxPrivateBytesPerThread)
      return; // checkPrivate's error
    uint64_t registers = (fp.privateBytes + 3) / 4;
    if (registers <= chip.maxRegistersPerThread)
      return;
    InFlightDiagnostic diag = kernel->emitWarning();
    diag << describeKernel(kernel) << " keeps "
         << ext::formatBytes(fp.privateBytes)
         << " of private buffers per thread, at least " << registers
         << " 32-bit registers; " << chip.name << " has "
         << chip.maxRegistersPerThread << " per thread, so they spill to "
         << (chip.isNvidia() ? "local memory (a stack frame)"
                             : "scratch memory")
         << ": use a smaller per-thread tile (more threads or a smaller tile "
            "in the schedule)";
    noteBuffers(diag, fp.privateBuffers, "private");
  }

private:
  static void noteBuffers(InFlightDiagnostic &diag, ArrayRef<Buffer> buffers,
                          StringRef kind) {
    SmallVector<Buffer> sorted(buffers);
    llvm::stable_sort(sorted, [](const Buffer &a, const Buffer &b) {
      return a.bytes > b.bytes;
    });
    for (const Buffer &buffer : sorted) {
      Diagnostic &note = diag.attachNote(buffer.loc);
      note << kind << " buffer " << buffer.type << ": "
           << ext::formatBytes(buffer.bytes);
      // ext-gpu-reuse-shared-memory packs tiles into one byte buffer: name them.
      SmallVector<Type> views;
      for (Operation *user : buffer.value.getUsers())
        if (auto view = dyn_cast<memref::ViewOp>(user))
          views.push_back(view.getType());
      if (!views.empty()) {
        note << ", holding ";
        llvm::interleaveComma(views, note);
      }
    }
  }

  const ext::ChipInfo &chip;
};

std::optional<int64_t> constantOf(Value value) {
  if (!value)
    return std::nullopt;
  return getConstantIntValue(value);
}

struct ExtGPUCheckResourceLimitsPass
    : ext::impl::ExtGPUCheckResourceLimitsBase<ExtGPUCheckResourceLimitsPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<ext::DeviceFacts> device =
        ext::resolveDevice(getOperation(), "ext-gpu-check-resource-limits",
                           chip, 0, ext::kDefaultChip);
    if (failed(device))
      return signalPassFailure();
    Checker checker(*device->chip);
    bool ok = true;
    getOperation()->walk([&](Operation *op) {
      if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
        Footprint fp =
            measure(launch, launch.getWorkgroupAttributions(),
                    launch.getPrivateAttributions(), launch.getBody());
        ok &= succeeded(checker.checkPrivate(launch, fp));
        uint64_t dynamicBytes =
            constantOf(launch.getDynamicSharedMemorySize()).value_or(0);
        ok &= succeeded(checker.checkShared(launch, fp, dynamicBytes));
        ok &= succeeded(checker.checkThreads(
            launch, launch,
            {constantOf(launch.getBlockSizeX()),
             constantOf(launch.getBlockSizeY()),
             constantOf(launch.getBlockSizeZ())}));
        checker.checkRegisters(launch, fp);
      } else if (auto func = dyn_cast<gpu::GPUFuncOp>(op)) {
        if (!func.isKernel())
          return;
        Footprint fp = measure(func, func.getWorkgroupAttributions(),
                               func.getPrivateAttributions(), func.getBody());
        ok &= succeeded(checker.checkShared(func, fp, /*dynamicBytes=*/0));
        ok &= succeeded(checker.checkPrivate(func, fp));
        if (std::optional<ArrayRef<int32_t>> known = func.getKnownBlockSize())
          ok &= succeeded(checker.checkThreads(
              func, func,
              {int64_t((*known)[0]), int64_t((*known)[1]),
               int64_t((*known)[2])}));
        checker.checkRegisters(func, fp);
      } else if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
        Operation *callee =
            SymbolTable::lookupNearestSymbolFrom(launch, launch.getKernel());
        ok &= succeeded(checker.checkThreads(
            launch, callee ? callee : launch.getOperation(),
            {constantOf(launch.getBlockSizeX()),
             constantOf(launch.getBlockSizeY()),
             constantOf(launch.getBlockSizeZ())}));
      }
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
