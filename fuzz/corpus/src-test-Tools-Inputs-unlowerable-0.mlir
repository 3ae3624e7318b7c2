// Tensors are not bufferized by ext-cpu-pipeline: the tensor ops stay.
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
func.func @main() {
  %t = tensor.empty() : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %x = tensor.extract %t[%c0] : tensor<4xf32>
  %m = memref.alloc() : memref<f32>
  memref.store %x, %m[] : memref<f32>
  %u = memref.cast %m : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
