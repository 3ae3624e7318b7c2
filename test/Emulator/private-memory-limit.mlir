// RUN: not ext-run --reference %s 2>&1 | FileCheck %s --check-prefix=REFUSED --implicit-check-not="Stack dump"
// RUN: not ext-run %s 2>&1 | FileCheck %s --check-prefix=CHECKED --implicit-check-not="Stack dump"
// RUN: sed 's/262144xf32/65536xf32/g' %s > %t.mlir
// RUN: ext-run --reference %t.mlir 2>&1 | FileCheck %s --check-prefix=RUNS
// Issue 59: a kernel's private memory is on its threads' fiber stacks. The
// launch grows them by it (256 KB here, four times the default 64 KB stack:
// it used to overflow into the guard page, SIGSEGV) and refuses more than
// any GPU gives a thread (1 MB here), with an error and status 1. Without
// --reference, ext-gpu-check-resource-limits refuses it first, for the chip.
// REFUSED: ext-emu: error: kernel 'main_kernel' (launched at {{.*}}private-memory-limit.mlir:{{[0-9]+}}:3): each thread keeps 1048576 bytes of private memory; the emulator runs at most 524288 (512 KB, NVIDIA's local memory per thread, the most any GPU gives a thread)
// CHECKED: error: the kernel in @main keeps 1048576 bytes (1024.0 KB) of private buffers per thread; sm_80 gives a thread at most 524288 bytes (512.0 KB) of local memory
// RUNS: 7
func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %c1000 = arith.constant 1000 : index
  %out = memref.alloc() : memref<2xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c2, %sy = %c1, %sz = %c1)
             private(%p : memref<262144xf32, #gpu.address_space<private>>) {
    // The buffer starts at the deep end of the frame: element 0 is past
    // the default stack.
    %f = arith.constant 3.5 : f32
    memref.store %f, %p[%c0] : memref<262144xf32, #gpu.address_space<private>>
    memref.store %f, %p[%c1000] : memref<262144xf32, #gpu.address_space<private>>
    %a = memref.load %p[%c0] : memref<262144xf32, #gpu.address_space<private>>
    %b = memref.load %p[%c1000] : memref<262144xf32, #gpu.address_space<private>>
    %s = arith.addf %a, %b : f32
    memref.store %s, %out[%tx] : memref<2xf32>
    gpu.terminator
  }
  %r = memref.load %out[%c1] : memref<2xf32>
  vector.print %r : f32
  memref.dealloc %out : memref<2xf32>
  return
}
