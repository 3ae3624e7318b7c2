// RUN: ext-run %s | FileCheck %s
// RUN: ext-run --reference %s | FileCheck %s
// Low-bit weights on the CPU (issue 54): two int4 per byte unpacked with
// arith.shrui/andi through a `k floordiv 2` access, and FP8 E4M3 / E5M2
// bits decoded by arith.extf (expanded into integer code: LLVM has no f8).

// Bytes 0x21, 0xF3: nibbles (low first) 1, 2, 3, 15.
memref.global "private" constant @Wq : memref<1x2xi8> = dense<[[0x21, 0xF3]]>
// E4M3: 1.0, -2.0, 448 (largest), NaN, smallest subnormal 2^-9, -0.
memref.global "private" constant @E4 : memref<6xi8> = dense<[0x38, 0xC0, 0x7E, 0x7F, 0x01, 0x80]>
// E5M2: 1.0, 57344 (largest), inf, 2^-16.
memref.global "private" constant @E5 : memref<4xi8> = dense<[0x3C, 0x7B, 0x7C, 0x01]>
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %Wq = memref.get_global @Wq : memref<1x2xi8>
  %E4 = memref.get_global @E4 : memref<6xi8>
  %E5 = memref.get_global @E5 : memref<4xi8>
  %W = memref.alloc() : memref<1x4xf32>
  %F4 = memref.alloc() : memref<6xf32>
  %F5 = memref.alloc() : memref<4xf32>
  ext.compute [#ext.axis<"n", spatial, 1>, #ext.axis<"k", spatial, 4>]
      ins(%Wq : memref<1x2xi8>) outs(%W : memref<1x4xf32>)
      maps [affine_map<(n, k) -> (n, k floordiv 2)>, affine_map<(n, k) -> (n, k)>] {
  ^bb0(%q: i8):
    %k = ext.index "k" : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %odd = arith.remui %k, %c2 : index
    %amount = arith.muli %odd, %c4 : index
    %amount8 = arith.index_cast %amount : index to i8
    %shifted = arith.shrui %q, %amount8 : i8
    %c15 = arith.constant 15 : i8
    %nibble = arith.andi %shifted, %c15 : i8
    %w = arith.uitofp %nibble : i8 to f32
    ext.yield %w : f32
  }
  ext.compute [#ext.axis<"i", spatial, 6>] ins(%E4 : memref<6xi8>) outs(%F4 : memref<6xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%q: i8):
    %f8 = arith.bitcast %q : i8 to f8E4M3FN
    %f = arith.extf %f8 : f8E4M3FN to f32
    ext.yield %f : f32
  }
  ext.compute [#ext.axis<"i", spatial, 4>] ins(%E5 : memref<4xi8>) outs(%F5 : memref<4xf32>)
      maps [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>] {
  ^bb0(%q: i8):
    %f8 = arith.bitcast %q : i8 to f8E5M2
    %f = arith.extf %f8 : f8E5M2 to f32
    ext.yield %f : f32
  }
  // CHECK: [1,   2,   3,   15]
  %u_W = memref.cast %W : memref<1x4xf32> to memref<*xf32>
  call @printMemrefF32(%u_W) : (memref<*xf32>) -> ()
  // CHECK: [1,  -2,  448,  nan,  0.00195312,  -0]
  %u_F4 = memref.cast %F4 : memref<6xf32> to memref<*xf32>
  call @printMemrefF32(%u_F4) : (memref<*xf32>) -> ()
  // CHECK: [1,  57344,  inf,  1.52588e-05]
  %u_F5 = memref.cast %F5 : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u_F5) : (memref<*xf32>) -> ()
  memref.dealloc %W : memref<1x4xf32>
  memref.dealloc %F4 : memref<6xf32>
  memref.dealloc %F5 : memref<4xf32>
  return
}
