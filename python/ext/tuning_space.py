"""The tuner's search space: what a compute is (a `Problem`), and the
schedules worth trying for it on a chip (`Candidate`s), pruned by the chip's
resource limits before anything is built.

A problem (`ext.tuning_problem`, re-exported here) is read from the TE
graph of the scheduled compute (the anchor): its axes and extents, its
operands and what each depends on, the producers it can fuse (element-wise
ones inlined, reductions computed at the row tile), the element-wise
consumer it runs as its epilogue, and a family:

* "gemm": C[.., i, j] = sum_k A[.., i, k] * B[.., k, j] (either operand may
  be transposed, inputs may be cast): tiles aligned to the warps and to each
  matrix instruction the chip has (mma.sync, MFMA, wgmma) or CUDA-core
  register blocking; stages, copy vectors, padding or swizzles, raster
  swizzle, decomposition.
* "contraction": any other sum of a product of two reads (a convolution):
  tiles over the innermost spatial axes, the first reduce axis stepped,
  cached operands.
* "rowwise": an element-wise compute whose producers reduce over its
  innermost axis (softmax, LayerNorm): rows per block, threads per row,
  vectors, the row kept in shared memory or not.
* "reduction": a reduction that is not a product (a row sum, a row max).

Every candidate is plain data (tuples and ints), so it pickles to another
process or machine and is stored in the tuning database as JSON. New
families register with `register_space(name, matches, generate)`.
"""

import itertools
import math
from dataclasses import asdict, dataclass
from typing import Callable, Iterator, List, Optional, Tuple

from . import dtypes as _dt
from .chips import matrix_instructions as _matrix_instructions
from .accesses import operands as _operands
from .tuning_problem import (  # noqa: F401 (the problem analysis, re-exported)
    Node, Operand, Problem, problem_of, problem_of_node)

# ---------------------------------------------------------------------------
# Candidates


