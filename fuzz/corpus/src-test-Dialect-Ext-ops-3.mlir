func.func @gemv_f16_acc_f32(%A: memref<32x64xf16>, %x: memref<64xf16>, %y: memref<32xf32>) {
  ext.compute [#ext.axis<"i", spatial, 32>, #ext.axis<"k", reduce, 64>]
      ins(%A, %x : memref<32x64xf16>, memref<64xf16>) outs(%y : memref<32xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>]
      combiner(sum) {
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }
  return
}
