"""The torch front end (issue 55, item 5): `ext.torch.compile(module,
example_inputs)` traces with torch.fx, maps the graph's calls to the
computes ext.onnx makes and returns a callable on torch tensors. The
modules of torch_onnx_models.py (an MLP with nn.GELU, nn.TransformerEncoderLayer
in eval, a GPT-2-style block with a causal mask, a ResNet basic block with
BatchNorm) match their own forward; a module with two calls ext does not map
names both; an MLP compiled on one batch runs another. Skipped without
torch."""

import pytest

import ext

torch = pytest.importorskip("torch")
import torch_onnx_models as models  # noqa: E402
from torch import nn  # noqa: E402

F = torch.nn.functional

pytestmark = pytest.mark.filterwarnings("ignore::ext.ExtRemark")


def relative_error(got, want):
    return float((got - want).abs().max() / max(float(want.abs().max()), 1e-30))


def host_loops(f):
    return [k.anchor for k in f.kernels if k.schedule is None]


MODULES = {**models.MODELS, **models.OP_MODELS}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_matches_its_forward(name):
    """The four models, and the element-wise/layout/reduction and image op
    models (clamp, where over comparisons, cat, strided slices, indexing,
    expand, sum/amax/amin, log_softmax, pools, a BatchNorm2d after no conv)."""
    module, x = MODULES[name]()
    f = ext.torch.compile(module, (x,))
    y = f(x)
    with torch.no_grad():
        want = module(x)
    assert isinstance(y, torch.Tensor) and y.shape == want.shape
    err = relative_error(y, want)
    assert err < 1e-4, f"{name}: relative error {err:.3g}\n{f.summary()}"
    assert host_loops(f) == [], f.summary()


def test_batchnorm_folds_into_the_convs_and_attention_is_one_kernel():
    """The basic block's three BatchNorm2d fold into their Conv2d (no
    per-channel scale left); the encoder layer's MultiheadAttention becomes
    its projections and one online-softmax attention kernel (scores, scale,
    softmax and the second matmul, onnx_patterns.py)."""
    f = ext.torch.compile(*models.basic_block())
    assert not any(c.name.startswith("bn") for c in f.computes), f.summary()
    assert [k.anchor for k in f.kernels if k.anchor.startswith("conv") or
            k.anchor.startswith("down")] == ["conv1", "conv2", "down_0"], f.summary()
    f = ext.torch.compile(*models.transformer_encoder_layer())
    attention = [k for k in f.kernels if k.schedule is not None and "online = " in k.describe()]
    assert len(attention) == 1 and attention[0].anchor == "self_attn_context_acc", f.summary()
    assert not [k for k in f.kernels if k.anchor.endswith("softmax")], f.summary()


def test_mlp_runs_another_batch_of_the_same_shape():
    """Compiled on one batch, run on another: the weights are the module's,
    the inputs each call's; tensors in, tensors out."""
    torch.manual_seed(1)
    mlp = nn.Sequential(nn.Linear(16, 48), nn.ReLU(), nn.Dropout(0.1), nn.Linear(48, 8),
                        nn.Tanh()).eval()
    f = ext.torch.compile(mlp, torch.randn(5, 16))
    for _ in range(2):
        x = torch.randn(5, 16)
        y = f(x)
        with torch.no_grad():
            want = mlp(x)
        assert relative_error(y, want) < 1e-5
    assert len(f.kernels) == 2, f.summary()  # (ReLU and Tanh: the GEMMs' epilogues)
    with pytest.raises(ValueError, match="shape"):
        f(torch.randn(6, 16))


def test_two_unsupported_calls_are_both_named_with_their_nodes():
    with pytest.raises(ext.torch.UnsupportedOpError) as e:  # (ext.onnx's)
        ext.torch.compile(models.TwoUnsupported().eval(), torch.randn(2, 5))
    message = str(e.value)
    assert "call_function torch.atan (node 'atan')" in message, message
    assert "call_function torch.cumsum (node 'cumsum')" in message, message
    assert sorted(e.value.nodes) == [("torch.atan", "atan"), ("torch.cumsum", "cumsum")]


class _Functional(nn.Module):
    """Functional and method forms: F.linear, F.layer_norm, F.gelu(tanh),
    chunk, permute, reshape, cat, amax, a non-batch-first
    MultiheadAttention with a causal float mask, log_softmax."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(24, 12) * 0.2)
        self.attn = nn.MultiheadAttention(12, 3)

    def forward(self, x):
        h = F.gelu(F.linear(x, self.w), approximate="tanh")            # (6, 2, 24)
        a, b = h.chunk(2, dim=-1)
        z = F.layer_norm(a * torch.sigmoid(b), (12,))
        mask = torch.triu(torch.full((6, 6), float("-inf")), diagonal=1)
        o, _ = self.attn(z, z, z, attn_mask=mask)
        y = torch.cat([o, z.permute(0, 1, 2).reshape(6, 2, 12)], dim=-1)
        return torch.log_softmax(y - y.amax(dim=-1, keepdim=True), dim=-1), z.shape[0]


def test_functional_forms_and_tuple_outputs():
    torch.manual_seed(2)
    module, x = _Functional().eval(), torch.randn(6, 2, 12)
    f = ext.torch.compile(module, (x,))
    y, n = f(x)
    with torch.no_grad():
        want, n_want = module(x)
    assert n == n_want and relative_error(y, want) < 1e-4, f.summary()


class _MaskedAttention(nn.Module):
    """MultiheadAttention (batch first) with a bool causal mask and a bool
    key padding mask: both -inf where True, as torch merges them."""

    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(16, 2, batch_first=True)

    def forward(self, x):
        pad = torch.zeros(2, 5, dtype=torch.bool)
        pad[1, 3:] = True
        causal = torch.triu(torch.ones(5, 5, dtype=torch.bool), 1)
        return self.mha(x, x, x, key_padding_mask=pad, attn_mask=causal)[0]


def test_attention_with_bool_masks():
    torch.manual_seed(3)
    module, x = _MaskedAttention().eval(), torch.randn(2, 5, 16)
    f = ext.torch.compile(module, x)
    with torch.no_grad():
        assert relative_error(f(x), module(x)) < 1e-4, f.summary()


def test_cuda_tensors_run_on_the_device_or_fail_clearly():
    """CUDA tensors run the kernels on the CUDA device (outputs back on it);
    without a GPU, target="cuda" is a clear RuntimeError, never a crash."""
    module, x = models.mlp()
    f = ext.torch.compile(module, (x,))
    if torch.cuda.is_available():
        y = f(x.cuda())
        assert y.device.type == "cuda"
        with torch.no_grad():
            want = module(x)
        assert relative_error(y.cpu(), want) < 1e-4
    else:
        with pytest.raises(RuntimeError, match="needs an NVIDIA GPU"):
            f(x, target="cuda")
    with pytest.raises(ValueError, match="unknown run target"):
        f(x, target="tpu")
