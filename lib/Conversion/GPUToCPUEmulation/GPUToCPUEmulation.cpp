//===- GPUToCPUEmulation.cpp - gpu kernels on the CPU emulation runtime ---===//
//
// Works above the LLVM dialect: kernels become func.func whose gpu ops are
// calls into the runtime (ext/Runtime/CpuEmulationABI.h) or plain
// memref/scf/arith code, so the rest of ext-cpu-pipeline lowers them like any
// host code. The few LLVM-dialect ops emitted (pointers, strings, argument
// packing) are the ones the runtime ABI needs; memref descriptors cross into
// them through unrealized casts that reconcile-unrealized-casts removes after
// finalize-memref-to-llvm.
//
// This file is the driver: each gpu.module's functions move into the host
// module, their bodies go through the device pattern families in the IR's
// order, then the host patterns rewrite what is left (host launch lowering,
// LaunchToEmulation.cpp). The order is deliberate (sites are numbered, entry
// values placed, as ops are reached), which is why the patterns are applied
// one op at a time rather than by a rewrite driver that picks its own order.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/GPUToCPUEmulation/GPUToCPUEmulation.h"
#include "ext/Conversion/Passes.h"
#include "ext/Runtime/CpuEmulationABI.h"
#include "ext/Runtime/CpuEmulationMatrixABI.h"
#include "ext/Support/GuardedAssert.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUTOCPUEMULATION
#include "ext/Conversion/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext;
using namespace ext::emu;

namespace {

/// The most workgroup memory the runtime gives a block (as
/// __ext_emu_launch checks).
constexpr int64_t kMaxWorkgroupBytes = int64_t(1) << 30;

/// Dialects whose ops only make sense on one GPU target.
bool isTargetSpecific(Operation *op) {
  StringRef ns = op->getName().getDialectNamespace();
  return llvm::is_contained(
      {"nvvm", "rocdl", "nvgpu", "amdgpu", "spirv", "xegpu", "xevm"}, ns);
}

/// gpu.return ends a device function.
struct ReturnLowering : OpRewritePattern<gpu::ReturnOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(gpu::ReturnOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(op);
    func::ReturnOp::create(rewriter, op.getLoc(), op.getOperands());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Applies `patterns` to each of `ops` in turn. An op no pattern rewrites is
/// an error naming it where `mustRewrite`; a pattern that reports an error
/// stops everything.
LogicalResult applyInOrder(ArrayRef<Operation *> ops,
                           const FrozenRewritePatternSet &patterns,
                           bool mustRewrite) {
  if (ops.empty())
    return success();
  PatternApplicator applicator(patterns);
  applicator.applyDefaultCostModel();
  MLIRContext *ctx = ops.front()->getContext();
  PatternRewriter rewriter(ctx);
  bool reported = false;
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      reported = true;
    return failure(); // let the next handler report it
  });
  for (Operation *op : ops) {
    if (succeeded(applicator.matchAndRewrite(op, rewriter)))
      continue;
    if (reported)
      return failure();
    if (mustRewrite)
      return op->emitOpError("is not supported by the CPU emulation of GPU "
                             "kernels");
  }
  return success();
}

class Emulation {
public:
  explicit Emulation(ModuleOp module) : emu(module) {
    RewritePatternSet hooks(module.getContext());
    populateGPUAccessHookPatterns(hooks, emu);
    hookPatterns = std::move(hooks);
    RewritePatternSet allReduce(module.getContext());
    populateGPUAllReduceToEmulationPatterns(allReduce, emu);
    allReducePatterns = std::move(allReduce);
    RewritePatternSet device(module.getContext());
    populateGPUIndexToEmulationPatterns(device, emu);
    populateGPUCollectivesToEmulationPatterns(device, emu);
    populateGPUWorkgroupMemoryPatterns(device, emu);
    populateGPUPrintfToEmulationPatterns(device, emu);
    populateGPUMatrixOpsToEmulationPatterns(device, emu);
    populateNVVMWarpgroupMmaToEmulationPatterns(device, emu);
    populateNVGPUAsyncCopyToEmulationPatterns(device, emu);
    populateNVGPUTmaToEmulationPatterns(device, emu);
    populateNVVMClusterToEmulationPatterns(device, emu);
    device.add<ReturnLowering>(module.getContext());
    devicePatterns = std::move(device);
    RewritePatternSet host(module.getContext());
    populateGPUHostToEmulationPatterns(host, emu);
    hostPatterns = std::move(host);
  }

