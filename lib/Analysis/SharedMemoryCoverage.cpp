//===- SharedMemoryCoverage.cpp - loop-carried workgroup buffers ----------===//
//
// The proof is by enumeration, which is exact where it applies: for every
// thread of the (static) block and every iteration of the loops between the
// loop body and an access, the access's indices are evaluated from the
// thread ids, the loops' induction variables and constants (arith and
// affine.apply over them: affine and quasi-affine indices, the copies'
// div/rem and the swizzles' xor included), and its bytes marked. A write
// counts only where every enclosing loop bound and scf.if condition
// evaluates too, so it surely runs (a write under `tid < 16` covers the
// bytes of threads 0-15, no more); a read whose footprint cannot be
// evaluated reads the whole buffer. Anything else (dynamic block sizes,
// values loaded from memory, other region ops, unknown users of the
// buffer) is conservative: the buffer may carry data.
//
//===----------------------------------------------------------------------===//

#include "ext/Analysis/SharedMemoryCoverage.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;

namespace ext {

namespace {

/// Values of the enumeration's free variables at one point.
struct Env {
  std::array<int64_t, 3> tid = {0, 0, 0};
  llvm::DenseMap<Value, int64_t> ivs;
};

/// Evaluates index arithmetic at one point; std::nullopt for anything that
/// is not a function of thread ids, bound induction variables and constants.
class Evaluator {
public:
  Evaluator(Operation *kernel, std::array<int64_t, 3> blockSize)
      : kernel(kernel), blockSize(blockSize) {}

