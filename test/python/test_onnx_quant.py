"""Quantized weights in ONNX models (issue 54 item 5): com.microsoft
MatMulNBits and DequantizeLinear feeding MatMul/Gemm, loaded by
ext.onnx.load, run on the emulator and compared with numpy references
written from the specs (ONNX Runtime's ContribOperators.md and ONNX's
DequantizeLinear), not from the importer; m.report() shows the
dequantization inlined into the GEMM, which reads the packed bytes, the
scales and the zeros and stores only Y."""

import warnings

import numpy as np
import pytest

import ext

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

RNG = np.random.default_rng(54)
F32, F16 = TensorProto.FLOAT, TensorProto.FLOAT16


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ext.ExtWarning)
        yield


def model_of(nodes, inputs, outputs, initializers, opset=17, name="quant"):
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializer=[numpy_helper.from_array(a, n) for n, a in initializers])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset),
                                                   helper.make_opsetid("com.microsoft", 1)])


# ---------------------------------------------------------------------------
# The spec's MatMulNBits, in numpy: B (N, k_blocks, blob_size) uint8, each
# block's codes packed `bits` at a time from the low bits of its blob's
# bytes; zero points uint8 packed the same way per row (each row padded to
# whole bytes), or of A's type unpacked, or 2^(bits - 1) when absent;
# W[n, k] = (code - zero) * scale of k's block; Y = A @ W^T + bias.


def unpack_bits(rows: np.ndarray, bits: int, count: int) -> np.ndarray:
    """The first `count` codes of each row of bytes, bit by bit: code j is
    bits [j * bits, (j + 1) * bits) of the row, byte 0's bit 0 first."""
    rows = rows.reshape(rows.shape[0], -1)
    bitstream = np.unpackbits(rows, axis=1, bitorder="little")  # bit 0 of byte 0 first
    codes = bitstream[:, :count * bits].reshape(rows.shape[0], count, bits)
    return (codes.astype(np.int64) << np.arange(bits)).sum(-1)


