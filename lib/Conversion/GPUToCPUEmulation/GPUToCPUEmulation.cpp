//===- GPUToCPUEmulation.cpp - gpu kernels on the CPU emulation runtime ---===//
//
// Works above the LLVM dialect: kernels become func.func whose gpu ops are
// calls into the runtime (ext/Runtime/CpuEmulationABI.h) or plain
// memref/scf/arith code, so the rest of ext-cpu-pipeline lowers them like any
// host code. The few LLVM-dialect ops emitted here (pointers, strings,
// argument packing) are the ones the runtime ABI needs; memref descriptors
// cross into them through unrealized casts that reconcile-unrealized-casts
// removes after finalize-memref-to-llvm.
//
//===----------------------------------------------------------------------===//

#include "ext/Conversion/Passes.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <map>

namespace ext {
#define GEN_PASS_DEF_EXTGPUTOCPUEMULATION
#include "ext/Conversion/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext::emu;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

bool hasGpuMemorySpace(Type type, gpu::AddressSpace space) {
  auto memref = dyn_cast<BaseMemRefType>(type);
  if (!memref)
    return false;
  auto attr = dyn_cast_or_null<gpu::AddressSpaceAttr>(memref.getMemorySpace());
  return attr && attr.getValue() == space;
}

bool isWorkgroup(Type type) {
  return hasGpuMemorySpace(type, gpu::AddressSpace::Workgroup);
}

MemRefType withoutMemorySpace(MemRefType type) {
  return MemRefType::get(type.getShape(), type.getElementType(),
                         type.getLayout(), Attribute());
}

/// The first file location inside `loc` and the name of the first NameLoc
/// on the way to it (ext's lowerings name the phase an op implements).
void findFileLocation(Location loc, std::optional<FileLineColLoc> &file,
                      std::string &name) {
  if (file)
    return;
  if (auto f = dyn_cast<FileLineColLoc>(loc)) {
    file = f;
  } else if (auto n = dyn_cast<NameLoc>(loc)) {
    bool outermost = name.empty();
    if (outermost)
      name = n.getName().str();
    findFileLocation(n.getChildLoc(), file, name);
    if (!file && outermost)
      name.clear();
  } else if (auto c = dyn_cast<CallSiteLoc>(loc)) {
    findFileLocation(c.getCallee(), file, name);
  } else if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location inner : fused.getLocations())
      findFileLocation(inner, file, name);
  } else if (auto opaque = dyn_cast<OpaqueLoc>(loc)) {
    findFileLocation(opaque.getFallbackLocation(), file, name);
  }
}

/// `file:line:col` of the first file location inside `loc`, with the name
/// around it as ` (name)`; empty where there is none.
std::string fileLocationString(Location loc) {
  std::optional<FileLineColLoc> file;
  std::string name;
  findFileLocation(loc, file, name);
  if (!file)
    return {};
  std::string out = (file->getFilename().getValue() + ":" +
                     Twine(file->getLine()) + ":" + Twine(file->getColumn()))
                        .str();
  if (!name.empty())
    out += " (" + name + ")";
  return out;
}

/// fileLocationString, else the location's text.
std::string locationString(Location loc) {
  std::string out = fileLocationString(loc);
  if (out.empty()) {
    llvm::raw_string_ostream os(out);
    loc.print(os);
  }
  return out;
}

/// How race reports name a buffer: `what (type, at file:line:col)`.
std::string bufferName(const Twine &what, Type type, Location loc) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << what << " (" << type;
  std::string at = fileLocationString(loc);
  if (!at.empty())
    os << ", at " << at;
  os << ")";
  return out;
}

/// Dialects whose ops only make sense on one GPU target.
bool isTargetSpecific(Operation *op) {
  StringRef ns = op->getName().getDialectNamespace();
  return llvm::is_contained(
      {"nvvm", "rocdl", "nvgpu", "amdgpu", "spirv", "xegpu", "xevm"}, ns);
}

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}
Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

/// `a op b` for a gpu reduction kind (the op verifiers checked the types).
Value combine(OpBuilder &b, Location loc, gpu::AllReduceOperation kind,
              Value lhs, Value rhs) {
  bool isFloat = isa<FloatType>(getElementTypeOrSelf(lhs.getType()));
  using K = gpu::AllReduceOperation;
  switch (kind) {
  case K::ADD:
    return isFloat ? Value(arith::AddFOp::create(b, loc, lhs, rhs))
                   : Value(arith::AddIOp::create(b, loc, lhs, rhs));
  case K::MUL:
    return isFloat ? Value(arith::MulFOp::create(b, loc, lhs, rhs))
                   : Value(arith::MulIOp::create(b, loc, lhs, rhs));
  case K::MINUI:
    return arith::MinUIOp::create(b, loc, lhs, rhs);
  case K::MINSI:
    return arith::MinSIOp::create(b, loc, lhs, rhs);
  case K::MAXUI:
    return arith::MaxUIOp::create(b, loc, lhs, rhs);
  case K::MAXSI:
    return arith::MaxSIOp::create(b, loc, lhs, rhs);
  case K::MINNUMF:
    return arith::MinNumFOp::create(b, loc, lhs, rhs);
  case K::MAXNUMF:
    return arith::MaxNumFOp::create(b, loc, lhs, rhs);
  case K::MINIMUMF:
    return arith::MinimumFOp::create(b, loc, lhs, rhs);
  case K::MAXIMUMF:
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  case K::AND:
    return arith::AndIOp::create(b, loc, lhs, rhs);
  case K::OR:
    return arith::OrIOp::create(b, loc, lhs, rhs);
  case K::XOR:
    return arith::XOrIOp::create(b, loc, lhs, rhs);
  }
  llvm_unreachable("unknown gpu reduction kind");
}

/// The bytes a strided memref covers: its lowest address and its extent
/// (0 when it has no elements), from the descriptor at run time.
std::pair<Value, Value> memrefExtent(OpBuilder &b, Location loc, Value memref,
                                     int64_t elementBytes) {
  auto md = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value zero = indexConst(b, loc, 0), one = indexConst(b, loc, 1);
  Value low = md.getOffset(), span = one, empty;
  for (auto [size, stride] : llvm::zip(md.getSizes(), md.getStrides())) {
    // The last element along this dimension, relative to the first; a
    // negative stride extends the range downwards.
    Value reach = arith::MulIOp::create(
        b, loc, arith::SubIOp::create(b, loc, size, one), stride);
    low = arith::AddIOp::create(b, loc, low,
                                arith::MinSIOp::create(b, loc, reach, zero));
    Value magnitude = arith::MaxSIOp::create(
        b, loc, reach, arith::SubIOp::create(b, loc, zero, reach));
    span = arith::AddIOp::create(b, loc, span, magnitude);
    Value none =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, size, zero);
    empty = empty ? arith::OrIOp::create(b, loc, empty, none) : none;
  }
  Value scale = indexConst(b, loc, elementBytes);
  Value start = arith::AddIOp::create(
      b, loc, base, arith::MulIOp::create(b, loc, low, scale));
  Value bytes = arith::MulIOp::create(b, loc, span, scale);
  if (empty)
    bytes = arith::SelectOp::create(b, loc, empty, zero, bytes);
  return {start, bytes};
}

/// Source locations of one gpu.module, numbered for the runtime.
struct SiteTable {
  std::vector<std::string> entries;
  llvm::StringMap<int32_t> ids;

