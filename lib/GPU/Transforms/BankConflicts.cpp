//===- BankConflicts.cpp - worst-case bank conflicts of shared accesses ---===//
//
// For every workgroup-memory access of a kernel, the byte address is built as
// a small expression over the thread id, loop iteration counters and values
// every thread of the block agrees on (block ids, kernel arguments, ...).
// One warp's addresses are then enumerated (every warp of the block, every
// value of a counter that enters the address non-linearly) and costed with
// ext::bank, taking the worst case over the values that enter linearly.
//
// The expressions and their analysis from the IR live in BankAddressExpr.cpp
// and BankAddressAnalysis.cpp (see BankAddress.h).
//
//===----------------------------------------------------------------------===//

#include "BankAddress.h"

#include "ext/Dialect/Ext/IR/Target.h"
#include "ext/Model/BankConflicts.h"
#include "ext/GPU/Transforms/Passes.h"
#include "ext/GPU/Transforms/Transforms.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <numeric>

namespace ext {
#define GEN_PASS_DEF_EXTGPUBANKCONFLICTS
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext::bank_conflicts;

namespace {

/// The bytes every workgroup buffer's start is assumed aligned to (upstream's
/// lowering of workgroup attributions to NVVM/ROCDL globals aligns them so).
constexpr int64_t kBufferAlignment = 16;

//===----------------------------------------------------------------------===//
// The worst case of one access
//===----------------------------------------------------------------------===//

struct Verdict {
  bool known = false;
  std::string why;     // when unknown
  ext::bank::Cost cost;
  std::string pattern; // the byte address, printed
  unsigned bytes = 0;
  int64_t paddingBytes = 0;
};

Verdict worstCase(const Expr &addr, unsigned bytes, unsigned elemBytes,
                  ArrayRef<Symbol> syms, std::array<int64_t, 3> dims,
                  bool dimsKnown, const ext::bank::BankModel &model) {
  Verdict out;
  out.bytes = bytes;
  Linear lin;
  flatten(addr, 1, lin);
  // Symbols that enter linearly only shift the whole warp: their multiples
  // (and the buffer's alignment) give the residues the base can take.
  llvm::SmallSetVector<unsigned, 4> enumerated;
  for (auto &[atom, c] : lin.terms)
    if (atom->kind != Node::Sym && atom->kind != Node::Tid)
      collectSyms(atom, enumerated);
  // Shared memory is far below 2^40 bytes: larger coefficients only come
  // from nonsensical input, and would overflow the costing.
  constexpr int64_t kLimit = int64_t(1) << 40;
  auto tooLarge = [&](int64_t v) { return v > kLimit || v < -kLimit; };
  if (tooLarge(lin.c0) ||
      llvm::any_of(lin.terms, [&](auto &t) { return tooLarge(t.second); })) {
    out.why = "the address has a coefficient beyond any shared memory";
    return out;
  }
  int64_t step = kBufferAlignment;
  SmallVector<std::pair<Expr, int64_t>> laneTerms;
  for (auto &[atom, c] : lin.terms) {
    if (c == 0)
      continue;
    if (atom->kind == Node::Sym && !enumerated.contains(atom->id))
      step = std::gcd(step, c < 0 ? -c : c);
    else
      laneTerms.push_back({atom, c});
  }
  bool usesTid = llvm::any_of(laneTerms, [](auto &t) { return hasTid(t.first); });
  if (usesTid && !dimsKnown) {
    out.why = "the block size is not a known constant";
    return out;
  }
  // Enumerate the symbols inside non-linear terms over their ranges.
  SmallVector<unsigned> enumList(enumerated.begin(), enumerated.end());
  uint64_t combos = 1;
  for (unsigned s : enumList) {
    if (!syms[s].lo || !syms[s].hi || *syms[s].hi < *syms[s].lo) {
      out.why = "'" + syms[s].name +
                "' enters the address non-linearly and its range is unknown";
      return out;
    }
    uint64_t n = uint64_t(*syms[s].hi) - uint64_t(*syms[s].lo);
    combos = n >= 4096 ? 4097 : combos * (n + 1);
    if (combos > 4096) {
      out.why = "too many values of '" + syms[s].name +
                "' enter the address non-linearly";
      return out;
    }
  }
  if (usesTid && (dims[0] > 1024 || dims[1] > 1024 || dims[2] > 1024 ||
                  dims[0] * dims[1] * dims[2] > 1024)) {
    out.why = "a block of more than 1024 threads";
    return out;
  }
  int64_t threads = dims[0] * dims[1] * dims[2];
  unsigned W = model.warpSize;
  int64_t warps = usesTid ? (threads + W - 1) / W : 1;
  Env env;
  env.sym.assign(syms.size(), 0);
  std::vector<int64_t> addrs(W);
  std::vector<char> active(W);
  bool aligned = true;
  for (uint64_t combo = 0; combo < combos; ++combo) {
    uint64_t rest = combo;
    for (unsigned s : enumList) {
      uint64_t n = *syms[s].hi - *syms[s].lo + 1;
      env.sym[s] = *syms[s].lo + int64_t(rest % n);
      rest /= n;
    }
    for (int64_t w = 0; w < warps; ++w) {
      bool full = true;
      for (unsigned l = 0; l < W; ++l) {
        int64_t t = w * W + l;
        active[l] = !usesTid || t < threads;
        full &= bool(active[l]);
        env.tid[0] = t % dims[0];
        env.tid[1] = (t / dims[0]) % dims[1];
        env.tid[2] = t / (dims[0] * dims[1]);
        int64_t a = lin.c0;
        for (auto &[atom, c] : laneTerms)
          a = wrapAdd(a, wrapMul(c, eval(atom, env)));
        if (tooLarge(a)) {
          out.why = "an address beyond any shared memory";
          return out;
        }
        addrs[l] = a;
        if (active[l] && (a % bytes != 0 || step % bytes != 0))
          aligned = false;
      }
      ext::bank::Cost cost;
      int64_t d = addrs[1] - addrs[0];
      bool affine = full;
      for (unsigned l = 2; affine && l < W; ++l)
        affine = addrs[l] - addrs[l - 1] == d;
      if (affine) {
        ext::bank::AffineAccess acc;
        acc.baseResidue = addrs[0];
        acc.baseStep = step;
        acc.laneStride = d;
        acc.bytes = bytes;
        cost = ext::bank::worstCaseAffine(model, acc);
      } else {
        std::vector<int64_t> shifted(W);
        for (int64_t r = 0; r < model.period(); r += std::gcd(step, model.period())) {
          for (unsigned l = 0; l < W; ++l)
            shifted[l] = addrs[l] + r;
          ext::bank::Cost c = ext::bank::countWavefronts(
              model, shifted.data(),
              reinterpret_cast<const bool *>(active.data()), bytes);
          cost.wavefronts = std::max(cost.wavefronts, c.wavefronts);
          cost.phases = std::max(cost.phases, c.phases);
          cost.degree = std::max(cost.degree, c.degree);
        }
      }
      out.cost.wavefronts = std::max(out.cost.wavefronts, cost.wavefronts);
      out.cost.phases = std::max(out.cost.phases, cost.phases);
      out.cost.degree = std::max(out.cost.degree, cost.degree);
    }
  }
  if (bytes > elemBytes && !aligned) {
    out.why = "the " + std::to_string(bytes) +
              "-byte vector access is not provably " + std::to_string(bytes) +
              "-byte aligned (the backend may split it)";
    return out;
  }
  out.known = true;
  return out;
}

bool isWorkgroup(Type t) {
  auto m = dyn_cast<MemRefType>(t);
  return m && gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(m);
}

struct Row {
  std::string access, location;
  Verdict verdict;
};

/// Remarks (and the summary table) for one kernel.
struct Reporter {
  Reporter(const ext::ExtGPUBankConflictsOptions &options,
           const ext::bank::BankModel &model)
      : chip(options.chip), summary(options.summary), model(model) {}