@dataclass(frozen=True)
class Candidate:
    """One schedule as plain data. `cache` holds (operand, layout) pairs with
    layout "" (dense), ("align", ((dim, factor, offset), ...)) or
    ("swizzle", (bits, base, shift[, panel])); operand numbers are the
    anchor's (inputs, then its output: an epilogue staged in shared
    memory). `thread_tile` is a blocked layout's runs per spatial axis (None:
    cyclic). `decomposition` is (name, ((param, value), ...)) or None."""
    tile: Tuple[int, ...]
    threads: Tuple[int, ...]
    blocks: Tuple[str, ...]
    thread_tile: Optional[Tuple[int, ...]] = None
    vector: Optional[int] = None
    stages: Optional[int] = None
    mma: Optional[str] = None
    warps: Optional[Tuple[int, ...]] = None
    cache: Tuple = ()
    decomposition: Optional[Tuple] = None
    swizzle: Optional[int] = None

    def to_json(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_json(d: dict) -> "Candidate":
        def tup(x):
            return tuple(tup(v) for v in x) if isinstance(x, list) else x
        return Candidate(**{k: tup(v) for k, v in d.items()})

    def short(self) -> str:
        parts = ["tile=" + "x".join(map(str, self.tile)),
                 "threads=" + "x".join(map(str, self.threads))]
        if self.thread_tile:
            parts.append("tt=" + "x".join(map(str, self.thread_tile)))
        if self.mma:
            parts.append(f"{self.mma}/w{'x'.join(map(str, self.warps))}")
        if self.vector:
            parts.append(f"v{self.vector}")
        if self.stages:
            parts.append(f"s{self.stages}")
        if self.cache:
            parts.append("cache=" + ",".join(
                str(o) + ("" if not lay else "p" if lay[0] == "align" else "z")
                for o, lay in self.cache))
        if self.swizzle and self.swizzle > 1:
            parts.append(f"g{self.swizzle}")
        if self.decomposition:
            name, params = self.decomposition
            parts.append(name + "".join(f",{k}={v}" for k, v in params))
        return " ".join(parts)


def _pow2_upto(limit, start=1):
    v = start
    while v <= limit:
        yield v
        v *= 2


def _next_pow2(n):
    return 1 << max(0, (n - 1).bit_length())


# The matrix instructions the tuner may choose, from the hardware model's
# table (m is one instruction's rows: a warpgroup instruction's 4 warps);
# an instruction that rounds its inputs (tf32) would change the numbers an
# f32 problem computes, so the tuner never picks it.
MMA_SHAPES = {
    row["name"]: dict(m=row["m"] * row["warps"], n=row["n"], k=row["k"],
                      inputs=row["inputs"], lanes=row["lanes"], feature=row["feature"])
    for row in _matrix_instructions() if not row["rounds_inputs"]
}


def _bytes(dtype) -> int:
    return _dt.storage_bytes(dtype)


def shared_bytes(problem: Problem, c: Candidate) -> int:
    """Shared memory the candidate's cached tiles take (every stage), the
    epilogue's staging tile counted as reusing the main loop's bytes."""
    tile = dict(enumerate(c.tile))
    stages = c.stages or 1
    main = 0
    staged_out = 0
    for operand, layout in c.cache:
        if operand >= len(problem.operands):
            staged_out = math.prod(c.tile[d] for d in problem.spatial) * _bytes(problem.out_dtype)
            continue
        o = problem.operands[operand]
        shape = []
        for dims in o.dims:
            # A window (y + ry) spans the tiles of both axes.
            shape.append(sum(tile[a] for a in dims) - (len(dims) - 1) if dims else 1)
        if layout and layout[0] == "align":
            for dim, factor, offset in layout[1]:
                inner = math.prod(shape[dim + 1:])
                stride = inner + (offset - inner) % factor
                shape = shape[:dim + 1] + [stride // max(1, math.prod(shape[dim + 2:]))] + \
                    shape[dim + 2:] if dim + 1 < len(shape) else shape
        main += math.prod(shape) * _bytes(o.dtype) * (stages if problem.reduce else 1)
    for t, _ in problem.compute_at:
        main += math.prod(c.tile[d] for d in problem.spatial[:1]) * _bytes(t.dtype) * 2
    return max(main, staged_out)


def registers_per_thread(problem: Problem, c: Candidate, chip: Optional[dict] = None) -> int:
    """A lead for the 32-bit registers a thread needs: accumulators, the
    operand fragments of one step, copy staging, and ~32 for addresses and
    loop state."""
    threads = math.prod(c.threads)
    points = math.prod(c.tile[d] for d in problem.spatial)
    acc_words = max(1, _bytes(problem.out_dtype) // 4) if not c.mma else 1
    acc = -(-points // threads) * acc_words
    frag = 0
    if c.mma and problem.gemm:
        g = problem.gemm
        wm, wn = c.warps
        shape = MMA_SHAPES[c.mma]
        lanes = shape["lanes"]
        acc = -(-c.tile[g["m"]] * c.tile[g["n"]] // (wm * wn * lanes))
        if c.mma != "wgmma_k16":
            frag = 2 * (c.tile[g["m"]] // wm // 16 * 4 + c.tile[g["n"]] // wn // 8 * 2)
    elif problem.gemm:
        g = problem.gemm
        points = c.tile[g["m"]] // c.threads[g["m"]] + c.tile[g["n"]] // c.threads[g["n"]]
        # The k tile's vector steps (up to 4) are unrolled, and ptxas
        # hoists their shared reads: operands of every step in registers
        # (calibrated with ptxas: 8x8 points, k 16 read 4 at a time: 167).
        steps = c.tile[g["k"]] // max(1, c.vector or 1)
        frag = points * (steps if 2 < steps <= 4 else 2)
    copies = 0
    # Without cp.async (AMD, older NVIDIA) the next stage passes through
    # registers.
    if c.stages and c.stages >= 2 and not (chip or {}).get("has_async_copy", False):
        for operand, _ in c.cache:
            if operand < len(problem.operands):
                o = problem.operands[operand]
                elems = math.prod(c.tile[d[0]] if d else 1 for d in o.dims)
                copies += -(-elems * _bytes(o.dtype) // (4 * threads))
    return 32 + acc + frag + copies


def prune_reason(problem: Problem, c: Candidate, chip: dict) -> Optional[str]:
    """Why the chip cannot run `c` (None: it fits): threads, shared memory,
    registers, the tile and thread shapes ext requires."""
    threads = math.prod(c.threads)
    if threads > chip["max_threads_per_block"]:
        return f"{threads} threads > {chip['max_threads_per_block']}"
    if threads < chip["warp_size"] and not (problem.family in ("rowwise", "reduction")):
        return f"{threads} threads: less than a {chip['warp_size']}-lane warp"
    for d, (t, h) in enumerate(zip(c.tile, c.threads)):
        if h > t:
            return f"axis {problem.axes[d][0]}: {h} threads over a tile of {t}"
    smem = shared_bytes(problem, c)
    if smem > chip["max_shared_bytes_per_block"]:
        return f"{smem} B of shared memory > {chip['max_shared_bytes_per_block']}"
    regs = registers_per_thread(problem, c, chip)
    # The compiler caps a thread at the multiprocessor's file over the
    # block's threads (ptxas: 65536 / 512 threads = 128): more spills.
    granule = chip.get("register_granule", 8)
    cap = min(chip["max_registers_per_thread"],
              chip["registers_per_multiprocessor"] // threads // granule * granule)
    if regs + 8 > cap:  # a margin: the estimate is a lead
        return f"~{regs} registers per thread > {cap} for {threads} threads: registers"
    return None


# ---------------------------------------------------------------------------
# Families


def _decompositions(problem, chip, tiles, ksteps):
    """Data-parallel, and where the tiles leave multiprocessors idle, the
    decompositions that split the reduction."""
    out = [None]
    sms = chip["multiprocessors"]
    if ksteps >= 4 and tiles < 2 * sms:
        out.append(("stream_k", (("grid", sms),)))
        for slices in (2, 4, 8):
            if ksteps >= 2 * slices and tiles * slices <= 4 * sms:
                out.append(("split_k", (("slices", slices),)))
    return out


def _gemm_tiles(problem):
    g = problem.gemm
    M, N, K = (problem.extent(g[a]) for a in "mnk")
    return M, N, K


def _gemm_candidates(problem: Problem, chip: dict) -> Iterator[Candidate]:
    g = problem.gemm
    M, N, K = _gemm_tiles(problem)
    names = [a[0] for a in problem.axes]
    blocks = tuple(names[d] for d in problem.spatial if problem.extent(d) > 1)
    in_dtype = problem.in_dtype
    ebytes = _bytes(in_dtype)
    vec = 16 // ebytes

    def full(tm, tn, tk, th_m, th_n):
        tile = [1] * len(problem.axes)
        threads = [1] * len(problem.axes)
        tile[g["m"]], tile[g["n"]], tile[g["k"]] = tm, tn, tk
        threads[g["m"]], threads[g["n"]] = th_m, th_n
        return tuple(tile), tuple(threads)

    def blocked_for(tm, tn):
        # Blocks bound to the axes the tile does not cover.
        b = [names[d] for d in problem.spatial
             if problem.extent(d) > (tm if d == g["m"] else tn if d == g["n"] else 1)]
        return tuple(b) or (names[g["n"]],)

    def paddings(operand_kmajor):
        # Row padding of a [rows][k] (or [k][cols]) tile: none, or the rows
        # skewed by one 16-byte chunk, as CUTLASS's and the examples' are.
        return ["", ("align", ((0, 32, 4 if ebytes == 4 else 8),))]

    def raster(tm, tn):
        tiles_m, tiles_n = -(-M // tm), -(-N // tn)
        return [1] + [s for s in (2, 4, 8) if s < tiles_m]

    mma_names = [n for n, s in MMA_SHAPES.items()
                 if chip.get(s["feature"]) and in_dtype in s["inputs"]
                 and problem.out_dtype in ("f32", "f16", "bf16")]
    # Tensor cores.
    for name in mma_names:
        s = MMA_SHAPES[name]
        lanes = s["lanes"]
        if name == "wgmma_k16":
            for tm, tn in itertools.product((64, 128, 256), (64, 128, 256)):
                wm = tm // 16
                if wm % 4 or wm * lanes > chip["max_threads_per_block"]:
                    continue
                for tk, bits in ((64, 3), (32, 2)):
                    if tk > max(K, 16) * 2:
                        continue
                    panel = tk if not g["b_kmajor"] and tn > tk else None
                    sw_a = ("swizzle", (bits, 3, 3))
                    sw_b = ("swizzle", (bits, 3, 3) + ((panel,) if panel else ()))
                    tiles = -(-M // tm) * -(-N // tn)
                    ksteps = -(-K // tk)
                    for stages in (2, 3, 4):
                        if ksteps < stages:
                            continue
                        for sw in raster(tm, tn):
                            for dec in _decompositions(problem, chip, tiles, ksteps):
                                tile, threads = full(tm, tn, tk, wm, lanes)
                                yield Candidate(tile, threads, blocked_for(tm, tn), None, vec,
                                                stages, name, (wm, 1),
                                                ((g["a"], sw_a), (g["b"], sw_b)), dec, sw)
            continue
        for tm, tn in itertools.product((32, 64, 128, 256), (32, 64, 128, 256)):
            for wm, wn in itertools.product((1, 2, 4), (1, 2, 4)):
                if tm % (wm * s["m"]) or tn % (wn * s["n"]):
                    continue
                if wm * wn * lanes > chip["max_threads_per_block"]:
                    continue
                for tk in (16, 32, 64):
                    if tk % s["k"] or tk > 2 * max(K, 16):
                        continue
                    tiles = -(-M // tm) * -(-N // tn)
                    ksteps = -(-K // tk)
                    for stages in (2, 3, 4):
                        if ksteps < stages:
                            continue
                        for pad_a, pad_b in itertools.product(paddings(True), paddings(False)):
                            for sw in raster(tm, tn):
                                for dec in _decompositions(problem, chip, tiles, ksteps):
                                    tile, threads = full(tm, tn, tk, wm * wn, lanes)
                                    yield Candidate(tile, threads, blocked_for(tm, tn), None,
                                                    vec, stages, name, (wm, wn),
                                                    ((g["a"], pad_a), (g["b"], pad_b)), dec, sw)
    # CUDA cores: register blocking (runs of 4 per thread) or cyclic points.
    vec4 = 16 // max(ebytes, 4)
    for tm, tn in itertools.product((16, 32, 64, 128, 256), (16, 32, 64, 128, 256)):
        for pm, pn in itertools.product((1, 2, 4, 8), (1, 2, 4, 8)):
            th_m, th_n = tm // pm, tn // pn
            if th_m < 1 or th_n < 1 or tm % pm or tn % pn:
                continue
            threads = th_m * th_n
            if threads < 64 or threads > 512:
                continue
            layouts = [None]
            if pm % 4 == 0 and pn % 4 == 0:
                layouts = [(4, 4)]
            elif pm > 2 or pn > 2:
                continue
            for tt in layouts:
                for tk in (8, 16, 32):
                    if tk > 2 * max(K, 8):
                        continue
                    tiles = -(-M // tm) * -(-N // tn)
                    ksteps = -(-K // tk)
                    # Pipelined first: of equal predictions, the first wins.
                    for stages in (3, 2, 1):
                        if stages > 1 and ksteps < stages:
                            continue
                        for pad_a in paddings(True):
                            for out in (False, True):
                                for sw in raster(tm, tn):
                                    for dec in _decompositions(problem, chip, tiles, ksteps):
                                        tile, thr = full(tm, tn, tk, th_m, th_n)
                                        cache = ((g["a"], pad_a), (g["b"], ""))
                                        if out:
                                            cache += ((len(problem.operands), ""),)
                                        yield Candidate(tile, thr, blocked_for(tm, tn), tt,
                                                        vec4 if tt else None, stages, None,
                                                        None, cache, dec, sw)


def _contraction_candidates(problem: Problem, chip: dict) -> Iterator[Candidate]:
    """Any sum of a product of two reads (a convolution): the three
    innermost spatial axes tiled, one thread per 1, 2 or 4 points of each,
    the first reduce axis with more than one point stepped, the others
    whole; either operand cached or read from global memory."""
    names = [a[0] for a in problem.axes]
    spatial = [d for d in problem.spatial]
    inner = [d for d in spatial if problem.extent(d) > 1][-3:]
    reduce = problem.reduce
    step_axis = next((d for d in reduce if problem.extent(d) > 1), None)
    choices = []
    for d in inner:
        e = problem.extent(d)
        choices.append([t for t in (1, 2, 4, 8, 16, 32, 64) if t <= _next_pow2(e)])
    reduce_choices = [t for t in (2, 4, 8, 16, 32) if step_axis is not None
                      and t <= _next_pow2(problem.extent(step_axis))] or [None]
    for tiles in itertools.product(*choices):
        for per in itertools.product(*[(1, 2, 4)] * len(inner)):
            if any(t % p for t, p in zip(tiles, per)):
                continue
            tile = [1] * len(problem.axes)
            threads = [1] * len(problem.axes)
            for d in reduce:
                tile[d] = problem.extent(d)
            for d, t, p in zip(inner, tiles, per):
                tile[d], threads[d] = t, t // p
            nthreads = math.prod(threads)
            if nthreads < 32 or nthreads > 512:
                continue
            blocks = tuple(names[d] for d in spatial if tile[d] < problem.extent(d))
            if not blocks:
                blocks = (names[inner[-1]],)
            for rt in reduce_choices:
                if rt is not None:
                    tile[step_axis] = rt
                ksteps = -(-problem.extent(step_axis) // rt) if rt else 1
                for cached in ((0, 1), (0,), (1,), ()):
                    for stages in ((1, 2) if cached and ksteps >= 2 else (1,)):
                        yield Candidate(tuple(tile), tuple(threads), blocks, None, None, stages,
                                        None, None, tuple((o, "") for o in cached), None, None)


def _rowwise_candidates(problem: Problem, chip: dict) -> Iterator[Candidate]:
    """Softmax-like: the row (innermost axis) in one tile, rows per block,
    threads per row, vectors; the row's input cached or not."""
    names = [a[0] for a in problem.axes]
    spatial = problem.spatial
    row, col = spatial[0], spatial[-1]
    n = problem.extent(col)
    rows = problem.extent(row)
    warp = chip["warp_size"]
    for r in (1, 2, 4, 8):
        if r > _next_pow2(rows):
            continue
        for tc in (warp, 2 * warp, 4 * warp, 8 * warp, 16 * warp):
            for tr in (1, 2, 4, 8):
                if tr > r or r % tr or tr * tc > 1024:
                    continue
                for vector in (1, 2, 4):
                    width = tc * vector
                    ncol = -(-n // width) * width
                    tile = [1] * len(problem.axes)
                    threads = [1] * len(problem.axes)
                    tile[row], tile[col] = r, ncol
                    threads[row], threads[col] = tr, tc
                    for cached in (True, False):
                        cache = tuple((o, "") for o, op in enumerate(problem.operands)
                                      if cached and op.axes >= {row, col}) if cached else ()
                        if cached and not cache:
                            continue
                        yield Candidate(tuple(tile), tuple(threads), (names[row],), None,
                                        vector, None, None, None, cache, None, None)


def _reduction_candidates(problem: Problem, chip: dict) -> Iterator[Candidate]:
    """A reduction over its innermost reduce axis: rows per block, threads
    on the reduce axis (a shuffle and shared-memory combine)."""
    names = [a[0] for a in problem.axes]
    spatial = problem.spatial
    red = problem.reduce[-1]
    k = problem.extent(red)
    for r in (1, 2, 4, 8, 16, 32):
        if spatial and r > _next_pow2(problem.extent(spatial[-1])):
            continue
        for tk in (32, 64, 128, 256, 512, 1024):
            for tr in (1, 2, 4):
                if tr > r or tr * tk > 1024 or tk > 2 * _next_pow2(k):
                    continue
                for step in (tk, 2 * tk, 4 * tk):
                    tile = [1] * len(problem.axes)
                    threads = [1] * len(problem.axes)
                    for d in problem.reduce:
                        tile[d] = problem.extent(d)
                    tile[red] = min(step, _next_pow2(k))
                    if tile[red] < tk:
                        continue
                    if spatial:
                        tile[spatial[-1]], threads[spatial[-1]] = r, tr
                    threads[red] = tk
                    for vector in (1, 4):
                        blocks = tuple(names[d] for d in spatial
                                       if tile[d] < problem.extent(d)) or (
                            (names[spatial[-1]],) if spatial else ())
                        yield Candidate(tuple(tile), tuple(threads), blocks, None, vector,
                                        None, None, None, (), None, None)


class NoSearchSpace(ValueError):
    """No family of candidates matches the compute."""


_SPACES: List[Tuple[str, Callable, Callable]] = [
    ("gemm", lambda p: p.family == "gemm", _gemm_candidates),
    ("contraction", lambda p: p.family == "contraction", _contraction_candidates),
    ("rowwise", lambda p: p.family == "rowwise", _rowwise_candidates),
    ("reduction", lambda p: p.family == "reduction", _reduction_candidates),
]


def register_space(name: str, matches: Callable, generate: Callable, first: bool = True):
    """Adds a family of candidates: `matches(problem)` says whether it
    applies, `generate(problem, chip)` yields `Candidate`s. A plugin's
    family is tried before ext's own (`first`)."""
    entry = (name, matches, generate)
    if first:
        _SPACES.insert(0, entry)
    else:
        _SPACES.append(entry)


def candidates(problem: Problem, chip: dict) -> Iterator[Tuple[Candidate, Optional[str]]]:
    """Every candidate of the first family matching `problem`, each with the
    reason the chip cannot run it (None: it fits)."""
    for name, matches, generate in _SPACES:
        if matches(problem):
            seen = set()
            for c in generate(problem, chip):
                # An epilogue runs on the accumulators: none stages them.
                if c in seen or problem.epilogue and \
                        any(o >= len(problem.operands) for o, _ in c.cache):
                    continue
                seen.add(c)
                yield c, prune_reason(problem, c, chip)
            return
    raise NoSearchSpace(f"no search space for {problem.describe()}; ext.tuning_space."
                        "register_space adds one")


def schedule_of(problem: Problem, c: Candidate, target=None):
    """`c` as an `ext.Schedule` of the problem's compute, with its fusions."""
    from .schedule import schedule as _schedule
    cache = []
    # Cache entries name the anchor's reads: a read through an inlined
    # producer caches that producer (its inputs are cached then).
    anchor_reads = [t for t, _ in _operands(problem.op)]
    for operand, layout in c.cache:
        if operand >= len(problem.operands):
            tensor = target if target is not None else problem.outputs[0]
        else:
            tensor = anchor_reads[problem.operands[operand].via]
        if not layout:
            entry = tensor
        elif layout[0] == "align":
            entry = (tensor, {"align": [tuple(x) for x in layout[1]]})
        else:
            entry = (tensor, {"swizzle": tuple(layout[1])})
        if not any((e[0] if isinstance(e, tuple) else e) is tensor for e in cache):
            cache.append(entry)
    fields = {}
    if c.thread_tile:
        fields["layout"] = ("blocked", list(c.thread_tile))
    for name in ("vector", "stages", "swizzle"):
        v = getattr(c, name)
        if v is not None:
            fields[name] = v
    if c.mma:
        fields["mma"] = c.mma
        fields["warps"] = tuple(c.warps)
    dec = None
    if c.decomposition:
        name, params = c.decomposition
        dec = (name, dict(params)) if params else name
    s = _schedule(problem.outputs[0], tile=list(c.tile), threads=list(c.threads),
                  blocks=list(c.blocks), cache=cache, decomposition=dec, **fields)
    for t, axis in problem.compute_at:
        s = s.compute_at(t, axis)
    for t in problem.inline:
        s = s.compute_inline(t)
    for t, axis in problem.epilogue:
        s = s.reverse_compute_at(t, axis)
    return s


def _attribute_prefix(text: str) -> str:
    """The attribute at the start of `text` ("#ext.schedule<...>" and what
    follows it in a file): up to its matching ">"."""
    depth = 0
    for i, ch in enumerate(text):
        if ch == "<":
            depth += 1
        elif ch == ">" and text[i - 1] != "-":
            depth -= 1
            if depth == 0:
                return text[:i + 1]
    return text


def candidate_of(problem: Problem, schedule) -> Candidate:
    """A hand-written schedule (an `ext.Schedule` of the problem's compute,
    its `#ext.schedule` attribute, or its text, which may run on into the
    rest of a file) as a Candidate, for the model to compare. Read from the
    typed attribute's fields; a field at its default is None, as the space
    leaves it."""
    from ._ext import schedules as _cpp
    attr = getattr(schedule, "attr", schedule)
    if isinstance(attr, str):
        attr = _cpp.parse(_attribute_prefix(attr.lstrip()))
    f = attr.fields()

    def opt(name, default=1):
        return f[name] if f[name] != default else None
    cache = []
    for entry in f["cache"]:
        e = entry.fields()
        if e["align"]:
            layout = ("align", tuple((a["dim"], a["factor"], a["offset"])
                                     for a in (x.fields() for x in e["align"])))
        elif e["swizzle"] is not None:
            sw = e["swizzle"].fields()
            layout = ("swizzle", (sw["bits"], sw["base"], sw["shift"]) +
                      ((sw["panel"],) if sw["panel"] else ()))
        else:
            layout = ""
        cache.append((e["operand"], layout))
    dec, d = None, f["decomposition"]
    if d is not None and d.name.startswith("ext.") and d.name != "ext.data_parallel":
        # The parameters set (a plugin's decomposition has none it reads).
        params = tuple((k, v) for k, v in d.fields().items()
                       if isinstance(v, int) and not isinstance(v, bool) and v)
        dec = (d.name[len("ext."):], params)
    layout, mma = f["layout"], f["mma"]
    thread_tile = tuple(layout.fields()["thread_tile"]) \
        if layout is not None and layout.name == "ext.blocked" else None
    return Candidate(tuple(f["tile"]), tuple(f["threads"]), tuple(f["blocks"]), thread_tile,
                     opt("vector"), opt("stages"), mma.fields()["shape"] if mma is not None else None,
                     tuple(f["warps"]) or None, tuple(cache), dec, opt("swizzle"))
