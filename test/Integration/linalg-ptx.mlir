// linalg through ext to PTX that ptxas accepts: the two examples and the
// batched GEMM and row max of linalg-batch-matmul-max.mlir, for sm_80 and
// sm_90. The softmax is one kernel: one .entry, and the only global stores
// are Y's (no buffer of the row max, row sum or exponentials is written).
// REQUIRES: ptxas
//
// RUN: for c in 80 90; do \
// RUN:   ext-opt %ext_src/examples/linalg/matmul.mlir --ext-gpu-pipeline="target=nvvm chip=sm_$c" 2>/dev/null | ext-translate --ext-to-ptx -o %t.mm.$c.ptx && \
// RUN:   %ptxas -arch=sm_$c %t.mm.$c.ptx -o /dev/null && \
// RUN:   ext-opt %ext_src/examples/linalg/softmax.mlir --ext-gpu-pipeline="target=nvvm chip=sm_$c" 2>/dev/null | ext-translate --ext-to-ptx -o %t.sm.$c.ptx && \
// RUN:   %ptxas -arch=sm_$c %t.sm.$c.ptx -o /dev/null && \
// RUN:   ext-opt %S/linalg-batch-matmul-max.mlir --ext-gpu-pipeline="target=nvvm chip=sm_$c" 2>/dev/null > %t.bm.$c.mlir && \
// RUN:   ext-translate %t.bm.$c.mlir --ext-to-ptx --ext-gpu-module=bmm_kernel -o %t.bmm.$c.ptx && \
// RUN:   ext-translate %t.bm.$c.mlir --ext-to-ptx --ext-gpu-module=rowmax_kernel -o %t.max.$c.ptx && \
// RUN:   %ptxas -arch=sm_$c %t.bmm.$c.ptx -o /dev/null && %ptxas -arch=sm_$c %t.max.$c.ptx -o /dev/null || exit 1; done
// RUN: FileCheck %s --check-prefix=SOFTMAX < %t.sm.90.ptx
// SOFTMAX: .entry softmax_kernel
// SOFTMAX-NOT: .entry
// RUN: grep -c "st.global" %t.sm.90.ptx | FileCheck %s --check-prefix=STORES
// STORES: {{^}}4{{$}}
