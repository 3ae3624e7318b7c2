// linalg.batch_matmul and a max reduction (linalg.reduce) through ext: the
// script imports the linalg ops, schedules the batched GEMM (a tile of one
// batch, 16x24 outputs per block, A and B cached) and the row max (one row
// per block, its 300 columns over 256 threads), and the module runs on the
// emulator against the same linalg ops unscheduled (host loops); the
// kernels also compile to PTX that ptxas accepts and to an HSACO.
//
// RUN: ext-run %s 2>&1 | FileCheck %s
// CHECK: data =
// CHECK-NEXT: {{^}}[0]{{$}}
// CHECK: data =
// CHECK-NEXT: {{^}}[0]{{$}}
//
// The references above are the same linalg ops through the same
// ext-from-linalg, so an op it got wrong would be wrong in both: each
// kernel also runs on .npy inputs against numpy.
// RUN: rm -rf %t.np && mkdir -p %t.np
// RUN: %python %S/Inputs/linalg-numpy.py inputs bmm %t.np
// RUN: ext-run --entry=bmm --inputs=%t.np/a.npy,%t.np/b.npy --save-outputs=%t.np/out %s
// RUN: %python %S/Inputs/linalg-numpy.py check bmm %t.np | FileCheck %s --check-prefix=BMM-NP
// BMM-NP: bmm: matches numpy (exactly)
// RUN: rm -rf %t.np && mkdir -p %t.np
// RUN: %python %S/Inputs/linalg-numpy.py inputs rowmax %t.np
// RUN: ext-run --entry=rowmax --inputs=%t.np/x.npy --save-outputs=%t.np/out %s
// RUN: %python %S/Inputs/linalg-numpy.py check rowmax %t.np | FileCheck %s --check-prefix=ROWMAX-NP
// ROWMAX-NP: rowmax: matches numpy (exactly)
//
// RUN: ext-opt %s --ext-gpu-pipeline="target=rocdl chip=gfx942" 2>/dev/null | ext-translate --ext-to-hsaco --ext-gpu-module=bmm_kernel -o %t.bmm.hsaco
// RUN: llvm-readelf --symbols %t.bmm.hsaco | FileCheck %s --check-prefix=BMM
// RUN: ext-opt %s --ext-gpu-pipeline="target=rocdl chip=gfx942" 2>/dev/null | ext-translate --ext-to-hsaco --ext-gpu-module=rowmax_kernel -o %t.max.hsaco
// RUN: llvm-readelf --symbols %t.max.hsaco | FileCheck %s --check-prefix=MAX
// BMM: FUNC GLOBAL PROTECTED {{.*}} bmm_kernel{{$}}
// MAX: FUNC GLOBAL PROTECTED {{.*}} rowmax_kernel{{$}}
// The PTX half is in linalg-ptx.mlir (it needs ptxas).

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @bmm(%A: memref<3x40x50xf32>, %B: memref<3x50x24xf32>, %C: memref<3x40x24xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<3x40x24xf32>)
  linalg.batch_matmul ins(%A, %B : memref<3x40x50xf32>, memref<3x50x24xf32>)
                      outs(%C : memref<3x40x24xf32>)
  return
}

func.func @rowmax(%X: memref<37x300xf32>, %Y: memref<37xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%Y : memref<37xf32>)
  linalg.reduce ins(%X : memref<37x300xf32>) outs(%Y : memref<37xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %m = arith.maximumf %x, %acc : f32
      linalg.yield %m : f32
    }
  return
}

func.func @bmm_reference(%A: memref<3x40x50xf32>, %B: memref<3x50x24xf32>, %C: memref<3x40x24xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<3x40x24xf32>)
  linalg.batch_matmul ins(%A, %B : memref<3x40x50xf32>, memref<3x50x24xf32>)
                      outs(%C : memref<3x40x24xf32>)
  return
}

func.func @rowmax_reference(%X: memref<37x300xf32>, %Y: memref<37xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%Y : memref<37xf32>)
  linalg.reduce ins(%X : memref<37x300xf32>) outs(%Y : memref<37xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %m = arith.maximumf %x, %acc : f32
      linalg.yield %m : f32
    }
  return
}

// max |a - b| over two memrefs of any shape, flattened to 1-D.
func.func @max_error(%a: memref<?xf32>, %b: memref<?xf32>) {
  %err = memref.alloc() : memref<f32>
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %err[] : memref<f32>
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%a, %b : memref<?xf32>, memref<?xf32>) outs(%err : memref<f32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %d = arith.subf %x, %y : f32
    %abs = math.absf %d : f32
    %m = arith.maximumf %acc, %abs : f32
    linalg.yield %m : f32
  }
  %u = memref.cast %err : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

