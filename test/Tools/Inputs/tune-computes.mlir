#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @gemm(%A: memref<1024x512xf16>, %B: memref<512x768xf16>, %C: memref<1024x768xf32>) {
  ext.compute [#ext.axis<"i", spatial, 1024>, #ext.axis<"j", spatial, 768>, #ext.axis<"k", reduce, 512>]
      ins(%A, %B : memref<1024x512xf16>, memref<512x768xf16>) outs(%C : memref<1024x768xf32>)
      maps [#a, #b, #c] combiner(sum) attributes {name = "C"} {
  ^bb0(%x: f16, %y: f16):
    %x32 = arith.extf %x : f16 to f32
    %y32 = arith.extf %y : f16 to f32
    %p = arith.mulf %x32, %y32 : f32
    ext.yield %p : f32
  }
  return
}
func.func @softmax(%X: memref<300x1000xf32>, %Y: memref<300x1000xf32>) {
  %M = memref.alloc() : memref<300xf32>
  %S = memref.alloc() : memref<300xf32>
  ext.compute [#ext.axis<"i", spatial, 300>, #ext.axis<"k", reduce, 1000>] ins(%X : memref<300x1000xf32>) outs(%M : memref<300xf32>) maps [#id, #row] combiner(max) attributes {name = "row_max"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  ext.compute [#ext.axis<"i", spatial, 300>, #ext.axis<"k", reduce, 1000>] ins(%X, %M : memref<300x1000xf32>, memref<300xf32>) outs(%S : memref<300xf32>) maps [#id, #row, #row] combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  ext.compute [#ext.axis<"i", spatial, 300>, #ext.axis<"j", spatial, 1000>] ins(%X, %M, %S : memref<300x1000xf32>, memref<300xf32>, memref<300xf32>) outs(%Y : memref<300x1000xf32>) maps [#id, #row, #row, #id] attributes {name = "y"} {
  ^bb0(%x: f32, %m: f32, %s: f32):
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    %v = arith.divf %e, %s : f32
    ext.yield %v : f32
  }
  memref.dealloc %M : memref<300xf32>
  memref.dealloc %S : memref<300xf32>
  return
}
