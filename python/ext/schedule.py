"""Schedules: `ext.schedule(C, tile=..., threads=..., ...)` -> `#ext.schedule`.

Each field maps to the attribute's text through one table, so a field the
dialect gains is one entry here (`_FIELDS`, `_DECOMPOSITIONS`,
`_CACHE_FIELDS`); a name not in a table raises a ValueError listing the
valid ones. The text is parsed and verified by ext's C++ core with the
compute, and its verifier's messages are raised at the schedule's line.
"""

import re
from typing import Dict, Optional, Sequence

from . import te as _te
from .te import _error, _where


def _positive_int(field, value, loc):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise _error(loc, f"schedule {field} must be a positive integer, got {value!r}")
    return value


def _raster(value, loc):
    if value not in ("row", "col"):
        raise _error(loc, f"schedule raster must be 'row' or 'col', got {value!r}")
    return f"raster = {value}"


def _int_list(field, value, loc, length):
    if not (isinstance(value, (tuple, list)) and len(value) == length
            and all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in value)):
        raise _error(loc, f"schedule {field} takes {length} positive integers, got {value!r}")
    return "[" + ", ".join(map(str, value)) + "]"


def _is_attribute(value):
    return isinstance(value, str) and value.lstrip().startswith("#")


def _layout(value, loc):
    """"cyclic", ("blocked", [TM, TN]) (each thread a TM x TN block of the
    tile), or attribute text."""
    if _is_attribute(value):
        return f"layout = {value}"
    if value == "cyclic":
        return "layout = #ext.cyclic"
    if isinstance(value, (tuple, list)) and len(value) == 2 and value[0] == "blocked":
        return f"layout = #ext.blocked<thread_tile = {_int_list('layout', value[1], loc, 2)}>"
    raise _error(loc, "schedule layout must be 'cyclic', ('blocked', [TM, TN]) or attribute "
                      f"text '#ext....', got {value!r}")


def _mma(value, loc):
    """"auto" (the chip's best instruction for the types), an instruction
    ("m16n8k16", "m16n8k8", "mfma_32x32x8", ...) or attribute text. The C++
    verifier checks that the chip and types have it."""
    if value == "auto":
        return "mma = auto"
    if _is_attribute(value):
        return f"mma = {value}"
    if isinstance(value, str) and re.fullmatch(r"m\d+n\d+k\d+|mfma_\d+x\d+x\d+|wgmma_k\d+", value):
        return f"mma = #ext.mma<{value}>"
    raise _error(loc, "schedule mma must be 'auto', an instruction such as 'm16n8k16' or "
                      f"'mfma_32x32x8', or attribute text '#ext.mma<...>', got {value!r}")


# Scalar fields of #ext.schedule: name -> (value, loc) -> text.
_FIELDS = {
    "layout": _layout,
    "mma": _mma,
    "warps": lambda v, loc: f"warps = {_int_list('warps', v, loc, 2)}",
    "raster": _raster,
    "swizzle": lambda v, loc: f"swizzle = {_positive_int('swizzle', v, loc)}",
    "vector": lambda v, loc: f"vector = {_positive_int('vector', v, loc)}",
    "unroll": lambda v, loc: f"unroll = {_positive_int('unroll', v, loc)}",
    "stages": lambda v, loc: f"stages = {_positive_int('stages', v, loc)}",
}

# Tile decompositions: name -> (**parameters) -> attribute text.
def _params(**params):
    """`<a = 1, b = 2>` for the parameters given (None: the attribute's default)."""
    given = [f"{k} = {v}" for k, v in params.items() if v is not None]
    return f"<{', '.join(given)}>" if given else ""


# `sms`: the SM (CU) count the persistent grids are sized for; None takes the
# chip's. `grid`: Stream-K's CTA count (None: one per SM).
_DECOMPOSITIONS = {
    "data_parallel": lambda: "#ext.data_parallel",
    "split_k": lambda slices=2, mode="serial":
        f"#ext.split_k<slices = {slices}, mode = {mode}>",
    "stream_k": lambda grid=None, sms=None: "#ext.stream_k" + _params(grid=grid, sms=sms),
    "stream_k_dp": lambda sms=None: "#ext.stream_k_dp" + _params(sms=sms),
    "stream_k_2tile": lambda sms=None: "#ext.stream_k_2tile" + _params(sms=sms),
    "auto": lambda sms=None: "#ext.auto" + _params(sms=sms),
}


