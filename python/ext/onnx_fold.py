"""Shape subgraphs and constants folded at load, before `ext.onnx.load` maps
a model: ONNX as exporters write it.

`torch.onnx.export` (and other exporters) write the shapes a model computes
with as nodes: `Shape -> Gather -> Unsqueeze -> Concat -> Reshape`, a causal
mask sliced to the sequence length, weights transposed at run time. With
static input shapes all of these are constants. `fold` runs ONNX's shape
inference (`onnx.shape_inference`), replaces `Shape` and `Size` of a value
whose shape is known by its constant, then evaluates in numpy every node
whose inputs are all constants (Gather, Slice, Concat, Unsqueeze, Squeeze,
Reshape, Expand, Range, ConstantOfShape, Cast, arithmetic and comparisons,
Transpose, Where, ...), and repeats until nothing changes (a folded shape
lets inference find the next). A BatchNormalization after a Conv with
constant weights is folded into the Conv's weights and bias (as inference
runtimes do). What stays are the nodes that compute on the model's inputs;
the importer maps those to ext computes.

    >>> folded = ext.onnx_fold.fold(onnx, model, {"x": (2, 8, 64)})
"""

from typing import Callable, Dict, Optional

import numpy as np

# Ops the importer only sees folded (shape computations): if one stays, the
# error says why it could not be folded.
FOLD_ONLY = ("Shape", "Size", "Range", "ConstantOfShape")


def _attr(node, onnx_mod, name, default=None):
    for a in node.attribute:
        if a.name == name:
            v = onnx_mod.helper.get_attribute_value(a)
            return v.decode() if isinstance(v, bytes) else v
    return default


def _axes(node, onnx_mod, ins, at=1):
    """Axes given as an attribute (older opsets) or as input `at` (newer)."""
    if len(ins) > at and ins[at] is not None:
        return [int(a) for a in np.asarray(ins[at]).reshape(-1)]
    a = _attr(node, onnx_mod, "axes")
    return None if a is None else [int(x) for x in a]


def _slice(node, onnx_mod, ins):
    x = ins[0]
    if len(ins) > 1:  # opset >= 10: inputs
        starts, ends = ins[1].reshape(-1), ins[2].reshape(-1)
        axes = ins[3].reshape(-1) if len(ins) > 3 and ins[3] is not None else \
            range(len(starts))
        steps = ins[4].reshape(-1) if len(ins) > 4 and ins[4] is not None else \
            [1] * len(starts)
    else:
        starts, ends = _attr(node, onnx_mod, "starts"), _attr(node, onnx_mod, "ends")
        axes = _attr(node, onnx_mod, "axes", range(len(starts)))
        steps = [1] * len(starts)
    index = [slice(None)] * x.ndim
    for s, e, a, st in zip(starts, ends, axes, steps):
        index[int(a)] = slice(*slice_bounds(int(s), int(e), int(st), x.shape[int(a)]))
    return x[tuple(index)]


def slice_bounds(start, end, step, size):
    """ONNX Slice's clamping of (start, end) for one axis of `size`, as
    numpy slice arguments (start, stop, step)."""
    if step == 0:
        raise ValueError("Slice step 0")
    start = start + size if start < 0 else start
    end = end + size if end < 0 else end
    if step > 0:
        start, end = min(max(start, 0), size), min(max(end, 0), size)
        return start, end, step
    start, end = min(max(start, 0), size - 1), min(max(end, -1), size - 1)
    return start, (None if end < 0 else end), step


def _unsqueeze(node, onnx_mod, ins):
    x = ins[0]
    axes = sorted(a % (x.ndim + len(_axes(node, onnx_mod, ins)))
                  for a in _axes(node, onnx_mod, ins))
    for a in axes:
        x = np.expand_dims(x, a)
    return x


def _squeeze(node, onnx_mod, ins):
    axes = _axes(node, onnx_mod, ins)
    x = ins[0]
    return np.squeeze(x) if axes is None else np.squeeze(x, tuple(a % x.ndim for a in axes))


