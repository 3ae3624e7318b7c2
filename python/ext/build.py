"""`ext.build`: computes and schedules -> a kernel to inspect and run."""

import math
import os
import threading
import warnings
from collections import OrderedDict
from typing import Dict, List, Optional, Sequence

import numpy as np

from . import disk_cache as _disk
from . import dtypes as _dt
from . import te as _te
from .accesses import (indirect as _indirect, operands as _operands,
                       ordered_nodes as _ordered_nodes, symbol_trees as _symbol_trees)
from .chips import check_chip as _check_chip
from ._ext import chip_info as _chip_info, default_chip as _default_chip
from ._ext import Module
from .schedule import Schedule
from .te import _error, _where


def _access_text(tensor, trees, axes) -> str:
    """`A[i, k + 1]` for an access of `tensor` through affine `trees`."""
    def text(tree):
        op = tree[0]
        if op == "axis":
            return axes[tree[1]].name
        if op == "const":
            return str(tree[1])
        if op == "read":
            return _access_text(tree[1].tensor, tree[1].trees, axes)
        sign = {"add": " + ", "sub": " - ", "mul": "*", "floordiv": " // ", "mod": " % "}[op]
        return f"{text(tree[1])}{sign}{text(tree[2])}"
    return f"{tensor.name}[{', '.join(text(t) for t in trees)}]"


def _graph(outputs: Sequence["_te.Tensor"]):
    """Placeholders and computes `outputs` depend on, computes in dependence
    order."""
    computes, placeholders, seen = [], [], set()

    def visit(tensor, stack):
        if tensor.op is None:
            if id(tensor) not in seen:
                seen.add(id(tensor))
                placeholders.append(tensor)
            return
        op = tensor.op
        if id(op) in seen:
            return
        if id(op) in stack:
            raise _error(op.loc, f"compute '{op.name}' depends on itself")
        stack.add(id(op))
        for t, _ in _operands(op):
            visit(t, stack)
        stack.discard(id(op))
        seen.add(id(op))
        computes.append(op)

    for t in outputs:
        visit(t, set())
    placeholders.sort(key=lambda t: t.order)
    return placeholders, computes


def _node_table(roots, operand_index, axis_names, reducer_args=None):
    nodes, ids = [], {}
    for e in _ordered_nodes(roots):
        if e.op == "load":
            node = ("input", e.dtype, [], operand_index[id(e)], e.loc)
        elif isinstance(e, _te.IterVar):
            if e.name not in axis_names:
                raise _error(e.loc, f"axis '{e.name}' is not an axis here")
            node = ("index", "i32", [], e.name, e.loc)
        elif e.op in ("racc", "rnew"):
            node = ("input", e.dtype, [], e.attr, e.loc)
        elif e.op == "reduce":
            raise _error(e.loc, "a reduction inside a reducer")
        else:
            node = (e.op, e.dtype, [ids[id(a)] for a in e.args], e.attr, e.loc)
        ids[id(e)] = len(nodes)
        nodes.append(node)
    return nodes, ids


