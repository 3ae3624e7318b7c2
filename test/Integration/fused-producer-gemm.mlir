// compute_at under a k-loop: a GEMM whose body scales each product by a
// per-row factor from a reduction over A's row (an absmax, as quantization
// computes), attached at the GEMM's row tile. The reduction runs once per
// tile before the k-loop, reading A from global memory (the k-loop's shared
// tiles are per k-step), into shared memory the k-loop reads; with stages =
// 2 the pipelined k-loop reads it too. @main checks all four against the
// unscheduled computes (small integers: exact).
//
// RUN: ext-opt --ext-apply-schedule %s | FileCheck %s --check-prefix=KERNEL
// RUN: ext-opt --ext-schedule-to-gpu --ext-gpu-reuse-shared-memory=report=true %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REUSE
// RUN: ext-run --racecheck %s | FileCheck %s
// RUN: ext-run --racecheck --reuse-shared-memory=false %s | FileCheck %s

// The producer runs before the k-loop, the GEMM's tile compute reads its
// shared region.
// KERNEL-LABEL: func.func @scaled_gemm(
// KERNEL: ext.tile_compute [#ext.axis<"i", spatial, 16>, #ext.axis<"k", reduce, 40>] {{.*}} combiner(max)
// KERNEL: scf.for
// KERNEL: ext.tile_compute {{.*}} accumulate
// KERNEL-NOT: ext.compute
// KERNEL-LABEL: func.func @scaled_gemm_pipelined(
// KERNEL: combiner(max)
// KERNEL: scf.for

// The scratch of the absmax's cross-warp combine shares its bytes with the
// k-loop's tile of B (offset 0 both).
// REUSE-LABEL: kernel @scaled_gemm_rows4
// REUSE: memref<8xf32, #gpu.address_space<workgroup>> {{.*}} 0{{$}}
// REUSE: memref<512xf32, #gpu.address_space<workgroup>> {{.*}} 0{{$}}
// REUSE: footprint 2192 B with reuse, 2224 B without: 32 B shared

// CHECK-COUNT-4: [0]
// CHECK-NOT: [{{[1-9]}}

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
#s = affine_map<(i, j, k) -> (i)>

