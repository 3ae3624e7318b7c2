"""ONNX as PyTorch exports it (issue 55, item 1): models written by
`torch.onnx.export` (torch 1.13, Debian's python3-torch) at opsets 13, 14
and 17 load with `ext.onnx.load` and match torch's own forward within 1e-4
relative; their shape subgraphs are folded at load; a model with two ops ext
does not map names both, with their nodes. The models are exported here
(test/python/torch_onnx_models.py), so the test needs torch; it is skipped
without it."""

import collections

import numpy as np
import pytest

import ext

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")
import torch_onnx_models as models  # noqa: E402

OPSETS = (13, 14, 17)
# (The encoder's host loops are remarked on: see test_exported_model_matches_torch.)
pytestmark = pytest.mark.filterwarnings("ignore::ext.ExtRemark")


def relative_error(got, want):
    return float(np.max(np.abs(got - want)) / max(float(np.max(np.abs(want))), 1e-30))


def load_and_run(module, x, opset, **export_args):
    data, want = models.export(module, x, opset, **export_args)
    m = ext.onnx.load(data)
    y, = m.run({"x": x.numpy()})
    assert y.shape == want.shape
    return m, relative_error(y, want), data


def host_loops(m):
    return [k.anchor for k in m.kernels if k.schedule is None]


def attention_kernels(m):
    return [k for k in m.kernels if k.schedule is not None and "online = " in k.describe()]


def layernorm_kernels(m):
    """Kernels computing a row's mean and variance at the row."""
    return [k for k in m.kernels if [n.rsplit("_", 1)[-1] for n in k.computed_at] == ["mean", "var"]]


@pytest.mark.parametrize("opset", OPSETS)
@pytest.mark.parametrize("name", sorted(models.MODELS))
def test_exported_model_matches_torch(name, opset):
    m, err, _ = load_and_run(*models.MODELS[name](), opset)
    assert err < 1e-4, f"{name} at opset {opset}: relative error {err:.3g}"
    # (The encoder's output projection reads the heads merged back through
    # a mod of a floordiv of its rows: it is computed over (T, B) rows.)
    assert host_loops(m) == [], m.summary()
    if name in ("transformer_encoder_layer", "gpt2_block"):
        # The attention is one online-softmax kernel, each LayerNorm one
        # kernel whether the exporter wrote LayerNormalization (opset 17)
        # or its parts (13, 14).
        assert len(attention_kernels(m)) == 1, m.summary()
        assert len(layernorm_kernels(m)) == 2, m.summary()
        assert not [k for k in m.kernels if "ReduceMean" in k.anchor or "Softmax" in k.anchor]


def test_mlp_gelu_is_erf_in_one_kernel_after_the_gemm():
    """torch writes nn.GELU() as x * 0.5 * (1 + Erf(x / sqrt 2)) below opset
    20: the whole expression is the first Gemm's epilogue."""
    m, err, data = load_and_run(*models.mlp(), 13)
    ops = {n.op_type for n in onnx.load_from_string(data).graph.node}
    assert "Erf" in ops and "Gelu" not in ops
    assert len(m.kernels) == 2 and m.kernels[0].epilogue is not None, m.summary()
    assert err < 1e-4


def test_shape_subgraphs_are_folded_at_load():
    """The encoder layer's Shape -> Gather -> ... -> Reshape (the packed QKV
    split) and the GPT-2 block exported without torch's constant folding
    (Unsqueeze/Concat shapes, the causal mask sliced, compared, cast) fold
    to constants: none of them reaches ext."""
    from ext.onnx_fold import fold
    shape_ops = {"Shape", "Gather", "Unsqueeze", "Concat", "ConstantOfShape", "Range",
                 "Equal", "Cast", "Constant"}
    for build, args in ((models.transformer_encoder_layer, {}),
                        (models.gpt2_block, {"do_constant_folding": False})):
        data, _ = models.export(*build(), 13, **args)
        model = onnx.load_from_string(data)
        before = collections.Counter(n.op_type for n in model.graph.node)
        after = collections.Counter(n.op_type for n in fold(onnx, model).graph.node)
        assert sum(before[o] for o in shape_ops) > 0
        assert sum(after[o] for o in shape_ops) == 0, after
        assert after["MatMul"] + after["Gemm"] == before["MatMul"] + before["Gemm"]


def test_gpt2_block_without_torch_constant_folding_matches():
    m, err, _ = load_and_run(*models.gpt2_block(), 13, do_constant_folding=False)
    assert err < 1e-4
    assert host_loops(m) == [], m.summary()


