// Issue 59: a linalg.matmul with no rows (ext-from-linalg aborted in
// #ext.axis's builder); it stays linalg and runs as host loops.
func.func @main() {
  %A = memref.alloc() : memref<0x4xf32>
  %B = memref.alloc() : memref<4x8xf32>
  %C = memref.alloc() : memref<0x8xf32>
  linalg.matmul ins(%A, %B : memref<0x4xf32>, memref<4x8xf32>) outs(%C : memref<0x8xf32>)
  %ok = arith.constant 42 : index
  vector.print %ok : index
  memref.dealloc %A : memref<0x4xf32>
  memref.dealloc %B : memref<4x8xf32>
  memref.dealloc %C : memref<0x8xf32>
  return
}
