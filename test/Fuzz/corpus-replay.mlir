// The fuzz corpus (fuzz/corpus/: seeds from test/ and examples/, generic-form
// ext ops with missing, extra and mistyped parts, minimized findings),
// replayed without fuzzing: through the fuzz target's own checks (a pass
// that succeeds must leave valid IR, a failing one must say why) and through
// ext-opt with every ext pass and pipeline. Diagnostics are expected; a
// crash, an assert or a fatal error fails the test.
//
// RUN: ext-fuzz-replay %ext_src/fuzz/corpus 2>%t.log | FileCheck %s --check-prefix=TARGET
// TARGET: ext-fuzz-replay: {{[0-9]+}} inputs, no finding
//
// RUN: %python %ext_src/fuzz/replay.py --ext-opt ext-opt %ext_src/fuzz/corpus | FileCheck %s --check-prefix=OPT
// OPT: replay: ext-apply-schedule {{.*}} no crash
// OPT: replay: {{[0-9]+}} inputs x {{[0-9]+}} runs, no crash
