"""Small PyTorch modules as `torch.onnx.export` writes them (torch 1.13 from
Debian's python3-torch): the models of issue 55's "ONNX as exporters write
it". Each builder returns (module in eval mode, example input); `export`
writes the module as ONNX at an opset and returns the model's bytes and
torch's own output for the input."""

import io
import math
import warnings

import numpy as np
import torch
from torch import nn


class MLP(nn.Module):
    """Linear, the default nn.GELU (exported as Erf below opset 20), Linear."""

    def __init__(self, d=32, hidden=64):
        super().__init__()
        self.fc1 = nn.Linear(d, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, d)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class GPT2Block(nn.Module):
    """A GPT-2-style decoder block (nanoGPT's): pre-LayerNorm, a packed QKV
    projection split in three, a causal mask kept as a buffer and sliced to
    the sequence, masked_fill with -inf, softmax, the output projection, an
    MLP with tanh-approximated GELU written out (as GPT-2's code does)."""

    def __init__(self, d=32, heads=4, block=16):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, 4 * d)
        self.mlp_proj = nn.Linear(4 * d, d)
        self.register_buffer("bias", torch.tril(torch.ones(block, block)).view(1, 1, block, block))

    def attn(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(c, dim=2)
        h = self.heads
        q = q.view(b, t, h, c // h).transpose(1, 2)
        k = k.view(b, t, h, c // h).transpose(1, 2)
        v = v.view(b, t, h, c // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        att = torch.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.c_proj(y)

    def mlp(self, x):
        h = self.c_fc(x)
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * torch.pow(h, 3.0))))
        return self.mlp_proj(h)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class BasicBlock(nn.Module):
    """ResNet's basic block: conv-BN-ReLU-conv-BN plus a strided 1x1
    conv-BN shortcut, ReLU; then global average pooling and a flatten."""

    def __init__(self, cin=8, cout=16, stride=2):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        y = torch.relu(y + self.down(x))
        return torch.flatten(self.pool(y), 1)


def _randomize_bn(module, gen):
    """Running statistics and affine parameters away from 0 and 1, so the
    BatchNormalization folding is exercised."""
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=gen) + 0.5)
            m.weight.data.copy_(torch.rand(n, generator=gen) + 0.5)
            m.bias.data.copy_(torch.randn(n, generator=gen) * 0.1)


def mlp():
    torch.manual_seed(0)
    return MLP().eval(), torch.randn(4, 32)


def transformer_encoder_layer():
    torch.manual_seed(0)
    m = nn.TransformerEncoderLayer(d_model=64, nhead=4, batch_first=True).eval()
    return m, torch.randn(2, 8, 64)


def gpt2_block():
    torch.manual_seed(0)
    return GPT2Block().eval(), torch.randn(2, 8, 32)


def basic_block():
    torch.manual_seed(0)
    m = BasicBlock()
    _randomize_bn(m, torch.Generator().manual_seed(1))
    return m.eval(), torch.randn(2, 8, 12, 12)


MODELS = {"mlp": mlp, "transformer_encoder_layer": transformer_encoder_layer,
          "gpt2_block": gpt2_block, "basic_block": basic_block}


def export(module, x, opset, **kwargs):
    """(ONNX bytes, torch's output as numpy) of `module` on `x` exported
    with torch.onnx.export at `opset` (input 'x', output 'y')."""
    f = io.BytesIO()
    # With gradients enabled: in eval mode under no_grad, torch 1.13 takes
    # the encoder layer's fused fast path, which does not export.
    with warnings.catch_warnings():  # (the tracer's notes on Python values)
        warnings.simplefilter("ignore")
        torch.onnx.export(module, (x,), f, opset_version=opset, input_names=["x"],
                          output_names=["y"], **kwargs)
    with torch.no_grad():
        want = module(x).numpy()
    return f.getvalue(), want


class ElementwiseOps(nn.Module):
    """The element-wise, comparison, layout and reduction ops exporters
    write, on a (batch, seq, d) input: Clip, Min/Max, Neg, Abs, Exp,
    Reciprocal, Sqrt, Where over Less/Greater/Not/And, Cast, Concat, strided
    Slice, Gather at an index, Squeeze/Unsqueeze, Expand, ReduceSum/Max/Min,
    LogSoftmax."""

    def forward(self, x):
        a = torch.clamp(x, -1.0, 1.5) + torch.maximum(x, -x) - torch.minimum(x.abs(), 0.5 * x)
        keep = (x > -0.5) & ~(x < -2.0)
        b = torch.where(keep, torch.exp(-x.abs()), torch.reciprocal(x.abs() + 1.0))
        c = keep.float() * torch.sqrt(x * x + 1.0)
        y = torch.cat([a, b[:, :, ::2], c[:, :, 1::2]], dim=-1)  # (B, T, 2d)
        first = x[:, 0].unsqueeze(1).expand(-1, x.shape[1], -1)  # Gather, Unsqueeze, Expand
        z = y[:, :, : x.shape[2]] * first
        s = z.sum(dim=-1, keepdim=True) + z.amax(dim=-1, keepdim=True) - z.amin(dim=1,
                                                                                keepdim=True)
        return torch.log_softmax(s + y[:, :, 1:].unsqueeze(0).squeeze(0)[:, :, : x.shape[2]], -1)


class ImageOps(nn.Module):
    """Pooling and a BatchNormalization that follows no Conv (not folded):
    MaxPool (padded, strided), AveragePool, BatchNormalization, Conv, Flatten,
    GlobalMaxPool, as a small classifier head."""

    def __init__(self, c=4):
        super().__init__()
        self.bn = nn.BatchNorm2d(c)
        self.conv = nn.Conv2d(c, 8, 3, padding=1)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        y = torch.nn.functional.max_pool2d(self.bn(x), 3, stride=2, padding=1)
        y = torch.nn.functional.avg_pool2d(torch.relu(self.conv(y)), 2)
        y = torch.amax(y, dim=(2, 3))  # ReduceMax over the image
        return self.fc(torch.flatten(y, 1))


def elementwise_ops():
    torch.manual_seed(0)
    return ElementwiseOps().eval(), torch.randn(2, 6, 8)


def image_ops():
    torch.manual_seed(0)
    m = ImageOps()
    _randomize_bn(m, torch.Generator().manual_seed(1))
    return m.eval(), torch.randn(2, 4, 9, 9)


OP_MODELS = {"elementwise_ops": elementwise_ops, "image_ops": image_ops}


class TwoUnsupported(nn.Module):
    """Two ops ext does not map (Atan, CumSum) between supported ones."""

    def forward(self, x):
        return torch.cumsum(torch.atan(torch.relu(x)), dim=1)
