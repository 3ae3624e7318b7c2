//===- StageKernelOperands.cpp - host memrefs to device buffers -----------===//
//
// Around every synchronous gpu.launch_func: gpu.alloc a device buffer per
// host memref operand, gpu.memcpy in, launch on it, gpu.memcpy back (unless
// the kernel only reads it), gpu.dealloc. Operands that are gpu.alloc'ed
// buffers (or views of one) are device memory already and pass as they are.
//
//===----------------------------------------------------------------------===//

#include "ext/GPU/Transforms/Passes.h"
#include "ext/GPU/Transforms/Transforms.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUSTAGEKERNELOPERANDS
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {

/// True when every use of `value` in the kernel reads: memref.load,
/// memref.dim and the like, directly or through view-like ops.
bool isOnlyRead(Value value) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (isa<memref::LoadOp, memref::DimOp, memref::ExtractStridedMetadataOp,
            memref::ExtractAlignedPointerAsIndexOp>(user))
      continue;
    if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
      if (view.getViewSource() == value &&
          llvm::all_of(user->getResults(), isOnlyRead))
        continue;
      return false;
    }
    if (isa<memref::CastOp>(user) && isOnlyRead(user->getResult(0)))
      continue;
    return false;
  }
  return true;
}

bool isHostMemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  Attribute space = memref.getMemorySpace();
  if (!space)
    return true;
  if (auto integer = dyn_cast<IntegerAttr>(space))
    return integer.getInt() == 0;
  if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space))
    return gpuSpace.getValue() == gpu::AddressSpace::Global;
  return false;
}

/// True when `value` is device memory already: a gpu.alloc's buffer, or a
/// cast or view of one.
bool isDeviceBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (isa<gpu::AllocOp>(def))
      return true;
    if (auto cast = dyn_cast<memref::CastOp>(def)) {
      value = cast.getSource();
      continue;
    }
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      value = view.getViewSource();
      continue;
    }
    return false;
  }
  return false;
}

} // namespace

LogicalResult ext::stageKernelOperands(gpu::LaunchFuncOp launch,
                                       SymbolTableCollection &symbols) {
  bool ok = true;
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty() ||
      launch.getAsyncObject())
    return success(); // Asynchronous launches manage their own memory.
  auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
      launch, launch.getKernel());

  OpBuilder before(launch);
  OpBuilder after(launch->getContext());
  after.setInsertionPointAfter(launch);
  Location loc = launch.getLoc();
  Type tokenType = gpu::AsyncTokenType::get(launch->getContext());
  // gpu-to-llvm lowers only asynchronous allocs and copies: each side
  // of the launch is one chain on its own stream (gpu.wait async), joined
  // by a blocking gpu.wait. The launch itself stays synchronous.
  Value token;
  auto startChain = [&](OpBuilder &b) {
    token = gpu::WaitOp::create(b, loc, tokenType, ValueRange())
                .getAsyncToken();
  };
  // One device buffer per distinct host value, in operand order.
  llvm::MapVector<Value, std::pair<Value, bool>> staged;
  for (auto [index, operand] : llvm::enumerate(launch.getKernelOperands())) {
    if (!isHostMemRef(operand.getType()) || isDeviceBuffer(operand))
      continue;
    auto type = cast<MemRefType>(operand.getType());
    if (!type.getLayout().isIdentity()) {
      launch.emitError() << "kernel operand #" << index << " of type "
                         << type
                         << " has a non-identity layout; only contiguous "
                            "memrefs can be staged to the device";
      ok = false;
      continue;
    }
    bool written = !kernel || index >= kernel.getNumArguments() ||
                   !isOnlyRead(kernel.getArgument(index));
    auto it = staged.find(operand);
    if (it != staged.end()) {
      it->second.second |= written;
      continue;
    }
    if (!token)
      startChain(before);
    SmallVector<Value> dynamicSizes;
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      if (type.isDynamicDim(dim))
        dynamicSizes.push_back(
            memref::DimOp::create(before, loc, operand, dim));
    auto alloc = gpu::AllocOp::create(before, loc, type, tokenType,
                                      ValueRange{token}, dynamicSizes,
                                      ValueRange());
    Value device = alloc.getMemref();
    token = gpu::MemcpyOp::create(before, loc, tokenType,
                                  ValueRange{alloc.getAsyncToken()},
                                  device, operand)
                .getAsyncToken();
    staged.insert({operand, {device, written}});
  }
  if (staged.empty())
    return success(ok);
  gpu::WaitOp::create(before, loc, Type(), ValueRange{token});
  for (OpOperand &use : launch.getKernelOperandsMutable()) {
    auto it = staged.find(use.get());
    if (it != staged.end())
      use.set(it->second.first);
  }
  startChain(after);
  for (auto &[host, entry] : staged) {
    auto [device, written] = entry;
    if (written)
      token = gpu::MemcpyOp::create(after, loc, tokenType,
                                    ValueRange{token}, host, device)
                  .getAsyncToken();
    token = gpu::DeallocOp::create(after, loc, tokenType,
                                   ValueRange{token}, device)
                .getAsyncToken();
  }
  gpu::WaitOp::create(after, loc, Type(), ValueRange{token});
  return success(ok);
}

namespace {

struct ExtGPUStageKernelOperandsPass
    : ext::impl::ExtGPUStageKernelOperandsBase<ExtGPUStageKernelOperandsPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    bool ok = true;
    getOperation().walk([&](gpu::LaunchFuncOp launch) {
      // A tensor map is built from the host memref, which the kernel does
      // not see once staged; rebuilding it from the device copy (and a
      // runtime that encodes maps) is not done yet: refuse rather than
      // launch copies that read host memory.
      for (Value operand : launch.getKernelOperands())
        if (isa<nvgpu::TensorMapDescriptorType>(operand.getType())) {
          launch.emitOpError(
              "passes a TMA tensor map (a schedule with tma = true); running "
              "it on a GPU from ext's host code is not supported yet: run it "
              "on the CPU emulator (ext-run), or compile the kernel with "
              "ext-gpu-pipeline and build the maps in your own host code");
          ok = false;
          return;
        }
      ok &= succeeded(ext::stageKernelOperands(launch, symbols));
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
