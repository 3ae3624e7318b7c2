// Malformed iteration domains and operand lists.
// One concern per split; these files live outside test/Dialect/, whose files
// all parse and round-trip.

func.func @empty_domain(%Y: memref<f32>) {
  // expected-error @+1 {{'ext.compute' op has an empty iteration domain: it needs at least one axis}}
  ext.compute [] outs(%Y : memref<f32>) maps [affine_map<() -> ()>] {
  ^bb0:
    %c = arith.constant 0.0 : f32
    ext.yield %c : f32
  }
  return
}
