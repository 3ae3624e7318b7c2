"""ext.onnx.load: ONNX models built with onnx.helper, saved, loaded, run on
ext's CPU emulator and compared with numpy references written by hand."""

import math
import warnings

import numpy as np
import pytest

import ext

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

RNG = np.random.default_rng(11)
RTOL, ATOL = 1e-4, 1e-5
OPSET = 20  # Gelu is opset 20


@pytest.fixture(autouse=True)
def quiet():
    # The compiler's remarks (a compute running as loops, ...) are noise here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ext.ExtWarning)
        yield


def rand(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def info(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def save_and_load(tmp_path, nodes, inputs, outputs, initializers=(), name="model",
                  opset=OPSET, **load_args):
    """The graph saved with onnx.save, then loaded by path."""
    graph = helper.make_graph(
        nodes, name, [info(n, s) for n, s in inputs], [info(n, s) for n, s in outputs],
        initializer=[numpy_helper.from_array(a, n) for n, a in initializers])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, str(path))
    return ext.onnx.load(str(path), **load_args)


def check(actual, expected, rtol=RTOL, atol=ATOL):
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


def erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def gelu(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def gelu_tanh(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def softmax(x, axis):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def layernorm(x, g, b, axis=-1, eps=1e-5):
    x = x.astype(np.float64)
    axes = tuple(range(axis % x.ndim, x.ndim))
    mu = x.mean(axis=axes, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=axes, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


# --- models -------------------------------------------------------------------

def test_two_layer_mlp(tmp_path):
    """Gemm (transB) + bias + Relu, MatMul + bias Add: two kernels, each
    with its element-wise tail as the GEMM's epilogue."""
    B, D, H, O = 8, 32, 48, 16
    w1, b1 = rand(H, D, scale=0.2), rand(H)  # Gemm transB: W1 is [out, in]
    w2, b2 = rand(H, O, scale=0.2), rand(O)
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1", transB=1),
        helper.make_node("Relu", ["h"], ["a"], name="relu1"),
        helper.make_node("MatMul", ["a", "w2"], ["m"], name="fc2"),
        helper.make_node("Add", ["m", "b2"], ["y"], name="bias2"),
    ]
    m = save_and_load(tmp_path, nodes, [("x", [B, D])], [("y", [B, O])],
                      [("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2)], name="mlp")
    x = rand(B, D)
    ref = np.maximum(x @ w1.T + b1, 0) @ w2 + b2
    y, = m.run({"x": x})
    check(y, ref)
    # The same through a list, and as a dict.
    check(m.run([x], as_dict=True)["y"], ref)
    assert [k.epilogue is not None for k in m.kernels] == [True, True]
    assert len(m.kernels) == 2
    assert m.mlir().count("ext.compute") >= 4
    assert m.kernel.mlir("ext-kernel-to-gpu").count("gpu.launch") == 2
    assert "fc1" in m.summary()


def transformer_block(tmp_path, S=16, D=32, heads=2, F=64):
    """A pre-LayerNorm transformer block on [1, S, D]."""
    dh = D // heads
    w = {n: rand(*s, scale=0.25) for n, s in [
        ("wq", (D, D)), ("wk", (D, D)), ("wv", (D, D)), ("wo", (D, D)),
        ("w1", (D, F)), ("w2", (F, D))]}
    w.update({n: rand(s, scale=0.1) for n, s in [
        ("bq", D), ("bk", D), ("bv", D), ("bo", D), ("b1", F), ("b2", D)]})
    w.update({"g1": 1 + rand(D, scale=0.1), "be1": rand(D, scale=0.1),
              "g2": 1 + rand(D, scale=0.1), "be2": rand(D, scale=0.1)})
    consts = {"heads_shape": np.array([1, S, heads, dh], np.int64),
              "model_shape": np.array([0, 0, -1], np.int64),
              "scale": np.array(1 / math.sqrt(dh), np.float32)}
    N = helper.make_node
    nodes = [N("LayerNormalization", ["x", "g1", "be1"], ["ln1"], name="ln1", epsilon=1e-5)]
    for p in "qkv":
        nodes += [N("MatMul", ["ln1", f"w{p}"], [f"{p}0"], name=f"{p}_proj"),
                  N("Add", [f"{p}0", f"b{p}"], [f"{p}1"], name=f"{p}_bias"),
                  N("Reshape", [f"{p}1", "heads_shape"], [f"{p}2"], name=f"{p}_heads")]
    nodes += [
        N("Transpose", ["q2"], ["q"], name="q_t", perm=[0, 2, 1, 3]),
        N("Transpose", ["k2"], ["kt"], name="k_t", perm=[0, 2, 3, 1]),
        N("Transpose", ["v2"], ["v"], name="v_t", perm=[0, 2, 1, 3]),
        N("MatMul", ["q", "kt"], ["s0"], name="scores"),
        N("Mul", ["s0", "scale"], ["s1"], name="scale"),
        N("Softmax", ["s1"], ["p"], name="softmax", axis=-1),
        N("MatMul", ["p", "v"], ["o0"], name="attend"),
        N("Transpose", ["o0"], ["o1"], name="o_t", perm=[0, 2, 1, 3]),
        N("Reshape", ["o1", "model_shape"], ["o2"], name="o_merge"),
        N("MatMul", ["o2", "wo"], ["o3"], name="o_proj"),
        N("Add", ["o3", "bo"], ["o4"], name="o_bias"),
        N("Add", ["x", "o4"], ["r1"], name="residual1"),
        N("LayerNormalization", ["r1", "g2", "be2"], ["ln2"], name="ln2", epsilon=1e-5),
        N("MatMul", ["ln2", "w1"], ["f0"], name="fc1"),
        N("Add", ["f0", "b1"], ["f1"], name="fc1_bias"),
        N("Gelu", ["f1"], ["f2"], name="gelu"),
        N("MatMul", ["f2", "w2"], ["f3"], name="fc2"),
        N("Add", ["f3", "b2"], ["f4"], name="fc2_bias"),
        N("Add", ["r1", "f4"], ["y"], name="residual2"),
    ]
    m = save_and_load(tmp_path, nodes, [("x", [1, S, D])], [("y", [1, S, D])],
                      list(w.items()) + list(consts.items()), name="block")

    def reference(x):
        x = x.astype(np.float64)
        h = layernorm(x, w["g1"], w["be1"])

        def split(t):
            return t.reshape(1, S, heads, dh).transpose(0, 2, 1, 3)
        q, k, v = (split(h @ w[f"w{p}"] + w[f"b{p}"]) for p in "qkv")
        p = softmax(q @ k.transpose(0, 1, 3, 2) / math.sqrt(dh), -1)
        o = (p @ v).transpose(0, 2, 1, 3).reshape(1, S, D)
        r1 = x + o @ w["wo"] + w["bo"]
        f = gelu(layernorm(r1, w["g2"], w["be2"]) @ w["w1"] + w["b1"])
        return r1 + f @ w["w2"] + w["b2"]
    return m, reference


def test_transformer_block(tmp_path):
    S, D = 16, 32
    m, reference = transformer_block(tmp_path, S, D)
    x = rand(1, S, D)
    y, = m.run({"x": x})
    check(y, reference(x).astype(np.float32))
    kinds = {k.anchor: k for k in m.kernels}
    # Scores, scale, Softmax and the second MatMul are one online-softmax
    # kernel (onnx_patterns.py): its accumulator the anchor, the scores and
    # the row statistics computed per key step, the output its epilogue.
    # It reads the heads in place (its tile copies take a head's offset in
    # the projections' rows). The residual is the output projection's
    # epilogue; each LayerNorm is one kernel.
    attend = kinds["attend_acc"]
    assert attend.computed_at == ["attend_scores", "attend_row_max", "attend_row_sum"]
    assert attend.inlined == ["attend_scaled"] and attend.epilogue == "attend"
    assert "online = " in attend.describe()
    assert not {"scores", "softmax"} & set(kinds)
    assert kinds["o_proj"].epilogue == "residual1"
    # The heads' merge (Transpose + Reshape) is read by the output
    # projection through two reduce axes (head, head dim): linear reads.
    o_proj, = [op for op in m.computes if op.name == "o_proj"]
    assert [a.extent for a in o_proj.reduce_axes] == [2, 16]
    assert kinds["fc1"].epilogue == "gelu"
    assert kinds["fc2"].epilogue == "y_out" or kinds["fc2"].epilogue == "residual2"
    assert kinds["ln1"].computed_at == ["ln1_mean", "ln1_var"]
    assert not {"q_t", "k_t", "v_t"} & set(kinds), m.summary()
    assert len(m.kernels) == 9
    assert m.kernel.mlir("ext-kernel-to-gpu").count("gpu.launch") == 9


def test_conv_flatten_gemm(tmp_path):
    """Conv + bias + Relu, flattened by Reshape into a Gemm: the flatten
    merges (C, H, W) into the Gemm's reduced dim, read through three reduce
    axes; every compute is a kernel (none runs as host loops)."""
    N, C, H, W, F, O = 2, 3, 6, 6, 4, 5
    w, b = rand(F, C, 3, 3, scale=0.3), rand(F)
    fw, fb = rand(O, F * H * W, scale=0.1), rand(O)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("Reshape", ["r", "flat"], ["f"], name="flatten"),
             helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], name="fc", transB=1)]
    m = save_and_load(tmp_path, nodes, [("x", [N, C, H, W])], [("y", [N, O])],
                      [("w", w), ("b", b), ("fw", fw), ("fb", fb),
                       ("flat", np.array([0, -1], np.int64))], name="cnn")
    x = rand(N, C, H, W)
    r = np.maximum(conv_reference(x, w, b, {"pads": [1, 1, 1, 1]}), 0)
    check(m.run([x])[0], (r.reshape(N, -1) @ fw.T + fb).astype(np.float32))
    assert [k.anchor for k in m.kernels] == ["conv", "fc"]
    assert all(k.schedule is not None for k in m.kernels)
    fc, = [op for op in m.computes if op.name == "fc"]
    assert [a.extent for a in fc.reduce_axes] == [F, H, W]


# --- each op alone -------------------------------------------------------------

def one_node(tmp_path, node, inputs, output_shape, initializers=(), opset=OPSET):
    return save_and_load(tmp_path, [node], inputs, [(node.output[0], output_shape)],
                         initializers, name=node.op_type.lower(), opset=opset)


@pytest.mark.parametrize("a_shape,b_shape", [
    ((20, 24), (24, 12)),
    ((3, 9, 8), (8, 5)),          # batched A, shared B
    ((2, 1, 6, 8), (3, 8, 7)),    # leading dims broadcast: [2, 3, 6, 7]
    ((8,), (2, 8, 5)),            # 1-D A
    ((4, 8), (8,)),               # 1-D B
])
def test_matmul(tmp_path, a_shape, b_shape):
    ref_shape = list(np.matmul(np.zeros(a_shape), np.zeros(b_shape)).shape)
    m = one_node(tmp_path, helper.make_node("MatMul", ["a", "b"], ["c"], name="mm"),
                 [("a", list(a_shape)), ("b", list(b_shape))], ref_shape)
    a, b = rand(*a_shape), rand(*b_shape)
    check(m.run([a, b])[0], a @ b)


@pytest.mark.parametrize("attrs,c_shape", [
    ({"transB": 1}, (12,)),
    ({"transA": 1, "alpha": 0.5, "beta": 2.0}, (10, 1)),
    ({"transA": 1, "transB": 1, "alpha": 1.5}, None),
])
def test_gemm(tmp_path, attrs, c_shape):
    M, N, K = 10, 12, 20
    a_shape = (K, M) if attrs.get("transA") else (M, K)
    b_shape = (N, K) if attrs.get("transB") else (K, N)
    a, b = rand(*a_shape), rand(*b_shape)
    inits = [("b", b)]
    names = ["a", "b"]
    if c_shape is not None:
        c = rand(*c_shape)
        inits.append(("c", c))
        names.append("c")
    m = one_node(tmp_path, helper.make_node("Gemm", names, ["y"], name="gemm", **attrs),
                 [("a", list(a_shape))], [M, N], inits)
    a2 = a.T if attrs.get("transA") else a
    b2 = b.T if attrs.get("transB") else b
    ref = attrs.get("alpha", 1.0) * (a2 @ b2)
    if c_shape is not None:
        ref = ref + attrs.get("beta", 1.0) * c
    check(m.run({"a": a})[0], ref)


@pytest.mark.parametrize("op,fn", [
    ("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply), ("Div", np.divide)])
@pytest.mark.parametrize("a_shape,b_shape", [((4, 6), (4, 6)), ((2, 3, 5), (5,)),
                                             ((3, 1, 5), (4, 1)), ((6,), ())])
def test_binary(tmp_path, op, fn, a_shape, b_shape):
    out = list(np.broadcast_shapes(a_shape, b_shape))
    m = one_node(tmp_path, helper.make_node(op, ["a", "b"], ["c"], name=op.lower()),
                 [("a", list(a_shape)), ("b", list(b_shape))], out)
    a = rand(*a_shape)
    b = (rand(*b_shape) if op != "Div" else 1.5 + np.abs(rand(*b_shape))).astype(np.float32)
    check(m.run({"a": a, "b": b})[0], fn(a, b))


@pytest.mark.parametrize("op,attrs,fn", [
    ("Relu", {}, lambda x: np.maximum(x, 0)),
    ("Sigmoid", {}, lambda x: 1 / (1 + np.exp(-x.astype(np.float64)))),
    ("Tanh", {}, np.tanh),
    ("Gelu", {}, gelu),
    ("Gelu", {"approximate": "tanh"}, gelu_tanh),
])
def test_unary(tmp_path, op, attrs, fn):
    m = one_node(tmp_path, helper.make_node(op, ["x"], ["y"], name=op.lower(), **attrs),
                 [("x", [7, 33])], [7, 33])
    x = rand(7, 33, scale=2.0)
    check(m.run([x])[0], fn(x).astype(np.float32))


def test_gelu_forms_differ(tmp_path):
    """The exact and tanh forms are different functions: each test above can
    tell them apart."""
    x = rand(64, scale=2.0)
    assert np.abs(gelu(x) - gelu_tanh(x)).max() > 1e-4


@pytest.mark.parametrize("shape,axis", [((6, 20), -1), ((2, 3, 10), 1), ((3, 7, 4), 0),
                                        ((5,), 0)])
def test_softmax(tmp_path, shape, axis):
    m = one_node(tmp_path, helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=axis),
                 [("x", list(shape))], list(shape))
    x = rand(*shape, scale=3.0)
    check(m.run([x])[0], softmax(x, axis).astype(np.float32))
    if len(shape) > 1:  # one kernel; a 1-D softmax has no row to attach to
        k, = m.kernels
        assert k.computed_at == ["sm_max", "sm_sum"] and k.inlined == ["sm_exp"]


def test_softmax_opset_11_coerces_to_2d(tmp_path):
    """Before opset 13, softmax normalizes over all dims from axis on."""
    m = one_node(tmp_path, helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1),
                 [("x", [3, 4, 5])], [3, 4, 5], opset=11)
    x = rand(3, 4, 5)
    ref = softmax(x.reshape(3, 20), 1).reshape(3, 4, 5)
    check(m.run([x])[0], ref.astype(np.float32))


@pytest.mark.parametrize("shape,axis,with_bias", [((6, 32), -1, True), ((2, 5, 4, 6), 2, False)])
def test_layernorm(tmp_path, shape, axis, with_bias):
    norm = shape[axis:]
    g, b = 1 + rand(*norm, scale=0.5), rand(*norm)
    names = ["x", "g"] + (["b"] if with_bias else [])
    inits = [("g", g)] + ([("b", b)] if with_bias else [])
    node = helper.make_node("LayerNormalization", names, ["y"], name="ln", axis=axis,
                            epsilon=1e-3)
    m = one_node(tmp_path, node, [("x", list(shape))], list(shape), inits)
    x = rand(*shape, scale=2.0) + 1.0
    ref = layernorm(x, g, b if with_bias else 0.0, axis, eps=1e-3)
    check(m.run([x])[0], ref.astype(np.float32))


@pytest.mark.parametrize("attrs,w_shape,with_bias", [
    ({}, (4, 3, 3, 3), True),
    ({"pads": [1, 1, 1, 1]}, (5, 3, 3, 3), True),
    ({"strides": [2, 2], "pads": [1, 0, 0, 1], "dilations": [1, 2]}, (4, 3, 3, 2), False),
    ({"auto_pad": "SAME_UPPER", "group": 3}, (6, 1, 3, 3), True),
])
def test_conv(tmp_path, attrs, w_shape, with_bias):
    N, C, H, W = 2, 3, 9, 10
    w, b = rand(*w_shape), rand(w_shape[0])
    names = ["x", "w"] + (["b"] if with_bias else [])
    x = rand(N, C, H, W)
    ref = conv_reference(x, w, b if with_bias else None, attrs)
    node = helper.make_node("Conv", names, ["y"], name="conv", **attrs)
    m = one_node(tmp_path, node, [("x", [N, C, H, W])], list(ref.shape),
                 [("w", w)] + ([("b", b)] if with_bias else []))
    check(m.run([x])[0], ref.astype(np.float32))
    if attrs.get("group", 1) == 1:  # one kernel: padding inlined, bias the epilogue
        k, = m.kernels
        assert (k.epilogue is not None) == with_bias
        assert k.inlined == (["x_pad"] if any(attrs.get("pads", [])) else [])
    else:  # the channel index o // (F / group) is not linear: host loops
        assert any(k.schedule is None for k in m.kernels)


def conv_reference(x, w, b, attrs):
    """Direct NCHW convolution in float64."""
    N, C, H, W = x.shape
    F, Cg, KH, KW = w.shape
    group = attrs.get("group", 1)
    sh, sw = attrs.get("strides", [1, 1])
    dh, dw = attrs.get("dilations", [1, 1])
    if attrs.get("auto_pad") == "SAME_UPPER":
        ph = max((-(-H // sh) - 1) * sh + (KH - 1) * dh + 1 - H, 0)
        pw = max((-(-W // sw) - 1) * sw + (KW - 1) * dw + 1 - W, 0)
        pads = [ph // 2, pw // 2, ph - ph // 2, pw - pw // 2]
    else:
        pads = attrs.get("pads", [0, 0, 0, 0])
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    OH = (xp.shape[2] - dh * (KH - 1) - 1) // sh + 1
    OW = (xp.shape[3] - dw * (KW - 1) - 1) // sw + 1
    y = np.zeros((N, F, OH, OW))
    fg = F // group
    for f in range(F):
        g = f // fg
        for ry in range(KH):
            for rx in range(KW):
                win = xp[:, g * Cg:(g + 1) * Cg, ry * dh:ry * dh + sh * (OH - 1) + 1:sh,
                         rx * dw:rx * dw + sw * (OW - 1) + 1:sw]
                y[:, f] += np.einsum("nchw,c->nhw", win, w[f, :, ry, rx])
    if b is not None:
        y += b[None, :, None, None]
    return y


@pytest.mark.parametrize("shape,perm", [((4, 6), None), ((2, 3, 4, 5), [0, 2, 3, 1]),
                                        ((3, 1, 5), [2, 0, 1])])
def test_transpose(tmp_path, shape, perm):
    attrs = {} if perm is None else {"perm": perm}
    out = list(np.zeros(shape).transpose(perm).shape)
    m = one_node(tmp_path, helper.make_node("Transpose", ["x"], ["y"], name="t", **attrs),
                 [("x", list(shape))], out)
    x = rand(*shape)
    check(m.run([x])[0], x.transpose(perm))


@pytest.mark.parametrize("shape,target,expected", [
    ((2, 3, 8), [0, 0, 2, 4], (2, 3, 2, 4)),     # split, 0 copies
    ((2, 3, 4, 2), [2, -1], (2, 24)),              # merge, -1 inferred
    ((6, 10), [4, 15], (4, 15)),                   # no common factors
    ((1, 12), [3, 1, 4], (3, 1, 4)),               # size-1 dims
])
def test_reshape(tmp_path, shape, target, expected):
    """Reshape, then Relu so the reshaped value is computed by a kernel."""
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
             helper.make_node("Relu", ["r"], ["y"], name="relu")]
    m = save_and_load(tmp_path, nodes, [("x", list(shape))], [("y", list(expected))],
                      [("shape", np.array(target, np.int64))], name="reshape")
    x = rand(*shape)
    check(m.run([x])[0], np.maximum(x.reshape(expected), 0))


def test_constant_and_identity(tmp_path):
    c = rand(3, 4)
    nodes = [helper.make_node("Constant", [], ["c"], name="c",
                              value=numpy_helper.from_array(c, "c")),
             helper.make_node("Constant", [], ["two"], name="two", value_float=2.0),
             helper.make_node("Identity", ["x"], ["xi"], name="id"),
             helper.make_node("Mul", ["xi", "two"], ["x2"], name="mul"),
             helper.make_node("Add", ["x2", "c"], ["y"], name="add")]
    m = save_and_load(tmp_path, nodes, [("x", [3, 4])], [("y", [3, 4])], name="const")
    x = rand(3, 4)
    check(m.run([x])[0], x * 2 + c)


def test_outputs_read_inside_the_graph(tmp_path):
    """An output that another node reads, and a graph input as an output:
    both come back, in graph-output order."""
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
             helper.make_node("Relu", ["h"], ["y"], name="relu")]
    w = rand(8, 6)
    m = save_and_load(tmp_path, nodes, [("x", [5, 8])], [("y", [5, 6]), ("h", [5, 6])],
                      [("w", w)], name="two_outputs")
    x = rand(5, 8)
    y, h = m.run([x])
    check(h, x @ w)
    check(y, np.maximum(x @ w, 0))


# --- errors -------------------------------------------------------------------

def test_unsupported_op_names_op_and_node(tmp_path):
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Atan", ["r"], ["y"], name="atan_0")]
    with pytest.raises(ext.onnx.UnsupportedOpError,
                       match=r"unsupported op 'Atan' \(node 'atan_0'\)"):
        save_and_load(tmp_path, nodes, [("x", [4])], [("y", [4])])
    assert issubclass(ext.onnx.UnsupportedOpError, NotImplementedError)
    # A supported name in another domain is another op.
    nodes = [helper.make_node("Gelu", ["x"], ["y"], name="ms_gelu", domain="com.microsoft")]
    with pytest.raises(ext.onnx.UnsupportedOpError,
                       match=r"unsupported op 'Gelu' \(node 'ms_gelu', domain 'com.microsoft'\)"):
        save_and_load(tmp_path, nodes, [("x", [4])], [("y", [4])])


def test_dynamic_shape_names_the_input(tmp_path):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    # A dim without a name: named, it is symbolic (test_onnx_symbolic.py).
    graph = helper.make_graph(nodes, "dyn", [info("x", [None, 8])], [info("y", [None, 8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    with pytest.raises(ext.onnx.DynamicShapeError,
                       match=r"graph input 'x' has a dynamic dimension 0 \(unknown\)"):
        ext.onnx.load(model)
    # A static shape given for it builds.
    m = ext.onnx.load(model, input_shapes={"x": (3, 8)})
    x = rand(3, 8)
    check(m.run([x])[0], np.maximum(x, 0))


def test_computed_reshape_shape_is_refused(tmp_path):
    nodes = [helper.make_node("Reshape", ["x", "s"], ["y"], name="r")]
    graph = helper.make_graph(nodes, "g", [info("x", [4, 2]), helper.make_tensor_value_info(
        "s", TensorProto.INT64, [2])], [info("y", [2, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    with pytest.raises(ext.onnx.OnnxImportError, match="Reshape node 'r'.*constant"):
        ext.onnx.load(model)
