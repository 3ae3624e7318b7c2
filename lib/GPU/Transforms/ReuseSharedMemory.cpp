//===- ReuseSharedMemory.cpp - pack workgroup buffers ---------------------===//

#include "ext/Analysis/SharedMemoryLiveness.h"
#include "ext/Analysis/SharedMemoryPacking.h"
#include "ext/Dialect/Ext/Transforms/StageSelect.h"
#include "ext/GPU/Transforms/Passes.h"
#include "ext/GPU/Transforms/Transforms.h"
#include "ext/GPU/WorkgroupAttributions.h"
#include "ext/Support/IndexConstant.h"
#include "ext/Model/Chip.h"
#include "ext/Support/ReportSvg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/FormatVariadic.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUREUSESHAREDMEMORY
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;
using namespace ext;

namespace {

/// The largest workgroup buffer packed: 16 MB, far above any chip's shared
/// memory per block.
constexpr uint64_t kMaxPackedBytes = uint64_t(1) << 24;

StringRef kernelName(Operation *kernel) {
  if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel))
    return func.getName();
  if (auto f = kernel->getParentOfType<FunctionOpInterface>())
    return f.getName();
  return "?";
}

/// The op in `block` that is or contains `op`.
Operation *ancestorIn(Block *block, Operation *op) {
  return block->findAncestorOpInBlock(*op);
}

/// The innermost block containing both ops (through their ancestors).
Block *commonBlock(Operation *a, Operation *b) {
  for (Block *blk = b->getBlock(); blk; blk = blk->getParentOp()
                                                 ? blk->getParentOp()->getBlock()
                                                 : nullptr)
    if (ancestorIn(blk, a))
      return blk;
  return nullptr;
}

/// Packs the workgroup buffers of one kernel.
struct SharedMemoryPacker : ExtGPUReuseSharedMemoryOptions {
  explicit SharedMemoryPacker(const ExtGPUReuseSharedMemoryOptions &options)
      : ExtGPUReuseSharedMemoryOptions(options) {}

