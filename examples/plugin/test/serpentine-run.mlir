// A GEMM scheduled with the plugin's decomposition, run by the installed
// ext-run on the CPU emulator, against the unscheduled reference (plain
// loops): prints max |C - reference| (exact: small integer inputs).
// 70x50 output in 16x16 tiles: 5 x 4 = 20 tiles, so runs of 3 end with a
// short run of 2; the second kernel walks whole rows back and forth in
// column raster.
// RUN: ext-run --load-dialect-plugin=%plugin %s | FileCheck %s
// Another interleaving of the emulated threads: the same numbers.
// RUN: ext-run --load-dialect-plugin=%plugin --emu-seed=3 %s | FileCheck %s
// The kernels are emulated GPU code, mapped by the plugin's select.
// RUN: ext-run --load-dialect-plugin=%plugin --print-lowered %s | FileCheck %s --check-prefix=EMULATED
// Without the plugin, the schedule's decomposition cannot be parsed.
// RUN: not ext-run %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

// CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [0]
// CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
// CHECK-NEXT: [0]
// EMULATED: llvm.call @__ext_emu_launch
// NOPLUGIN: error: #"ext_example"<"serpentine<run = 3>"> : 'none' attribute created with unregistered dialect

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @gemm_runs_of_3(%A: memref<70x24xf32>, %B: memref<24x50xf32>, %C: memref<70x50xf32>) {
  ext.compute [#ext.axis<"i", spatial, 70>, #ext.axis<"j", spatial, 50>,
               #ext.axis<"k", reduce, 24>]
      ins(%A, %B : memref<70x24xf32>, memref<24x50xf32>) outs(%C : memref<70x50xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 8], blocks = ["i", "j"], threads = [4, 4, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>],
        decomposition = #ext_example.serpentine<run = 3>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @gemm_row_boustrophedon(%A: memref<70x24xf32>, %B: memref<24x50xf32>, %C: memref<70x50xf32>) {
  ext.compute [#ext.axis<"i", spatial, 70>, #ext.axis<"j", spatial, 50>,
               #ext.axis<"k", reduce, 24>]
      ins(%A, %B : memref<70x24xf32>, memref<24x50xf32>) outs(%C : memref<70x50xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {schedule = #ext.schedule<
        tile = [16, 16, 8], blocks = ["i", "j"], threads = [4, 4, 1],
        raster = col, decomposition = #ext_example.serpentine<run = 5>>} {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

func.func @reference(%A: memref<70x24xf32>, %B: memref<24x50xf32>, %C: memref<70x50xf32>) {
  ext.compute [#ext.axis<"i", spatial, 70>, #ext.axis<"j", spatial, 50>,
               #ext.axis<"k", reduce, 24>]
      ins(%A, %B : memref<70x24xf32>, memref<24x50xf32>) outs(%C : memref<70x50xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
            affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }
  return
}

// Prints max |C - R|.
func.func @max_error(%C: memref<70x50xf32>, %R: memref<70x50xf32>) {
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
  memref.dealloc %err : memref<f32>
  return
}

func.func @main() {
  %A = memref.alloc() : memref<70x24xf32>
  %B = memref.alloc() : memref<24x50xf32>
  %C = memref.alloc() : memref<70x50xf32>
  %D = memref.alloc() : memref<70x50xf32>
  %R = memref.alloc() : memref<70x50xf32>
  // A[i, k] = ((3i + 5k) mod 11) - 5, B[k, j] = ((7k + 2j) mod 13) - 6
  ext.compute [#ext.axis<"i", spatial, 70>, #ext.axis<"k", spatial, 24>]
      outs(%A : memref<70x24xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 11 - 5)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  ext.compute [#ext.axis<"k", spatial, 24>, #ext.axis<"j", spatial, 50>]
      outs(%B : memref<24x50xf32>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 13 - 6)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  call @gemm_runs_of_3(%A, %B, %C) : (memref<70x24xf32>, memref<24x50xf32>, memref<70x50xf32>) -> ()
  call @gemm_row_boustrophedon(%A, %B, %D) : (memref<70x24xf32>, memref<24x50xf32>, memref<70x50xf32>) -> ()
  call @reference(%A, %B, %R) : (memref<70x24xf32>, memref<24x50xf32>, memref<70x50xf32>) -> ()
  call @max_error(%C, %R) : (memref<70x50xf32>, memref<70x50xf32>) -> ()
  call @max_error(%D, %R) : (memref<70x50xf32>, memref<70x50xf32>) -> ()
  memref.dealloc %A : memref<70x24xf32>
  memref.dealloc %B : memref<24x50xf32>
  memref.dealloc %C : memref<70x50xf32>
  memref.dealloc %D : memref<70x50xf32>
  memref.dealloc %R : memref<70x50xf32>
  return
}
