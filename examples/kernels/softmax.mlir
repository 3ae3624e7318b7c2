// Row softmax of a ragged 37x1000 matrix, y = exp(x - max) / sum(exp(x - max)),
// as one kernel: the normalization is scheduled (one row per block, its
// 1000 columns in a 1024-wide tile on 256 threads, X cached in shared
// memory), and its schedule computes the row max and the row sum inside the
// kernel at the row tile (compute_at). Both are reduce axes bound to the
// block's 256 threads (a shuffle-xor butterfly in each warp, then the 8
// warps through shared memory) that read the row from the block's shared
// copy: X is read from global memory once, M and S never reach it.
//
// @main runs the kernel and the unscheduled reference (three loops on the
// host) and prints max |y - reference| and 1 if it is below 1e-6 (sums in
// another order).

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @softmax(%X: memref<37x1000xf32>, %Y: memref<37x1000xf32>) {
  %M = memref.alloc() : memref<37xf32>
  %S = memref.alloc() : memref<37xf32>
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"k", reduce, 1000>]
      ins(%X : memref<37x1000xf32>) outs(%M : memref<37xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max)
      attributes {name = "row_max"} {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"k", reduce, 1000>]
      ins(%X, %M : memref<37x1000xf32>, memref<37xf32>) outs(%S : memref<37xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>]
      combiner(sum) attributes {name = "row_sum"} {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"k", spatial, 1000>]
      ins(%X, %M, %S : memref<37x1000xf32>, memref<37xf32>, memref<37xf32>) outs(%Y : memref<37x1000xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>,
            affine_map<(i, k) -> (i, k)>]
      attributes {name = "y", schedule = #ext.schedule<tile = [1, 1024], blocks = ["i"], threads = [1, 256],
                  cache = [#ext.cache<operand = 0>], vector = 4,
                  compute_at = [#ext.at<"row_max", "i">, #ext.at<"row_sum", "i">]>} {
  ^bb0(%x: f32, %m: f32, %s: f32):
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    %y = arith.divf %e, %s : f32
    ext.yield %y : f32
  }
  memref.dealloc %M : memref<37xf32>
  memref.dealloc %S : memref<37xf32>
  return
}

func.func @reference(%X: memref<37x1000xf32>, %M: memref<37xf32>, %S: memref<37xf32>, %Y: memref<37x1000xf32>) {
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"k", reduce, 1000>]
      ins(%X : memref<37x1000xf32>) outs(%M : memref<37xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) {
  ^bb0(%x: f32):
    ext.yield %x : f32
  }
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"k", reduce, 1000>]
      ins(%X, %M : memref<37x1000xf32>, memref<37xf32>) outs(%S : memref<37xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>]
      combiner(sum) {
  ^bb0(%x: f32, %m: f32):
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    ext.yield %e : f32
  }
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"k", spatial, 1000>]
      ins(%X, %M, %S : memref<37x1000xf32>, memref<37xf32>, memref<37xf32>) outs(%Y : memref<37x1000xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>,
            affine_map<(i, k) -> (i, k)>] {
  ^bb0(%x: f32, %m: f32, %s: f32):
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    %y = arith.divf %e, %s : f32
    ext.yield %y : f32
  }
  return
}

func.func @main() {
  %X = memref.alloc() : memref<37x1000xf32>
  %Y = memref.alloc() : memref<37x1000xf32>
  %M2 = memref.alloc() : memref<37xf32>
  %S2 = memref.alloc() : memref<37xf32>
  %R = memref.alloc() : memref<37x1000xf32>
  %err = memref.alloc() : memref<f32>
  %ok = memref.alloc() : memref<1xf32>
  // x[i, k] = ((7i + 3k) mod 17) / 4 - 2
  ext.compute [#ext.axis<"i", spatial, 37>, #ext.axis<"k", spatial, 1000>]
      outs(%X : memref<37x1000xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 7 + k * 3) mod 17)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    %q = arith.constant 0.25 : f32
    %two = arith.constant 2.0 : f32
    %s = arith.mulf %vf, %q : f32
    %r = arith.subf %s, %two : f32
    ext.yield %r : f32
  }
  call @softmax(%X, %Y) : (memref<37x1000xf32>, memref<37x1000xf32>) -> ()
  call @reference(%X, %M2, %S2, %R) : (memref<37x1000xf32>, memref<37xf32>, memref<37xf32>, memref<37x1000xf32>) -> ()
  ext.compute [#ext.axis<"i", reduce, 37>, #ext.axis<"k", reduce, 1000>]
      ins(%Y, %R : memref<37x1000xf32>, memref<37x1000xf32>) outs(%err : memref<f32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> ()>]
      combiner(max) {
  ^bb0(%y: f32, %r: f32):
    %d = arith.subf %y, %r : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }
  ext.compute [#ext.axis<"o", spatial, 1>] ins(%err : memref<f32>) outs(%ok : memref<1xf32>)
      maps [affine_map<(o) -> ()>, affine_map<(o) -> (o)>] {
  ^bb0(%e: f32):
    %tol = arith.constant 1.0e-6 : f32
    %small = arith.cmpf olt, %e, %tol : f32
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.select %small, %one, %zero : f32
    ext.yield %r : f32
  }
  %ue = memref.cast %err : memref<f32> to memref<*xf32>
  %uo = memref.cast %ok : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%ue) : (memref<*xf32>) -> ()
  call @printMemrefF32(%uo) : (memref<*xf32>) -> ()
  return
}
