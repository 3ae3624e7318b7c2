"""The graph patterns ext.onnx.load and ext.torch.compile recognize
(onnx_patterns.py, issue 55 item 2): a LayerNorm written out becomes one
LayerNormalization kernel, scaled dot-product attention one online-softmax
kernel; where a pattern's structure matches but its values do not (a
mask that is not causal, a softmax over another axis), the nodes are mapped
as written and the numbers stay right."""

import math
import warnings

import numpy as np
import pytest

import ext

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

RNG = np.random.default_rng(5)
N = helper.make_node


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ext.ExtWarning)
        yield


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def load(nodes, inputs, outputs, consts, opset=13):
    info = [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs]
    init = [numpy_helper.from_array(np.asarray(a), n) for n, a in consts.items()]
    graph = helper.make_graph(nodes, "g", info, outs, initializer=init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return ext.onnx.load(model.SerializeToString())


def attention_kernels(m):
    return [k for k in m.kernels if k.schedule is not None and "online = " in k.describe()]


def layernorm_nodes(x, weight=True, bias=True, square="Pow", eps=1e-5):
    nodes = [N("ReduceMean", [x], ["mu"], name="mean", axes=[-1]),
             N("Sub", [x, "mu"], ["d"], name="sub"),
             N("Pow", ["d", "two"], ["d2"], name="pow") if square == "Pow" else
             N("Mul", ["d", "d"], ["d2"], name="square"),
             N("ReduceMean", ["d2"], ["var"], name="var", axes=[-1]),
             N("Add", ["var", "eps"], ["ve"], name="add_eps"),
             N("Sqrt", ["ve"], ["sd"], name="sqrt"),
             N("Div", ["d", "sd"], ["n" if weight or bias else "y"], name="div")]
    out = "n"
    if weight:
        nodes.append(N("Mul", [out, "g"], ["w" if bias else "y"], name="scale"))
        out = "w"
    if bias:
        nodes.append(N("Add", [out, "b"], ["y"], name="shift"))
    consts = {"two": np.float32(2.0), "eps": np.float32(eps)}
    return nodes, consts


def layernorm_ref(x, g=None, b=None, eps=1e-5):
    x = x.astype(np.float64)
    y = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)
    return y * (1 if g is None else g) + (0 if b is None else b)


@pytest.mark.parametrize("weight,bias,square", [(True, True, "Pow"), (False, False, "Mul"),
                                                (True, False, "Pow")])
def test_layernorm_written_out_is_one_kernel(weight, bias, square):
    nodes, consts = layernorm_nodes("x", weight, bias, square)
    g, b = rand(24), rand(24)
    if weight:
        consts["g"] = g
    if bias:
        consts["b"] = b
    m = load(nodes, [("x", [3, 5, 24])], [("y", [3, 5, 24])], consts)
    x = rand(3, 5, 24)
    y, = m.run({"x": x})
    want = layernorm_ref(x, g if weight else None, b if bias else None)
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)
    k, = m.kernels
    assert [n.rsplit("_", 1)[-1] for n in k.computed_at] == ["mean", "var"], m.summary()


