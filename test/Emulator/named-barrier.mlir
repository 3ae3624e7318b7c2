// bar.sync id, count (nvvm.barrier with an id and a thread count): the
// first 64 threads of a 96-thread block meet at barrier 1 while the last
// warp never does (a warp-specialized kernel's consumers and producer).
// Warp 0 writes, warp 1 reads after the barrier: racecheck clean.
// RUN: ext-run --racecheck %s | FileCheck %s
// The value on the line after the header (a bare 7 could match the
// header's base address).
// CHECK: data =
// CHECK-NEXT: {{^}}[7]{{$}}
//
// A count that is no multiple of the warp size is refused; so are two uses
// of one barrier with different counts at once.
// RUN: not ext-run --entry=odd_count %s 2>&1 | FileCheck %s --check-prefix=ODD
// ODD: bar.sync 1, 48 at {{.*}} (needs a barrier 1 to 15 and a thread count that is a multiple of the warp size, at most the block's 96)
// RUN: not ext-run --entry=mismatch %s 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: bar.sync 2, {{32|64}} at {{.*}} while {{[0-9]+}} threads wait at barrier 2 for {{32|64}}
//
// A named barrier a warp short (it exited) never completes: a deadlock,
// reported.
// RUN: not ext-run --entry=short %s 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: deadlock: no thread can continue; in block (0, 0, 0): 64 threads wait at the named barrier 1 at {{.*}}, 32 exited

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

func.func @main() {
  %c1 = arith.constant 1 : index
  %c96 = arith.constant 96 : index
  %out = memref.alloc() : memref<1xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c96, %sy = %c1, %sz = %c1) {
    %buf = memref.alloca() : memref<1xf32, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %consumer = arith.cmpi ult, %tx, %c64 : index
    scf.if %consumer {
      %first = arith.cmpi eq, %tx, %c0 : index
      scf.if %first {
        %v = arith.constant 7.0 : f32
        memref.store %v, %buf[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
      }
      %id = arith.constant 1 : i32
      %n = arith.constant 64 : i32
      nvvm.barrier id = %id number_of_threads = %n
      %reader = arith.cmpi eq, %tx, %c32 : index
      scf.if %reader {
        %v = memref.load %buf[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
        memref.store %v, %out[%c0] : memref<1xf32>
      }
    }
    gpu.terminator
  }
  %u = memref.cast %out : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @odd_count() {
  %c1 = arith.constant 1 : index
  %c96 = arith.constant 96 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c96, %sy = %c1, %sz = %c1) {
    %id = arith.constant 1 : i32
    %n = arith.constant 48 : i32
    nvvm.barrier id = %id number_of_threads = %n
    gpu.terminator
  }
  return
}

func.func @mismatch() {
  %c1 = arith.constant 1 : index
  %c96 = arith.constant 96 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c96, %sy = %c1, %sz = %c1) {
    %c64 = arith.constant 64 : index
    %id = arith.constant 2 : i32
    %n64 = arith.constant 64 : i32
    %n32 = arith.constant 32 : i32
    %low = arith.cmpi ult, %tx, %c64 : index
    scf.if %low {
      nvvm.barrier id = %id number_of_threads = %n64
    } else {
      nvvm.barrier id = %id number_of_threads = %n32
    }
    gpu.terminator
  }
  return
}

func.func @short() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c96 = arith.constant 96 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c96, %sy = %c1, %sz = %c1) {
    %low = arith.cmpi ult, %tx, %c64 : index
    scf.if %low {
      %id = arith.constant 1 : i32
      %n = arith.constant 96 : i32
      nvvm.barrier id = %id number_of_threads = %n
    }
    gpu.terminator
  }
  return
}
