"""Low-bit weights written as a TE user writes them (issue 54, item 1):
unsigned bytes holding packed int4/int2, int8, NF4 codes through a lookup
table and FP8 bits through a bit cast, dequantized with shifts and masks,
scaled per group through `k // 128` accesses, times f16 activations, run on
the CPU without a schedule against numpy; the numpy FP8/FP4 conversions; and
the mistakes, refused with messages at the line that made them."""

import warnings

import numpy as np
import pytest

import ext

M, N, K, G = 3, 16, 256, 128

# NF4 (QLoRA): the 16 quantiles of a normal distribution, scaled to [-1, 1].
NF4 = [-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
       -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
       0.07958029955625534, 0.16093020141124725, 0.24611230194568634,
       0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
       0.7229568362236328, 1.0]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ext.ExtRemark)
        yield


def _pack(q, bits):
    """Unsigned codes q [N, K] packed 8 // bits per byte, lowest first."""
    per = 8 // bits
    out = np.zeros((q.shape[0], q.shape[1] // per), np.uint8)
    for j in range(per):
        out |= (q[:, j::per].astype(np.uint8) << (bits * j)).astype(np.uint8)
    return out


def _gemm(dequant, weights, rng):
    """C[m, n] = sum_k A[m, k] * dequant(n, k), built and run with the
    arrays `weights` names; returns (C, A) for the caller's reference."""
    A = ext.placeholder((M, K), "float16", name="A")
    k = ext.reduce_axis(K, name="k")
    C = ext.compute((M, N), lambda m, n: ext.sum(A[m, k] * dequant(n, k), axis=k), name="C")
    arrays = dict(weights, A=rng.standard_normal((M, K)).astype(np.float16))
    kernel = ext.build(C)
    return kernel.run(*(arrays[t.name] for t in kernel.inputs)), arrays["A"]


def _check(c, a, w):
    ref = a.astype(np.float32) @ w.astype(np.float32).T
    # f16 products summed in f16 over K = 256: an error of a few f16 steps
    # of the largest sums.
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=0,
                               atol=2e-2 * np.abs(ref).max())


@pytest.mark.parametrize("bits", [4, 2])
def test_packed_intN_with_group_scales_and_zeros(bits):
    rng = np.random.default_rng(bits)
    per, mask = 8 // bits, (1 << bits) - 1
    Wq = ext.placeholder((N, K // per), "uint8", name="Wq")
    S = ext.placeholder((N, K // G), "float16", name="S")
    Z = ext.placeholder((N, K // G), "float16", name="Z")

    def w(n, k):
        q = (Wq[n, k // per] >> (bits * (k % per))) & mask
        return (q.astype("float16") - Z[n, k // G]) * S[n, k // G]

    q = rng.integers(0, 1 << bits, (N, K))
    s = (rng.random((N, K // G)) * 0.1 + 0.01).astype(np.float16)
    z = rng.integers(0, 1 << bits, (N, K // G)).astype(np.float16)
    c, a = _gemm(w, {"Wq": _pack(q, bits), "S": s, "Z": z}, rng)
    deq = (q.astype(np.float16) - np.repeat(z, G, 1)) * np.repeat(s, G, 1)
    _check(c, a, deq)


def test_signed_int4_by_sign_extension():
    # Two's complement nibbles: cast to int4 sign-extends when widened.
    rng = np.random.default_rng(7)
    Wq = ext.placeholder((N, K // 2), "uint8", name="Wq")
    S = ext.placeholder((N, K // G), "float16", name="S")

    def w(n, k):
        nibble = Wq[n, k // 2] >> (4 * (k % 2))
        return nibble.astype("int4").astype("float16") * S[n, k // G]

    q = rng.integers(-8, 8, (N, K))
    s = (rng.random((N, K // G)) * 0.1 + 0.01).astype(np.float16)
    c, a = _gemm(w, {"Wq": _pack(q & 15, 4), "S": s}, rng)
    _check(c, a, q.astype(np.float16) * np.repeat(s, G, 1))


def test_int8_per_channel():
    rng = np.random.default_rng(8)
    W8 = ext.placeholder((N, K), "int8", name="W8")
    S = ext.placeholder((N,), "float16", name="S")
    w8 = rng.integers(-128, 128, (N, K)).astype(np.int8)
    s = (rng.random(N) * 0.01 + 0.001).astype(np.float16)
    c, a = _gemm(lambda n, k: W8[n, k].astype("float16") * S[n], {"W8": w8, "S": s}, rng)
    _check(c, a, w8.astype(np.float16) * s[:, None])


def test_nf4_through_a_lookup_table():
    rng = np.random.default_rng(4)
    Wq = ext.placeholder((N, K // 2), "uint8", name="Wq")
    S = ext.placeholder((N, K // G), "float16", name="S")

    def w(n, k):
        code = (Wq[n, k // 2] >> (4 * (k % 2))) & 15
        return ext.lut(NF4, code, "float16") * S[n, k // G]

    q = rng.integers(0, 16, (N, K))
    s = (rng.random((N, K // G)) + 0.5).astype(np.float16)
    c, a = _gemm(w, {"Wq": _pack(q, 4), "S": s}, rng)
    _check(c, a, np.array(NF4, np.float16)[q] * np.repeat(s, G, 1))


@pytest.mark.parametrize("fmt", ["f8E4M3FN", "f8E5M2"])
def test_fp8_bits_through_a_bit_cast(fmt):
    rng = np.random.default_rng(5)
    W8 = ext.placeholder((N, K), "uint8", name="W8")
    S = ext.placeholder((N, K // G), "float16", name="S")
    w = rng.standard_normal((N, K)).astype(np.float32) * 4
    bits = ext.to_f8_bits(w, fmt)
    s = (rng.random((N, K // G)) + 0.5).astype(np.float16)
    c, a = _gemm(lambda n, k: ext.reinterpret(W8[n, k], fmt).astype("float16") * S[n, k // G],
                 {"W8": bits, "S": s}, rng)
    _check(c, a, ext.from_f8_bits(bits, fmt).astype(np.float16) * np.repeat(s, G, 1))


def test_f16_from_uint16_bits_and_back():
    U = ext.placeholder((64,), "uint16", name="U")
    h = np.random.default_rng(6).standard_normal(64).astype(np.float16)
    out = ext.build(ext.compute((64,), lambda i: ext.reinterpret(U[i], "float16") * 2.0,
                                name="H")).run(h.view(np.uint16))
    np.testing.assert_array_equal(out, h * np.float16(2))
    F = ext.placeholder((64,), "float16", name="F")
    bits = ext.build(ext.compute((64,), lambda i: ext.reinterpret(F[i], "uint16") ^ 0x8000,
                                 name="B")).run(h)
    np.testing.assert_array_equal(bits.view(np.float16), -h)


def test_unsigned_operations_and_fp8_tensors():
    # >> is logical, // and % unsigned, comparisons unsigned for uint8.
    X = ext.placeholder((256,), "uint8", name="X")
    x = np.arange(256, dtype=np.uint8)
    y = ext.build(ext.compute((256,), lambda i: ext.if_then_else(
        X[i] > 127, (X[i] >> 1) // 3, (X[i] << 1) % 7 | ~X[i] & 1), name="Y")).run(x)
    want = np.where(x > 127, (x >> 1) // 3, ((x << 1).astype(np.uint8) % 7) | (~x & 1))
    np.testing.assert_array_equal(y, want.astype(np.uint8))
    # f8 tensors: float32 in (rounded, saturating), float32 out.
    E = ext.placeholder((8,), "f8E4M3FN", name="E")
    e = np.array([0.0, 1.0, -2.5, 448.0, 1e4, 0.001, -0.3, 17.0], np.float32)
    twice = ext.build(ext.compute((8,), lambda i: (E[i].astype("float32") * 2.0).astype(
        "f8E5M2"), name="T")).run(e)
    fp8 = ext.from_f8_bits(ext.to_f8_bits(e), "f8E4M3FN") * 2
    np.testing.assert_array_equal(twice, ext.from_f8_bits(ext.to_f8_bits(fp8, "f8E5M2",
                                                                         saturate=False),
                                                          "f8E5M2"))


def test_int4_and_int2_tensors_are_int8_values():
    T = ext.placeholder((8,), "int4", name="T")
    out = ext.build(ext.compute((8,), lambda i: T[i] * 2, name="D")).run(
        np.array([-8, -3, -1, 0, 1, 2, 3, 7], np.int8))
    np.testing.assert_array_equal(out, [0, -6, -2, 0, 2, 4, 6, -2])  # wraps in 4 bits
    assert out.dtype == np.int8
    T2 = ext.placeholder((4,), "int2", name="T2")
    k = ext.build(ext.compute((4,), lambda i: T2[i].astype("int32"), name="W"))
    np.testing.assert_array_equal(k.run(np.array([-2, -1, 0, 1], np.int8)), [-2, -1, 0, 1])
    with pytest.raises(ValueError, match=r"input 'T2' is i2: its values must lie in \[-2, 1\]"):
        k.run(np.array([0, 2, 0, 0], np.int8))


# -- numpy's FP8 / FP4 conversions -------------------------------------------

def test_e4m3fn_round_trip_and_its_rules():
    codes = np.arange(256, dtype=np.uint8)
    values = ext.from_f8_bits(codes, "f8E4M3FN")
    assert np.isnan(values[[0x7F, 0xFF]]).all() and np.isfinite(np.delete(values, [0x7F, 0xFF])).all()
    assert values[0x7E] == 448 and values[0x01] == 2.0 ** -9 and values[0x38] == 1.0
    finite = np.isfinite(values)
    assert np.array_equal(ext.to_f8_bits(values[finite]), codes[finite])  # exact both ways
    # No inf: past 448 saturates (the default) or is NaN (IEEE rounding).
    big = np.array([449.0, 464.0, 465.0, 1e9, np.inf, -np.inf], np.float32)
    assert list(ext.to_f8_bits(big)) == [0x7E] * 5 + [0xFE]
    assert list(ext.to_f8_bits(big, saturate=False)) == [0x7E, 0x7E, 0x7F, 0x7F, 0x7F, 0xFF]
    assert ext.to_f8_bits(np.array([np.nan]))[0] == 0x7F
    # Ties go to the even code: 1 + 1/16 sits between 1 and 1.125.
    assert list(ext.to_f8_bits(np.array([1.0625, 1.1875, 2.0 ** -10, 3 * 2.0 ** -10]))) == \
        [0x38, 0x3A, 0x00, 0x02]


def test_e5m2_round_trip_and_its_rules():
    codes = np.arange(256, dtype=np.uint8)
    values = ext.from_f8_bits(codes, "f8E5M2")
    assert values[0x7C] == np.inf and values[0xFC] == -np.inf
    assert np.isnan(values[[0x7D, 0x7E, 0x7F]]).all()
    assert values[0x7B] == 57344 and values[0x01] == 2.0 ** -16
    finite = np.isfinite(values)
    assert np.array_equal(ext.to_f8_bits(values[finite], "f8E5M2"), codes[finite])
    big = np.array([60000.0, 61440.0, np.inf], np.float32)
    assert list(ext.to_f8_bits(big, "f8E5M2")) == [0x7B] * 3
    assert list(ext.to_f8_bits(big, "f8E5M2", saturate=False)) == [0x7B, 0x7C, 0x7C]


def test_f4e2m1_values():
    values = ext.from_f8_bits(np.arange(16, dtype=np.uint8), "f4E2M1FN")
    assert list(values[:8]) == [0, 0.5, 1, 1.5, 2, 3, 4, 6]
    assert list(ext.to_f8_bits(np.array([7.0, -0.3, 2.5]), "f4E2M1FN")) == [0x7, 0x9, 0x4]
    with pytest.raises(ValueError, match="has no NaN"):
        ext.to_f8_bits(np.array([np.nan]), "f4E2M1FN")


# -- mistakes ------------------------------------------------------------------

def test_shift_of_a_float_is_refused_at_its_line():
    A = ext.placeholder((8,), "float16", name="A")
    with pytest.raises(TypeError, match=r"test_lowbit_expressions.py:\d+: '>>' on f16; "
                                        r"shifts need integers"):
        A[0] >> 2
    with pytest.raises(TypeError, match=r"'&' on f16; it needs booleans or integers"):
        A[0] & 1


def test_other_misuses_have_messages():
    Q = ext.placeholder((8,), "uint8", name="Q")
    E = ext.placeholder((8,), "f8E4M3FN", name="E")
    with pytest.raises(ValueError, match=r"'>>' by 8: a ui8 shifts by 0 to 7"):
        Q[0] >> 8
    with pytest.raises(TypeError, match=r"reinterpret of ui8 as f16: the types must have "
                                        r"the same width \(8 and 16 bits\)"):
        ext.reinterpret(Q[0], "float16")
    with pytest.raises(TypeError, match=r"'add' on f8E4M3FN: the f8/f4 formats have no "
                                        r"arithmetic"):
        E[0] + E[1]
    with pytest.raises(TypeError, match="ext.lut takes a sequence of 1 to 256 numbers"):
        ext.lut([], Q[0])
    with pytest.raises(TypeError, match="the index of ext.lut is f32"):
        ext.lut([1.0, 2.0], ext.const(1.0))
    with pytest.raises(ValueError, match=r"unknown dtype 'uint3'"):
        ext.placeholder((8,), "uint3")
    # A packed tensor too small for its access, and a division by an axis.
    k = ext.reduce_axis(16, name="k")
    with pytest.raises(ValueError, match=r"index #0 ranges over \[4, 11\] but Q has extent 8"):
        ext.compute((1,), lambda i: ext.sum(Q[k // 2 + 4].astype("int32"), axis=k))
    with pytest.raises(ValueError, match="divides by something other than a positive constant"):
        ext.compute((8,), lambda i: Q[i // (i + 1)])


def test_a_uint8_tensor_takes_uint8_arrays():
    Q = ext.placeholder((4,), "uint8", name="Q")
    kernel = ext.build(ext.compute((4,), lambda i: Q[i] >> 4, name="H"))
    np.testing.assert_array_equal(kernel.run(np.array([0x10, 0xF0, 0x0F, 0xFF], np.uint8)),
                                  [1, 15, 0, 15])
    with pytest.raises(ValueError, match=r"has dtype int8, the placeholder ui8 \(uint8\)"):
        kernel.run(np.zeros(4, np.int8))
