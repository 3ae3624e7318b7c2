"""A fuzzer of `ext.onnx.load`: valid models built with onnx.helper (an MLP,
a convolution, a LayerNorm block), mutated with a seeded RNG (inputs dropped
or duplicated, outputs renamed, attributes set to 0, negative or huge
values or the wrong type, raw data truncated, dims flipped, initializers
deleted, nodes shuffled or duplicated, bytes corrupted), each loaded and,
when it loads, run. Every case must load and run or raise one of ext's ONNX
errors (`UnsupportedOpError`, `OnnxImportError` and its subclasses
`InvalidModelError` and `DynamicShapeError`): never an IndexError,
KeyError, ZeroDivisionError, a numpy error or a crash.

    python3 test/python/onnx_fuzz.py [--seed 0] [--count 500] [--verbose]

prints one JSON line: cases, loaded, refused (by error type), failures
(each with its case number, mutations and traceback), seconds. Before
each case it prints `case N` on stderr, so a crash names its case.
test_onnx_fuzz.py runs it in a subprocess.
"""

import argparse
import copy
import json
import sys
import time
import traceback
import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import ext

OPSET = 20


def _info(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def _init(rng, name, *shape):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)


def _model(nodes, inputs, outputs, inits, name):
    graph = helper.make_graph(nodes, name, [_info(n, s) for n, s in inputs],
                              [_info(n, s) for n, s in outputs], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])


def seed_models():
    """Three small valid models covering every op ext maps."""
    rng = np.random.default_rng(1)
    mlp = _model([
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
        helper.make_node("Add", ["h", "b1"], ["hb"], name="bias1"),
        helper.make_node("Relu", ["hb"], ["r"], name="relu"),
        helper.make_node("Gemm", ["r", "w2", "b2"], ["z"], name="fc2", alpha=0.5, transB=1),
        helper.make_node("Softmax", ["z"], ["y"], name="softmax", axis=-1),
    ], [("x", [4, 8])], [("y", [4, 5])],
        [_init(rng, "w1", 8, 16), _init(rng, "b1", 16), _init(rng, "w2", 5, 16),
         _init(rng, "b2", 5)], "mlp")
    conv = _model([
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1],
                         strides=[1, 1], dilations=[1, 1], kernel_shape=[3, 3], group=1),
        helper.make_node("Sigmoid", ["c"], ["s"], name="sig"),
        helper.make_node("Constant", [], ["shape"], name="shape_const",
                         value=numpy_helper.from_array(np.array([1, -1], np.int64))),
        helper.make_node("Reshape", ["s", "shape"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "wf"], ["y"], name="head"),
    ], [("x", [1, 2, 5, 5])], [("y", [1, 3])],
        [_init(rng, "w", 4, 2, 3, 3), _init(rng, "b", 4), _init(rng, "wf", 100, 3)], "conv")
    block = _model([
        helper.make_node("LayerNormalization", ["x", "g", "beta"], ["n"], name="ln", axis=-1,
                         epsilon=1e-5),
        helper.make_node("Transpose", ["n"], ["t"], name="tr", perm=[0, 2, 1]),
        helper.make_node("Constant", [], ["half"], name="half", value_float=0.5),
        helper.make_node("Mul", ["t", "half"], ["m"], name="scale"),
        helper.make_node("Gelu", ["m"], ["ge"], name="gelu", approximate="tanh"),
        helper.make_node("Sub", ["ge", "m"], ["d"], name="sub"),
        helper.make_node("Div", ["d", "two"], ["q"], name="div"),
        helper.make_node("Tanh", ["q"], ["th"], name="tanh"),
        helper.make_node("Identity", ["th"], ["y"], name="id"),
    ], [("x", [2, 3, 8])], [("y", [2, 8, 3])],
        [_init(rng, "g", 8), _init(rng, "beta", 8),
         numpy_helper.from_array(np.array([2.0], np.float32), "two")], "block")
    return [mlp, conv, block]


# --- mutations: each changes a ModelProto in place (or returns bytes) --------

HUGE = (1 << 40)
ODD_INTS = [0, -1, -3, 2, 3, 7, HUGE, -HUGE]
OPS = ["Add", "MatMul", "Relu", "Conv", "Gemm", "Softmax", "LayerNormalization",
       "Reshape", "Transpose", "Constant", "Identity", "LSTM", ""]


def _pick(rng, seq):
    return seq[int(rng.integers(len(seq)))] if len(seq) else None


def _node(rng, m):
    """A node of m (a detached one when m has none)."""
    return _pick(rng, m.graph.node) or onnx.NodeProto()


def mut_drop_input(rng, m):
    n = _node(rng, m)
    if n.input:
        del n.input[int(rng.integers(len(n.input)))]


