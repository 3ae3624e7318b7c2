// The same ragged GEMM (70x50x45, 32x32x32 tiles, both operands staged in
// shared memory) with three layouts of the shared tiles: unpadded, padded by
// storage_align, and XOR-swizzled. On the CPU emulator all three give
// exactly the reference's numbers (small integers: exact in f32).
// RUN: ext-run %s | FileCheck %s
// The swizzled kernel really reads through XORed offsets.
// RUN: ext-opt %s --ext-schedule-to-gpu | FileCheck %s --check-prefix=IR

// CHECK: data =
// CHECK-NEXT: [0]
// CHECK: data =
// CHECK-NEXT: [0]
// CHECK: data =
// CHECK-NEXT: [0]
// CHECK: data =
// CHECK-NEXT: [0]
// CHECK: data =
// CHECK-NEXT: [0]
// CHECK-NOT: data =

// IR-LABEL: func.func @swizzled
// IR: gpu.launch
// IR: arith.xori
// IR-LABEL: func.func @reference

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

#maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
         affine_map<(i, j, k) -> (i, j)>]

func.func @none(%A: memref<70x45xf32>, %B: memref<45x50xf32>, %C: memref<70x50xf32>) {
  ext.compute [#ext.axis<"i", spatial, 70>, #ext.axis<"j", spatial, 50>,
               #ext.axis<"k", reduce, 45>]
      ins(%A, %B : memref<70x45xf32>, memref<45x50xf32>) outs(%C : memref<70x50xf32>)
      maps #maps combiner(sum) attributes {schedule = #ext.schedule<
        tile = [32, 32, 32], blocks = ["i", "j"], threads = [16, 16, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @padded(%A: memref<70x45xf32>, %B: memref<45x50xf32>, %C: memref<70x50xf32>) {
  ext.compute [#ext.axis<"i", spatial, 70>, #ext.axis<"j", spatial, 50>,
               #ext.axis<"k", reduce, 45>]
      ins(%A, %B : memref<70x45xf32>, memref<45x50xf32>) outs(%C : memref<70x50xf32>)
      maps #maps combiner(sum) attributes {schedule = #ext.schedule<
        tile = [32, 32, 32], blocks = ["i", "j"], threads = [16, 16, 1],
        cache = [#ext.cache<operand = 0, align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]>,
                 #ext.cache<operand = 1, align = [#ext.storage_align<dim = 0, factor = 32, offset = 1>]>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @swizzled(%A: memref<70x45xf32>, %B: memref<45x50xf32>, %C: memref<70x50xf32>) {
  ext.compute [#ext.axis<"i", spatial, 70>, #ext.axis<"j", spatial, 50>,
               #ext.axis<"k", reduce, 45>]
      ins(%A, %B : memref<70x45xf32>, memref<45x50xf32>) outs(%C : memref<70x50xf32>)
      maps #maps combiner(sum) attributes {schedule = #ext.schedule<
        tile = [32, 32, 32], blocks = ["i", "j"], threads = [16, 16, 1],
        cache = [#ext.cache<operand = 0, swizzle = #ext.swizzle<bits = 5, base = 0, shift = 5>>,
                 #ext.cache<operand = 1, swizzle = #ext.swizzle<bits = 3, base = 2, shift = 5>>]>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @reference(%A: memref<70x45xf32>, %B: memref<45x50xf32>, %C: memref<70x50xf32>) {
  ext.compute [#ext.axis<"i", spatial, 70>, #ext.axis<"j", spatial, 50>,
               #ext.axis<"k", reduce, 45>]
      ins(%A, %B : memref<70x45xf32>, memref<45x50xf32>) outs(%C : memref<70x50xf32>)
      maps #maps combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// Prints max |C - R|.
func.func @print_error(%C: memref<70x50xf32>, %R: memref<70x50xf32>) {
  %err = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"i", reduce, 70>, #ext.axis<"j", reduce, 50>]
      ins(%C, %R : memref<70x50xf32>, memref<70x50xf32>) outs(%err : memref<f32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>]
      combiner(max) {
  ^bb0(%c: f32, %r: f32):
    %d = arith.subf %c, %r : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }
  %u = memref.cast %err : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %A = memref.alloc() : memref<70x45xf32>
  %B = memref.alloc() : memref<45x50xf32>
  %C0 = memref.alloc() : memref<70x50xf32>
  %C1 = memref.alloc() : memref<70x50xf32>
  %C2 = memref.alloc() : memref<70x50xf32>
  %R = memref.alloc() : memref<70x50xf32>
  // A[i, k] = ((3i + 5k) mod 11) - 5, B[k, j] = ((7k + 2j) mod 13) - 6
  ext.compute [#ext.axis<"i", spatial, 70>, #ext.axis<"k", spatial, 45>]
      outs(%A : memref<70x45xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  ext.compute [#ext.axis<"k", spatial, 45>, #ext.axis<"j", spatial, 50>]
      outs(%B : memref<45x50xf32>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  call @none(%A, %B, %C0) : (memref<70x45xf32>, memref<45x50xf32>, memref<70x50xf32>) -> ()
  call @padded(%A, %B, %C1) : (memref<70x45xf32>, memref<45x50xf32>, memref<70x50xf32>) -> ()
  call @swizzled(%A, %B, %C2) : (memref<70x45xf32>, memref<45x50xf32>, memref<70x50xf32>) -> ()
  call @reference(%A, %B, %R) : (memref<70x45xf32>, memref<45x50xf32>, memref<70x50xf32>) -> ()
  // Each layout against the reference, then padded and swizzled against
  // the unpadded kernel.
  call @print_error(%C0, %R) : (memref<70x50xf32>, memref<70x50xf32>) -> ()
  call @print_error(%C1, %R) : (memref<70x50xf32>, memref<70x50xf32>) -> ()
  call @print_error(%C2, %R) : (memref<70x50xf32>, memref<70x50xf32>) -> ()
  call @print_error(%C1, %C0) : (memref<70x50xf32>, memref<70x50xf32>) -> ()
  call @print_error(%C2, %C0) : (memref<70x50xf32>, memref<70x50xf32>) -> ()
  return
}