  LogicalResult run(Operation *kernel) {
    SharedMemoryLiveness liveness(kernel, minAlignment);
    ArrayRef<LiveSharedBuffer> all = liveness.getBuffers();
    SmallVector<unsigned> ids; // the buffers we place
    for (auto [i, b] : llvm::enumerate(all)) {
      if (b.dynamic) {
        Location loc = isa<BlockArgument>(b.root)
                           ? kernel->getLoc()
                           : b.root.getDefiningOp()->getLoc();
        emitRemark(loc) << "ext-gpu-reuse-shared-memory: leaving " << b.type
                        << " alone: its size is not static";
        continue;
      }
      // Sizes summed and offsets placed below stay far from overflowing;
      // such a buffer fits no chip (ext-gpu-check-resource-limits says so).
      if (b.sizeBytes > kMaxPackedBytes) {
        Location loc = isa<BlockArgument>(b.root)
                           ? kernel->getLoc()
                           : b.root.getDefiningOp()->getLoc();
        emitRemark(loc) << "ext-gpu-reuse-shared-memory: leaving " << b.type
                        << " alone: " << ext::formatBytes(b.sizeBytes)
                        << " is more shared memory than any chip has";
        continue;
      }
      ids.push_back(i);
    }
    if (ids.size() < 2) {
      // Nothing to pack; the footprint is still the kernel's (a lone
      // reduction's scratch, say), for the report and Python.
      uint64_t bytes = ids.empty() ? 0 : all[ids[0]].sizeBytes;
      kernel->setAttr("ext.shared_memory_bytes",
                      Builder(kernel->getContext()).getI64IntegerAttr(bytes));
      drawPacking(kernel, all, ids, std::vector<uint64_t>(ids.size(), 0), bytes,
                  bytes);
      if (report) {
        llvm::errs() << "ext-gpu-reuse-shared-memory: kernel @" << kernelName(kernel)
                     << ": " << ids.size()
                     << " static workgroup buffer(s), nothing to share\n"
                     << "  footprint " << bytes << " B with reuse, " << bytes
                     << " B without\n";
      }
      return success();
    }

    smem::PackingProblem problem;
    problem.interferes.assign(ids.size(), std::vector<bool>(ids.size(), false));
    for (unsigned i = 0; i < ids.size(); ++i) {
      problem.buffers.push_back(
          {all[ids[i]].sizeBytes, all[ids[i]].alignment});
      for (unsigned j = 0; j < i; ++j)
        if (liveness.interfere(ids[i], ids[j]))
          problem.interferes[i][j] = problem.interferes[j][i] = true;
    }
    smem::PackingOptions options;
    options.exactLimit = exactLimit;
    smem::PackingResult result = smem::packBuffers(problem, options);
    if (result.method == smem::PackingMethod::BestFitDecreasing)
      emitRemark(kernel->getLoc())
          << "ext-gpu-reuse-shared-memory: " << ids.size()
          << " buffers in an interference component larger than "
          << exactLimit << ": placed by best-fit decreasing, not proved optimal";

    if (report)
      printReport(kernel, all, ids, result);
    drawPacking(kernel, all, ids, result.offsets, result.total,
                result.naiveSum);

    // Barriers where a buffer takes bytes an earlier one used.
    OpBuilder b(kernel->getContext());
    if (!dropHazardBarriers) {
      for (unsigned i = 0; i < ids.size(); ++i) {
        for (unsigned j = 0; j < ids.size(); ++j) {
          const LiveSharedBuffer &early = all[ids[i]], &late = all[ids[j]];
          if (i == j || !early.isLive() || !late.isLive() ||
              early.end >= late.begin)
            continue;
          uint64_t e0 = result.offsets[i], e1 = e0 + early.sizeBytes;
          uint64_t l0 = result.offsets[j], l1 = l0 + late.sizeBytes;
          if (e1 <= l0 || l1 <= e0)
            continue; // disjoint bytes
          insertHazardBarrier(liveness.getOp(early.end), late.accesses.front());
          // Both in the body of a loop that carries neither: the next
          // iteration's `early` takes the bytes back from this one's `late`.
          for (Operation *loop : early.uncarriedLoops)
            if (llvm::is_contained(late.uncarriedLoops, loop))
              insertBackEdgeBarrier(loop, late.accesses.back(),
                                    early.accesses.front());
        }
      }
    }

    // One i8 buffer; every old buffer a view into it.
    auto space = gpu::AddressSpaceAttr::get(kernel->getContext(),
                                            gpu::AddressSpace::Workgroup);
    auto mergedType = MemRefType::get({static_cast<int64_t>(result.total)},
                                      b.getI8Type(),
                                      MemRefLayoutAttrInterface(), space);
    Value merged =
        ext::addWorkgroupAttribution(kernel, mergedType, kernel->getLoc());
    Block &entry = kernel->getRegion(0).front();
    SmallVector<unsigned> erasedAttributions;
    unsigned firstAttr = ext::firstWorkgroupAttribution(kernel);
    for (auto [slot, id] : llvm::enumerate(ids)) {
      const LiveSharedBuffer &buf = all[id];
      Operation *alloc = buf.root.getDefiningOp();
      if (alloc)
        b.setInsertionPoint(alloc);
      else
        b.setInsertionPointToStart(&entry);
      Location loc = alloc ? alloc->getLoc() : buf.root.getLoc();
      Value offset = constIndex(b, loc, result.offsets[slot]);
      Value view = memref::ViewOp::create(b, loc, buf.type, merged, offset,
                                          ValueRange{});
      Value root = buf.root;
      root.replaceAllUsesWith(view);
      if (alloc) {
        for (Operation *user : llvm::make_early_inc_range(view.getUsers()))
          if (isa<memref::DeallocOp>(user))
            user->erase();
        alloc->erase();
      } else {
        erasedAttributions.push_back(
            cast<BlockArgument>(buf.root).getArgNumber() - firstAttr);
      }
    }
    llvm::sort(erasedAttributions);
    ext::eraseWorkgroupAttributions(kernel, erasedAttributions);
    kernel->setAttr("ext.shared_memory_bytes",
                    b.getI64IntegerAttr(result.total));
    foldStageSelects(kernel, merged);
    return success();
  }