def _reducer_region(op):
    """The custom reducer's region and identities from its Python functions."""
    reducer = op.reducer
    out_dtypes = [v.dtype for v in op.values]
    n = len(out_dtypes)
    acc = [_te.Expr("racc", t, (), i, op.loc) for i, t in enumerate(out_dtypes)]
    new = [_te.Expr("rnew", t, (), n + i, op.loc) for i, t in enumerate(out_dtypes)]
    if n == 1:
        combined = reducer.fcombine(acc[0], new[0])
        identity = reducer.fidentity(out_dtypes[0])
    else:
        combined = reducer.fcombine(tuple(acc), tuple(new))
        identity = reducer.fidentity(*out_dtypes)
    combined = list(combined) if isinstance(combined, (tuple, list)) else [combined]
    identity = list(identity) if isinstance(identity, (tuple, list)) else [identity]
    if len(combined) != n or len(identity) != n:
        raise _error(reducer.loc, f"reducer '{reducer.name}' combines {n} values but its "
                                  f"functions return {len(combined)} combined values and "
                                  f"{len(identity)} identities")
    for i, (c, t) in enumerate(zip(combined, out_dtypes)):
        c = _te._lift(c, acc[i], reducer.loc)
        if c.dtype != t:
            raise _error(reducer.loc, f"reducer '{reducer.name}': combined value #{i} is "
                                      f"{c.dtype}, the reduced value is {t}")
        combined[i] = c
    idents = []
    for i, (v, t) in enumerate(zip(identity, out_dtypes)):
        if isinstance(v, _te.Expr):
            if v.op != "const":
                raise _error(reducer.loc, f"reducer '{reducer.name}': identity #{i} must be "
                                          "a constant")
            if v.dtype != t:
                raise _error(reducer.loc, f"reducer '{reducer.name}': identity #{i} is "
                                          f"{v.dtype}, the reduced value is {t}")
            v = v.attr
        idents.append((float(v) if _dt.kind(t) == "float" else int(v), t))
    for c in combined:
        for e in _te._walk(c):
            if isinstance(e, _te.IterVar) or e.op == "load":
                raise _error(e.loc, f"reducer '{reducer.name}' may use only its arguments "
                                    "and constants")
    nodes, ids = _node_table(combined, {}, set())
    return {"nodes": nodes, "yields": [ids[id(c)] for c in combined]}, idents


def _static_or_none(size):
    """An int size, or None for a symbolic one (`ext.var`)."""
    return None if isinstance(size, _te.Var) else size


def _bind_sizes(arrays, tensors):
    """The value of every symbolic size (ext.var) from the input arrays'
    shapes; a size given two values is an error naming both inputs."""
    sizes, where = {}, {}
    for a, t in zip(arrays, tensors):
        if not isinstance(a, np.ndarray) or a.ndim != len(t.shape):
            continue  # _input_array says why
        for d, s in enumerate(t.shape):
            if not isinstance(s, _te.Var):
                continue
            n = int(a.shape[d])
            if n % s.multiple_of != 0:
                raise ValueError(f"size {s.name} is {n} in dimension {d} of input '{t.name}', "
                                 f"not a multiple of {s.multiple_of} as "
                                 f"ext.var({s.name!r}, multiple_of={s.multiple_of}) states")
            if s.name in sizes and sizes[s.name] != n:
                raise ValueError(f"size {s.name} is {sizes[s.name]} in {where[s.name]} but {n} "
                                 f"in dimension {d} of input '{t.name}'")
            sizes.setdefault(s.name, n)
            where.setdefault(s.name, f"dimension {d} of input '{t.name}'")
    return sizes


def _size_source(size, arguments, tensor, loc):
    """Where a local buffer's dimension gets its size: None for a static
    one, else (argument number, dimension) of an argument of that symbolic
    size."""
    if not isinstance(size, _te.Var):
        return None
    for i, a in enumerate(arguments):
        for d, s in enumerate(a.shape):
            if isinstance(s, _te.Var) and s.name == size.name:
                return (i, d)
    raise _error(loc, f"size {size.name} of '{tensor.name}' is given by no argument: "
                      "a symbolic size must appear in an input's shape")


def _concrete_shape(shape, sizes, tensor):
    out = []
    for s in shape:
        if isinstance(s, _te.Var):
            if s.name not in sizes:
                raise ValueError(f"size {s.name} of '{tensor.name}' is given by no input: "
                                 "a symbolic size must appear in an input's shape")
            s = sizes[s.name]
        out.append(s)
    return tuple(out)