def mut_dup_input(rng, m):
    n = _node(rng, m)
    n.input.append(_pick(rng, list(n.input) or ["x"]))


def mut_empty_input(rng, m):
    n = _node(rng, m)
    if n.input:
        n.input[int(rng.integers(len(n.input)))] = ""


def mut_rename_output(rng, m):
    n = _node(rng, m)
    if n.output:
        n.output[0] = _pick(rng, ["zz", "x", n.input[0] if n.input else "q", ""])


def mut_rename_graph_output(rng, m):
    if m.graph.output:
        m.graph.output[0].name = _pick(rng, ["zz", "x", "w1", ""])


def mut_drop_output(rng, m):
    n = _node(rng, m)
    del n.output[:]


def mut_extra_output(rng, m):
    n = _node(rng, m)
    n.output.append(_pick(rng, ["extra", "", n.output[0] if n.output else "e"]))


def mut_attribute(rng, m):
    n = _node(rng, m)
    names = [a.name for a in n.attribute] + ["strides", "pads", "group", "axis", "perm",
                                             "kernel_shape", "dilations", "transA",
                                             "allowzero", "epsilon", "auto_pad", "value"]
    name = _pick(rng, names)
    for i, a in enumerate(n.attribute):
        if a.name == name:
            del n.attribute[i]
            break
    kind = int(rng.integers(7))
    if kind == 0:
        value = int(_pick(rng, ODD_INTS))
    elif kind == 1:
        value = [int(_pick(rng, ODD_INTS)) for _ in range(int(rng.integers(0, 5)))]
    elif kind == 2:
        value = float(_pick(rng, [0.0, -1.0, float("inf"), float("nan"), 1e30]))
    elif kind == 3:
        value = _pick(rng, ["VALID", "SAME_LOWER", "bogus", "tanh", ""])
    elif kind == 4:
        value = [float(v) for v in rng.standard_normal(int(rng.integers(1, 4)))]
    elif kind == 5:
        value = numpy_helper.from_array(rng.standard_normal(
            tuple(int(v) for v in rng.integers(1, 3, int(rng.integers(0, 3))))).astype(
            np.float32))
    else:
        n.attribute.add().name = name  # no value (UNDEFINED)
        return
    n.attribute.append(helper.make_attribute(name, value))


def _initializer(rng, m):
    return _pick(rng, m.graph.initializer)


def mut_truncate_raw(rng, m):
    t = _initializer(rng, m)
    if t is not None and t.raw_data:
        t.raw_data = t.raw_data[:int(rng.integers(len(t.raw_data)))]


def mut_extend_raw(rng, m):
    t = _initializer(rng, m)
    if t is not None:
        t.raw_data = t.raw_data + bytes(int(rng.integers(1, 9)))


def mut_typed_data(rng, m):
    t = _initializer(rng, m)
    if t is not None:
        count = int(np.prod(t.dims)) + int(rng.integers(-2, 3))
        t.raw_data = b""
        del t.float_data[:]
        t.float_data.extend([1.0] * max(count, 0))


def mut_init_dims(rng, m):
    t = _initializer(rng, m)
    if t is None:
        return
    dims = list(t.dims)
    kind = int(rng.integers(4))
    if kind == 0 and dims:
        dims[int(rng.integers(len(dims)))] = int(_pick(rng, ODD_INTS))
    elif kind == 1:
        dims = dims[::-1]
    elif kind == 2:
        dims.append(int(_pick(rng, [1, 2])))
    else:
        dims = dims[1:]
    del t.dims[:]
    t.dims.extend(dims)


def mut_input_dims(rng, m):
    vi = _pick(rng, m.graph.input) or onnx.ValueInfoProto()
    dims = vi.type.tensor_type.shape.dim
    if not dims:
        return
    d = dims[int(rng.integers(len(dims)))]
    kind = int(rng.integers(4))
    if kind == 0:
        d.dim_value = int(_pick(rng, [0, -3, -1, 1, 3, HUGE]))
    elif kind == 1:
        d.dim_param = "batch"
    elif kind == 2:
        d.Clear()
    else:
        vi.type.tensor_type.ClearField("shape")


def mut_elem_type(rng, m):
    vi = _pick(rng, list(m.graph.input) + list(m.graph.output)) or onnx.ValueInfoProto()
    vi.type.tensor_type.elem_type = int(_pick(rng, [0, 6, 7, 9, 10, 11, 16, 99]))


def mut_data_type(rng, m):
    t = _initializer(rng, m)
    if t is not None:
        t.data_type = int(_pick(rng, [0, 6, 7, 9, 10, 11, 13, 16, 8, 99]))