#id3 = affine_map<(b, i, j) -> (b, i, j)>
func.func @main() {
  %A = memref.alloc() : memref<3x40x50xf32>
  %B = memref.alloc() : memref<3x50x24xf32>
  %C = memref.alloc() : memref<3x40x24xf32>
  %R = memref.alloc() : memref<3x40x24xf32>
  %X = memref.alloc() : memref<37x300xf32>
  %Y = memref.alloc() : memref<37xf32>
  %Z = memref.alloc() : memref<37xf32>
  // A = ((b + 3i + 5k) mod 11) - 5, B = ((2b + 7k + 2j) mod 13) - 6,
  // X = ((13i + 7j) mod 101) - 50: the max moves along the row.
  linalg.generic {indexing_maps = [#id3], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%A : memref<3x40x50xf32>) {
  ^bb0(%o: f32):
    %b = linalg.index 0 : index
    %i = linalg.index 1 : index
    %k = linalg.index 2 : index
    %v = affine.apply affine_map<(b, i, k) -> ((b + i * 3 + k * 5) mod 11 - 5)>(%b, %i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    linalg.yield %vf : f32
  }
  linalg.generic {indexing_maps = [#id3], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%B : memref<3x50x24xf32>) {
  ^bb0(%o: f32):
    %b = linalg.index 0 : index
    %k = linalg.index 1 : index
    %j = linalg.index 2 : index
    %v = affine.apply affine_map<(b, k, j) -> ((b * 2 + k * 7 + j * 2) mod 13 - 6)>(%b, %k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    linalg.yield %vf : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%X : memref<37x300xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = affine.apply affine_map<(i, j) -> ((i * 13 + j * 7) mod 101 - 50)>(%i, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    linalg.yield %vf : f32
  }
  call @bmm(%A, %B, %C) : (memref<3x40x50xf32>, memref<3x50x24xf32>, memref<3x40x24xf32>) -> ()
  call @bmm_reference(%A, %B, %R) : (memref<3x40x50xf32>, memref<3x50x24xf32>, memref<3x40x24xf32>) -> ()
  call @rowmax(%X, %Y) : (memref<37x300xf32>, memref<37xf32>) -> ()
  call @rowmax_reference(%X, %Z) : (memref<37x300xf32>, memref<37xf32>) -> ()
  %Cf = memref.collapse_shape %C [[0, 1, 2]] : memref<3x40x24xf32> into memref<2880xf32>
  %Rf = memref.collapse_shape %R [[0, 1, 2]] : memref<3x40x24xf32> into memref<2880xf32>
  %Cd = memref.cast %Cf : memref<2880xf32> to memref<?xf32>
  %Rd = memref.cast %Rf : memref<2880xf32> to memref<?xf32>
  call @max_error(%Cd, %Rd) : (memref<?xf32>, memref<?xf32>) -> ()
  %Yd = memref.cast %Y : memref<37xf32> to memref<?xf32>
  %Zd = memref.cast %Z : memref<37xf32> to memref<?xf32>
  call @max_error(%Yd, %Zd) : (memref<?xf32>, memref<?xf32>) -> ()
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %module = transform.apply_registered_pass "ext-from-linalg" to %root
        : (!transform.any_op) -> !transform.any_op
    %bmm = transform.structured.match ops{["func.func"]} attributes {sym_name = "bmm"} in %module
        : (!transform.any_op) -> !transform.any_op
    %gemm = transform.ext.match_computes "batch_matmul_0" in %bmm
        : (!transform.any_op) -> !transform.any_op
    transform.ext.set_schedule #ext.schedule<tile = [1, 16, 24, 16], blocks = ["d0", "d1", "d2"],
        threads = [1, 16, 8, 1], cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>
        to %gemm : !transform.any_op
    %rowmax = transform.structured.match ops{["func.func"]} attributes {sym_name = "rowmax"} in %module
        : (!transform.any_op) -> !transform.any_op
    %max = transform.ext.match_computes "reduce_0" in %rowmax
        : (!transform.any_op) -> !transform.any_op
    transform.ext.set_schedule #ext.schedule<tile = [1, 300], blocks = ["d0"], threads = [1, 256]>
        to %max : !transform.any_op
    transform.yield
  }
}