def _align(value, loc):
    triples = [value] if (isinstance(value, (tuple, list)) and len(value) == 3
                          and all(isinstance(x, int) for x in value)) else list(value)
    parts = []
    for t in triples:
        if not (isinstance(t, (tuple, list)) and len(t) == 3
                and all(isinstance(x, int) and not isinstance(x, bool) for x in t)):
            raise _error(loc, f"storage_align takes (dim, factor, offset) triples, got {t!r}")
        parts.append("#ext.storage_align<dim = {}, factor = {}, offset = {}>".format(*t))
    return f"align = [{', '.join(parts)}]"


def _xor_swizzle(value, loc):
    if not (isinstance(value, (tuple, list)) and len(value) in (3, 4)
            and all(isinstance(x, int) and not isinstance(x, bool) for x in value)):
        raise _error(loc, f"swizzle takes (bits, base, shift) or (bits, base, shift, panel), "
                          f"got {value!r}")
    panel = f", panel = {value[3]}" if len(value) == 4 and value[3] else ""
    return "swizzle = #ext.swizzle<bits = {}, base = {}, shift = {}{}>".format(*value[:3], panel)


# Fields of one cache entry (#ext.cache<operand = N, ...>).
_CACHE_FIELDS = {
    "align": _align,
    "storage_align": _align,
    "swizzle": _xor_swizzle,
}


def decomposition_names():
    """The decompositions this build knows.

        >>> ext.decomposition_names()
        ['auto', 'data_parallel', 'split_k', 'stream_k', 'stream_k_2tile', 'stream_k_dp']
    """
    return sorted(_DECOMPOSITIONS)


def schedule_fields():
    """Every keyword `ext.schedule` takes.

        >>> ext.schedule_fields()
        ['tile', 'threads', 'blocks', 'cache', 'decomposition', 'layout', 'mma', 'raster', 'stages', 'swizzle', 'unroll', 'vector', 'warps']
    """
    return ["tile", "threads", "blocks", "cache", "decomposition"] + sorted(_FIELDS)


def _decomposition_text(value, loc):
    if isinstance(value, str) and value.lstrip().startswith("#"):
        return value  # attribute text, checked by the C++ parser
    params: Dict = {}
    if isinstance(value, (tuple, list)) and len(value) == 2 and isinstance(value[1], dict):
        value, params = value
    if not isinstance(value, str) or value not in _DECOMPOSITIONS:
        raise _error(loc, f"unknown decomposition {value!r}; valid decompositions: "
                          f"{', '.join(decomposition_names())} (or attribute text, "
                          "'#ext.name<...>')")
    try:
        return _DECOMPOSITIONS[value](**params)
    except TypeError as e:
        raise _error(loc, f"decomposition {value!r}: {e}") from None


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
    """How one compute runs on a GPU: built by `ext.schedule`, printed as
    `#ext.schedule<...>` by `text()`."""

    def __init__(self, op, tile, threads, blocks, cache_entries, decomposition, fields, loc):
        self.op = op
        self.tile = tile
        self.threads = threads
        self.blocks = blocks
        self.cache_entries = cache_entries
        self.decomposition = decomposition
        self.fields = fields
        self.loc = loc

    def text(self) -> str:
        """The schedule as `#ext.schedule<...>` attribute text.

            >>> ext.schedule(C, tile=(32, 32, 8)).text()  # C: 64x64, k: 64
            '#ext.schedule<tile = [32, 32, 8], blocks = ["i", "j"], threads = [32, 32, 1]>'
        """
        parts = [f"tile = [{', '.join(map(str, self.tile))}]"]
        if self.blocks:
            parts.append("blocks = [" + ", ".join(f'"{b}"' for b in self.blocks) + "]")
        parts.append(f"threads = [{', '.join(map(str, self.threads))}]")
        if self.cache_entries:
            parts.append("cache = [" + ", ".join(self.cache_entries) + "]")
        if self.decomposition:
            parts.append(f"decomposition = {self.decomposition}")
        parts.extend(self.fields)
        return "#ext.schedule<" + ", ".join(parts) + ">"

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
            tile[a.name] = _te._pymin(a.extent, size)
        elif not split_reduce:
            tile[a.name] = _te._pymin(a.extent, 16)
            split_reduce = True
        else:
            tile[a.name] = a.extent
    return tile


