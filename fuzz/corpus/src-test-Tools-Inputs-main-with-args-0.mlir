// @main with an argument cannot be run.
func.func @main(%x: f32) {
  return
}
