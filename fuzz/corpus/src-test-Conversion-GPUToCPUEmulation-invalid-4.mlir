module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      %v = arith.constant 1.0 : f64
      %w = vector.broadcast %v : f64 to vector<4xf64>
      // expected-error @below {{'gpu.subgroup_reduce' op on a value of 'vector<4xf64>' wider than the emulator's 16-byte lanes}}
      %r = gpu.subgroup_reduce add %w : (vector<4xf64>) -> vector<4xf64>
      gpu.return
    }
  }
}
