"""Schedules: `ext.schedule(C, tile=..., threads=..., ...)` -> `#ext.schedule`.

The attribute is made by ext's C++ core from typed values, through the
ODS-generated constructors of `#ext.schedule` and its parts
(`ext._ext.schedules`), and verified there: its verifier's messages are
raised at the schedule's line. The fields and mma instructions offered here
are ODS's, so a field the dialect gains is a keyword here without an entry;
Python only turns its own spellings of values into typed ones (`_VALUES`
per schedule field, `_CACHE_VALUES` per cache field), other values pass as
given. Attribute text ("#dialect.name<...>", e.g. a plugin's) is accepted
wherever an attribute is and parsed in C++. Decompositions and their
parameters come from ext's registry (ext's own and the loaded plugins'),
all made by `_decomposition_attr`.
"""

import copy as _copy
import functools
import keyword
from typing import Dict

from . import te as _te
from ._ext import load_plugin as _load_plugin
from ._ext import schedules as _cpp
from .accesses import input_operands
from . import chips as _chips
from .chips import check_chip as _check_chip
from .te import _error, _where


def _make(loc, maker, **fields):
    """`maker(**fields)`, an attribute of ext's C++ core; its errors (the
    verifier's, or a value of the wrong type) raised at `loc`."""
    try:
        return maker(**fields)
    except (ValueError, TypeError) as e:
        raise _error(loc, f"invalid schedule: {e}", type(e)) from None


def _keyword(field):
    """The Python keyword of an ODS parameter: `async_` for `async` (PEP 8)."""
    return field + "_" if keyword.iskeyword(field) else field


# ext.schedule's keywords (Python spelling -> ODS parameter); those given by
# its own arguments are listed first.
_SCHEDULE_FIELDS = {_keyword(f): f for f in _cpp.fields("schedule")}
_ARGUMENTS = ["tile", "threads", "blocks", "cache", "decomposition"]


def _int_list(field, value, loc, length):
    if not (isinstance(value, (tuple, list)) and len(value) == length
            and all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in value)):
        raise _error(loc, f"schedule {field} takes {length} positive integers, got {value!r}")
    return list(value)


def _is_attribute(value):
    return isinstance(value, str) and value.lstrip().startswith("#")


def _layout(value, loc):
    """"cyclic", ("blocked", [TM, TN]) (each thread a TM x TN block of the
    tile), or attribute text."""
    if _is_attribute(value):
        return value
    if value == "cyclic":
        return _make(loc, _cpp.cyclic)
    if isinstance(value, (tuple, list)) and len(value) == 2 and value[0] == "blocked":
        return _make(loc, _cpp.blocked, thread_tile=_int_list("layout", value[1], loc, 2))
    raise _error(loc, "schedule layout must be 'cyclic', ('blocked', [TM, TN]) or attribute "
                      f"text '#ext....', got {value!r}")


def mma_names():
    """The instructions `ext.schedule(mma=...)` takes, "auto" first: ODS's
    MmaShape, whose C++ verifier checks that the chip and types have it.

        >>> ext.mma_names()
        ['auto', 'm16n8k16', 'm16n8k8', 'mfma_32x32x8', 'mfma_16x16x16', 'mfma_32x32x2', 'wgmma_k16']
    """
    return _cpp.mma_names()


def _mma(value, loc):
    """"auto" (the chip's best instruction for the types), one of
    `mma_names()`, or attribute text."""
    if _is_attribute(value):
        return value
    if isinstance(value, str) and value in mma_names():
        return _make(loc, _cpp.mma, shape=value)
    raise _error(loc, "schedule mma must be 'auto', an instruction such as 'm16n8k16' or "
                      f"'mfma_32x32x8', or attribute text '#ext.mma<...>', got {value!r} "
                      f"(expected ::ext::MmaShape to be one of: {', '.join(mma_names())})")


# Schedule fields whose Python values are not the C++ ones: name -> (value,
# loc) -> value for ext._ext.schedules.schedule.
_VALUES = {
    "layout": _layout,
    "mma": _mma,
    "warps": lambda v, loc: _int_list("warps", v, loc, 2),
}


