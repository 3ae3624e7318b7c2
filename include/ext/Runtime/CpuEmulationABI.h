//===- CpuEmulationABI.h - ext-gpu-to-cpu-emulation <-> runtime -*- C++ -*-===//
//
// The contract between the code `ext-gpu-to-cpu-emulation` emits and the CPU
// emulation runtime (runtime/cpu, libExtCpuEmulationRuntime.so). Plain C so
// the runtime does not depend on MLIR; the pass spells the same names.
//
// Every entry point except __ext_emu_launch is called by a kernel thread
// (a fiber) while a launch runs; `site` indexes the launch's site table, a
// list of NUL-terminated source locations the pass emits per kernel, so that
// diagnostics and race reports name the op that caused them.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPUEMULATIONABI_H
#define EXT_RUNTIME_CPUEMULATIONABI_H

#include <stdint.h>

#ifdef __cplusplus
namespace ext::emu {
#endif

/// Access kinds passed to __ext_emu_access: an operation, a memory space,
/// whether the access is atomic and, for atomics and fences, their memory
/// ordering. A fence is an access of size 0.
enum AccessKind : int32_t {
  EXT_EMU_LOAD = 1,
  EXT_EMU_STORE = 2,
  EXT_EMU_RMW = 3, // read-modify-write
  EXT_EMU_OP_MASK = 3,
  EXT_EMU_ATOMIC = 4,
  EXT_EMU_FENCE = 8,
  EXT_EMU_WORKGROUP = 16, // gpu.address_space<workgroup>
  EXT_EMU_GLOBAL = 32,    // any other memory
  /// Orderings. An atomic with neither is relaxed (monotonic): it orders
  /// nothing by itself, only together with a fence (C++'s fence rules).
  EXT_EMU_RELEASE = 64,
  EXT_EMU_ACQUIRE = 128,
  EXT_EMU_ACQ_REL = EXT_EMU_RELEASE | EXT_EMU_ACQUIRE,
  /// A read checked against earlier writes but not kept as a reader: a
  /// warpgroup MMA's operand read, which the MMA's completion (which every
  /// thread of the warpgroup waits for) orders before later writes.
  EXT_EMU_UNRECORDED_READ = 256,
};

/// The memory a named buffer range of __ext_emu_launch lies in.
enum BufferSpace : int64_t {
  EXT_EMU_BUFFER_WORKGROUP = 0, // start is a byte offset in workgroup memory
  EXT_EMU_BUFFER_GLOBAL = 1,    // start is an address
  /// Not a range but the kernel's static private memory per thread (start
  /// 0, `bytes` of them): it lives on each thread's fiber stack, which the
  /// launch sizes to hold it, and refuses beyond any GPU's local memory.
  EXT_EMU_BUFFER_PRIVATE = 2,
};

/// Threads per warp (gpu.subgroup_size) unless the launch says otherwise
/// (__ext_emu_warp_size: 64 for AMD CDNA waves), the widest warp, and the
/// largest block.
enum : int32_t {
  EXT_EMU_WARP_SIZE = 32,
  EXT_EMU_MAX_WARP_SIZE = 64,
  EXT_EMU_MAX_BLOCK_THREADS = 1024,
  /// Bytes of per-block collective scratch per thread (the widest value a
  /// shuffle or reduction may carry).
  EXT_EMU_SCRATCH_BYTES_PER_THREAD = 16,
};

#ifdef __cplusplus
} // namespace ext::emu
#endif

