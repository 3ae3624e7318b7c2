"""Symbolic dims in `ext.onnx.load` (issue 55 item 4): a graph input dim
named by `dim_param` is an `ext.var`, so one load serves every size of it
(onnx_symbolic.py). Exported by torch with `dynamic_axes`, the MLP and the
GPT-2 block run batch 1 and 7 from one load and match torch; where an op
would not keep the symbolic dim whole (a reduction over it, a slice of it,
a Reshape merging it with another dim, a shape computed from it) the load
names the node and the dim; an unnamed dynamic dim is still a
DynamicShapeError; `run` refuses one dim given two sizes."""

import numpy as np
import pytest

import ext

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::ext.ExtRemark")


def relative_error(got, want):
    return float(np.max(np.abs(got - want)) / max(float(np.max(np.abs(want))), 1e-30))


def host_loops(m):
    return [k.anchor for k in m.kernels if k.schedule is None]


def graph_model(nodes, inputs, outputs, initializers=(), opset=17):
    """A model of `nodes`; inputs and outputs as (name, shape) with str dims
    named (dim_param), None unnamed."""
    def info(name, shape):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))
    graph = helper.make_graph(nodes, "g", [info(*i) for i in inputs],
                              [info(*o) for o in outputs],
                              [numpy_helper.from_array(a, n) for n, a in initializers])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# ---------------------------------------------------------------------------
# torch exports with dynamic_axes


def torch_models():
    torch = pytest.importorskip("torch")
    import torch_onnx_models as models
    return torch, models


def check_batches(name, opset, batches=(1, 7)):
    """One load of torch's export of `name` with a dynamic batch, run at each
    batch size, against torch."""
    torch, models = torch_models()
    module, x = getattr(models, name)()
    axes = {"x": {0: "batch"}, "y": {0: "batch"}}
    data, _ = models.export(module, x, opset, dynamic_axes=axes)
    m = ext.onnx.load(data)
    assert host_loops(m) == [], m.summary()
    for b in batches:
        xb = torch.randn((b,) + tuple(x.shape[1:]), generator=torch.Generator().manual_seed(b))
        with torch.no_grad():
            want = module(xb).numpy()
        y, = m.run({"x": xb.numpy()})
        assert y.shape == want.shape
        assert relative_error(y, want) < 1e-4, f"{name} opset {opset} batch {b}"
    return m


@pytest.mark.parametrize("opset", (13, 17))
def test_mlp_one_load_serves_batch_1_and_7(opset):
    m = check_batches("mlp", opset)
    assert "?x32xf32" in m.mlir()  # the kernels' rows are the ext.var, not a number


@pytest.mark.parametrize("opset", (13, 17))
def test_gpt2_block_one_load_serves_batch_1_and_7(opset):
    """Its `q.view(b, t, h, c // h)` reshapes are Shape -> Gather ->
    Unsqueeze -> Concat -> Reshape over the symbolic batch: folded to
    constant targets that copy the batch (0)."""
    check_batches("gpt2_block", opset)


def test_gpt2_block_symbolic_sequence_names_the_mask_slice():
    """A symbolic sequence too: the causal mask is a constant sliced to the
    sequence length, which ext.onnx does not fold: the node and dim named."""
    torch, models = torch_models()
    module, x = models.gpt2_block()
    axes = {"x": {0: "batch", 1: "seq"}, "y": {0: "batch", 1: "seq"}}
    data, _ = models.export(module, x, 17, dynamic_axes=axes)
    with pytest.raises(ext.onnx.OnnxImportError, match=r"Slice node '/Slice'.*'seq'"):
        ext.onnx.load(data)
    m = ext.onnx.load(data, input_shapes={"x": tuple(x.shape)})  # fixed: as before
    y, = m.run({"x": x.numpy()})
    with torch.no_grad():
        assert relative_error(y, module(x).numpy()) < 1e-4


def test_encoder_merging_batch_with_heads_is_named():
    """nn.MultiheadAttention reshapes to (t, b * heads, d): a size computed
    from the symbolic batch, named with its node."""
    _, models = torch_models()
    module, x = models.transformer_encoder_layer()
    data, _ = models.export(module, x, 14, dynamic_axes={"x": {0: "b"}, "y": {0: "b"}})
    with pytest.raises(ext.onnx.OnnxImportError, match=r"Mul node '/self_attn/Mul_\d'.*'b'"):
        ext.onnx.load(data)


# ---------------------------------------------------------------------------
# Graphs written here


def test_named_dim_is_one_var_across_inputs():
    w = rand(16, 8)
    model = graph_model(
        [helper.make_node("Add", ["x", "z"], ["s"]), helper.make_node("MatMul", ["s", "w"], ["y"])],
        [("x", ("batch", 16)), ("z", ("batch", 16))], [("y", ("batch", 8))], [("w", w)])
    m = ext.onnx.load(model)
    for b in (1, 7):
        x, z = rand(b, 16, seed=b), rand(b, 16, seed=b + 10)
        y, = m.run({"x": x, "z": z})
        assert relative_error(y, (x + z) @ w) < 1e-5
    with pytest.raises(ValueError, match=r"symbolic dim 'batch' is 3 .* but 5 .*input 'z'"):
        m.run({"x": rand(3, 16), "z": rand(5, 16)})
    with pytest.raises(ValueError, match=r"input 'x' has shape \(3, 15\), the model's is "
                                         r"\(batch, 16\)"):
        m.run({"x": rand(3, 15), "z": rand(3, 16)})