  std::string chip;
  bool summary;
  ext::bank::BankModel model;
  bool hadError = false;

  void signalPassFailure() { hadError = true; }

  void analyzeKernel(Operation *kernel, std::array<int64_t, 3> dims,
                     bool known, const ext::bank::BankModel &model) {
    DataFlowSolver solver;
    solver.load<dataflow::DeadCodeAnalysis>();
    solver.load<dataflow::SparseConstantPropagation>();
    solver.load<dataflow::IntegerRangeAnalysis>();
    if (failed(solver.initializeAndRun(kernel))) {
      kernel->emitError("ext-gpu-bank-conflicts: integer range analysis failed");
      return signalPassFailure();
    }
    std::vector<Row> rows;
    kernel->walk([&](Operation *op) {
      if (op != kernel && isa<gpu::LaunchOp, gpu::GPUFuncOp>(op))
        return;
      Value memref;
      if (auto l = dyn_cast<memref::LoadOp>(op))
        memref = l.getMemRef();
      else if (auto s = dyn_cast<memref::StoreOp>(op))
        memref = s.getMemRef();
      else if (auto l = dyn_cast<vector::LoadOp>(op))
        memref = l.getBase();
      else if (auto s = dyn_cast<vector::StoreOp>(op))
        memref = s.getBase();
      else if (auto a = dyn_cast<memref::AtomicRMWOp>(op))
        memref = a.getMemref();
      else if (auto m = dyn_cast<nvgpu::LdMatrixOp>(op))
        memref = m.getSrcMemref();
      else {
        // Any other op touching workgroup memory is not modelled.
        bool touches = false;
        for (Value o : op->getOperands())
          touches |= isWorkgroup(o.getType());
        auto mem = dyn_cast<MemoryEffectOpInterface>(op);
        if (!touches || (mem && !mem.hasEffect<MemoryEffects::Read>() &&
                         !mem.hasEffect<MemoryEffects::Write>()) ||
            op->hasTrait<OpTrait::IsTerminator>() ||
            isa<ViewLikeOpInterface, memref::CastOp>(op))
          return;
        Verdict v;
        v.why = "'" + op->getName().getStringRef().str() +
                "' is not a modelled access";
        report(op, v, rows);
        return;
      }
      if (!isWorkgroup(memref.getType()))
        return;
      report(op, analyzeAccess(op, memref, kernel, dims, known, solver, model),
             rows);
    });
    if (summary && !rows.empty())
      printSummary(kernel, rows, model);
  }

