// A bad serpentine attribute is a located diagnostic of the installed
// ext-opt, from the plugin's verifier.
// RUN: ext-opt %s --load-dialect-plugin=%plugin --verify-diagnostics -o /dev/null

func.func @bad_run(%X: memref<8xf32>) {
  // expected-error @+4 {{serpentine run must be at least 1, got 0}}
  ext.compute [#ext.axis<"i", spatial, 8>] outs(%X : memref<8xf32>)
      maps [affine_map<(i) -> (i)>] attributes {schedule = #ext.schedule<
        tile = [4], blocks = ["i"], threads = [4],
        decomposition = #ext_example.serpentine<run = 0>>} {
  ^bb0:
    %c = arith.constant 1.0 : f32
    ext.yield %c : f32
  }
  return
}
