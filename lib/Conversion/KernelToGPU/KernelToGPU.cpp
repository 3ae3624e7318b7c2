//===- KernelToGPU.cpp - ext.kernel to gpu.launch -------------------------===//

#include "KernelEmitter.h"

#include "ext/Dialect/Ext/IR/ExtOps.h"
#include "ext/Dialect/Ext/IR/Target.h"
#include "ext/Dialect/Ext/Transforms/ComputeUtils.h"
#include "ext/Dialect/Ext/Transforms/FastMath.h"
#include "ext/Dialect/Ext/Transforms/TileAccumulation.h"
#include "ext/Conversion/Passes.h"
#include "ext/Conversion/KernelToGPU/KernelToGPU.h"
#include "ext/Model/TileWork.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"

namespace ext {
#define GEN_PASS_DEF_EXTKERNELTOGPU
#include "ext/Conversion/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext;
using namespace ext::kernel_to_gpu;

FailureOr<gpu::LaunchOp>
ext::lowerKernelToGPU(RewriterBase &rw, KernelOp kernel,
                      const KernelToGPUOptions &options) {
  Location loc = kernel.getLoc();
  TileDecompositionAttrInterface decomposition = kernel.getDecomposition();
  const DeviceFacts &device = options.device;
  // With a cluster the decomposition deals out cluster tiles to clusters:
  // its grid and SM count are in clusters.
  int64_t clusterSize = kernel.getClusterSize();
  if (auto persistent = dyn_cast<PersistentAttr>(decomposition);
      persistent && clusterSize > 1 && persistent.getSms())
    decomposition = PersistentAttr::get(
        rw.getContext(), persistent.getGrid(),
        std::max<int64_t>(1, persistent.getSms() / clusterSize));
  int64_t numTiles = kernel.getNumWorkTiles(), iters = kernel.getIters();
  bool atLaunch = kernel.plansAtLaunch();
  if (!atLaunch &&
      failed(decomposition.verifyProblem(
          [&]() { return kernel.emitOpError(); }, numTiles, iters, device)))
    return failure();
  // LLVM's names for a device-wide scope: NVPTX's "device" (PTX .gpu),
  // AMDGPU's "agent"; without a chip, the system's.
  StringRef scope = !device.chip          ? StringRef()
                    : device.chip->isNvidia() ? StringRef("device")
                                              : StringRef("agent");
  KernelEmitter emitter(kernel, options.dropFixupWait, options.dropFixupFence,
                        scope);
  WarpSpecializeOp producer;
  for (Operation &op : kernel.getBody().front())
    if (auto ws = dyn_cast<WarpSpecializeOp>(op))
      producer = ws;
  rw.setInsertionPoint(kernel);
  Value one = constIndex(rw, loc, 1);
  Value block = constIndex(rw, loc, kernel.getThreads());

  auto emitLaunchOver = [&](Value gridV, Value workspace,
                            const WorkspaceLayout *layout,
                            function_ref<LogicalResult(OpBuilder &, Value)> body)
      -> FailureOr<gpu::LaunchOp> {
    Value clusterV = clusterSize > 1 ? constIndex(rw, loc, clusterSize)
                                     : Value();
    if (clusterV)
      gridV = indexValue(rw, loc,
                         mulFolded(rw, loc, gridV, rw.getIndexAttr(clusterSize)));
    auto launch = gpu::LaunchOp::create(
        rw, loc, gridV, one, one, block, one, one, Value(), Type(),
        ValueRange(), TypeRange(), TypeRange(), clusterV,
        clusterV ? one : Value(), clusterV ? one : Value());
    if (!kernel->hasAttr(kPreciseMathAttrName))
      launch->setAttr(kFastMathAttrName, rw.getUnitAttr());
    if (kernel->hasAttr(kNoContractAttrName))
      launch->setAttr(kNoContractAttrName, rw.getUnitAttr());
    // LaunchOp's builder gives the body the arguments of a launch without
    // clusters; one with clusters also has their ids and sizes.
    Block &launchBody = launch.getBody().front();
    while (launchBody.getNumArguments() <
           launch.getNumConfigRegionAttributes())
      launchBody.addArgument(rw.getIndexType(), loc);
    OpBuilder::InsertionGuard g(rw);
    rw.setInsertionPointToStart(&launch.getBody().front());
    if (workspace) {
      emitter.setWorkspace(rw, loc, workspace, *layout);
      // Its size, or -1 where the host computes it at launch.
      std::optional<int64_t> bytes = getConstantIntValue(layout->bytes);
      launch->setAttr("ext.workspace_bytes",
                      rw.getI64IntegerAttr(bytes ? *bytes : -1));
    }
    Value blockId = clusterV
                        ? gpu::ClusterIdOp::create(rw, loc, gpu::Dimension::x)
                              .getResult()
                        : gpu::BlockIdOp::create(rw, loc, gpu::Dimension::x)
                              .getResult();
    if (failed(body(rw, blockId)))
      return failure();
    gpu::TerminatorOp::create(rw, loc);
    return launch;
  };

  // The plan: made here from static counts, or by host code at launch from
  // the tile counts and iterations the host computed (an axis of dynamic
  // extent).
  Value grid, reductionGrid;
  OpFoldResult slots;
  std::optional<LaunchPlan> launchPlan;
  if (atLaunch) {
    OpFoldResult tiles = rw.getIndexAttr(1);
    SmallVector<OpFoldResult> counts = tileCounts(rw, kernel);
    if (std::optional<ArrayRef<int64_t>> cluster = kernel.getCluster())
      for (unsigned i = 0; i < 2; ++i)
        counts[counts.size() - 2 + i] = ceilDivFolded(
            rw, loc, counts[counts.size() - 2 + i], (*cluster)[i]);
    for (OpFoldResult count : counts)
      tiles = mulFolded(rw, loc, tiles, count);
    Value tilesV = indexValue(rw, loc, tiles);
    double cost = kernel.getFixupCost()
                      ? kernel.getFixupCost()->convertToDouble()
                      : tilework::CostModel().partialCost;
    FailureOr<LaunchPlan> plan =
        decomposition.emitLaunchPlan(rw, loc, tilesV, kernel.getMixedIters(),
                                     device, cost);
    if (failed(plan))
      return failure();
    launchPlan = std::move(*plan);
    // The plan's index math stays in 64 bits for tile counts below 2^31
    // (the decomposition checked the rest when it planned), and a launch
    // takes at most 2^31 - 1 CTAs.
    Value limit =
        constIndex(rw, loc, std::numeric_limits<int32_t>::max());
    auto atMostLimit = [&](Value v) {
      return arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::ule, v,
                                   limit)
          .getResult();
    };
    SmallVector<SizeCheck> checks;
    std::string what;
    llvm::raw_string_ostream(what) << "ext.kernel with decomposition "
                                   << decomposition << ": ";
    checks.push_back({atMostLimit(tilesV),
                      what + "more than 2^31 - 1 tiles at launch"});
    checks.push_back({atMostLimit(launchPlan->grid),
                      what + "more than 2^31 - 1 CTAs at launch"});
    for (auto &[holds, message] : launchPlan->checks)
      checks.push_back({holds, message});
    guardWithSizeChecks(rw, loc, checks);
    grid = launchPlan->grid;
    reductionGrid = launchPlan->reductionGrid;
    if (launchPlan->numPartials)
      slots = launchPlan->numPartials;
  } else {
    // 0 when the decomposition cannot size its grid (no SM count).
    int64_t numBlocks = decomposition.getNumBlocks(numTiles, iters, device);
    if (numBlocks == 0)
      return kernel.emitOpError()
             << "decomposition " << decomposition
             << " needs the SM count: give it `sms = N`, or the chip to "
                "ext-apply-schedule or ext-kernel-to-gpu";
    if (numBlocks < 1 || numBlocks > std::numeric_limits<int32_t>::max())
      return kernel.emitOpError() << "decomposition " << decomposition
                                  << " asks for " << numBlocks << " CTAs";
    grid = constIndex(rw, loc, numBlocks);
    if (int64_t n = decomposition.getNumPartials(numTiles, iters, device))
      slots = rw.getIndexAttr(n);
    if (int64_t n =
            decomposition.getNumReductionBlocks(numTiles, iters, device))
      reductionGrid = constIndex(rw, loc, n);
  }