  LogicalResult run();

private:
  EmulationModule emu;
  FrozenRewritePatternSet hookPatterns, allReducePatterns, devicePatterns,
      hostPatterns;

  /// Whether a device pattern rewrites ops named `name` (target-specific
  /// ops are errors unless one does).
  bool hasDevicePattern(OperationName name) const {
    return devicePatterns.getOpSpecificNativePatterns().count(name);
  }

  LogicalResult lowerGPUModule(gpu::GPUModuleOp gpuModule);
  FailureOr<func::FuncOp> convertGPUFunc(gpu::GPUFuncOp gpuFunc,
                                         KernelInfo *kernel);
  LogicalResult lowerBody(func::FuncOp func, SiteTable &sites,
                          KernelInfo *kernel);
  LogicalResult lowerHost();
  void lowerHostAsserts(bool hasGpu);
  void stripMemorySpaces();
};

FailureOr<func::FuncOp> Emulation::convertGPUFunc(gpu::GPUFuncOp gpuFunc,
                                                  KernelInfo *kernel) {
  OpBuilder b(gpuFunc);
  Location loc = gpuFunc.getLoc();
  auto func = func::FuncOp::create(b, loc, gpuFunc.getName(),
                                   gpuFunc.getFunctionType());
  func.setVisibility(gpuFunc.isKernel() ? SymbolTable::Visibility::Private
                                        : gpuFunc.getVisibility());
  SmallVector<BlockArgument> workgroup(gpuFunc.getWorkgroupAttributions());
  SmallVector<BlockArgument> privates(gpuFunc.getPrivateAttributions());
  unsigned numInputs = gpuFunc.getNumArguments();
  func.getBody().takeBody(gpuFunc.getBody());
  gpuFunc.erase();

  Block &entry = func.getBody().front();
  OpBuilder eb = OpBuilder::atBlockBegin(&entry);
  Value sharedBase;
  for (auto [index, arg] : llvm::enumerate(workgroup)) {
    auto type = cast<MemRefType>(arg.getType());
    if (!kernel)
      return emitError(loc) << "workgroup attributions of a non-kernel "
                               "gpu.func are not supported by the CPU "
                               "emulation";
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return emitError(loc) << "workgroup attribution of type " << type
                            << " needs a static shape and identity layout";
    // Its size multiplied out checked (the shape comes from the input): the
    // runtime gives a block at most 1 GiB of workgroup memory.
    std::optional<int64_t> bytes = emu.byteSize(type.getElementType());
    for (int64_t size : type.getShape())
      if (bytes)
        bytes = llvm::checkedMul(*bytes, size);
    if (!bytes || *bytes > kMaxWorkgroupBytes ||
        kernel->staticShared > kMaxWorkgroupBytes - *bytes)
      return emitError(loc) << "workgroup attribution of type " << type
                            << " takes the block's workgroup memory past "
                               "1 GiB, more than the CPU emulation (or any "
                               "GPU) gives a block";
    if (!sharedBase)
      sharedBase = emu.call(eb, loc, EXT_EMU_SHARED_BASE, {emu.ptrType()}, {});
    int64_t offset = kernel->allocateShared(
        emulationBufferName("workgroup buffer " + Twine(index),
                            withoutMemorySpace(type), arg.getLoc()),
        *bytes);
    Value ptr =
        LLVM::GEPOp::create(eb, loc, emu.ptrType(), eb.getI8Type(), sharedBase,
                            ArrayRef<LLVM::GEPArg>{int32_t(offset)});
    arg.replaceAllUsesWith(emu.memrefAt(eb, loc, type, ptr));
  }
  for (BlockArgument arg : privates) {
    auto type = cast<MemRefType>(arg.getType());
    arg.replaceAllUsesWith(memref::AllocaOp::create(eb, loc, type));
  }
  entry.eraseArguments(numInputs, entry.getNumArguments() - numInputs);
  // A thread's private memory lives on its fiber stack, which the launch
  // sizes by it: the static allocas (the attributions' among them).
  if (kernel)
    func.walk([&](memref::AllocaOp alloca) {
      MemRefType type = alloca.getType();
      Type element = type.getElementType();
      if (!type.hasStaticShape() ||
          !(element.isIntOrIndexOrFloat() || isa<VectorType>(element)))
        return;
      uint64_t bytes = emu.byteSize(type.getElementType());
      for (int64_t size : type.getShape())
        bytes = llvm::SaturatingMultiply(bytes, uint64_t(size));
      kernel->privateBytes = int64_t(std::min<uint64_t>(
          llvm::SaturatingAdd(uint64_t(kernel->privateBytes), bytes),
          uint64_t(INT64_MAX)));
    });
  return func;
}