  int32_t id(Location loc) {
    std::string text = locationString(loc);
    auto [it, inserted] = ids.try_emplace(text, int32_t(entries.size()));
    if (inserted)
      entries.push_back(text);
    return it->second;
  }
  /// The entries, each NUL-terminated.
  std::string blob() const {
    std::string out;
    for (const std::string &e : entries) {
      out += e;
      out.push_back('\0');
    }
    return out;
  }
};

/// A named range of a kernel's static workgroup memory.
struct SharedBuffer {
  std::string name;
  int64_t offset, bytes;
};

struct KernelInfo {
  func::FuncOp func;
  func::FuncOp trampoline;
  std::string displayName;
  SiteTable *sites = nullptr;
  int64_t staticShared = 0;
  std::vector<SharedBuffer> sharedBuffers;

  /// A 16-byte aligned slot of `bytes` after the slots so far, named.
  int64_t allocateShared(std::string name, int64_t bytes) {
    int64_t offset = llvm::alignTo(staticShared, 16);
    staticShared = offset + bytes;
    sharedBuffers.push_back({std::move(name), offset, bytes});
    return offset;
  }
};

//===----------------------------------------------------------------------===//
// The lowering
//===----------------------------------------------------------------------===//

class Emulation {
public:
  Emulation(ModuleOp module, bool instrumentGlobal)
      : module(module), symbols(module), converter(module.getContext()),
        instrumentGlobal(instrumentGlobal) {}

  LogicalResult run();

private:
  ModuleOp module;
  SymbolTable symbols;
  LLVMTypeConverter converter;
  bool instrumentGlobal;
  llvm::StringMap<LLVM::GlobalOp> strings;
  std::vector<std::unique_ptr<SiteTable>> siteTables;
  std::map<std::pair<std::string, std::string>, KernelInfo> kernels;

  MLIRContext *ctx() { return module.getContext(); }
  Type ptrType() { return LLVM::LLVMPointerType::get(ctx()); }

  std::string uniqueName(StringRef base) {
    std::string name = base.str();
    for (unsigned i = 0; symbols.lookup(name); ++i)
      name = (base + "_" + Twine(i)).str();
    return name;
  }

  /// A private declaration of a runtime entry point.
  func::FuncOp runtimeFunc(StringRef name, TypeRange args,
                           TypeRange results) {
    if (auto f = symbols.lookup<func::FuncOp>(name))
      return f;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto f = func::FuncOp::create(b, module.getLoc(), name,
                                  b.getFunctionType(args, results));
    f.setPrivate();
    symbols.insert(f);
    return f;
  }

  Value call(OpBuilder &b, Location loc, StringRef name, TypeRange results,
             ValueRange args) {
    func::FuncOp f = runtimeFunc(name, args.getTypes(), results);
    auto op = func::CallOp::create(b, loc, f, args);
    return results.empty() ? Value() : op.getResult(0);
  }

  /// The address of a NUL-terminated constant string.
  Value stringPtr(OpBuilder &b, Location loc, StringRef prefix,
                  StringRef value) {
    std::string key = (prefix + "\x01" + value).str();
    LLVM::GlobalOp &global = strings[key];
    if (!global) {
      OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
      std::string bytes = value.str();
      bytes.push_back('\0');
      auto type = LLVM::LLVMArrayType::get(mb.getI8Type(), bytes.size());
      global = LLVM::GlobalOp::create(mb, loc, type, /*isConstant=*/true,
                                      LLVM::Linkage::Internal,
                                      uniqueName(prefix),
                                      mb.getStringAttr(bytes));
      symbols.insert(global);
    }
    return LLVM::AddressOfOp::create(b, loc, global);
  }

  int64_t byteSize(Type type) {
    return int64_t(DataLayout::closest(module).getTypeSize(type));
  }

  /// A memref of static `type` (its memory space ignored) over `ptr`.
  Value memrefAt(OpBuilder &b, Location loc, MemRefType type, Value ptr) {
    MemRefDescriptor desc = MemRefDescriptor::fromStaticShape(
        b, loc, converter, withoutMemorySpace(type), ptr);
    return UnrealizedConversionCastOp::create(b, loc, type, Value(desc))
        .getResult(0);
  }

  LogicalResult lowerGpuModule(gpu::GPUModuleOp gpuModule);
  FailureOr<func::FuncOp> convertGpuFunc(gpu::GPUFuncOp gpuFunc,
                                         KernelInfo *kernel);
  LogicalResult lowerBody(func::FuncOp func, SiteTable &sites,
                          KernelInfo *kernel);
  LogicalResult buildTrampoline(KernelInfo &kernel);
  LogicalResult lowerHost();
  LogicalResult lowerLaunch(gpu::LaunchFuncOp launch);
  /// The buffer names, their count and their (space, start, bytes) array
  /// for __ext_emu_launch (the array's slot allocated in `entry`).
  std::tuple<Value, Value, Value>
  describeBuffers(OpBuilder &b, OpBuilder &entry, Location loc,
                  const KernelInfo &kernel, ValueRange operands);
  void stripMemorySpaces();

  friend class BodyLowering;
};

/// Per function: values computed once at its entry, and the op rewrites.
class BodyLowering {
public:
  BodyLowering(Emulation &emu, func::FuncOp func, SiteTable &sites,
               KernelInfo *kernel)
      : emu(emu), func(func), sites(sites), kernel(kernel),
        entry(func.getContext(), &entryListener) {}

