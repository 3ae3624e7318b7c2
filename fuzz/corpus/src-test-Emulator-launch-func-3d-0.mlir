// Hand-written outlined IR: a gpu.module kernel launched with gpu.launch_func
// on a 3-D grid (2x3x2) of 3-D blocks (2x2x2), calling a device function.
// out[block][thread] = 1000 * linear(block id) + 100 * tz + 10 * ty + tx,
// with gpu.global_id cross-checked against block_id * block_dim + thread_id.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func @encode(%b: index, %t: index) -> i32 {
      %c1000 = arith.constant 1000 : index
      %p = arith.muli %b, %c1000 : index
      %s = arith.addi %p, %t : index
      %r = arith.index_cast %s : index to i32
      return %r : i32
    }
    gpu.func @ids(%out: memref<12x8xi32>, %bad: memref<1xi32>) kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %tz = gpu.thread_id z
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %bz = gpu.block_id z
      %nx = gpu.block_dim x
      %ny = gpu.block_dim y
      %gx = gpu.grid_dim x
      %gy = gpu.grid_dim y
      %c10 = arith.constant 10 : index
      %c100 = arith.constant 100 : index
      %t1 = arith.muli %tz, %c100 : index
      %t2 = arith.muli %ty, %c10 : index
      %t3 = arith.addi %t1, %t2 : index
      %tcode = arith.addi %t3, %tx : index
      %b1 = arith.muli %bz, %gy : index
      %b2 = arith.addi %b1, %by : index
      %b3 = arith.muli %b2, %gx : index
      %blin = arith.addi %b3, %bx : index
      %l1 = arith.muli %tz, %ny : index
      %l2 = arith.addi %l1, %ty : index
      %l3 = arith.muli %l2, %nx : index
      %tlin = arith.addi %l3, %tx : index
      %v = func.call @encode(%blin, %tcode) : (index, index) -> i32
      memref.store %v, %out[%blin, %tlin] : memref<12x8xi32>
      // gpu.global_id y must be block_id y * block_dim y + thread_id y.
      %gid = gpu.global_id y
      %e1 = arith.muli %by, %ny : index
      %e2 = arith.addi %e1, %ty : index
      %ok = arith.cmpi eq, %gid, %e2 : index
      scf.if %ok {
      } else {
        %c0 = arith.constant 0 : index
        %one = arith.constant 1 : i32
        memref.store %one, %bad[%c0] : memref<1xi32>
      }
      gpu.return
    }
  }

  func.func private @printMemrefI32(memref<*xi32>) attributes { llvm.emit_c_interface }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %out = memref.alloc() : memref<12x8xi32>
    %bad = memref.alloc() : memref<1xi32>
    memref.store %zero, %bad[%c0] : memref<1xi32>
    gpu.launch_func @kernels::@ids blocks in (%c2, %c3, %c2) threads in (%c2, %c2, %c2)
        args(%out : memref<12x8xi32>, %bad : memref<1xi32>)
    %u = memref.cast %out : memref<12x8xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    %ub = memref.cast %bad : memref<1xi32> to memref<*xi32>
    call @printMemrefI32(%ub) : (memref<*xi32>) -> ()
    return
  }
}
