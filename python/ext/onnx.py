"""`ext.onnx.load`: an ONNX model as ext computes, scheduled, fused, built.

    >>> m = ext.onnx.load("mlp.onnx")            # or an onnx.ModelProto
    >>> y, = m.run({"x": x})                     # numpy in, numpy out
    >>> print(m.summary())                       # kernels and what each fuses

Each node becomes TE computes (`ext.compute`); element-wise nodes are kept
as expressions and written into their single consumer, so a chain such as
bias Add + Relu is one compute. Every kernel is `ext.schedule`'s default
schedule of its anchor compute (MatMul, Gemm, Conv, a materialized
element-wise compute) with ext's fusions: an element-wise consumer of a
contraction as its epilogue (`reverse_compute_at`), element-wise producers
read only by one kernel substituted into it (`compute_inline`: transposes,
reshapes, padding), and Softmax and LayerNormalization one kernel each (their
row reductions `compute_at` the row, as examples/python/softmax.py does).
The whole graph is one `ext.build` (scheduled computes run as GPU kernels on
ext's CPU emulator). The onnx package is imported by `load` only.

Before mapping, shape subgraphs and constants are folded (onnx_fold.py:
ONNX's shape inference, then numpy), so a model as torch.onnx.export writes
it loads. Supported ops: `supported_ops()` (onnx_registry.py: onnx_ops.py and its
onnx_ops_math/layout/reduce/quant.py); see docs/Interop.md. Quantized weights
(MatMulNBits, DequantizeLinear) are computes of role "dequant" that `fuse`
inlines into the GEMM reading them.
"""

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import dtypes as _dt
from . import te as _te
from .accesses import linear_reads as _linear_reads, operands as _operands
from ._ext import Module as _Module
from .build import build as _build, lanes as _lanes, lower as _lower
from .chips import check_chip as _check_chip
from .onnx_check import (ATTRIBUTES, DynamicShapeError, InvalidModelError,  # noqa: F401
                         OnnxImportError, UnsupportedOpError, check_model, check_supported,
                         node_name, op_key, read_model)
from .onnx_fold import FOLD_ONLY as _FOLD_ONLY, fold as _fold
from .onnx_ops import _DTYPES, _INDEX_TYPES, _Value, _onnx_type_of, _read
from .onnx_patterns import FusedNode, fuse_patterns
from .onnx_registry import OPS as _OPS, supported_ops  # noqa: F401
from .onnx_report import ModelReport, model_report  # noqa: F401
from .onnx_tuning import tuned_schedule, wants_tuning
from . import onnx_symbolic as _symbolic
from .schedule import schedule as _schedule


# The latest opset whose semantics this importer follows (Softmax's axis
# changed in 13).
_DEFAULT_OPSET = 20


@dataclass
class FusedKernel:
    """One GPU kernel of the model: the anchor compute its schedule belongs
    to, the ONNX node it came from, and the computes fused into it.

        >>> for k in ext.onnx.load("mlp.onnx").kernels: print(k.anchor, k.epilogue)
    """
    anchor: str
    node: str
    schedule: object
    epilogue: Optional[str] = None
    inlined: List[str] = field(default_factory=list)
    computed_at: List[str] = field(default_factory=list)
    # Without a schedule: the compute's tensor, run as loops on the host.
    host: Optional[object] = None
    # Why its schedule is the tuner's or not (onnx_tuning.py), if asked.
    tuning: str = ""

    def describe(self) -> str:
        """One line: the anchor, its node and its fusions.

            >>> print(m.kernels[0].describe())
        """
        parts = []
        if self.epilogue:
            parts.append(f"epilogue {self.epilogue}")
        if self.computed_at:
            parts.append(f"compute_at {', '.join(self.computed_at)}")
        if self.inlined:
            parts.append(f"inline {', '.join(self.inlined)}")
        fused = f" + {'; '.join(parts)}" if parts else ""
        if self.schedule is None:
            return (f"host loops {self.anchor} (node '{self.node}'): its reads are not "
                    "linear in its axes, nor a floordiv or mod the tiles divide")
        tuned = f" [{self.tuning}]" if self.tuning else ""
        return f"kernel {self.anchor} (node '{self.node}'){fused}: {self.schedule.text()}{tuned}"


class OnnxModule:
    """An imported ONNX model, built: `run` takes numpy inputs; `computes`,
    `kernels`, `kernel` (the `ext.Kernel` of the whole graph), `mlir()` and
    `summary()` show what it became. Made by `ext.onnx.load`."""

    def __init__(self, name, input_names, output_names, output_shapes, feeds, consts,
                 kernel, computes, kernels, opset, tensor_names):
        self.name = name
        self.input_names = list(input_names)
        self.output_names = list(output_names)
        self.opset = opset
        self.kernel = kernel
        self.computes = list(computes)
        self.kernels = list(kernels)
        self._output_shapes = output_shapes
        # The kernel output (a compute's name) of each graph output.
        self._tensor_names = tensor_names
        # Per kernel argument: ("input", graph input name, shape) or
        # ("const", array).
        self._feeds = feeds
        # Graph outputs that are constants, by name.
        self._consts = consts

    def run(self, inputs: Union[Dict[str, np.ndarray], Sequence[np.ndarray]],
            as_dict: bool = False, target: str = "cpu"):
        """Runs the model (GPU kernels on ext's CPU emulator, or on the CUDA
        device with target="cuda"): `inputs` a dict name -> array or a list
        in graph-input order; returns the outputs in graph-output order as
        a list (a dict with `as_dict=True`).

            >>> y, = m.run({"x": x})
            >>> m.run([x], as_dict=True)["y"]
        """
        given = self._bind(inputs)
        # The sizes of the symbolic dims (ext.var), the known dims checked.
        sizes = _symbolic.Sizes.bind(self._feeds, given)
        arrays = []
        for feed in self._feeds:
            if feed[0] == "const":
                arrays.append(feed[1])
                continue
            _, name, _, dtype, view = feed
            a = given[name]
            if a.dtype != dtype:
                raise ValueError(f"ext.onnx: input '{name}' has dtype {a.dtype}, the model's "
                                 f"is {dtype}; convert it with .astype(np.{dtype})")
            arrays.append(np.ascontiguousarray(a).reshape(_symbolic.concrete(view, sizes)))
        results = {}
        if self.kernel is not None:
            out = self.kernel.run(*arrays, target=target)
            out = out if isinstance(out, tuple) else (out,)
            for t, a in zip(self.kernel.outputs, out):
                results[t.name] = a
        outputs = []
        for name in self.output_names:
            if name in self._consts:
                a = self._consts[name].copy()
            else:
                a = results[self._tensor_names[name]]
            outputs.append(a.reshape(_symbolic.concrete(self._output_shapes[name], sizes)))
        return dict(zip(self.output_names, outputs)) if as_dict else outputs

    __call__ = run

    def _bind(self, inputs) -> Dict[str, np.ndarray]:
        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        if isinstance(inputs, dict):
            unknown = [k for k in inputs if k not in self.input_names]
            if unknown:
                raise ValueError(f"ext.onnx: no graph input named {unknown[0]!r}; the inputs "
                                 f"are {self.input_names}")
            given = dict(inputs)
        else:
            inputs = list(inputs)
            if len(inputs) != len(self.input_names):
                raise ValueError(f"ext.onnx: the model takes {len(self.input_names)} inputs "
                                 f"({', '.join(self.input_names)}), got {len(inputs)}")
            given = dict(zip(self.input_names, inputs))
        for feed in self._feeds:
            if feed[0] == "input" and feed[1] not in given:
                raise ValueError(f"ext.onnx: input '{feed[1]}' is missing")
        return {k: np.asarray(v) for k, v in given.items()}

    def mlir(self, stage=None) -> str:
        """The built function as MLIR text at `stage` (see `ext.Kernel.mlir`:
        None for the computes with their schedules, a pass name, "final").

            >>> print(m.mlir())
        """
        if self.kernel is None:
            raise ValueError("ext.onnx: the model computes nothing (its outputs are "
                             "constants)")
        return self.kernel.mlir(stage)

    def summary(self) -> str:
        """The kernels, each with its anchor, node, fusions and schedule.

            >>> print(m.summary())
        """
        lines = [f"ext.onnx model '{self.name}' (opset {self.opset}): "
                 f"{len(self.computes)} computes in {len(self.kernels)} kernels"]
        lines += ["  " + k.describe() for k in self.kernels]
        return "\n".join(lines)

    def report(self, sizes: Optional[Dict[str, int]] = None) -> "ModelReport":
        """What the model became: kernels, host loops, the computes fused
        into kernels, the schedules used, and the bytes each kernel must
        move at least (onnx_report.py); a symbolic dim's size from `sizes`.

            >>> print(m.report())
            >>> print(m.report(sizes={"batch": 8}))
        """
        return model_report(self, sizes)

    def __repr__(self):
        return self.summary()



def unique_name(names: set, base: str) -> str:
    """`base`, or `base_2`, `base_3`, ... : the first not in `names`, which
    it joins."""
    name, n = base, 1
    while name in names:
        n += 1
        name = f"{base}_{n}"
    names.add(name)
    return name


def _identifier(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_]", "_", text) or "v"
    return name if not name[0].isdigit() else "v" + name


# ---------------------------------------------------------------------------
# The importer


class _Importer:
    def __init__(self, onnx_mod, model, input_shapes, chip=None):
        self.onnx = onnx_mod
        self.chip = chip
        self.model = model
        self.graph = model.graph
        self.opset = next((o.version for o in model.opset_import
                           if o.domain in ("", "ai.onnx")), _DEFAULT_OPSET)
        self.input_shapes = {k: tuple(int(d) for d in v) for k, v in (input_shapes or {}).items()}
        self.values: Dict[str, _Value] = {}
        self.uses: Dict[str, int] = {}
        self.names = set()
        # Per compute (by id of its ComputeOp): its role and ONNX node.
        self.role: Dict[int, str] = {}
        self.node_of: Dict[int, str] = {}
        # Rowwise anchors (softmax, LayerNorm): id -> (reductions computed
        # at the row, element-wise members inlined, reduced dims).
        self.rowwise: Dict[int, Tuple[list, list, list]] = {}
        # Fused patterns' kernels (onnx_ops_attention): anchor id -> (the
        # computes it owns, its schedule's maker).
        self.fused: Dict[int, tuple] = {}
        self.placeholders: List[Tuple[_te.Tensor, tuple]] = []  # (tensor, feed)
        self.node = None  # the node being mapped, for messages
        self.tune = False  # onnx_tuning.py: False, True or a database

    # -- errors and names --------------------------------------------------

    def where(self, node=None) -> str:
        node = node or self.node
        return f"{node.op_type} node '{self.node_name(node)}'"

    node_name = staticmethod(node_name)

    def fail(self, message, kind=OnnxImportError):
        return kind(f"ext.onnx: {self.where()}: {message}")

    def fresh(self, base: str) -> str:
        return unique_name(self.names, _identifier(base))

    # -- values --------------------------------------------------------------

    def compute(self, shape, fn, name, role="elementwise", dtype=None) -> _te.Tensor:
        """A compute over ONNX `shape` (a 0-d one as (1,)) of `fn(index)`."""
        if shape:
            t = _te.compute(shape, lambda *i: fn(list(i)), name=self.fresh(name), dtype=dtype)
        else:
            t = _te.compute((1,), lambda *i: fn([]), name=self.fresh(name), dtype=dtype)
        self.role[id(t.op)] = role
        self.node_of[id(t.op)] = self.node_name(self.node) if self.node is not None else name
        return t

    def tensor(self, v: _Value) -> _te.Tensor:
        """v as a tensor: an expression is written as a compute (once)."""
        if v.tensor is None:
            if v.fn is None and v.const is None:
                raise self.fail(f"input '{v.name}' is {v.dtype}; ext.onnx computes on "
                                "float16, float32 and float64")
            if v.fn is None:  # a scalar constant read as a tensor: a compute of it
                c = float(v.const.reshape(-1)[0])
                v.fn = lambda idx, c=c, dt=v.dtype: _te.const(c, dt)
            fn = v.fn
            v.tensor = self.compute(v.shape, fn, v.label or v.node or v.name)
            self.node_of[id(v.tensor.op)] = v.node or v.name  # the node that made it
            v.fn, v.layout = None, False
        return v.tensor

    def placeholder(self, name, shape, dtype, feed) -> _te.Tensor:
        t = _te.placeholder(shape or (1,), dtype, name=self.fresh(name))
        self.placeholders.append((t, feed))
        return t

    def value(self, name: str) -> _Value:
        if name not in self.values:
            raise self.fail(f"input {name!r} is produced by no node, initializer or graph "
                            "input")
        return self.values[name]

    def define(self, name: str, v: _Value):
        """Binds a node's output; an expression read more than once or an
        output of the graph is written as a compute now (not recomputed)."""
        v.name, v.node = name, self.node_name(self.node) if self.node else name
        # (A boolean expression, a mask or comparison, is recomputed by
        # each reader: ext's tensors hold numbers.)
        if v.fn is not None and self.uses.get(name, 0) > 1 and v.dtype in _DTYPES.values():
            self.tensor(v)
        self.values[name] = v

    def elementwise(self, shape, dtype, fn, layout=False) -> _Value:
        return _Value("", tuple(shape), dtype, fn=fn, layout=layout)

    # -- the graph -----------------------------------------------------------

    def run(self):
        onnx = self.onnx
        g = self.graph
        # Only the nodes the outputs need.
        producer = {o: n for n in g.node for o in n.output}
        needed, stack = set(), [o.name for o in g.output]
        while stack:
            name = stack.pop()
            n = producer.get(name)
            if n is None or id(n) in needed:
                continue
            needed.add(id(n))
            stack.extend(x for x in n.input if x)
        nodes = [n for n in g.node if id(n) in needed]
        for n in nodes:
            for x in n.input:
                if x:
                    self.uses[x] = self.uses.get(x, 0) + 1
        for o in g.output:
            self.uses[o.name] = self.uses.get(o.name, 0) + 2  # always materialized

        initializers = {t.name: t for t in g.initializer}
        for name, t in initializers.items():
            array = onnx.numpy_helper.to_array(t)
            self.values[name] = self.constant(name, array)
        self.inputs = []
        known = {vi.name for vi in g.input if vi.name not in initializers}
        unknown = sorted(set(self.input_shapes) - known)
        if unknown:
            raise ValueError(f"ext.onnx: input_shapes names {unknown[0]!r}, which is not a "
                             f"graph input (the inputs are {sorted(known)})")
        for vi in g.input:
            if vi.name in initializers:
                continue
            self.inputs.append(vi.name)
            shape, dtype = self.input_type(vi)
            if shape is None:
                self.values[vi.name] = _Value(vi.name, (), dtype, node=vi.name)
                continue
            t = self.placeholder(vi.name, shape, dtype,
                                 ("input", vi.name, shape, np.dtype(dtype), shape or (1,)))
            self.values[vi.name] = _Value(vi.name, shape, dtype, tensor=t, node=vi.name)
        for node in fuse_patterns(self, nodes):
            self.node = node
            try:
                self.mapping(node)(self, node, self.attributes(node))
            except OnnxImportError:
                raise
            except ValueError as e:  # ext.compute's (a size or constant it refuses)
                raise self.fail(str(e)) from e
        self.node = None
        return self.finish()

    def constant(self, name, array) -> _Value:
        """A constant: a scalar is written into the expressions reading it,
        a float array is an argument of the function (fed by `run`)."""
        dtype = _DTYPES.get(_onnx_type_of(self.onnx, array.dtype)) if array.dtype.kind == "f" \
            else None
        v = _Value(name, tuple(array.shape), dtype or str(array.dtype), const=array, node=name)
        if dtype is not None and array.size > 1:
            feed = np.ascontiguousarray(array.reshape(v.shape or (1,)))
            v.tensor = self.placeholder(name, v.shape, dtype, ("const", feed))
        return v

    def input_type(self, vi):
        tt = vi.type.tensor_type
        dtype = _DTYPES.get(tt.elem_type)
        if dtype is None and tt.elem_type in _INDEX_TYPES:
            # An integer input can only be a Reshape's shape, which must be
            # a constant: the op reading it says so.
            return None, _INDEX_TYPES[tt.elem_type]
        if dtype is None:
            raise OnnxImportError(
                f"ext.onnx: graph input '{vi.name}' has element type "
                f"{self.onnx.TensorProto.DataType.Name(tt.elem_type)}; ext.onnx computes on "
                "FLOAT, FLOAT16 and DOUBLE")
        if vi.name in self.input_shapes:
            return self.input_shapes[vi.name], dtype
        # (positive: onnx_check); a named dynamic dim: its stand-in size
        return _symbolic.input_shape(vi, getattr(self, "sizes", None)), dtype

    def mapping(self, node):
        """The converter of `node`: a fused pattern's own, else the table's."""
        return node.map if isinstance(node, FusedNode) else _OPS[op_key(node)]

    def attributes(self, node) -> dict:
        if isinstance(node, FusedNode):
            return dict(node.attrs)
        out, read = {}, ATTRIBUTES.get(op_key(node), {})
        for a in node.attribute:
            if a.name not in read:  # (the ones read, checked by onnx_check)
                continue
            v = self.onnx.helper.get_attribute_value(a)
            out[a.name] = v.decode() if isinstance(v, bytes) else v
        return out

    # -- fusion, schedules, build --------------------------------------------

    def finish(self):
        g = self.graph
        output_tensors, consts, output_shapes = {}, {}, {}
        for o in g.output:
            v = self.values[o.name]
            output_shapes[o.name] = v.shape
            self.check_declared(o, v)
            if v.const is not None and v.fn is None:
                consts[o.name] = v.const.astype(v.const.dtype)
                continue
            output_tensors[o.name] = self.tensor(v)
        # Computes the outputs need, producers first.
        computes, seen = [], set()

        def visit(t):
            if t.op is None or id(t.op) in seen:
                return
            seen.add(id(t.op))
            for s, _ in _operands(t.op):
                visit(s)
            computes.append(t.op)
        for t in output_tensors.values():
            visit(t)
        readers: Dict[int, list] = {id(op): [] for op in computes}
        for op in computes:
            for s, _ in _operands(op):
                if s.op is not None and op not in readers[id(s.op)]:
                    readers[id(s.op)].append(op)
        # An output another compute reads (or an input) is copied: the
        # function returns only what nothing reads.
        for name, t in list(output_tensors.items()):
            dup = [n for n, u in output_tensors.items() if u is t and n != name]
            if t.op is None or readers.get(id(t.op)) or dup:
                v = _Value(name, output_shapes[name], t.dtype, tensor=t)
                copy = self.compute(output_shapes[name], lambda idx, v=v: _read(v, idx),
                                    f"{name}_out")
                self.node_of[id(copy.op)] = name
                if t.op is not None:
                    readers[id(t.op)].append(copy.op)
                readers[id(copy.op)] = []
                computes.append(copy.op)
                output_tensors[name] = copy
        outputs = {id(t.op) for t in output_tensors.values()}
        kernels = self.fuse(computes, readers, outputs)
        # Placeholders the computes read, in the model's order.
        read = {id(s) for op in computes for s, _ in _operands(op) if s.op is None}
        args = [(t, feed) for t, feed in self.placeholders if id(t) in read]
        kernel = None
        if kernels:
            kernel = _build([k.schedule or k.host for k in kernels], args=[t for t, _ in args],
                            name=_identifier(g.name or "onnx_model"), chip=self.chip)
        return (self.inputs, output_tensors, output_shapes, consts, args, kernel, computes,
                kernels)

    def check_declared(self, o, v):
        tt = o.type.tensor_type
        if not tt.HasField("shape"):
            return
        dims = tt.shape.dim
        if len(dims) != len(v.shape) or any(
                d.HasField("dim_value") and d.dim_value != s for d, s in zip(dims, v.shape)):
            declared = [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?")
                        for d in dims]
            raise OnnxImportError(f"ext.onnx: graph output '{o.name}' is declared with shape "
                                  f"{declared}, the nodes make {list(v.shape)}")

    def fuse(self, computes, readers, outputs) -> List[FusedKernel]:
        """Groups the computes into kernels: anchors get their default
        schedule; an element-wise consumer of a contraction is its epilogue;
        an element-wise compute read only by one kernel's anchor (or its
        computed-at producers) is inlined there. A compute whose reads are
        not linear in its axes (a Reshape merging dims of a computed tensor)
        is a kernel of its own where ext-apply-schedule tiles its reads (a
        floordiv or mod by a constant the tiles divide), else host loops;
        except a dequantization (role "dequant", onnx_ops_quant.py: packed
        bytes and per-block scales read through // and %), which is inlined
        into the kernel reading it (through its other inlined producers too)
        where that kernel's schedule tiles those reads."""
        owner: Dict[int, FusedKernel] = {}
        kernels: Dict[int, FusedKernel] = {}
        members: Dict[int, set] = {}  # anchor and computed-at members by kernel

        def new_kernel(op):
            k = FusedKernel(op.name, self.node_of[id(op)], None)
            kernels[id(op)] = owner[id(op)] = k
            # Nothing is fused into host loops.
            members[id(k)] = set() if id(op) in nonlinear else {id(op)}
            return k
        nonlinear = {id(op) for op in computes if not _linear_reads(op)}
        for op in computes:
            role = self.role[id(op)]
            if id(op) in self.fused:  # S, T, M, L and out: anchor, inline, at, epilogue
                k = new_kernel(op)
                members[id(k)] = set()  # (its schedule is the pattern's: nothing inlined)
                parts = [p.op for p in self.fused[id(op)][0]]
                owner.update((id(p), k) for p in parts)
                k.computed_at, k.inlined, k.epilogue = [parts[0].name] + [
                    p.name for p in parts[2:4]], [parts[1].name], parts[4].name
            elif id(op) in nonlinear and role not in ("dequant", "member"):
                new_kernel(op)
            elif role in ("contraction", "rowwise"):
                k = new_kernel(op)
                if role == "rowwise":
                    at, inline, _ = self.rowwise[id(op)]
                    for p in at:
                        owner[id(p.op)] = k
                        members[id(k)].add(id(p.op))
                        k.computed_at.append(p.op.name)
                    for p in inline:
                        owner[id(p.op)] = k
                        k.inlined.append(p.op.name)
        # Epilogues: the contraction's only reader, element-wise, reading it
        # at the point it writes, and reading nothing computed after it (the
        # epilogue runs inside its kernel).
        order = {id(op): n for n, op in enumerate(computes)}
        for op in computes:
            if self.role[id(op)] != "elementwise" or id(op) in owner:
                continue
            identity = tuple(("axis", d) for d in range(len(op.axes)))
            for src, _ in _operands(op):
                c = src.op
                if c is None or self.role.get(id(c)) != "contraction" or id(c) in outputs \
                        or id(c) in nonlinear:
                    continue
                k = kernels[id(c)]
                if any(s2.op is not None and order[id(s2.op)] > order[id(c)]
                       for s2, _ in _operands(op)):
                    continue
                # Every read of the anchor at the point the epilogue writes.
                plain = all(trees == identity for s2, trees in _operands(op) if s2 is src)
                if k.epilogue is None and readers[id(c)] == [op] and plain and \
                        tuple(src.shape) == tuple(op.outputs[0].shape):
                    k.epilogue = op.name
                    owner[id(op)] = k
                    break
        # The remaining element-wise computes, readers first: inlined into the
        # one kernel that reads them, else a kernel of their own.
        inlined: Dict[int, set] = {}  # by kernel, the computes inlined into it
        for op in reversed(computes):
            if id(op) in owner:
                continue
            rs = readers[id(op)]
            role = self.role[id(op)]
            if role in ("elementwise", "dequant") and rs and id(op) not in outputs and \
                    all(id(r) in owner for r in rs):
                k = owner[id(rs[0])]
                inside = members[id(k)] | inlined.get(id(k), set()) \
                    if role == "dequant" else members[id(k)]
                if all(id(r) in inside for r in rs):
                    owner[id(op)] = k
                    k.inlined.append(op.name)
                    inlined.setdefault(id(k), set()).add(id(op))
                    continue
            new_kernel(op)
        # Schedules, in dependence order of the anchors.
        by_name = {op.name: op for op in computes}
        position = {op.name: n for n, op in enumerate(computes)}
        result = []

        def alone(op, k):
            """k: op's kernel, nothing fused; reads through // or % tile
            where the tiles divide them (a head split out of a fused QKV
            projection), else host loops."""
            s = self.default_schedule(op)
            if self.tiles(s):
                k.schedule = s
            else:
                k.host = op.outputs[0]
            result.append(k)

        for op in computes:
            k = kernels.get(id(op))
            if k is None:
                continue
            if id(op) in self.fused:
                k.schedule = self.fused[id(op)][1]()
                result.append(k)
                continue
            if id(op) in nonlinear:
                alone(op, k)
                continue
            # Producers first, as the examples fuse them; a dequantization
            # read through another inlined compute (a Transpose of it) after
            # that one, which then reads it in the anchor's place.
            k.inlined = sorted(k.inlined, key=position.get)
            through = [n for n in k.inlined if any(
                id(r) not in members[id(k)] for r in readers[id(by_name[n])])]
            k.inlined = [n for n in k.inlined if n not in through] + \
                sorted(through, key=position.get, reverse=True)
            s = self.fused_schedule(op, k, by_name)
            packed = [n for n in k.inlined if id(by_name[n]) in nonlinear]
            if packed and not self.tiles(s):
                # The kernel's tiles do not divide the dequantization's
                # reads: it is a kernel of its own (or host loops) before.
                k.inlined = [n for n in k.inlined if n not in packed]
                for name in packed:
                    alone(by_name[name], FusedKernel(name, self.node_of[id(by_name[name])],
                                                     None))
                s = self.fused_schedule(op, k, by_name)
            k.schedule = s
            result.append(k)
        return result

    def fused_schedule(self, op, k, by_name):
        """Kernel k's anchor `op` scheduled with k's fusions: the tuner's pick
        (onnx_tuning.py) where it applies and builds with them, else the
        default schedule."""
        if wants_tuning(self, op, self.tune):
            s = tuned_schedule(self, op, k, self.tune)
            if s is not None and self.tiles(self.with_fusions(s, op, k, by_name)):
                k.tuning = "tuned" if self.tune else "tensor cores (the tuner's model pick)"
                return s
            k.tuning = k.tuning or "the tuned schedule does not build with its fusions"
        return self.with_fusions(self.default_schedule(op), op, k, by_name)

    def with_fusions(self, s, op, k, by_name):
        for name in k.computed_at:
            s.compute_at(by_name[name].outputs[0], self.row_axis(op))
        for name in k.inlined:
            s.compute_inline(by_name[name].outputs[0])
        if k.epilogue is not None:
            s.reverse_compute_at(by_name[k.epilogue].outputs[0], self.epilogue_axis(s))
        return s

    def tiles(self, s) -> bool:
        """Whether ext-apply-schedule tiles schedule `s` of one compute (its
        refusals of reads through // and % it cannot tile are diagnostics)."""
        program, _, _, _ = _lower([s._for_lanes(_lanes(self.chip, "cpu"))], "probe")
        try:
            _Module.build(None, program).run_pipeline("builtin.module(ext-apply-schedule)")
        except (RuntimeError, ValueError):
            return False
        return True

    def register_rowwise(self, y, reductions, inline, reduced):
        """y's kernel computes `reductions` at its rows and inlines `inline`;
        with every dim reduced there is no row axis to attach them to: each
        is a kernel then."""
        if len(reduced) < len(y.shape):
            self.rowwise[id(y.op)] = (reductions, inline, reduced)
        else:
            self.role[id(y.op)] = "elementwise"

    def default_schedule(self, op):
        if self.role[id(op)] != "rowwise":
            return _schedule(op.outputs[0])
        # A row (the reduced dims) per block, as examples/python/softmax.py:
        # its innermost reduced dim on up to 256 threads, the rest blocks.
        _, _, reduced = self.rowwise[id(op)]
        tile, threads = [], []
        inner = max(reduced)
        for d, a in enumerate(op.axes):
            if d in reduced:
                width = 1 << (a.extent - 1).bit_length()
                tile.append(width if d == inner else a.extent)
                threads.append(min(width, 256) if d == inner else 1)
            else:
                tile.append(1)
                threads.append(1)
        blocks = [a.name for d, a in enumerate(op.axes) if d not in reduced]
        return _schedule(op.outputs[0], tile=tile, threads=threads, blocks=blocks)

    def row_axis(self, op):
        """The innermost blocked axis: each block's rows (region of the
        reductions) change with no tile loop inside it."""
        _, _, reduced = self.rowwise[id(op)]
        return [a.name for d, a in enumerate(op.axes) if d not in reduced][-1]

    @staticmethod
    def epilogue_axis(s):
        spatial = [a.name for a in s.op.axes]
        blocked = [n for n in spatial if n in s.blocks]
        return blocked[-1] if blocked else spatial[-1]



