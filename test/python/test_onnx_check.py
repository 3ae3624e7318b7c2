"""ext.onnx.load refuses malformed models with ext's errors, naming the node
(op type and name) and what is wrong: `InvalidModelError` (a ValueError,
an `OnnxImportError`), every problem listed at once; never an IndexError,
KeyError, ZeroDivisionError or numpy error from inside the importer, and
never an empty model for a 0-byte file (issue 59, item 4)."""

import warnings

import numpy as np
import pytest

import ext

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

OPSET = 20


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ext.ExtWarning)
        yield


def info(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, initializers=(), opset=OPSET):
    graph = helper.make_graph(nodes, "g", [info(n, s) for n, s in inputs],
                              [info(n, s) for n, s in outputs], initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def weight(name, *shape):
    return numpy_helper.from_array(np.ones(shape, np.float32), name)


def refused(m, match, **load_args):
    """The InvalidModelError loading `m` raises, checked against `match`."""
    with pytest.raises(ext.onnx.InvalidModelError, match=match) as e:
        ext.onnx.load(m, **load_args)
    assert isinstance(e.value, ValueError) and isinstance(e.value, ext.onnx.OnnxImportError)
    return e.value


def test_add_with_one_input_names_the_node():
    m = model([helper.make_node("Add", ["x"], ["y"], name="add")], [("x", [4])], [("y", [4])])
    refused(m, r"invalid model: Add node 'add' has 1 inputs; Add takes 2$")


def test_an_empty_required_input():
    m = model([helper.make_node("Add", ["x", ""], ["y"], name="add")], [("x", [4])],
              [("y", [4])])
    refused(m, r"Add node 'add': its input #1 is empty, but Add requires it")


def test_graph_output_that_nothing_produces():
    m = model([helper.make_node("Relu", ["x"], ["r"], name="relu")], [("x", [4])],
              [("y", [4])])
    refused(m, r"graph output 'y' is produced by no node, initializer or graph input")


def test_input_nothing_produces_and_nodes_out_of_order():
    m = model([helper.make_node("Relu", ["x"], ["r"], name="relu"),
               helper.make_node("Add", ["r", "nowhere"], ["y"], name="add")],
              [("x", [4])], [("y", [4])])
    refused(m, r"Add node 'add' reads 'nowhere', which no node, initializer or graph input "
               "produces")
    m = model([helper.make_node("Add", ["r", "x"], ["y"], name="add"),
               helper.make_node("Relu", ["x"], ["r"], name="relu")],
              [("x", [4])], [("y", [4])])
    refused(m, r"Add node 'add' reads 'r' before Relu node 'relu' writes it \(nodes must be "
               r"in topological order\)")


def test_two_nodes_writing_one_name():
    m = model([helper.make_node("Relu", ["x"], ["h"], name="r1"),
               helper.make_node("Tanh", ["x"], ["h"], name="t1"),
               helper.make_node("Identity", ["h"], ["y"], name="id")],
              [("x", [4])], [("y", [4])])
    refused(m, r"Tanh node 't1' writes 'h', which Relu node 'r1' already writes")
    # A node writing over a graph input or an initializer too.
    m = model([helper.make_node("Relu", ["x"], ["w"], name="r1"),
               helper.make_node("Add", ["w", "x"], ["y"], name="add")],
              [("x", [4])], [("y", [4])], [weight("w", 4)])
    refused(m, r"Relu node 'r1' writes 'w', which an initializer already writes")


@pytest.mark.parametrize("attrs,match", [
    (dict(strides=[0, 0]), r"attribute strides=\[0, 0\] has 0: every entry must be positive"),
    (dict(dilations=[1, -2]), r"attribute dilations=\[1, -2\] has -2"),
    (dict(kernel_shape=[0, 3]), r"attribute kernel_shape=\[0, 3\] has 0"),
    (dict(pads=[1, -1, 1, 1]), r"attribute pads=\[1, -1, 1, 1\] has -1: every entry must not be "
                               "negative"),
    (dict(pads=[1, 1, 1]), r"pads \[1, 1, 1\] has an odd length"),
    (dict(group=0), r"attribute group=0 must be at least 1"),
    (dict(auto_pad="MIDDLE"), r"attribute auto_pad='MIDDLE' must be one of NOTSET"),
    (dict(strides=[1, 1, 1], kernel_shape=[3, 3]),
     r"its attributes give different spatial ranks: strides \[1, 1, 1\], kernel_shape \[3, 3\]"),
    (dict(strides=1.5), r"attribute 'strides' is of type FLOAT, not INTS"),
])
def test_conv_attributes(attrs, match):
    m = model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv", **attrs)],
              [("x", [1, 2, 6, 6])], [("y", [1, 3, 4, 4])], [weight("w", 3, 2, 3, 3)])
    refused(m, r"Conv node 'conv': " + match)


