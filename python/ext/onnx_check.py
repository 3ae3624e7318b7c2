"""What `ext.onnx.load` checks before it maps a model, and its errors.

A model is read (a path, bytes or an `onnx.ModelProto`) and checked as a
whole before any node is converted, so a malformed one is refused with
`InvalidModelError` naming each node (op type and name) and what is wrong
with it, never with an IndexError, KeyError or numpy error from deep inside
the importer:

* files: empty (0 bytes), or not an ONNX protobuf;
* the graph: no outputs; a node input, or a graph output, that no node,
  initializer or graph input produces (or that a later node produces: nodes
  must be in topological order); a name written twice; unnamed inputs,
  outputs or initializers;
* nodes of the ops ext maps: how many inputs and outputs each takes, the
  types and ranges of their attributes (strides, dilations and kernel
  shapes positive, pads not negative, group at least 1, flags 0 or 1, ...);
* initializers and Constant values: dims not negative, no empty float
  tensor, the data (raw bytes or the typed field) as large as the dims and
  the element type say, data not left in an external file;
* graph inputs: an element type; static dims that are 0 or negative
  (a dim without a value or with a name is dynamic: `DynamicShapeError`);
* `input_shapes`: positive integer dims, of the declared rank.

All problems are listed at once. Ops ext does not map raise
`UnsupportedOpError`, listing every such node.
"""

import math
import os
from typing import Dict, List, Optional, Sequence


class UnsupportedOpError(NotImplementedError):
    """A node `ext.onnx.load` cannot map (its message names the op type and
    the node of each such node of the model; `nodes` lists them as
    (op type, node name) pairs).

        >>> try: ext.onnx.load(model_with_lstm)
        ... except ext.onnx.UnsupportedOpError as e: print(e, e.nodes)
    """

    def __init__(self, message, nodes=()):
        super().__init__(message)
        self.nodes = list(nodes)


class OnnxImportError(ValueError):
    """A model `ext.onnx.load` cannot map for another reason: mismatched
    shapes, a Reshape whose shape is not a constant, an unsupported dtype.

        >>> try: ext.onnx.load(bad_model)
        ... except ext.onnx.OnnxImportError as e: print(e)
    """


class DynamicShapeError(OnnxImportError):
    """A graph input without a static shape (its message names the input;
    `load(..., input_shapes={name: shape})` fixes it).

        >>> ext.onnx.load("m.onnx", input_shapes={"x": (1, 16, 32)})
    """


class InvalidModelError(OnnxImportError):
    """A model that is not valid ONNX, or not one ext can take as written:
    an empty or unparsable file, a node with too few inputs, a value no
    node produces, two nodes writing one name, a stride of 0, initializer
    data shorter than its dims. The message names each node (op type and
    name) and what is wrong; `problems` lists them.

        >>> try: ext.onnx.load("broken.onnx")
        ... except ext.onnx.InvalidModelError as e: print(e.problems)
    """

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        if len(self.problems) == 1:
            text = f"ext.onnx: invalid model: {self.problems[0]}"
        else:
            text = (f"ext.onnx: invalid model ({len(self.problems)} problems):\n  "
                    + "\n  ".join(self.problems))
        super().__init__(text)