  Verdict analyzeAccess(Operation *op, Value memref, Operation *kernel,
                        std::array<int64_t, 3> dims, bool known,
                        DataFlowSolver &solver,
                        const ext::bank::BankModel &model) {
    KernelAnalysis ka(kernel, dims, known, solver);
    Verdict v;
    FailureOr<View> view = ka.view(memref);
    if (failed(view)) {
      v.why = "its buffer is " + ka.reason;
      return v;
    }
    // Padding: the elements a padded layout allocates (the outermost
    // extent times its stride, as ext-alloc-shared-to-workgroup allocates)
    // minus those of the view; none to report for a dynamic size (a view
    // the fuzzer wrote) or a product past 64 bits.
    std::optional<int64_t> alloc = 1, elems = 1;
    for (auto [s, st] : llvm::zip(view->sizes, view->strides)) {
      if (ShapedType::isDynamic(s) || ShapedType::isDynamic(st))
        alloc = std::nullopt;
      if (!alloc || !elems)
        break;
      std::optional<int64_t> extent = llvm::checkedMul(s, st);
      alloc = extent ? std::max(*alloc, *extent) : extent;
      elems = llvm::checkedMul(*elems, s);
    }
    std::optional<int64_t> padding;
    if (alloc && elems)
      padding = llvm::checkedMul<int64_t>(*alloc - *elems, view->elemBytes);
    v.paddingBytes = padding.value_or(0);

    unsigned bytes = view->elemBytes;
    SmallVector<Value> indices;
    if (auto l = dyn_cast<memref::LoadOp>(op))
      indices = l.getIndices();
    else if (auto s = dyn_cast<memref::StoreOp>(op))
      indices = s.getIndices();
    else if (auto a = dyn_cast<memref::AtomicRMWOp>(op))
      indices = a.getIndices();
    else if (auto m = dyn_cast<nvgpu::LdMatrixOp>(op)) {
      // Each lane gives the address of one 16-byte row of an 8x8 matrix of
      // 16-bit elements, and the hardware reads a matrix's 8 rows per phase:
      // for the banks, the lanes' 16-byte loads at those addresses (lanes
      // whose address an .x1 or .x2 ignores repeat the used ones).
      indices = m.getIndices();
      if (view->strides.empty() || view->strides.back() != 1) {
        v.why = "ldmatrix rows that are not contiguous";
        return v;
      }
      bytes = 16;
    } else {
      VectorType vt = isa<vector::LoadOp>(op)
                          ? cast<vector::LoadOp>(op).getVectorType()
                          : cast<vector::StoreOp>(op).getVectorType();
      indices = isa<vector::LoadOp>(op) ? cast<vector::LoadOp>(op).getIndices()
                                        : cast<vector::StoreOp>(op).getIndices();
      if (vt.getRank() != 1 || view->strides.empty() ||
          view->strides.back() != 1) {
        v.why = "a vector access that is not one contiguous run";
        return v;
      }
      bytes = vt.getNumElements() * view->elemBytes;
    }
    if (bytes == 0 || bytes > 16 || (bytes & (bytes - 1)) != 0) {
      v.why = "a " + std::to_string(bytes) +
              "-byte access is not one shared-memory instruction";
      return v;
    }
    Expr elem = view->offset;
    for (auto [i, st] : llvm::zip(indices, view->strides)) {
      FailureOr<Expr> e = ka.index(i);
      if (failed(e)) {
        v.why = "its index depends on " + ka.reason;
        return v;
      }
      elem = add(elem, mul(*e, st));
    }
    Expr addr = add(view->base, mul(elem, view->elemBytes));
    Verdict w = worstCase(addr, bytes, view->elemBytes, ka.syms, dims, known,
                          model);
    w.paddingBytes = v.paddingBytes;
    llvm::raw_string_ostream os(w.pattern);
    print(addr, ka.syms, os);
    return w;
  }