def test_conv_strides_of_another_rank_than_the_weights():
    """Consistent among themselves but 3-D for a 2-D convolution: an
    OnnxImportError naming the node, not an unpacking ValueError."""
    m = model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv", strides=[1, 1, 1])],
              [("x", [1, 2, 6, 6])], [("y", [1, 3, 4, 4])], [weight("w", 3, 2, 3, 3)])
    with pytest.raises(ext.onnx.OnnxImportError,
                       match=r"Conv node 'conv': strides \[1, 1, 1\] has 3 entries; a 2-D "
                             "convolution takes 2"):
        ext.onnx.load(m)


@pytest.mark.parametrize("op,attrs,match", [
    ("Gemm", dict(transA=2), r"attribute transA=2 must be 0 or 1"),
    ("Gemm", dict(alpha=float("inf")), r"attribute alpha=inf must be finite"),
    ("Softmax", dict(axis=1.0), r"attribute 'axis' is of type FLOAT, not INT"),
    ("Transpose", dict(perm=[0, 0]), r"attribute perm=\[0, 0\] is not a permutation of 0..1"),
    ("Gelu", dict(approximate="exact"),
     r"attribute approximate='exact' must be one of none, tanh"),
    ("LayerNormalization", dict(epsilon=-1e-5),
     r"attribute epsilon=-[0-9.e-]+ must not be negative"),
])
def test_other_attributes(op, attrs, match):
    inputs = {"Gemm": ["x", "x"], "LayerNormalization": ["x", "s"]}.get(op, ["x"])
    m = model([helper.make_node(op, inputs, ["y"], name="n", **attrs)],
              [("x", [4, 4])], [("y", [4, 4])], [weight("s", 4)])
    refused(m, f"{op} node 'n': " + match)


def test_truncated_raw_data_and_short_typed_data():
    w = weight("w", 2, 3)
    w.raw_data = w.raw_data[:5]
    m = model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], [("x", [4, 2])],
              [("y", [4, 3])], [w])
    refused(m, r"initializer 'w': raw_data has 5 bytes; dims \[2, 3\] of 4-byte elements "
               r"need 24")
    w = helper.make_tensor("w", TensorProto.FLOAT, [2, 3], [1.0] * 6)
    del w.float_data[5]
    m = model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], [("x", [4, 2])],
              [("y", [4, 3])], [w])
    refused(m, r"initializer 'w': float_data has 5 values; dims \[2, 3\] need 6")


def test_bad_initializer_dims_and_constant_values():
    w = weight("w", 2, 3)
    del w.dims[:]
    w.dims.extend([2, -3])
    c = helper.make_node("Constant", [], ["c"], name="const", value_float=1.0, value_int=2)
    m = model([c, helper.make_node("Add", ["x", "c"], ["y"], name="add")], [("x", [2, 3])],
              [("y", [2, 3])], [w])
    e = refused(m, "2 problems")
    assert e.problems == [
        "initializer 'w': dims [2, -3] has a negative dimension",
        "Constant node 'const': has attributes ['value_float', 'value_int']; a Constant has "
        "exactly one value"], e.problems


def test_external_data_not_read():
    w = weight("w", 2, 3)
    w.data_location = TensorProto.EXTERNAL
    w.raw_data = b""
    w.external_data.add(key="location", value="weights.bin")
    m = model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], [("x", [4, 2])],
              [("y", [4, 3])], [w])
    refused(m, r"initializer 'w': its data is in an external file that was not read")