# Tile decompositions come from ext's registry (ext's own and the loaded
# plugins'): name -> parameters. `sms`: the SM (CU) count the persistent
# grids are sized for; None takes the chip's. `grid`: Stream-K's CTA count
# (None: one per SM).
def _decompositions() -> Dict[str, list]:
    return {name: params for name, _, params in _cpp.decompositions()}


def _align(value, loc):
    triples = [value] if (isinstance(value, (tuple, list)) and len(value) == 3
                          and all(isinstance(x, int) for x in value)) else list(value)
    for t in triples:
        if not (isinstance(t, (tuple, list)) and len(t) == 3
                and all(isinstance(x, int) and not isinstance(x, bool) for x in t)):
            raise _error(loc, f"storage_align takes (dim, factor, offset) triples, got {t!r}")
    return [_make(loc, _cpp.storage_align, dim=d, factor=f, offset=o) for d, f, o in triples]


def _xor_swizzle(value, loc):
    if not (isinstance(value, (tuple, list)) and len(value) in (3, 4)
            and all(isinstance(x, int) and not isinstance(x, bool) for x in value)):
        raise _error(loc, f"swizzle takes (bits, base, shift) or (bits, base, shift, panel), "
                          f"got {value!r}")
    return _make(loc, _cpp.swizzle, bits=value[0], base=value[1], shift=value[2],
                 panel=value[3] if len(value) == 4 else 0)


# Fields of one cache entry (#ext.cache<operand = N, ...>; the operand comes
# from the tensor) whose Python values are not the C++ ones, and aliases.
_CACHE_VALUES = {
    "align": _align,
    "swizzle": _xor_swizzle,
}
_CACHE_ALIASES = {"storage_align": "align"}
_CACHE_FIELDS = sorted((set(_cpp.fields("cache")) - {"operand"}) | set(_CACHE_ALIASES))


def decomposition_names():
    """The decompositions this build knows (with the loaded plugins').

        >>> ext.decomposition_names()
        ['auto', 'data_parallel', 'split_k', 'stream_k', 'stream_k_2tile', 'stream_k_dp']
    """
    return sorted(_decompositions())


def decomposition_parameters(name: str):
    """The parameters decomposition `name` takes, as its attribute names them.

        >>> ext.decomposition_parameters("split_k")
        ['slices', 'mode']
    """
    params = _decompositions().get(name)
    if params is None:
        raise ValueError(f"unknown decomposition {name!r}; valid decompositions: "
                         f"{', '.join(decomposition_names())}")
    return list(params)


def schedule_fields():
    """Every keyword `ext.schedule` takes (`async_` is ODS's `async`).

        >>> ext.schedule_fields()
        ['tile', 'threads', 'blocks', 'cache', 'decomposition', 'async_', 'layout', 'mma', 'raster', 'stages', 'swizzle', 'unroll', 'vector', 'warps']
    """
    return _ARGUMENTS + sorted(k for k in _SCHEDULE_FIELDS if k not in _ARGUMENTS)


def _decomposition_attr(value, loc):
    """The decomposition attribute for a name, (name, {params}) or attribute
    text: the one place decompositions are made."""
    if _is_attribute(value):
        return _make(loc, _cpp.parse, text=value)  # checked by the C++ parser
    params: Dict = {}
    if isinstance(value, (tuple, list)) and len(value) == 2 and isinstance(value[1], dict):
        value, params = value
    known = _decompositions()
    if not isinstance(value, str) or value not in known:
        raise _error(loc, f"unknown decomposition {value!r}; valid decompositions: "
                          f"{', '.join(sorted(known))} (or attribute text, "
                          "'#ext.name<...>')")
    unexpected = [k for k in params if k not in known[value]]
    if unexpected:
        raise _error(loc, f"decomposition {value!r}: unexpected keyword {unexpected[0]!r} "
                          f"(it takes {', '.join(known[value]) or 'none'})")
    return _make(loc, functools.partial(_cpp.decomposition, value), **params)