def lower(items, name: str = "kernel", args: Optional[Sequence] = None):
    """The program description ext's C++ core builds a module from, plus the
    argument tensors: (program, inputs, outputs, intermediates). `ext.build`
    calls it; it is plain data (schedules are ext._ext.schedules.Attribute
    objects), for looking at what will be built.

        >>> program, inputs, outputs, _ = ext.lower(C)
        >>> [c["name"] for c in program["computes"]], [t.name for t in inputs]
        (['C'], ['A', 'B'])
    """
    loc = _where()
    items = list(items) if isinstance(items, (list, tuple)) else [items]
    schedules: Dict[int, Schedule] = {}
    wanted = []
    for item in items:
        if isinstance(item, Schedule):
            if id(item.op) in schedules and schedules[id(item.op)] is not item:
                raise _error(loc, f"compute '{item.op.name}' has two schedules")
            schedules[id(item.op)] = item
            wanted.extend(item.op.outputs)
            # A fused consumer is built with its anchor.
            for consumer in item.attached:
                wanted.extend(consumer.op.outputs)
        elif isinstance(item, _te.Tensor):
            if item.op is None:
                raise _error(loc, f"'{item.name}' is a placeholder; build computes",
                             TypeError)
            wanted.extend(item.op.outputs)
        elif isinstance(item, tuple) and all(isinstance(t, _te.Tensor) for t in item):
            for t in item:
                wanted.extend(t.op.outputs)
        else:
            alone = " (a workload is built alone: ext.build(workload))" if \
                type(item).__name__ == "Workload" else ""
            raise _error(loc, "ext.build takes tensors and schedules, or one workload, got "
                              f"{item!r}{alone}", TypeError)
    unique, seen = [], set()
    for t in wanted:
        if id(t) not in seen:
            seen.add(id(t))
            unique.append(t)
    placeholders, computes = _graph(unique)
    read = {id(t) for op in computes for t, _ in _operands(op)}
    outputs = [t for t in unique if id(t) not in read]
    intermediates = [t for op in computes for t in op.outputs
                     if id(t) not in {id(o) for o in outputs}]
    # An intermediate that only the consumers fused into its compute read is
    # a buffer of the function, not an argument: the fused kernel then
    # never writes it. A symbolic size of its shape is read from the
    # argument dimension that states it (every size is bound by an input).
    readers = {}
    for op in computes:
        for t, _ in _operands(op):
            readers.setdefault(id(t), set()).add(id(op))
    fused_away = set()
    for op in computes:
        s = schedules.get(id(op)) or op.schedule
        if s is None:
            continue
        # The computes of this kernel: the anchor, its fused consumer, the
        # producers it computes (compute_at) or substitutes (compute_inline).
        members = [op] + [t.op for t in s.attached + s.producers + s.inlined + s.online]
        group = {id(m) for m in members}
        for m in members:
            for t in m.outputs:
                if id(t) in read and readers.get(id(t), set()) <= group:
                    fused_away.add(id(t))
    local_buffers = [t for t in intermediates if id(t) in fused_away]
    intermediates = [t for t in intermediates if id(t) not in fused_away]
    if args is not None:
        given = list(args)
        for t in given:
            if not isinstance(t, _te.Tensor) or t.op is not None:
                raise _error(loc, f"args lists placeholders, got {t!r}", TypeError)
        missing = [t.name for t in placeholders if id(t) not in {id(g) for g in given}]
        if missing:
            raise _error(loc, f"args misses placeholders {missing}")
        placeholders = given

    arguments = placeholders + outputs + intermediates
    # Local buffers are numbered after the arguments.
    arg_index = {id(t): i for i, t in enumerate(arguments + local_buffers)}
    names = set()
    program_args = []
    program_locals = []
    for t in arguments + local_buffers:
        label = t.name
        while label in names:
            label += "_"
        names.add(label)
        # A symbolic size (ext.var) is a dynamic dimension.
        entry = {"name": label, "shape": [_static_or_none(d) for d in t.shape],
                 "dtype": t.dtype, "loc": t.loc}
        if len(program_args) < len(arguments):
            program_args.append(entry)
        else:
            entry["sizes"] = [_size_source(d, arguments, t, loc) for d in t.shape]
            program_locals.append(entry)
    # Divisibility facts belong to a size's name: every place it is stated.
    facts = {}
    for d in [d for t in arguments for d in t.shape] + \
            [a.extent for op in computes for a in op.all_axes]:
        if isinstance(d, _te.Var):
            facts[d.name] = math.lcm(facts.get(d.name, 1), d.multiple_of)
    program_computes = []
    for op in computes:
        axes = op.all_axes
        operands = _operands(op)
        load_index = {}
        keys = {(id(t), trees): i for i, (t, trees) in enumerate(operands)}
        positions = {id(a): d for d, a in enumerate(axes)}
        for node in _ordered_nodes(op.values):
            if node.op == "load":
                trees = tuple(_te._affine(i, positions, node.attr.name) for i in node.args)
                load_index[id(node)] = keys[(id(node.attr), trees)]
        nodes, ids = _node_table(op.values, load_index, {a.name for a in axes})
        # A tensor's element in an index is a symbol of the map, bound by
        # `indirect` to the input that reads it (a block table).
        program_operands = [(arg_index[id(t)], _symbol_trees(trees)) for t, trees in operands]
        out_trees = [("axis", d) for d in range(len(op.axes))]
        for t in op.outputs:
            program_operands.append((arg_index[id(t)], out_trees))
        combiner = identity = reducer = None
        if op.reducer is not None:
            if isinstance(op.reducer, _te._BuiltinReducer):
                combiner = op.reducer.name
            else:
                combiner = "custom"
                reducer, identity = _reducer_region(op)
        s = schedules.get(id(op)) or op.schedule
        program_computes.append({
            "name": op.name, "loc": op.loc,
            "axes": [(a.name, a.kind, _static_or_none(a.extent),
                      facts[a.extent.name] if isinstance(a.extent, _te.Var) else 1)
                     for a in axes],
            "num_inputs": len(operands), "operands": program_operands,
            "indirect": _indirect(op),
            "input_names": [_access_text(t, trees, axes) for t, trees in operands],
            "body": {"nodes": nodes, "yields": [ids[id(v)] for v in op.values]},
            "combiner": combiner, "identity": identity, "reducer": reducer,
            "schedule": (s.attr, s.loc) if s is not None else None,
        })
    program = {"name": name, "args": program_args, "locals": program_locals,
               "computes": program_computes}
    return program, placeholders, outputs, intermediates