# (min inputs, max inputs, min outputs, max outputs) of the ops ext maps.
ARITY = {
    "Add": (2, 2, 1, 1), "Sub": (2, 2, 1, 1), "Mul": (2, 2, 1, 1), "Div": (2, 2, 1, 1),
    "Relu": (1, 1, 1, 1), "Sigmoid": (1, 1, 1, 1), "Tanh": (1, 1, 1, 1),
    "Gelu": (1, 1, 1, 1), "Identity": (1, 1, 1, 1), "Transpose": (1, 1, 1, 1),
    "Softmax": (1, 1, 1, 1), "MatMul": (2, 2, 1, 1), "Gemm": (2, 3, 1, 1),
    "Conv": (2, 3, 1, 1), "LayerNormalization": (2, 3, 1, 3), "Reshape": (2, 2, 1, 1),
    "Constant": (0, 0, 1, 1),
    # onnx_ops_math.py
    "Erf": (1, 1, 1, 1), "Exp": (1, 1, 1, 1), "Log": (1, 1, 1, 1), "Sqrt": (1, 1, 1, 1),
    "Reciprocal": (1, 1, 1, 1), "Neg": (1, 1, 1, 1), "Abs": (1, 1, 1, 1),
    "Pow": (2, 2, 1, 1), "Min": (1, 2 ** 31, 1, 1), "Max": (1, 2 ** 31, 1, 1),
    "Clip": (1, 3, 1, 1), "Equal": (2, 2, 1, 1), "Less": (2, 2, 1, 1),
    "LessOrEqual": (2, 2, 1, 1), "Greater": (2, 2, 1, 1), "GreaterOrEqual": (2, 2, 1, 1),
    "Not": (1, 1, 1, 1), "And": (2, 2, 1, 1), "Or": (2, 2, 1, 1), "Where": (3, 3, 1, 1),
    "Cast": (1, 1, 1, 1), "BatchNormalization": (5, 5, 1, 3),
    # onnx_ops_layout.py
    "Slice": (1, 5, 1, 1), "Split": (1, 2, 1, 2 ** 31), "Concat": (1, 2 ** 31, 1, 1),
    "Unsqueeze": (1, 2, 1, 1), "Squeeze": (1, 2, 1, 1), "Flatten": (1, 1, 1, 1),
    "Expand": (2, 2, 1, 1), "Gather": (2, 2, 1, 1), "Pad": (1, 4, 1, 1),
    # onnx_ops_reduce.py
    "ReduceMean": (1, 2, 1, 1), "ReduceSum": (1, 2, 1, 1), "ReduceMax": (1, 2, 1, 1),
    "ReduceMin": (1, 2, 1, 1), "LogSoftmax": (1, 1, 1, 1), "MaxPool": (1, 1, 1, 2),
    "AveragePool": (1, 1, 1, 1), "GlobalAveragePool": (1, 1, 1, 1),
    "GlobalMaxPool": (1, 1, 1, 1),
    # onnx_ops_quant.py
    "DequantizeLinear": (2, 3, 1, 1), "com.microsoft.MatMulNBits": (3, 6, 1, 1),
}


def _positive(v):
    return None if v > 0 else "must be positive"


def _at_least_one(v):
    return None if v >= 1 else "must be at least 1"


def _flag(v):
    return None if v in (0, 1) else "must be 0 or 1"


def _all(check):
    def each(vs):
        bad = [v for v in vs if check(v)]
        return f"has {bad[0]}: every entry {check(bad[0])}" if bad else None
    return each


def _one_of(*names):
    return lambda v: None if v in names else f"must be one of {', '.join(names)}"


def _finite(v):
    return None if math.isfinite(v) else "must be finite"


def _not_negative(v):
    return None if v >= 0 else "must not be negative"


def _permutation(vs):
    return None if sorted(vs) == list(range(len(vs))) else \
        f"is not a permutation of 0..{len(vs) - 1}"


