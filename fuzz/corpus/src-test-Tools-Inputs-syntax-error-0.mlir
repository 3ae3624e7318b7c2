// A missing operand.
func.func @main() {
  %c = arith.constant 1.0 : f32
  %d = arith.addf %c, : f32
  return
}
