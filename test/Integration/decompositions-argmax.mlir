// Row argmax of a 96x200 matrix, a custom two-value reducer (value, index;
// ties to the smaller index), with its reduce axis split by Stream-K (3
// tiles of 13 iterations on 5 and 7 CTAs) and by split-K: the fixup
// combines partial (value, index) pairs with the reducer itself. Compared
// with the unscheduled reference: 0 values and 0 indices differ.
// RUN: sed 's/DECOMPOSITION/#ext.stream_k<grid = 5>/' %s | ext-run - | grep -v base@ | FileCheck %s
// RUN: sed 's/DECOMPOSITION/#ext.stream_k<grid = 7>/' %s | ext-run --emu-seed=3 - | grep -v base@ | FileCheck %s
// RUN: sed 's/DECOMPOSITION/#ext.split_k<slices = 4>/' %s | ext-run - | grep -v base@ | FileCheck %s
// RUN: sed 's/DECOMPOSITION/#ext.split_k<slices = 5, mode = parallel>/' %s | ext-run - | grep -v base@ | FileCheck %s
// RUN: sed 's/DECOMPOSITION/#ext.stream_k_2tile<sms = 2>/' %s | ext-run - | grep -v base@ | FileCheck %s
// CHECK: [0,  0]

func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}

func.func @argmax(%X: memref<96x200xf32>, %V: memref<96xf32>, %I: memref<96xi32>) {
  ext.compute [#ext.axis<"i", spatial, 96>, #ext.axis<"k", reduce, 200>]
      ins(%X : memref<96x200xf32>) outs(%V, %I : memref<96xf32>, memref<96xi32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0xFF800000 : f32, -1 : i32]
      attributes {schedule = #ext.schedule<tile = [32, 16], blocks = ["i"], threads = [32, 1],
                                           decomposition = DECOMPOSITION>} {
  ^bb0(%x: f32):
    %k = ext.index "k" : index
    %ki = arith.index_cast %k : index to i32
    ext.yield %x, %ki : f32, i32
  } reducer {
  ^bb0(%av: f32, %ai: i32, %v: f32, %vi: i32):
    %gt = arith.cmpf ogt, %v, %av : f32
    %eq = arith.cmpf oeq, %v, %av : f32
    %lt = arith.cmpi ult, %vi, %ai : i32
    %tie = arith.andi %eq, %lt : i1
    %take = arith.ori %gt, %tie : i1
    %rv = arith.select %take, %v, %av : f32
    %ri = arith.select %take, %vi, %ai : i32
    ext.yield %rv, %ri : f32, i32
  }
  return
}

func.func @reference(%X: memref<96x200xf32>, %V: memref<96xf32>, %I: memref<96xi32>) {
  ext.compute [#ext.axis<"i", spatial, 96>, #ext.axis<"k", reduce, 200>]
      ins(%X : memref<96x200xf32>) outs(%V, %I : memref<96xf32>, memref<96xi32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>]
      combiner(custom) identity [0xFF800000 : f32, -1 : i32] {
  ^bb0(%x: f32):
    %k = ext.index "k" : index
    %ki = arith.index_cast %k : index to i32
    ext.yield %x, %ki : f32, i32
  } reducer {
  ^bb0(%av: f32, %ai: i32, %v: f32, %vi: i32):
    %gt = arith.cmpf ogt, %v, %av : f32
    %eq = arith.cmpf oeq, %v, %av : f32
    %lt = arith.cmpi ult, %vi, %ai : i32
    %tie = arith.andi %eq, %lt : i1
    %take = arith.ori %gt, %tie : i1
    %rv = arith.select %take, %v, %av : f32
    %ri = arith.select %take, %vi, %ai : i32
    ext.yield %rv, %ri : f32, i32
  }
  return
}

func.func @main() {
  %X = memref.alloc() : memref<96x200xf32>
  // X[i, k] = (7i + 3k + ik) mod 17: many ties, maxima anywhere in a row.
  ext.compute [#ext.axis<"i", spatial, 96>, #ext.axis<"k", spatial, 200>]
      outs(%X : memref<96x200xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %ik = arith.muli %i, %k : index
    %v = affine.apply affine_map<(i, k, p) -> ((i * 7 + k * 3 + p) mod 17)>(%i, %k, %ik)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }
  %V = memref.alloc() : memref<96xf32>
  %I = memref.alloc() : memref<96xi32>
  %RV = memref.alloc() : memref<96xf32>
  %RI = memref.alloc() : memref<96xi32>
  call @argmax(%X, %V, %I) : (memref<96x200xf32>, memref<96xf32>, memref<96xi32>) -> ()
  call @reference(%X, %RV, %RI) : (memref<96x200xf32>, memref<96xf32>, memref<96xi32>) -> ()
  // Count the rows whose value, and whose index, differ.
  %diff = memref.alloc() : memref<2xi32>
  ext.compute [#ext.axis<"p", spatial, 2>, #ext.axis<"i", reduce, 96>]
      ins(%V, %RV, %I, %RI : memref<96xf32>, memref<96xf32>, memref<96xi32>, memref<96xi32>)
      outs(%diff : memref<2xi32>)
      maps [affine_map<(p, i) -> (i)>, affine_map<(p, i) -> (i)>, affine_map<(p, i) -> (i)>,
            affine_map<(p, i) -> (i)>, affine_map<(p, i) -> (p)>]
      combiner(sum) {
  ^bb0(%v: f32, %rv: f32, %x: i32, %rx: i32):
    %p = ext.index "p" : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %p, %c0 : index
    %dv = arith.cmpf une, %v, %rv : f32
    %di = arith.cmpi ne, %x, %rx : i32
    %d = arith.select %first, %dv, %di : i1
    %n = arith.extui %d : i1 to i32
    ext.yield %n : i32
  }
  %u = memref.cast %diff : memref<2xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