class _KernelCache:
    """The kernels `build` made, most recently used last, at most `limit` of
    them: a dropped kernel's memory (its MLIR, binaries and JIT code) is
    freed once nothing else holds it."""

    def __init__(self, limit: int):
        self.limit = limit
        self.kernels: "OrderedDict[str, Kernel]" = OrderedDict()
        self.hits = self.misses = 0
        # Of the misses: kernels read from the disk cache, and compiled.
        self.disk_hits = self.compiles = 0
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            kernel = self.kernels.get(key)
            if kernel is None:
                self.misses += 1
                return None
            self.hits += 1
            self.kernels.move_to_end(key)
            return kernel

    def put(self, key, kernel):
        with self.lock:
            self.kernels[key] = kernel
            self.kernels.move_to_end(key)
            self._trim()

    def _trim(self):
        while len(self.kernels) > self.limit:
            self.kernels.popitem(last=False)


_CACHE = _KernelCache(limit=64)


def clear_cache(disk: bool = False) -> None:
    """Forgets every kernel `build` cached in this process (kernels still
    referenced stay usable) and zeroes `cache_info`'s counts; the next
    build of each program reads it from the disk cache or compiles it.
    `disk=True` also deletes the disk cache's kernels (`cache_dir()`).

        >>> ext.clear_cache()
    """
    with _CACHE.lock:
        _CACHE.kernels.clear()
        _CACHE.hits = _CACHE.misses = _CACHE.disk_hits = _CACHE.compiles = 0
    if disk:
        _disk.clear()