  Value workspace;
  std::optional<WorkspaceLayout> layout;
  if (slots) {
    if (std::optional<int64_t> n = getConstantIntValue(slots)) {
      FailureOr<WorkspaceLayout> l = layoutWorkspace(kernel, *n);
      if (failed(l))
        return kernel.emitOpError() << "decomposition " << decomposition
                                    << " needs a workspace of " << *n
                                    << " partial tiles, beyond 2^40 bytes";
      layout = *l;
    } else {
      layout = layoutWorkspaceAtLaunch(rw, loc, kernel, cast<Value>(slots));
    }
    // Device memory, allocated and zeroed on one stream that the host then
    // waits for: the asynchronous forms, which gpu-to-llvm lowers to the
    // runtime's calls (the synchronous ones it leaves alone) and the CPU
    // emulation runs in order.
    std::optional<int64_t> bytes = getConstantIntValue(layout->bytes);
    SmallVector<Value> byteSize, wordSize;
    if (!bytes) {
      byteSize.push_back(cast<Value>(layout->bytes));
      wordSize.push_back(arith::DivUIOp::create(rw, loc, byteSize[0],
                                                constIndex(rw, loc, 4)));
    }
    auto type = MemRefType::get({bytes ? *bytes : ShapedType::kDynamic},
                                rw.getI8Type());
    Type tokenType = gpu::AsyncTokenType::get(rw.getContext());
    Value start = gpu::WaitOp::create(rw, loc, tokenType, ValueRange{})
                      .getAsyncToken();
    auto alloc = gpu::AllocOp::create(rw, loc, type, tokenType,
                                      ValueRange{start}, byteSize,
                                      ValueRange{});
    workspace = alloc.getMemref();
    // Flags start at zero (and partials, which every reader overwrites
    // first, too): a memset of i32 words, which every runtime supports.
    Value words = memref::ViewOp::create(
        rw, loc,
        MemRefType::get({bytes ? *bytes / 4 : ShapedType::kDynamic},
                        rw.getI32Type()),
        workspace, constIndex(rw, loc, 0), wordSize);
    Value zeroed =
        gpu::MemsetOp::create(rw, loc, tokenType,
                              ValueRange{alloc.getAsyncToken()}, words,
                              arith::ConstantIntOp::create(rw, loc, 0, 32))
            .getAsyncToken();
    gpu::WaitOp::create(rw, loc, Type(), ValueRange{zeroed});
  }

