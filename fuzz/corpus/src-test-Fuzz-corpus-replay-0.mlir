// The fuzz corpus (fuzz/corpus/: seeds from test/ and examples/, generic-form
// ext ops with missing, extra and mistyped parts, minimized findings),
// replayed without fuzzing: through the fuzz target's own checks (a pass
// that succeeds must leave valid IR, a failing one must say why) and through
// ext-opt with every ext pass and pipeline. Diagnostics are expected; a
// crash, an assert or a fatal error fails the test.
//
//