def test_layernorm_parts_read_elsewhere_are_mapped_as_written():
    """The mean is also a graph output: the pattern does not apply (fusing
    would drop it), and the parts run as written."""
    nodes, consts = layernorm_nodes("x")
    consts.update(g=rand(16), b=rand(16))
    nodes.append(N("Identity", ["mu"], ["mean_out"], name="keep_mean"))
    m = load(nodes, [("x", [4, 16])], [("y", [4, 16]), ("mean_out", [4, 1])], consts)
    x = rand(4, 16)
    y, mu = m.run({"x": x})
    np.testing.assert_allclose(y, layernorm_ref(x, consts["g"], consts["b"]), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(mu, x.mean(-1, keepdims=True), rtol=1e-5, atol=1e-6)
    assert len(m.kernels) > 1


def attention_graph(scale_node="Mul", mask=None, axis=-1, b=2, h=3, t=10, d=16):
    """softmax(Q K^T * scale [masked]) V over (b, h, t, d) inputs, K given
    as (b, h, d, t)."""
    nodes = [N("MatMul", ["q", "kt"], ["s"], name="scores")]
    consts = {}
    s = "s"
    if scale_node == "Mul":
        nodes.append(N("Mul", [s, "c"], ["s1"], name="scale"))
        consts["c"] = np.float32(1 / math.sqrt(d))
        s = "s1"
    elif scale_node == "Div":
        nodes.append(N("Div", [s, "c"], ["s1"], name="scale"))
        consts["c"] = np.float32(math.sqrt(d))
        s = "s1"
    if mask is not None:
        nodes.append(N("Where", ["mask", "ninf", s], ["s2"], name="mask"))
        consts.update(mask=mask, ninf=np.float32(-np.inf))
        s = "s2"
    nodes += [N("Softmax", [s], ["p"], name="softmax", axis=axis),
              N("MatMul", ["p", "v"], ["y"], name="attend")]
    inputs = [("q", [b, h, t, d]), ("kt", [b, h, d, t]), ("v", [b, h, t, d])]
    return load(nodes, inputs, [("y", [b, h, t, d])], consts)


def attention_ref(q, kt, v, scale, hidden=None, axis=-1):
    s = (q.astype(np.float64) @ kt) * scale
    if hidden is not None:
        s = np.where(hidden, -np.inf, s)
    with np.errstate(invalid="ignore"):  # (a fully masked row: NaN, as torch)
        p = np.exp(s - s.max(axis, keepdims=True))
        p /= p.sum(axis, keepdims=True)
    return p @ v


@pytest.mark.parametrize("scale_node", ["Mul", "Div", None])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_is_one_online_softmax_kernel(scale_node, causal):
    t = 10
    hidden = np.triu(np.ones((t, t), bool), 1) if causal else None
    m = attention_graph(scale_node, hidden)
    q, kt, v = rand(2, 3, t, 16), rand(2, 3, 16, t), rand(2, 3, t, 16)
    y, = m.run({"q": q, "kt": kt, "v": v})
    scale = 1.0 if scale_node is None else 1 / math.sqrt(16)
    np.testing.assert_allclose(y, attention_ref(q, kt, v, scale, hidden), rtol=1e-4, atol=1e-5)
    assert len(m.kernels) == 1 and len(attention_kernels(m)) == 1, m.summary()


@pytest.mark.parametrize("case", ["not_causal", "fully_masked_row", "softmax_axis"])
def test_attention_values_the_kernel_cannot_take_are_mapped_as_written(case):
    """A mask that is not j > i + c (a random one), one that hides every key
    of a query (torch gives NaN there; the fused kernel would give 0), and a
    Softmax over the queries: the nodes run as written, matching numpy."""
    t = 6
    hidden, axis = None, -1
    if case == "not_causal":
        hidden = RNG.random((t, t)) < 0.3
        np.fill_diagonal(hidden, False)
    elif case == "fully_masked_row":
        hidden = np.triu(np.ones((t, t), bool), 0)
        hidden[1:] = np.triu(np.ones((t, t), bool), 1)[1:]
    else:
        axis = 2
    m = attention_graph("Mul", hidden, axis=axis, t=t)
    q, kt, v = rand(2, 3, t, 16), rand(2, 3, 16, t), rand(2, 3, t, 16)
    y, = m.run({"q": q, "kt": kt, "v": v})
    want = attention_ref(q, kt, v, 1 / math.sqrt(16), hidden, axis)
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)
    assert attention_kernels(m) == [], m.summary()


