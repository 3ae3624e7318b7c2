// The fuzz corpus (generated into the build tree, build/fuzz/corpus, by the
// ext-fuzz-corpus target: seeds from test/ and examples/, generic-form ext
// ops with missing, extra and mistyped parts, and the inputs fuzz runs
// merged, fuzz/merged-inputs.tar.xz), replayed without fuzzing through
// ext-opt with every ext pass and pipeline. Diagnostics are expected; a
// crash, an assert or a fatal error fails the test, and so does a corpus of
// fewer than 100 inputs. corpus-replay-target.mlir replays it through the
// fuzz target's own checks.
//
// RUN: %python %ext_src/fuzz/replay.py --ext-opt ext-opt %ext_obj/fuzz/corpus | FileCheck %s --check-prefix=OPT
// OPT: replay: ext-apply-schedule {{.*}} no crash
// OPT: replay: {{[1-9][0-9][0-9]+}} inputs x {{[0-9]+}} runs, no crash
//
// A missing or empty corpus is a failure, not a pass over nothing.
// RUN: rm -rf %t.empty && mkdir %t.empty
// RUN: not ext-fuzz-replay %t.empty 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not ext-fuzz-replay %t.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not %python %ext_src/fuzz/replay.py --ext-opt ext-opt %t.empty | FileCheck %s --check-prefix=NOINPUT
// EMPTY: ext-fuzz-replay: no inputs
// MISSING: ext-fuzz-replay: cannot read {{.*}}missing
// NOINPUT: replay: no input