def mut_delete_initializer(rng, m):
    if m.graph.initializer:
        del m.graph.initializer[int(rng.integers(len(m.graph.initializer)))]


def mut_shuffle_nodes(rng, m):
    nodes = list(m.graph.node)
    order = rng.permutation(len(nodes))
    del m.graph.node[:]
    m.graph.node.extend([nodes[i] for i in order])


def mut_duplicate_node(rng, m):
    n = _node(rng, m)
    m.graph.node.append(copy.deepcopy(n))


def mut_delete_node(rng, m):
    if m.graph.node:
        del m.graph.node[int(rng.integers(len(m.graph.node)))]


def mut_op_type(rng, m):
    _node(rng, m).op_type = _pick(rng, OPS)


def mut_domain(rng, m):
    _node(rng, m).domain = _pick(rng, ["com.microsoft", "ai.onnx", "x"])


def mut_opset(rng, m):
    m.opset_import[0].version = int(_pick(rng, [0, -1, 1, 11, 12, 13, 100]))


def mut_duplicate_input(rng, m):
    if m.graph.input:
        m.graph.input.append(copy.deepcopy(m.graph.input[0]))


def mut_no_outputs(rng, m):
    del m.graph.output[:]


# Mutations that keep the model well-formed but change what it means:
# legal attribute values, other shapes and types, other wiring. Most of
# these reach the importer's own checks (shapes that do not broadcast, an
# axis out of range) or load.
LEGAL_ATTRIBUTES = {
    "Conv": [("strides", [2, 2]), ("strides", [1, 3]), ("pads", [0, 0, 0, 0]),
             ("pads", [2, 2, 2, 2]), ("pads", [0, 1, 2, 0]), ("dilations", [2, 2]),
             ("group", 2), ("auto_pad", "SAME_UPPER"), ("auto_pad", "VALID"),
             ("auto_pad", "SAME_LOWER"), ("kernel_shape", [2, 2])],
    "Softmax": [("axis", a) for a in (0, 1, -2, 2, 5, -7)],
    "Transpose": [("perm", [1, 0]), ("perm", [2, 1, 0]), ("perm", [0, 1, 2]),
                  ("perm", [1, 0, 2, 3])],
    "Gemm": [("transA", 1), ("transB", 0), ("transB", 1), ("alpha", 2.0), ("beta", 0.0)],
    "LayerNormalization": [("axis", a) for a in (0, 1, -2, 3, -4)],
    "Reshape": [("allowzero", 1)],
    "Gelu": [("approximate", "none")],
    "Constant": [("value_ints", [2, -1]), ("value_float", 3.0), ("value_floats", [1.0, 2.0])],
}


def legal_attribute(rng, m):
    n = _node(rng, m)
    choices = LEGAL_ATTRIBUTES.get(n.op_type)
    if not choices:
        return
    name, value = _pick(rng, choices)
    if n.op_type == "Constant":
        del n.attribute[:]
    for i, a in enumerate(n.attribute):
        if a.name == name:
            del n.attribute[i]
            break
    n.attribute.append(helper.make_attribute(name, value))


def legal_input_shape(rng, m):
    vi = _pick(rng, m.graph.input) or onnx.ValueInfoProto()
    dims = [d.dim_value for d in vi.type.tensor_type.shape.dim]
    kind = int(rng.integers(3))
    if kind == 0 and dims:
        dims[int(rng.integers(len(dims)))] = int(_pick(rng, [1, 2, 3, 7, 16]))
    elif kind == 1:
        dims = [1] + dims
    else:
        dims = dims[1:]
    vi.type.tensor_type.ClearField("shape")
    for d in dims:
        vi.type.tensor_type.shape.dim.add().dim_value = d


def legal_input_type(rng, m):
    vi = _pick(rng, m.graph.input) or onnx.ValueInfoProto()
    vi.type.tensor_type.elem_type = int(_pick(rng, [TensorProto.FLOAT16, TensorProto.DOUBLE,
                                                    TensorProto.INT64, TensorProto.INT32]))


def legal_initializer_shape(rng, m):
    t = _initializer(rng, m)
    if t is None:
        return
    try:
        a = numpy_helper.to_array(t)
    except ValueError:  # an earlier mutation broke it
        return
    kind = int(rng.integers(3))
    a = a.reshape(-1) if kind == 0 else a.reshape((1,) + a.shape) if kind == 1 else \
        a.reshape(a.shape[::-1])
    t.CopyFrom(numpy_helper.from_array(np.ascontiguousarray(a), t.name))


