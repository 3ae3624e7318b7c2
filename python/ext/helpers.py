"""Ready-made workloads (matmul, gemv, row reductions) on the TE level."""

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import dtypes as _dt
from . import te as _te
from .build import build, lower
from .chips import DEFAULT_CHIP, check_chip as _check_chip
from .schedule import schedule as _schedule
from .te import _error, _where
from ._ext import Module, chip_info as _chip_info

_COMBINERS = ("sum", "prod", "max", "min")


class Workload:
    """One compute with named inputs, ready to schedule, build and run.

        >>> w = ext.matmul(200, 130, 100).schedule(tile=(64, 64, 16), threads=(16, 16, 1),
        ...                                        cache=(0, 1), storage_align={0: [(0, 32, 1)]})
        >>> c = w.run_cpu(a, b)
        >>> print(w.mlir())
    """

    def __init__(self, inputs, output, sched=None, chip=None):
        self.inputs = list(inputs)
        self.output = output
        self._schedule = sched
        self.chip = chip
        # How to make the same workload at other sizes (ext.tune checks
        # candidates at a reduced size): a function of keyword sizes, and
        # which keyword each axis of the output's compute is.
        self._factory = None
        self._axis_params = {}
        # For a workload whose schedule defaults depend on the chip
        # (ext.attention's tiles): the same workload made for another chip.
        self._retarget = None

    def _sized_by(self, factory, axis_params) -> "Workload":
        self._factory, self._axis_params = factory, dict(axis_params)
        return self

    @property
    def resizable(self) -> bool:
        """Whether `resized` can make this workload at other sizes.

            >>> ext.matmul(64, 64, 64).resizable
            True
        """
        return self._factory is not None

    def resized(self, extents: Dict[str, int]) -> "Workload":
        """The same workload (unscheduled) with the compute's axes at
        `extents` (axis name -> size; axes not named keep theirs).

            >>> small = ext.matmul(4096, 4096, 4096).resized({"i": 200, "k": 64})
        """
        if self._factory is None:
            raise ValueError("this workload was not made by a helper that can resize it")
        sizes = {}
        for axis, param in self._axis_params.items():
            if axis in extents:
                sizes[param] = extents[axis]
        return self._factory(**sizes)

    @property
    def op(self):
        """The compute (`ext.ComputeOp`) of the output.

            >>> ext.matmul(8, 8, 8).op.name
            'C'
        """
        return self.output.op

    def schedule(self, tile=None, threads=None, blocks=None, cache: Sequence = (),
                 storage_align: Optional[Dict[int, List[Tuple[int, int, int]]]] = None,
                 xor_swizzle: Optional[Dict[int, Tuple[int, int, int]]] = None,
                 decomposition=None, **fields) -> "Workload":
        """A copy with a schedule (see `ext.schedule`); `cache` lists input
        numbers (0 = first input; the output after the inputs) or tensors,
        `storage_align` maps a cached
        input number to its (dim, factor, offset) triples, `xor_swizzle` to
        the (bits, base, shift) of an `#ext.swizzle` of its shared tile
        instead.

            >>> w = ext.matmul(64, 64, 32).schedule(tile=(32, 32, 8), threads=(8, 8, 1),
            ...                                     cache=(0, 1), storage_align={0: [(0, 8, 1)]})
        """
        entries = []
        layouts = {}
        for name, given in (("storage_align", storage_align), ("swizzle", xor_swizzle)):
            for index, value in (given or {}).items():
                layouts.setdefault(index, {})[name] = value
        # Operands by number: the inputs, then the output (staged through
        # shared memory in the epilogue).
        operands = list(self.inputs) + [self.output]
        for c in cache:
            if isinstance(c, int) and not 0 <= c < len(operands):
                raise ValueError(f"cache={tuple(cache)}: operand {c} does not exist; the "
                                 f"workload has inputs 0..{len(self.inputs) - 1} and its "
                                 f"output is {len(self.inputs)}")
            tensor = operands[c] if isinstance(c, int) else c
            index = c if isinstance(c, int) else operands.index(c)
            if index in layouts:
                entries.append((tensor, layouts.pop(index)))
            else:
                entries.append(tensor)
        if layouts:
            raise ValueError(f"storage_align or xor_swizzle given for input(s) "
                             f"{sorted(layouts)}, which are not cached (cache={tuple(cache)}); "
                             "they lay out a shared-memory copy, so cache those inputs too")
        s = _schedule(self.output, tile=tile, threads=threads, blocks=blocks,
                      cache=entries, decomposition=decomposition, **fields)
        w = Workload(self.inputs, self.output, s, self.chip)
        return w._sized_by(self._factory, self._axis_params)

    def _items(self):
        return self._schedule if self._schedule is not None else self.output

    def _for_build(self, chip):
        """What `ext.build` builds of this workload for `chip`: (items,
        chip, args)."""
        w = self
        if chip and chip != self.chip and self._retarget is not None:
            # Its defaults were chosen for another chip: made again for this one.
            w = self._retarget(chip)
        return w._items(), chip or w.chip, w.inputs

    def build(self, target="cpu", chip=None):
        """`ext.build(workload, target, chip=chip)`: for `chip`, else the
        workload's.

            >>> print(ext.matmul(64, 64, 32).schedule(tile=(32, 32, 8)).build("nvvm").ptx[:200])
        """
        return build(self, target=target, chip=chip)

    def run(self, *inputs: np.ndarray, target: str = "cpu"):
        """Builds (once: `ext.build` caches) and runs: on the CPU (GPU
        kernels on ext's emulator) or a CUDA device (target="cuda"); numpy
        arrays in, the output out.

            >>> c = ext.matmul(300, 200, 500, decomposition="stream_k", grid=7).run(a, b)
        """
        return self.build("cpu").run(*inputs, target=target)

    def mlir(self) -> str:
        """The function with its ext.compute (and schedule), as MLIR text.

            >>> print(ext.gemv(30, 17).mlir())
        """
        return str(self.module())

    def module(self) -> Module:
        """The built `ext.Module` (before any lowering).

            >>> m = ext.matmul(64, 64, 32).module(); m.run_pipeline("ext-compute-to-loops")
        """
        program, _, _, _ = lower(self._items(), args=self.inputs)
        try:
            return Module.build(None, program)
        except ValueError as e:
            raise ValueError(str(e).strip()) from None

    def run_cpu(self, *inputs: np.ndarray):
        """Runs on the CPU and returns the output (numpy arrays in, out).

            >>> y = ext.row_reduce(6, 5, "max").run_cpu(np.ones((6, 5), np.float32))
        """
        return self.build("cpu").run(*inputs)


