"""Tracing a torch module for `ext.torch.compile` (torch_frontend.py): torch.fx
symbolic tracing in which every proxy also carries the value it has for the
example inputs. Sizes (`x.size()`, `x.shape`, `x.dim()`, `len`, unpacking a
tuple a call returns) and tensor properties (`device`, `is_nested`, ...)
are those values, not graph nodes, so shape arithmetic (`c // h`,
`math.sqrt(k.size(-1))`) and the control flow of torch's own layers that
tests them (nn.TransformerEncoderLayer's fast-path checks) trace: the graph
is specialized to the example's shapes, as ext builds for static shapes.
Values that do not depend on the inputs (a mask sliced from a buffer and
compared) are kept for the lowering to fold as constants. Sizes and dtypes
of the traced graph come from torch.fx's ShapeProp.

torch is imported by the caller (compile); this module only when tracing."""

import torch
import torch.fx as fx
from torch import nn
from torch.fx import _symbolic_trace as _st
from torch.fx.passes.shape_prop import ShapeProp

# Tensor properties a proxy answers from its example value.
_PROPERTIES = ("shape", "dtype", "device", "ndim", "is_nested", "is_cuda", "is_sparse",
               "is_quantized", "requires_grad", "layout")
# torch.nn modules traced through (their parts are leaves or calls mapped).
_TRACE_INTO = (nn.Sequential, nn.ModuleList, nn.ModuleDict, nn.TransformerEncoderLayer,
               nn.TransformerDecoderLayer)


def _unpatched(fn, *args):
    """fn(*args) with nn.Module's __call__ and __getattr__ as torch defines
    them (tracing patches them to record calls and parameter reads)."""
    call, get = nn.Module.__call__, nn.Module.__getattr__
    nn.Module.__call__, nn.Module.__getattr__ = _st._orig_module_call, _st._orig_module_getattr
    try:
        with torch.no_grad():
            return fn(*args)
    finally:
        nn.Module.__call__, nn.Module.__getattr__ = call, get


def _value(a):
    return a.node.meta["ext_value"] if isinstance(a, fx.Proxy) else a


class _Proxy(fx.Proxy):
    """A proxy whose sizes and properties are its example value's."""

    def size(self, dim=None):
        v = _value(self)
        return v.size() if dim is None else v.size(dim)

    def dim(self):
        return _value(self).dim()

    def numel(self):
        return _value(self).numel()

    def __len__(self):
        return len(_value(self))

    def __iter__(self):
        # (torch.fx's own __iter__ reads the caller's bytecode, which
        # Python 3.11 changed; the value says how many items there are.)
        return iter([self[i] for i in range(len(_value(self)))])

    def __getattr__(self, k):
        if k in _PROPERTIES:
            return getattr(_value(self), k)
        return super().__getattr__(k)


for _name in _PROPERTIES:  # (properties, found before __getattr__ would be)
    setattr(_Proxy, _name, property(lambda self, _n=_name: getattr(_value(self), _n)))


class _Tracer(fx.Tracer):
    """fx.Tracer that evaluates each node on the example inputs as it is
    recorded. `leaves` are the module types the lowering maps; other
    torch.nn modules are leaves too (named unsupported if not mapped),
    except the containers and layers of `_TRACE_INTO`."""

    def __init__(self, inputs, leaves):
        super().__init__()
        self.inputs = list(inputs)
        self.leaves = tuple(leaves)
        self.placeholders = 0

    def is_leaf_module(self, m, qualified_name):
        if isinstance(m, self.leaves):
            return True
        if isinstance(m, _TRACE_INTO):
            return False
        return m.__module__.startswith("torch.nn")

    def proxy(self, node):
        return _Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None,
                     proxy_factory_fn=None):
        rv = super().create_proxy(kind, target, args, kwargs, name, type_expr, proxy_factory_fn)
        if kind != "output":
            rv.node.meta["ext_value"] = _unpatched(self.evaluate, kind, target, args, kwargs)
        return rv

    def evaluate(self, kind, target, args, kwargs):
        if kind == "placeholder":
            n = self.placeholders
            self.placeholders += 1
            # (after the inputs: an argument fixed at its default)
            return self.inputs[n] if n < len(self.inputs) else (args[0] if args else None)
        if kind == "get_attr":
            return _attribute(self.root, target)
        a = fx.node.map_aggregate(args, _value)
        k = fx.node.map_aggregate(kwargs, _value)
        if kind == "call_function":
            return target(*a, **k)
        if kind == "call_method":
            return getattr(a[0], target)(*a[1:], **k)
        return self.root.get_submodule(target)(*a, **k)  # call_module


def _attribute(root, target):
    v = root
    for atom in target.split("."):
        v = getattr(v, atom)
    return v


def trace(module, inputs, leaves):
    """(GraphModule, node -> example value of the nodes that do not depend
    on the inputs) of `module` traced on `inputs` (a tuple of tensors), with
    ShapeProp's tensor_meta on every node. Arguments of forward beyond the
    inputs keep their defaults."""
    import inspect
    params = list(inspect.signature(module.forward).parameters.values())
    concrete = {p.name: p.default for p in params[len(inputs):]
                if p.default is not inspect.Parameter.empty}
    tracer = _Tracer(inputs, leaves)
    graph = tracer.trace(module, concrete_args=concrete or None)
    gm = fx.GraphModule(tracer.root, graph, type(module).__name__)
    constants, varying, placeholders = {}, set(), []
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            placeholders.append(node.meta["ext_value"])
            if len(placeholders) <= len(inputs):
                varying.add(node)
            else:  # (an argument at its default)
                constants[node] = node.meta["ext_value"]
        elif any(a in varying for a in node.all_input_nodes):
            varying.add(node)
        elif node.op == "get_attr":  # (a tensor constant is recorded without a proxy)
            constants[node] = _attribute(gm, node.target)
        elif node.op != "output":
            constants[node] = node.meta["ext_value"]
        node.meta.pop("ext_value", None)
    gm.graph.eliminate_dead_code()
    gm.recompile()
    ShapeProp(gm).propagate(*placeholders)
    return gm, constants