# Attributes the importer reads: op -> {name: (AttributeProto type, check)}
# (check: None when the value is fine, else what is wrong). Others are
# ignored, as ONNX runtimes ignore attributes of other opset versions.
_INT, _FLOAT, _STRING, _TENSOR, _FLOATS, _INTS = 2, 1, 3, 4, 6, 7
ATTRIBUTES = {
    "Conv": {"strides": (_INTS, _all(_positive)), "dilations": (_INTS, _all(_positive)),
             "kernel_shape": (_INTS, _all(_positive)), "pads": (_INTS, _all(_not_negative)),
             "group": (_INT, _at_least_one),
             "auto_pad": (_STRING, _one_of("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"))},
    "Gemm": {"alpha": (_FLOAT, _finite), "beta": (_FLOAT, _finite),
             "transA": (_INT, _flag), "transB": (_INT, _flag)},
    "Softmax": {"axis": (_INT, None)},
    "LayerNormalization": {"axis": (_INT, None), "epsilon": (_FLOAT, _not_negative),
                           "stash_type": (_INT, None)},
    "Transpose": {"perm": (_INTS, _permutation)},
    "Reshape": {"allowzero": (_INT, _flag)},
    "Gelu": {"approximate": (_STRING, _one_of("none", "tanh"))},
    "Constant": {"value": (_TENSOR, None), "value_float": (_FLOAT, None),
                 "value_floats": (_FLOATS, None), "value_int": (_INT, None),
                 "value_ints": (_INTS, None)},
    "Clip": {"min": (_FLOAT, None), "max": (_FLOAT, None)},
    "Cast": {"to": (_INT, None)},
    "BatchNormalization": {"epsilon": (_FLOAT, _not_negative), "training_mode": (_INT, _flag)},
    "Slice": {"starts": (_INTS, None), "ends": (_INTS, None), "axes": (_INTS, None)},
    "Split": {"axis": (_INT, None), "split": (_INTS, _all(_positive))},
    "Concat": {"axis": (_INT, None)},
    "Unsqueeze": {"axes": (_INTS, None)},
    "Squeeze": {"axes": (_INTS, None)},
    "Flatten": {"axis": (_INT, None)},
    "Gather": {"axis": (_INT, None)},
    "Pad": {"mode": (_STRING, None), "pads": (_INTS, None)},
    "LogSoftmax": {"axis": (_INT, None)},
    **{op: {"axes": (_INTS, None), "keepdims": (_INT, _flag),
            "noop_with_empty_axes": (_INT, _flag)}
       for op in ("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin")},
    **{op: {"kernel_shape": (_INTS, _all(_positive)), "strides": (_INTS, _all(_positive)),
            "dilations": (_INTS, _all(_positive)), "pads": (_INTS, _all(_not_negative)),
            "ceil_mode": (_INT, _flag), "count_include_pad": (_INT, _flag),
            "auto_pad": (_STRING, _one_of("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER")),
            "storage_order": (_INT, _flag)}
       for op in ("MaxPool", "AveragePool")},
    "DequantizeLinear": {"axis": (_INT, None), "block_size": (_INT, _not_negative)},
    "com.microsoft.MatMulNBits": {
        "K": (_INT, _positive), "N": (_INT, _positive), "bits": (_INT, None),
        "block_size": (_INT, _positive), "accuracy_level": (_INT, None),
        "weight_prepacked": (_INT, None)},
}

# TensorProto data types: (bytes per element, the typed field holding
# them, values per element there).
_STORAGE = {
    1: (4, "float_data", 1), 2: (1, "int32_data", 1), 3: (1, "int32_data", 1),
    4: (2, "int32_data", 1), 5: (2, "int32_data", 1), 6: (4, "int32_data", 1),
    7: (8, "int64_data", 1), 8: (None, "string_data", 1), 9: (1, "int32_data", 1),
    10: (2, "int32_data", 1), 11: (8, "double_data", 1), 12: (4, "uint64_data", 1),
    13: (8, "uint64_data", 1), 14: (8, "float_data", 2), 15: (16, "double_data", 2),
    16: (2, "int32_data", 1),
}
_FLOAT_TYPES = (1, 10, 11, 16)


def node_name(node) -> str:
    """A node's name, or for an unnamed one its first output."""
    return node.name or (f"<unnamed, output {node.output[0]!r}>" if node.output
                         else "<unnamed>")


def op_key(node) -> str:
    """The key of a node's op in the importer's table: its op type in the
    default domain, `domain.op_type` in another (com.microsoft.MatMulNBits)."""
    if node.domain in ("", "ai.onnx"):
        return node.op_type
    return f"{node.domain}.{node.op_type}"


def node_label(node) -> str:
    """How messages name a node: its op type and name."""
    return f"{node.op_type or '<no op type>'} node '{node_name(node)}'"