def _k_steps(k, tile) -> Optional[int]:
    """How many k-steps a matmul's k-loop has under `tile` (None when K is
    symbolic or the tile names the k-axis's size some other way)."""
    if not isinstance(k, int):
        return None
    if tile is None:
        step = min(k, 16)  # ext.schedule's default reduce step
    elif isinstance(tile, dict):
        step = tile.get("k")
    else:
        step = tile[2] if len(tile) > 2 else None
    return -(-k // step) if isinstance(step, int) and step > 0 else None


def _decomposition(name, grid, split_k, split_k_mode, sms, steps=None):
    """The `ext.schedule` decomposition for matmul's keywords; split-K's
    default slices are 2, or as many as the k-loop has steps when fewer."""
    if name is None:
        name = "split_k" if split_k is not None else "stream_k" if grid is not None else None
    if grid is not None and name not in ("stream_k", "persistent"):
        raise ValueError(f"grid = {grid} is the CTA count of Stream-K or the persistent "
                         f"grid; decomposition {name!r} does not take it (use "
                         "decomposition=\"stream_k\" or \"persistent\")")
    if split_k is not None and name != "split_k":
        raise ValueError(f"split_k = {split_k} is split-K's slice count; decomposition "
                         f"{name!r} does not take it (use decomposition=\"split_k\")")
    if name is None:
        return None
    if name == "split_k":
        slices = split_k if split_k is not None else min(2, steps or 2)
        return ("split_k", {"slices": slices, "mode": split_k_mode})
    if name in ("stream_k", "persistent"):
        return (name, {"grid": grid, "sms": sms})
    if name == "data_parallel":
        return name
    return (name, {"sms": sms})


def matmul(m: int, n: int, k: int, dtype="f32", acc="f32", tile=None, decomposition=None,
           grid=None, split_k=None, split_k_mode="serial", sms=None, chip=None,
           **schedule_fields) -> Workload:
    """C[m, n] = sum over k of A[m, k] * B[k, n], products in `acc` (f32 by
    default, also for f16 inputs).

    Unscheduled it runs as loops on the CPU. With any of `tile` (BM, BN, BK),
    `decomposition` ("data_parallel", "persistent", "split_k", "stream_k",
    "stream_k_dp", "stream_k_2tile", "auto"), `grid` (the CTAs of Stream-K or
    of the persistent grid), `split_k` (slices;
    `split_k_mode` "serial" or "parallel") or other `ext.schedule` fields
    (`threads`, `cache`, `stages`, `mma`, `warps`, ...), it is a scheduled GPU
    kernel; `.run(a, b)` runs it on ext's CPU emulator (or target="cuda").
    `sms` sizes the persistent grids (`chip`'s SM count otherwise, e.g.
    "sm_90": 132). Defaults fit the sizes: split-K takes 2 slices, or as
    many as the k-loop has steps; `stages` > 1 with a single k-step (the k
    tile covers K: nothing to pipeline) builds with 1.

        >>> c = ext.matmul(64, 48, 32).run(a, b)
        >>> c = ext.matmul(300, 200, 500, dtype="float16", tile=(32, 32, 16),
        ...                decomposition="stream_k", grid=7).run(a16, b16)
    """
    chip = _check_chip(chip)
    A = _te.placeholder((m, k), dtype, name="A")
    B = _te.placeholder((k, n), dtype, name="B")
    r = _te.reduce_axis(k, name="k")
    acc = _dt.canonical(acc)
    C = _te.compute((m, n), lambda i, j: _te.sum(A[i, r].astype(acc) * B[r, j].astype(acc),
                                                 axis=r), name="C")
    w = Workload([A, B], C, chip=chip)._sized_by(
        lambda m=m, n=n, k=k: matmul(m, n, k, dtype=dtype, acc=acc, chip=chip),
        {"i": "m", "j": "n", "k": "k"})
    steps = _k_steps(k, tile)
    d = _decomposition(decomposition, grid, split_k, split_k_mode, sms, steps)
    if tile is None and d is None and not schedule_fields:
        return w
    if steps == 1 and _int(schedule_fields.get("stages")) > 1:
        schedule_fields = dict(schedule_fields, stages=1)
    return w.schedule(tile=tile, decomposition=d, **schedule_fields)


def gemv(m: int, k: int, dtype="f32") -> Workload:
    """y[m] = sum over k of A[m, k] * x[k].

        >>> y = ext.gemv(30, 17).run_cpu(a, x)
    """
    A = _te.placeholder((m, k), dtype, name="A")
    x = _te.placeholder((k,), dtype, name="x")
    r = _te.reduce_axis(k, name="k")
    y = _te.compute((m,), lambda i: _te.sum(A[i, r] * x[r], axis=r), name="y")
    return Workload([A, x], y)


def row_reduce(m: int, k: int, combiner: str = "sum", dtype="f32") -> Workload:
    """y[m] = combiner over k of X[m, k] (sum, prod, max or min).

        >>> y = ext.row_reduce(6, 5, "max").run_cpu(x)
    """
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of {_COMBINERS}, got {combiner!r}")
    X = _te.placeholder((m, k), dtype, name="X")
    r = _te.reduce_axis(k, name="k")
    reducer = getattr(_te, combiner)
    y = _te.compute((m,), lambda i: reducer(X[i, r], axis=r), name="y")
    return Workload([X], y)


def softmax(m: int, n: int, dtype="f32") -> Workload:
    """Y[i, j] = exp(X[i, j] - max_k X[i, k]) / sum_k exp(X[i, k] - max_k X[i, k])
    as four computes (row max, exponentials, row sum, division), as TVM's
    topi softmax writes it; schedule the division and fuse the others
    (`examples/python/softmax.py`), or let `ext.tune` do it.

        >>> y = ext.tune(ext.softmax(64, 1000), chip="sm_80").run(x)
    """
    X = _te.placeholder((m, n), dtype, name="X")
    k1, k2 = _te.reduce_axis(n, name="k1"), _te.reduce_axis(n, name="k2")
    row_max = _te.compute((m,), lambda i: _te.max(X[i, k1], axis=k1), name="row_max")
    e = _te.compute((m, n), lambda i, j: _te.exp(X[i, j] - row_max[i]), name="e")
    row_sum = _te.compute((m,), lambda i: _te.sum(e[i, k2], axis=k2), name="row_sum")
    Y = _te.compute((m, n), lambda i, j: e[i, j] / row_sum[i], name="softmax")
    return Workload([X], Y)._sized_by(lambda m=m, n=n: softmax(m, n, dtype),
                                      {"i": "m", "j": "n"})


def conv2d(n: int, c: int, h: int, w: int, f: int, kh: int = 3, kw: int = 3,
           padding: int = 1, dtype="f32") -> Workload:
    """Y[n, f, y, x] = sum over (c, ry, rx) of Xp[n, c, y + ry, x + rx] *
    W[f, c, ry, rx]: a direct NCHW convolution, stride 1, with `padding`
    zeros around X (`ext.pad`, inlined into the convolution by a schedule
    as guarded reads). The output is (h + 2 padding - kh + 1) x (...).

        >>> y = ext.conv2d(1, 8, 18, 18, 16).run(x, wt)
    """
    X = _te.placeholder((n, c, h, w), dtype, name="X")
    Wt = _te.placeholder((f, c, kh, kw), dtype, name="W")
    Xp = _te.pad(X, (0, 0, padding, padding)) if padding else X
    oh, ow = h + 2 * padding - kh + 1, w + 2 * padding - kw + 1
    if isinstance(oh, int) and isinstance(ow, int) and (oh < 1 or ow < 1):
        raise _error(_where(), f"ext.conv2d: a {kh} x {kw} kernel over {h} x {w} with padding "
                               f"{padding} has no output ({oh} x {ow})")
    rc, ry, rx = (_te.reduce_axis(c, "rc"), _te.reduce_axis(kh, "ry"),
                  _te.reduce_axis(kw, "rx"))
    Y = _te.compute((n, f, oh, ow), lambda b, o, y, x: _te.sum(
        Xp[b, rc, y + ry, x + rx] * Wt[o, rc, ry, rx], axis=[rc, ry, rx]), name="Y")

    def resized(n=n, c=c, oh=oh, ow=ow, f=f):
        return conv2d(n, c, oh + kh - 1 - 2 * padding, ow + kw - 1 - 2 * padding, f, kh, kw,
                      padding, dtype)
    return Workload([X, Wt], Y)._sized_by(resized, {"b": "n", "o": "f", "y": "oh",
                                                    "x": "ow", "rc": "c"})


def _int(value) -> int:
    """An int field's value, 0 when absent or not an int."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _per_axis_tile(tile, name, position):
    """A tile's entry for axis `name` (a dict) or at `position` (a list)."""
    if isinstance(tile, dict):
        return tile.get(name)
    return tile[position] if tile is not None and len(tile) > position else None


def _attention_shared_bytes(rows, head, keys, stages, elem, mma, share_kv=False):
    """Shared memory of ext-online-softmax's kernel for a tile (an upper
    bound): Q's rows, K's and V's keys per stage (V in K's bytes with
    `share_kv`, as AMD's kernel does when they would not fit), P's rows (on
    the threads, S's too, and the row statistics), each row padded by 16
    bytes."""
    pad = 16 // elem
    kv = keys * (head + pad) * stages
    if mma:
        return elem * (rows * (head + pad) + (1 if share_kv else 2) * kv + rows * (keys + pad))
    return elem * (rows * (head + pad) + 2 * kv + 2 * rows * (keys + pad)) + 5 * rows * 4


def _attention_fields(seq_kv, head_dim, dtype, chip):
    """ext.attention's schedule for these sizes on `chip` (the default if none):
    the preferred tile of rows (queries) x the head x a step of keys that
    fits the chip's shared memory; the head's tile padded to the lanes that
    share it (32 on NVIDIA, 64 on AMD); ValueError when none fits."""
    info = _chip_info(chip or DEFAULT_CHIP)
    amd, limit = info["vendor"] == "amd", info["max_shared_bytes_per_block"]
    elem = _dt.numpy_dtype(dtype).itemsize
    mma = dtype in ("f16", "bf16") and (info["has_mfma"] if amd else info["has_mma_sync"])
    # ext-online-softmax steps through the keys only in tiles other than
    # their extent (issue 59): a key step never holds exactly all the keys.
    for rows, keys, stages, cores in _attention_tiles(head_dim, amd, mma):
        head = _round_up(head_dim, 64 if amd and cores else 32)
        if keys == seq_kv or _attention_shared_bytes(rows, head, keys, stages, elem, cores,
                                                     share_kv=amd) > limit:
            continue
        if not cores:
            # No tensor-core instruction for these inputs or this chip (or
            # no tile of them fits): the GEMMs on the threads, 4 x 32 over
            # the rows and the head.
            return {"tile": (1, rows, head, keys), "blocks": ["b", "i"],
                    "threads": (1, 4, 32, 1), "vector": 4}
        fields = {"tile": (1, rows, head, keys), "blocks": ["b", "i"], "mma": "auto",
                  "warps": (rows // 16, 1), "vector": 8, "stages": stages}
        if head != head_dim and not amd:
            # A head the lanes do not divide is padded; wgmma's descriptors
            # read whole swizzled rows of it: mma.sync.
            fields["mma"] = "m16n8k16"
        return fields
    raise _error(_where(), f"ext.attention: a head of {head_dim} {dtype} values does not fit "
                           f"{info['name']}'s {limit // 1024} KB of shared memory in any tile "
                           "it chooses; pass tile= (and warps=, threads=) to choose one")


def _attention_tiles(head_dim, amd, mma):
    """(rows, keys, stages, on tensor cores) in the order ext.attention
    prefers them: tensor cores where the chip has them for the inputs, then
    the threads."""
    # (The online softmax spreads the 128 threads over a rows x keys score
    # tile: at least 128 scores.)
    threads = [(rows, keys, 1, False) for rows in (64, 32, 16, 8) for keys in (32, 64, 16, 8)
               if rows * keys >= 128]
    if not mma:
        return threads
    if amd:
        # 64 queries on 4 wavefronts; Q, K, V and P (S stays in registers)
        # fit the 64 KB of LDS up to a head of 128 (60 KB); above, 32
        # queries on 2, V in K's bytes (the kernel copies V after the scores
        # when they would not fit). One stage: the LDS holds one. AMD's
        # 64-lane fragments need 64 columns of keys.
        first = 32 if head_dim > 128 else 64
        return [(rows, keys, 1, True) for rows in (first, 32) for keys in (64, 128)] + threads
    # NVIDIA: 128 queries on 8 warps (two warpgroups of 64 rows), so each K
    # and V tile read from L2 serves 128 queries: half the L2 traffic of
    # 64-query tiles, which bound them (bench/attention); fewer where the
    # tiles would not fit. Steps of 32 keys above a head of 64: 128
    # registers a thread, so 2 blocks per SM whose phases overlap (64 keys:
    # 169, one block). K and V copied a step ahead (cp.async).
    keys = (32, 64) if head_dim > 64 else (64, 32)
    return [(rows, k, stages, True) for rows in (128, 64, 32) for stages in (2, 1)
            for k in keys] + threads


def _round_up(n, multiple):
    return -(-n // multiple) * multiple


def _causal_offset(seq_q, seq_kv) -> int:
    """c of the causal mask j <= i + c: seq_kv - seq_q (bottom-right
    aligned); 0 for one symbolic size on both."""
    return 0 if seq_q == seq_kv else seq_kv - seq_q


def _check_attention_sizes(batch_heads, seq_q, seq_kv, head_dim, causal):
    """ext.attention's symbolic sizes (`ext.var`): the sequence lengths and
    the batch; a symbolic head, and a causal mask over two different
    lengths (its offset seq_kv - seq_q would be a size the compute's body
    reads, which computes cannot yet), are refused at the call."""
    refused = [f"{name} = {size.name}" for name, size in (("head_dim", head_dim),)
               if isinstance(size, _te.Var)]
    if refused:
        raise _error(_where(), f"ext.attention: a symbolic head size is not supported "
                               f"({', '.join(refused)}): the head is the scores' reduction, "
                               "done whole in each tile; give it as an int",
                     NotImplementedError)
    if causal and seq_q != seq_kv and (isinstance(seq_q, _te.Var) or
                                       isinstance(seq_kv, _te.Var)):
        raise _error(_where(), f"ext.attention: causal=True with seq_q = {seq_q} and seq_kv = "
                               f"{seq_kv} is not supported yet: the mask j <= i + seq_kv - "
                               "seq_q would read a symbolic size in the compute's body; give "
                               "both lengths as one ext.var (a square mask) or as ints "
                               "(decode and chunked prefill are issue 58)",
                     NotImplementedError)


def attention(batch_heads: int, seq_q: int, seq_kv: int, head_dim: int, dtype="float16",
              causal: bool = False, scale: Optional[float] = None, chip=None,
              heads: Optional[int] = None, kv_heads: Optional[int] = None,
              page_size: Optional[int] = None, num_pages=None,
              **schedule_fields) -> Workload:
    """Attention's forward pass, out = softmax(scale Q K^T) V per batch-head,
    as computes (scores S, row max M, row sum L, accumulator O, out = O / L)
    scheduled as one kernel with FlashAttention's online softmax: a 128-query
    tile per block on 8 warps (64 on AMD, 32 above a head of 128), the keys
    in steps of 64 (32 above a head of 64 on NVIDIA; K and V copied a step
    ahead there),
    S = Q K^T and P V on tensor cores (`mma="auto"`: mma.sync, wgmma on
    sm_90a, MFMA on AMD), S and P on chip. The tiles are chosen for `chip`
    (sm_80 if none) and the sizes: fewer queries, a stage or keys where they
    would not fit its shared memory; a head the lanes do not divide (32 on
    NVIDIA, 64 on AMD) padded (on mma.sync on NVIDIA); a key step never all
    the keys (twice as many, half zero-filled, or 32 of 64), with nothing
    copied ahead when one step holds them; the GEMMs on the threads where
    the chip has no tensor cores for `dtype` (f32, sm_75, RDNA) or none of
    their tiles fits. ValueError when no tile fits, and for heads of 16
    bytes (8 f16 values), which the compiler cannot pad yet.
    `.build(target, chip=...)` for another chip makes them again for it.
    Q is (batch_heads, seq_q, head_dim), K and V (batch_heads, seq_kv,
    head_dim), the output like Q in `dtype`. `scale` defaults to
    1/sqrt(head_dim); `causal` hides key j from query i unless
    j <= i + seq_kv - seq_q (aligned at the bottom right, as FlashAttention
    does; key tiles past a query tile's last visible key are skipped; with
    more queries than keys, the first queries see no key and are 0).
    `schedule_fields` override the schedule's (`tile`, `warps`, `mma`, ...).
    `decomposition` (default `"auto"`) may split a tile's keys over CTAs,
    FlashDecoding's split-KV: `("split_k", {"slices": 4})`, `"stream_k"`
    (an even share of key steps per CTA) or `"data_parallel"` (each query
    tile's keys in one CTA); the partial states (accumulator, row max and
    sums) are combined by the decomposition's deterministic fixup. `auto`
    chooses from the tile count (batch-heads x query tiles), the key steps
    and the chip's SMs: at launch where a size is symbolic, so decode
    (one query, thousands of keys) fills the SMs that a batch-head per CTA
    would leave idle.
    `batch_heads`, `seq_q` and `seq_kv` may be symbolic (`ext.var`): one
    build serves every size (the query tiles and key steps counted at
    launch, the last ones masked). Refused at the call: a symbolic
    `head_dim`, and `causal` over two different lengths where one is
    symbolic (its mask would read seq_kv - seq_q).

        >>> out = ext.attention(8, 1000, 1000, 64).run(q, k, v)
        >>> ptx = ext.attention(4, 512, 777, 128, causal=True).build("nvvm", chip="sm_80").ptx
        >>> S = ext.var("S")
        >>> kernel = ext.attention(8, S, S, 64, causal=True).build()   # any S

    The serving form, as a decode step calls it (with `heads`): the first
    argument is the batch (may be an `ext.var`), `seq_kv` the cache's
    capacity per sequence, and the inputs are Q (batch, kv_heads,
    group * seq_q, head_dim) with group = heads // kv_heads (a free reshape
    of (batch, heads, seq_q, head_dim)), the cache K and V (batch, seq_kv,
    kv_heads, head_dim), or with `page_size` P pages K_cache and V_cache
    (num_pages, P, kv_heads, head_dim) found through block_table (batch,
    seq_kv // P) int32, and kv_lens (batch,) int32: sequence b attends to
    its first kv_lens[b] keys (a ragged batch; 0 gives 0). The query heads
    of a group are the rows of one tile, so each CTA reads its KV head
    once; `causal` aligns query i to the end of the sequence's keys
    (j <= i + kv_lens[b] - seq_q). The output is shaped like Q.

        >>> B = ext.var("B")
        >>> step = ext.attention(B, 1, 4096, 128, heads=32, kv_heads=8, page_size=16).build()
        >>> out = step.run(q.reshape(b, 8, 4, 128), k_cache, v_cache, table, lens)
    """
    if heads is not None or kv_heads is not None or page_size is not None:
        from .attention_serving import serving_attention
        return serving_attention(Workload, batch_heads, seq_q, seq_kv, head_dim,
                                 heads if heads is not None else kv_heads,
                                 kv_heads if kv_heads is not None else heads, dtype, causal,
                                 scale, chip, page_size, num_pages, **schedule_fields)
    _check_attention_sizes(batch_heads, seq_q, seq_kv, head_dim, causal)
    chip = _check_chip(chip)
    dtype = _dt.canonical(dtype)
    if scale is None:
        scale = 1.0 / float(np.sqrt(head_dim))
    Q = _te.placeholder((batch_heads, seq_q, head_dim), dtype, name="Q")
    K = _te.placeholder((batch_heads, seq_kv, head_dim), dtype, name="K")
    V = _te.placeholder((batch_heads, seq_kv, head_dim), dtype, name="V")
    d = _te.reduce_axis(head_dim, name="d")
    j1, j2, j3 = (_te.reduce_axis(seq_kv, name=n) for n in ("j1", "j2", "j3"))
    f32 = "float32"
    S = _te.compute((batch_heads, seq_q, seq_kv),
                    lambda b, i, j: _te.sum(_te.cast(Q[b, i, d], f32) * _te.cast(K[b, j, d], f32),
                                            axis=d), name="scores")

    # Base 2, as FlashAttention computes it: exp(x) = 2^(x log2(e)), with
    # log2(e) folded into the scale, so each score costs one ex2.
    log2e = 1.4426950408889634

    def scaled(b, i, j):
        t = S[b, i, j] * (scale * log2e)
        if causal:
            t = _te.if_then_else(j <= i + _causal_offset(seq_q, seq_kv), t,
                                 _te.const(float("-inf")))
        return t

    T = _te.compute((batch_heads, seq_q, seq_kv), scaled, name="scaled")
    M = _te.compute((batch_heads, seq_q), lambda b, i: _te.max(T[b, i, j1], axis=j1),
                    name="row_max")
    L = _te.compute((batch_heads, seq_q),
                    lambda b, i: _te.sum(_te.exp2(T[b, i, j2] - M[b, i]), axis=j2), name="row_sum")
    O = _te.compute((batch_heads, seq_q, head_dim),
                    lambda b, i, e: _te.sum(_te.exp2(T[b, i, j3] - M[b, i]) *
                                            _te.cast(V[b, j3, e], f32), axis=j3), name="acc")
    def normalized(b, i, e):
        o = O[b, i, e] / L[b, i]
        if causal and _causal_offset(seq_q, seq_kv) < 0:
            # Queries before the first key see nothing: 0, as FlashAttention.
            o = _te.if_then_else(L[b, i] > 0.0, o, 0.0)
        return _te.cast(o, dtype)

    out = _te.compute((batch_heads, seq_q, head_dim), normalized, name="out")
    fields = _attention_fields(seq_kv, head_dim, dtype, chip)
    # The keys may be split over CTAs (split-KV) where the query tiles alone
    # would leave SMs idle: `auto` weighs it at compile time, or at launch
    # over a symbolic size.
    fields["decomposition"] = "auto"
    fields.update(schedule_fields)
    keys = _per_axis_tile(fields.get("tile"), "j3", 3)
    if (isinstance(keys, int) and isinstance(seq_kv, int) and keys >= seq_kv
            and _int(fields.get("stages")) > 1):
        fields["stages"] = 1  # one key step: nothing to copy ahead
    s = _schedule(O, **fields)
    s.compute_at(S, "j3").compute_inline(T).online_softmax(M, L).reverse_compute_at(out, "e")
    w = Workload([Q, K, V], out, s, chip)
    w._retarget = lambda c: attention(batch_heads, seq_q, seq_kv, head_dim, dtype, causal, scale,
                                      c, **schedule_fields)
    return w