LogicalResult Emulation::lowerBody(func::FuncOp func, SiteTable &sites,
                                   KernelInfo *kernel) {
  // Warpgroup ops first: they change the types of values scf ops carry.
  if (failed(lowerNVGPUWarpgroupOps(func)))
    return failure();
  // Reject what cannot run before changing anything.
  WalkResult targetSpecific = func.walk([&](Operation *op) {
    if (isTargetSpecific(op) && !hasDevicePattern(op->getName())) {
      op->emitOpError("is specific to one GPU target and cannot run on the "
                      "CPU emulation");
      return WalkResult::interrupt();
    }
    // Distributed shared memory runs mbarrier arrivals and TMA multicast;
    // a plain access through a shared::cluster pointer would bypass the
    // emulator's checks and yield points.
    if (isa<LLVM::LoadOp, LLVM::StoreOp, LLVM::AtomicRMWOp,
            LLVM::AtomicCmpXchgOp>(op) &&
        llvm::any_of(op->getOperandTypes(), [](Type type) {
          auto ptr = dyn_cast<LLVM::LLVMPointerType>(type);
          return ptr && ptr.getAddressSpace() == 7;
        })) {
      op->emitOpError("through a shared::cluster pointer (!llvm.ptr<7>, "
                      "another block's shared memory) is not supported by "
                      "the CPU emulation, which runs distributed shared "
                      "memory's mbarrier arrivals (nvvm.mbarrier.arrive) and "
                      "TMA multicast only");
      return WalkResult::interrupt();
    }
    // ext's tile ops are lowered earlier (ext-alloc-shared-to-workgroup...);
    // converting their types here would leave them invalid.
    if (op->getName().getDialectNamespace() == "ext" &&
        !hasDevicePattern(op->getName())) {
      op->emitOpError("must be lowered before the CPU emulation");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (targetSpecific.wasInterrupted())
    return failure();

  lowerApproximateMathToEmulation(func);
  EmulationFunction fn(emu, func, sites, kernel);
  emu.setFunction(&fn);
  llvm::scope_exit restore([&] { emu.setFunction(nullptr); });

  // A kernel of a module that issues TMA stores has its blocks note ordinary
  // shared-memory writes (the runtime checks each store's source for writes
  // not fenced for the async proxy); other kernels pay nothing.
  if (kernel) {
    Operation *scope = func->getParentOp();
    bool storesByTma = scope && scope->walk([](nvgpu::TmaAsyncStoreOp) {
                                   return WalkResult::interrupt();
                                 }).wasInterrupted();
    if (storesByTma) {
      OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
      emu.call(b, func.getLoc(), EXT_EMU_TRACK_GENERIC_WRITES, {}, {});
    }
  }

  // Accumulator registers of warpgroup MMAs are read only once their group
  // retired: each f32 read out of an accumulator struct is checked, against
  // the MMA that produced it where it is in sight.
  bool hasWgmma = false;
  func.walk([&](NVVM::WgmmaMmaAsyncOp) { hasWgmma = true; });
  if (hasWgmma) {
    SmallVector<LLVM::ExtractValueOp> reads;
    func.walk([&](LLVM::ExtractValueOp op) {
      if (op.getType().isF32() &&
          isa<LLVM::LLVMStructType>(op.getContainer().getType()))
        reads.push_back(op);
    });
    for (LLVM::ExtractValueOp op : reads) {
      OpBuilder b(op);
      Operation *def = op.getContainer().getDefiningOp();
      Value producer = isa_and_nonnull<NVVM::WgmmaMmaAsyncOp>(def)
                           ? fn.site(b, def)
                           : emuI32Const(b, op.getLoc(), -1);
      emu.call(b, op.getLoc(), EXT_EMU_WGMMA_CHECK, {},
               {fn.site(b, op), producer});
    }
  }

  // Yield points first: they number the sites of the accesses. Then the
  // names of workgroup views (the same pattern set, after all hooks).
  SmallVector<Operation *> accesses, views;
  func.walk([&](Operation *op) {
    if (isa<memref::LoadOp, memref::StoreOp, vector::LoadOp, vector::StoreOp,
            memref::AtomicRMWOp, memref::GenericAtomicRMWOp, LLVM::FenceOp,
            LLVM::LoadOp, LLVM::StoreOp, LLVM::AtomicRMWOp>(op))
      accesses.push_back(op);
    else if (isa<memref::ViewOp>(op))
      views.push_back(op);
  });
  if (failed(applyInOrder(accesses, hookPatterns, /*mustRewrite=*/false)) ||
      failed(applyInOrder(views, hookPatterns, /*mustRewrite=*/false)))
    return failure();

  // all_reduce next: its region is inlined and may hold other gpu ops.
  SmallVector<Operation *> reductions;
  func.walk([&](gpu::AllReduceOp op) { reductions.push_back(op); });
  if (failed(applyInOrder(reductions, allReducePatterns, /*mustRewrite=*/true)))
    return failure();

  SmallVector<Operation *> work;
  func.walk([&](Operation *op) {
    bool workgroupMemref =
        isa<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(op) &&
        isWorkgroupMemRef(op->getResult(0).getType());
    bool workgroupDealloc = isa<memref::DeallocOp>(op) &&
                            isWorkgroupMemRef(op->getOperand(0).getType());
    // A kernel's cf.assert reports through the runtime (the CPU's abort
    // would end the process with no word of which thread failed).
    if (isa_and_nonnull<gpu::GPUDialect>(op->getDialect()) || workgroupMemref ||
        workgroupDealloc || isTargetSpecific(op) || isa<cf::AssertOp>(op))
      work.push_back(op);
  });
  return applyInOrder(work, devicePatterns, /*mustRewrite=*/true);
}

LogicalResult Emulation::lowerGPUModule(gpu::GPUModuleOp gpuModule) {
  SiteTable &sites = emu.createSiteTable(gpuModule);
  std::string moduleName = gpuModule.getName().str();

  // Functions first (bodies and kernels), then rename and move every symbol.
  SmallVector<Operation *> ops;
  for (Operation &op : gpuModule.getBody()->getOperations())
    ops.push_back(&op);
  for (Operation *op : ops) {
    if (auto gpuFunc = dyn_cast<gpu::GPUFuncOp>(op)) {
      KernelInfo *kernel = nullptr;
      std::string name = gpuFunc.getName().str();
      if (gpuFunc.isKernel()) {
        kernel = &emu.kernel(moduleName, name);
        kernel->displayName = name;
        kernel->sites = &sites;
      }
      FailureOr<func::FuncOp> func = convertGPUFunc(gpuFunc, kernel);
      if (failed(func))
        return failure();
      if (kernel)
        kernel->func = *func;
      if (failed(lowerBody(*func, sites, kernel)))
        return failure();
      continue;
    }
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      if (!func.isExternal() && failed(lowerBody(func, sites, nullptr)))
        return failure();
      continue;
    }
    if (isa<memref::GlobalOp, LLVM::GlobalOp, LLVM::LLVMFuncOp>(op))
      continue;
    return op->emitOpError("in a gpu.module is not supported by the CPU "
                           "emulation of GPU kernels");
  }

  ModuleOp module = emu.getModule();
  SymbolTable &symbols = emu.getSymbols();
  Block *hostBody = module.getBody();
  SmallVector<Operation *> moved;
  for (Operation &op : llvm::make_early_inc_range(*gpuModule.getBody()))
    moved.push_back(&op);
  for (Operation *op : moved) {
    auto symbol = dyn_cast<SymbolOpInterface>(op);
    bool declaration = symbol && symbol.isDeclaration();
    if (symbol && declaration) {
      // An external function keeps its name (it names a library symbol); a
      // host declaration of the same name serves both.
      if (Operation *existing = symbols.lookup(symbol.getName())) {
        auto a = dyn_cast<FunctionOpInterface>(existing);
        auto b = dyn_cast<FunctionOpInterface>(op);
        if (!a || !b || a.getFunctionType() != b.getFunctionType())
          return op->emitOpError("declares '")
                 << symbol.getName()
                 << "' with a different type than the host module";
        op->erase();
        continue;
      }
    } else if (symbol) {
      std::string newName =
          emu.uniqueName(moduleName + "_" + symbol.getName().str());
      StringAttr newAttr = StringAttr::get(emu.getContext(), newName);
      if (failed(SymbolTable::replaceAllSymbolUses(op, newAttr, gpuModule)))
        return op->emitOpError("has uses the CPU emulation cannot rename");
      SymbolTable::setSymbolName(op, newAttr);
    }
    op->moveBefore(hostBody, hostBody->end());
    if (symbol)
      symbols.insert(op);
  }
  gpuModule.erase();
  for (auto &[key, kernel] : emu.getKernels())
    if (kernel.sites == &sites && failed(buildEmulationTrampoline(emu, kernel)))
      return failure();
  return success();
}

LogicalResult Emulation::lowerHost() {
  SmallVector<Operation *> ops;
  emu.getModule().walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa_and_nonnull<gpu::GPUDialect>(op->getDialect()))
      ops.push_back(op);
  });
  // Producers before users: an async token's users read the event its
  // rewritten producer left (LaunchToEmulation.cpp).
  if (failed(applyInOrder(ops, hostPatterns, /*mustRewrite=*/true)))
    return failure();
  // The tokens' casts: gone unless something other than a gpu op used one.
  SmallVector<UnrealizedConversionCastOp> casts;
  emu.getModule().walk([&](UnrealizedConversionCastOp cast) {
    if (cast->getNumResults() == 1 &&
        isa<gpu::AsyncTokenType>(cast->getResult(0).getType()))
      casts.push_back(cast);
  });
  for (UnrealizedConversionCastOp cast : casts) {
    if (!cast->use_empty()) {
      Operation *user = *cast->getUsers().begin();
      return user->emitOpError("uses an async token; the CPU emulation "
                               "passes tokens only from gpu op to gpu op");
    }
    cast.erase();
  }
  return success();
}