// Entry points, in the order the pass uses them. `int64_t` is `index`.
#define EXT_EMU_LAUNCH "__ext_emu_launch"
#define EXT_EMU_THREAD_ID "__ext_emu_thread_id"
#define EXT_EMU_BLOCK_ID "__ext_emu_block_id"
#define EXT_EMU_BLOCK_DIM "__ext_emu_block_dim"
#define EXT_EMU_GRID_DIM "__ext_emu_grid_dim"
#define EXT_EMU_CLUSTER_ID "__ext_emu_cluster_id"
#define EXT_EMU_CLUSTER_DIM "__ext_emu_cluster_dim"
#define EXT_EMU_CLUSTER_BLOCK_ID "__ext_emu_cluster_block_id"
#define EXT_EMU_CLUSTER_DIM_BLOCKS "__ext_emu_cluster_dim_blocks"
#define EXT_EMU_CLUSTER_RANK "__ext_emu_cluster_rank"
#define EXT_EMU_WARP_SIZE_QUERY "__ext_emu_warp_size"
#define EXT_EMU_SHARED_BASE "__ext_emu_shared_base"
#define EXT_EMU_DYNAMIC_SHARED_BASE "__ext_emu_dynamic_shared_base"
#define EXT_EMU_DYNAMIC_SHARED_SIZE "__ext_emu_dynamic_shared_size"
#define EXT_EMU_SCRATCH "__ext_emu_scratch"
#define EXT_EMU_BARRIER "__ext_emu_barrier"
#define EXT_EMU_NAMED_BARRIER "__ext_emu_named_barrier"
#define EXT_EMU_WARP_SYNC "__ext_emu_warp_sync"
#define EXT_EMU_ACCESS "__ext_emu_access"
#define EXT_EMU_NAME_SHARED "__ext_emu_name_shared"
#define EXT_EMU_ASYNC_COPY "__ext_emu_async_copy"
#define EXT_EMU_ASYNC_COMMIT "__ext_emu_async_commit"
#define EXT_EMU_ASYNC_WAIT "__ext_emu_async_wait"
#define EXT_EMU_JOIN "__ext_emu_join"
#define EXT_EMU_ATOMIC_BEGIN "__ext_emu_atomic_begin"
#define EXT_EMU_ATOMIC_END "__ext_emu_atomic_end"
#define EXT_EMU_WAIT "__ext_emu_wait"
#define EXT_EMU_TENSOR_MAP_CREATE "__ext_emu_tensor_map_create"
#define EXT_EMU_MBARRIER_INIT "__ext_emu_mbarrier_init"
#define EXT_EMU_MBARRIER_ARRIVE "__ext_emu_mbarrier_arrive"
#define EXT_EMU_MBARRIER_INVAL "__ext_emu_mbarrier_inval"
#define EXT_EMU_MBARRIER_TRY_WAIT_PARITY "__ext_emu_mbarrier_try_wait_parity"
#define EXT_EMU_TMA_LOAD "__ext_emu_tma_load"
#define EXT_EMU_TMA_LOAD_MULTICAST "__ext_emu_tma_load_multicast"
#define EXT_EMU_MBARRIER_ARRIVE_COUNT "__ext_emu_mbarrier_arrive_count"
#define EXT_EMU_MAPA "__ext_emu_mapa"
#define EXT_EMU_CLUSTER_ARRIVE "__ext_emu_cluster_arrive"
#define EXT_EMU_CLUSTER_WAIT "__ext_emu_cluster_wait"
#define EXT_EMU_TMA_STORE "__ext_emu_tma_store"
#define EXT_EMU_BULK_COMMIT "__ext_emu_bulk_commit"
#define EXT_EMU_BULK_WAIT "__ext_emu_bulk_wait"
#define EXT_EMU_FENCE_PROXY_ASYNC "__ext_emu_fence_proxy_async"
#define EXT_EMU_TRACK_GENERIC_WRITES "__ext_emu_track_generic_writes"

