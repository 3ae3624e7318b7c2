// The README's example kernel runs and computes numpy's numbers (first and
// last rows checked here; scripts/demo.sh compares every element).
// The last row (numpy: C[47, :]), closing the matrix:
