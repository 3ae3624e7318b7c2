"""`ext.torch.compile`: a torch module as ext computes, scheduled, fused,
built, and called with torch tensors.

    >>> import torch, ext
    >>> f = ext.torch.compile(model.eval(), (x,))   # traced for x's shapes
    >>> y = f(x2)                                   # torch in, torch out
    >>> print(f.summary())                          # kernels and fusions

The module is traced with torch.fx (torch_trace.py: proxies answer sizes
from the example inputs, so shape arithmetic and the fast-path checks of
torch's own layers trace; sizes and dtypes from ShapeProp; what does not
depend on the inputs is folded to constants). Each call of the graph
(call_module of an nn layer, call_function of torch/F/operator, call_method
of Tensor) is written as ONNX-style nodes by the handlers of torch_ops.py
and torch_ops_nn.py, and those nodes become ext computes through
ext.onnx's own converters (onnx_ops*.py) and its fusion, schedules and
build (ext.onnx's importer): the same computes and kernels `ext.onnx.load`
makes of the module exported to ONNX. The result runs as ext.onnx.load's
does (GPU kernels on ext's CPU emulator); tensors go through numpy without
copies where their layout allows. A call the front end does not map is
named, with every other such call, in one `UnsupportedOpError`.

torch is imported by `compile` only. See docs/TorchFrontEnd.md."""

from types import SimpleNamespace
from typing import Dict, List

import numpy as np

from .onnx import _OPS, OnnxModule, _Importer, unique_name
from .onnx_check import OnnxImportError, UnsupportedOpError
from .onnx_ops import _DTYPES, _Value
from .onnx_patterns import FusedNode, fuse_patterns

__all__ = ["compile", "CompiledModule", "supported", "UnsupportedOpError", "OnnxImportError"]


class _Node:
    """One ONNX-style node of the lowered graph: what ext.onnx's converters
    read (op_type, name, input, output) plus its attributes, the torch call
    it came from (for messages) and its outputs' shapes (checked)."""

    def __init__(self, op_type, name, inputs, outputs, attrs, label, shapes):
        self.op_type, self.name, self.input, self.output = op_type, name, inputs, outputs
        self.attrs, self.label, self.shapes = dict(attrs or {}), label, shapes


_POISON = object()  # the value of a call not mapped (its readers are skipped)


class _Out:
    """A graph output in the returned structure: the value's name."""

    def __init__(self, name):
        self.name = name


def _dtype_name(dtype) -> str:
    return str(dtype).replace("torch.", "")


