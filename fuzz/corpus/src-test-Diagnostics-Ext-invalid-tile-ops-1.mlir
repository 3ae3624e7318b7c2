func.func @shared_wrong_strides() {
  // expected-error @+1 {{layout must have offset 0 and strides [17, 1] (row-major padded by storage_align)}}
  %s = ext.alloc_shared {storage_align = [#ext.storage_align<dim = 0, factor = 16, offset = 1>]}
      : memref<16x8xf32, #gpu.address_space<workgroup>>
  return
}