def schedule(compute, tile=None, threads=None, blocks=None, cache=(),
             decomposition=None, **fields) -> Schedule:
    """A schedule for `compute` (a tensor from `ext.compute`): every argument
    is optional (`ext.schedule(C)` alone builds and runs).

    * `tile`: tile size per axis, spatial then reduce axes (a list, or a dict
      keyed by axis or name). Spatial axes tiled below their extent are bound
      to blocks; the one reduce axis tiled below its extent is iterated.
    * `threads`: threads per axis (default: one per point of a spatial tile).
    * `blocks`: axis names bound to blocks (default: the tiled spatial axes).
    * `cache`: inputs staged in shared memory: `A`, or `(A, [(dim, factor,
      offset), ...])` with TVM storage_align triples, or `(A, {"align": ...})`;
      the compute itself (`C`, with reduce axes) stages its output: the
      epilogue writes the tile to shared memory, then stores coalesced rows.
    * `decomposition`: one of `ext.decomposition_names()`, `(name, {params})`
      or attribute text `"#ext...."`.
    * `raster` ("row"/"col"), `swizzle`, `vector`, `unroll`, `stages` (shared
      buffers per cached input; >= 2 pipelines the k-loop): see
      `ext.schedule_fields()`.
    * `layout`: the threads' points of the tile, "cyclic" or ("blocked",
      [TM, TN]) (register blocking: each thread a TM x TN block).
    * `mma` and `warps`: tensor cores. `mma` is "auto" or an instruction
      ("m16n8k16", "m16n8k8", "mfma_32x32x8", "mfma_16x16x16",
      "mfma_32x32x2", "wgmma_k16": sm_90a's warpgroup MMA, with warps =
      [M / 16, 1] and the inputs cached in its swizzled layouts, see the
      #ext.mma docs), `warps` = [WM, WN] warps over the tile (the block has
      WM * WN warps: 32 lanes on NVIDIA, 64 on AMD; without `threads`, the
      block is WM * WN x lanes over the two innermost spatial axes, with 64
      lanes for an "mfma_..." instruction: give `threads` for "auto" on AMD).

        >>> s = ext.schedule(C, tile=(64, 64, 16), threads=(16, 16, 1),
        ...                  cache=[(A, [(0, 32, 1)]), B], decomposition="data_parallel")
        >>> kernel = ext.build(s, target="nvvm", chip="sm_90")
    """
    loc = _where()
    op = _as_compute(compute, loc)
    for name in fields:
        if name not in _FIELDS:
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
    if threads is None and fields.get("mma") is not None and warps is not None \
            and len(spatial_names) >= 2:
        # Tensor cores: the block is the warps' lanes (64 in an AMD wave),
        # laid out as in the examples: warps x lanes over the two innermost
        # spatial axes.
        mma = fields["mma"]
        lanes = 64 if isinstance(mma, str) and "mfma" in mma else 32
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
        blocks = [a.name for a in axes if a.kind == "spatial" and tiles[a.name] < a.extent]
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
        operands = ([len(_input_operands(op, None))] if entry is compute
                    else _input_operands(op, entry))
        if not operands:
            raise _error(loc, f"cache names '{entry.name}', which compute '{op.name}' "
                              "does not read")
        parts = []
        if extra is not None:
            items = extra.items() if isinstance(extra, dict) else [("align", extra)]
            for key, value in items:
                if key not in _CACHE_FIELDS:
                    raise _error(loc, f"cache field {key!r} does not exist in this build "
                                      f"of ext; valid: {', '.join(sorted(_CACHE_FIELDS))}")
                parts.append(_CACHE_FIELDS[key](value, loc))
        for operand in operands:
            entries.append(f"#ext.cache<operand = {operand}"
                           + "".join(", " + p for p in parts) + ">")

    decomposition_text = None
    if decomposition is not None:
        decomposition_text = _decomposition_text(decomposition, loc)
    field_texts = [_FIELDS[name](value, loc) for name, value in fields.items()
                   if value is not None]
    s = Schedule(op, [tiles[n] for n in names], [counts[n] for n in names], blocks,
                 entries, decomposition_text, field_texts, loc)
    return s


def _prod(values):
    p = 1
    for v in values:
        p *= v
    return p


def _input_operands(op, tensor):
    """The operand numbers under which compute `op` reads `tensor` (one per
    distinct access), as the lowering numbers them; every input's for
    `None`."""
    from .build import _operands
    return [i for i, (t, _) in enumerate(_operands(op)) if tensor is None or t is tensor]