  std::optional<int64_t> eval(Value v, const Env &env, int depth = 0) {
    if (depth > 64)
      return std::nullopt;
    if (std::optional<int64_t> c = getConstantIntValue(v))
      return c;
    if (auto it = env.ivs.find(v); it != env.ivs.end())
      return it->second;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (auto launch = dyn_cast<gpu::LaunchOp>(kernel);
          launch && arg.getOwner() == &launch.getBody().front()) {
        gpu::KernelDim3 t = launch.getThreadIds(), s = launch.getBlockSize();
        Value tids[] = {t.x, t.y, t.z}, sizes[] = {s.x, s.y, s.z};
        for (int d = 0; d < 3; ++d) {
          if (arg == tids[d])
            return env.tid[d];
          if (arg == sizes[d])
            return blockSize[d];
        }
      }
      return std::nullopt;
    }
    Operation *def = v.getDefiningOp();
    auto at = [&](unsigned i) { return eval(def->getOperand(i), env, depth + 1); };
    if (auto tid = dyn_cast<gpu::ThreadIdOp>(def))
      return env.tid[static_cast<int>(tid.getDimension())];
    if (auto dim = dyn_cast<gpu::BlockDimOp>(def))
      return blockSize[static_cast<int>(dim.getDimension())];
    if (auto apply = dyn_cast<affine::AffineApplyOp>(def)) {
      SmallVector<int64_t> operands;
      for (Value o : apply.getMapOperands()) {
        std::optional<int64_t> x = eval(o, env, depth + 1);
        if (!x)
          return std::nullopt;
        operands.push_back(*x);
      }
      AffineMap map = apply.getAffineMap();
      return evalExpr(map.getResult(0), ArrayRef(operands).take_front(map.getNumDims()),
                      ArrayRef(operands).drop_front(map.getNumDims()));
    }
    if (auto select = dyn_cast<arith::SelectOp>(def)) {
      std::optional<int64_t> c = at(0);
      if (!c)
        return std::nullopt;
      return *c ? at(1) : at(2);
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp>(def))
      return at(0);
    if (def->getNumOperands() != 2 || def->getNumResults() != 1)
      return std::nullopt;
    std::optional<int64_t> a = at(0), b = at(1);
    if (!a || !b)
      return std::nullopt;
    int64_t x = *a, y = *b;
    // Overflowing index arithmetic (of indices from the input) is unknown.
    return TypeSwitch<Operation *, std::optional<int64_t>>(def)
        .Case([&](arith::AddIOp) { return llvm::checkedAdd(x, y); })
        .Case([&](arith::SubIOp) { return llvm::checkedSub(x, y); })
        .Case([&](arith::MulIOp) { return llvm::checkedMul(x, y); })
        .Case<arith::DivUIOp, arith::DivSIOp>(
            [&](auto) -> std::optional<int64_t> {
              if (y == 0 || (isa<arith::DivUIOp>(def) && (x < 0 || y < 0)) ||
                  (x == INT64_MIN && y == -1))
                return std::nullopt;
              return x / y;
            })
        .Case<arith::RemUIOp, arith::RemSIOp>(
            [&](auto) -> std::optional<int64_t> {
              if (y == 0 || (isa<arith::RemUIOp>(def) && (x < 0 || y < 0)) ||
                  (x == INT64_MIN && y == -1))
                return std::nullopt;
              return x % y;
            })
        .Case([&](arith::FloorDivSIOp) -> std::optional<int64_t> {
          if (y == 0 || (x == INT64_MIN && y == -1))
            return std::nullopt;
          return llvm::divideFloorSigned(x, y);
        })
        .Case([&](arith::CeilDivSIOp) -> std::optional<int64_t> {
          if (y == 0 || (x == INT64_MIN && y == -1))
            return std::nullopt;
          return llvm::divideCeilSigned(x, y);
        })
        .Case<arith::MinSIOp, arith::MinUIOp>(
            [&](auto) { return std::min(x, y); })
        .Case<arith::MaxSIOp, arith::MaxUIOp>(
            [&](auto) { return std::max(x, y); })
        .Case([&](arith::AndIOp) { return x & y; })
        .Case([&](arith::OrIOp) { return x | y; })
        .Case([&](arith::XOrIOp) { return x ^ y; })
        .Case([&](arith::ShLIOp) -> std::optional<int64_t> {
          if (y < 0 || y > 62)
            return std::nullopt;
          return llvm::checkedMul(x, int64_t(1) << y);
        })
        .Case<arith::ShRUIOp, arith::ShRSIOp>(
            [&](auto) -> std::optional<int64_t> {
              if (y < 0 || y > 62 || x < 0)
                return std::nullopt;
              return x >> y;
            })
        .Case([&](arith::CmpIOp cmp) -> std::optional<int64_t> {
          using P = arith::CmpIPredicate;
          bool unsignedCmp =
              llvm::is_contained({P::ult, P::ule, P::ugt, P::uge},
                                 cmp.getPredicate());
          if (unsignedCmp && (x < 0 || y < 0))
            return std::nullopt;
          switch (cmp.getPredicate()) {
          case P::eq: return x == y;
          case P::ne: return x != y;
          case P::slt: case P::ult: return x < y;
          case P::sle: case P::ule: return x <= y;
          case P::sgt: case P::ugt: return x > y;
          case P::sge: case P::uge: return x >= y;
          }
          return std::nullopt;
        })
        .Default([](Operation *) { return std::nullopt; });
  }

private:
  std::optional<int64_t> evalExpr(AffineExpr e, ArrayRef<int64_t> dims,
                                  ArrayRef<int64_t> syms) {
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      return c.getValue();
    if (auto d = dyn_cast<AffineDimExpr>(e))
      return dims[d.getPosition()];
    if (auto s = dyn_cast<AffineSymbolExpr>(e))
      return syms[s.getPosition()];
    auto bin = cast<AffineBinaryOpExpr>(e);
    std::optional<int64_t> l = evalExpr(bin.getLHS(), dims, syms),
                           r = evalExpr(bin.getRHS(), dims, syms);
    if (!l || !r)
      return std::nullopt;
    switch (e.getKind()) {
    case AffineExprKind::Add: return llvm::checkedAdd(*l, *r);
    case AffineExprKind::Mul: return llvm::checkedMul(*l, *r);
    case AffineExprKind::Mod:
      if (*r <= 0) return std::nullopt;
      return llvm::mod(*l, *r);
    case AffineExprKind::FloorDiv:
      if (*r == 0 || (*l == INT64_MIN && *r == -1)) return std::nullopt;
      return llvm::divideFloorSigned(*l, *r);
    case AffineExprKind::CeilDiv:
      if (*r == 0 || (*l == INT64_MIN && *r == -1)) return std::nullopt;
      return llvm::divideCeilSigned(*l, *r);
    default:
      return std::nullopt;
    }
  }