  LogicalResult run();

private:
  Emulation &emu;
  func::FuncOp func;
  SiteTable &sites;
  KernelInfo *kernel;
  /// Builds at the function entry, after the values made there so far (an
  /// iterator to the block's first op would dangle once it is rewritten).
  struct EntryListener : OpBuilder::Listener {
    Operation *last = nullptr;
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      last = op;
    }
  } entryListener;
  OpBuilder entry;
  std::map<std::pair<StringRef, int>, Value> cache;

  void atEntry() {
    if (entryListener.last)
      entry.setInsertionPointAfter(entryListener.last);
    else
      entry.setInsertionPointToStart(&func.getBody().front());
  }

  Location loc() { return func.getLoc(); }

  Value site(OpBuilder &b, Operation *op) {
    return i32Const(b, op->getLoc(), sites.id(op->getLoc()));
  }

  /// A runtime query made once at the function entry.
  Value query(StringRef name, int dim = -1) {
    Value &v = cache[{name, dim}];
    if (!v) {
      atEntry();
      SmallVector<Value> args;
      if (dim >= 0)
        args.push_back(i32Const(entry, loc(), dim));
      Value r = emu.call(entry, loc(), name, {entry.getI64Type()}, args);
      v = arith::IndexCastOp::create(entry, loc(), entry.getIndexType(), r);
    }
    return v;
  }
  Value entryPtr(StringRef name) {
    Value &v = cache[{name, -1}];
    if (!v) {
      atEntry();
      v = emu.call(entry, loc(), name, {emu.ptrType()}, {});
    }
    return v;
  }
  Value derived(StringRef name, function_ref<Value()> build) {
    if (Value v = cache[{name, -2}])
      return v;
    // `build` makes entry values (each placed after the last one) before the
    // ops combining them, which then follow all of them.
    atEntry();
    Value v = build();
    cache[{name, -2}] = v;
    return v;
  }

  Value threadId(int d) { return query(EXT_EMU_THREAD_ID, d); }
  Value blockDim(int d) { return query(EXT_EMU_BLOCK_DIM, d); }
  Value linearThreadId() {
    return derived("linear", [&] {
      Value yz = arith::AddIOp::create(
          entry, loc(), threadId(1),
          arith::MulIOp::create(entry, loc(), blockDim(1), threadId(2)));
      return arith::AddIOp::create(
          entry, loc(), threadId(0),
          arith::MulIOp::create(entry, loc(), blockDim(0), yz));
    });
  }
  Value blockThreads() {
    return derived("threads", [&] {
      return arith::MulIOp::create(
          entry, loc(), blockDim(0),
          arith::MulIOp::create(entry, loc(), blockDim(1), blockDim(2)));
    });
  }
  Value laneId() {
    return derived("lane", [&] {
      return arith::RemUIOp::create(entry, loc(), linearThreadId(),
                                    indexConst(entry, loc(),
                                               EXT_EMU_WARP_SIZE));
    });
  }
  Value warpBase() {
    return derived("warpBase", [&] {
      return arith::SubIOp::create(entry, loc(), linearThreadId(), laneId());
    });
  }

  /// memref<1024 x T> over the block's collective scratch.
  FailureOr<Value> scratch(OpBuilder &b, Operation *op, Type type) {
    if (emu.byteSize(type) > EXT_EMU_SCRATCH_BYTES_PER_THREAD)
      return op->emitOpError("on a value of ")
             << type << " wider than the emulator's "
             << int64_t(EXT_EMU_SCRATCH_BYTES_PER_THREAD) << "-byte lanes";
    auto memrefType = MemRefType::get({EXT_EMU_MAX_BLOCK_THREADS}, type);
    Value ptr = entryPtr(EXT_EMU_SCRATCH);
    return emu.memrefAt(b, op->getLoc(), memrefType, ptr);
  }

  Value warpSync(OpBuilder &b, Operation *op, Value width) {
    return emu.call(b, op->getLoc(), EXT_EMU_WARP_SYNC, {b.getI64Type()},
                    {site(b, op), width});
  }
  void barrier(OpBuilder &b, Operation *op) {
    emu.call(b, op->getLoc(), EXT_EMU_BARRIER, {}, {site(b, op)});
  }

  bool instrumentGlobal();
  LogicalResult instrumentAccesses();
  void nameWorkgroupViews();
  LogicalResult lowerAtomics();
  void instrument(Operation *op, Value memref, ValueRange indices,
                  Type accessType, int32_t kind);
  LogicalResult lowerAllReduce(gpu::AllReduceOp op);
  LogicalResult lowerOp(Operation *op);
  LogicalResult lowerShuffle(gpu::ShuffleOp op);
  LogicalResult lowerRotate(gpu::RotateOp op);
  LogicalResult lowerBroadcast(gpu::SubgroupBroadcastOp op);
  LogicalResult lowerSubgroupReduce(gpu::SubgroupReduceOp op);
  LogicalResult lowerPrintf(gpu::PrintfOp op);
  LogicalResult lowerWorkgroupAlloc(Operation *op, MemRefType type);
  std::pair<Value, Value> exchange(OpBuilder &b, Operation *op, Value buf,
                                   Value srcLane, Value valid, Value width);
};

//===----------------------------------------------------------------------===//
// Memory access instrumentation
//===----------------------------------------------------------------------===//

void BodyLowering::instrument(Operation *op, Value memref, ValueRange indices,
                              Type accessType, int32_t kind) {
  OpBuilder b(op);
  Location l = op->getLoc();
  // addr = aligned base + (offset + sum(index * stride)) * element size.
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, l, memref);
  auto meta = memref::ExtractStridedMetadataOp::create(b, l, memref);
  Value linear = meta.getOffset();
  for (auto [index, stride] : llvm::zip(indices, meta.getStrides()))
    linear = arith::AddIOp::create(
        b, l, linear, arith::MulIOp::create(b, l, index, stride));
  auto memrefType = cast<MemRefType>(memref.getType());
  int64_t elementBytes = emu.byteSize(memrefType.getElementType());
  Value addr = arith::AddIOp::create(
      b, l, base,
      arith::MulIOp::create(b, l, linear, indexConst(b, l, elementBytes)));
  Value addr64 = arith::IndexCastOp::create(b, l, b.getI64Type(), addr);
  Value bytes = arith::ConstantIntOp::create(b, l, b.getI64Type(),
                                             emu.byteSize(accessType));
  emu.call(b, l, EXT_EMU_ACCESS, {},
           {addr64, bytes, i32Const(b, l, kind), site(b, op)});
}

LogicalResult BodyLowering::instrumentAccesses() {
  SmallVector<Operation *> accesses;
  func.walk([&](Operation *op) {
    if (isa<memref::LoadOp, memref::StoreOp, memref::AtomicRMWOp,
            memref::GenericAtomicRMWOp, LLVM::FenceOp>(op))
      accesses.push_back(op);
  });
  auto space = [&](Value memref) {
    return isWorkgroup(memref.getType()) ? EXT_EMU_WORKGROUP : EXT_EMU_GLOBAL;
  };
  for (Operation *op : accesses) {
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      int32_t s = space(load.getMemref());
      if (s == EXT_EMU_WORKGROUP || instrumentGlobal())
        instrument(op, load.getMemref(), load.getIndices(), load.getType(),
                   s | EXT_EMU_LOAD);
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      int32_t s = space(store.getMemref());
      if (s == EXT_EMU_WORKGROUP || instrumentGlobal())
        instrument(op, store.getMemref(), store.getIndices(),
                   store.getValueToStore().getType(), s | EXT_EMU_STORE);
    } else if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op)) {
      instrument(op, rmw.getMemref(), rmw.getIndices(), rmw.getType(),
                 space(rmw.getMemref()) | EXT_EMU_RMW | EXT_EMU_ATOMIC);
    } else if (auto rmw = dyn_cast<memref::GenericAtomicRMWOp>(op)) {
      instrument(op, rmw.getMemref(), rmw.getIndices(), rmw.getType(),
                 space(rmw.getMemref()) | EXT_EMU_RMW | EXT_EMU_ATOMIC);
    } else {
      // A fence orders this thread's accesses; let the others run after it.
      OpBuilder b(op->getContext());
      b.setInsertionPointAfter(op);
      Location l = op->getLoc();
      Value zero = arith::ConstantIntOp::create(b, l, b.getI64Type(), 0);
      emu.call(b, l, EXT_EMU_ACCESS, {},
               {zero, zero, i32Const(b, l, EXT_EMU_FENCE), site(b, op)});
    }
  }
  return success();
}

/// Atomics become a load, the combining code and a store. That is exact
/// here: threads are fibers on one OS thread and switch only at yield points,
/// and none lies between the load and the store (the yield point is the
/// access hook just before). It also covers every kind, floats included,
/// and the region form, which finalize-memref-to-llvm leaves unlowered.
/// Each memref.view of workgroup memory tells the runtime which bytes it
/// covers, so that a race report names the buffer the kernel meant (those
/// ext-reuse-shared-memory packed into one allocation included).
void BodyLowering::nameWorkgroupViews() {
  if (!kernel)
    return;
  func.walk([&](memref::ViewOp view) {
    MemRefType type = view.getType();
    if (!isWorkgroup(type))
      return;
    OpBuilder b(view->getContext());
    b.setInsertionPointAfter(view);
    Location loc = view.getLoc();
    auto [start, bytes] = memrefExtent(b, loc, view.getResult(),
                                       emu.byteSize(type.getElementType()));
    std::string name =
        bufferName("'memref.view'", withoutMemorySpace(type), loc);
    emu.call(
        b, loc, EXT_EMU_NAME_SHARED, {},
        {emu.stringPtr(b, loc, "__ext_emu_view_name", name), start, bytes});
  });
}

