"""A direct conv2d (NCHW, stride 1, "same" padding): the input is read
through an affine access X[n, c, y + ry - 1, x + rx - 1] with three reduce
axes. The padding is `ext.pad`, a compute that reads X only inside it
(if_then_else); inlined into the convolution (compute_inline) it becomes a
guarded read: one kernel, no padded copy of X in memory, and the cached
tile's copy zero-fills the halo outside the image."""
import numpy as np

import ext

N, C, H, W, F, KH, KW = 2, 8, 18, 18, 16, 3, 3
X = ext.placeholder((N, C, H, W), "float32", name="X")
Wt = ext.placeholder((F, C, KH, KW), "float32", name="W")
Xp = ext.pad(X, (0, 0, 1, 1))
rc, ry, rx = ext.reduce_axis(C, "rc"), ext.reduce_axis(KH, "ry"), ext.reduce_axis(KW, "rx")
Y = ext.compute((N, F, H, W), lambda n, f, y, x: ext.sum(
    Xp[n, rc, y + ry, x + rx] * Wt[f, rc, ry, rx], axis=[rc, ry, rx]), name="Y")

s = ext.schedule(Y, tile=(1, 4, 8, 8, 4, KH, KW), threads=(1, 4, 8, 8, 1, 1, 1),
                 cache=[Xp]).compute_inline(Xp)
kernel = ext.build(s, target="nvvm", chip="sm_80")
print(kernel.report())
print("kernel entries in the PTX:", kernel.ptx.count(".entry"))

rng = np.random.default_rng(0)
x = rng.standard_normal((N, C, H, W)).astype(np.float32)
w = rng.standard_normal((F, C, KH, KW)).astype(np.float32)
xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
ref = np.zeros((N, F, H, W), np.float32)
for dy in range(KH):
    for dx in range(KW):
        ref += np.einsum("nchw,fc->nfhw", xp[:, :, dy:dy + H, dx:dx + W], w[:, :, dy, dx])
np.testing.assert_allclose(kernel.run(x, w), ref, rtol=1e-4, atol=1e-4)
print("conv2d matches numpy")