  Operation *kernel;
  std::array<int64_t, 3> blockSize;
};

/// How an access addresses the buffer: the memref it goes through, its
/// indices, how many elements it moves, and whether it reads or writes.
struct AccessInfo {
  Value memref;
  SmallVector<Value> indices;
  int64_t elements = 1;
  bool write = false;
};

std::optional<AccessInfo> describeAccess(Operation *op) {
  AccessInfo info;
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    info.memref = load.getMemRef();
    info.indices = llvm::to_vector(load.getIndices());
  } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
    info.memref = store.getMemRef();
    info.indices = llvm::to_vector(store.getIndices());
    info.write = true;
  } else if (auto load = dyn_cast<vector::LoadOp>(op)) {
    if (load.getVectorType().getRank() != 1)
      return std::nullopt;
    info.memref = load.getBase();
    info.indices = llvm::to_vector(load.getIndices());
    info.elements = load.getVectorType().getNumElements();
  } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
    if (store.getVectorType().getRank() != 1)
      return std::nullopt;
    info.memref = store.getBase();
    info.indices = llvm::to_vector(store.getIndices());
    info.elements = store.getVectorType().getNumElements();
    info.write = true;
  } else {
    return std::nullopt;
  }
  return info;
}

/// Byte position of element 0 of `memref` in `root`'s storage and its
/// strides (elements); std::nullopt when some step is not static.
struct Addressing {
  int64_t shiftBytes = 0;
  int64_t offset = 0;
  SmallVector<int64_t> strides;
  int64_t elementBytes = 1;
};

std::optional<Addressing> addressing(Value root, Value memref) {
  Addressing a;
  for (Value cur = memref; cur != root;) {
    Operation *def = cur.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
      if (!shift)
        return std::nullopt;
      a.shiftBytes += *shift;
      cur = view.getSource();
      continue;
    }
    if (auto viewLike = dyn_cast<ViewLikeOpInterface>(def)) {
      cur = viewLike.getViewSource();
      continue;
    }
    if (auto cast = dyn_cast<memref::CastOp>(def)) {
      cur = cast.getSource();
      continue;
    }
    return std::nullopt;
  }
  auto type = cast<MemRefType>(memref.getType());
  if (!type.getElementType().isIntOrFloat() ||
      failed(type.getStridesAndOffset(a.strides, a.offset)) ||
      ShapedType::isDynamic(a.offset) ||
      llvm::any_of(a.strides, ShapedType::isDynamic))
    return std::nullopt;
  a.elementBytes =
      std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
  return a;
}

} // namespace

SharedMemoryCoverage::SharedMemoryCoverage(Operation *kernel)
    : kernel(kernel) {
  if (auto launch = dyn_cast<gpu::LaunchOp>(kernel)) {
    std::optional<int64_t> x = getConstantIntValue(launch.getBlockSizeX()),
                           y = getConstantIntValue(launch.getBlockSizeY()),
                           z = getConstantIntValue(launch.getBlockSizeZ());
    if (x && y && z && *x > 0 && *y > 0 && *z > 0)
      blockSize = {*x, *y, *z};
  } else if (auto func = dyn_cast<gpu::GPUFuncOp>(kernel)) {
    if (std::optional<ArrayRef<int32_t>> known = func.getKnownBlockSize())
      blockSize = {(*known)[0], (*known)[1], (*known)[2]};
  }
}

