// Long launches say how long they will take and, on a terminal, how far
// they are (runtime/cpu/Progress.h). EXT_EMU_PROGRESS=1 prints both from
// the first block, the progress one line per block; =0 and short launches
// off a terminal print nothing.
// RUN: env EXT_EMU_PROGRESS=1 ext-run %s 2>&1 >/dev/null | FileCheck %s
// RUN: env EXT_EMU_PROGRESS=0 ext-run %s 2>&1 >/dev/null | FileCheck %s --allow-empty --check-prefix=QUIET
// RUN: ext-run %s 2>&1 >/dev/null | FileCheck %s --allow-empty --check-prefix=QUIET
// RUN: env EXT_EMU_PROGRESS=yes not ext-run %s 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: ext-emu: kernel 'main_kernel': 4 blocks of 8 threads on {{[0-9]+}} worker thread{{s?}}; 1 blocks done in {{[0-9.]+}}s, the launch takes about {{[0-9.]+}}s
// CHECK-NEXT: ext-emu: kernel 'main_kernel': 1/4 blocks (25%), {{[0-9.]+}}s, about {{[0-9.]+}}s left
// CHECK-NEXT: ext-emu: kernel 'main_kernel': 2/4 blocks (50%)
// CHECK-NEXT: ext-emu: kernel 'main_kernel': 3/4 blocks (75%)
// CHECK-NEXT: ext-emu: kernel 'main_kernel': 4/4 blocks (100%)
// QUIET-NOT: ext-emu
// BAD: ext-emu: error: EXT_EMU_PROGRESS='yes' is not a non-negative integer

func.func @main() {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    gpu.printf "block %ld thread %ld\n", %bx, %tx : index, index
    gpu.terminator
  }
  return
}
