"""The tuner's cost model: a candidate's time on a chip, predicted from the
schedule and the chip model alone (no compile), so thousands rank in a
second. docs/Tuning.md states every assumption; the L2 bandwidth, the one
nobody publishes, is the chip model's `l2_bytes_per_second` (override it
with `chip=dict(ext.chip_info(...), l2_bytes_per_second=...)`).

Contractions (GEMM, convolution). Per CTA and k-step, the clocks each unit
of a multiprocessor needs: the FMA pipe or the matrix unit, instruction
issue (4 warp instructions per clock), shared memory (128 bytes per clock,
times the bank-conflict degree the analysis found), L2 (the tile windows'
bytes over the L2 bandwidth per SM). With R CTAs resident (occupancy from
threads, shared memory, registers) they share the units, and a k-step
also waits out the global latency unless `stages - 1` steps cover it. The
decomposition's makespan in k-steps (ext's decomposition model,
`ext.predict_work`, what `auto` weighs) times the k-step gives the main
loop; device memory bounds it from below (compulsory bytes, plus panels
re-read when a wave's panels miss L2: raster order and `swizzle` groups).

Row-wise and reductions (softmax, LayerNorm, row sums): bytes moved over
device-memory bandwidth, derated for narrow accesses and for too few bytes
in flight (Little's law over the global latency), plus each block's
combine (shuffles and barriers), over waves of blocks.
"""

import functools
import math
from dataclasses import dataclass, field
from typing import Dict, Optional

from . import tuning_space as _space
from ._ext import matrix_peak_fraction as _uncached_peak_fraction
from ._ext import predict_work as _uncached_predict_work


@functools.lru_cache(maxsize=65536)
def _predict_work(name, tiles, iters, slots, param, tile_k):
    return _uncached_predict_work(name, tiles, iters, slots, param, tile_k)


@functools.lru_cache(maxsize=256)
def _peak_fraction(mma, chip):
    """The share of `chip`'s f16 matrix peak `mma` reaches (the hardware
    model's matrix instruction table; docs/Tuning.md)."""
    return _uncached_peak_fraction(mma, chip)


LAUNCH_SECONDS = 3e-6
# The share of the non-bounding units' clocks a k-step still pays.
OVERLAP_LOSS = 0.1
ISSUE_PER_CLOCK = 4


@dataclass
class Prediction:
    """What the model says of one candidate."""
    seconds: float
    tflops: float
    bound: str
    occupancy: int  # CTAs resident per multiprocessor
    waves: float
    units: Dict[str, float] = field(default_factory=dict)  # clocks per k-step and CTA
    notes: str = ""

    def line(self) -> str:
        units = " ".join(f"{k}={v:.0f}" for k, v in self.units.items())
        return (f"{self.seconds * 1e6:10.1f} us {self.tflops:8.2f} TFLOP/s  {self.bound:<7} "
                f"occ={self.occupancy} waves={self.waves:.2f} [{units}]")


def _bytes(dtype):
    return _space._bytes(dtype)


