// A module without gpu ops is left exactly as it is.
func.func @plain() {
  %a = memref.alloc() : memref<4xf32, 3>
  return
}
