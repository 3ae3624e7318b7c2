# ext.load_plugin from the installed Python package: a GEMM scheduled with
# the plugin's decomposition runs on the CPU emulator and agrees with numpy,
# and the plugin's pass runs from Python; a plugin built against another ext
# version is refused with an ImportError naming both versions.
# REQUIRES: python
# RUN: %python %s %plugin %other_version_plugin %ext_version | FileCheck %s

import sys

import numpy as np

import ext

plugin, other, version = sys.argv[1:4]

# A context made before the plugin is loaded gets its dialect too.
early = ext.Context()

GEMM = """
func.func @gemm(%A: memref<70x24xf32>, %B: memref<24x50xf32>, %C: memref<70x50xf32>) {
  ext.compute [#ext.axis<"i", spatial, 70>, #ext.axis<"j", spatial, 50>,
               #ext.axis<"k", reduce, 24>]
      ins(%A, %B : memref<70x24xf32>, memref<24x50xf32>) outs(%C : memref<70x50xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 8], blocks = ["i", "j"], threads = [4, 4, 1],
        decomposition = #ext_example.serpentine<run = 3>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}
"""

try:
    ext.Module.parse(early, GEMM)
except ValueError as e:
    print("before:", str(e).splitlines()[-1])
# CHECK: before: {{.*}}attribute created with unregistered dialect

try:
    ext.load_plugin(other)
except ImportError as e:
    print("refused:", e)
# CHECK: refused: plugin '{{.*}}ExtExamplePluginOtherVersion.so' was built against ext 0.0.0-other, but this is ext [[VERSION:[0-9.]+]]

ext.load_plugin(plugin)
ext.load_plugin(plugin)  # a second load is a no-op

rng = np.random.default_rng(0)
a = rng.integers(-4, 5, size=(70, 24)).astype(np.float32)
b = rng.integers(-4, 5, size=(24, 50)).astype(np.float32)
for context in (early, ext.Context()):
    module = ext.Module.parse(context, GEMM)
    c = np.zeros((70, 50), np.float32)
    module.run_cpu("gemm", [a, b, c])
    print("max error:", np.abs(c - a @ b).max())
# CHECK: max error: 0.0
# CHECK: max error: 0.0

module = ext.Module.parse(ext.Context(), GEMM)
module.run_pipeline("ext-example-count-points")
print("counted:", "ext_example.points = 84000 : i64" in str(module))
# CHECK: counted: True
print("version:", version)
# CHECK: version: [[VERSION]]
