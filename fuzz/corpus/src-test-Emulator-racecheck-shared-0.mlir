// Race detection in workgroup memory: races are reported with the kind, the
// buffer and byte offset, both threads and both ops' locations, deduplicated per pair
// of ops with a count, and the run fails.

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

// A tile overwritten in the next iteration of a loop without a barrier
// between the last reads of one iteration and the first writes of the next:
// write-after-read. Even lock step (round-robin), which gets the numbers
// right, is reported: racecheck does not depend on the interleaving.
func.func @loop_tile() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %out = memref.alloc() : memref<32xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %tile = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
    %c31 = arith.constant 31 : index
    %mirror = arith.subi %c31, %tx : index
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> f32 {
      %ki = arith.index_cast %k : index to i32
      %kf = arith.sitofp %ki : i32 to f32
      memref.store %kf, %tile[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %v = memref.load %tile[%mirror] : memref<32xf32, #gpu.address_space<workgroup>>
      %a = arith.addf %acc, %v : f32
      scf.yield %a : f32
    }
    memref.store %sum, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}
// With random interleaving, the next iteration's write also races with late
// readers of this one (read-after-write: the reader may see either value).

// The same loop with the barrier: race-free.
func.func @loop_tile_ok() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %out = memref.alloc() : memref<32xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %tile = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
    %c31 = arith.constant 31 : index
    %mirror = arith.subi %c31, %tx : index
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> f32 {
      %ki = arith.index_cast %k : index to i32
      %kf = arith.sitofp %ki : i32 to f32
      memref.store %kf, %tile[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %v = memref.load %tile[%mirror] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %a = arith.addf %acc, %v : f32
      scf.yield %a : f32
    }
    memref.store %sum, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// The warp model (NVIDIA since Volta, independent thread scheduling): a
// warp collective exchanges its values and nothing else; it does not order
// memory between lanes. Lane l writes slot l, shuffles, then reads slot
// l ^ 1: a race (on a GPU __syncwarp would be needed).
func.func @shuffle_no_order() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %out = memref.alloc() : memref<32xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %sh = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
    %ti = arith.index_cast %tx : index to i32
    %f = arith.sitofp %ti : i32 to f32
    memref.store %f, %sh[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    %one = arith.constant 1 : i32
    %w = arith.constant 32 : i32
    %s, %valid = gpu.shuffle xor %f, %one, %w : f32
    %p = arith.xori %ti, %one : i32
    %pi = arith.index_cast %p : i32 to index
    %v = memref.load %sh[%pi] : memref<32xf32, #gpu.address_space<workgroup>>
    %r = arith.addf %v, %s : f32
    memref.store %r, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  %u = memref.cast %out : memref<32xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// A thread reading and rewriting its own slots, no barrier: no race.
func.func @same_thread() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %sh = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
    %ti = arith.index_cast %tx : index to i32
    memref.store %ti, %sh[%tx] : memref<64xi32, #gpu.address_space<workgroup>>
    %v = memref.load %sh[%tx] : memref<64xi32, #gpu.address_space<workgroup>>
    %one = arith.constant 1 : i32
    %w = arith.addi %v, %one : i32
    memref.store %w, %sh[%tx] : memref<64xi32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// Views of dynamic workgroup memory without a barrier between the writes and
// the mirrored reads: the report names the dynamic memory and the view.
func.func @dynamic_views() {
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %bytes = arith.constant 48 : i32
  %out = memref.alloc() : memref<6xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c6, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %bytes {
    %dyn = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %c24 = arith.constant 24 : index
    %hi = memref.view %dyn[%c24][%sx] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf32, #gpu.address_space<workgroup>>
    %ti = arith.index_cast %tx : index to i32
    %tf = arith.sitofp %ti : i32 to f32
    memref.store %tf, %hi[%tx] : memref<?xf32, #gpu.address_space<workgroup>>
    %c5 = arith.constant 5 : index
    %m = arith.subi %c5, %tx : index
    %v = memref.load %hi[%m] : memref<?xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tx] : memref<6xf32>
    gpu.terminator
  }
  %u = memref.cast %out : memref<6xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