def _reshape(node, onnx_mod, ins):
    x, shape = ins[0], [int(d) for d in ins[1].reshape(-1)]
    if not _attr(node, onnx_mod, "allowzero", 0):
        shape = [x.shape[d] if n == 0 else n for d, n in enumerate(shape)]
    return x.reshape(shape)


def _cast(node, onnx_mod, ins):
    to = _attr(node, onnx_mod, "to")
    return ins[0].astype(onnx_mod.helper.tensor_dtype_to_np_dtype(to)
                         if hasattr(onnx_mod.helper, "tensor_dtype_to_np_dtype")
                         else onnx_mod.mapping.TENSOR_TYPE_TO_NP_TYPE[to])


def _constant_of_shape(node, onnx_mod, ins):
    v = _attr(node, onnx_mod, "value")
    fill = onnx_mod.numpy_helper.to_array(v) if v is not None else np.zeros(1, np.float32)
    return np.full([int(d) for d in ins[0].reshape(-1)], fill.reshape(-1)[0], fill.dtype)


def _gather(node, onnx_mod, ins):
    return np.take(ins[0], ins[1].astype(np.int64), axis=_attr(node, onnx_mod, "axis", 0))


def _concat(node, onnx_mod, ins):
    return np.concatenate(ins, axis=_attr(node, onnx_mod, "axis"))


