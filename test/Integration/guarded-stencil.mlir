// Guarded reads: a 5-point Laplacian on a 13x11 grid, zero outside it, in
// one compute. Each neighbour is read in the branch of an scf.if taken only
// inside the grid (a signed compare, an unsigned one that bounds both
// sides, the read in the else branch of the opposite test), so no read
// leaves X, and the verifier proves each under its guard. Scheduled on
// 4x8 tiles with X cached (the copy zero-fills the halo), and unscheduled
// (host loops); @main checks both against the same stencil on a padded copy
// of X without guards (small integers: exact).
//
// RUN: ext-opt --ext-schedule-to-gpu %s | FileCheck %s --check-prefix=GPU
// RUN: ext-run --racecheck %s | FileCheck %s

// The neighbour's load is inside its branch.
// GPU-LABEL: func.func @stencil(
// GPU: gpu.launch
// GPU: scf.if
// GPU-NEXT: memref.load
// GPU-NOT: gpu.launch
// GPU-LABEL: func.func @reference(

// CHECK-COUNT-2: [0]
// CHECK-NOT: [{{[1-9]}}

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @stencil(%X: memref<13x11xf32>, %Y: memref<13x11xf32>) {
  ext.compute [#ext.axis<"i", spatial, 13>, #ext.axis<"j", spatial, 11>]
      ins(%X, %X, %X, %X, %X : memref<13x11xf32>, memref<13x11xf32>, memref<13x11xf32>, memref<13x11xf32>, memref<13x11xf32>) outs(%Y : memref<13x11xf32>)
      maps [affine_map<(i, j) -> (i - 1, j)>, affine_map<(i, j) -> (i + 1, j)>,
            affine_map<(i, j) -> (i, j - 1)>, affine_map<(i, j) -> (i, j + 1)>,
            affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>]
      attributes {schedule = #ext.schedule<tile = [4, 8], blocks = ["i", "j"], threads = [4, 8],
                  cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>, #ext.cache<operand = 2>,
                           #ext.cache<operand = 3>, #ext.cache<operand = 4>]>} {
  ^bb0(%n: f32, %s: f32, %w: f32, %e: f32, %c: f32):
    %i = ext.index "i" : index
    %j = ext.index "j" : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c12 = arith.constant 12 : index
    %c10 = arith.constant 10 : index
    %hasN = arith.cmpi sge, %i, %c1 : index
    %vn = scf.if %hasN -> f32 {
      scf.yield %n : f32
    } else {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    }
    %hasS = arith.cmpi slt, %i, %c12 : index
    %vs = scf.if %hasS -> f32 {
      scf.yield %s : f32
    } else {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    }
    // An unsigned compare bounds both sides: j - 1 <u 11.
    %jm = arith.subi %j, %c1 : index
    %c11 = arith.constant 11 : index
    %hasW = arith.cmpi ult, %jm, %c11 : index
    %vw = scf.if %hasW -> f32 {
      scf.yield %w : f32
    } else {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    }
    %lastJ = arith.cmpi sge, %j, %c10 : index
    %ve = scf.if %lastJ -> f32 {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    } else {
      scf.yield %e : f32
    }
    %four = arith.constant 4.0 : f32
    %cc = arith.mulf %c, %four : f32
    %a = arith.addf %vn, %vs : f32
    %b = arith.addf %vw, %ve : f32
    %ab = arith.addf %a, %b : f32
    %r = arith.subf %cc, %ab : f32
    ext.yield %r : f32
  }
  return
}

func.func @stencil_host(%X: memref<13x11xf32>, %Y: memref<13x11xf32>) {
  ext.compute [#ext.axis<"i", spatial, 13>, #ext.axis<"j", spatial, 11>]
      ins(%X, %X, %X, %X, %X : memref<13x11xf32>, memref<13x11xf32>, memref<13x11xf32>, memref<13x11xf32>, memref<13x11xf32>) outs(%Y : memref<13x11xf32>)
      maps [affine_map<(i, j) -> (i - 1, j)>, affine_map<(i, j) -> (i + 1, j)>,
            affine_map<(i, j) -> (i, j - 1)>, affine_map<(i, j) -> (i, j + 1)>,
            affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>] {
  ^bb0(%n: f32, %s: f32, %w: f32, %e: f32, %c: f32):
    %i = ext.index "i" : index
    %j = ext.index "j" : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c12 = arith.constant 12 : index
    %c10 = arith.constant 10 : index
    %hasN = arith.cmpi sge, %i, %c1 : index
    %vn = scf.if %hasN -> f32 {
      scf.yield %n : f32
    } else {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    }
    %hasS = arith.cmpi slt, %i, %c12 : index
    %vs = scf.if %hasS -> f32 {
      scf.yield %s : f32
    } else {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    }
    // An unsigned compare bounds both sides: j - 1 <u 11.
    %jm = arith.subi %j, %c1 : index
    %c11 = arith.constant 11 : index
    %hasW = arith.cmpi ult, %jm, %c11 : index
    %vw = scf.if %hasW -> f32 {
      scf.yield %w : f32
    } else {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    }
    %lastJ = arith.cmpi sge, %j, %c10 : index
    %ve = scf.if %lastJ -> f32 {
      %z = arith.constant 0.0 : f32
      scf.yield %z : f32
    } else {
      scf.yield %e : f32
    }
    %four = arith.constant 4.0 : f32
    %cc = arith.mulf %c, %four : f32
    %a = arith.addf %vn, %vs : f32
    %b = arith.addf %vw, %ve : f32
    %ab = arith.addf %a, %b : f32
    %r = arith.subf %cc, %ab : f32
    ext.yield %r : f32
  }
  return
}

// The same on X padded by a zero border, without guards.
func.func @reference(%X: memref<13x11xf32>, %Y: memref<13x11xf32>) {
  %P = memref.alloc() : memref<15x13xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%P : memref<15x13xf32>)
  %inner = memref.subview %P[1, 1] [13, 11] [1, 1] : memref<15x13xf32> to memref<13x11xf32, strided<[13, 1], offset: 14>>
  memref.copy %X, %inner : memref<13x11xf32> to memref<13x11xf32, strided<[13, 1], offset: 14>>
  %N = memref.subview %P[0, 1] [13, 11] [1, 1] : memref<15x13xf32> to memref<13x11xf32, strided<[13, 1], offset: 1>>
  %S = memref.subview %P[2, 1] [13, 11] [1, 1] : memref<15x13xf32> to memref<13x11xf32, strided<[13, 1], offset: 27>>
  %W = memref.subview %P[1, 0] [13, 11] [1, 1] : memref<15x13xf32> to memref<13x11xf32, strided<[13, 1], offset: 13>>
  %E = memref.subview %P[1, 2] [13, 11] [1, 1] : memref<15x13xf32> to memref<13x11xf32, strided<[13, 1], offset: 15>>
  %C = memref.subview %P[1, 1] [13, 11] [1, 1] : memref<15x13xf32> to memref<13x11xf32, strided<[13, 1], offset: 14>>
  ext.compute [#ext.axis<"i", spatial, 13>, #ext.axis<"j", spatial, 11>]
      ins(%N, %S, %W, %E, %C : memref<13x11xf32, strided<[13, 1], offset: 1>>, memref<13x11xf32, strided<[13, 1], offset: 27>>, memref<13x11xf32, strided<[13, 1], offset: 13>>, memref<13x11xf32, strided<[13, 1], offset: 15>>, memref<13x11xf32, strided<[13, 1], offset: 14>>)
      outs(%Y : memref<13x11xf32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
            affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>] {
  ^bb0(%n: f32, %s: f32, %w: f32, %e: f32, %c: f32):
    %four = arith.constant 4.0 : f32
    %cc = arith.mulf %c, %four : f32
    %a = arith.addf %n, %s : f32
    %b = arith.addf %w, %e : f32
    %ab = arith.addf %a, %b : f32
    %r = arith.subf %cc, %ab : f32
    ext.yield %r : f32
  }
  memref.dealloc %P : memref<15x13xf32>
  return
}

func.func @check(%A: memref<13x11xf32>, %B: memref<13x11xf32>) {
  %err = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"i", reduce, 13>, #ext.axis<"j", reduce, 11>]
      ins(%A, %B : memref<13x11xf32>, memref<13x11xf32>) outs(%err : memref<f32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>] combiner(max) {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %m = math.absf %d : f32
    ext.yield %m : f32
  }
  %u = memref.cast %err : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %X = memref.alloc() : memref<13x11xf32>
  %Y = memref.alloc() : memref<13x11xf32>
  %H = memref.alloc() : memref<13x11xf32>
  %R = memref.alloc() : memref<13x11xf32>
  ext.compute [#ext.axis<"i", spatial, 13>, #ext.axis<"j", spatial, 11>] outs(%X : memref<13x11xf32>)
      maps [affine_map<(i, j) -> (i, j)>] {
  ^bb0:
    %i = ext.index "i" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(i, j) -> ((i * 3 + j * 5) mod 11)>(%i, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  call @stencil(%X, %Y) : (memref<13x11xf32>, memref<13x11xf32>) -> ()
  call @stencil_host(%X, %H) : (memref<13x11xf32>, memref<13x11xf32>) -> ()
  call @reference(%X, %R) : (memref<13x11xf32>, memref<13x11xf32>) -> ()
  call @check(%Y, %R) : (memref<13x11xf32>, memref<13x11xf32>) -> ()
  call @check(%H, %R) : (memref<13x11xf32>, memref<13x11xf32>) -> ()
  return
}