def occupancy(problem, c, chip) -> int:
    """CTAs per multiprocessor: threads, shared memory, registers, blocks."""
    threads = math.prod(c.threads)
    smem = _space.shared_bytes(problem, c)
    g = chip["register_granule"]
    regs = -(-_space.registers_per_thread(problem, c, chip) // g) * g
    limits = [chip["max_blocks_per_multiprocessor"],
              chip["max_threads_per_multiprocessor"] // threads,
              chip["registers_per_multiprocessor"] // max(1, regs * threads)]
    if smem:
        limits.append(chip["shared_bytes_per_multiprocessor"] // smem)
    return max(0, min(limits))


def _tensor_macs_per_clock(chip, mma):
    if not chip["tensor_f16_tflops"]:
        return 0.0
    # The instruction's share of the f16 peak, from the hardware model.
    fraction = _peak_fraction(mma, chip["name"])
    return chip["tensor_f16_tflops"] * 1e12 * fraction / 2 / (
        chip["multiprocessors"] * chip["clock_hz"])


def _per_thread_points(problem, c, axes):
    return math.prod(max(1, c.tile[a] // max(1, c.threads[a])) for a in axes)


def _contraction(problem, c, chip, bank_factor):
    warp = chip["warp_size"]
    threads = math.prod(c.threads)
    warps = -(-threads // warp)
    R = occupancy(problem, c, chip)
    if R == 0:
        return None
    sms, clock = chip["multiprocessors"], chip["clock_hz"]
    spatial, reduce = problem.spatial, problem.reduce
    step_axis = next((d for d in reduce if c.tile[d] < problem.extent(d)), None)
    ksteps = -(-problem.extent(step_axis) // c.tile[step_axis]) if step_axis is not None else 1
    tiles = math.prod(-(-problem.extent(d) // c.tile[d]) for d in spatial)
    macs_step = math.prod(c.tile[d] for d in spatial) * math.prod(c.tile[d] for d in reduce)
    cached = {o for o, _ in c.cache}
    units = {}
    instr = 0.0
    smem_clocks = 0.0
    l2_bytes = 0.0
    red = math.prod(c.tile[d] for d in reduce)
    # The matrix unit or the FMA pipe.
    if c.mma:
        rate = _tensor_macs_per_clock(chip, c.mma)
        if not rate:
            return None
        units["math"] = macs_step / rate
        g = problem.gemm
        wm, wn = c.warps
        shape = _space.MMA_SHAPES[c.mma]
        tm, tn, tk = c.tile[g["m"]], c.tile[g["n"]], c.tile[g["k"]]
        eb = _bytes(problem.in_dtype)
        if c.mma == "wgmma_k16":
            groups = wm // 4
            instr += groups * 4 * (tk // 16) * 1.5  # a wgmma per warp, fences
            # The unit reads A's 64 rows and all of B per warpgroup.
            smem_clocks += groups * (64 + tn) * tk * eb / 128
        else:
            mmas = (tm // shape["m"]) * (tn // shape["n"]) * (tk // shape["k"])
            instr += mmas
            # ldmatrix / LDS of each warp's fragments, once per k-step.
            frag_bytes = (wm * wn) * (tm // wm + tn // wn) * tk * eb
            smem_clocks += frag_bytes / 128 * bank_factor
            instr += frag_bytes / (warp * 16)
    else:
        units["math"] = macs_step / chip["fp32_fma_per_clock"]
        instr += macs_step / warp
        if problem.in_dtype != "f32":
            instr += macs_step / warp * 0.5  # conversions to f32
        # Shared reads: each warp reads the distinct elements of its lanes.
        for o_index, o in enumerate(problem.operands):
            if o_index not in cached:
                continue
            axes = [d for d in spatial if d in o.axes]
            per_thread = _per_thread_points(problem, c, axes)
            vec = 1
            if c.thread_tile and c.vector:
                vec = min(c.vector, 16 // _bytes(o.dtype), 4)
            loads = per_thread / vec * red
            instr += warps * loads
            # Lanes of a warp reading the same element share it: the
            # innermost threaded axis varies fastest.
            inner = spatial[-1]
            lanes_inner = min(c.threads[inner], warp)
            lanes_outer = max(1, warp // lanes_inner)
            distinct = lanes_inner if inner in o.axes else 1
            if len(spatial) > 1 and spatial[-2] in o.axes:
                distinct *= lanes_outer
            bytes_per_load = distinct * vec * _bytes(o.dtype)
            smem_clocks += warps * loads * max(1.0, bytes_per_load / 128) * bank_factor
    # Copies into shared memory (or reads from global for uncached operands).
    for o_index, o in enumerate(problem.operands):
        window = math.prod((sum(c.tile[a] for a in d) - len(d) + 1) if d else 1 for d in o.dims)
        tile_bytes = window * _bytes(o.dtype)
        if o_index in cached or c.mma:
            l2_bytes += tile_bytes
            smem_clocks += tile_bytes / 128
            vec = max(1, min(c.vector or 1, 16 // _bytes(o.dtype)))
            instr += 2 * window / (vec * warp)
        else:
            # Every thread reads its own elements; L1 catches the reuse, so
            # L2 sees the tile once, but each read is an instruction.
            axes = [d for d in spatial if d in o.axes]
            per_thread = _per_thread_points(problem, c, axes)
            l2_bytes += tile_bytes * 1.25
            instr += warps * per_thread * red
    instr += warps * 24  # loop, barrier, addresses (the audit's overhead)
    units["issue"] = instr / ISSUE_PER_CLOCK
    units["shared"] = smem_clocks / (chip["shared_bytes_per_clock"] / 128)
    l2_per_clock = chip["l2_bytes_per_second"] / (sms * clock)
    units["l2"] = l2_bytes / l2_per_clock
    # Units overlap, not perfectly: the others add a share of their clocks
    # (so of two candidates with one bound, the one asking less of the
    # other units ranks first).
    U = max(units.values()) + OVERLAP_LOSS * (sum(units.values()) - max(units.values()))
    bound = max(units, key=units.get)
    L = chip["global_latency_clocks"]
    stages = c.stages or 1
    if stages >= 2:
        step = max(R * U, U, L / (stages - 1))
    else:
        step = max(R * U, U + L)
    if step > R * U + 1e-9:
        bound = "latency"
    units["step"] = step
    # Work balance: ext's decomposition model over R x SMs slots.
    name, param = "data_parallel", 0
    if c.decomposition:
        name, params = c.decomposition
        params = dict(params)
        param = params.get("slices", params.get("grid", 0)) or 0
        if name == "stream_k":
            param = param * R if param else 0
    slots = sms * R
    try:
        work = _predict_work(name, tiles, ksteps, slots, param, c.tile[step_axis]
                             if step_axis is not None else 16)
    except ValueError:
        return None
    makespan = work["makespan"]
    # The epilogue: each CTA stores its tile(s).
    out_bytes = math.prod(c.tile[d] for d in spatial) * _bytes(problem.out_dtype)
    epilogue = out_bytes / l2_per_clock * R
    main = (makespan * step + epilogue * max(1, work["waves"])) / clock
    # Device memory: compulsory bytes, or panels re-read wave by wave.
    dram = _dram_bytes(problem, c, chip, tiles, slots)
    t_dram = dram / chip["dram_bytes_per_second"]
    seconds = max(main, t_dram) + LAUNCH_SECONDS
    if t_dram > main:
        bound = "dram"
    flops = 2 * problem.points * problem.reduce_points
    return Prediction(seconds, flops / seconds / 1e12, bound, R, work["waves"], units)


def _dram_bytes(problem, c, chip, tiles, slots):
    operand_bytes = [math.prod(_extent_of_dims(problem, o)) * _bytes(o.dtype)
                     for o in problem.operands]
    out = problem.points * _bytes(problem.out_dtype)
    compulsory = sum(operand_bytes) + out
    if sum(operand_bytes) <= chip["l2_bytes"] // 2 or not problem.gemm:
        return compulsory
    g = problem.gemm
    M, N = problem.extent(g["m"]), problem.extent(g["n"])
    tm, tn = c.tile[g["m"]], c.tile[g["n"]]
    tiles_m, tiles_n = -(-M // tm), -(-N // tn)
    group = c.swizzle or 1
    W = min(slots, tiles)
    if group > 1:
        rows, cols = min(group, tiles_m), min(tiles_n, -(-W // group))
    else:
        rows, cols = min(tiles_m, -(-W // tiles_n)), min(W, tiles_n)
    a_bytes, b_bytes = operand_bytes[g["a"]], operand_bytes[g["b"]]
    per_wave = rows / tiles_m * a_bytes + cols / tiles_n * b_bytes
    waves = -(-tiles // W)
    return max(compulsory, waves * per_wave + out)


def _extent_of_dims(problem, o):
    return [max((sum(problem.extent(a) for a in d) - len(d) + 1), 1) if d else 1
            for d in o.dims]


def _memory_bound(problem, c, chip, reads_per_operand):
    """Row-wise computes and reductions: bytes over device bandwidth,
    derated for narrow accesses and too few bytes in flight, and each
    block's combine over waves."""
    threads = math.prod(c.threads)
    R = occupancy(problem, c, chip)
    if R == 0:
        return None
    sms, clock = chip["multiprocessors"], chip["clock_hz"]
    eb = _bytes(problem.in_dtype)
    in_bytes = sum(math.prod(_extent_of_dims(problem, o)) * _bytes(o.dtype) * reads_per_operand(i)
                   for i, o in enumerate(problem.operands))
    out_bytes = problem.points * _bytes(problem.out_dtype) if problem.family == "rowwise" else \
        math.prod(problem.extent(d) for d in problem.spatial) * _bytes(problem.out_dtype)
    vec = c.vector or 1
    access = vec * eb
    efficiency = {1: 0.5, 2: 0.7, 4: 0.85, 8: 0.95}.get(access, 1.0)
    # Little's law: bytes in flight per SM against bandwidth x latency.
    latency = chip["global_latency_clocks"]
    need = chip["dram_bytes_per_second"] / sms / clock * latency
    spatial = problem.spatial
    inner = problem.reduce[-1] if problem.family == "reduction" else spatial[-1]
    loads = max(1, c.tile[inner] // max(1, c.threads[inner] * vec))
    inflight = R * threads * min(loads, 8) * access
    efficiency *= min(1.0, inflight / need)
    blocks = math.prod(-(-problem.extent(d) // c.tile[d]) for d in spatial)
    slots = sms * R
    waves = blocks / slots
    wave_eff = blocks / (math.ceil(waves) * slots)
    t_dram = (in_bytes + out_bytes) / (chip["dram_bytes_per_second"] * efficiency)
    # The combine: log2(threads on the row) shuffles and two barriers per
    # reduction, per block, serialized with the block's loads.
    combines = max(1, len(problem.compute_at)) if problem.family == "rowwise" else 1
    shuffle = math.log2(max(2, c.threads[inner])) * 30 + 2 * 40
    block_clocks = combines * shuffle + latency * (1 + combines)
    t_blocks = math.ceil(waves) * block_clocks / clock
    elements = problem.points * (problem.reduce_points if problem.family == "reduction" else 1)
    t_issue = elements * 8 / (chip["warp_size"] * ISSUE_PER_CLOCK * sms * clock)
    units = {"dram": t_dram * clock, "blocks": t_blocks * clock, "issue": t_issue * clock}
    seconds = max(t_dram / max(wave_eff, 0.5), t_blocks, t_issue) + LAUNCH_SECONDS
    bound = max(units, key=units.get)
    flops = elements * 5
    return Prediction(seconds, flops / seconds / 1e12, bound, R, waves, units)


def predict(problem, candidate, chip: dict, bank_factor: float = 1.0) -> Optional[Prediction]:
    """The model's prediction for `candidate` (an `ext.tuning_space.Candidate`)
    of `problem` on `chip` (`ext.chip_info(name)`, or such a dict with
    other rates), None where it cannot run (no CTA fits a multiprocessor).
    `bank_factor`: the shared-memory reads' bank-conflict degree (1:
    conflict-free), from ext's bank analysis."""
    if problem.family in ("gemm", "contraction"):
        return _contraction(problem, candidate, chip, bank_factor)
    if problem.family == "rowwise":
        cached = {o for o, _ in candidate.cache}
        producers = len(problem.compute_at)
        # An uncached row is read from global memory by the fused producers
        # too; L2 serves the re-reads of a row, at a cost.
        return _memory_bound(problem, candidate, chip,
                             lambda i: 1 if i in cached else 1 + 0.5 * producers)
    if problem.family == "reduction":
        return _memory_bound(problem, candidate, chip, lambda i: 1)
    return None
