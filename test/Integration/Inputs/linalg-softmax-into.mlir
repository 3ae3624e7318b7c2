// Appended to examples/linalg/softmax.mlir by linalg-examples.mlir: its
// @softmax (scheduled by the example's script) with the result written into
// an argument, which ext-run --entry saves for a reference outside ext.
func.func @softmax_into(%Xm: memref<37x1000xf32>, %Ym: memref<37x1000xf32>) {
  %X = bufferization.to_tensor %Xm restrict : memref<37x1000xf32> to tensor<37x1000xf32>
  %Y = call @softmax(%X) : (tensor<37x1000xf32>) -> tensor<37x1000xf32>
  bufferization.materialize_in_destination %Y in restrict writable %Ym
      : (tensor<37x1000xf32>, memref<37x1000xf32>) -> ()
  return
}
