//===- WarpSpecializedRoles.cpp - a warp-specialized kernel's roles -------===//
//
// The launch side of warp specialization: ext-apply-schedule plans it
// (WarpSpecializedKLoop.cpp builds the ext.warp_specialize op, the
// producer's copies and the consumers' loop); here the kernel's body is
// split into the roles that op names: the mbarriers initialized once per
// CTA, one branch per role with its register budget (setmaxnreg), the
// producer's issuing thread, the consumers' turns under ping-pong, and the
// cluster barrier before exit.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "ext/Model/Chip.h"
#include "ext/Support/IndexConstant.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace ext;
using namespace ext::kernel_to_gpu;

FailureOr<SmallVector<Value>>
KernelEmitter::emitRoleMainloop(OpBuilder &b, Location loc, ValueRange args) {
  Block &block = kernel.getBody().front();
  IRMapping mapping;
  for (auto [from, to] : hoisted->getValueMap())
    mapping.map(from, to);
  mapping.map(block.getArguments(), args);
  Value base = memref::LoadOp::create(b, loc, stepCounter);
  WarpSpecializeOp producer;
  for (Operation &op : block)
    if (auto ws = dyn_cast<WarpSpecializeOp>(op))
      producer = ws;
  auto clone = [&](Operation &op) {
    if (auto pb = dyn_cast<PipelineBaseOp>(op)) {
      mapping.map(pb.getResult(), base);
      return;
    }
    if (!llvm::all_of(op.getResults(),
                      [&](Value r) { return mapping.contains(r); }) ||
        op.getNumResults() == 0)
      b.clone(op, mapping);
  };
  if (role == Role::consumer) {
    std::optional<OpBuilder::InsertionGuard> inTurn;
    if (unitCounter) {
      // The fragments outside the turn's branch (the epilogue's branch
      // reads them), everything else in it.
      for (Operation &op : block)
        if (isa<AllocFragmentOp>(op))
          clone(op);
      Value ordinal = memref::LoadOp::create(b, loc, unitCounter);
      Value one = constIndex(b, loc, 1);
      memref::StoreOp::create(b, loc, arith::AddIOp::create(b, loc, ordinal, one),
                              unitCounter);
      Value turn = arith::RemUIOp::create(b, loc, ordinal,
                                          constIndex(b, loc, groups));
      mine = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, turn,
                                   group);
      auto ifOp = scf::IfOp::create(b, loc, mine, /*withElse=*/false);
      inTurn.emplace(b);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      // The warpgroup's j-th turn waits for the j-th arrival on its order
      // barrier (the (j+1)-th past warpgroup 0, whose first turn is free).
      Value j = arith::DivUIOp::create(b, loc, ordinal,
                                       constIndex(b, loc, groups));
      Value odd = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne,
          arith::RemUIOp::create(b, loc, j, constIndex(b, loc, 2)),
          constIndex(b, loc, 0));
      Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          group, constIndex(b, loc, 0));
      nvgpu::MBarrierTryWaitParityOp::create(
          b, NameLoc::get(b.getStringAttr("wait for the warpgroup's turn"), loc),
          order, arith::XOrIOp::create(b, loc, odd, first),
          constIndex(b, loc, 10000000), group);
    }
    for (Operation &op : block.without_terminator())
      if (&op != producer.getOperation() &&
          !(unitCounter && isa<AllocFragmentOp>(op)))
        clone(op);
    if (unitCounter) {
      // The main loop ends: the next warpgroup's turn.
      Location at = NameLoc::get(b.getStringAttr("pass the turn on"), loc);
      Value tid = gpu::ThreadIdOp::create(b, at, gpu::Dimension::x);
      Value leader = arith::CmpIOp::create(
          b, at, arith::CmpIPredicate::eq,
          arith::RemUIOp::create(b, at, tid, constIndex(b, at, 128)),
          constIndex(b, at, 0));
      Value next = arith::RemUIOp::create(
          b, at, arith::AddIOp::create(b, at, group, constIndex(b, at, 1)),
          constIndex(b, at, groups));
      scf::IfOp::create(b, at, leader, [&](OpBuilder &tb, Location tl) {
        nvgpu::MBarrierArriveOp::create(
            tb, tl, nvgpu::MBarrierTokenType::get(tb.getContext()), order,
            next);
        scf::YieldOp::create(tb, tl);
      });
    }
    auto yield = cast<KernelYieldOp>(block.getTerminator());
    return llvm::map_to_vector(yield.getFragments(), [&](Value v) {
      return mapping.lookupOrDefault(v);
    });
  }
  // The producer: the body's ops its region reads (index math of the
  // tile's coordinates), then the region.
  SetVector<Value> used;
  getUsedValuesDefinedAbove(producer.getRegion(), used);
  llvm::SmallPtrSet<Operation *, 16> needed;
  SmallVector<Value> worklist(used.begin(), used.end());
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != &block || mapping.contains(def->getResult(0)) ||
        !needed.insert(def).second)
      continue;
    if (!isPure(def) && !isa<PipelineBaseOp>(def))
      return emitError(def->getLoc())
             << "the producer warpgroup's part of the work unit reads this "
                "op's result, which only the consumers compute";
    llvm::append_range(worklist, def->getOperands());
  }
  for (Operation &op : block.without_terminator())
    if (needed.contains(&op))
      clone(op);
  for (Operation &op : producer.getRegion().front())
    b.clone(op, mapping);
  return SmallVector<Value>();
}