def read_model(onnx_mod, model):
    """`model` (a path, serialized bytes or an onnx.ModelProto) as a
    ModelProto; InvalidModelError for an empty file or one that does not
    parse."""
    from google.protobuf.message import DecodeError
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if os.path.isfile(path) and os.path.getsize(path) == 0:
            raise InvalidModelError([f"'{path}' is empty (0 bytes), not an ONNX model"])
        what = f"'{path}'"
        parse = lambda: onnx_mod.load(path)  # noqa: E731 (external data too)
    elif isinstance(model, (bytes, bytearray, memoryview)):
        if len(model) == 0:
            raise InvalidModelError(["the bytes are empty (0 bytes), not an ONNX model"])
        what = f"the {len(model)} bytes"
        parse = lambda: onnx_mod.load_from_string(bytes(model))  # noqa: E731
    elif isinstance(model, onnx_mod.ModelProto):
        return model
    else:
        raise TypeError(f"ext.onnx.load takes a path, bytes or an onnx.ModelProto, got "
                        f"{type(model).__name__}")
    try:
        return parse()
    except (DecodeError, UnicodeDecodeError) as e:
        raise InvalidModelError([f"{what} do not parse as an ONNX model ({e})"]) from None


def check_model(onnx_mod, model, ops, input_shapes: Optional[Dict] = None,
                unsupported: bool = True):
    """Raises InvalidModelError listing every problem of `model` (a
    ModelProto) that would stop the importer, then (with `unsupported`)
    UnsupportedOpError listing the nodes whose ops are not in `ops`."""
    problems = []
    if not model.HasField("graph"):
        raise InvalidModelError(["the model has no graph (an empty or truncated file?)"])
    g = model.graph
    text = _text_problems(g)
    if text:
        raise InvalidModelError(text)
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx") and o.version < 1:
            problems.append(f"opset_import of the default domain has version {o.version}")
    if not g.output:
        problems.append("the graph has no outputs")
    problems += _graph_problems(g, ops)
    for t in g.initializer:
        problems += [f"initializer '{t.name}': {p}" for p in tensor_problems(t)]
    problems += _input_problems(onnx_mod, g, input_shapes or {})
    for node in g.node:
        if op_key(node) in ops:
            problems += [f"{node_label(node)}: {p}" for p in _node_problems(onnx_mod, node)]
    if problems:
        raise InvalidModelError(problems)
    if unsupported:
        check_supported(model, ops)


def check_supported(model, ops, folded=()):
    """Raises UnsupportedOpError naming every node of `model` whose op is
    not in `ops`, each with its node (not only the first). `folded` are ops
    that load folds when their inputs are known (Shape, Range, ...): one
    left means its input was not (a dynamic dimension)."""
    g = model.graph
    bad = [n for n in g.node if op_key(n) not in ops]
    if not bad:
        return

    def named(n):
        domain = f", domain '{n.domain}'" if n.domain not in ("", "ai.onnx") else ""
        why = ", a shape computation whose input's shape is not static" \
            if n.op_type in folded and not domain else ""
        return f"op '{n.op_type}' (node '{node_name(n)}'{domain}{why})"
    also = "".join(f"; also {named(n)}" for n in bad[1:])
    count = f" ({len(bad)} nodes)" if len(bad) > 1 else ""
    raise UnsupportedOpError(f"ext.onnx: unsupported {named(bad[0])}{also}{count}; "
                             f"supported: {', '.join(sorted(ops))}",
                             [(n.op_type, node_name(n)) for n in bad])


def _text_problems(g) -> List[str]:
    """Names that are not text: protobuf hands strings that are not UTF-8
    over as bytes."""
    names = [("the graph's name", g.name)]
    for n in g.node:
        names += [("a node's name", n.name), ("an op type", n.op_type), ("a domain", n.domain)]
        names += [("a node's input", x) for x in n.input]
        names += [("a node's output", x) for x in n.output]
        names += [("an attribute's name", a.name) for a in n.attribute]
    for what, values in (("a graph input's name", g.input), ("a graph output's name", g.output),
                         ("an initializer's name", g.initializer)):
        names += [(what, v.name) for v in values]
    bad = [what for what, v in names if not isinstance(v, str)]
    if not bad:
        return []
    return [f"{bad[0]} is not UTF-8 text" + (f" (and {len(bad) - 1} more strings)"
                                              if len(bad) > 1 else "")]