def test_batchnorm_kept_by_the_exporter_is_folded_into_the_convs():
    """Exported with TrainingMode.PRESERVE the basic block keeps its three
    BatchNormalization nodes: load folds each into its Conv's weights and
    bias, so the kernels are the same as torch's own folding gives."""
    module, x = models.basic_block()
    m, err, data = load_and_run(module, x, 13, training=torch.onnx.TrainingMode.PRESERVE)
    ops = collections.Counter(n.op_type for n in onnx.load_from_string(data).graph.node)
    assert ops["BatchNormalization"] == 3
    assert err < 1e-4
    plain, _, _ = load_and_run(module, x, 13)
    assert len(m.kernels) == len(plain.kernels), m.summary()
    assert host_loops(m) == []


def test_dynamic_axes_fold_once_input_shapes_fix_them():
    """Exported with dynamic batch and sequence, the encoder's Shape nodes
    read a dynamic input: its named dims are symbolic (ext.var), but its
    attention merges the batch with the heads (b * heads), which ext.onnx
    refuses naming the node (test_onnx_symbolic.py); `input_shapes` fixes
    the dims, and the Shape nodes fold."""
    module, x = models.transformer_encoder_layer()
    data, want = models.export(module, x, 14, dynamic_axes={"x": {0: "b", 1: "t"},
                                                             "y": {0: "b", 1: "t"}})
    with pytest.raises(ext.onnx.OnnxImportError, match=r"node '/self_attn/Mul_\d' computes "
                                                       r"with symbolic dim.*input_shapes"):
        ext.onnx.load(data)
    m = ext.onnx.load(data, input_shapes={"x": tuple(x.shape)})
    y, = m.run({"x": x.numpy()})
    assert relative_error(y, want) < 1e-4


def test_two_unsupported_ops_are_both_named_with_their_nodes():
    """Every op ext does not map is named in one error, each with its node,
    not only the first."""
    data, _ = models.export(models.TwoUnsupported().eval(), torch.randn(2, 5), 13)
    nodes = {n.op_type: n.name for n in onnx.load_from_string(data).graph.node}
    with pytest.raises(ext.onnx.UnsupportedOpError) as e:
        ext.onnx.load(data)
    message = str(e.value)
    for op in ("Atan", "CumSum"):
        assert f"op '{op}' (node '{nodes[op]}')" in message, message
    assert sorted(e.value.nodes) == sorted([("Atan", nodes["Atan"]),
                                            ("CumSum", nodes["CumSum"])])


@pytest.mark.parametrize("opset", (13, 17))
@pytest.mark.parametrize("name", sorted(models.OP_MODELS))
def test_exported_ops_match_torch(name, opset):
    """The element-wise, comparison, layout and reduction ops (Clip, Min/Max,
    Where over Less/Greater/Not/And, Cast, Concat, strided Slice, Gather,
    Squeeze/Unsqueeze, Expand, ReduceSum/Max/Min, LogSoftmax) and the image
    ops (Pad, MaxPool, AveragePool, a BatchNormalization after no Conv,
    Flatten) as torch writes them."""
    m, err, _ = load_and_run(*models.OP_MODELS[name](), opset)
    assert err < 1e-4, f"{name} at opset {opset}: relative error {err:.3g}"
    assert host_loops(m) == [], m.summary()


def test_concat_and_slices_read_their_inputs_in_place():
    """A slice from 0 and Concat's first input read their tensor directly
    (no padded copy), and the producers Concat reads under its guards are
    inlined into it: 7 kernels, 12 while ext held a bare axis to its
    dimension and took an inlined read out of its guard."""
    m, err, _ = load_and_run(*models.OP_MODELS["elementwise_ops"](), 17)
    assert err < 1e-4
    assert not [k.anchor for k in m.kernels if k.anchor.endswith("_pad")], m.summary()
    concat, = [k for k in m.kernels if k.anchor == "_Concat"]
    assert len(concat.inlined) == 3, m.summary()
    assert len(m.kernels) == 7, m.summary()


def test_report_counts_kernels_fusions_and_the_bytes_each_must_move():
    """MLP(32 -> 64 -> 32) on 4 rows, f32: fc1's kernel reads x (4x32),
    W1 (64x32), b1 (64) and stores h (4x64); fc2's inlines GELU, so it
    reads h, W2 (32x64), b2 (32) and stores y (4x32)."""
    m, _, _ = load_and_run(*models.mlp(), 13)
    r = m.report()
    assert r.kernels == 2 and r.host_loops == []
    assert r.fused == 3  # two bias epilogues and the GELU
    f32 = 4
    first = (4 * 32 + 64 * 32 + 64 + 4 * 64) * f32
    second = (4 * 64 + 32 * 64 + 32 + 4 * 32) * f32
    assert [b for _, _, b in r.rows] == [first, second]
    assert r.bytes_moved == first + second
    assert f"{first + second} bytes moved at least" in str(r)
    enc, _, _ = load_and_run(*models.transformer_encoder_layer(), 17)
    assert enc.report().host_loops == []
