"""An ONNX model through ext: a two-layer MLP built with onnx.helper, saved,
loaded by `ext.onnx.load` (each GEMM a kernel with its bias and activation
as the epilogue) and run on ext's CPU emulator against numpy.

    PYTHONPATH=build/python_packages /usr/bin/python3 examples/python/onnx_mlp.py
"""
import os
import tempfile
import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import ext

B, D, H, O = 16, 64, 96, 10
rng = np.random.default_rng(0)
w1 = (rng.standard_normal((D, H)) * 0.1).astype(np.float32)
b1 = rng.standard_normal(H).astype(np.float32)
w2 = (rng.standard_normal((H, O)) * 0.1).astype(np.float32)
b2 = rng.standard_normal(O).astype(np.float32)

graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w1"], ["h0"], name="fc1"),
     helper.make_node("Add", ["h0", "b1"], ["h1"], name="fc1_bias"),
     helper.make_node("Relu", ["h1"], ["h"], name="relu"),
     helper.make_node("Gemm", ["h", "w2", "b2"], ["y"], name="fc2")],
    "mlp",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [B, D])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [B, O])],
    initializer=[numpy_helper.from_array(a, n) for n, a in
                 (("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2))])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "mlp.onnx")
    onnx.save(model, path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ext.ExtRemark)
        m = ext.onnx.load(path)

print(m.summary())
x = rng.standard_normal((B, D)).astype(np.float32)
y, = m.run({"x": x})
ref = np.maximum(x @ w1 + b1, 0) @ w2 + b2
error = float(np.abs(y - ref).max())
print(f"kernels: {len(m.kernels)}, max error: {error:.2e}")
np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)
print("onnx mlp matches numpy")
