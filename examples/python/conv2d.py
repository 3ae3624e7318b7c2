"""A direct conv2d (NCHW, stride 1, no padding): the input is read through an
affine access X[n, c, y + ry, x + rx] with three reduce axes."""
import numpy as np

import ext

N, C, H, W, F, KH, KW = 2, 8, 18, 18, 16, 3, 3
OH, OW = H - KH + 1, W - KW + 1
X = ext.placeholder((N, C, H, W), "float32", name="X")
Wt = ext.placeholder((F, C, KH, KW), "float32", name="W")
rc, ry, rx = ext.reduce_axis(C, "rc"), ext.reduce_axis(KH, "ry"), ext.reduce_axis(KW, "rx")
Y = ext.compute((N, F, OH, OW), lambda n, f, y, x: ext.sum(
    X[n, rc, y + ry, x + rx] * Wt[f, rc, ry, rx], axis=[rc, ry, rx]), name="Y")

s = ext.schedule(Y, tile=(1, 4, 8, 8, 4, KH, KW), threads=(1, 4, 8, 8, 1, 1, 1))
kernel = ext.build(s, target="nvvm", chip="sm_80")
print(kernel.report())

rng = np.random.default_rng(0)
x = rng.standard_normal((N, C, H, W)).astype(np.float32)
w = rng.standard_normal((F, C, KH, KW)).astype(np.float32)
ref = np.zeros((N, F, OH, OW), np.float32)
for dy in range(KH):
    for dx in range(KW):
        ref += np.einsum("nchw,fc->nfhw", x[:, :, dy:dy + OH, dx:dx + OW], w[:, :, dy, dx])
np.testing.assert_allclose(kernel.run(x, w), ref, rtol=1e-4, atol=1e-4)
print("conv2d matches numpy")
