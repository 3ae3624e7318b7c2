//===- EmulationBuilder.cpp - state shared by the emulation lowering ------===//

#include "ext/Conversion/GPUToCPUEmulation/EmulationBuilder.h"
#include "ext/Runtime/CpuEmulationABI.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

using namespace mlir;
using namespace ext;
using namespace ext::emu;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// A memref's memory space as the gpu dialect names it. Integer spaces are
/// the targets' numbers (NVVM and AMDGPU agree: 1 global, 3 shared/LDS, 5
/// private), as upstream code writes them (`memref<128x64xf16, 3>`).
static std::optional<gpu::AddressSpace> addressSpaceOf(BaseMemRefType type) {
  Attribute space = type.getMemorySpace();
  if (!space)
    return gpu::AddressSpace::Global;
  if (auto attr = dyn_cast<gpu::AddressSpaceAttr>(space))
    return attr.getValue();
  if (auto number = dyn_cast<IntegerAttr>(space)) {
    switch (number.getInt()) {
    case 0:
    case 1:
      return gpu::AddressSpace::Global;
    case 3:
      return gpu::AddressSpace::Workgroup;
    case 5:
      return gpu::AddressSpace::Private;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

bool ext::isWorkgroupMemRef(Type type) {
  auto memref = dyn_cast<BaseMemRefType>(type);
  return memref && addressSpaceOf(memref) == gpu::AddressSpace::Workgroup;
}

bool ext::isGlobalMemRef(Type type) {
  auto memref = dyn_cast<BaseMemRefType>(type);
  return memref && addressSpaceOf(memref) == gpu::AddressSpace::Global;
}

MemRefType ext::withoutMemorySpace(MemRefType type) {
  return MemRefType::get(type.getShape(), type.getElementType(),
                         type.getLayout(), Attribute());
}

/// The first file location inside `loc` and the name of the first NameLoc
/// on the way to it.
static void findFileLocation(Location loc, std::optional<FileLineColLoc> &file,
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
static std::string fileLocationString(Location loc) {
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

std::string ext::emulationLocationString(Location loc) {
  std::string out = fileLocationString(loc);
  if (out.empty()) {
    llvm::raw_string_ostream os(out);
    loc.print(os);
  }
  return out;
}

std::string ext::emulationBufferName(const Twine &what, Type type,
                                     Location loc) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << what << " (" << type;
  std::string at = fileLocationString(loc);
  if (!at.empty())
    os << ", at " << at;
  os << ")";
  return out;
}

FailureOr<Value> ext::emuPointerAddress(OpBuilder &b, Operation *op,
                                        Value ptr) {
  if (auto cast = ptr.getDefiningOp<LLVM::IntToPtrOp>()) {
    Value addr = cast.getArg();
    if (addr.getType().isInteger(64))
      return addr;
    return op->emitOpError("on a pointer made from a ")
           << addr.getType()
           << ": the CPU emulation's shared addresses are 64-bit (take "
              "nvgpu.mbarrier.get's address as an i64)";
  }
  return Value(LLVM::PtrToIntOp::create(b, op->getLoc(), b.getI64Type(), ptr));
}

Value ext::emuIndexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value ext::emuI32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

std::pair<Value, Value> ext::emitMemRefExtent(OpBuilder &b, Location loc,
                                              Value memref,
                                              int64_t elementBytes) {
  auto md = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value zero = emuIndexConst(b, loc, 0), one = emuIndexConst(b, loc, 1);
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
  Value scale = emuIndexConst(b, loc, elementBytes);
  Value start = arith::AddIOp::create(
      b, loc, base, arith::MulIOp::create(b, loc, low, scale));
  Value bytes = arith::MulIOp::create(b, loc, span, scale);
  if (empty)
    bytes = arith::SelectOp::create(b, loc, empty, zero, bytes);
  return {start, bytes};
}

func::FuncOp ext::declareRuntimeFunction(SymbolTable &symbols, StringRef name,
                                         TypeRange args, TypeRange results) {
  if (auto f = symbols.lookup<func::FuncOp>(name))
    return f;
  Operation *parent = symbols.getOp();
  OpBuilder b = OpBuilder::atBlockBegin(&parent->getRegion(0).front());
  auto f = func::FuncOp::create(b, parent->getLoc(), name,
                                b.getFunctionType(args, results));
  f.setPrivate();
  symbols.insert(f);
  return f;
}

Value ext::emitElementAddress(OpBuilder &b, Location l, Value memref,
                              ValueRange indices, int64_t elementBytes) {
  // addr = aligned base + (offset + sum(index * stride)) * element size.
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, l, memref);
  auto meta = memref::ExtractStridedMetadataOp::create(b, l, memref);
  Value linear = meta.getOffset();
  for (auto [index, stride] : llvm::zip(indices, meta.getStrides()))
    linear = arith::AddIOp::create(
        b, l, linear, arith::MulIOp::create(b, l, index, stride));
  return arith::AddIOp::create(
      b, l, base,
      arith::MulIOp::create(b, l, linear, emuIndexConst(b, l, elementBytes)));
}

void ext::emitAccessHook(OpBuilder &b, Location l, func::FuncOp hook,
                         Value memref, ValueRange indices, int64_t elementBytes,
                         int64_t accessBytes, int32_t kind, int32_t site) {
  Value addr = emitElementAddress(b, l, memref, indices, elementBytes);
  Value addr64 = arith::IndexCastOp::create(b, l, b.getI64Type(), addr);
  Value bytes =
      arith::ConstantIntOp::create(b, l, b.getI64Type(), accessBytes);
  Value kindValue = emuI32Const(b, l, kind);
  Value siteValue = emuI32Const(b, l, site);
  func::CallOp::create(b, l, hook,
                       ValueRange{addr64, bytes, kindValue, siteValue});
}

//===----------------------------------------------------------------------===//
// Sites and kernels
//===----------------------------------------------------------------------===//

int32_t SiteTable::id(Location loc) {
  std::string text = emulationLocationString(loc);
  auto [it, inserted] = ids.try_emplace(text, int32_t(entries.size()));
  if (inserted)
    entries.push_back(text);
  return it->second;
}

int32_t SiteTable::idOf(Operation *op) {
  entries.push_back(emulationLocationString(op->getLoc()));
  return int32_t(entries.size() - 1);
}

std::string SiteTable::blob() const {
  std::string out;
  for (const std::string &e : entries) {
    out += e;
    out.push_back('\0');
  }
  return out;
}

SiteTable SiteTable::fromModule(gpu::GPUModuleOp gpuModule) {
  SiteTable table;
  auto attr = gpuModule->getAttrOfType<ArrayAttr>(kEmulationSitesAttrName);
  if (!attr)
    return table;
  for (Attribute a : attr) {
    std::string text = cast<StringAttr>(a).str();
    table.ids.try_emplace(text, int32_t(table.entries.size()));
    table.entries.push_back(text);
  }
  return table;
}

void SiteTable::saveToModule(gpu::GPUModuleOp gpuModule) const {
  Builder b(gpuModule.getContext());
  SmallVector<Attribute> texts;
  for (const std::string &e : entries)
    texts.push_back(b.getStringAttr(e));
  gpuModule->setAttr(kEmulationSitesAttrName, b.getArrayAttr(texts));
}

int64_t KernelInfo::allocateShared(std::string name, int64_t bytes) {
  int64_t offset = llvm::alignTo(staticShared, 16);
  staticShared = offset + bytes;
  workgroupBuffers.push_back({std::move(name), offset, bytes});
  return offset;
}

//===----------------------------------------------------------------------===//
// EmulationModule
//===----------------------------------------------------------------------===//

EmulationModule::EmulationModule(ModuleOp module)
    : module(module), symbols(module), converter(module.getContext()) {}

EmulationModule::~EmulationModule() = default;

Type EmulationModule::ptrType() {
  return LLVM::LLVMPointerType::get(getContext());
}

std::string EmulationModule::uniqueName(StringRef base) {
  std::string name = base.str();
  for (unsigned i = 0; symbols.lookup(name); ++i)
    name = (base + "_" + Twine(i)).str();
  return name;
}

Value EmulationModule::call(OpBuilder &b, Location loc, StringRef name,
                            TypeRange results, ValueRange args) {
  func::FuncOp f =
      declareRuntimeFunction(symbols, name, args.getTypes(), results);
  auto op = func::CallOp::create(b, loc, f, args);
  return results.empty() ? Value() : op.getResult(0);
}

Value EmulationModule::stringPtr(OpBuilder &b, Location loc, StringRef prefix,
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

int64_t EmulationModule::byteSize(Type type) {
  return int64_t(DataLayout::closest(module).getTypeSize(type));
}

Value EmulationModule::memrefAt(OpBuilder &b, Location loc, MemRefType type,
                                Value ptr) {
  MemRefDescriptor desc = MemRefDescriptor::fromStaticShape(
      b, loc, converter, withoutMemorySpace(type), ptr);
  return UnrealizedConversionCastOp::create(b, loc, type, Value(desc))
      .getResult(0);
}

SiteTable &EmulationModule::createSiteTable(gpu::GPUModuleOp gpuModule) {
  siteTables.push_back(
      std::make_unique<SiteTable>(SiteTable::fromModule(gpuModule)));
  return *siteTables.back();
}

KernelInfo &EmulationModule::kernel(StringRef moduleName, StringRef name) {
  return kernels[{moduleName.str(), name.str()}];
}

KernelInfo *EmulationModule::lookupKernel(StringRef moduleName,
                                          StringRef name) {
  auto it = kernels.find({moduleName.str(), name.str()});
  return it == kernels.end() ? nullptr : &it->second;
}

//===----------------------------------------------------------------------===//
// EmulationFunction
//===----------------------------------------------------------------------===//

EmulationFunction::EmulationFunction(EmulationModule &emu, func::FuncOp func,
                                     SiteTable &sites, KernelInfo *kernel)
    : emu(emu), func(func), sites(sites), kernel(kernel),
      entry(func.getContext(), &entryListener) {}

void EmulationFunction::atEntry() {
  if (entryListener.last)
    entry.setInsertionPointAfter(entryListener.last);
  else
    entry.setInsertionPointToStart(&func.getBody().front());
}

Value EmulationFunction::site(OpBuilder &b, Operation *op) {
  return emuI32Const(b, op->getLoc(), sites.id(op->getLoc()));
}

Value EmulationFunction::query(StringRef name, int dim) {
  Value &v = cache[{name, dim}];
  if (!v) {
    atEntry();
    SmallVector<Value> args;
    if (dim >= 0)
      args.push_back(emuI32Const(entry, loc(), dim));
    Value r = emu.call(entry, loc(), name, {entry.getI64Type()}, args);
    v = arith::IndexCastOp::create(entry, loc(), entry.getIndexType(), r);
  }
  return v;
}

Value EmulationFunction::entryPtr(StringRef name) {
  Value &v = cache[{name, -1}];
  if (!v) {
    atEntry();
    v = emu.call(entry, loc(), name, {emu.ptrType()}, {});
  }
  return v;
}

Value EmulationFunction::sharedSlot(OpBuilder &b, Location l, int64_t offset) {
  return LLVM::GEPOp::create(b, l, emu.ptrType(), b.getI8Type(),
                             entryPtr(EXT_EMU_SHARED_BASE),
                             ArrayRef<LLVM::GEPArg>{int32_t(offset)});
}

Value EmulationFunction::derived(StringRef name, function_ref<Value()> build) {
  if (Value v = cache[{name, -2}])
    return v;
  // `build` makes entry values (each placed after the last one) before the
  // ops combining them, which then follow all of them.
  atEntry();
  Value v = build();
  cache[{name, -2}] = v;
  return v;
}

Value EmulationFunction::threadId(int d) { return query(EXT_EMU_THREAD_ID, d); }
Value EmulationFunction::blockId(int d) { return query(EXT_EMU_BLOCK_ID, d); }
Value EmulationFunction::blockDim(int d) { return query(EXT_EMU_BLOCK_DIM, d); }
Value EmulationFunction::gridDim(int d) { return query(EXT_EMU_GRID_DIM, d); }

Value EmulationFunction::linearThreadId() {
  return derived("linear", [&] {
    Value yz = arith::AddIOp::create(
        entry, loc(), threadId(1),
        arith::MulIOp::create(entry, loc(), blockDim(1), threadId(2)));
    return arith::AddIOp::create(
        entry, loc(), threadId(0),
        arith::MulIOp::create(entry, loc(), blockDim(0), yz));
  });
}

Value EmulationFunction::blockThreads() {
  return derived("threads", [&] {
    return arith::MulIOp::create(
        entry, loc(), blockDim(0),
        arith::MulIOp::create(entry, loc(), blockDim(1), blockDim(2)));
  });
}

Value EmulationFunction::warpSize() { return query(EXT_EMU_WARP_SIZE_QUERY); }

Value EmulationFunction::warpSizeI32(OpBuilder &b, Location l) {
  return arith::IndexCastOp::create(b, l, b.getI32Type(), warpSize());
}

Value EmulationFunction::laneId() {
  return derived("lane", [&] {
    return arith::RemUIOp::create(entry, loc(), linearThreadId(), warpSize());
  });
}

Value EmulationFunction::warpBase() {
  return derived("warpBase", [&] {
    return arith::SubIOp::create(entry, loc(), linearThreadId(), laneId());
  });
}

FailureOr<Value> EmulationFunction::scratch(OpBuilder &b, Operation *op,
                                            Type type) {
  if (emu.byteSize(type) > EXT_EMU_SCRATCH_BYTES_PER_THREAD)
    return op->emitOpError("on a value of ")
           << type << " wider than the emulator's "
           << int64_t(EXT_EMU_SCRATCH_BYTES_PER_THREAD) << "-byte lanes";
  // Each thread owns its EXT_EMU_SCRATCH_BYTES_PER_THREAD bytes whatever
  // the type: warps exchange independently of each other, so one warp's
  // f32 shuffle must not land in another's i64 slots (a warp matrix call's
  // buffer addresses) as a dense view of the narrower type would.
  int64_t stride = EXT_EMU_SCRATCH_BYTES_PER_THREAD / emu.byteSize(type);
  auto memrefType = MemRefType::get(
      {EXT_EMU_MAX_BLOCK_THREADS}, type,
      StridedLayoutAttr::get(b.getContext(), /*offset=*/0, {stride}));
  Value ptr = entryPtr(EXT_EMU_SCRATCH);
  return emu.memrefAt(b, op->getLoc(), memrefType, ptr);
}

Value EmulationFunction::warpSync(OpBuilder &b, Operation *op, Value width) {
  return emu.call(b, op->getLoc(), EXT_EMU_WARP_SYNC, {b.getI64Type()},
                  {site(b, op), width});
}

void EmulationFunction::barrier(OpBuilder &b, Operation *op) {
  emu.call(b, op->getLoc(), EXT_EMU_BARRIER, {}, {site(b, op)});
}