#ifdef __cplusplus
extern "C" {
#endif

/// Runs `trampoline(args)` once per thread of a grid of `g*` blocks of `b*`
/// threads, in thread block clusters of `c*` blocks (1, 1, 1 without
/// clusters; each `g*` a multiple of its `c*`, at most
/// EXT_EMU_MAX_CLUSTER_BLOCKS blocks per cluster): the blocks of a cluster
/// are resident together, and stay so until all of them have finished.
/// `args` points to `numArgs` argument values of `argBytes` bytes
/// each. `sites` holds `numSites` NUL-terminated strings. Each block gets
/// `staticShared` bytes of workgroup memory followed (1024-byte aligned) by
/// `dynamicShared` bytes. `buffers` names `numBuffers` memory ranges
/// (NUL-terminated strings) so that race reports say which buffer a byte
/// belongs to; `bufferRanges` holds a (BufferSpace, start, bytes) triple per
/// name: a byte offset into workgroup memory or an address.
///
/// The grid starts once the `numDeps` events in `deps` (tokens this entry,
/// __ext_emu_join returned; null ones are done) are done. Synchronous
/// (`async` 0), it returns when every thread has finished, and null; an
/// error (deadlock, a thread leaving a barrier others wait at, a bad
/// launch) is reported on stderr and ends the process with status 1,
/// unless __ext_emu_return_errors asked for it to be kept. Asynchronous
/// (`gpu.launch_func async`), it copies the arguments' values and returns
/// at once a token; the grid runs concurrently with the host and with other
/// grids in flight (kernels on different streams can wait on each other),
/// and its error is reported by the wait that first covers it.
void *__ext_emu_launch(const char *kernel, const char *launchSite,
                       const char *sites, int64_t numSites,
                       void (*trampoline)(void **), void **args,
                       int64_t numArgs, const int64_t *argBytes, int64_t gx,
                       int64_t gy, int64_t gz, int64_t bx, int64_t by,
                       int64_t bz, int64_t staticShared,
                       int64_t dynamicShared, const char *buffers,
                       int64_t numBuffers, const int64_t *bufferRanges,
                       void **deps, int64_t numDeps, int32_t async,
                       int64_t cx, int64_t cy, int64_t cz);

/// `gpu.wait async [deps]`: a token done when the `numDeps` tokens are.
void *__ext_emu_join(void **deps, int64_t numDeps);
/// `gpu.wait [deps]`, and what an async gpu op waits for before it runs on
/// the host: returns when the tokens are done (with none, when every grid
/// in flight is), reporting the first error among them and the grids they
/// depend on.
void __ext_emu_wait(void **tokens, int64_t numTokens);
/// Waits for every grid in flight (a host calls it after the entry
/// function: a launch nobody waited for still reports its error).
void __ext_emu_synchronize(void);

/// For hosts that must survive a failed launch (Python): with `on`, a launch
/// error is kept instead of ending the process, the launch returns (its
/// outputs are undefined), later launches return at once, and
/// __ext_emu_take_error hands the message over (NULL when there is none)
/// and clears it. Called from the host thread, outside any launch.
void __ext_emu_return_errors(int32_t on);
const char *__ext_emu_take_error(void);

/// gpu.printf: the calling thread's formatted line, printed on stdout when
/// its block finishes, the lines of a warp in lane order (as NVIDIA hardware
/// prints them: a warp executes one printf for all its lanes).
void __ext_emu_printf(const char *format, ...);
/// A kernel's `cf.assert` that failed: the launch fails with `message`, the
/// thread and the op at `site` (as a GPU's __assertfail stops the kernel).
void __ext_emu_assert_fail(const char *message, int32_t site);
/// A host `cf.assert` that failed. A `guarded` one (its work is skipped, see
/// ext/Support/GuardedAssert.h) fails the call like a launch error where the
/// host keeps errors (the first is kept); any other, or one without such a
/// host, ends the process with its message.
void __ext_emu_host_assert_fail(const char *message, int32_t guarded);

int64_t __ext_emu_thread_id(int32_t dim);
int64_t __ext_emu_block_id(int32_t dim);
int64_t __ext_emu_block_dim(int32_t dim);
int64_t __ext_emu_grid_dim(int32_t dim);
/// Thread block clusters (gpu.cluster_id, gpu.cluster_dim: clusters per
/// grid, gpu.cluster_block_id: the block's coordinates in its cluster,
/// gpu.cluster_dim_blocks: blocks per cluster) and the block's rank in its
/// cluster (%cluster_ctarank: x + y * cx + z * cx * cy of its coordinates).
/// A launch without clusters has clusters of one block.
int64_t __ext_emu_cluster_id(int32_t dim);
int64_t __ext_emu_cluster_dim(int32_t dim);
int64_t __ext_emu_cluster_block_id(int32_t dim);
int64_t __ext_emu_cluster_dim_blocks(int32_t dim);
int64_t __ext_emu_cluster_rank(void);
/// Lanes per warp of the running launch: 32, or 64 where the emulated chip
/// has 64-lane waves (Config::warpSize, EXT_EMU_WARP_SIZE).
int64_t __ext_emu_warp_size(void);

/// The calling thread's block's workgroup memory, its dynamic part and that
/// part's size, and its collective scratch (EXT_EMU_SCRATCH_BYTES_PER_THREAD
/// bytes per thread, indexed by the linear thread id).
void *__ext_emu_shared_base(void);
void *__ext_emu_dynamic_shared_base(void);
int64_t __ext_emu_dynamic_shared_size(void);
void *__ext_emu_scratch(void);

/// gpu.barrier: returns once every thread of the block has arrived.
void __ext_emu_barrier(int32_t site);
/// bar.sync `id`, `count` (nvvm.barrier with both): returns once `count`
/// threads of the block have arrived at barrier `id` (1 to 15; a multiple of
/// the warp size, at most the block). Its threads learn what each other knew
/// of retired warpgroup MMAs; the race detector orders the whole block at it
/// (the threads outside it, a warp-specialized producer, make no ordinary
/// shared-memory accesses).
void __ext_emu_named_barrier(int32_t id, int32_t count, int32_t site);

/// Warp-level rendezvous of the live lanes below `width`; returns the mask of
/// lanes that took part (lanes at or above `width` return at once).
int64_t __ext_emu_warp_sync(int32_t site, int32_t width);

/// Called before every instrumented memory access (a yield point): `addr`,
/// `bytes` and `kind` (AccessKind) describe it, `site` names the op.
void __ext_emu_access(int64_t addr, int64_t bytes, int32_t kind, int32_t site);

/// Names `bytes` of the calling block's workgroup memory at `addr` (a view
/// the kernel made of a workgroup buffer) for race reports; under racecheck
/// only, not a yield point.
void __ext_emu_name_shared(const char *name, int64_t addr, int64_t bytes);

/// Bracket the load and store a global-memory `memref.atomic_rmw` (or
/// `generic_atomic_rmw`) becomes: blocks run on several OS threads, so the
/// read-modify-write holds a lock for its address (striped). Not yield
/// points; nothing between them may yield.
void __ext_emu_atomic_begin(int64_t addr);
void __ext_emu_atomic_end(int64_t addr);

/// nvgpu.device_async_copy: `srcBytes` from global `src`, then zeros, up to
/// `dstBytes` at workgroup address `dst`. It lands (and the race detector
/// sees its write) when a wait covers it, or at one of the thread's yield
/// points before that which the seed picks (EXT_EMU_SEED != 0).
void __ext_emu_async_copy(int64_t dst, int64_t src, int64_t dstBytes,
                          int64_t srcBytes, int32_t site);
/// nvgpu.device_async_create_group: the calling thread's copies issued since
/// its last commit form a group.
void __ext_emu_async_commit(void);
/// nvgpu.device_async_wait: lands all of the calling thread's committed
/// groups but the newest `pending`.
void __ext_emu_async_wait(int32_t pending, int32_t site);

/// Hopper's bulk tensor copies (TMA) and transaction barriers (mbarrier),
/// as PTX ISA 9.7.9.25 (cp.async.bulk.tensor) and 9.7.13.15 (mbarrier)
/// define them.
///
/// nvgpu.tma.create.descriptor (host, cuTensorMapEncodeTiled's fields): a
/// `rank`-d tensor at `base` of `elementBytes`-byte elements, `sizes` and
/// `strides` (in elements) and the copy's `box`, all outermost first;
/// `swizzle` 0, 32, 64 or 128 (bytes); `oobNan` fills out-of-bounds
/// elements with NaN instead of zero. Returns the map's address (what the
/// kernel receives). A map the hardware would refuse ends the process (or
/// fails the call, for hosts that keep errors) with the reason.
int64_t __ext_emu_tensor_map_create(int64_t base, int32_t elementBytes,
                                    int32_t rank, const int64_t *sizes,
                                    const int64_t *strides, const int64_t *box,
                                    int32_t swizzle, int32_t oobNan);
/// mbarrier.init: the 8-byte barrier at workgroup address `addr` expects
/// `count` arrivals per phase, starts in phase 0 with no transactions.
void __ext_emu_mbarrier_init(int64_t addr, int32_t count, int32_t site);
/// mbarrier.arrive (with `txBytes` > 0, arrive.expect_tx: the phase also
/// waits for that many more bytes of bulk copies).
void __ext_emu_mbarrier_arrive(int64_t addr, int64_t txBytes, int32_t site);
/// mbarrier.inval: the barrier at `addr` is no barrier any more (its word may
/// be initialized again). Invalidating one whose phase has arrivals or bytes
/// still to come, or copies not landed, is an error (undefined on a GPU).
void __ext_emu_mbarrier_inval(int64_t addr, int32_t site);
/// mbarrier.try_wait.parity: 1 once the phase of parity `parity` has
/// completed; else yields like a spin (a wait nothing can satisfy is
/// reported as a hang) and returns 0. The bulk copies the barrier tracks
/// land here, when a thread first waits on it: a read of their destination
/// before the wait sees the old bytes, as it may on a GPU.
int32_t __ext_emu_mbarrier_try_wait_parity(int64_t addr, int32_t parity,
                                           int32_t site);
/// cp.async.bulk.tensor.shared::cluster.global.mbarrier::complete_tx: the
/// box of map `map` at `coords` (innermost first, `rank` of them) into
/// workgroup address `dst`, swizzled as the map says, completing its bytes
/// on the barrier at `barrier` when it lands.
void __ext_emu_tma_load(int64_t map, int64_t dst, int64_t barrier,
                        const int64_t *coords, int32_t rank, int32_t site);
/// The same with .multicast::cluster: the box lands at the workgroup offset
/// of `dst` in every block of the cluster whose rank bit is set in the
/// 16-bit `mask`, completing its bytes on the mbarrier at the offset of
/// `barrier` in each of them (both addresses are the issuing block's).
void __ext_emu_tma_load_multicast(int64_t map, int64_t dst, int64_t barrier,
                                  const int64_t *coords, int32_t rank,
                                  int32_t mask, int32_t site);

/// Distributed shared memory: a shared::cluster address is the host address
/// of the byte in its block's workgroup memory.
///
/// mapa: the address of the byte at `addr`'s workgroup offset (`addr` in the
/// calling block's workgroup memory, or a cluster peer's) in the block of
/// rank `rank` of the cluster; a rank outside the cluster fails the launch.
int64_t __ext_emu_mapa(int64_t addr, int32_t rank, int32_t site);
/// nvvm.mbarrier.arrive: `count` arrivals on the mbarrier at `addr`, in the
/// calling block or (a shared::cluster address) another block of its
/// cluster, which must not have exited; `relaxed`: with no release
/// semantics (it passes on nothing the thread knows). Returns the phase the
/// barrier was in.
int64_t __ext_emu_mbarrier_arrive_count(int64_t addr, int32_t count,
                                        int32_t relaxed, int32_t site);
/// barrier.cluster.arrive(.relaxed) and barrier.cluster.wait: the wait
/// returns once every thread of every block of the cluster has arrived in
/// the current phase (the emulator asks all of them, exited ones too: a
/// block that exits without arriving leaves the barrier incomplete, a
/// deadlock); a second arrive before a wait, or a wait without an arrive,
/// fails the launch. A completed barrier orders the cluster's threads as a
/// block barrier orders a block's (unless one arrived relaxed).
void __ext_emu_cluster_arrive(int32_t relaxed, int32_t site);
void __ext_emu_cluster_wait(int32_t site);

/// Bulk tensor stores (TMA, PTX ISA 9.7.9.25: cp.async.bulk.tensor
/// .global.shared::cta.bulk_group) and their bulk async-groups
/// (runtime/cpu/TmaStore.cpp).
///
/// cp.async.bulk.tensor from workgroup address `src` (128-byte aligned, in
/// the calling block's workgroup memory) to the box of map `map` at `coords`
/// (innermost first, `rank` of them): the box is read through the map's
/// swizzle, as a load of the map writes it, and its elements inside the
/// tensor are written to global memory (the others are clipped). Every
/// ordinary write to the bytes it reads must have been fenced by its writer
/// (__ext_emu_fence_proxy_async) with a barrier since, else the launch
/// fails. Asynchronous: its source is read and global memory written
/// between the issue and the wait that covers it (at the wait, or a yield
/// point of the thread the seed picks); a write to the source before a
/// covering wait (ordered by a barrier, for other threads) fails the launch.
/// Stores pending when the thread exits complete then.
void __ext_emu_tma_store(int64_t map, int64_t src, const int64_t *coords,
                         int32_t rank, int32_t site);
/// cp.async.bulk.commit_group: the calling thread's bulk stores issued since
/// its last commit form a bulk async-group.
void __ext_emu_bulk_commit(void);
/// cp.async.bulk.wait_group `pending` (`read`: .read): returns once at most
/// the newest `pending` of the calling thread's groups are incomplete (with
/// `read`, still reading their source).
void __ext_emu_bulk_wait(int32_t pending, int32_t read, int32_t site);
/// fence.proxy.async (and .async.shared::cta/::cluster): the calling
/// thread's ordinary workgroup-memory writes so far are visible to bulk
/// copies ordered after the fence.
void __ext_emu_fence_proxy_async(int32_t site);
/// Called by every thread at the entry of a kernel whose module issues TMA
/// stores: its block notes ordinary workgroup-memory writes for the check
/// above (a kernel without TMA stores pays nothing for it).
void __ext_emu_track_generic_writes(void);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // EXT_RUNTIME_CPUEMULATIONABI_H