def _graph_problems(g, ops) -> List[str]:
    """Names: every value read is produced before it is read, each written
    once; the arity of the nodes of `ops`."""
    problems = []
    written: Dict[str, str] = {}
    for vi in g.input:
        if not vi.name:
            problems.append("a graph input has no name")
        elif vi.name in written:
            problems.append(f"graph input '{vi.name}' is listed twice")
        written[vi.name] = "a graph input"
    initializers = set()
    for t in g.initializer:
        if not t.name:
            problems.append("an initializer has no name")
        elif t.name in initializers:
            problems.append(f"initializer '{t.name}' is given twice")
        initializers.add(t.name)
        # (An initializer may also be listed as a graph input: its default.)
        written.setdefault(t.name, "an initializer")
    later = {o: n for n in g.node for o in n.output if o}
    for node in g.node:
        label = node_label(node)
        if not node.op_type:
            problems.append(f"{label} has no op type")
        if op_key(node) in ops:
            problems += _arity_problems(node, label)
        for x in node.input:
            if not x or x in written:
                continue
            if later.get(x) is not None:
                problems.append(f"{label} reads '{x}' before {node_label(later[x])} writes "
                                "it (nodes must be in topological order)")
            else:
                problems.append(f"{label} reads '{x}', which no node, initializer or graph "
                                "input produces")
        for o in node.output:
            if not o:
                continue
            if o in written:
                problems.append(f"{label} writes '{o}', which {written[o]} already writes "
                                "(a name has one writer)")
            written[o] = node_label(node)
    for o in g.output:
        if not o.name:
            problems.append("a graph output has no name")
        elif o.name not in written:
            problems.append(f"graph output '{o.name}' is produced by no node, initializer "
                            "or graph input")
        for d, dim in enumerate(o.type.tensor_type.shape.dim):
            if dim.HasField("dim_value") and dim.dim_value < 0:
                problems.append(f"graph output '{o.name}' declares dimension {d} as "
                                f"{dim.dim_value}")
    return problems


def _arity_problems(node, label) -> List[str]:
    lo, hi, out_lo, out_hi = ARITY[op_key(node)]
    problems = []
    for what, values, least, most in (("inputs", node.input, lo, hi),
                                      ("outputs", node.output, out_lo, out_hi)):
        given = len(values)
        if least <= given <= most and all(values[:least]):
            continue
        want = f"{least}" if least == most else f"{least} to {most}"
        if given < least or given > most:
            problems.append(f"{label} has {given} {what}; {node.op_type} takes {want}")
        else:
            missing = [i for i in range(least) if not values[i]]
            problems.append(f"{label}: its {what[:-1]} #{missing[0]} is empty, but "
                            f"{node.op_type} requires it")
    return problems


def _node_problems(onnx_mod, node) -> List[str]:
    """The attributes of one node of an op ext maps."""
    problems, values = [], {}
    spec = ATTRIBUTES.get(op_key(node), {})
    for a in node.attribute:
        if a.name not in spec:
            continue
        kind, check = spec[a.name]
        if a.type != kind:
            problems.append(f"attribute '{a.name}' is of type "
                            f"{onnx_mod.AttributeProto.AttributeType.Name(a.type)}, not "
                            f"{onnx_mod.AttributeProto.AttributeType.Name(kind)}")
            continue
        v = onnx_mod.helper.get_attribute_value(a)
        v = v.decode(errors="replace") if isinstance(v, bytes) else v
        v = list(v) if kind in (_INTS, _FLOATS) else v
        why = check(v) if check is not None else None
        if why:
            problems.append(f"attribute {a.name}={v!r} {why}")
        values[a.name] = v
    if node.op_type == "Conv":
        problems += _conv_problems(values)
    elif node.op_type == "Constant":
        given = [a.name for a in node.attribute]
        if len(given) != 1:
            problems.append(f"has attributes {given}; a Constant has exactly one value")
        elif given[0] not in spec:
            problems.append(f"its value is '{given[0]}'; ext.onnx takes value, "
                            "value_float(s) and value_int(s)")
        elif given[0] == "value" and "value" in values:
            problems += [f"its value: {p}" for p in tensor_problems(values["value"])]
    return problems