def set_cache_limit(kernels: int) -> None:
    """How many kernels `build` keeps (default 64), least recently used
    dropped first; 0 turns the cache off. A small elementwise kernel with its
    stages costs about 1.3 MB, a scheduled GEMM several MB
    (bench/python_cache).

        >>> ext.set_cache_limit(8)
    """
    if isinstance(kernels, bool) or not isinstance(kernels, int) or kernels < 0:
        raise ValueError(f"the cache limit is a count of kernels >= 0, got {kernels!r}")
    with _CACHE.lock:
        _CACHE.limit = kernels
        _CACHE._trim()


def cache_info() -> Dict[str, int]:
    """The in-process cache's kernels and limit, and since the last clear
    its hits and misses, and of the misses those read from the disk cache
    (`disk_hits`) and those compiled (`compiles`).

        >>> ext.cache_info()
        {'kernels': 3, 'limit': 64, 'hits': 5, 'misses': 3, 'disk_hits': 1, 'compiles': 2}
    """
    with _CACHE.lock:
        return {"kernels": len(_CACHE.kernels), "limit": _CACHE.limit,
                "hits": _CACHE.hits, "misses": _CACHE.misses,
                "disk_hits": _CACHE.disk_hits, "compiles": _CACHE.compiles}


def _compile(module, target, chip, features, opt, keep_stages):
    """`module.compile(...)`: from the disk cache where a process compiled
    the same module with this compiler and these options, else compiled
    and stored there."""
    name = _disk.key(module, target, chip, features, opt, keep_stages)
    compiled = _disk.load(name)
    if compiled is not None:
        with _CACHE.lock:
            _CACHE.disk_hits += 1
        return compiled
    compiled = module.compile(target, chip, features, opt, keep_stages)
    with _CACHE.lock:
        _CACHE.compiles += 1
    _disk.store(name, compiled)
    return compiled


