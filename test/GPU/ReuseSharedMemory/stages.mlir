// Shared-memory reuse counts pipelined stage buffers: the f32 GEMM example
// (stages = 3, A and B cached) has 3 x 2 tiles of 4 KiB, all live across the
// k-loop (each step reads one stage while the copies of the next ones land
// in the others), so none may share bytes: 24 KiB, the lower bound, packed
// exactly. With stages = 2 the same kernel needs 16 KiB. (The example also
// stages its output, a 64 KiB tile dead during the k-loop: the stage buffers
// fit in its bytes, as STAGED checks; the others leave it out.)
// RUN: sed 's/, #ext.cache<operand = 2>//' %ext_src/examples/kernels/gemm_f32.mlir | ext-opt --ext-schedule-to-gpu --ext-gpu-reuse-shared-memory=report=true -o /dev/null 2>&1 | FileCheck %s
// RUN: sed 's/, #ext.cache<operand = 2>//; s/stages = 3/stages = 2/' %ext_src/examples/kernels/gemm_f32.mlir | ext-opt --ext-schedule-to-gpu --ext-gpu-reuse-shared-memory=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWO
// CHECK-LABEL: ext-gpu-reuse-shared-memory: kernel @gemm
// CHECK-COUNT-6: memref<1024xf32, #gpu.address_space<workgroup>> 4096 16
// CHECK: total 24576 B, lower bound 24576 B, naive sum 24576 B{{.*}}proved optimal
// TWO-LABEL: ext-gpu-reuse-shared-memory: kernel @gemm
// TWO-COUNT-4: memref<1024xf32, #gpu.address_space<workgroup>> 4096 16
// TWO: total 16384 B, lower bound 16384 B
// RUN: ext-opt %ext_src/examples/kernels/gemm_f32.mlir --ext-schedule-to-gpu --ext-gpu-reuse-shared-memory=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGED
// STAGED-LABEL: ext-gpu-reuse-shared-memory: kernel @gemm
// STAGED-COUNT-6: memref<1024xf32, #gpu.address_space<workgroup>> 4096 16
// STAGED: memref<16384xf32, #gpu.address_space<workgroup>> 65536 16 {{.*}} 0
// STAGED: total 65536 B, lower bound 65536 B, naive sum 90112 B{{.*}}proved optimal