class _Lowering:
    """The fx graph as ONNX-style nodes: env maps each fx node to a `T`, a
    list of them, or a Python value; handlers emit nodes and constants
    through `emit` and `const`."""

    def __init__(self, gm, constants, tables):
        from .torch_ops import T
        self.T = T
        self.gm, self.constants = gm, constants
        self.functions, self.methods, self.modules = tables
        self.nodes: List[_Node] = []
        self.consts: Dict[str, np.ndarray] = {}
        self.inputs = []  # (name, shape, dtype)
        self.env = {}
        self.names = set()
        self.folded = set()  # BatchNorm nodes folded into their Conv2d
        self.unsupported = []  # (label, node name, why)
        self.node = None

    # -- what handlers use -----------------------------------------------------

    @property
    def shape(self):
        """The current node's output shape (ShapeProp's)."""
        tm = self.node.meta.get("tensor_meta")
        return tuple(tm.shape) if hasattr(tm, "shape") else None

    def fresh(self, base):
        return unique_name(self.names, base)

    def emit(self, op_type, inputs, attrs=None, outputs=1, shape=None, dtype=None,
             suffix=None):
        """Appends a node; returns its output `T` (a list for several)."""
        base = self.node.name if suffix is None else f"{self.node.name}_{suffix}"
        name = self.fresh(base)
        tm = self.node.meta.get("tensor_meta")
        # By default the node's dtype, or for a part of it (a suffix) its
        # first float input's (Where(mask, -inf, scores) is float).
        floats = [x.dtype for x in inputs if isinstance(x, self.T) and
                  x.dtype in _DTYPES.values()]
        part = dtype or (floats[0] if floats else inputs[0].dtype)
        if outputs == 1:
            shapes = [shape if shape is not None else self.shape]
            dtypes = [_dtype_name(tm.dtype) if hasattr(tm, "dtype") and suffix is None
                      and dtype is None else part]
            names = [name]
        else:
            shapes = shape or [tuple(t.shape) for t in tm]
            dtypes = [part] * outputs
            names = [name] + [self.fresh(f"{base}_{i}") for i in range(1, outputs)]
        ins = [x if isinstance(x, str) else x.name for x in inputs]
        self.nodes.append(_Node(op_type, name, ins, names, attrs, self.label(self.node),
                                shapes))
        out = [self.T(n, tuple(s), d) for n, s, d in zip(names, shapes, dtypes)]
        return out[0] if outputs == 1 else out

    def const(self, value, dtype=None, name=None):
        array = np.array(value, dtype=dtype if dtype is not None else
                         (np.float32 if isinstance(value, float) else None))
        base = f"{self.node.name}_{name or 'const'}" if self.node is not None else name
        n = self.fresh(base)
        self.consts[n] = array
        return self.T(n, tuple(array.shape), str(array.dtype))

    def operand(self, x, like):
        """x as a value: a Python number a scalar constant of `like`'s dtype."""
        if isinstance(x, self.T):
            return x
        if isinstance(x, bool):
            return self.const(x, np.bool_)
        if isinstance(x, (int, float)):
            dtype = like.dtype if isinstance(like, self.T) and like.dtype in \
                _DTYPES.values() else "float32"
            return self.const(float(x), dtype)
        from .torch_ops import Unsupported
        raise Unsupported(f"operand {x!r}")

    def param(self, tensor, name):
        if tensor is None:
            return None
        return self.const(tensor.detach().cpu().numpy(), name=name)

    def value_of(self, t):
        return self.consts.get(t.name) if t is not None else None

    def module(self, node):
        return self.gm.get_submodule(node.target)

    # -- the walk ----------------------------------------------------------------

    def label(self, node) -> str:
        """How messages name the torch call of `node`."""
        import operator
        import torch
        import torch.nn.functional as F
        if node.op == "call_module":
            t = type(self.module(node))
            where = "nn." if t.__module__.startswith("torch.nn") else t.__module__ + "."
            return where + t.__qualname__
        if node.op == "call_method":
            return f"Tensor.{node.target}"
        t, name = node.target, getattr(node.target, "__name__", None)
        for prefix, ns in (("torch.nn.functional", F), ("torch", torch),
                           ("operator", operator)):
            if name and getattr(ns, name, None) is t:
                return f"{prefix}.{name}"
        return f"{getattr(t, '__module__', None) or '?'}.{getattr(t, '__qualname__', t)}"

    def constant(self, node, value):
        import torch
        if isinstance(value, torch.Tensor):
            array = value.detach().cpu().numpy().copy()
            name = self.fresh(node.name)
            self.consts[name] = array
            return self.T(name, tuple(array.shape), str(array.dtype))
        if isinstance(value, (tuple, list)) and any(isinstance(v, torch.Tensor) for v in value):
            return [self.constant(node, v) for v in value]
        return value

    def handler(self, node):
        if node.op == "call_function":
            return self.functions.get(node.target)
        if node.op == "call_method":
            return self.methods.get(node.target)
        for t in type(self.module(node)).__mro__:
            if t in self.modules:
                return self.modules[t]
        return None

    def run(self):
        import torch.fx as fx
        from .torch_ops import Unsupported
        for node in self.gm.graph.nodes:
            self.node = node
            if node.op == "output":
                self.output = fx.node.map_aggregate(node.args[0], self.output_leaf)
            elif node in self.constants:
                self.env[node] = self.constant(node, self.constants[node])
            elif node.op == "placeholder":
                self.env[node] = self.placeholder(node)
            else:
                self.call(node, fx, Unsupported)
        self.node = None
        if self.unsupported:
            raise _unsupported_error(self.unsupported, self.supported_labels())

    def placeholder(self, node):
        tm = node.meta.get("tensor_meta")
        if not hasattr(tm, "shape"):
            raise TypeError(f"ext.torch: input '{node.name}' is not a tensor")
        t = self.T(self.fresh(node.name), tuple(tm.shape), _dtype_name(tm.dtype))
        self.inputs.append((t.name, t.shape, t.dtype))
        return t

    def call(self, node, fx, Unsupported):
        args = fx.node.map_aggregate(node.args, lambda a: self.env[a]
                                     if isinstance(a, fx.Node) else a)
        kwargs = fx.node.map_aggregate(node.kwargs, lambda a: self.env[a]
                                       if isinstance(a, fx.Node) else a)
        poisoned = []
        fx.node.map_aggregate((args, kwargs), lambda a: poisoned.append(a is _POISON))
        handler = self.handler(node)
        why = None
        if any(poisoned):  # (a call read after one not mapped: named if not mapped itself)
            self.env[node] = _POISON
            if handler is not None:
                return
        if handler is None:
            why = ""
        else:
            module = (self.module(node),) if node.op == "call_module" else ()
            try:
                self.env[node] = handler(self, *module, *args, **kwargs)
                return
            except Unsupported as e:
                why = str(e)
            except TypeError as e:  # arguments the handler does not take
                why = f"arguments not mapped ({e})"
        self.unsupported.append((f"{node.op} {self.label(node)}", node.name, why))
        self.env[node] = _POISON

    def output_leaf(self, a):
        import torch.fx as fx
        if not isinstance(a, fx.Node):
            return a
        v = self.env[a]
        return _Out(v.name) if isinstance(v, self.T) else v

    def supported_labels(self):
        return supported()