class Kernel:
    """A built program: its IR at every stage, its PTX or HSACO, resources,
    and `run()`. Made by `ext.build`."""

    def __init__(self, module, compiled, target, inputs, outputs, intermediates, name):
        self.module = module
        self.target = target
        self.chip = compiled.get("chip")
        self.inputs = inputs
        self.outputs = outputs
        self.intermediates = intermediates
        self.name = name
        self._stages = list(compiled["stages"])
        self._binaries = dict(compiled["binaries"])
        self._shared = dict(compiled["shared_memory"])
        self._workspace = int(compiled.get("workspace", 0))
        self._executables = {}
        # The pipeline's warnings and remarks: (severity, file, line, text),
        # each once. The passes report per op, and ops are cloned: a
        # pipelined copy (stages=S) reports from each of its S copies, and
        # the copies of A and B word theirs alike at the schedule's line.
        self.messages = list(dict.fromkeys(tuple(m) for m in compiled.get("messages", [])))

    @property
    def stages(self) -> List[str]:
        """Stage names for `mlir()`: "input", then each pass run (a repeated
        pass as "canonicalize#2").

            >>> kernel.stages[:3]
            ['input', 'ext-apply-schedule', 'ext-kernel-to-gpu']
        """
        return [name for name, _ in self._stages]

    def mlir(self, stage=None) -> str:
        """The IR at `stage`: None or "input" (the built module with its
        schedules), a pass name (after that pass, e.g. "ext-apply-schedule"),
        an index into `stages`, or "final".

            >>> print(kernel.mlir("ext-apply-schedule"))
        """
        if stage is None:
            return self._stages[0][1]
        if stage == "final":
            return self._stages[-1][1]
        if isinstance(stage, int):
            return self._stages[stage][1]
        for name, text in self._stages:
            if name == stage:
                return text
        raise ValueError(f"no stage {stage!r}; stages: {', '.join(self.stages)}")

    @property
    def binaries(self) -> Dict[str, bytes]:
        """The binary of each gpu.module, as bytes: PTX (ASCII text: `.ptx`
        decodes it) for target="nvvm", an HSACO code object for "rocdl".

            >>> for name, data in kernel.binaries.items(): print(name, len(data))
        """
        return dict(self._binaries)

    @property
    def ptx(self) -> str:
        """The PTX of the kernels (target="nvvm").

            >>> print(ext.build(s, target="nvvm", chip="sm_90").ptx[:200])
        """
        if self.target != "nvvm":
            raise ValueError(f"no PTX: the kernel was built for {self.target!r}; build "
                             "with target='nvvm'")
        return "\n".join(b.decode() for b in self._binaries.values())

    @property
    def hsaco(self) -> bytes:
        """The HSACO code object (target="rocdl"); with several kernels, the
        first (see `binaries`).

            >>> open("gemm.hsaco", "wb").write(ext.build(s, target="rocdl", chip="gfx942").hsaco)
        """
        if self.target != "rocdl":
            raise ValueError(f"no HSACO: the kernel was built for {self.target!r}; build "
                             "with target='rocdl'")
        if not self._binaries:
            raise ValueError("no GPU kernel: no compute has a schedule")
        return next(iter(self._binaries.values()))

    @property
    def shared_memory_bytes(self) -> int:
        """The most shared memory one of the kernels uses, in bytes (after
        ext-gpu-reuse-shared-memory packed its buffers).

            >>> s = ext.schedule(C, tile=(32, 32, 8), cache=[A, B])  # 64x64x64 f32
            >>> ext.build(s, target="nvvm").shared_memory_bytes
            2048
        """
        return _te._pymax(self._shared.values(), default=0)

    @property
    def workspace_bytes(self) -> Optional[int]:
        """Global workspace (bytes) the tile decomposition keeps its partial
        tiles and flags in: 0 for data-parallel; Stream-K and split-K ask
        for one (the generated host code allocates and zeroes it). None
        where the host sizes it when the kernel runs (a symbolic size: the
        plan depends on it).

            >>> s = ext.schedule(C, tile=(32, 32, 8), decomposition=("stream_k", {"grid": 5}))
            >>> ext.build(s, target="nvvm").workspace_bytes > 0
            True
        """
        return None if self._workspace < 0 else self._workspace

    def plot(self, directory) -> List[str]:
        """Draws the kernel's decomposition plans and shared-memory packings
        as SVG files in `directory` (made if missing) and returns their
        paths, as `ext-opt --ext-report-svg=DIR` does:

        * `<function>.<line>.decomposition.svg`: a row per CTA, its work
          units in run order (width: iterations, colour: tile; light: a
          partial it stores, outlined: a tile it owns), arrows from each
          partial to the unit that waits for it and combines it;
        * `<kernel>.smem.svg`: each shared buffer as its live interval by
          the bytes it occupies, and the packed footprint beside the
          unpacked sum.

            >>> paths = ext.build(s, target="nvvm", chip="sm_90").plot("plots")
        """
        os.makedirs(directory, exist_ok=True)
        target, chip, features, opt = getattr(
            self, "_compile_args", (self.target, self.chip or "", "", 2))
        compiled = self.module.compile(target, chip, features, opt, False,
                                       svg_dir=str(directory))
        return sorted(compiled["svgs"])

    def report(self) -> str:
        """A summary: target, arguments, shared memory per kernel, stages.

            >>> print(kernel.report())
        """
        lines = [f"kernel @{self.name} for {self.target}"
                 + (f" ({self.chip})" if self.chip else "")]
        for role, tensors in (("input", self.inputs), ("output", self.outputs),
                              ("intermediate", self.intermediates)):
            for t in tensors:
                lines.append(f"  {role:12} {t.name}: {'x'.join(map(str, t.shape))} {t.dtype}")
        for kernel, size in self._shared.items():
            lines.append(f"  shared memory {kernel}: {size} bytes")
        ws = self.workspace_bytes
        lines.append("  workspace: sized at launch" if ws is None else f"  workspace: {ws} bytes")
        for name, data in self._binaries.items():
            lines.append(f"  binary {name}: {len(data)} bytes")
        lines.append(f"  {len(self._stages)} stages: see .stages and .mlir(stage)")
        return "\n".join(lines)

    def __repr__(self):
        return self.report()

    def run(self, *arrays, target: str = "cpu"):
        """Runs on the CPU (GPU kernels on ext's emulator) or a CUDA device
        (target="cuda") and returns the outputs as new numpy arrays (one, or
        a tuple). Inputs must have the placeholders' shapes and dtypes; bf16
        inputs are float32 arrays (rounded to bf16) or uint16 bit patterns,
        f8/f4 inputs float32 arrays (rounded, saturating) or uint8 bit
        patterns, i4/i2 inputs int8 values in range; bf16, f8 and f4 outputs
        come back as float32, i4/i2 outputs as int8.

            >>> c = kernel.run(a, b)
            >>> np.testing.assert_allclose(c, a @ b, rtol=1e-5)
        """
        if len(arrays) != len(self.inputs):
            names = ", ".join(t.name for t in self.inputs)
            raise ValueError(f"@{self.name} takes {len(self.inputs)} arrays ({names}), "
                             f"got {len(arrays)}")
        sizes = _bind_sizes(arrays, self.inputs)
        passed = []
        for a, t in zip(arrays, self.inputs):
            passed.append(_input_array(a, t, sizes))
        results = [np.empty(_concrete_shape(t.shape, sizes, t), _dt.numpy_dtype(t.dtype))
                   for t in self.outputs + self.intermediates]
        if target not in self._executables:
            if target not in ("cpu", "cuda"):
                raise ValueError(f"unknown run target {target!r} (expected 'cpu' or 'cuda')")
            # cpu: the chip the emulated kernels stand for (it sizes Stream-K
            # grids); cuda: an NVIDIA chip built for, else the device's.
            chip = (self.chip or "") if target == "cpu" else (
                self.chip if self.target == "nvvm" else "")
            self._executables[target] = self.module.executable(self.name, target, 2, chip)
        self._executables[target](passed + results)
        outs = [_dt.from_stored(r, t.dtype) for r, t in zip(results, self.outputs)]
        return outs[0] if len(outs) == 1 else tuple(outs)


