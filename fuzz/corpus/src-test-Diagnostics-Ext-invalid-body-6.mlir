func.func @index_outside_compute() -> index {
  // expected-error @+1 {{'ext.index' op must be inside the body of an ext.compute}}
  %i = ext.index "i" : index
  return %i : index
}
