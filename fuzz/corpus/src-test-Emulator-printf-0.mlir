// gpu.printf with integer, index and float arguments (promoted as C varargs
// need). Round-robin prints in thread order; any schedule prints every line.

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c3, %sy = %c1, %sz = %c1) {
    %t = arith.index_cast %tx : index to i32
    %small = arith.trunci %t : i32 to i8
    %f = arith.sitofp %t : i32 to f32
    %q = arith.constant 0.25 : f32
    %fq = arith.addf %f, %q : f32
    %d = arith.extf %fq : f32 to f64
    gpu.printf "block %ld thread %d (%d): %.2f %g\n", %bx, %t, %small, %fq, %d : index, i32, i8, f32, f64
    gpu.terminator
  }
  return
}
