func.func @yield_outside_compute() {
  // expected-error @+1 {{'ext.yield' op expects parent op to be one of 'ext.compute, ext.tile_compute'}}
  ext.yield
}