  /// A pipelined k-loop's choice among its stage tiles (StageSelect.h),
  /// now views of `merged` at offsets o + s * d: one view at that offset.
  static void foldStageSelects(Operation *kernel, Value merged) {
    auto tagged = [](Value v) -> arith::SelectOp {
      auto select = v.getDefiningOp<arith::SelectOp>();
      return select && select->hasAttr(kStageSelectAttrName)
                 ? select
                 : arith::SelectOp();
    };
    SmallVector<arith::SelectOp> tops;
    kernel->walk([&](arith::SelectOp select) {
      if (!select->hasAttr(kStageSelectAttrName))
        return;
      bool inner = llvm::any_of(select->getUsers(), [&](Operation *user) {
        auto outer = dyn_cast<arith::SelectOp>(user);
        return outer && outer->hasAttr(kStageSelectAttrName) &&
               outer.getFalseValue() == select.getResult();
      });
      if (!inner)
        tops.push_back(select);
    });
    for (arith::SelectOp top : tops) {
      // select(s == 0, v0, select(s == 1, v1, ... vN-1))
      Value stage;
      SmallVector<Value> leaves;
      Value cur = top.getResult();
      bool ok = true;
      for (int64_t k = 0; arith::SelectOp select = tagged(cur); ++k) {
        auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
        std::optional<int64_t> rhs =
            cmp ? getConstantIntValue(cmp.getRhs()) : std::nullopt;
        if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq ||
            rhs != k || (stage && cmp.getLhs() != stage)) {
          ok = false;
          break;
        }
        stage = cmp.getLhs();
        leaves.push_back(select.getTrueValue());
        cur = select.getFalseValue();
      }
      leaves.push_back(cur);
      if (!ok || !stage || leaves.size() < 2)
        continue;
      // Each leaf is a view of `merged`, or a static reinterpret_cast of one
      // (a padded tile's strides), the same for every leaf.
      SmallVector<int64_t> offsets;
      memref::ReinterpretCastOp cast;
      MemRefType viewType;
      for (Value leaf : leaves) {
        auto leafCast = leaf.getDefiningOp<memref::ReinterpretCastOp>();
        if (leafCast) {
          if (!leafCast.getOffsets().empty() || !leafCast.getSizes().empty() ||
              !leafCast.getStrides().empty() ||
              (cast && (cast.getStaticOffsets() != leafCast.getStaticOffsets() ||
                        cast.getStaticSizes() != leafCast.getStaticSizes() ||
                        cast.getStaticStrides() !=
                            leafCast.getStaticStrides()))) {
            ok = false;
            break;
          }
          cast = leafCast;
          leaf = leafCast.getSource();
        } else if (cast) {
          ok = false;
          break;
        }
        auto view = leaf.getDefiningOp<memref::ViewOp>();
        std::optional<int64_t> offset =
            view ? getConstantIntValue(view.getByteShift()) : std::nullopt;
        if (!view || view.getSource() != merged || !offset ||
            !view.getSizes().empty() ||
            (viewType && view.getType() != viewType)) {
          ok = false;
          break;
        }
        viewType = view.getType();
        offsets.push_back(*offset);
      }
      if (!ok || (cast ? Type(cast.getType()) : Type(viewType)) != top.getType())
        continue;
      int64_t step = offsets[1] - offsets[0];
      for (auto [k, offset] : llvm::enumerate(offsets))
        ok &= offset == offsets[0] + int64_t(k) * step;
      if (!ok)
        continue;
      OpBuilder b(top);
      Location loc = top.getLoc();
      Value at = arith::AddIOp::create(
          b, loc, constIndex(b, loc, offsets[0]),
          arith::MulIOp::create(b, loc, stage, constIndex(b, loc, step)));
      Value view =
          memref::ViewOp::create(b, loc, viewType, merged, at, ValueRange{});
      if (cast)
        view = memref::ReinterpretCastOp::create(
            b, loc, cast.getType(), view, cast.getStaticOffsets().front(),
            cast.getStaticSizes(), cast.getStaticStrides());
      top.getResult().replaceAllUsesWith(view);
      // The chain, now unused (its leaves stay: the prologue uses them).
      for (Value v = top.getResult(); arith::SelectOp select = tagged(v);) {
        v = select.getFalseValue();
        if (select->use_empty())
          select->erase();
      }
    }
  }

  /// A gpu.barrier before `first` unless one already separates it from
  /// `last` in the innermost block holding both.
  void insertHazardBarrier(Operation *last, Operation *first) {
    Block *block = commonBlock(last, first);
    if (!block)
      return;
    Operation *from = ancestorIn(block, last), *to = ancestorIn(block, first);
    for (Operation *op = from->getNextNode(); op && op != to;
         op = op->getNextNode())
      if (isa<gpu::BarrierOp>(op))
        return;
    OpBuilder b(to);
    gpu::BarrierOp::create(b, to->getLoc());
  }

  /// A gpu.barrier at the end of `loop`'s body unless one in the body
  /// already follows `last` (this iteration's last access of one buffer) or
  /// precedes `first` (the next iteration's first access of the other).
  void insertBackEdgeBarrier(Operation *loop, Operation *last,
                             Operation *first) {
    // The block that ends an iteration: the body of an scf.for or of an
    // scf.while (whose condition block then starts the next).
    Block *body = isa<scf::WhileOp>(loop)
                      ? cast<scf::WhileOp>(loop).getAfterBody()
                      : cast<scf::ForOp>(loop).getBody();
    Operation *from = ancestorIn(body, last), *to = ancestorIn(body, first);
    if (!from || !to) {
      OpBuilder b(body->getTerminator());
      gpu::BarrierOp::create(b, loop->getLoc());
      return;
    }
    for (Operation *op = from->getNextNode(); op; op = op->getNextNode())
      if (isa<gpu::BarrierOp>(op))
        return;
    for (Operation *op = to->getPrevNode(); op; op = op->getPrevNode())
      if (isa<gpu::BarrierOp>(op))
        return;
    OpBuilder b(body->getTerminator());
    gpu::BarrierOp::create(b, loop->getLoc());
  }

  /// `--ext-report-svg`: the packing's picture, `<kernel>.smem.svg`.
  void drawPacking(Operation *kernel, ArrayRef<LiveSharedBuffer> all,
                   ArrayRef<unsigned> ids, ArrayRef<uint64_t> offsets,
                   uint64_t total, uint64_t unpacked) {
    if (getReportSvgDirectory().empty())
      return;
    std::vector<PackedBuffer> boxes;
    for (auto [slot, id] : llvm::enumerate(ids)) {
      const LiveSharedBuffer &b = all[id];
      PackedBuffer box;
      llvm::raw_string_ostream ts(box.name);
      ts << b.type;
      box.begin = b.begin;
      box.end = b.end;
      box.offset = offsets[slot];
      box.bytes = b.sizeBytes;
      boxes.push_back(std::move(box));
    }
    std::string name = kernelName(kernel).str();
    std::string error;
    if (writeReportSvg(name + ".smem",
                       packingSvg(boxes, total, unpacked,
                                  "@" + name + ": shared memory"),
                       error)
            .empty())
      kernel->emitWarning() << "--ext-report-svg: " << error;
  }

  void printReport(Operation *kernel, ArrayRef<LiveSharedBuffer> all,
                   ArrayRef<unsigned> ids, const smem::PackingResult &r) {
    llvm::raw_ostream &os = llvm::errs();
    os << "ext-gpu-reuse-shared-memory: kernel @" << kernelName(kernel) << "\n";
    os << llvm::formatv("  {0,-4} {1,-44} {2,8} {3,6} {4,14} {5,8}\n", "#",
                        "buffer", "bytes", "align", "live", "offset");
    for (auto [slot, id] : llvm::enumerate(ids)) {
      const LiveSharedBuffer &b = all[id];
      std::string type;
      llvm::raw_string_ostream ts(type);
      ts << b.type;
      std::string live = b.isLive() ? llvm::formatv("[{0}, {1}]", b.begin, b.end).str()
                                    : std::string("(unused)");
      os << llvm::formatv("  {0,-4} {1,-44} {2,8} {3,6} {4,14} {5,8}\n", slot,
                          type, b.sizeBytes, b.alignment, live,
                          r.offsets[slot]);
    }
    const char *method = r.method == smem::PackingMethod::Exact ? "exact"
                         : r.method == smem::PackingMethod::Trivial
                             ? "trivial"
                             : "best-fit decreasing";
    os << "  total " << r.total << " B, lower bound " << r.lowerBound
       << " B, naive sum " << r.naiveSum << " B, best-fit decreasing "
       << r.bestFitTotal << " B; " << method
       << (r.provedOptimal ? ", proved optimal" : ", not proved optimal");
    if (r.total == r.naiveSum)
      os << "; nothing shared: every buffer interferes with the others";
    os << "\n";
    // The footprint with and without reuse, and why: packed to the largest
    // buffer (the main loop's tiles inside the epilogue's staging tile, say)
    // rather than the sum.
    os << "  footprint " << r.total << " B with reuse, " << r.naiveSum
       << " B without";
    unsigned largest = 0;
    for (unsigned slot = 1; slot < ids.size(); ++slot)
      if (all[ids[slot]].sizeBytes > all[ids[largest]].sizeBytes)
        largest = slot;
    uint64_t largestBytes = all[ids[largest]].sizeBytes;
    if (r.total == r.naiveSum)
      os << " (nothing shared)";
    else if (r.total <= llvm::alignTo(largestBytes, 16))
      os << ": the largest buffer, #" << largest << " (" << largestBytes
         << " B), holds the bytes of all the others: the footprint is the "
            "largest buffer (plus alignment), not the sum";
    else
      os << ": " << r.naiveSum - r.total << " B shared";
    os << "\n";
  }
};

struct ExtGPUReuseSharedMemoryPass
    : ext::impl::ExtGPUReuseSharedMemoryBase<ExtGPUReuseSharedMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> kernels;
    getOperation()->walk([&](Operation *op) {
      if (isa<gpu::LaunchOp>(op) ||
          (isa<gpu::GPUFuncOp>(op) && !cast<gpu::GPUFuncOp>(op).isExternal()))
        kernels.push_back(op);
    });
    ExtGPUReuseSharedMemoryOptions options{report, minAlignment, exactLimit,
                                        dropHazardBarriers};
    for (Operation *k : kernels)
      if (failed(reuseSharedMemory(k, options)))
        return signalPassFailure();
  }
};

} // namespace

LogicalResult ext::reuseSharedMemory(Operation *kernel,
                                     const ExtGPUReuseSharedMemoryOptions &options) {
  if (!isa<gpu::LaunchOp, gpu::GPUFuncOp>(kernel) ||
      kernel->getRegion(0).empty())
    return kernel->emitOpError(
        "is not a kernel: ext-gpu-reuse-shared-memory packs the workgroup buffers "
        "of a gpu.launch or of a gpu.func with a body");
  return SharedMemoryPacker(options).run(kernel);
}