def _split(node, onnx_mod, ins):
    x, axis = ins[0], _attr(node, onnx_mod, "axis", 0)
    sizes = ins[1] if len(ins) > 1 and ins[1] is not None else _attr(node, onnx_mod, "split")
    n = len(node.output)
    if sizes is None:
        size = -(-x.shape[axis] // n)
        sizes = [min(size, x.shape[axis] - size * i) for i in range(n)]
    return tuple(np.split(x, np.cumsum([int(s) for s in sizes])[:-1], axis=axis))


def _transpose(node, onnx_mod, ins):
    perm = _attr(node, onnx_mod, "perm")
    return np.transpose(ins[0], None if perm is None else list(perm))


def _reduce(fn):
    def op(node, onnx_mod, ins):
        axes = _axes(node, onnx_mod, ins)
        keep = bool(_attr(node, onnx_mod, "keepdims", 1))
        return fn(ins[0], axis=None if not axes else tuple(axes), keepdims=keep)
    return op


def _elementwise(fn):
    def op(node, onnx_mod, ins):
        out = fn(*ins)
        # numpy promotes (int32 + int64, float32 * python scalar): ONNX keeps
        # the first input's type.
        return np.asarray(out).astype(ins[0].dtype) if np.asarray(out).dtype != bool else out
    return op


def _div(a, b):
    if a.dtype.kind in "iu":
        return np.trunc(a / b).astype(a.dtype)  # ONNX integer Div truncates
    return a / b


# op -> f(node, onnx, input arrays) -> array or tuple of arrays
_EVAL: Dict[str, Callable] = {
    "Identity": lambda n, o, i: i[0],
    "Gather": _gather, "Slice": _slice, "Concat": _concat, "Split": _split,
    "Unsqueeze": _unsqueeze, "Squeeze": _squeeze, "Reshape": _reshape,
    "Flatten": lambda n, o, i: i[0].reshape(
        int(np.prod(i[0].shape[:_attr(n, o, "axis", 1) % max(i[0].ndim, 1)])), -1),
    "Expand": lambda n, o, i: i[0] * np.ones([int(d) for d in i[1].reshape(-1)], i[0].dtype),
    "Range": lambda n, o, i: np.arange(i[0].reshape(()), i[1].reshape(()), i[2].reshape(()),
                                       dtype=i[0].dtype),
    "ConstantOfShape": _constant_of_shape, "Cast": _cast, "Transpose": _transpose,
    "Add": _elementwise(np.add), "Sub": _elementwise(np.subtract),
    "Mul": _elementwise(np.multiply), "Div": _elementwise(_div),
    "Pow": _elementwise(np.power), "Sqrt": _elementwise(np.sqrt),
    "Neg": _elementwise(np.negative), "Abs": _elementwise(np.abs),
    "Exp": _elementwise(np.exp), "Reciprocal": _elementwise(np.reciprocal),
    "Min": _elementwise(np.minimum), "Max": _elementwise(np.maximum),
    "Equal": lambda n, o, i: np.equal(*i), "Less": lambda n, o, i: np.less(*i),
    "Greater": lambda n, o, i: np.greater(*i), "Not": lambda n, o, i: np.logical_not(i[0]),
    "And": lambda n, o, i: np.logical_and(*i), "Or": lambda n, o, i: np.logical_or(*i),
    "Where": lambda n, o, i: np.where(*i),
    "ReduceSum": _reduce(np.sum), "ReduceMean": _reduce(np.mean),
    "ReduceMax": _reduce(np.max), "ReduceMin": _reduce(np.min),
    "ReduceProd": _reduce(np.prod),
}


def _shapes(onnx_mod, model, names=()) -> Dict[str, tuple]:
    """Static shapes ONNX's shape inference finds (values with any unknown
    dimension left out); a dim named in `names` (a symbolic dim,
    onnx_symbolic.py) is that name."""
    try:
        inferred = onnx_mod.shape_inference.infer_shapes(model)
    except Exception:  # noqa: BLE001 (a model inference refuses: fold less)
        return {}
    shapes = {}
    g = inferred.graph
    for vi in list(g.value_info) + list(g.input) + list(g.output):
        tt = vi.type.tensor_type
        if not tt.HasField("shape"):
            continue
        dims = [int(d.dim_value) if d.HasField("dim_value") and d.dim_value > 0 else
                d.dim_param if d.dim_param in names else None for d in tt.shape.dim]
        if all(d is not None for d in dims):
            shapes[vi.name] = tuple(dims)
    return shapes


def _constant_node_value(onnx_mod, node):
    for a in node.attribute:
        v = onnx_mod.helper.get_attribute_value(a)
        if a.name == "value":
            return onnx_mod.numpy_helper.to_array(v)
        if a.name in ("value_float", "value_floats"):
            return np.array(v, np.float32)
        if a.name in ("value_int", "value_ints"):
            return np.array(v, np.int64)
    return None


def _evaluate(onnx_mod, node, consts, shapes):
    """The node's outputs as arrays, or None where it cannot be folded."""
    if node.domain not in ("", "ai.onnx"):
        return None
    if node.op_type == "Constant":
        v = _constant_node_value(onnx_mod, node)
        return None if v is None else (v,)
    if node.op_type in ("Shape", "Size"):
        shape = shapes.get(node.input[0])
        if node.input[0] in consts:
            shape = consts[node.input[0]].shape
        if shape is None:
            return None
        if node.op_type == "Size":
            return (np.array(int(np.prod(shape, dtype=np.int64)), np.int64),)
        start, end = _attr(node, onnx_mod, "start", 0), _attr(node, onnx_mod, "end")
        return (np.array(shape[slice(start, end)], np.int64),)
    f = _EVAL.get(node.op_type)
    if f is None or any(x and x not in consts for x in node.input):
        return None
    ins = [consts[x] if x else None for x in node.input]
    try:
        with np.errstate(all="ignore"):
            out = f(node, onnx_mod, ins)
    except Exception:  # noqa: BLE001 (a malformed node: the checker names it)
        return None
    out = out if isinstance(out, tuple) else (out,)
    if len(out) != len(node.output):
        return None
    # (np.array, not ascontiguousarray: a 0-d result stays 0-d, as ONNX's scalars)
    return tuple(np.array(a, order="C") for a in out)


def _fold_once(onnx_mod, model) -> bool:
    g = model.graph
    consts = {t.name: onnx_mod.numpy_helper.to_array(t) for t in g.initializer}
    shapes = _shapes(onnx_mod, model)
    keep, folded = [], {}
    for node in g.node:
        out = _evaluate(onnx_mod, node, consts, shapes)
        if out is None:
            keep.append(node)
            continue
        for name, a in zip(node.output, out):
            if name:
                consts[name] = folded[name] = a
    if not folded:
        return _fold_batchnorm(onnx_mod, model, consts)
    del g.node[:]
    g.node.extend(keep)
    for name, a in folded.items():
        g.initializer.append(onnx_mod.numpy_helper.from_array(a, name))
    _drop_unused(model)
    return True


def _fold_batchnorm(onnx_mod, model, consts) -> bool:
    """Conv (constant W, B) -> BatchNormalization (constant statistics) as
    one Conv with W' = W * s and B' = (B - mean) * s + beta, where
    s = scale / sqrt(var + epsilon), when the BN is the Conv's only reader."""
    g = model.graph
    readers: Dict[str, int] = {}
    for n in g.node:
        for x in n.input:
            readers[x] = readers.get(x, 0) + 1
    outputs = {o.name for o in g.output}
    producer = {n.output[0]: n for n in g.node if n.output}
    changed = False
    for bn in list(g.node):
        if bn.op_type != "BatchNormalization" or len(bn.input) != 5 or \
                any(o for o in bn.output[1:]):
            continue
        conv = producer.get(bn.input[0])
        if conv is None or conv.op_type != "Conv" or readers.get(bn.input[0]) != 1 or \
                bn.input[0] in outputs or conv.input[1] not in consts or \
                any(x not in consts for x in bn.input[1:]) or \
                (len(conv.input) > 2 and conv.input[2] and conv.input[2] not in consts):
            continue
        scale, beta, mean, var = (consts[x].astype(np.float64) for x in bn.input[1:])
        w = consts[conv.input[1]]
        if scale.shape != (w.shape[0],):
            continue
        eps = float(_attr(bn, onnx_mod, "epsilon", 1e-5))
        s = scale / np.sqrt(var + eps)
        b = consts[conv.input[2]].astype(np.float64) if len(conv.input) > 2 and \
            conv.input[2] else np.zeros(w.shape[0])
        name = bn.output[0]
        wf = (w.astype(np.float64) * s.reshape((-1,) + (1,) * (w.ndim - 1))).astype(w.dtype)
        bf = ((b - mean) * s + beta).astype(w.dtype)
        g.initializer.append(onnx_mod.numpy_helper.from_array(wf, f"{name}_folded_W"))
        g.initializer.append(onnx_mod.numpy_helper.from_array(bf, f"{name}_folded_B"))
        x = conv.input[0]
        del conv.input[:]
        conv.input.extend([x, f"{name}_folded_W", f"{name}_folded_B"])
        conv.output[0] = name
        g.node.remove(bn)
        changed = True
    if changed:
        _drop_unused(model)
    return changed


def _drop_unused(model):
    """Initializers and nodes nothing reads (a folded subgraph's leftovers)."""
    g = model.graph
    while True:
        read = {x for n in g.node for x in n.input} | {o.name for o in g.output}
        dead = [n for n in g.node if not any(o in read for o in n.output)]
        if not dead:
            break
        for n in dead:
            g.node.remove(n)
    unused = [t for t in g.initializer if t.name not in read]
    for t in unused:
        g.initializer.remove(t)
    inits = {t.name for t in g.initializer}
    stale = [vi for vi in g.input if vi.name in inits and vi.name not in read]
    for vi in stale:
        g.input.remove(vi)


def fold(onnx_mod, model, input_shapes: Optional[Dict] = None):
    """A copy of `model` (an onnx.ModelProto) with its shape computations and
    constant subgraphs folded into initializers (see the module's text);
    `input_shapes` fixes graph inputs with dynamic dims first."""
    out = onnx_mod.ModelProto()
    out.CopyFrom(model)
    for vi in out.graph.input:
        shape = (input_shapes or {}).get(vi.name)
        tt = vi.type.tensor_type
        if shape is None or len(tt.shape.dim) not in (0, len(shape)):
            continue
        del tt.shape.dim[:]
        for d in shape:
            tt.shape.dim.add().dim_value = int(d)
    for _ in range(16):  # each round may let inference find more shapes
        if not _fold_once(onnx_mod, out):
            break
    return out
