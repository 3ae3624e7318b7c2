// x = 2 x on the device for a host buffer of 8 ones; a read-only constant
// table goes in as well.
memref.global "private" constant @table : memref<8xf32> = dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]>
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  %x = memref.alloc() : memref<8xf32>
  linalg.fill ins(%one : f32) outs(%x : memref<8xf32>)
  %t = memref.get_global @table : memref<8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<8xf32>
    %w = memref.load %t[%tx] : memref<8xf32>
    %d = arith.addf %v, %v : f32
    %s = arith.addf %d, %w : f32
    memref.store %s, %x[%tx] : memref<8xf32>
    gpu.terminator
  }
  %u = memref.cast %x : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %x : memref<8xf32>
  return
}
