// The README's example kernel runs and computes numpy's numbers (first and
// last rows checked here; scripts/demo.sh compares every element).
// RUN: ext-run %ext_src/examples/kernels/matmul.mlir | FileCheck %s
// CHECK: rank = 2 offset = 0 sizes = [48, 40] strides = [40, 1]
// CHECK-NEXT: {{\[\[}}-189, -339, -177, 154, 303, 244, -75, -303, -297, 21, 235, 306, 117,
// The last row (numpy: C[47, :]), closing the matrix:
// CHECK: [130, -203, -367, -219, 150, 337, 264, -4, -324, -332, -41, 276, 333, 130, -203, -367, -219, 150, 337, 264, -4, -324, -332, -41, 276, 333, 130, -203, -367, -219, 150, 337, 264, -4, -324, -332, -41, 276, 333, 130]]