LogicalResult BodyLowering::lowerAtomics() {
  SmallVector<Operation *> atomics;
  func.walk([&](Operation *op) {
    if (isa<memref::AtomicRMWOp, memref::GenericAtomicRMWOp>(op))
      atomics.push_back(op);
  });
  for (Operation *op : atomics) {
    OpBuilder b(op);
    Location l = op->getLoc();
    if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op)) {
      Value old =
          memref::LoadOp::create(b, l, rmw.getMemref(), rmw.getIndices());
      Value next = rmw.getKind() == arith::AtomicRMWKind::assign
                       ? rmw.getValue()
                       : arith::getReductionOp(rmw.getKind(), b, l,
                                               rmw.getValue(), old);
      memref::StoreOp::create(b, l, next, rmw.getMemref(), rmw.getIndices());
      rmw.getResult().replaceAllUsesWith(old);
      rmw.erase();
      continue;
    }
    auto rmw = cast<memref::GenericAtomicRMWOp>(op);
    Value old = memref::LoadOp::create(b, l, rmw.getMemref(), rmw.getIndices());
    Block &body = rmw.getAtomicBody().front();
    IRMapping mapping;
    mapping.map(body.getArgument(0), old);
    for (Operation &inner : body.without_terminator())
      b.clone(inner, mapping);
    auto yield = cast<memref::AtomicYieldOp>(body.getTerminator());
    memref::StoreOp::create(b, l, mapping.lookupOrDefault(yield.getResult()),
                            rmw.getMemref(), rmw.getIndices());
    rmw.getResult().replaceAllUsesWith(old);
    rmw.erase();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

LogicalResult BodyLowering::lowerAllReduce(gpu::AllReduceOp op) {
  OpBuilder b(op);
  Location l = op.getLoc();
  Value value = op.getValue();
  Type type = value.getType();
  Region &body = op.getBody();
  if (!op.getOp() && !body.hasOneBlock())
    return op.emitOpError("with a multi-block reduction region is not "
                          "supported by the CPU emulation");
  FailureOr<Value> buf = scratch(b, op, type);
  if (failed(buf))
    return failure();
  // Every thread publishes its value, then combines all of them in thread
  // order (the same bits in every thread), then waits until all have read.
  memref::StoreOp::create(b, l, value, *buf, linearThreadId());
  barrier(b, op);
  Value first = memref::LoadOp::create(b, l, *buf, indexConst(b, l, 0));
  auto loop = scf::ForOp::create(b, l, indexConst(b, l, 1), blockThreads(),
                                 indexConst(b, l, 1), ValueRange{first});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value acc = loop.getRegionIterArgs()[0];
    Value x = memref::LoadOp::create(b, l, *buf, loop.getInductionVar());
    Value next;
    if (auto kind = op.getOp()) {
      next = combine(b, l, *kind, acc, x);
    } else {
      Block &block = body.front();
      IRMapping mapping;
      mapping.map(block.getArgument(0), acc);
      mapping.map(block.getArgument(1), x);
      for (Operation &inner : block.without_terminator())
        b.clone(inner, mapping);
      auto yield = dyn_cast<gpu::YieldOp>(block.getTerminator());
      if (!yield || yield.getNumOperands() != 1)
        return op.emitOpError("reduction region must end in gpu.yield of "
                              "one value");
      next = mapping.lookupOrDefault(yield.getOperand(0));
    }
    scf::YieldOp::create(b, l, next);
  }
  barrier(b, op);
  op.replaceAllUsesWith(loop.getResult(0));
  op.erase();
  return success();
}

/// Publishes `value` in the lane's scratch slot, meets the warp, reads the
/// slot of lane `srcLane` of the same warp where `valid` (else its own), and
/// meets the warp again so no slot is overwritten before it is read.
/// Returns the value read and whether it came from `srcLane`.
std::pair<Value, Value> BodyLowering::exchange(OpBuilder &b, Operation *op,
                                               Value buf, Value srcLane,
                                               Value valid, Value width) {
  Location l = op->getLoc();
  Value src = arith::AddIOp::create(b, l, warpBase(), srcLane);
  // A source beyond the block (a partial last warp) is not valid either.
  Value inBlock = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, src,
                                        blockThreads());
  valid = arith::AndIOp::create(b, l, valid, inBlock);
  Value index = arith::SelectOp::create(b, l, valid, src, linearThreadId());
  Value result = memref::LoadOp::create(b, l, buf, index);
  warpSync(b, op, width);
  return {result, valid};
}

LogicalResult BodyLowering::lowerShuffle(gpu::ShuffleOp op) {
  OpBuilder b(op);
  Location l = op.getLoc();
  FailureOr<Value> buf = scratch(b, op, op.getValue().getType());
  if (failed(buf))
    return failure();
  memref::StoreOp::create(b, l, op.getValue(), *buf, linearThreadId());
  warpSync(b, op, op.getWidth());
  // NVVM's shfl.sync with clamp width-1: the source lane and whether it is
  // inside [0, width).
  Value lane = arith::IndexCastOp::create(b, l, b.getI32Type(), laneId());
  Value offset = op.getOffset(), width = op.getWidth();
  Value last = arith::SubIOp::create(b, l, width, i32Const(b, l, 1));
  Value src;
  Value srcValid;
  using P = arith::CmpIPredicate;
  switch (op.getMode()) {
  case gpu::ShuffleMode::XOR:
    src = arith::XOrIOp::create(b, l, lane, offset);
    break;
  case gpu::ShuffleMode::DOWN:
    src = arith::AddIOp::create(b, l, lane, offset);
    break;
  case gpu::ShuffleMode::UP:
    src = arith::SubIOp::create(b, l, lane, offset);
    srcValid = arith::CmpIOp::create(b, l, P::sge, src, i32Const(b, l, 0));
    break;
  case gpu::ShuffleMode::IDX:
    src = offset;
    break;
  }
  if (!srcValid)
    srcValid = arith::CmpIOp::create(b, l, P::ule, src, last);
  Value laneValid = arith::CmpIOp::create(b, l, P::ult, lane, width);
  Value valid = arith::AndIOp::create(b, l, srcValid, laneValid);
  Value srcIndex = arith::IndexCastOp::create(b, l, b.getIndexType(), src);
  auto [result, resultValid] = exchange(b, op, *buf, srcIndex, valid, width);
  op.getShuffleResult().replaceAllUsesWith(result);
  op.getValid().replaceAllUsesWith(resultValid);
  op.erase();
  return success();
}