bool SharedMemoryCoverage::enumerate(Value root, uint64_t bufferBytes,
                                     Block *block, Operation *access,
                                     bool mustRun, llvm::BitVector &bytes) {
  std::optional<AccessInfo> info = describeAccess(access);
  if (!info)
    return false;
  std::optional<Addressing> addr = addressing(root, info->memref);
  if (!addr || (info->elements > 1 && addr->strides.back() != 1))
    return false;
  // Enclosing ops between the block and the access, outermost first.
  SmallVector<Operation *> chain;
  for (Operation *p = access->getParentOp();
       p && p->getBlock() && block->findAncestorOpInBlock(*p); p = p->getParentOp()) {
    chain.push_back(p);
    if (p->getBlock() == block)
      break;
  }
  if (!chain.empty() && chain.back()->getBlock() != block)
    return false;
  std::reverse(chain.begin(), chain.end());
  Evaluator evaluator(kernel, *blockSize);
  Env env;
  bool ok = true;
  // Instances of the access under chain[level..] at `env`.
  std::function<void(unsigned)> walk = [&](unsigned level) {
    if (!ok)
      return;
    if (--budget < 0) {
      ok = false;
      return;
    }
    if (level == chain.size()) {
      // Checked: an index or offset far outside the buffer is no byte of it.
      std::optional<int64_t> lin = addr->offset;
      for (auto [idx, stride] : llvm::zip(info->indices, addr->strides)) {
        std::optional<int64_t> i = evaluator.eval(idx, env);
        if (i)
          if (std::optional<int64_t> step = llvm::checkedMul(*i, stride))
            lin = llvm::checkedAdd(*lin, *step);
        if (!i || !lin) {
          ok = false;
          return;
        }
      }
      std::optional<int64_t> begin, end;
      if (std::optional<int64_t> b = llvm::checkedMul(*lin, addr->elementBytes))
        begin = llvm::checkedAdd(addr->shiftBytes, *b);
      if (begin)
        end = llvm::checkedAdd(*begin, info->elements * addr->elementBytes);
      if (!begin || !end || *begin < 0 || *end > int64_t(bufferBytes) ||
          *end > int64_t(bytes.size())) {
        ok = false;
        return;
      }
      bytes.set(*begin, *end);
      return;
    }
    Operation *op = chain[level];
    Operation *inner = level + 1 < chain.size() ? chain[level + 1] : access;
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      std::optional<int64_t> lb = evaluator.eval(forOp.getLowerBound(), env),
                             ub = evaluator.eval(forOp.getUpperBound(), env),
                             step = evaluator.eval(forOp.getStep(), env);
      if (!lb || !ub || !step || *step <= 0) {
        ok = false;
        return;
      }
      for (int64_t iv = *lb; iv < *ub && ok; iv += *step) {
        env.ivs[forOp.getInductionVar()] = iv;
        walk(level + 1);
        if (iv > INT64_MAX - *step)
          break;
      }
      env.ivs.erase(forOp.getInductionVar());
      return;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      bool inThen = ifOp.getThenRegion().isAncestor(inner->getParentRegion());
      std::optional<int64_t> cond = evaluator.eval(ifOp.getCondition(), env);
      if (!cond) {
        // A write that may not run proves nothing; a read that may run
        // counts.
        if (mustRun)
          return;
        walk(level + 1);
        return;
      }
      if ((*cond != 0) == inThen)
        walk(level + 1);
      return;
    }
    ok = false; // other region ops: not modelled
  };
  const std::array<int64_t, 3> &size = *blockSize;
  for (int64_t z = 0; z < size[2] && ok; ++z)
    for (int64_t y = 0; y < size[1] && ok; ++y)
      for (int64_t x = 0; x < size[0] && ok; ++x) {
        env.tid = {x, y, z};
        walk(0);
      }
  return ok;
}

std::optional<llvm::BitVector>
SharedMemoryCoverage::coveredBytes(Value root, uint64_t bufferBytes,
                                   Block *block, ArrayRef<Operation *> writes) {
  if (!blockSize || bufferBytes > kMaxBufferBytes)
    return std::nullopt;
  budget = kBudget;
  llvm::BitVector covered(bufferBytes);
  for (Operation *w : writes) {
    llvm::BitVector bytes(bufferBytes);
    // A write only partly enumerable proves nothing.
    if (enumerate(root, bufferBytes, block, w, /*mustRun=*/true, bytes))
      covered |= bytes;
  }
  return covered;
}

