// Every generated kernel (each example under examples/kernels, with and
// without ext-gpu-reuse-shared-memory) runs under the emulator's race detection
// and has no race; the script globs the directory, so new examples are
// covered. The debug options that drop a barrier give the expected reports.
// RUN: bash %S/Inputs/racecheck-examples.sh ext-run %ext_src/examples/kernels | FileCheck %s
// CHECK-NOT: FAILED
// CHECK: race-free: gemm_f32.mlir reuse=true
// CHECK-NOT: FAILED
// CHECK: racecheck: {{[0-9]+}} runs, 0 failed

// The pipelined k-loop's one barrier (after the wait for the step's stage)
// dropped: threads read the stage other threads are still storing, and the
// copies of the stage ahead overwrite the tiles others still read. (The
// output's staging tile shares their bytes: a race may name both. The 64 KB
// are dynamic shared memory, as on the default chip, sm_80.)
// RUN: not ext-run --racecheck --drop-barrier=0 %ext_src/examples/kernels/gemm_f32.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=DROP
// DROP: ext-emu: error: kernel 'gemm_kernel' (launched at {{.*}}gemm_f32.mlir:23:3): racecheck: 4 data races
// Each side names its phase of the schedule and the tile it touches.
// DROP-DAG: ext-emu: race: read-after-write on shared memory, byte {{[0-9]+}} of dynamic shared memory, in {{.*}}(memref<1024xf32>, at {{.*}}gemm_f32.mlir:23:3 (shared tile of input 0, stage {{[012]}})) at byte {{[0-9]+}}{{.*}}: write by thread ({{[0-9]+}}, 0, 0) of block ({{[0-9]+}}, 0, 0) at {{.*}}gemm_f32.mlir:23:3 (staged copy of input 0 into shared memory), then read by thread ({{[0-9]+}}, 0, 0) of block ({{[0-9]+}}, 0, 0) at {{.*}}gemm_f32.mlir:23:3 (tile compute) ({{[0-9]+}} times)
// DROP-DAG: ext-emu: race: write-after-read on shared memory, byte {{[0-9]+}} of dynamic shared memory, in {{.*}}(memref<1024xf32>, at {{.*}}gemm_f32.mlir:23:3 (shared tile of input 0, stage {{[012]}})) at byte {{[0-9]+}}{{.*}}: read by thread ({{[0-9]+}}, 0, 0) of block ({{[0-9]+}}, 0, 0) at {{.*}}gemm_f32.mlir:23:3 (tile compute), then write by thread ({{[0-9]+}}, 0, 0) of block ({{[0-9]+}}, 0, 0) at {{.*}}gemm_f32.mlir:23:3 (staged copy of input 0 into shared memory) ({{[0-9]+}} times)
// DROP-DAG: ext-emu: race: read-after-write on shared memory, byte {{[0-9]+}} of dynamic shared memory, in {{.*}}(memref<1024xf32>, at {{.*}}gemm_f32.mlir:23:3 (shared tile of input 1, stage {{[012]}})) at byte {{[0-9]+}}{{.*}}: write by thread ({{[0-9]+}}, 0, 0) of block ({{[0-9]+}}, 0, 0) at {{.*}}gemm_f32.mlir:23:3 (staged copy of input 1 into shared memory), then read by thread ({{[0-9]+}}, 0, 0) of block ({{[0-9]+}}, 0, 0) at {{.*}}gemm_f32.mlir:23:3 (tile compute) ({{[0-9]+}} times)
// DROP-DAG: ext-emu: race: write-after-read on shared memory, byte {{[0-9]+}} of dynamic shared memory, in {{.*}}(memref<1024xf32>, at {{.*}}gemm_f32.mlir:23:3 (shared tile of input 1, stage {{[012]}})) at byte {{[0-9]+}}{{.*}}: read by thread ({{[0-9]+}}, 0, 0) of block ({{[0-9]+}}, 0, 0) at {{.*}}gemm_f32.mlir:23:3 (tile compute), then write by thread ({{[0-9]+}}, 0, 0) of block ({{[0-9]+}}, 0, 0) at {{.*}}gemm_f32.mlir:23:3 (staged copy of input 1 into shared memory) ({{[0-9]+}} times)