LogicalResult BodyLowering::lowerRotate(gpu::RotateOp op) {
  OpBuilder b(op);
  Location l = op.getLoc();
  FailureOr<Value> buf = scratch(b, op, op.getValue().getType());
  if (failed(buf))
    return failure();
  int64_t width = op.getWidth(), offset = op.getOffset();
  Value widthValue = i32Const(b, l, width);
  memref::StoreOp::create(b, l, op.getValue(), *buf, linearThreadId());
  warpSync(b, op, widthValue);
  // ((lane + offset) & (width - 1)) + (lane & ~(width - 1))
  Value lane = laneId();
  Value rotated = arith::AndIOp::create(
      b, l, arith::AddIOp::create(b, l, lane, indexConst(b, l, offset)),
      indexConst(b, l, width - 1));
  Value group = arith::AndIOp::create(b, l, lane, indexConst(b, l, ~(width - 1)));
  Value src = arith::AddIOp::create(b, l, rotated, group);
  Value valid = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, lane,
                                      indexConst(b, l, width));
  auto [result, resultValid] = exchange(b, op, *buf, src, valid, widthValue);
  op.getRotateResult().replaceAllUsesWith(result);
  op.getValid().replaceAllUsesWith(resultValid);
  op.erase();
  return success();
}

LogicalResult BodyLowering::lowerBroadcast(gpu::SubgroupBroadcastOp op) {
  OpBuilder b(op);
  Location l = op.getLoc();
  Type type = op.getSrc().getType();
  if (!type.isIntOrIndexOrFloat() && !isa<VectorType>(type))
    return op.emitOpError("on ") << type << " is not supported by the CPU "
                                            "emulation";
  FailureOr<Value> buf = scratch(b, op, type);
  if (failed(buf))
    return failure();
  Value width = i32Const(b, l, EXT_EMU_WARP_SIZE);
  memref::StoreOp::create(b, l, op.getSrc(), *buf, linearThreadId());
  Value mask = warpSync(b, op, width);
  Value src;
  if (op.getBroadcastType() == gpu::BroadcastType::first_active_lane) {
    // The lowest lane that took part in the rendezvous.
    Value first = math::CountTrailingZerosOp::create(b, l, mask);
    src = arith::IndexCastOp::create(b, l, b.getIndexType(), first);
  } else {
    src = arith::IndexCastUIOp::create(b, l, b.getIndexType(), op.getLane());
  }
  Value valid = arith::ConstantIntOp::create(b, l, b.getI1Type(), 1);
  Value result = exchange(b, op, *buf, src, valid, width).first;
  op.getResult().replaceAllUsesWith(result);
  op.erase();
  return success();
}

LogicalResult BodyLowering::lowerSubgroupReduce(gpu::SubgroupReduceOp op) {
  OpBuilder b(op);
  Location l = op.getLoc();
  Value value = op.getValue();
  FailureOr<Value> buf = scratch(b, op, value.getType());
  if (failed(buf))
    return failure();
  int64_t size = op.getClusterSize().value_or(EXT_EMU_WARP_SIZE);
  int64_t stride = op.getClusterStride();
  memref::StoreOp::create(b, l, value, *buf, linearThreadId());
  Value mask = warpSync(b, op, i32Const(b, l, EXT_EMU_WARP_SIZE));
  // The cluster's first lane: (lane % stride) + lane / (size*stride) * span.
  Value lane = laneId();
  Value span = indexConst(b, l, size * stride);
  Value base = arith::AddIOp::create(
      b, l, arith::RemUIOp::create(b, l, lane, indexConst(b, l, stride)),
      arith::MulIOp::create(b, l, arith::DivUIOp::create(b, l, lane, span),
                            span));
  // Combine the cluster's lanes that took part, in lane order, so every lane
  // of the cluster computes the same bits.
  Value falseValue = arith::ConstantIntOp::create(b, l, b.getI1Type(), 0);
  auto loop = scf::ForOp::create(b, l, indexConst(b, l, 0),
                                 indexConst(b, l, size), indexConst(b, l, 1),
                                 ValueRange{value, falseValue});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value acc = loop.getRegionIterArgs()[0];
    Value have = loop.getRegionIterArgs()[1];
    Value member = arith::AddIOp::create(
        b, l, base,
        arith::MulIOp::create(b, l, loop.getInductionVar(),
                              indexConst(b, l, stride)));
    Value member64 = arith::IndexCastOp::create(b, l, b.getI64Type(), member);
    Value bit = arith::AndIOp::create(
        b, l, arith::ShRUIOp::create(b, l, mask, member64),
        arith::ConstantIntOp::create(b, l, b.getI64Type(), 1));
    Value present = arith::CmpIOp::create(
        b, l, arith::CmpIPredicate::ne, bit,
        arith::ConstantIntOp::create(b, l, b.getI64Type(), 0));
    auto ifOp = scf::IfOp::create(
        b, l, present,
        [&](OpBuilder &tb, Location tl) {
          Value slot = arith::AddIOp::create(tb, tl, warpBase(), member);
          Value x = memref::LoadOp::create(tb, tl, *buf, slot);
          Value combined = combine(tb, tl, op.getOp(), acc, x);
          Value next = arith::SelectOp::create(tb, tl, have, combined, x);
          Value trueValue =
              arith::ConstantIntOp::create(tb, tl, tb.getI1Type(), 1);
          scf::YieldOp::create(tb, tl, ValueRange{next, trueValue});
        },
        [&](OpBuilder &eb, Location el) {
          scf::YieldOp::create(eb, el, ValueRange{acc, have});
        });
    scf::YieldOp::create(b, l, ifOp.getResults());
  }
  warpSync(b, op, i32Const(b, l, EXT_EMU_WARP_SIZE));
  op.replaceAllUsesWith(loop.getResult(0));
  op.erase();
  return success();
}

//===----------------------------------------------------------------------===//
// Everything else in a kernel
//===----------------------------------------------------------------------===//

LogicalResult BodyLowering::lowerPrintf(gpu::PrintfOp op) {
  OpBuilder b(op);
  Location l = op.getLoc();
  // C's default argument promotions, as varargs need them.
  SmallVector<Value> args = {
      emu.stringPtr(b, l, "__ext_emu_printf_format", op.getFormat())};
  for (Value arg : op.getArgs()) {
    Type type = arg.getType();
    if (type.isIndex()) {
      arg = arith::IndexCastOp::create(b, l, b.getI64Type(), arg);
    } else if (auto intType = dyn_cast<IntegerType>(type)) {
      if (intType.getWidth() == 1)
        arg = arith::ExtUIOp::create(b, l, b.getI32Type(), arg);
      else if (intType.getWidth() < 32)
        arg = arith::ExtSIOp::create(b, l, b.getI32Type(), arg);
      else if (intType.getWidth() > 64)
        return op.emitOpError("argument of type ")
               << type << " cannot be printed by the CPU emulation";
    } else if (auto floatType = dyn_cast<FloatType>(type)) {
      if (floatType.getWidth() < 64)
        arg = arith::ExtFOp::create(b, l, b.getF64Type(), arg);
      else if (floatType.getWidth() > 64)
        return op.emitOpError("argument of type ")
               << type << " cannot be printed by the CPU emulation";
    }
    args.push_back(arg);
  }
  auto printf = emu.symbols.lookup<LLVM::LLVMFuncOp>("printf");
  if (!printf) {
    OpBuilder mb = OpBuilder::atBlockBegin(emu.module.getBody());
    printf = LLVM::LLVMFuncOp::create(
        mb, l, "printf",
        LLVM::LLVMFunctionType::get(mb.getI32Type(), {emu.ptrType()},
                                    /*isVarArg=*/true));
    emu.symbols.insert(printf);
  }
  LLVM::CallOp::create(b, l, printf, args);
  op.erase();
  return success();
}

