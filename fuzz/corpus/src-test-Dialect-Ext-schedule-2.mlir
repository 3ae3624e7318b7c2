// The tile level: a kernel with shared buffers, a fragment, a copy and tile
// computes.
func.func @tile_level(%A: memref<32x32xf32>, %B: memref<32x48xf32>) {
  ext.kernel tiles [2, 3] iters 4 threads 64 decomposition #ext.data_parallel raster col swizzle 2 {
  ^bb0(%ti: index, %tj: index, %kb: index, %ke: index):
    %s = ext.alloc_shared {storage_align = [#ext.storage_align<dim = 0, factor = 16, offset = 1>]}
        : memref<16x8xf32, strided<[17, 1]>, #gpu.address_space<workgroup>>
    %f = ext.alloc_fragment threads [8, 8] : memref<16x16xf32>
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    ext.copy %A[%c0, %c0] to %s {vector = 2 : i64} : memref<32x32xf32> to memref<16x8xf32, strided<[17, 1]>, #gpu.address_space<workgroup>>
    %bv = memref.subview %B[0, 0] [8, 16] [1, 1] : memref<32x48xf32> to memref<8x16xf32, strided<[48, 1]>>
    ext.tile_compute [#ext.axis<"i", spatial, 16>, #ext.axis<"j", spatial, 16>, #ext.axis<"k", reduce, 8>]
        threads [8, 8, 1] bounds(%c16, %c16, %c8)
        ins(%s, %bv : memref<16x8xf32, strided<[17, 1]>, #gpu.address_space<workgroup>>, memref<8x16xf32, strided<[48, 1]>>)
        outs(%f : memref<16x16xf32>)
        maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
        combiner(sum) accumulate {
    ^bb0(%a: f32, %b: f32):
      %p = arith.mulf %a, %b : f32
      ext.yield %p : f32
    }
    ext.kernel_yield %f : memref<16x16xf32>
  } epilogue {
  ^bb0(%ti: index, %tj: index, %f: memref<16x16xf32>):
    ext.kernel_yield
  }
  return
}