def _unsupported_error(bad, mapped):
    def named(label, node, why):
        return f"{label} (node '{node}'{': ' + why if why else ''})"
    first, rest = bad[0], bad[1:]
    also = "".join(f"; also {named(*b)}" for b in rest)
    count = f" ({len(bad)} calls)" if len(bad) > 1 else ""
    return UnsupportedOpError(f"ext.torch: unsupported {named(*first)}{also}{count}; "
                              f"mapped: {len(mapped)} calls (ext.torch.supported())",
                              [(label.split(" ", 1)[1], node) for label, node, _ in bad])


# The numpy float types as ONNX element types, for the importer's constants.
_NUMPY_TYPES = SimpleNamespace(helper=SimpleNamespace(
    np_dtype_to_tensor_dtype=lambda dt: {np.dtype(v): k for k, v in _DTYPES.items()}[
        np.dtype(dt)]))


class _GraphImporter(_Importer):
    """ext.onnx's importer over the lowered nodes: its converters, fusion,
    schedules and build, with the graph's inputs, constants and outputs
    from the lowering instead of an ONNX model."""

    def __init__(self, lowering: _Lowering, outputs, name, chip):
        graph = SimpleNamespace(name=name, node=lowering.nodes, input=[], initializer=[],
                                output=[SimpleNamespace(name=n, shape=s) for n, s in outputs])
        super().__init__(_NUMPY_TYPES, SimpleNamespace(graph=graph, opset_import=[]), None,
                         chip)
        self.lowering = lowering

    def where(self, node=None):
        node = node or self.node
        return f"{node.label} (node '{node.name}', {node.op_type})"

    def fail(self, message, kind=OnnxImportError):
        return kind(f"ext.torch: {self.where()}: {message}")

    def attributes(self, node):
        return dict(node.attrs)

    def mapping(self, node):
        # (Lowered nodes are keyed by op type: they have no domain.)
        return node.map if isinstance(node, FusedNode) else _OPS[node.op_type]

    def check_declared(self, o, v):
        if tuple(v.shape) != tuple(o.shape):
            raise OnnxImportError(f"ext.torch: output '{o.name}' has shape {list(v.shape)}, "
                                  f"torch's is {list(o.shape)}")

    def run(self):
        lw, g = self.lowering, self.graph
        for n in lw.nodes:
            for x in n.input:
                if x:
                    self.uses[x] = self.uses.get(x, 0) + 1
        for o in g.output:
            self.uses[o.name] = self.uses.get(o.name, 0) + 2  # always materialized
        for name, array in lw.consts.items():
            self.values[name] = self.constant(name, array)
        self.inputs = []
        for name, shape, dtype in lw.inputs:
            if dtype not in _DTYPES.values():
                raise OnnxImportError(f"ext.torch: input '{name}' is {dtype}; ext computes "
                                      "on float16, float32 and float64")
            self.inputs.append(name)
            t = self.placeholder(name, shape, dtype,
                                 ("input", name, shape, np.dtype(dtype), shape or (1,)))
            self.values[name] = _Value(name, shape, dtype, tensor=t, node=name)
        for node in fuse_patterns(self, lw.nodes):
            self.node = node
            try:
                self.mapping(node)(self, node, node.attrs)
            except OnnxImportError:
                raise
            except ValueError as e:  # ext.compute's (a size or constant it refuses)
                raise self.fail(str(e)) from e
            for out, shape in zip(node.output, node.shapes):
                got = self.values[out].shape
                if shape is not None and tuple(got) != tuple(shape):
                    raise self.fail(f"output '{out}' has shape {list(got)}, torch's is "
                                    f"{list(shape)} (a lowering bug)")
        self.node = None
        return self.finish()


