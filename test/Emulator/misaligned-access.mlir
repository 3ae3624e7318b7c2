// A GPU requires natural alignment of a 2- to 16-byte shared-memory access
// (a misaligned ld.shared.v4 faults) and of a cp.async's addresses; the CPU
// running the emulated kernel would not notice, so the emulator checks it.
// RUN: not ext-run --entry=misaligned %s 2>&1 >/dev/null | FileCheck %s --check-prefix=LOAD
// RUN: ext-run --entry=aligned %s 2>&1 | FileCheck %s --check-prefix=OK
// RUN: not ext-run --chip=sm_80 --entry=misaligned_copy %s 2>&1 >/dev/null | FileCheck %s --check-prefix=COPY
// LOAD: ext-emu: error: kernel {{.*}}: the 16-byte shared-memory access at {{.*}}misaligned-access.mlir:{{[0-9]+}}:{{[0-9]+}} is misaligned (workgroup byte 4; a GPU requires 16-byte alignment)
// OK: {{^}}8{{$}}
// COPY: ext-emu: error: kernel {{.*}}: the 16-byte asynchronous copy at {{.*}} is misaligned (workgroup byte 8,
// Global accesses reach the emulator's checks under --racecheck (a thread's
// private memory is not global: the register staging buffers are exempt).
// RUN: not ext-run --racecheck --entry=misaligned_global %s 2>&1 >/dev/null | FileCheck %s --check-prefix=GLOBAL
// GLOBAL: ext-emu: error: kernel {{.*}}: the 16-byte global-memory access at {{.*}} is misaligned (byte 4 of argument {{[0-9]+}} of @misaligned_global_kernel (memref<64xf32>{{.*}}); a GPU requires 16-byte alignment)

func.func @misaligned() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c8 = arith.constant 8 : index
    %tile = memref.alloc() : memref<16xf32, #gpu.address_space<workgroup>>
    %v = vector.load %tile[%c1] : memref<16xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.store %v, %tile[%c8] : memref<16xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    gpu.terminator
  }
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

func.func @aligned() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %tile = memref.alloc() : memref<16xf32, #gpu.address_space<workgroup>>
    %v = vector.load %tile[%c4] : memref<16xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.store %v, %tile[%c8] : memref<16xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    gpu.terminator
  }
  %c8 = arith.constant 8 : i64
  call @printI64(%c8) : (i64) -> ()
  call @printNewline() : () -> ()
  return
}

func.func @misaligned_copy() {
  %c1 = arith.constant 1 : index
  %src = memref.alloc() : memref<64xf16>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %tile = memref.alloc() : memref<64xf16, #gpu.address_space<workgroup>>
    %t = nvgpu.device_async_copy %src[%c0], %tile[%c4], 8 : memref<64xf16> to memref<64xf16, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t
    nvgpu.device_async_wait %g
    gpu.terminator
  }
  return
}

func.func @misaligned_global() {
  %c1 = arith.constant 1 : index
  %g = memref.alloc() : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c8 = arith.constant 8 : index
    %v = vector.load %g[%c1] : memref<64xf32>, vector<4xf32>
    vector.store %v, %g[%c8] : memref<64xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}