void Emulation::stripMemorySpaces() {
  AttrTypeReplacer replacer;
  // gpu.address_space attributes and the targets' numbers alike: the CPU
  // has one address space.
  replacer.addReplacement([](MemRefType type) -> std::optional<Type> {
    if (!type.getMemorySpace())
      return std::nullopt;
    return withoutMemorySpace(type);
  });
  replacer.addReplacement([](UnrankedMemRefType type) -> std::optional<Type> {
    if (!type.getMemorySpace())
      return std::nullopt;
    return UnrankedMemRefType::get(type.getElementType(), Attribute());
  });
  replacer.recursivelyReplaceElementsIn(emu.getModule(), /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
}

void Emulation::lowerHostAsserts(bool hasGpu) {
  SmallVector<cf::AssertOp> asserts;
  for (auto func : emu.getModule().getOps<func::FuncOp>())
    func.walk([&](cf::AssertOp op) {
      if (hasGpu || op->hasAttr(kGuardedAssertAttrName))
        asserts.push_back(op);
    });
  for (cf::AssertOp op : asserts) {
    OpBuilder b(op);
    Location l = op.getLoc();
    Value failed = arith::XOrIOp::create(
        b, l, op.getArg(), arith::ConstantIntOp::create(b, l, 1, 1));
    Value guarded = arith::ConstantIntOp::create(
        b, l, op->hasAttr(kGuardedAssertAttrName) ? 1 : 0, 32);
    scf::IfOp::create(b, l, failed, [&](OpBuilder &tb, Location tl) {
      emu.call(tb, tl, "__ext_emu_host_assert_fail", {},
               {emu.stringPtr(tb, tl, "__ext_emu_assert_message", op.getMsg()),
                guarded});
      scf::YieldOp::create(tb, tl);
    });
    op.erase();
  }
}

LogicalResult Emulation::run() {
  ModuleOp module = emu.getModule();
  bool hasGpu = false;
  module.walk([&](Operation *op) {
    if (isa_and_nonnull<gpu::GPUDialect>(op->getDialect())) {
      hasGpu = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  // Host asserts report through the runtime: a guarded one (ext.guarded) to
  // the caller, any other with its message before the process ends (the
  // CPU's abort loses buffered output). Without kernels only guarded ones,
  // so a module that needs no runtime still does not.
  lowerHostAsserts(hasGpu);
  if (!hasGpu)
    return success();

  if (failed(lowerNVGPUTensorMaps(emu)))
    return failure();
  SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
  for (gpu::GPUModuleOp gpuModule : gpuModules)
    if (failed(lowerGPUModule(gpuModule)))
      return failure();
  if (failed(lowerHost()))
    return failure();
  stripMemorySpaces();
  module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  return success();
}

struct ExtGPUToCPUEmulationPass
    : ext::impl::ExtGPUToCPUEmulationBase<ExtGPUToCPUEmulationPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(Emulation(getOperation()).run()))
      signalPassFailure();
  }
};

} // namespace

void ext::addCpuEmulationPasses(OpPassManager &pm, bool racecheck) {
  pm.addPass(createExtSubgroupMmaToLanes());
  pm.addPass(createGpuKernelOutliningPass());
  if (racecheck)
    pm.addNestedPass<gpu::GPUModuleOp>(createExtInstrumentGlobalAccesses());
  pm.addPass(createExtGPUToCPUEmulation());
}
