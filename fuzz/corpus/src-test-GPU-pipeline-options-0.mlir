// Invalid ext-gpu-pipeline options are diagnosed, never accepted or crashed on.
// The same checks guard the textual form.


func.func @f() {
  return
}