  void report(Operation *op, const Verdict &v, std::vector<Row> &rows) {
    InFlightDiagnostic d = op->emitRemark();
    if (!v.known) {
      d << "bank conflicts unknown: " << v.why;
    } else {
      if (v.cost.degree <= 1)
        d << "conflict-free";
      else
        d << v.cost.degree << "-way bank conflict";
      d << ": " << v.cost.wavefronts << " wavefront"
        << (v.cost.wavefronts == 1 ? "" : "s") << " per warp for "
        << v.bytes << "-byte accesses at byte " << v.pattern;
    }
    // "name file:line:col" for the names ext's lowerings give their ops.
    std::string loc;
    llvm::raw_string_ostream os(loc);
    Location l = op->getLoc();
    if (auto named = dyn_cast<NameLoc>(l)) {
      os << named.getName().getValue() << " ";
      l = named.getChildLoc();
    }
    if (auto fl = dyn_cast<FileLineColLoc>(l))
      os << llvm::sys::path::filename(fl.getFilename()) << ":" << fl.getLine()
         << ":" << fl.getColumn();
    else
      os << l;
    rows.push_back({op->getName().getStringRef().str(), loc, v});
  }

  void printSummary(Operation *kernel, ArrayRef<Row> rows,
                    const ext::bank::BankModel &model) {
    std::string name = "gpu.launch";
    if (auto f = dyn_cast<gpu::GPUFuncOp>(kernel))
      name = "@" + f.getName().str();
    else if (auto fn = kernel->getParentOfType<FunctionOpInterface>())
      name = "gpu.launch in @" + fn.getName().str();
    llvm::raw_ostream &os = llvm::errs();
    os << "ext-gpu-bank-conflicts: " << name << " (" << chip << ": "
       << model.banks << " banks x " << model.bankBytes << " B, "
       << model.warpSize << " lanes)\n";
    os << llvm::formatv("  {0,7} {1,10} {2,9}  {3,-13} {4}\n", "n-way",
                        "wavefronts", "padding B", "access", "location");
    unsigned worst = 0, unknown = 0;
    for (const Row &r : rows) {
      std::string nway = r.verdict.known
                             ? std::to_string(std::max(1u, r.verdict.cost.degree))
                             : "unknown";
      std::string wf =
          r.verdict.known ? std::to_string(r.verdict.cost.wavefronts) : "-";
      os << llvm::formatv("  {0,7} {1,10} {2,9}  {3,-13} {4}\n", nway, wf,
                          r.verdict.paddingBytes, r.access, r.location);
      if (r.verdict.known)
        worst = std::max(worst, r.verdict.cost.degree);
      else
        ++unknown;
    }
    os << "  worst: " << std::max(1u, worst) << "-way, "
       << rows.size() << " accesses, " << unknown << " unknown\n";
  }
};

} // namespace

LogicalResult ext::reportBankConflicts(Operation *kernel,
                                       const ExtGPUBankConflictsOptions &options) {
  std::optional<ext::ChipInfo> chip = ext::lookupChipInfo(options.chip);
  std::optional<ext::bank::BankModel> model;
  if (chip)
    model = ext::bank::BankModel::of(*chip);
  if (!model)
    return kernel->emitError()
           << "ext-gpu-bank-conflicts: no bank model for chip '" << options.chip
           << "' (sm_NN for NVIDIA, gfx9NN for AMD CDNA other than gfx950)";
  std::array<int64_t, 3> dims{1, 1, 1};
  bool known = true;
  if (auto launch = dyn_cast<gpu::LaunchOp>(kernel)) {
    Value sizes[] = {launch.getBlockSizeX(), launch.getBlockSizeY(),
                     launch.getBlockSizeZ()};
    for (int d = 0; d < 3; ++d) {
      std::optional<int64_t> c = getConstantIntValue(sizes[d]);
      known &= c.has_value() && *c > 0;
      dims[d] = c.value_or(1);
    }
  } else if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel)) {
    if (func.isExternal())
      return success();
    std::optional<ArrayRef<int32_t>> k = func.getKnownBlockSize();
    known = k.has_value() && k->size() == 3 &&
            llvm::all_of(*k, [](int32_t v) { return v > 0; });
    if (known)
      for (int d = 0; d < 3; ++d)
        dims[d] = (*k)[d];
  } else {
    return kernel->emitError("ext-gpu-bank-conflicts: expected a gpu.launch or a "
                             "gpu.func");
  }
  Reporter reporter(options, *model);
  reporter.analyzeKernel(kernel, dims, known, *model);
  return failure(reporter.hadError);
}

namespace {

struct ExtGPUBankConflictsPass
    : ext::impl::ExtGPUBankConflictsBase<ExtGPUBankConflictsPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<ext::DeviceFacts> device = ext::resolveDevice(
        getOperation(), "ext-gpu-bank-conflicts", chip, 0, ext::kDefaultChip);
    if (failed(device))
      return signalPassFailure();
    if (!ext::bank::BankModel::of(*device->chip)) {
      emitError(getOperation()->getLoc())
          << "ext-gpu-bank-conflicts: no bank model for chip '"
          << device->chip->name
          << "' (sm_NN for NVIDIA, gfx9NN for AMD CDNA other than gfx950)";
      return signalPassFailure();
    }
    ext::ExtGPUBankConflictsOptions options;
    options.chip = device->chip->name;
    options.summary = summary;
    SmallVector<Operation *> kernels;
    getOperation()->walk([&](Operation *op) {
      auto func = dyn_cast<gpu::GPUFuncOp>(op);
      if (isa<gpu::LaunchOp>(op) || (func && func.isKernel()))
        kernels.push_back(op);
    });
    for (Operation *kernel : kernels)
      if (failed(ext::reportBankConflicts(kernel, options)))
        return signalPassFailure();
  }
};

} // namespace