def load_plugin(path: str):
    """Loads a dialect and/or pass plugin built against this ext: its passes
    are registered and its dialects reach every Context and `ext.schedule`
    (attribute text such as `decomposition="#my_plugin.order<...>"`).
    ImportError if it cannot be loaded or was built against another ext
    version.

        >>> ext.load_plugin("ExtExamplePlugin.so")  # doctest: +SKIP
    """
    _load_plugin(path)
    _cpp.load_plugin_dialects(path)


def _as_compute(target, loc) -> "_te.ComputeOp":
    if isinstance(target, Schedule):
        return target.op
    if isinstance(target, _te.Tensor):
        if target.op is None:
            raise _error(loc, f"'{target.name}' is a placeholder; only computes have "
                              "schedules")
        return target.op
    if isinstance(target, _te.ComputeOp):
        return target
    if isinstance(target, tuple) and target and isinstance(target[0], _te.Tensor):
        return _as_compute(target[0], loc)
    raise _error(loc, f"ext.schedule takes a compute's tensor, got {target!r}", TypeError)


def _per_axis(field, value, axes, loc):
    """A list in axis order (spatial then reduce) from a sequence or a dict
    keyed by axes or names."""
    if isinstance(value, dict):
        out = {}
        for key, v in value.items():
            name = key.name if isinstance(key, _te.IterVar) else key
            if name not in [a.name for a in axes]:
                raise _error(loc, f"{field} names axis {name!r}; the compute's axes are "
                                  f"{[a.name for a in axes]}")
            out[name] = v
        return out
    value = [value] if isinstance(value, int) else list(value)
    if len(value) != len(axes):
        raise _error(loc, f"{field} has {len(value)} entries but the compute has "
                          f"{len(axes)} axes {[a.name for a in axes]}")
    return {a.name: v for a, v in zip(axes, value)}