  FailureOr<gpu::LaunchOp> main = emitLaunchOver(
      grid, workspace, layout ? &*layout : nullptr,
      [&](OpBuilder &b, Value blockId) {
        auto walk = [&](OpBuilder &wb) {
          if (launchPlan)
            return decomposition.emitLaunchWorkUnits(wb, loc, blockId,
                                                     *launchPlan, emitter);
          return decomposition.emitWorkUnits(wb, loc, blockId, numTiles,
                                             iters, device, emitter);
        };
        if (producer)
          return emitSpecializedRoles(b, loc, kernel, producer, emitter,
                                      device, walk);
        return walk(b);
      });
  if (failed(main))
    return kernel.emitOpError() << "decomposition " << decomposition
                                << " could not emit its work units";
  if (reductionGrid) {
    FailureOr<gpu::LaunchOp> reduction = emitLaunchOver(
        reductionGrid, workspace, layout ? &*layout : nullptr,
        [&](OpBuilder &b, Value blockId) {
          if (launchPlan)
            return decomposition.emitLaunchReductionUnits(
                b, loc, blockId, *launchPlan, emitter);
          return decomposition.emitReductionUnits(b, loc, blockId, numTiles,
                                                  iters, device, emitter);
        });
    if (failed(reduction))
      return kernel.emitOpError() << "decomposition " << decomposition
                                  << " could not emit its reduction";
  }
  if (workspace) {
    Type tokenType = gpu::AsyncTokenType::get(rw.getContext());
    Value start = gpu::WaitOp::create(rw, loc, tokenType, ValueRange{})
                      .getAsyncToken();
    Value freed = gpu::DeallocOp::create(rw, loc, tokenType,
                                         ValueRange{start}, workspace)
                      .getAsyncToken();
    gpu::WaitOp::create(rw, loc, Type(), ValueRange{freed});
  }
  rw.eraseOp(kernel);
  return *main;
}

namespace {

struct ExtKernelToGPUPass
    : ext::impl::ExtKernelToGPUBase<ExtKernelToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    FailureOr<DeviceFacts> device =
        resolveDevice(getOperation(), "ext-kernel-to-gpu", chip, sms);
    if (failed(device))
      return signalPassFailure();
    KernelToGPUOptions options;
    options.device = *device;
    options.dropFixupWait = dropFixupWait;
    options.dropFixupFence = dropFixupFence;
    SmallVector<KernelOp> kernels;
    getOperation()->walk([&](KernelOp k) { kernels.push_back(k); });
    IRRewriter rw(&getContext());
    for (KernelOp k : kernels)
      if (failed(lowerKernelToGPU(rw, k, options)))
        return signalPassFailure();
  }
};

} // namespace