def legal_rewire(rng, m):
    n = _node(rng, m)
    names = [v.name for v in m.graph.input] + [t.name for t in m.graph.initializer] + \
        [o for k in m.graph.node for o in k.output]
    if n.input and names:
        n.input[int(rng.integers(len(n.input)))] = _pick(rng, names)


def legal_op_swap(rng, m):
    n = _node(rng, m)
    same = [["Add", "Sub", "Mul", "Div", "MatMul"],
            ["Relu", "Sigmoid", "Tanh", "Gelu", "Identity", "Softmax", "Transpose"]]
    for group in same:
        if n.op_type in group:
            n.op_type = _pick(rng, group)
            del n.attribute[:]


MODEL_MUTATIONS = [f for name, f in sorted(globals().items()) if name.startswith("mut_")]
LEGAL_MUTATIONS = [f for name, f in sorted(globals().items()) if name.startswith("legal_")]


def byte_mutation(rng, data: bytes) -> bytes:
    kind = int(rng.integers(5))
    if kind == 0:
        return data[:int(rng.integers(len(data)))]
    if kind == 1:
        b = bytearray(data)
        for _ in range(int(rng.integers(1, 8))):
            b[int(rng.integers(len(b)))] = int(rng.integers(256))
        return bytes(b)
    if kind == 2:
        return rng.integers(0, 256, int(rng.integers(0, 64)), dtype=np.uint8).tobytes()
    if kind == 3:
        return b""
    return data + rng.integers(0, 256, int(rng.integers(1, 16)), dtype=np.uint8).tobytes()


def mutate(rng, seeds):
    """(model bytes, a description of the mutations)."""
    index = int(rng.integers(len(seeds)))
    m = copy.deepcopy(seeds[index])
    done = [f"seed {m.graph.name}"]
    if rng.random() < 0.1:
        data = byte_mutation(rng, m.SerializeToString())
        return data, done + ["bytes"]
    for _ in range(int(rng.choice([1, 2, 3], p=[0.6, 0.3, 0.1]))):
        f = _pick(rng, LEGAL_MUTATIONS if rng.random() < 0.5 else MODEL_MUTATIONS)
        f(rng, m)
        done.append(f.__name__)
    return m.SerializeToString(), done


# --- running -------------------------------------------------------------------

EXT_ERRORS = (ext.onnx.UnsupportedOpError, ext.onnx.OnnxImportError)


def _inputs(rng, module):
    arrays = {}
    for feed in module._feeds:
        if feed[0] == "input":
            _, name, shape, dtype, _ = feed
            if int(np.prod(shape, dtype=np.float64)) > 1 << 20:
                return None
            arrays[name] = rng.standard_normal(shape).astype(dtype)
    return arrays


def run_case(rng, data):
    """"loaded", "loaded (not run: large inputs)" or the name of the ext
    error; raises anything else."""
    try:
        module = ext.onnx.load(data)
    except EXT_ERRORS as e:
        return type(e).__name__
    arrays = _inputs(rng, module)
    if arrays is None:
        return "loaded (not run: large inputs)"
    module.run(arrays)
    return "loaded"


def fuzz(seed=0, count=500, verbose=False):
    seeds = seed_models()
    for m in seeds:  # the seeds themselves load and run
        outcome = run_case(np.random.default_rng(seed), m.SerializeToString())
        assert outcome == "loaded", (m.graph.name, outcome)
    outcomes, failures, seen = {}, [], {}
    started = time.perf_counter()
    for case in range(count):
        rng = np.random.default_rng([seed, case])  # each case reproducible alone
        data, done = mutate(rng, seeds)
        print(f"case {case}: {', '.join(done)}", file=sys.stderr, flush=True)
        if data in seen:  # the same model again: its outcome
            outcome = seen[data]
        else:
            try:
                outcome = run_case(rng, data)
            except Exception as e:  # noqa: BLE001 (what the fuzzer is for)
                outcome = f"FAILED {type(e).__name__}"
                failures.append({"case": case, "mutations": done,
                                 "error": f"{type(e).__name__}: {e}"[:600],
                                 "traceback": traceback.format_exc()[-1500:]})
            seen[data] = outcome
        if verbose:
            print(f"  -> {outcome}", file=sys.stderr, flush=True)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    loaded = sum(n for k, n in outcomes.items() if k.startswith("loaded"))
    return {"cases": count, "loaded": loaded,
            "refused": {k: n for k, n in outcomes.items() if not k.startswith(("loaded",
                                                                                "FAILED"))},
            "failed": len(failures), "failures": failures, "distinct": len(seen),
            "seconds": round(time.perf_counter() - started, 1)}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=500)
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args()
    warnings.simplefilter("ignore")
    print(json.dumps(fuzz(args.seed, args.count, args.verbose)))


if __name__ == "__main__":
    main()
