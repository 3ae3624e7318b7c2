"""Schedules worth running in the importers (issue 55 item 4,
onnx_tuning.py): GEMMs of f16 inputs accumulate in f32 and run on the
chip's tensor cores (the tuner's model pick) by default; `tune=` a database
runs ext.tune for every GEMM and keeps its picks; `report()` says which
schedule each kernel runs with, and takes the sizes of symbolic dims."""

import json
import warnings

import numpy as np
import pytest

import ext

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

N = helper.make_node
RNG = np.random.default_rng(3)


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ext.ExtWarning)
        yield


def mlp_model(dtype, rows=32, batch_name=None):
    """x @ W1 + b1, Relu, @ W2 (MatMul, Add, Relu, MatMul)."""
    np_t = np.float16 if dtype == TensorProto.FLOAT16 else np.float32
    w1 = (RNG.standard_normal((64, 128)) * 0.1).astype(np_t)
    b1 = RNG.standard_normal(128).astype(np_t)
    w2 = (RNG.standard_normal((128, 48)) * 0.1).astype(np_t)
    nodes = [N("MatMul", ["x", "w1"], ["h"], name="fc1"), N("Add", ["h", "b1"], ["hb"], name="bias"),
             N("Relu", ["hb"], ["r"], name="relu"), N("MatMul", ["r", "w2"], ["y"], name="fc2")]
    rows = batch_name or rows
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", dtype, [rows, 64])],
        [helper.make_tensor_value_info("y", dtype, [rows, 48])],
        initializer=[numpy_helper.from_array(a, n) for n, a in
                     (("w1", w1), ("b1", b1), ("w2", w2))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return model.SerializeToString(), (w1, b1, w2)


def reference(x, w1, b1, w2, dtype):
    """f32 sums, the hidden layer rounded to `dtype` as the kernels store it."""
    h = np.maximum(x.astype(np.float32) @ w1.astype(np.float32) + b1.astype(np.float32), 0)
    return h.astype(dtype).astype(np.float32) @ w2.astype(np.float32)


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_f16_gemms_run_on_tensor_cores_by_default(chip):
    data, (w1, b1, w2) = mlp_model(TensorProto.FLOAT16)
    m = ext.onnx.load(data, chip=chip)
    x = RNG.standard_normal((32, 64)).astype(np.float16)
    y, = m.run({"x": x})
    assert y.dtype == np.float16
    want = reference(x, w1, b1, w2, np.float16)
    # f16 output: half an ulp of 2^-10 relative, plus the f32 sums' order.
    assert float(np.max(np.abs(y - want))) <= 2 ** -10 * float(np.max(np.abs(want))) + 1e-3
    gemms = [k for k in m.kernels if k.anchor in ("fc1", "fc2")]
    assert len(gemms) == 2 and all("mma = " in k.describe() for k in gemms), m.summary()
    assert sorted(m.report().tuned) == ["fc1", "fc2"]
    assert "tensor cores" in str(m.report())
    # (The f32 sums are cast back to f16 in the epilogue: fc2's is the cast.)
    assert gemms[1].epilogue == "fc2_cast", m.summary()


def test_f32_gemms_keep_the_default_schedule_unless_tuned(tmp_path):
    data, (w1, b1, w2) = mlp_model(TensorProto.FLOAT)
    plain = ext.onnx.load(data)
    assert plain.report().tuned == [] and all(k.tuning == "" for k in plain.kernels)
    db = tmp_path / "tuning.json"
    tuned = ext.onnx.load(data, tune=str(db))
    assert sorted(tuned.report().tuned) == ["fc1", "fc2"], tuned.summary()
    assert all(k.tuning == "tuned" for k in tuned.kernels)
    x = RNG.standard_normal((32, 64)).astype(np.float32)
    y, = tuned.run({"x": x})
    np.testing.assert_allclose(y, reference(x, w1, b1, w2, np.float32), rtol=1e-4, atol=1e-5)
    entries = json.loads(db.read_text())
    assert len(entries) >= 2
    # The next load takes the picks from the database: the same schedules.
    again = ext.onnx.load(data, tune=str(db))
    assert [k.schedule.text() for k in again.kernels] == [k.schedule.text()
                                                          for k in tuned.kernels]


def test_torch_front_end_tunes_too(tmp_path):
    torch = pytest.importorskip("torch")
    import torch_onnx_models as models
    module, x = models.mlp()
    f = ext.torch.compile(module, (x,), tune=str(tmp_path / "db.json"))
    with torch.no_grad():
        want = module(x)
    assert float((f(x) - want).abs().max()) <= 1e-4 * float(want.abs().max())
    assert [k.tuning for k in f.kernels] == ["tuned", "tuned"], f.summary()


def test_report_of_a_symbolic_batch_takes_its_size():
    data, _ = mlp_model(TensorProto.FLOAT, batch_name="batch")
    m = ext.onnx.load(data)
    with pytest.raises(ValueError, match=r"report\(sizes=\{'batch': n\}\)"):
        m.report()
    f32 = 4
    one, seven = m.report(sizes={"batch": 1}), m.report(sizes={"batch": 7})
    # Each extra row: x and the hidden layer read and stored once more, y stored.
    per_row = (64 + 128 + 128 + 48) * f32
    assert seven.bytes_moved - one.bytes_moved == 6 * per_row