def _input_array(a, tensor, sizes):
    if not isinstance(a, np.ndarray):
        raise TypeError(f"input '{tensor.name}' must be a numpy array, got "
                        f"{type(a).__name__}")
    if a.ndim != len(tensor.shape) or \
            a.shape != _concrete_shape(tensor.shape, sizes, tensor):
        raise ValueError(f"input '{tensor.name}' has shape {a.shape}, the placeholder "
                         f"{tensor.shape}")
    if any(n == 0 for n in a.shape):
        raise ValueError(f"input '{tensor.name}' has shape {a.shape}: sizes must be positive")
    if tensor.dtype == "bf16":
        if a.dtype == np.uint16:
            return np.ascontiguousarray(a)
        if a.dtype == np.float32:
            return _dt.to_bf16_bits(a)
        raise ValueError(f"input '{tensor.name}' is bf16: pass float32 values or uint16 "
                         f"bit patterns, not {a.dtype}")
    if _dt.is_small_float(tensor.dtype) and a.dtype == np.float32:
        return _dt.to_f8_bits(a, tensor.dtype)
    _dt.check_stored(a, tensor.dtype, f"input '{tensor.name}'")
    want = _dt.numpy_dtype(tensor.dtype)
    if a.dtype != want:
        raise ValueError(f"input '{tensor.name}' has dtype {a.dtype}, the placeholder "
                         f"{tensor.dtype} ({want}); convert it with .astype(np.{want})")
    # Any layout: the core copies arrays that are not C-contiguous.
    return a if a.flags.writeable else a.copy()


class ExtWarning(UserWarning):
    """A warning of ext's compiler, at the line of the compute or schedule it
    is about: a schedule that keeps more per thread than registers hold, a
    limit it comes close to. `ext.build(..., strict=True)` raises instead."""


class ExtRemark(ExtWarning):
    """A remark of ext's compiler: what it chose and why (a narrower copy
    vector than the schedule asks, a compute without a schedule running as
    loops on the host). Silence them with
    `warnings.simplefilter("ignore", ext.ExtRemark)`."""


