// A pipelined k-loop picks each k-step's stage tile with a chain of selects
// (select(s == 0, tile0, select(s == 1, tile1, tile2)), tagged
// ext.stage_select). Once reuse has placed the stage tiles of an input
// 4 KiB apart in one buffer, the chain becomes one view at offset
// o + s * 4096: a multiply-add per k-step instead of compares and selects.
// RUN: sed 's/, #ext.cache<operand = 2>//' %ext_src/examples/kernels/gemm_f32.mlir | ext-opt --ext-schedule-to-gpu | FileCheck %s --check-prefix=BEFORE
// RUN: sed 's/, #ext.cache<operand = 2>//' %ext_src/examples/kernels/gemm_f32.mlir | ext-opt --ext-schedule-to-gpu --ext-gpu-reuse-shared-memory | FileCheck %s

// BEFORE-LABEL: func.func @gemm
// BEFORE:         scf.for {{.*}} iter_args
// BEFORE-COUNT-2: arith.select {{.*}} {ext.stage_select}

// CHECK-LABEL: func.func @gemm
// CHECK:         gpu.launch
// CHECK-NOT:     ext.stage_select
// CHECK:         scf.for %{{.*}} = {{.*}} iter_args(%[[STAGE:arg[0-9]+]] = %{{[a-z0-9_]+}}, %[[COPY:arg[0-9]+]] = %{{[a-z0-9_]+}}) -> (index, index)
// CHECK-DAG:       arith.muli %[[STAGE]], %c4096{{[_0-9]*}} : index
// CHECK-DAG:       arith.muli %[[COPY]], %c4096{{[_0-9]*}} : index
// CHECK:           memref.view %{{.*}}[%{{.*}}][] : memref<{{[0-9]+}}xi8, #gpu.address_space<workgroup>> to memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-NOT:     ext.stage_select
// CHECK:         gpu.terminator
