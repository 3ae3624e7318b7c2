// Dynamic workgroup memory sized at launch next to a static attribution:
// two f32 arrays of blockDim elements viewed out of gpu.dynamic_shared_memory.
// Each thread writes t and 10t, then after a barrier reads the mirrored
// thread's values and adds a static-memory value written by thread 0.

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %bytes = arith.constant 48 : i32
  %out = memref.alloc() : memref<6xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c6, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %bytes
             workgroup(%bias : memref<1xf32, #gpu.address_space<workgroup>>) {
    %dyn = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %c0i = arith.constant 0 : index
    %c24 = arith.constant 24 : index
    %lo = memref.view %dyn[%c0i][%sx] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf32, #gpu.address_space<workgroup>>
    %hi = memref.view %dyn[%c24][%sx] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf32, #gpu.address_space<workgroup>>
    %ti = arith.index_cast %tx : index to i32
    %tf = arith.sitofp %ti : i32 to f32
    %ten = arith.constant 10.0 : f32
    %t10 = arith.mulf %tf, %ten : f32
    memref.store %tf, %lo[%tx] : memref<?xf32, #gpu.address_space<workgroup>>
    memref.store %t10, %hi[%tx] : memref<?xf32, #gpu.address_space<workgroup>>
    %first = arith.cmpi eq, %tx, %c0i : index
    scf.if %first {
      %half = arith.constant 0.5 : f32
      memref.store %half, %bias[%c0i] : memref<1xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %c5 = arith.constant 5 : index
    %m = arith.subi %c5, %tx : index
    %a = memref.load %lo[%m] : memref<?xf32, #gpu.address_space<workgroup>>
    %b = memref.load %hi[%m] : memref<?xf32, #gpu.address_space<workgroup>>
    %c = memref.load %bias[%c0i] : memref<1xf32, #gpu.address_space<workgroup>>
    %s = arith.addf %a, %b : f32
    %r = arith.addf %s, %c : f32
    memref.store %r, %out[%tx] : memref<6xf32>
    gpu.terminator
  }
  %u = memref.cast %out : memref<6xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// 11 * (5 - t) + 0.5