def _report(kernel, strict, loc):
    """Passes the kernel's compiler messages to Python's warnings at their
    lines; with `strict`, a warning is an error."""
    warned = [m for m in kernel.messages if m[0] == "warning"]
    if strict and warned:
        raise _error(loc, "strict build: the compiler warns:\n" + "\n".join(
            f"  {f or '<ext>'}:{line}: {text}" for _, f, line, text in warned), RuntimeError)
    for severity, file, line, text in kernel.messages:
        warnings.warn_explicit(text, ExtWarning if severity == "warning" else ExtRemark,
                               file or "<ext>", line or 0)


def lanes(chip: Optional[str], target: str = "cpu") -> int:
    """The lanes of a warp on `chip` (the target's default chip if None): what
    a schedule with derived threads is built for."""
    return _chip_info(chip or _default_chip(target))["warp_size"]


def build(items, target: str = "cpu", chip: Optional[str] = None, name: str = "kernel",
          args: Optional[Sequence] = None, features: str = "", opt: int = 2,
          keep_stages: bool = True, strict: bool = False) -> Kernel:
    """Builds computes into one function `@name(inputs..., outputs...,
    intermediates...)` and compiles it for `target`: "cpu" (scheduled
    computes become kernels on ext's CPU emulator, the others loops; `chip`
    is the GPU they stand for, default sm_80, whose limits, SM count and
    lanes they get), "nvvm" (PTX, `chip` sm_NN, default sm_80) or "rocdl" (HSACO, `chip`
    gfxNNN, default gfx90a). `items`: a tensor, a schedule, or a list of
    them; the function's outputs are those no other listed compute reads.
    Or a helper's workload (`ext.matmul(...)`, `ext.attention(...)`,
    `ext.tune`'s result): its inputs are the arguments, its chip the
    default, and one whose schedule depends on the chip is made again for
    `chip` (as `workload.build(target, chip)` does).
    The compiler's warnings and remarks become Python warnings
    (`ext.ExtWarning`, `ext.ExtRemark`) at the line of the compute or
    schedule they are about; `strict=True` raises on a warning.
    Kernels are cached per program, the 64 most recently used
    (`set_cache_limit`, `clear_cache`, `cache_info`), and on disk across
    processes (`cache_dir`, `set_cache_dir`; docs/Runner.md).

        >>> s = ext.schedule(C, tile=(32, 32, 16))
        >>> kernel = ext.build(s, target="nvvm", chip="sm_90")
        >>> kernel.ptx[:100], kernel.shared_memory_bytes
        >>> c = kernel.run(a, b)
    """
    loc = _where()
    if target not in ("cpu", "nvvm", "rocdl"):
        raise _error(loc, f"unknown target {target!r}; valid targets: cpu, nvvm, rocdl")
    chip = _check_chip(chip, target, loc)
    # A helper's workload (ext.helpers.Workload, which imports this module:
    # asked by what it does, not by its class).
    if callable(getattr(items, "_for_build", None)):
        items, chip, inputs = items._for_build(chip)
        args = inputs if args is None else args
    # A schedule with mma="auto" and derived threads gets the chip's lanes:
    # one schedule builds for sm_80, sm_90a and gfx942 alike.
    warp = lanes(chip, target)
    if isinstance(items, Schedule):
        items = items._for_lanes(warp)
    elif isinstance(items, list):
        items = [i._for_lanes(warp) if isinstance(i, Schedule) else i for i in items]
    program, inputs, outputs, intermediates = lower(items, name, args)
    key = repr((program, target, chip, features, opt, keep_stages))
    kernel = _CACHE.get(key)
    if kernel is None:
        try:
            module = Module.build(None, program)
        except ValueError as e:
            raise ValueError(str(e).strip()) from None
        compiled = _compile(module, target, chip or "", features, opt, keep_stages)
        kernel = Kernel(module, compiled, target, inputs, outputs, intermediates, name)
        kernel._compile_args = (target, chip or "", features, opt)
        _CACHE.put(key, kernel)
    _report(kernel, strict, loc)
    return kernel
