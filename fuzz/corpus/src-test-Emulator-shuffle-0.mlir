// gpu.shuffle in every mode, at width 32 and below, with the valid flag;
// gpu.rotate and gpu.subgroup_broadcast; a butterfly warp sum in f32.
// One block of 40 threads: warp 0 is full, warp 1 has 8 lanes, so sources
// beyond the block are invalid too. Each thread contributes its linear id
// and stores what it received, or -1 where `valid` is false.

func.func private @printMemrefI32(memref<*xi32>) attributes { llvm.emit_c_interface }
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @main() {
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %out = memref.alloc() : memref<10x40xi32>
  %sum = memref.alloc() : memref<40xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c40, %sy = %c1, %sz = %c1) {
    %v = arith.index_cast %tx : index to i32
    %none = arith.constant -1 : i32
    // xor 1, width 32
    %o0 = arith.constant 1 : i32
    %w0 = arith.constant 32 : i32
    %s0, %ok0 = gpu.shuffle xor %v, %o0, %w0 : i32
    %r0 = arith.select %ok0, %s0, %none : i32
    %row0 = arith.constant 0 : index
    memref.store %r0, %out[%row0, %tx] : memref<10x40xi32>
    // down 3, width 32
    %o1 = arith.constant 3 : i32
    %w1 = arith.constant 32 : i32
    %s1, %ok1 = gpu.shuffle down %v, %o1, %w1 : i32
    %r1 = arith.select %ok1, %s1, %none : i32
    %row1 = arith.constant 1 : index
    memref.store %r1, %out[%row1, %tx] : memref<10x40xi32>
    // up 2, width 32
    %o2 = arith.constant 2 : i32
    %w2 = arith.constant 32 : i32
    %s2, %ok2 = gpu.shuffle up %v, %o2, %w2 : i32
    %r2 = arith.select %ok2, %s2, %none : i32
    %row2 = arith.constant 2 : index
    memref.store %r2, %out[%row2, %tx] : memref<10x40xi32>
    // idx 5, width 32
    %o3 = arith.constant 5 : i32
    %w3 = arith.constant 32 : i32
    %s3, %ok3 = gpu.shuffle idx %v, %o3, %w3 : i32
    %r3 = arith.select %ok3, %s3, %none : i32
    %row3 = arith.constant 3 : index
    memref.store %r3, %out[%row3, %tx] : memref<10x40xi32>
    // xor 4, width 16
    %o4 = arith.constant 4 : i32
    %w4 = arith.constant 16 : i32
    %s4, %ok4 = gpu.shuffle xor %v, %o4, %w4 : i32
    %r4 = arith.select %ok4, %s4, %none : i32
    %row4 = arith.constant 4 : index
    memref.store %r4, %out[%row4, %tx] : memref<10x40xi32>
    // down 1, width 8
    %o5 = arith.constant 1 : i32
    %w5 = arith.constant 8 : i32
    %s5, %ok5 = gpu.shuffle down %v, %o5, %w5 : i32
    %r5 = arith.select %ok5, %s5, %none : i32
    %row5 = arith.constant 5 : index
    memref.store %r5, %out[%row5, %tx] : memref<10x40xi32>
    // up 1, width 8
    %o6 = arith.constant 1 : i32
    %w6 = arith.constant 8 : i32
    %s6, %ok6 = gpu.shuffle up %v, %o6, %w6 : i32
    %r6 = arith.select %ok6, %s6, %none : i32
    %row6 = arith.constant 6 : index
    memref.store %r6, %out[%row6, %tx] : memref<10x40xi32>
    // idx 9, width 16
    %o7 = arith.constant 9 : i32
    %w7 = arith.constant 16 : i32
    %s7, %ok7 = gpu.shuffle idx %v, %o7, %w7 : i32
    %r7 = arith.select %ok7, %s7, %none : i32
    %row7 = arith.constant 7 : index
    memref.store %r7, %out[%row7, %tx] : memref<10x40xi32>
    // rotate 1, width 8
    %s8, %ok8 = gpu.rotate %v, 1, 8 : i32
    %r8 = arith.select %ok8, %s8, %none : i32
    %row8 = arith.constant 8 : index
    memref.store %r8, %out[%row8, %tx] : memref<10x40xi32>
    // broadcast from lane 3 of each warp
    %lane3 = arith.constant 3 : i32
    %r9 = gpu.subgroup_broadcast %v, specific_lane %lane3 : i32
    %row9 = arith.constant 9 : index
    memref.store %r9, %out[%row9, %tx] : memref<10x40xi32>
    // butterfly sum: v += valid ? shuffle xor(v, off) : 0, off = 16 .. 1
    %f = arith.sitofp %v : i32 to f32
    %zero = arith.constant 0.0 : f32
    %c32i = arith.constant 32 : i32
    %bo0 = arith.constant 16 : i32
    %bs0, %bok0 = gpu.shuffle xor %f, %bo0, %c32i : f32
    %bv0 = arith.select %bok0, %bs0, %zero : f32
    %acc0 = arith.addf %f, %bv0 : f32
    %bo1 = arith.constant 8 : i32
    %bs1, %bok1 = gpu.shuffle xor %acc0, %bo1, %c32i : f32
    %bv1 = arith.select %bok1, %bs1, %zero : f32
    %acc1 = arith.addf %acc0, %bv1 : f32
    %bo2 = arith.constant 4 : i32
    %bs2, %bok2 = gpu.shuffle xor %acc1, %bo2, %c32i : f32
    %bv2 = arith.select %bok2, %bs2, %zero : f32
    %acc2 = arith.addf %acc1, %bv2 : f32
    %bo3 = arith.constant 2 : i32
    %bs3, %bok3 = gpu.shuffle xor %acc2, %bo3, %c32i : f32
    %bv3 = arith.select %bok3, %bs3, %zero : f32
    %acc3 = arith.addf %acc2, %bv3 : f32
    %bo4 = arith.constant 1 : i32
    %bs4, %bok4 = gpu.shuffle xor %acc3, %bo4, %c32i : f32
    %bv4 = arith.select %bok4, %bs4, %zero : f32
    %acc4 = arith.addf %acc3, %bv4 : f32
    memref.store %acc4, %sum[%tx] : memref<40xf32>
    gpu.terminator
  }
  %u = memref.cast %out : memref<10x40xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  %us = memref.cast %sum : memref<40xf32> to memref<*xf32>
  call @printMemrefF32(%us) : (memref<*xf32>) -> ()
  return
}

// Rows: the 8 shuffles in order, then rotate, then the broadcast.
// Warp 0 sums 0..31, warp 1 sums 32..39 (its xor 16 and 8 partners do not exist).