def _conv_problems(values) -> List[str]:
    """The spatial rank every Conv attribute gives must agree."""
    ranks = {n: len(values[n]) for n in ("strides", "dilations", "kernel_shape")
             if n in values}
    if "pads" in values:
        if len(values["pads"]) % 2:
            return [f"pads {values['pads']} has an odd length (a begin and an end per "
                    "spatial dimension)"]
        ranks["pads"] = len(values["pads"]) // 2
    if len(set(ranks.values())) > 1:
        return ["its attributes give different spatial ranks: " + ", ".join(
            f"{n} {values[n]}" for n in ranks)]
    return []


def tensor_problems(t) -> List[str]:
    """A TensorProto's dims against its data."""
    dims = list(t.dims)
    if any(d < 0 for d in dims):
        return [f"dims {dims} has a negative dimension"]
    if t.data_type not in _STORAGE:
        return [f"element type {t.data_type} is not an ONNX tensor type"]
    count = 1
    for d in dims:
        count *= d
    if count == 0 and t.data_type in _FLOAT_TYPES:
        return [f"dims {dims}: an empty tensor (ext tensors are not empty)"]
    if t.data_location == 1:  # EXTERNAL
        return ["its data is in an external file that was not read (load the model "
                "by its path, with the file beside it)"]
    itemsize, field, per = _STORAGE[t.data_type]
    if t.HasField("raw_data"):  # (set, even if empty: the data then)
        if itemsize is None:
            return ["raw_data holds a string tensor (strings go in string_data)"]
        want = count * itemsize
        if len(t.raw_data) != want:
            return [f"raw_data has {len(t.raw_data)} bytes; dims {dims} of "
                    f"{itemsize}-byte elements need {want}"]
        return []
    have = len(getattr(t, field))
    if have != count * per and not (count == 0 and have == 0):
        return [f"{field} has {have} values; dims {dims} need {count * per}"]
    return []


def _input_problems(onnx_mod, g, input_shapes) -> List[str]:
    """Graph inputs: an element type, static dims positive; `input_shapes`
    positive, of the declared rank, for graph inputs."""
    problems = []
    initializers = {t.name for t in g.initializer}
    declared = {vi.name: vi for vi in g.input if vi.name not in initializers}
    for name, shape in input_shapes.items():
        if name not in declared:
            continue  # the importer names the inputs there are
        try:
            dims = [d for d in shape]
        except TypeError:
            problems.append(f"input_shapes['{name}'] = {shape!r} is not a sequence of dims")
            continue
        if not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in dims):
            problems.append(f"input_shapes['{name}'] = {tuple(dims)}: dims must be "
                            "positive integers")
        tt = declared[name].type.tensor_type
        if tt.HasField("shape") and len(tt.shape.dim) != len(dims):
            problems.append(f"input_shapes['{name}'] has rank {len(dims)}; the model "
                            f"declares rank {len(tt.shape.dim)}")
    for name, vi in declared.items():
        tt = vi.type.tensor_type
        if not vi.type.HasField("tensor_type"):
            problems.append(f"graph input '{name}' is not a tensor")
            continue
        if tt.elem_type not in _STORAGE:
            problems.append(f"graph input '{name}' has element type {tt.elem_type}, "
                            "not an ONNX tensor type" if tt.elem_type else
                            f"graph input '{name}' has no element type")
        if name in input_shapes:
            continue
        for d, dim in enumerate(tt.shape.dim):
            if dim.HasField("dim_value") and dim.dim_value <= 0:
                why = "0 (ext tensors are not empty)" if dim.dim_value == 0 else \
                    f"{dim.dim_value}, negative"
                problems.append(f"graph input '{name}' has dimension {d} = {why}")
    return problems