bool SharedMemoryCoverage::selfContained(Value root, uint64_t bufferBytes,
                                         Block *body,
                                         ArrayRef<Operation *> accesses,
                                         std::string &why) {
  // Every read (and every access not known to be a pure write) must sit
  // after one barrier of the body; pure writes before it may cover them.
  auto position = [&](Operation *op) {
    int64_t i = 0;
    for (Operation &o : *body) {
      if (&o == op)
        return i;
      ++i;
    }
    return i;
  };
  int64_t firstRead = INT64_MAX;
  SmallVector<std::pair<Operation *, int64_t>> writes;
  SmallVector<Operation *> reads;
  for (Operation *a : accesses) {
    Operation *top = body->findAncestorOpInBlock(*a);
    std::optional<AccessInfo> info = describeAccess(a);
    if (info && info->write) {
      writes.push_back({a, position(top)});
      continue;
    }
    reads.push_back(a);
    firstRead = std::min(firstRead, position(top));
  }
  if (reads.empty())
    return true; // nothing read: nothing carried
  int64_t barrier = -1, i = 0;
  for (Operation &o : *body) {
    if (i >= firstRead)
      break;
    if (isa<gpu::BarrierOp>(o))
      barrier = i;
    ++i;
  }
  if (barrier < 0) {
    why = "no barrier separates the writes of an iteration from its reads";
    return false;
  }
  SmallVector<Operation *> covering;
  for (auto [w, pos] : writes)
    if (pos < barrier)
      covering.push_back(w);
  std::optional<llvm::BitVector> covered =
      coveredBytes(root, bufferBytes, body, covering);
  if (!covered) {
    why = blockSize ? "the buffer is too large to analyze"
                    : "the block size is not static";
    return false;
  }
  if (covered->all())
    return true;
  llvm::BitVector read(bufferBytes);
  for (Operation *r : reads)
    if (!enumerate(root, bufferBytes, body, r, /*mustRun=*/false, read)) {
      why = "the writes before the barrier do not cover the buffer and a "
            "read's footprint is not known";
      return false;
    }
  read.reset(*covered);
  if (read.any()) {
    why = "byte " + std::to_string(read.find_first()) +
          " is read before any write of the iteration covers it";
    return false;
  }
  return true;
}

bool SharedMemoryCoverage::mayCarry(Value root, uint64_t bufferBytes,
                                    ArrayRef<Operation *> accesses,
                                    Operation *loop,
                                    function_ref<bool(Value)> isUniform,
                                    std::string *why) {
  std::string reason = "not an scf.for or scf.while";
  auto result = [&](bool carried) {
    if (why)
      *why = carried ? reason : std::string();
    return carried;
  };
  if (!isa<scf::ForOp, scf::WhileOp>(loop) || bufferBytes == 0)
    return result(true);
  if (bufferBytes > kMaxBufferBytes) {
    reason = "the buffer is too large to analyze";
    return result(true);
  }
  SmallVector<Operation *> inside;
  for (Operation *a : accesses)
    if (loop->isProperAncestor(a))
      inside.push_back(a);
  if (inside.empty())
    return result(false);
  // The innermost block holding every access inside `loop`: if each of its
  // executions writes what it reads before reading it, no read sees an
  // earlier execution's data, nor an earlier iteration's of any loop
  // around it up to `loop`. That needs the whole block to run it together:
  // only uniform loops and ifs between it and `loop`.
  // (A block of the loop itself runs once per iteration: the body of an
  // scf.for, the condition or the body of an scf.while.)
  Block *block = inside.front()->getBlock();
  while (block->getParentOp() != loop &&
         !llvm::all_of(inside, [&](Operation *a) {
           return block->findAncestorOpInBlock(*a) != nullptr;
         }))
    block = block->getParentOp()->getBlock();
  if (!llvm::all_of(inside, [&](Operation *a) {
        return block->findAncestorOpInBlock(*a) != nullptr;
      })) {
    reason = "the accesses are in both regions of the loop";
    return result(true);
  }
  for (;; block = block->getParentOp()->getBlock()) {
    bool uniformPath = true;
    for (Operation *p = block->getParentOp(); p != loop && uniformPath;
         p = p->getParentOp()) {
      if (auto forOp = dyn_cast<scf::ForOp>(p))
        uniformPath = isUniform(forOp.getLowerBound()) &&
                      isUniform(forOp.getUpperBound()) &&
                      isUniform(forOp.getStep());
      else if (auto ifOp = dyn_cast<scf::IfOp>(p))
        uniformPath = isUniform(ifOp.getCondition());
      else
        uniformPath = false;
    }
    if (uniformPath &&
        selfContained(root, bufferBytes, block, inside, reason))
      return result(false);

    if (block->getParentOp() == loop)
      break;
  }
  return result(true);
}

} // namespace ext