LogicalResult BodyLowering::lowerWorkgroupAlloc(Operation *op,
                                                MemRefType type) {
  if (!kernel)
    return op->emitOpError("allocates workgroup memory outside a kernel; the "
                           "CPU emulation gives workgroup memory to kernels "
                           "only");
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return op->emitOpError("of workgroup memory needs a static shape and the "
                           "identity layout on the CPU emulation (use "
                           "gpu.dynamic_shared_memory for sizes known at "
                           "launch)");
  // One slot of the block's workgroup memory per op, as for a __shared__
  // declaration: every thread (and every execution) gets the same bytes.
  OpBuilder b(op);
  int64_t offset = kernel->allocateShared(
      bufferName("'" + op->getName().getStringRef() + "' buffer",
                 withoutMemorySpace(type), op->getLoc()),
      type.getNumElements() * emu.byteSize(type.getElementType()));
  Value ptr = LLVM::GEPOp::create(
      b, op->getLoc(), emu.ptrType(), b.getI8Type(),
      entryPtr(EXT_EMU_SHARED_BASE), ArrayRef<LLVM::GEPArg>{int32_t(offset)});
  op->getResult(0).replaceAllUsesWith(emu.memrefAt(b, op->getLoc(), type, ptr));
  op->erase();
  return success();
}

LogicalResult BodyLowering::lowerOp(Operation *op) {
  auto dimOf = [](gpu::Dimension d) { return int(d); };
  auto replace = [&](Value v) {
    op->getResult(0).replaceAllUsesWith(v);
    op->erase();
    return success();
  };
  // Outlining materializes every id of gpu.launch; skip the unused ones
  // rather than query the runtime for them in every thread.
  if (isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp,
          gpu::GlobalIdOp, gpu::LaneIdOp, gpu::SubgroupIdOp,
          gpu::NumSubgroupsOp, gpu::SubgroupSizeOp>(op) &&
      op->use_empty()) {
    op->erase();
    return success();
  }
  if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
    return replace(threadId(dimOf(id.getDimension())));
  if (auto id = dyn_cast<gpu::BlockIdOp>(op))
    return replace(query(EXT_EMU_BLOCK_ID, dimOf(id.getDimension())));
  if (auto dim = dyn_cast<gpu::BlockDimOp>(op))
    return replace(blockDim(dimOf(dim.getDimension())));
  if (auto dim = dyn_cast<gpu::GridDimOp>(op))
    return replace(query(EXT_EMU_GRID_DIM, dimOf(dim.getDimension())));
  if (auto id = dyn_cast<gpu::GlobalIdOp>(op)) {
    int d = dimOf(id.getDimension());
    OpBuilder b(op);
    Value v = arith::AddIOp::create(
        b, op->getLoc(), threadId(d),
        arith::MulIOp::create(b, op->getLoc(), query(EXT_EMU_BLOCK_ID, d),
                              blockDim(d)));
    return replace(v);
  }
  if (isa<gpu::LaneIdOp>(op))
    return replace(laneId());
  if (isa<gpu::SubgroupSizeOp>(op)) {
    OpBuilder b(op);
    return replace(indexConst(b, op->getLoc(), EXT_EMU_WARP_SIZE));
  }
  if (isa<gpu::SubgroupIdOp>(op)) {
    OpBuilder b(op);
    return replace(arith::DivUIOp::create(
        b, op->getLoc(), linearThreadId(),
        indexConst(b, op->getLoc(), EXT_EMU_WARP_SIZE)));
  }
  if (isa<gpu::NumSubgroupsOp>(op)) {
    OpBuilder b(op);
    return replace(arith::CeilDivUIOp::create(
        b, op->getLoc(), blockThreads(),
        indexConst(b, op->getLoc(), EXT_EMU_WARP_SIZE)));
  }
  if (isa<gpu::BarrierOp>(op)) {
    OpBuilder b(op);
    barrier(b, op);
    op->erase();
    return success();
  }
  if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op))
    return lowerShuffle(shuffle);
  if (auto rotate = dyn_cast<gpu::RotateOp>(op))
    return lowerRotate(rotate);
  if (auto broadcast = dyn_cast<gpu::SubgroupBroadcastOp>(op))
    return lowerBroadcast(broadcast);
  if (auto reduce = dyn_cast<gpu::SubgroupReduceOp>(op))
    return lowerSubgroupReduce(reduce);
  if (auto printf = dyn_cast<gpu::PrintfOp>(op))
    return lowerPrintf(printf);
  if (auto dyn = dyn_cast<gpu::DynamicSharedMemoryOp>(op)) {
    OpBuilder b(op);
    Location l = op->getLoc();
    auto type = cast<MemRefType>(dyn.getType());
    Type descType = emu.converter.convertType(withoutMemorySpace(type));
    Value ptr = entryPtr(EXT_EMU_DYNAMIC_SHARED_BASE);
    Value size = emu.call(b, l, EXT_EMU_DYNAMIC_SHARED_SIZE, {b.getI64Type()},
                          {});
    MemRefDescriptor desc = MemRefDescriptor::poison(b, l, descType);
    desc.setAllocatedPtr(b, l, ptr);
    desc.setAlignedPtr(b, l, ptr);
    desc.setConstantOffset(b, l, 0);
    desc.setSize(b, l, 0, size);
    desc.setConstantStride(b, l, 0, 1);
    return replace(
        UnrealizedConversionCastOp::create(b, l, type, Value(desc))
            .getResult(0));
  }
  if (isa<memref::AllocOp, memref::AllocaOp>(op))
    return lowerWorkgroupAlloc(op, cast<MemRefType>(op->getResult(0).getType()));
  if (isa<memref::DeallocOp>(op)) {
    op->erase(); // workgroup memory lives as long as the block
    return success();
  }
  if (isa<gpu::ReturnOp>(op)) {
    OpBuilder b(op);
    func::ReturnOp::create(b, op->getLoc(), op->getOperands());
    op->erase();
    return success();
  }
  return op->emitOpError("is not supported by the CPU emulation of GPU "
                         "kernels");
}