// Shared-memory reuse without its hazard barrier: B's writes overwrite A
// while other threads still read it; the report names both buffers that
// share the bytes.
// RUN: ext-run --racecheck %ext_src/test/GPU/ReuseSharedMemory/execution.mlir > /dev/null
// RUN: not ext-run --racecheck --drop-hazard-barriers %ext_src/test/GPU/ReuseSharedMemory/execution.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=HAZARD
// HAZARD: racecheck: 2 data races
// HAZARD-DAG: ext-emu: race: write-after-read on shared memory, byte {{[0-9]+}} of workgroup buffer 0 (memref<1024xi8>, at {{.*}}execution.mlir:20:3), in 'memref.view' (memref<256xi32>, at {{.*}}execution.mlir:22:24) at byte {{[0-9]+}} or 'memref.view' (memref<256xi32>, at {{.*}}execution.mlir:23:24) at byte {{[0-9]+}}: read by thread ({{[0-9]+}}, 0, 0) of block (0, 0, 0) at {{.*}}execution.mlir:30:10, then write by thread ({{[0-9]+}}, 0, 0) of block (0, 0, 0) at {{.*}}execution.mlir:34:5
// HAZARD-DAG: ext-emu: race: read-after-write on shared memory, byte {{[0-9]+}} of workgroup buffer 0 (memref<1024xi8>, at {{.*}}execution.mlir:20:3), in 'memref.view' (memref<256xi32>, at {{.*}}execution.mlir:22:24) at byte {{[0-9]+}} or 'memref.view' (memref<256xi32>, at {{.*}}execution.mlir:23:24) at byte {{[0-9]+}}: write by thread ({{[0-9]+}}, 0, 0) of block (0, 0, 0) at {{.*}}execution.mlir:34:5, then read by thread ({{[0-9]+}}, 0, 0) of block (0, 0, 0) at {{.*}}execution.mlir:30:10

// A Stream-K owner that does not wait for its contributors' flags reads
// their partials unordered: a race on the workspace (a kernel argument).
// RUN: ext-opt %ext_src/examples/kernels/gemm_streamk.mlir --ext-apply-schedule --ext-kernel-to-gpu=drop-fixup-wait=true -o %t.nowait.mlir
// RUN: not ext-run --racecheck %t.nowait.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=NOWAIT
// NOWAIT: ext-emu: error: kernel 'gemm_streamk_kernel' {{.*}}: racecheck: {{[0-9]+}} data races
// NOWAIT: ext-emu: race: {{.*}} on global memory, byte {{[0-9]+}} of argument {{[0-9]+}} of @gemm_streamk_kernel (memref<{{[0-9]+}}xi8>

// A contributor that sets its flag without the release fence before it: the
// flag is a relaxed atomic, so nothing orders the partials it stored before
// the owner's reads of them, although the owner waits and fences.
// RUN: ext-opt %ext_src/examples/kernels/gemm_streamk.mlir --ext-apply-schedule --ext-kernel-to-gpu=drop-fixup-fence=true -o %t.nofence.mlir
// RUN: not ext-run --racecheck %t.nofence.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=NOFENCE
// NOFENCE: ext-emu: error: kernel 'gemm_streamk_kernel' {{.*}}: racecheck: {{[0-9]+}} data race
// NOFENCE: ext-emu: race: read-after-write on global memory, byte {{[0-9]+}} of argument {{[0-9]+}} of @gemm_streamk_kernel (memref<{{[0-9]+}}xi8>
// The same kernel with its fence is clean.
// RUN: ext-opt %ext_src/examples/kernels/gemm_streamk.mlir --ext-apply-schedule --ext-kernel-to-gpu -o %t.fence.mlir
// RUN: ext-run --racecheck %t.fence.mlir | grep -v base@ | FileCheck %s --check-prefix=FENCE
// FENCE: [0]