def test_unnamed_dynamic_dim_is_still_a_dynamic_shape_error():
    model = graph_model([helper.make_node("Relu", ["x"], ["y"])], [("x", (None, 16))],
                        [("y", (None, 16))])
    with pytest.raises(ext.onnx.DynamicShapeError, match=r"graph input 'x' has a dynamic "
                                                        r"dimension 0 \(unknown\).*input_shapes"):
        ext.onnx.load(model)
    y, = ext.onnx.load(model, input_shapes={"x": (3, 16)}).run({"x": -np.ones((3, 16), np.float32)})
    assert (y == 0).all()


def test_input_shapes_wins_over_dim_param():
    model = graph_model([helper.make_node("Relu", ["x"], ["y"])], [("x", ("batch", 16))],
                        [("y", ("batch", 16))])
    m = ext.onnx.load(model, input_shapes={"x": (4, 16)})
    assert "?x" not in m.mlir()
    with pytest.raises(ValueError, match=r"has shape \(5, 16\), the model's is \(4, 16\)"):
        m.run({"x": rand(5, 16)})


def test_softmax_and_layernorm_rows_reshape_and_flatten_keep_the_batch():
    """Rows of a symbolic count; a Reshape (batch, 4, 8) -> (0, 32) and a
    Flatten at axis 1 keep the batch whole."""
    g, beta = rand(32, seed=1), rand(32, seed=2)
    model = graph_model(
        [helper.make_node("Reshape", ["x", "shape"], ["r"]),
         helper.make_node("LayerNormalization", ["r", "g", "beta"], ["n"], axis=-1),
         helper.make_node("Softmax", ["n"], ["s"], axis=-1),
         helper.make_node("Flatten", ["s"], ["y"], axis=1)],
        [("x", ("batch", 4, 8))], [("y", ("batch", 32))],
        [("shape", np.array([0, 32], np.int64)), ("g", g), ("beta", beta)])
    m = ext.onnx.load(model)
    for b in (1, 7):
        x = rand(b, 4, 8, seed=b).reshape(b, 32)
        mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        n = (x - mu) / np.sqrt(var + 1e-5) * g + beta
        e = np.exp(n - n.max(-1, keepdims=True))
        y, = m.run({"x": x.reshape(b, 4, 8)})
        assert relative_error(y, e / e.sum(-1, keepdims=True)) < 1e-5


@pytest.mark.parametrize("node, inputs, output, inits, match", [
    (helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0), [("x", ("batch", 16))],
     ("y", (16,)), [("axes", np.array([0], np.int64))],
     r"ReduceSum node 'n'.*a reduced dim, is symbolic dim 'batch'"),
    (helper.make_node("Softmax", ["x"], ["y"], axis=0), [("x", ("batch", 16))],
     ("y", ("batch", 16)), [], r"Softmax node 'n'.*symbolic dim 'batch'"),
    (helper.make_node("MatMul", ["x", "z"], ["y"]), [("x", (4, "n")), ("z", ("n", 8))],
     ("y", (4, 8)), [], r"MatMul node 'n'.*inner \(reduced\) dim, is symbolic dim 'n'"),
    (helper.make_node("Slice", ["x", "s", "e", "a"], ["y"]), [("x", ("batch", 16))],
     ("y", (2, 16)), [("s", np.array([0], np.int64)), ("e", np.array([2], np.int64)),
                      ("a", np.array([0], np.int64))], r"Slice node 'n'.*slices symbolic dim"),
    (helper.make_node("Reshape", ["x", "shape"], ["y"]), [("x", ("batch", 4, 8))],
     ("y", ("m", 8)), [("shape", np.array([-1, 8], np.int64))],
     r"node 'n'.*4\*batch.*symbolic dim 'batch'"),
    (helper.make_node("Concat", ["x", "x"], ["y"], axis=0), [("x", ("batch", 16))],
     ("y", ("m", 16)), [], r"Concat node 'n'.*concatenates along, is symbolic dim 'batch'"),
    (helper.make_node("Pad", ["x", "p"], ["y"]), [("x", ("batch", 16))], ("y", ("m", 16)),
     [("p", np.array([1, 0, 0, 0], np.int64))], r"Pad node 'n'.*a dim of batch\+1"),
])
def test_an_op_that_cuts_the_symbolic_dim_names_node_and_dim(node, inputs, output, inits,
                                                              match):
    node.name = "n"
    model = graph_model([node], inputs, [output], inits)
    with pytest.raises(ext.onnx.OnnxImportError, match=match):
        ext.onnx.load(model)


def test_a_reshape_moving_the_symbolic_dim_of_a_computed_tensor_is_refused():
    """(4, batch) -> (batch, 4) reads the computed tensor at (i*4 + j) //
    batch: a number made from the symbolic dim, named with the node. (Of a
    graph input it is a view of the array, and runs.)"""
    shape = ("s", np.array([-1, 4], np.int64))
    relu = helper.make_node("Relu", ["x"], ["r"], name="relu")
    model = graph_model([relu, helper.make_node("Reshape", ["r", "s"], ["y"], name="n")],
                        [("x", (4, "batch"))], [("y", ("batch", 4))], [shape])
    with pytest.raises(ext.onnx.OnnxImportError, match=r"node 'n': .* indexes with batch"):
        ext.onnx.load(model)
    model = graph_model([helper.make_node("Reshape", ["x", "s"], ["y"], name="n")],
                        [("x", (4, "batch"))], [("y", ("batch", 4))], [shape])
    m = ext.onnx.load(model)
    for b in (1, 3):
        x = rand(4, b, seed=b)
        y, = m.run({"x": x})
        assert (y == x.reshape(b, 4)).all()