LogicalResult BodyLowering::run() {
  // Reject what cannot run before changing anything.
  WalkResult targetSpecific = func.walk([&](Operation *op) {
    if (isTargetSpecific(op)) {
      op->emitOpError("is specific to one GPU target and cannot run on the "
                      "CPU emulation");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (targetSpecific.wasInterrupted())
    return failure();
  if (failed(instrumentAccesses()) || failed(lowerAtomics()))
    return failure();
  nameWorkgroupViews();
  // all_reduce first: its region is inlined and may hold other gpu ops.
  SmallVector<gpu::AllReduceOp> reductions;
  func.walk([&](gpu::AllReduceOp op) { reductions.push_back(op); });
  for (gpu::AllReduceOp op : reductions)
    if (failed(lowerAllReduce(op)))
      return failure();
  SmallVector<Operation *> work;
  func.walk([&](Operation *op) {
    bool workgroupMemref =
        isa<memref::AllocOp, memref::AllocaOp>(op) &&
        isWorkgroup(op->getResult(0).getType());
    bool workgroupDealloc = isa<memref::DeallocOp>(op) &&
                            isWorkgroup(op->getOperand(0).getType());
    if (isa_and_nonnull<gpu::GPUDialect>(op->getDialect()) || workgroupMemref ||
        workgroupDealloc)
      work.push_back(op);
  });
  for (Operation *op : work)
    if (failed(lowerOp(op)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// gpu.module -> host functions
//===----------------------------------------------------------------------===//

FailureOr<func::FuncOp> Emulation::convertGpuFunc(gpu::GPUFuncOp gpuFunc,
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
    if (!sharedBase)
      sharedBase = call(eb, loc, EXT_EMU_SHARED_BASE, {ptrType()}, {});
    int64_t offset = kernel->allocateShared(
        bufferName("workgroup buffer " + Twine(index), withoutMemorySpace(type),
                   arg.getLoc()),
        type.getNumElements() * byteSize(type.getElementType()));
    Value ptr = LLVM::GEPOp::create(eb, loc, ptrType(), eb.getI8Type(),
                                    sharedBase,
                                    ArrayRef<LLVM::GEPArg>{int32_t(offset)});
    arg.replaceAllUsesWith(memrefAt(eb, loc, type, ptr));
  }
  for (BlockArgument arg : privates) {
    auto type = cast<MemRefType>(arg.getType());
    arg.replaceAllUsesWith(memref::AllocaOp::create(eb, loc, type));
  }
  entry.eraseArguments(numInputs, entry.getNumArguments() - numInputs);
  return func;
}

LogicalResult Emulation::lowerGpuModule(gpu::GPUModuleOp gpuModule) {
  siteTables.push_back(std::make_unique<SiteTable>());
  SiteTable &sites = *siteTables.back();
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
        kernel = &kernels[{moduleName, name}];
        kernel->displayName = name;
        kernel->sites = &sites;
      }
      FailureOr<func::FuncOp> func = convertGpuFunc(gpuFunc, kernel);
      if (failed(func))
        return failure();
      if (kernel)
        kernel->func = *func;
      if (failed(BodyLowering(*this, *func, sites, kernel).run()))
        return failure();
      continue;
    }
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      if (!func.isExternal() &&
          failed(BodyLowering(*this, func, sites, nullptr).run()))
        return failure();
      continue;
    }
    if (isa<memref::GlobalOp, LLVM::GlobalOp, LLVM::LLVMFuncOp>(op))
      continue;
    return op->emitOpError("in a gpu.module is not supported by the CPU "
                           "emulation of GPU kernels");
  }

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
      std::string newName = uniqueName(moduleName + "_" +
                                       symbol.getName().str());
      StringAttr newAttr = StringAttr::get(ctx(), newName);
      if (failed(SymbolTable::replaceAllSymbolUses(op, newAttr, gpuModule)))
        return op->emitOpError("has uses the CPU emulation cannot rename");
      SymbolTable::setSymbolName(op, newAttr);
    }
    op->moveBefore(hostBody, hostBody->end());
    if (symbol)
      symbols.insert(op);
  }
  gpuModule.erase();
  for (auto &[key, kernel] : kernels)
    if (kernel.sites == &sites && failed(buildTrampoline(kernel)))
      return failure();
  return success();
}

/// Converts a packed argument (an LLVM value) to the kernel's type, or back.
Value fromLLVM(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  if (type.isIndex())
    return arith::IndexCastOp::create(b, loc, type, v);
  return UnrealizedConversionCastOp::create(b, loc, type, v).getResult(0);
}
Value toLLVM(OpBuilder &b, Location loc, Value v, Type llvmType) {
  if (v.getType() == llvmType)
    return v;
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, llvmType, v);
  return UnrealizedConversionCastOp::create(b, loc, llvmType, v).getResult(0);
}

Type packedType(const LLVMTypeConverter &converter, Type type) {
  if (auto memref = dyn_cast<MemRefType>(type))
    type = withoutMemorySpace(memref);
  if (auto unranked = dyn_cast<UnrankedMemRefType>(type))
    type = UnrankedMemRefType::get(unranked.getElementType(), Attribute());
  return converter.convertType(type);
}

LogicalResult Emulation::buildTrampoline(KernelInfo &kernel) {
  func::FuncOp func = kernel.func;
  Location loc = func.getLoc();
  OpBuilder b(ctx());
  b.setInsertionPointAfter(func);
  auto trampoline = func::FuncOp::create(
      b, loc, uniqueName(func.getName().str() + "_emu_entry"),
      b.getFunctionType({ptrType()}, {}));
  trampoline.setPrivate();
  symbols.insert(trampoline);
  Block *body = trampoline.addEntryBlock();
  b.setInsertionPointToStart(body);
  Value args = body->getArgument(0);
  SmallVector<Value> operands;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    Type llvmType = packedType(converter, type);
    if (!llvmType)
      return func.emitError() << "kernel argument " << i << " of type "
                              << type << " cannot be passed by the CPU "
                                         "emulation";
    Value slotAddr = LLVM::GEPOp::create(b, loc, ptrType(), ptrType(), args,
                                         ArrayRef<LLVM::GEPArg>{int32_t(i)});
    Value slot = LLVM::LoadOp::create(b, loc, ptrType(), slotAddr);
    Value v = LLVM::LoadOp::create(b, loc, llvmType, slot);
    operands.push_back(fromLLVM(b, loc, v, type));
  }
  func::CallOp::create(b, loc, func, operands);
  func::ReturnOp::create(b, loc);
  kernel.trampoline = trampoline;
  return success();
}

//===----------------------------------------------------------------------===//
// Host side
//===----------------------------------------------------------------------===//

std::tuple<Value, Value, Value>
Emulation::describeBuffers(OpBuilder &b, OpBuilder &entry, Location loc,
                           const KernelInfo &kernel, ValueRange operands) {
  std::string names;
  SmallVector<std::array<Value, 3>> ranges;
  auto i64 = [&](Value index) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  };
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                    b.getI64IntegerAttr(v));
  };
  for (const SharedBuffer &buffer : kernel.sharedBuffers) {
    names += buffer.name;
    names.push_back('\0');
    ranges.push_back({constant(EXT_EMU_BUFFER_WORKGROUP),
                      constant(buffer.offset), constant(buffer.bytes)});
  }
  for (auto [i, operand] : llvm::enumerate(operands)) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type)
      continue;
    func::FuncOp func = kernel.func;
    Location argLoc =
        i < func.getNumArguments() ? func.getArgument(i).getLoc() : loc;
    names += bufferName("argument " + Twine(i) + " of @" + kernel.displayName,
                        withoutMemorySpace(type), argLoc);
    names.push_back('\0');
    auto [start, bytes] =
        memrefExtent(b, loc, operand, byteSize(type.getElementType()));
    ranges.push_back({constant(EXT_EMU_BUFFER_GLOBAL), i64(start), i64(bytes)});
  }
  Value count = LLVM::ConstantOp::create(
      entry, loc, entry.getI64Type(),
      entry.getI64IntegerAttr(std::max<size_t>(1, 3 * ranges.size())));
  Value array =
      LLVM::AllocaOp::create(entry, loc, ptrType(), entry.getI64Type(), count);
  for (auto [i, range] : llvm::enumerate(ranges))
    for (auto [j, value] : llvm::enumerate(range)) {
      Value element =
          LLVM::GEPOp::create(b, loc, ptrType(), b.getI64Type(), array,
                              ArrayRef<LLVM::GEPArg>{int32_t(3 * i + j)});
      LLVM::StoreOp::create(b, loc, value, element);
    }
  return {stringPtr(b, loc, "__ext_emu_buffers", names),
          indexConst(b, loc, ranges.size()), array};
}

