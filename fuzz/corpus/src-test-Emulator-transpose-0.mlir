// Transpose of a 6x8 matrix through a padded 4x5 workgroup tile, with 2-D
// blocks of 4x4 threads on a 2x2 grid (edge tiles partly outside the
// matrix): load a tile row-wise, barrier, store it column-wise.

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<6x8xf32>
  %t = memref.alloc() : memref<8x6xf32>
  scf.for %i = %c0 to %c6 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %k = arith.muli %i, %c8 : index
      %l = arith.addi %k, %j : index
      %li = arith.index_cast %l : index to i32
      %f = arith.sitofp %li : i32 to f32
      memref.store %f, %a[%i, %j] : memref<6x8xf32>
    }
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c4, %sz = %c1)
             workgroup(%tile : memref<4x5xf32, #gpu.address_space<workgroup>>) {
    %row0 = arith.muli %by, %c4 : index
    %col0 = arith.muli %bx, %c4 : index
    %r = arith.addi %row0, %ty : index
    %c = arith.addi %col0, %tx : index
    %rin = arith.cmpi ult, %r, %c6 : index
    %cin = arith.cmpi ult, %c, %c8 : index
    %in = arith.andi %rin, %cin : i1
    scf.if %in {
      %v = memref.load %a[%r, %c] : memref<6x8xf32>
      memref.store %v, %tile[%ty, %tx] : memref<4x5xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    // Thread (tx, ty) writes t[col0 + ty][row0 + tx] = tile[tx][ty].
    %tr = arith.addi %col0, %ty : index
    %tc = arith.addi %row0, %tx : index
    %trin = arith.cmpi ult, %tr, %c8 : index
    %tcin = arith.cmpi ult, %tc, %c6 : index
    %tin = arith.andi %trin, %tcin : i1
    scf.if %tin {
      %v = memref.load %tile[%tx, %ty] : memref<4x5xf32, #gpu.address_space<workgroup>>
      memref.store %v, %t[%tr, %tc] : memref<8x6xf32>
    }
    gpu.terminator
  }
  %u = memref.cast %t : memref<8x6xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