def _tables():
    from . import torch_ops, torch_ops_nn
    functions = dict(torch_ops.FUNCTIONS)
    functions.update(torch_ops_nn.FUNCTIONS)
    return functions, dict(torch_ops.METHODS), dict(torch_ops_nn.MODULES)


def supported() -> List[str]:
    """The torch calls `compile` maps: nn module types, functions and
    Tensor methods, as errors name them.

        >>> "nn.MultiheadAttention" in ext.torch.supported()
        True
    """
    functions, methods, modules = _tables()
    names = set()
    for t in modules:
        names.add(("nn." if t.__module__.startswith("torch.nn") else "") + t.__qualname__)
    for f in functions:
        names.add(f"{getattr(f, '__module__', None) or 'torch'}.{f.__name__}")
    names.update(f"Tensor.{m}" for m in methods)
    return sorted(names)


class CompiledModule:
    """A torch module compiled by `ext.torch.compile`: call it with tensors
    of the example inputs' shapes and dtypes; it returns what the module's
    forward returns (tensors from ext's outputs, without copies). `module`
    is the ext.onnx module underneath (`kernels`, `computes`, `mlir()`),
    `graph_module` the fx trace."""

    def __init__(self, name, module: OnnxModule, graph_module, structure):
        self.name = name
        self.module = module
        self.graph_module = graph_module
        self._structure = structure

    @property
    def kernels(self):
        return self.module.kernels

    @property
    def computes(self):
        return self.module.computes

    def mlir(self, stage=None) -> str:
        return self.module.mlir(stage)

    def summary(self) -> str:
        """The kernels, each with its anchor, the torch node it came from,
        its fusions and its schedule."""
        lines = self.module.summary().splitlines()
        head = (f"ext.torch module '{self.name}': {len(self.module.computes)} computes in "
                f"{len(self.module.kernels)} kernels")
        return "\n".join([head] + lines[1:])

    __repr__ = summary

    def __call__(self, *inputs, target=None):
        """The module's forward on `inputs` (torch tensors): on ext's CPU
        emulator for CPU tensors, on the CUDA device for CUDA ones (or as
        `target`, "cpu" or "cuda", says); the outputs on the inputs' device.
        Host arrays pass by numpy (a view of a contiguous CPU tensor; a CUDA
        tensor is copied to the host and its outputs back)."""
        import torch
        names = self.module.input_names
        if len(inputs) != len(names):
            raise TypeError(f"ext.torch: the compiled module takes {len(names)} tensors "
                            f"({', '.join(names)}), got {len(inputs)}")
        arrays, devices = [], set()
        for x in inputs:
            if not isinstance(x, torch.Tensor):
                raise TypeError(f"ext.torch: expected a torch.Tensor, got {type(x).__name__}")
            devices.add(x.device)
            arrays.append(x.detach().cpu().numpy())  # (a view of a CPU tensor)
        if len(devices) > 1:
            raise ValueError(f"ext.torch: inputs on different devices "
                             f"({', '.join(sorted(map(str, devices)))})")
        device = devices.pop() if devices else torch.device("cpu")
        target = target or ("cuda" if device.type == "cuda" else "cpu")
        outputs = dict(zip(self.module.output_names, self.module.run(arrays, target=target)))
        import torch.fx as fx
        return fx.node.map_aggregate(self._structure, lambda a: torch.from_numpy(
            outputs[a.name]).to(device) if isinstance(a, _Out) else a)


