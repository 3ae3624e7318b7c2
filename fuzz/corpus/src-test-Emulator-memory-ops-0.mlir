// Host-side gpu memory ops: gpu.host_register, gpu.alloc (dynamic size,
// global address space), gpu.memset, gpu.memcpy both ways, gpu.dealloc and
// async tokens chained through gpu.wait; the kernel doubles and adds 1.

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %host = memref.alloc() : memref<6xf32>
  %hostu = memref.cast %host : memref<6xf32> to memref<*xf32>
  gpu.host_register %hostu : memref<*xf32>
  scf.for %i = %c0 to %c6 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    memref.store %f, %host[%i] : memref<6xf32>
  }
  %t0 = gpu.wait async
  %dev, %t1 = gpu.alloc async [%t0] (%c6) : memref<?xf32, #gpu.address_space<global>>
  %scratch = gpu.alloc (%c6) : memref<?xf32>
  %seven = arith.constant 7.0 : f32
  gpu.memset %scratch, %seven : memref<?xf32>, f32
  %t2 = gpu.memcpy async [%t1] %dev, %host : memref<?xf32, #gpu.address_space<global>>, memref<6xf32>
  gpu.wait [%t2]
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c6, %sy = %c1, %sz = %c1) {
    %v = memref.load %dev[%tx] : memref<?xf32, #gpu.address_space<global>>
    %w = arith.addf %v, %v : f32
    %s = memref.load %scratch[%tx] : memref<?xf32>
    %one = arith.constant 1.0 : f32
    %p = arith.divf %s, %seven : f32
    %r = arith.addf %w, %p : f32
    memref.store %r, %dev[%tx] : memref<?xf32, #gpu.address_space<global>>
    gpu.terminator
  }
  gpu.memcpy %host, %dev : memref<6xf32>, memref<?xf32, #gpu.address_space<global>>
  %t3 = gpu.dealloc async %dev : memref<?xf32, #gpu.address_space<global>>
  gpu.wait [%t3]
  gpu.dealloc %scratch : memref<?xf32>
  call @printMemrefF32(%hostu) : (memref<*xf32>) -> ()
  return
}
