// Malformed tile-level ops: one concern per split.

func.func @shared_not_workgroup() {
  // expected-error @+1 {{'ext.alloc_shared' op result must be in #gpu.address_space<workgroup>, got 'memref<16x8xf32>'}}
  %s = ext.alloc_shared : memref<16x8xf32>
  return
}