@pytest.mark.parametrize("dim,match", [(0, r"dimension 1 = 0 \(ext tensors are not empty\)"),
                                       (-3, r"dimension 1 = -3, negative")])
def test_graph_input_dims_zero_or_negative_are_not_dynamic(dim, match):
    m = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [("x", [2, dim])],
              [("y", [2, 4])])
    e = refused(m, r"graph input 'x' has " + match)
    assert not isinstance(e, ext.onnx.DynamicShapeError)
    # input_shapes fixes it as it fixes a dynamic dim.
    out, = ext.onnx.load(m, input_shapes={"x": (2, 4)}).run([-np.ones((2, 4), np.float32)])
    assert (out == 0).all()


def test_input_shapes_are_checked():
    m = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [("x", ["n", 4])],
              [("y", ["n", 4])])
    refused(m, r"input_shapes\['x'\] = \(0, 4\): dims must be positive integers",
            input_shapes={"x": (0, 4)})
    refused(m, r"input_shapes\['x'\] has rank 3; the model declares rank 2",
            input_shapes={"x": (1, 2, 4)})


def test_empty_and_unparsable_files(tmp_path):
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")
    refused(str(empty), r"'.*empty.onnx' is empty \(0 bytes\), not an ONNX model")
    refused(b"", r"the bytes are empty")
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"\xff\xfe not a protobuf")
    refused(str(garbage), r"'.*garbage.onnx' do not parse as an ONNX model")
    # Bytes that parse but hold no graph.
    refused(b"\x08\x07", r"the model has no graph")


def test_every_problem_at_once():
    """A model with several problems lists each, with its node."""
    w = weight("w", 2, 3)
    w.raw_data = w.raw_data[:7]
    m = model([helper.make_node("Add", ["x"], ["h"], name="add"),
               helper.make_node("Conv", ["h", "w"], ["c"], name="conv", strides=[0, 1]),
               helper.make_node("Relu", ["c"], ["h"], name="relu")],
              [("x", [1, 2, 4, 4])], [("y", [1])], [w])
    e = refused(m, r"invalid model \(5 problems\):\n  Add node 'add' has 1 inputs")
    assert e.problems[1:] == [
        "Relu node 'relu' writes 'h', which Add node 'add' already writes (a name has one "
        "writer)",
        "graph output 'y' is produced by no node, initializer or graph input",
        "initializer 'w': raw_data has 7 bytes; dims [2, 3] of 4-byte elements need 24",
        "Conv node 'conv': attribute strides=[0, 1] has 0: every entry must be positive"], \
        e.problems


def test_unsupported_ops_are_all_listed():
    m = model([helper.make_node("Atan", ["x"], ["e"], name="atan_0"),
               helper.make_node("LSTM", ["e"], ["y"], name="lstm_0")],
              [("x", [4])], [("y", [4])])
    with pytest.raises(ext.onnx.UnsupportedOpError,
                       match=r"unsupported op 'Atan' \(node 'atan_0'\); also op 'LSTM' \(node "
                             r"'lstm_0'\) \(2 nodes\); supported: Abs, ") as e:
        ext.onnx.load(m)
    assert e.value.nodes == [("Atan", "atan_0"), ("LSTM", "lstm_0")]


def test_valid_model_from_bytes_runs():
    m = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [("x", [4])], [("y", [4])])
    x = np.array([-1, 2, -3, 4], np.float32)
    out, = ext.onnx.load(m.SerializeToString()).run([x])
    np.testing.assert_array_equal(out, np.maximum(x, 0))


def test_names_that_are_not_text():
    """Protobuf hands a string field that is not UTF-8 over as bytes."""
    m = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [("x", [4])], [("y", [4])])
    m.graph.name = "gé"
    data = m.SerializeToString()
    at = data.index("gé".encode())
    refused(data[:at + 1] + b"\xff" + data[at + 2:],
            r"invalid model: the graph's name is not UTF-8 text")