LogicalResult Emulation::lowerLaunch(gpu::LaunchFuncOp launch) {
  Location loc = launch.getLoc();
  if (launch.getAsyncObject())
    return launch.emitOpError("on a stream object is not supported by the "
                              "CPU emulation");
  if (launch.hasClusterSize())
    return launch.emitOpError("with thread block clusters is not supported "
                              "by the CPU emulation");
  auto it = kernels.find({launch.getKernelModuleName().str(),
                          launch.getKernelName().str()});
  if (it == kernels.end())
    return launch.emitOpError("launches '")
           << launch.getKernel() << "', which is not a gpu.func kernel of "
           << "this module";
  KernelInfo &kernel = it->second;

  OpBuilder b(launch);
  // Argument slots live in the enclosing function's entry block, so a launch
  // in a loop does not grow the stack.
  auto parent = launch->getParentOfType<FunctionOpInterface>();
  OpBuilder entry(ctx());
  if (parent && !parent.getFunctionBody().empty())
    entry.setInsertionPointToStart(&parent.getFunctionBody().front());
  else
    entry.setInsertionPoint(launch);
  Value one = LLVM::ConstantOp::create(entry, loc, entry.getI64Type(),
                                       entry.getI64IntegerAttr(1));
  ValueRange operands = launch.getKernelOperands();
  Value count = LLVM::ConstantOp::create(
      entry, loc, entry.getI64Type(),
      entry.getI64IntegerAttr(std::max<int64_t>(1, operands.size())));
  Value array =
      LLVM::AllocaOp::create(entry, loc, ptrType(), ptrType(), count);
  for (auto [i, operand] : llvm::enumerate(operands)) {
    Type llvmType = packedType(converter, operand.getType());
    if (!llvmType)
      return launch.emitOpError("argument ")
             << i << " of type " << operand.getType()
             << " cannot be passed by the CPU emulation";
    Value slot = LLVM::AllocaOp::create(entry, loc, ptrType(), llvmType, one);
    LLVM::StoreOp::create(b, loc, toLLVM(b, loc, operand, llvmType), slot);
    Value element = LLVM::GEPOp::create(b, loc, ptrType(), ptrType(), array,
                                        ArrayRef<LLVM::GEPArg>{int32_t(i)});
    LLVM::StoreOp::create(b, loc, slot, element);
  }

  auto asIndex = [&](Value v) -> Value {
    if (v.getType().isIndex())
      return v;
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  };
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  Value dynamicShared = launch.getDynamicSharedMemorySize()
                            ? asIndex(launch.getDynamicSharedMemorySize())
                            : indexConst(b, loc, 0);
  Value fn = func::ConstantOp::create(
      b, loc, kernel.trampoline.getFunctionType(),
      FlatSymbolRefAttr::get(kernel.trampoline.getSymNameAttr()));
  auto [bufferNames, bufferCount, bufferRanges] =
      describeBuffers(b, entry, loc, kernel, operands);
  std::string sites = kernel.sites->blob();
  SmallVector<Value> args = {
      stringPtr(b, loc, "__ext_emu_kernel_name", kernel.displayName),
      stringPtr(b, loc, "__ext_emu_launch_site", locationString(loc)),
      stringPtr(b, loc, "__ext_emu_sites", sites),
      indexConst(b, loc, kernel.sites->entries.size()),
      fn,
      array,
      asIndex(grid.x),
      asIndex(grid.y),
      asIndex(grid.z),
      asIndex(block.x),
      asIndex(block.y),
      asIndex(block.z),
      indexConst(b, loc, kernel.staticShared),
      dynamicShared,
      bufferNames,
      bufferCount,
      bufferRanges};
  call(b, loc, EXT_EMU_LAUNCH, {}, args);
  return success();
}

LogicalResult Emulation::lowerHost() {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa_and_nonnull<gpu::GPUDialect>(op->getDialect()))
      ops.push_back(op);
  });
  // Users before producers, so async tokens have no uses left when their
  // producer goes (everything here is synchronous).
  for (Operation *op : llvm::reverse(ops)) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (isa<gpu::LaunchOp>(op))
      return op->emitOpError("must be outlined first: run "
                             "gpu-kernel-outlining before "
                             "ext-gpu-to-cpu-emulation");
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      if (failed(lowerLaunch(launch)))
        return failure();
    } else if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      Value m = memref::AllocOp::create(b, loc, alloc.getMemref().getType(),
                                        alloc.getDynamicSizes(),
                                        alloc.getSymbolOperands());
      alloc.getMemref().replaceAllUsesWith(m);
    } else if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
      memref::DeallocOp::create(b, loc, dealloc.getMemref());
    } else if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
      memref::CopyOp::create(b, loc, copy.getSrc(), copy.getDst());
    } else if (auto memset = dyn_cast<gpu::MemsetOp>(op)) {
      // A loop nest storing the value: works for any layout.
      Value dst = memset.getDst();
      auto type = cast<MemRefType>(dst.getType());
      SmallVector<Value> ivs;
      OpBuilder lb = b;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        Value size = memref::DimOp::create(lb, loc, dst, d);
        auto loop = scf::ForOp::create(lb, loc, indexConst(lb, loc, 0), size,
                                       indexConst(lb, loc, 1));
        ivs.push_back(loop.getInductionVar());
        lb.setInsertionPoint(loop.getBody()->getTerminator());
      }
      memref::StoreOp::create(lb, loc, memset.getValue(), dst, ivs);
    } else if (isa<gpu::HostRegisterOp, gpu::HostUnregisterOp, gpu::WaitOp,
                   gpu::SetDefaultDeviceOp>(op)) {
      // Host memory is device memory and every op is synchronous.
    } else {
      return op->emitOpError("is not supported by the CPU emulation of GPU "
                             "kernels");
    }
    for (Value result : op->getResults()) {
      if (!isa<gpu::AsyncTokenType>(result.getType()))
        continue;
      if (!result.use_empty())
        return op->emitOpError("produces an async token used by '")
               << (*result.getUsers().begin())->getName()
               << "'; the CPU emulation runs gpu ops synchronously and "
                  "cannot pass tokens through it";
    }
    op->dropAllUses();
    op->erase();
  }
  return success();
}

void Emulation::stripMemorySpaces() {
  AttrTypeReplacer replacer;
  replacer.addReplacement([](MemRefType type) -> std::optional<Type> {
    if (!isa_and_nonnull<gpu::AddressSpaceAttr>(type.getMemorySpace()))
      return std::nullopt;
    return withoutMemorySpace(type);
  });
  replacer.addReplacement([](UnrankedMemRefType type) -> std::optional<Type> {
    if (!isa_and_nonnull<gpu::AddressSpaceAttr>(type.getMemorySpace()))
      return std::nullopt;
    return UnrankedMemRefType::get(type.getElementType(), Attribute());
  });
  replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
}

LogicalResult Emulation::run() {
  bool hasGpu = false;
  module.walk([&](Operation *op) {
    if (isa_and_nonnull<gpu::GPUDialect>(op->getDialect())) {
      hasGpu = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (!hasGpu)
    return success();

  SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
  for (gpu::GPUModuleOp gpuModule : gpuModules)
    if (failed(lowerGpuModule(gpuModule)))
      return failure();
  if (failed(lowerHost()))
    return failure();
  stripMemorySpaces();
  module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  return success();
}

bool BodyLowering::instrumentGlobal() { return emu.instrumentGlobal; }

struct GPUToCPUEmulationPass
    : ext::impl::ExtGPUToCPUEmulationBase<GPUToCPUEmulationPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(Emulation(getOperation(), instrumentGlobal).run()))
      signalPassFailure();
  }
};

} // namespace