def test_attention_reads_transposed_heads_in_place():
    """Q and V read as transposes of (b, t, h, d) inputs, K^T of the same:
    the attention reads them at plain axes, no copy kernel before it."""
    b, t, h, d = 2, 9, 2, 16
    nodes = [N("Transpose", ["x"], ["q"], name="q_t", perm=[0, 2, 1, 3]),
             N("Transpose", ["x2"], ["kt"], name="k_t", perm=[0, 2, 3, 1]),
             N("Transpose", ["x3"], ["v"], name="v_t", perm=[0, 2, 1, 3]),
             N("MatMul", ["q", "kt"], ["s"], name="scores"),
             N("Div", ["s", "c"], ["s1"], name="scale"),
             N("Softmax", ["s1"], ["p"], name="softmax", axis=3),
             N("MatMul", ["p", "v"], ["y"], name="attend")]
    inputs = [(n, [b, t, h, d]) for n in ("x", "x2", "x3")]
    m = load(nodes, inputs, [("y", [b, h, t, d])], {"c": np.float32(4.0)})
    x, x2, x3 = rand(b, t, h, d), rand(b, t, h, d), rand(b, t, h, d)
    y, = m.run({"x": x, "x2": x2, "x3": x3})
    want = attention_ref(x.transpose(0, 2, 1, 3), x2.transpose(0, 2, 3, 1),
                         x3.transpose(0, 2, 1, 3), 0.25)
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)
    assert len(m.kernels) == 1 and len(attention_kernels(m)) == 1, m.summary()


def test_torch_front_end_fuses_the_same_patterns():
    """ext.torch.compile of a GPT-2 block (LayerNorm modules, a causal
    masked_fill) and of a LayerNorm written by hand: one attention kernel,
    one kernel per LayerNorm, the module's numbers."""
    torch = pytest.importorskip("torch")
    import torch_onnx_models as models

    f = ext.torch.compile(*models.gpt2_block())
    assert len(attention_kernels(f)) == 1, f.summary()

    class HandNorm(torch.nn.Module):
        def forward(self, x):
            mu = x.mean(-1, keepdim=True)
            d = x - mu
            return d / torch.sqrt((d * d).mean(-1, keepdim=True) + 1e-5) * 2.0 + 0.5

    x = torch.randn(4, 8, 32)
    g = ext.torch.compile(HandNorm(), (x,))
    want = HandNorm()(x)
    assert float((g(x) - want).abs().max()) < 1e-4 * float(want.abs().max())
    assert len(g.kernels) == 1, g.summary()


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_attention_reads_heads_of_a_packed_projection_in_place(dtype):
    """Q, K and V sliced from one packed (b, t, 3 * h * d) tensor, split into
    heads and transposed (as GPT-2 writes it): the attention's tile copies
    read each head at its offset in the packed rows, bounded at the head's
    end (a head of 16 is padded to the lanes' 32: the padding must read
    zeros, not the next head), so no copy kernel runs before it; f16 on
    sm_80's mma.sync."""
    b, t, h, d = 2, 12, 3, 16
    c = h * d
    onnx_t = TensorProto.FLOAT16 if dtype == np.float16 else TensorProto.FLOAT
    shape = np.array([b, t, h, d], np.int64)
    nodes = [N("Split", ["qkv", "sizes"], ["q0", "k0", "v0"], name="split", axis=2)]
    for n, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        nodes += [N("Reshape", [f"{n}0", "shape"], [f"{n}1"], name=f"{n}_heads"),
                  N("Transpose", [f"{n}1"], [n], name=f"{n}_t", perm=perm)]
    nodes += [N("MatMul", ["q", "k"], ["s"], name="scores"),
              N("Mul", ["s", "c"], ["s1"], name="scale"),
              N("Softmax", ["s1"], ["p"], name="softmax", axis=-1),
              N("MatMul", ["p", "v"], ["y"], name="attend")]
    consts = {"sizes": np.array([c, c, c], np.int64), "shape": shape,
              "c": np.array(0.25, dtype)}
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("qkv", onnx_t, [b, t, 3 * c])],
        [helper.make_tensor_value_info("y", onnx_t, [b, h, t, d])],
        initializer=[numpy_helper.from_array(np.asarray(a), n) for n, a in consts.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m = ext.onnx.load(model.SerializeToString(), chip="sm_80")
    x = rand(b, t, 3 * c).astype(dtype)
    y, = m.run({"qkv": x})
    heads = [x[:, :, i * c:(i + 1) * c].astype(np.float64).reshape(b, t, h, d)
             .transpose(0, 2, 1, 3) for i in range(3)]
    want = attention_ref(heads[0], heads[1].transpose(0, 1, 3, 2), heads[2], 0.25)
    tol = 2e-3 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=tol * 10, atol=tol)
    assert len(m.kernels) == 1 and len(attention_kernels(m)) == 1, m.summary()
