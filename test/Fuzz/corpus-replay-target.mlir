// The fuzz corpus (see corpus-replay.mlir) replayed through the fuzz target's
// own checks: a pass that succeeds must leave valid IR, a failing one must
// say why; a crash, an assert or a fatal error fails the test.
//
// The test command (scripts/test.sh) replays the same corpus through the same
// target built with ASan and UBSan (scripts/sanitize.sh); when it will, it
// sets lit's sanitized_replay parameter and this unsanitized copy of that
// replay is skipped.
// UNSUPPORTED: sanitized-replay
//
// RUN: ext-fuzz-replay %ext_obj/fuzz/corpus 2>%t.log | FileCheck %s
// CHECK: ext-fuzz-replay: {{[1-9][0-9][0-9]+}} inputs, no finding