class Schedule:
    """How one compute runs on a GPU: built by `ext.schedule`; `attr` is its
    `#ext.schedule` (ext's C++ attribute), `text()` prints it."""

    def __init__(self, op, tile, threads, blocks, attr, loc, fields=None):
        self.op = op
        self.tile = tile
        self.threads = threads
        self.blocks = blocks
        self.attr = attr
        self.loc = loc
        # The attribute's fields, to make it again with more (fusion).
        self._fields = fields or {}
        # Computes fused into this one's kernel: consumers
        # (reverse_compute_at, with their #ext.at) and producers
        # (compute_at, with theirs; compute_inline).
        self.attached = []
        self._attached_at = []
        self.producers = []
        self._producers_at = []
        self.inlined = []
        # The online-softmax rewrite: the max reduction, then the sums.
        self.online = []

    _auto_lanes = None  # the threads entry that is the chip's lanes (mma="auto")

    def _for_lanes(self, lanes) -> "Schedule":
        """This schedule with `lanes` threads per warp where its threads were
        derived for mma="auto" (64 on AMD, 32 on NVIDIA), else itself."""
        if self._auto_lanes is None or self.threads[self._auto_lanes] == lanes:
            return self
        other = _copy.copy(self)
        other.threads = list(self.threads)
        other.threads[self._auto_lanes] = lanes
        other._fields = dict(self._fields, threads=other.threads)
        other._remake(self.loc)
        return other

    def _remake(self, loc):
        self.attr = _make(loc, _cpp.schedule, **self._fields,
                          compute_at=self._producers_at,
                          reverse_compute_at=self._attached_at,
                          compute_inline=[t.op.name for t in self.inlined],
                          online=[t.op.name for t in self.online])

    def _fused(self, method, tensor, loc):
        if not isinstance(tensor, _te.Tensor) or tensor.op is None:
            raise _error(loc, f"{method} takes a tensor from ext.compute, got "
                              f"{tensor!r}", TypeError)
        if tensor.op is self.op:
            raise _error(loc, f"{method}: '{tensor.name}' is the scheduled "
                              "compute itself")
        if any(t.op is tensor.op
               for t in self.attached + self.producers + self.inlined + self.online):
            raise _error(loc, f"{method}: '{tensor.name}' is already fused into "
                              f"'{self.op.name}'")

    @staticmethod
    def _axis_name(method, axis, loc):
        name = axis if isinstance(axis, str) else getattr(axis, "name", None)
        if not isinstance(name, str):
            raise _error(loc, f"{method} takes an axis or its name, got {axis!r}",
                         TypeError)
        return name

    def compute_at(self, producer, axis) -> "Schedule":
        """Computes `producer`, a compute whose output this compute reads (a
        reduction too), inside this kernel at the tile loop of `axis` (an axis
        this schedule binds to blocks, or its name): for each tile, over
        exactly the region of its output the tile reads, its reduce axes
        whole, into shared memory that this compute then reads. It reads
        its own inputs from this schedule's cached tiles where they cover
        what it reads (softmax reads X from global memory once). Returns
        the schedule.

            >>> s = ext.schedule(y, tile=(1, 1024), threads=(1, 256), cache=[X])
            >>> s.compute_at(row_max, "i").compute_at(row_sum, "i").compute_inline(e)
            >>> ext.build(s)   # one kernel
        """
        loc = _where()
        self._fused("compute_at", producer, loc)
        name = self._axis_name("compute_at", axis, loc)
        self._producers_at.append(_make(loc, _cpp.at, compute=producer.op.name, axis=name))
        self.producers.append(producer)
        self._remake(loc)
        return self

    def compute_inline(self, producer) -> "Schedule":
        """Substitutes `producer`, an element-wise compute whose output this
        compute reads (a cast, a scale, a dequantization), into this compute:
        the kernel reads the producer's inputs and applies its body where it
        read its element, so the producer costs no kernel and no round trip
        through memory. Returns the schedule.

            >>> Af = ext.compute((M, K), lambda i, k: ext.cast(A[i, k], "float32") * scale)
            >>> s = ext.schedule(C, tile=(64, 64, 16), cache=[Af]).compute_inline(Af)
        """
        loc = _where()
        self._fused("compute_inline", producer, loc)
        self.inlined.append(producer)
        self._remake(loc)
        return self

    def online_softmax(self, row_max, *sums) -> "Schedule":
        """FlashAttention's online softmax: `row_max` (a max reduction over
        this compute's reduce axis, the keys) and `sums` (sums over the
        keys, such as the softmax's denominator) are computed in this
        kernel in one pass over the keys together with this compute (a sum
        over the keys whose summand reads `row_max` only in a factor
        `exp(x - row_max)`): each k-step takes the running maximum and
        rescales what was summed so far. A producer of the scores attached
        at the key axis (`compute_at`) is computed per k-step on chip, and
        the consumer fused by `reverse_compute_at` may read `row_max` and
        the sums. Returns the schedule.

            >>> s = ext.schedule(O, tile=(1, 64, 64, 64), mma="auto", warps=(4, 1))
            >>> s.compute_at(S, "j").online_softmax(M, L).reverse_compute_at(out, "e")
        """
        loc = _where()
        if not sums:
            raise _error(loc, "online_softmax takes the max reduction and at least one "
                              "sum over the same keys (row_max, row_sum)", TypeError)
        for t in (row_max,) + sums:
            self._fused("online_softmax", t, loc)
        self.online.extend((row_max,) + sums)
        self._remake(loc)
        return self

    def reverse_compute_at(self, consumer, axis) -> "Schedule":
        """Fuses `consumer`, an element-wise compute that reads this
        compute's output at the point it writes (bias, activation, residual,
        a cast), into this kernel: its body runs on each finished output tile
        in registers before the store, at the tile of `axis` (an axis this
        schedule binds to blocks, or its name). Returns the schedule.

            >>> D = ext.compute((M, N), lambda i, j: ext.max(C[i, j] + bias[j], 0.0))
            >>> s = ext.schedule(C, tile=(64, 64, 16)).reverse_compute_at(D, "j")
            >>> ext.build(s).run(a, b, bias)   # one kernel
        """
        loc = _where()
        self._fused("reverse_compute_at", consumer, loc)
        name = self._axis_name("reverse_compute_at", axis, loc)
        if self.attached:
            raise _error(loc, f"compute '{self.op.name}' already fuses "
                              f"'{self.attached[0].name}'; one consumer is supported "
                              "(write the chain as one compute)")
        self._attached_at.append(_make(loc, _cpp.at, compute=consumer.op.name, axis=name))
        self.attached.append(consumer)
        self._remake(loc)
        return self

    def text(self) -> str:
        """The schedule as `#ext.schedule<...>` attribute text, as the IR
        prints it.

            >>> ext.schedule(C, tile=(32, 32, 8)).text()  # C: 64x64, k: 64
            '#ext.schedule<tile = [32, 32, 8], blocks = ["i", "j"], threads = [32, 32, 1]>'
        """
        return str(self.attr)

    def __repr__(self):
        return f"Schedule({self.op.name}: {self.text()})"