def load(model, input_shapes: Optional[Dict[str, Sequence[int]]] = None,
         chip: Optional[str] = None, tune=False) -> OnnxModule:
    """An ONNX model (a path, its bytes or an `onnx.ModelProto`) as ext
    computes with their default schedules and fusions, built into one
    function: `OnnxModule.run` runs it on ext's CPU emulator, its kernels
    standing for `chip` (default sm_80). A graph input dim named by
    `dim_param` ("batch") is an `ext.var` of that name: one load runs every
    size of it, where the ops keep it whole (onnx_symbolic.py; else an
    OnnxImportError names the node and the dim). `input_shapes` fixes
    graph inputs' dims (over their names too). The model is checked first
    (ext.onnx_check): `InvalidModelError` lists what is malformed, naming
    each node; `UnsupportedOpError` names the op and the node for an op it
    does not map, `DynamicShapeError` the input for a dim with no value nor
    name. GEMMs of f16/bf16 inputs (accumulated in f32) run on the chip's
    tensor cores, as the tuner's model picks them; `tune=True` (or a
    database: a path or an `ext.TuningDatabase`) runs `ext.tune` for every
    GEMM and keeps its picks (onnx_tuning.py); `report()` says which.

        >>> m = ext.onnx.load("mlp.onnx")            # x: ("batch", 32)
        >>> y, = m.run({"x": np.ones((8, 32), np.float32)})
        >>> y, = m.run({"x": np.ones((1, 32), np.float32)})
    """
    try:
        import onnx as _onnx
        import onnx.numpy_helper  # noqa: F401 (the submodule, for to_array)
    except ImportError as e:
        raise ImportError("ext.onnx.load needs the onnx package (pip install onnx)") from e
    chip = _check_chip(chip)
    model = read_model(_onnx, model)
    check_model(_onnx, model, _OPS, input_shapes, unsupported=False)
    model = _fold(_onnx, model, input_shapes)
    sizes = _symbolic.Sizes.of(model, input_shapes, _DTYPES)
    model = _symbolic.fold_shapes(_onnx, model, sizes)
    _symbolic.check_inputs(model, input_shapes, _DTYPES)
    check_supported(model, _OPS, _FOLD_ONLY)
    if sizes:  # named dynamic dims: ext.var sizes (onnx_symbolic.py)
        imp = type("_SymbolicImporter", (_symbolic.SymbolicImport, _Importer), {})(
            _onnx, model, input_shapes, chip, sizes=sizes)
    else:
        imp = _Importer(_onnx, model, input_shapes, chip)
    imp.tune = tune
    try:
        inputs, output_tensors, output_shapes, consts, args, kernel, computes, kernels = \
            imp.run()
    except (OnnxImportError, ValueError) as e:
        if sizes.text(str(e)) != str(e):  # stand-in sizes by their names
            e.args = (sizes.text(str(e)),) + e.args[1:]
        raise
    feeds = [feed if feed[0] == "const" else feed[:2] + (sizes.shape(feed[2]),) + feed[3:4] +
             (sizes.shape(feed[4]),) for _, feed in args]
    output_shapes = {k: sizes.shape(s) for k, s in output_shapes.items()}
    m = OnnxModule(model.graph.name, inputs, [o.name for o in model.graph.output],
                   output_shapes, feeds, consts, kernel, computes, kernels, imp.opset,
                   {name: t.name for name, t in output_tensors.items()})
    return m