namespace {

/// Registers per thread of a warp-specialized CTA's roles: the producer
/// warpgroup keeps 40, the consumers share what that frees of the CTA's
/// registers at launch (the kernel's cap, the block's `registers` over the
/// CTA's threads, which ptxas allocates in a kernel that sets its
/// registers).
std::pair<int64_t, int64_t> roleRegisters(int64_t threads, int64_t consumers,
                                          int64_t registers) {
  constexpr int64_t producer = 40;
  auto multipleOf8 = [](int64_t r) { return r / 8 * 8; };
  int64_t atLaunch = std::min<int64_t>(255, registers / threads);
  int64_t pool = multipleOf8(atLaunch) * threads;
  int64_t consumer = multipleOf8((pool - producer * (threads - consumers)) /
                                 consumers);
  return {producer, std::min<int64_t>(consumer, 256)};
}

/// barrier.cluster.arrive and .wait of every thread of the cluster.
void emitClusterBarrier(OpBuilder &b, Location loc) {
  NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
}

} // namespace

/// The main launch's body of a warp-specialized kernel: the per-CTA values
/// and barrier initialization, then one branch per role (the form under
/// which ptxas honors setmaxnreg), each walking the CTA's work units.
LogicalResult
ext::kernel_to_gpu::emitSpecializedRoles(OpBuilder &b, Location loc, KernelOp kernel,
                     WarpSpecializeOp ws, KernelEmitter &emitter,
                     const DeviceFacts &device,
                     function_ref<LogicalResult(OpBuilder &)> walk) {
  Block &body = kernel.getBody().front();
  int64_t threads = kernel.getThreads();
  int64_t consumers = threads - ws.getProducerThreads();
  IRMapping hoisted;
  for (Operation &op : body)
    if (isa<AllocSharedOp, nvgpu::MBarrierCreateOp>(op))
      b.clone(op, hoisted);
  bool pingpong = ws.getPingpong();
  bool clustered = kernel.getClusterSize() > 1;
  int64_t groups = consumers / 128;
  // Ping-pong: the consumer warpgroups' turns, one barrier each.
  Value order;
  if (pingpong)
    order = nvgpu::MBarrierCreateOp::create(
        b, loc,
        nvgpu::MBarrierGroupType::get(
            b.getContext(),
            gpu::AddressSpaceAttr::get(b.getContext(),
                                       gpu::AddressSpace::Workgroup),
            groups));
  Value full = hoisted.lookup(ws.getFull()), empty = hoisted.lookup(ws.getEmpty());
  int64_t stages =
      cast<nvgpu::MBarrierGroupType>(ws.getFull().getType()).getNumBarriers();
  Location initLoc = NameLoc::get(
      b.getStringAttr("mbarriers of the warp-specialized pipeline"), loc);
  Value tid = gpu::ThreadIdOp::create(b, initLoc, gpu::Dimension::x);
  auto c = [&](int64_t v) { return constIndex(b, loc, v); };
  Value first = arith::CmpIOp::create(b, initLoc, arith::CmpIPredicate::eq, tid,
                                      c(0));
  scf::IfOp::create(b, initLoc, first, [&](OpBuilder &tb, Location tl) {
    for (int64_t g = 0; pingpong && g < groups; ++g)
      nvgpu::MBarrierInitOp::create(tb, tl, order, c(1), c(g), Value());
    // Full: the producer's expect_tx; empty: one arrival per consumer
    // warpgroup that reads the stage (ping-pong: the one).
    for (int64_t s = 0; s < stages; ++s) {
      nvgpu::MBarrierInitOp::create(tb, tl, full, c(1), c(s), Value());
      nvgpu::MBarrierInitOp::create(
          tb, tl, empty,
          c((pingpong ? 1 : consumers / 128) * ws.getReleaseCtas()), c(s),
          Value());
    }
    // Peers arrive on these barriers and multicast into them: the inits
    // are made visible to the cluster before the cluster barrier below.
    if (clustered)
      NVVM::FenceMbarrierInitOp::create(tb, tl);
    scf::YieldOp::create(tb, tl);
  });
  gpu::BarrierOp::create(b, initLoc);
  if (clustered)
    emitClusterBarrier(b, initLoc);
  // Each thread counts the k-steps its role ran (and with ping-pong the
  // units): allocas at the start of the kernel's entry block, which LLVM
  // promotes to registers.
  Value counter, units;
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(b.getInsertionBlock());
    auto type = MemRefType::get({}, b.getIndexType());
    counter = memref::AllocaOp::create(b, loc, type);
    if (pingpong)
      units = memref::AllocaOp::create(b, loc, type);
  }
  memref::StoreOp::create(b, loc, c(0), counter);
  if (pingpong)
    memref::StoreOp::create(b, loc, c(0), units);

  // Warp specialization is sm_90a's; without a chip, a block's registers
  // are the model's default (NVIDIA's 64K).
  int64_t registers = device.chip ? device.chip->registersPerBlock
                                  : ChipInfo().registersPerBlock;
  auto [producerRegs, consumerRegs] =
      roleRegisters(threads, consumers, registers);
  Value isConsumer = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, tid, c(consumers));
  auto roles = scf::IfOp::create(b, loc, isConsumer, /*withElse=*/true);
  roles->setAttr(kRoleThreadsAttrName,
                 b.getI64IntegerAttr(pingpong ? 128 : consumers));
  if (pingpong)
    roles->setAttr(kRoleLocalIdsAttrName, b.getUnitAttr());
  LogicalResult result = success();
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(roles.elseBlock()->getTerminator());
    NVVM::SetMaxRegisterOp::create(b, loc, producerRegs,
                                   NVVM::SetMaxRegisterAction::decrease);
    // One thread of the producer warpgroup issues the copies; the others
    // are done.
    Value issuer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                         c(consumers));
    auto ifIssuer = scf::IfOp::create(b, loc, issuer, /*withElse=*/false);
    b.setInsertionPoint(ifIssuer.thenBlock()->getTerminator());
    emitter.specialize(KernelEmitter::Role::producer, &hoisted, counter);
    result = walk(b);
  }
  if (failed(result))
    return failure();
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(roles.thenBlock()->getTerminator());
  NVVM::SetMaxRegisterOp::create(b, loc, consumerRegs,
                                 NVVM::SetMaxRegisterAction::increase);
  emitter.specialize(KernelEmitter::Role::consumer, &hoisted, counter,
                     consumers);
  if (pingpong) {
    // The warpgroup index broadcast from lane 0 (shfl.sync): ptxas then
    // knows the turn's branch uniform in each warp; otherwise it counts the
    // wgmmas under it as divergent and serializes them (C7520).
    Value wg = arith::IndexCastOp::create(
        b, loc, b.getI32Type(), arith::DivUIOp::create(b, loc, tid, c(128)));
    Value uniform =
        gpu::ShuffleOp::create(b, loc, wg, arith::ConstantIntOp::create(b, loc, 0, 32),
                               arith::ConstantIntOp::create(b, loc, 32, 32),
                               gpu::ShuffleMode::IDX)
            .getShuffleResult();
    emitter.takeUnitsInTurn(
        units, arith::IndexCastOp::create(b, loc, b.getIndexType(), uniform),
        groups, order);
  }
  result = walk(b);
  emitter.specialize(KernelEmitter::Role::all, nullptr, Value());
  // No CTA leaves while a peer may still arrive on its barriers or
  // multicast into its shared memory.
  if (clustered) {
    b.setInsertionPointAfter(roles);
    emitClusterBarrier(
        b, NameLoc::get(b.getStringAttr("cluster barrier before exit"), loc));
  }
  return result;
}