def compile(module, example_inputs, chip=None, tune=False) -> CompiledModule:
    """`module` (an nn.Module, in eval mode for BatchNorm and Dropout)
    traced with torch.fx on `example_inputs` (a tensor or a tuple of them;
    forward's further arguments keep their defaults) and built as ext
    computes for those shapes, its kernels standing for `chip` (default
    sm_80) and run on ext's CPU emulator, or on the CUDA device for CUDA
    tensors (`target=`, see `CompiledModule.__call__`). Raises `UnsupportedOpError`
    naming every call it does not map (its target and node). `tune` as in
    `ext.onnx.load` (f16/bf16 GEMMs on tensor cores by default; True or a
    database: `ext.tune` for every GEMM).

        >>> f = ext.torch.compile(mlp.eval(), torch.randn(4, 32))
        >>> y = f(torch.randn(4, 32))
    """
    import torch
    from .chips import check_chip
    from .torch_trace import trace
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    chip = check_chip(chip)
    tables = _tables()
    gm, constants = trace(module, example_inputs, tuple(tables[2]))
    lw = _Lowering(gm, constants, tables)
    lw.run()
    outputs, seen = [], set()
    fx_leaves = []
    import torch.fx as fx
    fx.node.map_aggregate(lw.output, lambda a: fx_leaves.append(a) if isinstance(a, _Out)
                          else None)
    shapes = {}
    out_node = next(n for n in gm.graph.nodes if n.op == "output")
    fx.node.map_aggregate(out_node.args[0], lambda a: shapes.setdefault(
        lw.env[a].name, tuple(a.meta["tensor_meta"].shape))
        if isinstance(a, fx.Node) and hasattr(lw.env[a], "name") else None)
    for leaf in fx_leaves:
        if leaf.name not in seen:
            seen.add(leaf.name)
            outputs.append((leaf.name, shapes[leaf.name]))
    name = type(module).__name__
    imp = _GraphImporter(lw, outputs, name, chip)
    imp.tune = tune  # (as ext.onnx.load's: onnx_tuning.py)
    inputs, output_tensors, output_shapes, consts, args, kernel, computes, kernels = imp.run()
    m = OnnxModule(name, inputs, [n for n, _ in outputs], output_shapes,
                   [feed for _, feed in args], consts, kernel, computes, kernels, imp.opset,
                   {n: t.name for n, t in output_tensors.items()})
    return CompiledModule(name, m, gm, lw.output)