def _default_tile(axes):
    spatial = [a for a in axes if a.kind == "spatial"]
    tile = {}
    # The two innermost spatial axes get 16 x 16 points (one thread each); a
    # single spatial axis gets 128; reduce axes step 16 at a time (only the
    # first one is split).
    inner = {a.name for a in spatial[-2:]}
    split_reduce = False
    for a in axes:
        if a.kind == "spatial":
            size = (128 if len(spatial) == 1 else 16) if a.name in inner else 1
            # A symbolic extent (ext.var) may be any size: the full tile.
            tile[a.name] = size if isinstance(a.extent, _te.Var) else _te._pymin(a.extent, size)
        elif not split_reduce or isinstance(a.extent, _te.Var):
            # A symbolic reduce extent is stepped through, 16 at a time.
            tile[a.name] = 16 if isinstance(a.extent, _te.Var) else _te._pymin(a.extent, 16)
            split_reduce = True
        else:
            tile[a.name] = a.extent
    return tile


# ext.tune, set by ext.tuning when it is imported (it imports this module,
# so this one does not import it).
_TUNER = None


def _set_tuner(tune):
    global _TUNER
    _TUNER = tune


def schedule(compute, tile=None, threads=None, blocks=None, cache=(),
             decomposition=None, tuned=False, chip=None, **fields) -> Schedule:
    """A schedule for `compute` (a tensor from `ext.compute`): every argument
    is optional (`ext.schedule(C)` alone builds and runs).

    * `tile`: tile size per axis, spatial then reduce axes (a list, or a dict
      keyed by axis or name). Spatial axes tiled below their extent are bound
      to blocks; the one reduce axis tiled below its extent is iterated.
    * `threads`: threads per axis (default: one per point of a spatial tile).
    * `blocks`: axis names bound to blocks (default: the tiled spatial axes).
    * `cache`: inputs staged in shared memory: `A`, or `(A, [(dim, factor,
      offset), ...])` with TVM storage_align triples, or `(A, {field: value})`
      with `#ext.cache`'s fields: "align" (alias "storage_align": the
      triples) or "swizzle" ((bits, base, shift[, panel]): an `#ext.swizzle`
      of the shared tile instead of padding); the compute itself (`C`, with
      reduce axes) stages its output: the epilogue writes the tile to shared
      memory, then stores coalesced rows.
    * `decomposition`: one of `ext.decomposition_names()`, `(name, {params})`
      or attribute text `"#ext...."`.
    * Attribute text (`"#dialect.name<...>"`, e.g. a plugin's) is accepted
      wherever a value is an attribute (`decomposition`, `layout`, `mma`).
    * `raster` ("row"/"col"), `swizzle`, `vector`, `unroll`, `stages` (shared
      buffers per cached input; >= 2 pipelines the k-loop): see
      `ext.schedule_fields()`.
    * `tuned=True` (with `chip=`, default sm_80): the schedule `ext.tune`
      finds, read from the tuning database when it was found before.
    * `async_` (the attribute's `async`; `async` is a Python keyword): with
      `stages >= 2`, whether the copies into shared memory may be
      asynchronous (cp.async on sm_80 and later; True by default); False
      stages them through registers.
    * `fast_math` (True by default): the kernel's f32 exponentials,
      divisions, rsqrt and tanh as the GPU's approximate instructions
      (ex2.approx.ftz, rcp.approx.ftz, ...) and multiply-adds fused into
      FMAs; False keeps the precise forms (docs/FastMath.md).
    * `layout`: the threads' points of the tile, "cyclic" or ("blocked",
      [TM, TN]) (register blocking: each thread a TM x TN block).
    * `mma` and `warps`: tensor cores. `mma` is one of `ext.mma_names()`:
      "auto" or an instruction ("m16n8k16", "m16n8k8", "mfma_32x32x8",
      "mfma_16x16x16", "mfma_32x32x2", "wgmma_k16": sm_90a's warpgroup MMA,
      with warps = [M / 16, 1] and the inputs cached in its swizzled
      layouts, see the #ext.mma docs), `warps` = [WM, WN] warps over the
      tile (the block has WM * WN warps: 32 lanes on NVIDIA, 64 on AMD).
      Threads under mma: without `threads`, the block is WM * WN threads on
      the second-innermost spatial axis times the lanes on the innermost
      (`threads = [WM * WN, lanes, 1]` for C[i, j] += A[i, k] * B[k, j]); the
      instruction spreads them over the tile. With mma="auto" the lanes are
      the chip's, chosen when `ext.build` knows it: the same schedule builds
      for sm_80 and sm_90a (mma.sync, [4, 32, 1] for warps=(2, 2)) and
      gfx942 (MFMA, [4, 64, 1]). A named instruction takes its vendor's lanes
      and exists on that vendor's chips only.

        >>> s = ext.schedule(C, tile=(64, 64, 16), cache=[A, B], mma="auto", warps=(2, 2))
        >>> ext.build(s, "nvvm", chip="sm_80"); ext.build(s, "rocdl", chip="gfx942")

        >>> s = ext.schedule(C, tile=(64, 64, 16), threads=(16, 16, 1),
        ...                  cache=[(A, [(0, 32, 1)]), B], decomposition="data_parallel")
        >>> kernel = ext.build(s, target="nvvm", chip="sm_90")
    """
    loc = _where()
    if tuned:
        given = [n for n, v in (("tile", tile), ("threads", threads), ("blocks", blocks),
                                ("cache", cache or None), ("decomposition", decomposition))
                 if v is not None] + list(fields)
        if given:
            raise _error(loc, f"tuned=True finds the whole schedule; drop {', '.join(given)} "
                              "(or call ext.tune for more control)")
        return _TUNER(compute, chip=_check_chip(chip, loc=loc) or _chips.DEFAULT_CHIP)
    if chip is not None:
        raise _error(loc, "chip= goes with tuned=True (a schedule itself serves any chip)")
    op = _as_compute(compute, loc)
    for name in fields:
        if name in ("compute_at", "reverse_compute_at", "compute_inline", "online"):
            raise _error(loc, "fuse computes with the schedule's methods: "
                              "ext.schedule(C, ...).compute_at(P, axis), "
                              ".reverse_compute_at(D, axis), .compute_inline(T) or "
                              ".online_softmax(M, L)")
        if name not in _SCHEDULE_FIELDS or name in _ARGUMENTS:
            raise _error(loc, f"schedule field {name!r} does not exist in this build of "
                              f"ext; valid fields: {', '.join(schedule_fields())}")
    axes = op.all_axes
    names = [a.name for a in axes]
    tiles = _default_tile(axes)
    if tile is not None:
        tiles.update(_per_axis("tile", tile, axes, loc))
    for name in names:
        t = tiles[name]
        if isinstance(t, bool) or not isinstance(t, int) or t <= 0:
            raise _error(loc, f"tile of axis '{name}' must be a positive integer, got {t!r}")

    warps = fields.get("warps")
    spatial_names = [a.name for a in axes if a.kind == "spatial"]
    auto_lanes = None
    if threads is None and fields.get("mma") is not None and warps is not None \
            and len(spatial_names) >= 2:
        # Tensor cores: the block is the warps' lanes (64 in an AMD wave),
        # laid out as in the examples: warps x lanes over the two innermost
        # spatial axes.
        mma = fields["mma"]
        row = _chips.matrix_instruction(mma)
        lanes = row["lanes"] if row else 32
        # mma="auto" is portable: the lanes are the chip's, set when
        # ext.build knows it (Schedule._for_lanes).
        if mma == "auto":
            auto_lanes = names.index(spatial_names[-1])
        counts = {n: 1 for n in names}
        counts[spatial_names[-2]] = _prod(warps) if isinstance(warps, (tuple, list)) else 1
        counts[spatial_names[-1]] = lanes
    elif threads is None:
        counts = {a.name: (tiles[a.name] if a.kind == "spatial" else 1) for a in axes}
        # Keep the block within 1024 threads: halve the largest even count.
        while _prod(counts.values()) > 1024:
            name = _te._pymax((n for n in counts if counts[n] % 2 == 0),
                              key=lambda n: counts[n], default=None)
            if name is None:
                break
            counts[name] //= 2
    else:
        counts = _per_axis("threads", threads, axes, loc)
        counts = {n: counts.get(n, 1) for n in names}
    for name in names:
        t = counts[name]
        if isinstance(t, bool) or not isinstance(t, int) or t <= 0:
            raise _error(loc, f"threads of axis '{name}' must be a positive integer, "
                              f"got {t!r}")

    if blocks is None:
        blocks = [a.name for a in axes if a.kind == "spatial" and
                  (isinstance(a.extent, _te.Var) or tiles[a.name] < a.extent)]
    else:
        blocks = [b.name if isinstance(b, _te.IterVar) else b for b in blocks]
        for b in blocks:
            if b not in names:
                raise _error(loc, f"blocks names axis {b!r}; the compute's axes are {names}")

    entries = []
    for entry in ([cache] if isinstance(cache, _te.Tensor) else list(cache)):
        extra = None
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise _error(loc, f"a cache entry is a tensor or (tensor, storage_align), "
                                  f"got {entry!r}")
            entry, extra = entry
        if not isinstance(entry, _te.Tensor):
            raise _error(loc, f"cache takes the compute's input tensors, got {entry!r}",
                         TypeError)
        # The compute's own output: staged through shared memory by the
        # epilogue (the operand after the inputs).
        operands = ([len(input_operands(op, None))] if entry is compute
                    else input_operands(op, entry))
        if not operands:
            raise _error(loc, f"cache names '{entry.name}', which compute '{op.name}' "
                              "does not read")
        values = {}
        if extra is not None:
            items = extra.items() if isinstance(extra, dict) else [("align", extra)]
            for key, value in items:
                if key not in _CACHE_FIELDS:
                    raise _error(loc, f"cache field {key!r} does not exist in this build "
                                      f"of ext; valid: {', '.join(_CACHE_FIELDS)}")
                key = _CACHE_ALIASES.get(key, key)
                values[key] = _CACHE_VALUES.get(key, _as_given)(value, loc)
        for operand in operands:
            entries.append(_make(loc, _cpp.cache, operand=operand, **values))

    values = {_SCHEDULE_FIELDS[name]: _VALUES.get(name, _as_given)(value, loc)
              for name, value in fields.items() if value is not None}
    if decomposition is not None:
        values["decomposition"] = _decomposition_attr(decomposition, loc)
    made = dict(tile=[tiles[n] for n in names], threads=[counts[n] for n in names],
                blocks=blocks, cache=entries, **values)
    attr = _make(loc, _cpp.schedule, **made)
    s = Schedule(op, [tiles[n] for n in names], [counts[n] for n in names], blocks,
                 attr, loc, made)
    s._auto_lanes = auto_lanes
    return s


def _as_given(value, loc):
    return value


def _prod(values):
    p = 1
    for v in values:
        p *= v
    return p