// C[i, j] = sum_k A[i, k] * B[k, j] * r[i], r[i] = 1 / (1 + max_k |A[i, k]|):
// the row scale computed at the GEMM's row tile, before its k-loop.
func.func @scaled_gemm(%A: memref<50x40xf32>, %B: memref<40x30xf32>, %C: memref<50x30xf32>) {
  %R = memref.alloc() : memref<50xf32>
  ext.compute [#ext.axis<"i", spatial, 50>, #ext.axis<"k", reduce, 40>]
      ins(%A : memref<50x40xf32>) outs(%R : memref<50xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) attributes {name = "absmax"} {
  ^bb0(%x: f32):
    %a = math.absf %x : f32
    ext.yield %a : f32
  }
  ext.compute [#ext.axis<"i", spatial, 50>, #ext.axis<"j", spatial, 30>, #ext.axis<"k", reduce, 40>]
      ins(%A, %B, %R : memref<50x40xf32>, memref<40x30xf32>, memref<50xf32>) outs(%C : memref<50x30xf32>)
      maps [#a, #b, #s, #c] combiner(sum)
      attributes {name = "C", schedule = #ext.schedule<tile = [16, 16, 8], blocks = ["i", "j"], threads = [8, 8, 1],
                  cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], stages = 1,
                  compute_at = [#ext.at<"absmax", "i">]>} {
  ^bb0(%x: f32, %y: f32, %m: f32):
    %one = arith.constant 1.0 : f32
    %d = arith.addf %m, %one : f32
    %p = arith.mulf %x, %y : f32
    %q = arith.divf %p, %d : f32
    ext.yield %q : f32
  }
  memref.dealloc %R : memref<50xf32>
  return
}

// The same with a 2-stage pipelined k-loop.
func.func @scaled_gemm_pipelined(%A: memref<50x40xf32>, %B: memref<40x30xf32>, %C: memref<50x30xf32>) {
  %R = memref.alloc() : memref<50xf32>
  ext.compute [#ext.axis<"i", spatial, 50>, #ext.axis<"k", reduce, 40>]
      ins(%A : memref<50x40xf32>) outs(%R : memref<50xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) attributes {name = "absmax"} {
  ^bb0(%x: f32):
    %a = math.absf %x : f32
    ext.yield %a : f32
  }
  ext.compute [#ext.axis<"i", spatial, 50>, #ext.axis<"j", spatial, 30>, #ext.axis<"k", reduce, 40>]
      ins(%A, %B, %R : memref<50x40xf32>, memref<40x30xf32>, memref<50xf32>) outs(%C : memref<50x30xf32>)
      maps [#a, #b, #s, #c] combiner(sum)
      attributes {name = "C", schedule = #ext.schedule<tile = [16, 16, 8], blocks = ["i", "j"], threads = [8, 8, 1],
                  cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], stages = 2,
                  compute_at = [#ext.at<"absmax", "i">]>} {
  ^bb0(%x: f32, %y: f32, %m: f32):
    %one = arith.constant 1.0 : f32
    %d = arith.addf %m, %one : f32
    %p = arith.mulf %x, %y : f32
    %q = arith.divf %p, %d : f32
    ext.yield %q : f32
  }
  memref.dealloc %R : memref<50xf32>
  return
}

// Four rows per tile on 256 threads: the absmax combines across two warps
// through a shared scratch, dead before the k-loop, whose tiles reuse its
// bytes.
func.func @scaled_gemm_rows4(%A: memref<50x40xf32>, %B: memref<40x30xf32>, %C: memref<50x30xf32>) {
  %R = memref.alloc() : memref<50xf32>
  ext.compute [#ext.axis<"i", spatial, 50>, #ext.axis<"k", reduce, 40>]
      ins(%A : memref<50x40xf32>) outs(%R : memref<50xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) attributes {name = "absmax"} {
  ^bb0(%x: f32):
    %a = math.absf %x : f32
    ext.yield %a : f32
  }
  ext.compute [#ext.axis<"i", spatial, 50>, #ext.axis<"j", spatial, 30>, #ext.axis<"k", reduce, 40>]
      ins(%A, %B, %R : memref<50x40xf32>, memref<40x30xf32>, memref<50xf32>) outs(%C : memref<50x30xf32>)
      maps [#a, #b, #s, #c] combiner(sum)
      attributes {name = "C", schedule = #ext.schedule<tile = [4, 64, 8], blocks = ["i", "j"], threads = [4, 64, 1],
                  cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], stages = 1,
                  compute_at = [#ext.at<"absmax", "i">]>} {
  ^bb0(%x: f32, %y: f32, %m: f32):
    %one = arith.constant 1.0 : f32
    %d = arith.addf %m, %one : f32
    %p = arith.mulf %x, %y : f32
    %q = arith.divf %p, %d : f32
    ext.yield %q : f32
  }
  memref.dealloc %R : memref<50xf32>
  return
}

// The whole reduction in one tile (no k-loop) and A cached: the absmax
// still reads A from global memory, the anchor copies its tile after it.
func.func @scaled_gemm_whole_k(%A: memref<50x40xf32>, %B: memref<40x30xf32>, %C: memref<50x30xf32>) {
  %R = memref.alloc() : memref<50xf32>
  ext.compute [#ext.axis<"i", spatial, 50>, #ext.axis<"k", reduce, 40>]
      ins(%A : memref<50x40xf32>) outs(%R : memref<50xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) attributes {name = "absmax"} {
  ^bb0(%x: f32):
    %a = math.absf %x : f32
    ext.yield %a : f32
  }
  ext.compute [#ext.axis<"i", spatial, 50>, #ext.axis<"j", spatial, 30>, #ext.axis<"k", reduce, 40>]
      ins(%A, %B, %R : memref<50x40xf32>, memref<40x30xf32>, memref<50xf32>) outs(%C : memref<50x30xf32>)
      maps [#a, #b, #s, #c] combiner(sum)
      attributes {name = "C", schedule = #ext.schedule<tile = [16, 16, 40], blocks = ["i", "j"], threads = [8, 8, 1],
                  cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], stages = 1,
                  compute_at = [#ext.at<"absmax", "i">]>} {
  ^bb0(%x: f32, %y: f32, %m: f32):
    %one = arith.constant 1.0 : f32
    %d = arith.addf %m, %one : f32
    %p = arith.mulf %x, %y : f32
    %q = arith.divf %p, %d : f32
    ext.yield %q : f32
  }
  memref.dealloc %R : memref<50xf32>
  return
}

func.func @reference(%A: memref<50x40xf32>, %B: memref<40x30xf32>, %C: memref<50x30xf32>) {
  %R = memref.alloc() : memref<50xf32>
  ext.compute [#ext.axis<"i", spatial, 50>, #ext.axis<"k", reduce, 40>]
      ins(%A : memref<50x40xf32>) outs(%R : memref<50xf32>)
      maps [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>] combiner(max) {
  ^bb0(%x: f32):
    %a = math.absf %x : f32
    ext.yield %a : f32
  }
  ext.compute [#ext.axis<"i", spatial, 50>, #ext.axis<"j", spatial, 30>, #ext.axis<"k", reduce, 40>]
      ins(%A, %B, %R : memref<50x40xf32>, memref<40x30xf32>, memref<50xf32>) outs(%C : memref<50x30xf32>)
      maps [#a, #b, #s, #c] combiner(sum) {
  ^bb0(%x: f32, %y: f32, %m: f32):
    %one = arith.constant 1.0 : f32
    %d = arith.addf %m, %one : f32
    %p = arith.mulf %x, %y : f32
    %q = arith.divf %p, %d : f32
    ext.yield %q : f32
  }
  memref.dealloc %R : memref<50xf32>
  return
}

func.func @main() {
  %A = memref.alloc() : memref<50x40xf32>
  %B = memref.alloc() : memref<40x30xf32>
  %C = memref.alloc() : memref<50x30xf32>
  %C2 = memref.alloc() : memref<50x30xf32>
  %C3 = memref.alloc() : memref<50x30xf32>
  %C4 = memref.alloc() : memref<50x30xf32>
  %R = memref.alloc() : memref<50x30xf32>
  %err = memref.alloc() : memref<f32>
  %err2 = memref.alloc() : memref<f32>
  %err3 = memref.alloc() : memref<f32>
  %err4 = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"i", spatial, 50>, #ext.axis<"k", spatial, 40>] outs(%A : memref<50x40xf32>) maps [affine_map<(i, k) -> (i, k)>] {
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 5 + k * 3) mod 7)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    %three = arith.constant 3.0 : f32
    %r = arith.subf %vf, %three : f32
    ext.yield %r : f32
  }
  ext.compute [#ext.axis<"k", spatial, 40>, #ext.axis<"j", spatial, 30>] outs(%B : memref<40x30xf32>) maps [affine_map<(k, j) -> (k, j)>] {
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 2 + j) mod 5)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    %two = arith.constant 2.0 : f32
    %r = arith.subf %vf, %two : f32
    ext.yield %r : f32
  }
  call @scaled_gemm(%A, %B, %C) : (memref<50x40xf32>, memref<40x30xf32>, memref<50x30xf32>) -> ()
  call @scaled_gemm_pipelined(%A, %B, %C2) : (memref<50x40xf32>, memref<40x30xf32>, memref<50x30xf32>) -> ()
  call @scaled_gemm_rows4(%A, %B, %C3) : (memref<50x40xf32>, memref<40x30xf32>, memref<50x30xf32>) -> ()
  call @scaled_gemm_whole_k(%A, %B, %C4) : (memref<50x40xf32>, memref<40x30xf32>, memref<50x30xf32>) -> ()
  call @reference(%A, %B, %R) : (memref<50x40xf32>, memref<40x30xf32>, memref<50x30xf32>) -> ()
  ext.compute [#ext.axis<"i", reduce, 50>, #ext.axis<"j", reduce, 30>] ins(%C, %R : memref<50x30xf32>, memref<50x30xf32>) outs(%err : memref<f32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>] combiner(max) {
  ^bb0(%x: f32, %y: f32):
    %d = arith.subf %x, %y : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }
  ext.compute [#ext.axis<"i", reduce, 50>, #ext.axis<"j", reduce, 30>] ins(%C2, %R : memref<50x30xf32>, memref<50x30xf32>) outs(%err2 : memref<f32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>] combiner(max) {
  ^bb0(%x: f32, %y: f32):
    %d = arith.subf %x, %y : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }
  %u = memref.cast %err : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  ext.compute [#ext.axis<"i", reduce, 50>, #ext.axis<"j", reduce, 30>] ins(%C3, %R : memref<50x30xf32>, memref<50x30xf32>) outs(%err3 : memref<f32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>] combiner(max) {
  ^bb0(%x: f32, %y: f32):
    %d = arith.subf %x, %y : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }
  %u2 = memref.cast %err2 : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
  ext.compute [#ext.axis<"i", reduce, 50>, #ext.axis<"j", reduce, 30>] ins(%C4, %R : memref<50x30xf32>, memref<50x30xf32>) outs(%err4 : memref<f32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>] combiner(max) {
  ^bb0(%x: f32, %y: f32):
    %d = arith.subf %x, %y : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }
  %u3 = memref.cast %err3 : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u3) : (memref<*xf32>) -> ()
  %u4 = memref.cast %err4 : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u4) : (memref<*xf32>) -> ()
  return
}