def nbits_weight(B, scales, zero_points, K, N, bits, block):
    blocks = -(-K // block)
    codes = np.stack([unpack_bits(B[:, j, :], bits, block) for j in range(blocks)], 1)
    codes = codes.reshape(N, blocks * block)[:, :K]
    s = scales.reshape(N, blocks).astype(np.float64)
    if zero_points is None:
        z = np.full((N, blocks), 2.0 ** (bits - 1))
    elif zero_points.dtype == np.uint8:
        z = unpack_bits(zero_points.reshape(N, -1), bits, blocks).astype(np.float64)
    else:
        z = zero_points.reshape(N, blocks).astype(np.float64)
    group = np.arange(K) // block
    return (codes - z[:, group]) * s[:, group]


def quantize_nbits(w, bits, block, zeros="uint8", dtype=np.float32):
    """An (N, K) weight in MatMulNBits' form (asymmetric, round to nearest):
    B, scales, zero_points. The packing here is written independently of
    the reference's unpacking (byte arithmetic, not bit streams)."""
    n, k = w.shape
    blocks = -(-k // block)
    padded = np.zeros((n, blocks * block), np.float32)
    padded[:, :k] = w
    g = padded.reshape(n, blocks, block)
    top = (1 << bits) - 1
    lo, hi = np.minimum(g.min(-1), 0), np.maximum(g.max(-1), 0)
    scale = (np.maximum(hi - lo, 1e-6) / top).astype(dtype)
    zero = np.clip(np.round(-lo / scale.astype(np.float32)), 0, top)
    if zeros is None:  # the default zero 2^(bits - 1)
        zero = np.full_like(zero, 1 << (bits - 1))
    codes = np.clip(np.round(g / scale.astype(np.float32)[..., None]) + zero[..., None],
                    0, top).astype(np.uint8)
    per = 8 // bits
    B = np.zeros((n, blocks, block * bits // 8), np.uint8)
    for j in range(per):
        B |= codes[:, :, j::per] << (bits * j)
    if zeros is None:
        return B, scale.reshape(-1), None
    if zeros == "float":
        return B, scale, zero.astype(dtype)
    zrow = np.zeros((n, -(-blocks * bits // 8)), np.uint8)
    for b in range(blocks):
        zrow[:, b // per] |= zero[:, b].astype(np.uint8) << (bits * (b % per))
    return B, scale.reshape(-1), zrow.reshape(-1)


def nbits_model(M, K, N, bits, block, zeros="uint8", dtype=np.float32, bias=False,
                rank3=False, g_idx=None, name="mnb"):
    w = RNG.standard_normal((N, K)).astype(np.float32)
    B, scales, zp = quantize_nbits(w, bits, block, zeros, dtype)
    t = F16 if dtype == np.float16 else F32
    inits = [("B", B), ("scales", scales)]
    ins = ["A", "B", "scales", "", "", ""]  # zero_points, g_idx, bias optional
    if zp is not None:
        inits.append(("zp", zp))
        ins[3] = "zp"
    if g_idx is not None:
        inits.append(("g_idx", g_idx.astype(np.int32)))
        ins[4] = "g_idx"
    if bias:
        inits.append(("bias", RNG.standard_normal(N).astype(dtype)))
        ins[5] = "bias"
    while not ins[-1]:
        ins.pop()
    node = helper.make_node("MatMulNBits", ins, ["Y"], domain="com.microsoft", name=name,
                            K=K, N=N, bits=bits, block_size=block, accuracy_level=4)
    shape_a = [1, M, K] if rank3 else [M, K]
    shape_y = shape_a[:-1] + [N]
    model = model_of([node], [("A", t, shape_a)], [("Y", t, shape_y)], inits)
    arrays = dict(inits)
    W = nbits_weight(B, scales, zp, K, N, bits, block)
    return model, W, arrays.get("bias"), shape_a


def run_nbits(model, W, bias, shape_a, dtype=np.float32):
    m = ext.onnx.load(model)
    a = RNG.standard_normal(shape_a).astype(dtype)
    y, = m.run([a])
    a64 = a.astype(np.float64)
    ref = a64 @ W.T + (0 if bias is None else bias.astype(np.float64))
    bound = np.abs(a64) @ np.abs(W).T + (0 if bias is None else np.abs(bias))
    return m, y, ref, bound, a


def assert_close(y, ref, bound, eps):
    """|y - ref| within eps times the sum of the products' magnitudes
    (each product rounded once in the kernel's type, the sum's rounding)."""
    err = np.abs(y.astype(np.float64) - ref)
    assert y.shape == ref.shape
    assert (err <= eps * (bound + np.abs(ref)) + 1e-6).all(), \
        f"max error {err.max()}, max bound {(eps * bound).max()}"
    return err.max()


def assert_fused_reading_packed(m, packed_bytes, a, y):
    """One kernel: the GEMM with the dequantization inlined (no compute of
    its own, so W is never stored); it reads A and the packed arrays and
    stores Y, nothing else."""
    r = m.report()
    assert r.kernels == 1 and r.host_loops == [], str(r)
    k, = m.kernels
    assert any(name.endswith("_W") for name in k.inlined), m.summary()
    _, _, moved = r.rows[0]
    assert moved == a.nbytes + packed_bytes + y.nbytes, str(r)
    return moved


@pytest.mark.parametrize("M", [1, 5])
@pytest.mark.parametrize("block", [32, 128])
@pytest.mark.parametrize("zeros", ["uint8", None])
def test_matmul_nbits_int4_f32(M, block, zeros):
    """W4 (the ORT quantizer's default): packed uint8 zero points or none
    (zero 8), blocks of 32 and 128, one and five activation rows."""
    K, N = 256, 48
    model, W, bias, shape_a = nbits_model(M, K, N, 4, block, zeros)
    m, y, ref, bound, a = run_nbits(model, W, bias, shape_a)
    assert_close(y, ref, bound, 1e-6)
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    packed = sum(v.nbytes for v in inits.values())
    assert inits["B"].nbytes == N * K // 2
    moved = assert_fused_reading_packed(m, packed, a, y)
    # What the report counts: A, the N*K/2 code bytes, f32 scales, zeros, Y.
    blocks = K // block
    zp_bytes = N * blocks // 2 if zeros else 0
    assert moved == M * K * 4 + N * K // 2 + N * blocks * 4 + zp_bytes + M * N * 4


def test_matmul_nbits_rank3_bias_and_trivial_g_idx():
    """A as onnxruntime-genai writes it (batch, sequence, K), a bias (the
    GEMM's epilogue) and a g_idx that is k // block_size (accepted)."""
    K, N, block = 128, 32, 32
    model, W, bias, shape_a = nbits_model(5, K, N, 4, block, bias=True, rank3=True,
                                          g_idx=np.arange(K) // block)
    m, y, ref, bound, a = run_nbits(model, W, bias, shape_a)
    assert y.shape == (1, 5, N)
    assert_close(y, ref, bound, 1e-6)
    k, = m.kernels
    assert k.epilogue is not None and len(k.inlined) == 1, m.summary()


@pytest.mark.parametrize("bits,block", [(2, 32), (8, 32), (4, 16)])
def test_matmul_nbits_other_widths(bits, block):
    """2-bit (four codes a byte, zero points four a byte), 8-bit (a byte
    each, zero points unpacked bytes) and 16-wide blocks."""
    K, N = 128, 24
    model, W, bias, shape_a = nbits_model(5, K, N, bits, block)
    m, y, ref, bound, a = run_nbits(model, W, bias, shape_a)
    assert_close(y, ref, bound, 1e-6)
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    assert inits["B"].nbytes == N * K * bits // 8
    assert_fused_reading_packed(m, sum(v.nbytes for v in inits.values()), a, y)


def test_matmul_nbits_k_not_a_multiple_of_the_block():
    """K = 80 in blocks of 32: three blocks, the last padded in B."""
    K, N, block = 80, 16, 32
    model, W, bias, shape_a = nbits_model(5, K, N, 4, block)
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    assert inits["B"].shape == (N, 3, 16)
    m, y, ref, bound, a = run_nbits(model, W, bias, shape_a)
    assert_close(y, ref, bound, 1e-6)
    assert m.report().kernels == 1


@pytest.mark.parametrize("zeros", ["float", "uint8"])
def test_matmul_nbits_f16(zeros):
    """f16 A, scales and zero points of A's type (unpacked) or packed: W in
    f16 ((code - zero) exact, one rounding by the scale), sums in f32, Y
    rounded to f16."""
    K, N, block = 256, 32, 32
    model, W, bias, shape_a = nbits_model(5, K, N, 4, block, zeros, dtype=np.float16,
                                          bias=True)
    m, y, ref, bound, a = run_nbits(model, W, bias, shape_a, np.float16)
    assert y.dtype == np.float16
    assert_close(y, ref, bound, 2.0 ** -10)
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    assert_fused_reading_packed(m, sum(v.nbytes for v in inits.values()), a, y)


def test_matmul_nbits_decoder_mlp_one_row():
    """Two MatMulNBits layers with a Relu between, M = 1 (decode): two
    kernels, each dequantizing its own weight inline."""
    K, H, N, block = 128, 64, 32, 32
    w1 = RNG.standard_normal((H, K)).astype(np.float32)
    w2 = RNG.standard_normal((N, H)).astype(np.float32)
    B1, s1, z1 = quantize_nbits(w1, 4, block)
    B2, s2, z2 = quantize_nbits(w2, 4, block, zeros=None)
    nodes = [
        helper.make_node("MatMulNBits", ["x", "B1", "s1", "z1"], ["h"], domain="com.microsoft",
                         name="fc1", K=K, N=H, bits=4, block_size=block),
        helper.make_node("Relu", ["h"], ["r"], name="relu"),
        helper.make_node("MatMulNBits", ["r", "B2", "s2"], ["y"], domain="com.microsoft",
                         name="fc2", K=H, N=N, bits=4, block_size=block),
    ]
    inits = [("B1", B1), ("s1", s1), ("z1", z1), ("B2", B2), ("s2", s2)]
    model = model_of(nodes, [("x", F32, [1, K])], [("y", F32, [1, N])], inits)
    m = ext.onnx.load(model)
    x = RNG.standard_normal((1, K)).astype(np.float32)
    y, = m.run([x])
    W1 = nbits_weight(B1, s1, z1, K, H, 4, block)
    W2 = nbits_weight(B2, s2, None, H, N, 4, block)
    h = np.maximum(x.astype(np.float64) @ W1.T, 0)
    ref = h @ W2.T
    assert_close(y, ref, np.abs(h) @ np.abs(W2).T, 1e-5)
    r = m.report()
    assert r.kernels == 2 and r.host_loops == [], str(r)
    assert [k.inlined for k in m.kernels] == [["fc1_W"], ["fc2_W"]], m.summary()
    assert m.kernels[0].epilogue is not None  # the Relu
    first, second = (b for _, _, b in r.rows)
    assert first == x.nbytes + B1.nbytes + s1.nbytes + z1.nbytes + H * 4
    assert second == H * 4 + B2.nbytes + s2.nbytes + y.nbytes


def test_matmul_nbits_saved_and_loaded_by_path(tmp_path):
    model, W, bias, shape_a = nbits_model(5, 128, 16, 4, 32)
    path = tmp_path / "mnb.onnx"
    onnx.save(model, str(path))
    m = ext.onnx.load(str(path))
    a = RNG.standard_normal(shape_a).astype(np.float32)
    y, = m.run({"A": a})
    assert_close(y, a.astype(np.float64) @ W.T, np.abs(a) @ np.abs(W).T, 1e-6)
    assert "com.microsoft.MatMulNBits" in ext.onnx.supported_ops()


# ---------------------------------------------------------------------------
# Refusals, each naming the node


def nbits_with(**attrs):
    """A small MatMulNBits model (node 'mnb') with attributes changed."""
    model, _, _, _ = nbits_model(5, 128, 16, 4, 32)
    for a in model.graph.node[0].attribute:
        if a.name in attrs:
            a.i = attrs[a.name]
    return model


def test_matmul_nbits_bits_3_is_refused_naming_the_node():
    with pytest.raises(ext.onnx.UnsupportedOpError,
                       match=r"MatMulNBits node 'mnb': bits=3: ext.onnx maps 2-, 4- and 8-bit"):
        ext.onnx.load(nbits_with(bits=3))


def test_matmul_nbits_act_order_g_idx_is_refused_naming_the_node():
    K, block = 128, 32
    perm = RNG.permutation(K)
    model, _, _, _ = nbits_model(5, K, 16, 4, block, g_idx=(np.arange(K) // block)[perm])
    with pytest.raises(ext.onnx.UnsupportedOpError,
                       match=r"MatMulNBits node 'mnb': g_idx is not k // block_size"):
        ext.onnx.load(model)


def test_matmul_nbits_malformed():
    with pytest.raises(ext.onnx.OnnxImportError,
                       match=r"MatMulNBits node 'mnb': block_size=24: the spec asks for a "
                             r"power of two"):
        ext.onnx.load(nbits_with(block_size=24))
    model = nbits_with()
    del model.graph.node[0].input[2:]
    with pytest.raises(ext.onnx.InvalidModelError,
                       match=r"MatMulNBits node 'mnb' has 2 inputs; .*MatMulNBits takes 3 to 6"):
        ext.onnx.load(model)
    model = nbits_with()
    model.graph.initializer[0].CopyFrom(numpy_helper.from_array(
        np.zeros((16, 4, 8), np.uint8), "B"))
    with pytest.raises(ext.onnx.OnnxImportError, match=r"B 'B' has shape \[16, 4, 8\]"):
        ext.onnx.load(model)


# ---------------------------------------------------------------------------
# DequantizeLinear: y = (x - x_zero_point) * x_scale, per tensor, per axis
# or (opset 21) per block along axis.


def dequantize_linear(x, scale, zero=None, axis=1, block=0):
    x = x.astype(np.float64)
    s = np.asarray(scale, np.float64)
    z = np.zeros_like(s) if zero is None else np.asarray(zero, np.float64)
    if s.size == 1:
        return (x - z.reshape(())) * s.reshape(())
    shape = [1] * x.ndim
    if block == 0:
        shape[axis] = -1
        return (x - z.reshape(shape)) * s.reshape(shape)
    s, z = np.repeat(s, block, axis), np.repeat(z, block, axis)
    sl = tuple(slice(0, d) for d in x.shape)
    return (x - z[sl]) * s[sl]


def run_dequantized(nodes, inits, M, K, N, W, opset, bias=0.0):
    """The model x (M, K) -> y (M, N) run on random x, checked against
    x @ W + bias (W the reference's (K, N) weight); returns (m, x, y)."""
    model = model_of(nodes, [("x", F32, [M, K])], [("y", F32, [M, N])], inits, opset=opset)
    m = ext.onnx.load(model)
    x = RNG.standard_normal((M, K)).astype(np.float32)
    y, = m.run([x])
    assert_close(y, x.astype(np.float64) @ W + bias, np.abs(x) @ np.abs(W), 1e-6)
    return m, x, y


def test_dequantize_linear_per_axis_int8_matmul():
    """W8A16's pattern as ORT's quantizer and torch export it: an int8
    weight (K, N) with a scale and zero per output column (axis 1), read by
    MatMul: one kernel reading the int8 bytes."""
    M, K, N = 5, 64, 48
    wq = RNG.integers(-128, 128, (K, N), dtype=np.int8)
    scale = (RNG.random(N) * 0.02 + 0.001).astype(np.float32)
    zero = RNG.integers(-10, 10, N, dtype=np.int8)
    nodes = [helper.make_node("DequantizeLinear", ["wq", "scale", "zero"], ["w"], name="dq",
                              axis=1),
             helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")]
    m, x, y = run_dequantized(nodes, [("wq", wq), ("scale", scale), ("zero", zero)], M, K, N,
                              dequantize_linear(wq, scale, zero, axis=1), 13)
    r = m.report()
    assert r.kernels == 1 and m.kernels[0].inlined == ["dq"], m.summary()
    assert r.bytes_moved == x.nbytes + wq.nbytes + scale.nbytes + zero.nbytes + y.nbytes


def test_dequantize_linear_per_tensor_uint8_gemm_trans_b():
    """A uint8 (N, K) weight with one scale and zero, Gemm(transB=1) + bias:
    the scale and zero written into the kernel as constants."""
    M, K, N = 5, 32, 16
    wq = RNG.integers(0, 256, (N, K), dtype=np.uint8)
    c = RNG.standard_normal(N).astype(np.float32)
    nodes = [helper.make_node("DequantizeLinear", ["wq", "scale", "zero"], ["w"], name="dq"),
             helper.make_node("Gemm", ["x", "w", "c"], ["y"], name="gemm", transB=1)]
    inits = [("wq", wq), ("scale", np.array(0.0125, np.float32)),
             ("zero", np.array(131, np.uint8)), ("c", c)]
    m, x, y = run_dequantized(nodes, inits, M, K, N, dequantize_linear(wq, 0.0125, 131).T,
                              13, bias=c)
    r = m.report()
    assert r.kernels == 1 and m.kernels[0].inlined == ["dq"], m.summary()
    assert r.bytes_moved == x.nbytes + wq.nbytes + c.nbytes + y.nbytes


def test_dequantize_linear_through_a_transpose():
    """DequantizeLinear -> Transpose -> MatMul: both inlined."""
    M, K, N = 5, 32, 16
    wq = RNG.integers(-128, 128, (N, K), dtype=np.int8)
    scale = (RNG.random(N) * 0.02 + 0.001).astype(np.float32)
    nodes = [helper.make_node("DequantizeLinear", ["wq", "scale"], ["w"], name="dq", axis=0),
             helper.make_node("Transpose", ["w"], ["wt"], name="t"),
             helper.make_node("MatMul", ["x", "wt"], ["y"], name="mm")]
    m, x, y = run_dequantized(nodes, [("wq", wq), ("scale", scale)], M, K, N,
                              dequantize_linear(wq, scale, axis=0).T, 13)
    r = m.report()
    assert r.kernels == 1 and m.kernels[0].inlined == ["t", "dq"], m.summary()
    assert r.bytes_moved == x.nbytes + wq.nbytes + scale.nbytes + y.nbytes


@pytest.mark.parametrize("block", [32, 64])
def test_dequantize_linear_blocked_opset21(block):
    """Opset 21's block-wise form (onnx 1.12 writes the attribute; it has no
    INT4 type, so the codes are int8): scales (K / block, N) along axis 0,
    read at k // block inside the GEMM."""
    M, K, N = 5, 128, 32
    wq = RNG.integers(-8, 8, (K, N), dtype=np.int8)
    scale = (RNG.random((K // block, N)) * 0.1 + 0.01).astype(np.float32)
    zero = RNG.integers(-2, 3, (K // block, N), dtype=np.int8)
    nodes = [helper.make_node("DequantizeLinear", ["wq", "scale", "zero"], ["w"], name="dq",
                              axis=0, block_size=block),
             helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")]
    m, x, y = run_dequantized(nodes, [("wq", wq), ("scale", scale), ("zero", zero)], M, K, N,
                              dequantize_linear(wq, scale, zero, axis=0, block=block), 21)
    r = m.report()
    assert r.kernels == 1 and m.kernels[0].inlined == ["dq"], m.summary()
    assert r.bytes_moved == x.nbytes + wq.nbytes + scale.nbytes + zero.nbytes + y.nbytes


def test_dequantize_linear_blocks_the_tiles_do_not_divide_run_apart():
    """Blocks of 24 along K, which the GEMM's k tile of 16 neither divides
    nor stays inside: the dequantization is not inlined (its reads would not
    tile); it runs before the GEMM, as host loops (its own 16 x 16 tiles do
    not divide k // 24 either), and the result is right."""
    M, K, N, block = 5, 48, 16, 24
    wq = RNG.integers(-128, 128, (K, N), dtype=np.int8)
    scale = (RNG.random((K // block, N)) * 0.02 + 0.001).astype(np.float32)
    nodes = [helper.make_node("DequantizeLinear", ["wq", "scale"], ["w"], name="dq",
                              axis=0, block_size=block),
             helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")]
    m, _, _ = run_dequantized(nodes, [("wq", wq), ("scale", scale)], M, K, N,
                              dequantize_linear(wq, scale, axis=0, block=block), 21)
    assert [k.anchor for k in m.kernels] == ["dq", "mm"], m.summary()
    assert m.kernels[1].inlined == [] and m.report().host_loops == ["dq"]


def test_dequantize_linear_refusals_name_the_node():
    nodes = [helper.make_node("DequantizeLinear", ["wq", "scale"], ["w"], name="dq"),
             helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")]
    wq = RNG.integers(-128, 128, (8, 4), dtype=np.int8)
    bad_scale = np.ones(3, np.float32)  # per axis 1 needs 4
    model = model_of(nodes, [("x", F32, [2, 8])], [("y", F32, [2, 4])],
                     [("wq", wq), ("scale", bad_scale)], opset=13)
    with pytest.raises(ext.onnx.OnnxImportError,
                       match=r"DequantizeLinear node 'dq': x_scale 'scale' has shape \[3\]"):
        ext.onnx.load(model)
    fq = RNG.standard_normal((8, 4)).astype(np.float32)
    model = model_of(nodes, [("x", F32, [2, 8])], [("y", F32, [2, 4])],
                     [("wq", fq), ("scale", np.ones(4, np.float32))], opset=13)
    with pytest.raises(ext.onnx.UnsupportedOpError,
                       match=r"DequantizeLinear node 'dq': x 'wq' is float32"):
        ext.onnx.load(model)
