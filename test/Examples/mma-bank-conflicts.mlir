// The tensor-core examples' ldmatrix reads are free of bank conflicts on the
// emulator's bank model (issue 19, item 5): their storage_align padding puts
// the eight 16-byte rows of each 8x8 matrix in different banks. Without the
// padding the same kernel gives the same numbers with 8-way conflicts in the
// tile compute (A's and B's 128-byte rows repeat the banks every row), so
// the padded check can fail.
// RUN: ext-run --bank-conflicts %ext_src/examples/kernels/gemm_f16_mma.mlir 2>&1 | FileCheck %s --check-prefix=PADDED
// RUN: ext-run --bank-conflicts %ext_src/examples/kernels/gemm_f16_mma_large.mlir 2>&1 | FileCheck %s --check-prefix=PADDED
// PADDED: ratio  1.000  worst  1-way  at {{.*}} (tile compute)

// RUN: sed -e 's/#ext.cache<operand = 0, align = \[#ext.storage_align<dim = 0, factor = 64, offset = 8>\]>,/#ext.cache<operand = 0>,/' \
// RUN:     -e 's/#ext.cache<operand = 1, align = \[#ext.storage_align<dim = 0, factor = 64, offset = 8>\]>\]>/#ext.cache<operand = 1>]>/' \
// RUN:     %ext_src/examples/kernels/gemm_f16_mma.mlir > %t.unpadded.mlir
// RUN: not grep storage_align %t.unpadded.mlir
// RUN: ext-run --bank-conflicts %t.unpadded.mlir 2>&1 | FileCheck %s --check-prefix=UNPADDED
// UNPADDED: ratio  8.000  worst  8-way  at {{.*}} (tile compute)
// UNPADDED: data =
// UNPADDED-NEXT: [0]

// ext-gpu-bank-conflicts' static worst case agrees: it models each ldmatrix as
// the lanes' 16-byte row loads (8 rows per phase). The padded example's 16
// ldmatrix are all 1-way (count, n-way); unpadded, all are 8-way.
// RUN: ext-opt %ext_src/examples/kernels/gemm_f16_mma.mlir --ext-schedule-to-gpu --ext-gpu-bank-conflicts=summary=true -o /dev/null 2>&1 | grep "nvgpu.ldmatrix tile compute" | awk '{print $1}' | sort | uniq -c | FileCheck %s --check-prefix=STATIC
// STATIC: {{^ *}}16 1{{$}}
// STATIC-NOT: {{.}}
// RUN: ext-opt %t.unpadded.mlir --ext-schedule-to-gpu --ext-gpu-bank-conflicts=summary=true -o /dev/null 2>&1 | grep "nvgpu.ldmatrix tile compute" | awk '{print $1}' | sort | uniq -c | FileCheck %s --check-prefix=STATIC-UNPADDED
// STATIC-UNPADDED: {{^ *}}16 8{{$}}
