//===- EmulationBuilder.h - state shared by the emulation lowering -*- C++ -*-===//
//
// What the pattern families of ext-gpu-to-cpu-emulation (and the passes that
// instrument kernels before it) share: the module being lowered with its
// runtime declarations and constant strings, the numbered source locations
// ("sites") the runtime reports, the kernels' workgroup memory layout, and
// per function the runtime queries hoisted to its entry.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_CONVERSION_GPUTOCPUEMULATION_EMULATIONBUILDER_H
#define EXT_CONVERSION_GPUTOCPUEMULATION_EMULATIONBUILDER_H

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/StringMap.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ext {

/// The gpu.module attribute in which passes that run before
/// ext-gpu-to-cpu-emulation (ext-instrument-global-accesses) leave the sites
/// they numbered: an array of strings, indexed by the sites they emitted.
inline constexpr llvm::StringLiteral kEmulationSitesAttrName = "ext.emu_sites";

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

bool isWorkgroupMemRef(mlir::Type type);
/// Device-wide memory: no memory space (or #gpu.address_space<global>), not
/// a block's workgroup memory or a thread's private memory.
bool isGlobalMemRef(mlir::Type type);
mlir::MemRefType withoutMemorySpace(mlir::MemRefType type);

/// `file:line:col (name)` of the first file location inside `loc` (the name
/// of the NameLoc around it, which ext's lowerings use to name the phase an
/// op implements), else the location's text.
std::string emulationLocationString(mlir::Location loc);

/// How race reports name a buffer: `what (type, at file:line:col)`.
std::string emulationBufferName(const llvm::Twine &what, mlir::Type type,
                                mlir::Location loc);

/// The address `ptr` holds, as an i64, for the runtime: the integer an
/// llvm.inttoptr made it from where there is one (an error at `op` if that
/// is not an i64), else its ptrtoint.
mlir::FailureOr<mlir::Value> emuPointerAddress(mlir::OpBuilder &b,
                                               mlir::Operation *op,
                                               mlir::Value ptr);

mlir::Value emuIndexConst(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
mlir::Value emuI32Const(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// The bytes a strided memref covers: its lowest address and its extent (0
/// when it has no elements), from the descriptor at run time.
std::pair<mlir::Value, mlir::Value> emitMemRefExtent(mlir::OpBuilder &b,
                                                     mlir::Location loc,
                                                     mlir::Value memref,
                                                     int64_t elementBytes);

/// The address (as an index) of `memref[indices]`, from its descriptor.
mlir::Value emitElementAddress(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value memref, mlir::ValueRange indices,
                               int64_t elementBytes);

/// A private declaration of a runtime entry point in `symbols`' operation.
mlir::func::FuncOp declareRuntimeFunction(mlir::SymbolTable &symbols,
                                          llvm::StringRef name,
                                          mlir::TypeRange args,
                                          mlir::TypeRange results);

/// Emits, at `b`'s insertion point, the call of __ext_emu_access reporting
/// the access of `accessBytes` at `memref[indices]` (kind and site as the ABI
/// says). `hook` is the declaration of __ext_emu_access to call.
void emitAccessHook(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::func::FuncOp hook, mlir::Value memref,
                    mlir::ValueRange indices, int64_t elementBytes,
                    int64_t accessBytes, int32_t kind, int32_t site);

//===----------------------------------------------------------------------===//
// Sites and kernels
//===----------------------------------------------------------------------===//

/// Source locations of one gpu.module, numbered for the runtime.
struct SiteTable {
  std::vector<std::string> entries;
  llvm::StringMap<int32_t> ids;

  int32_t id(mlir::Location loc);
  /// A site of its own for `op`, named by its location: the emulator pairs
  /// each lane's n-th execution of a site into one warp request, so two
  /// accesses at one location (a tile compute's loads of two buffers) must
  /// not share a site, or lanes that diverge pair one's access with the
  /// other's.
  int32_t idOf(mlir::Operation *op);
  /// The entries, each NUL-terminated.
  std::string blob() const;
  /// The table an instrumentation pass left on `gpuModule` (empty if none).
  static SiteTable fromModule(mlir::gpu::GPUModuleOp gpuModule);
  void saveToModule(mlir::gpu::GPUModuleOp gpuModule) const;
};

/// A named range of a kernel's static workgroup memory.
struct WorkgroupBuffer {
  std::string name;
  int64_t offset, bytes;
};

struct KernelInfo {
  mlir::func::FuncOp func;
  mlir::func::FuncOp trampoline;
  std::string displayName;
  SiteTable *sites = nullptr;
  int64_t staticShared = 0;
  std::vector<WorkgroupBuffer> workgroupBuffers;
  /// A thread's static private memory (its private attributions and static
  /// memref.allocas), saturating: the emulator sizes the fiber stacks by it.
  int64_t privateBytes = 0;

  /// A 16-byte aligned slot of `bytes` after the slots so far, named.
  int64_t allocateShared(std::string name, int64_t bytes);
};

class EmulationFunction;

//===----------------------------------------------------------------------===//
// The module being lowered
//===----------------------------------------------------------------------===//

class EmulationModule {
public:
  explicit EmulationModule(mlir::ModuleOp module);
  ~EmulationModule();

  mlir::ModuleOp getModule() { return module; }
  mlir::SymbolTable &getSymbols() { return symbols; }
  const mlir::LLVMTypeConverter &getTypeConverter() const { return converter; }
  mlir::MLIRContext *getContext() { return module.getContext(); }
  mlir::Type ptrType();

  /// A symbol name not yet taken, `base` or `base_N`.
  std::string uniqueName(llvm::StringRef base);
  /// A call of the runtime entry point `name` (declared on first use).
  mlir::Value call(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                   mlir::TypeRange results, mlir::ValueRange args);
  /// The address of a NUL-terminated constant string (one global per value
  /// and prefix).
  mlir::Value stringPtr(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::StringRef prefix, llvm::StringRef value);
  int64_t byteSize(mlir::Type type);
  /// A memref of static `type` (its memory space ignored) over `ptr`.
  mlir::Value memrefAt(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::MemRefType type, mlir::Value ptr);

  /// The site table of a gpu.module, seeded with what instrumentation passes
  /// left on it.
  SiteTable &createSiteTable(mlir::gpu::GPUModuleOp gpuModule);
  /// The kernel `name` of gpu.module `moduleName` (created on first use).
  KernelInfo &kernel(llvm::StringRef moduleName, llvm::StringRef name);
  KernelInfo *lookupKernel(llvm::StringRef moduleName, llvm::StringRef name);
  std::map<std::pair<std::string, std::string>, KernelInfo> &getKernels() {
    return kernels;
  }

  /// The function whose body the device patterns are lowering now.
  EmulationFunction &function() { return *current; }
  void setFunction(EmulationFunction *f) { current = f; }

private:
  mlir::ModuleOp module;
  mlir::SymbolTable symbols;
  mlir::LLVMTypeConverter converter;
  llvm::StringMap<mlir::LLVM::GlobalOp> strings;
  std::vector<std::unique_ptr<SiteTable>> siteTables;
  std::map<std::pair<std::string, std::string>, KernelInfo> kernels;
  EmulationFunction *current = nullptr;
};

//===----------------------------------------------------------------------===//
// One function being lowered
//===----------------------------------------------------------------------===//

/// Values a device function computes once at its entry (runtime queries and
/// what is derived from them), and the runtime calls its gpu ops become.
class EmulationFunction {
public:
  EmulationFunction(EmulationModule &emu, mlir::func::FuncOp func,
                    SiteTable &sites, KernelInfo *kernel);

  EmulationModule &getModule() { return emu; }
  mlir::func::FuncOp getFunc() { return func; }
  SiteTable &getSites() { return sites; }
  /// The kernel this function is, null for other device functions.
  KernelInfo *getKernel() { return kernel; }

  /// The i32 site number of `op`'s location, as a constant at `b`.
  mlir::Value site(mlir::OpBuilder &b, mlir::Operation *op);

  /// A runtime query (i64 result as index) made once at the entry.
  mlir::Value query(llvm::StringRef name, int dim = -1);
  /// A runtime pointer query made once at the entry.
  mlir::Value entryPtr(llvm::StringRef name);
  /// A pointer to byte `offset` of the block's workgroup memory (a slot
  /// KernelInfo::allocateShared gave).
  mlir::Value sharedSlot(mlir::OpBuilder &b, mlir::Location loc,
                         int64_t offset);

  mlir::Value threadId(int d);
  mlir::Value blockId(int d);
  mlir::Value blockDim(int d);
  mlir::Value gridDim(int d);
  mlir::Value linearThreadId();
  mlir::Value blockThreads();
  /// Lanes per warp, as the launch says (32, or 64 on AMD waves).
  mlir::Value warpSize();
  mlir::Value warpSizeI32(mlir::OpBuilder &b, mlir::Location loc);
  mlir::Value laneId();
  /// The linear id of lane 0 of this thread's warp.
  mlir::Value warpBase();

  /// memref<max block threads x type> over the block's collective scratch;
  /// an error on `op` if a lane's slot cannot hold `type`.
  mlir::FailureOr<mlir::Value> scratch(mlir::OpBuilder &b, mlir::Operation *op,
                                       mlir::Type type);
  /// Meets the lanes below `width` of the warp; returns who took part.
  mlir::Value warpSync(mlir::OpBuilder &b, mlir::Operation *op,
                       mlir::Value width);
  void barrier(mlir::OpBuilder &b, mlir::Operation *op);

private:
  EmulationModule &emu;
  mlir::func::FuncOp func;
  SiteTable &sites;
  KernelInfo *kernel;
  /// Builds at the function entry, after the values made there so far (an
  /// iterator to the block's first op would dangle once it is rewritten).
  struct EntryListener : mlir::OpBuilder::Listener {
    mlir::Operation *last = nullptr;
    void notifyOperationInserted(mlir::Operation *op,
                                 mlir::OpBuilder::InsertPoint) override {
      last = op;
    }
  } entryListener;
  mlir::OpBuilder entry;
  std::map<std::pair<llvm::StringRef, int>, mlir::Value> cache;

  void atEntry();
  mlir::Location loc() { return func.getLoc(); }
  mlir::Value derived(llvm::StringRef name,
                      llvm::function_ref<mlir::Value()> build);
};

/// A pattern of the emulation lowering: it builds through `emu` (and, on
/// device code, `emu.function()`).
template <typename Op>
struct EmulationOpPattern : mlir::OpRewritePattern<Op> {
  EmulationOpPattern(EmulationModule &emu)
      : mlir::OpRewritePattern<Op>(emu.getContext()), emu(emu) {}
  EmulationModule &emu;
};

} // namespace ext

#endif // EXT_CONVERSION_GPUTOCPUEMULATION_EMULATIONBUILDER_H
