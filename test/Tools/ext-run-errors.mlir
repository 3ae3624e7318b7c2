// ext-run fails with a diagnostic and a non-zero status, never a crash.

// A syntax error: the parser's message at its location, no stack dump.
// RUN: not ext-run %S/Inputs/syntax-error.mlir 2>&1 | FileCheck %s --check-prefix=SYNTAX --implicit-check-not="Stack dump" --implicit-check-not=PLEASE
// SYNTAX: syntax-error.mlir:4:22: error: expected SSA operand
// SYNTAX: ext-run: error: could not parse

// RUN: not ext-run %S/Inputs/no-main.mlir 2>&1 | FileCheck %s --check-prefix=NOMAIN --implicit-check-not="Stack dump"
// NOMAIN: ext-run: error: '{{.*}}no-main.mlir' has no func.func @main with a body

// RUN: not ext-run %S/Inputs/main-with-args.mlir 2>&1 | FileCheck %s --check-prefix=ARGS
// ARGS: main-with-args.mlir:2:1: error: @main must take no arguments and return nothing (to run a function on generated or .npy inputs: --entry=NAME --random-inputs=SEED or --inputs=...)

// An invalid ext.compute: the verifier's message, then ext-run's.
// RUN: not ext-run %S/Inputs/invalid-compute.mlir 2>&1 | FileCheck %s --check-prefix=INVALID --implicit-check-not="Stack dump"
// INVALID: invalid-compute.mlir:3:3: error: 'ext.compute' op has reduce axis 'k' but no combiner
// INVALID: ext-run: error: could not parse

// A module the CPU pipeline cannot take to the LLVM dialect.
// RUN: not ext-run %S/Inputs/unlowerable.mlir 2>&1 | FileCheck %s --check-prefix=LOWER --implicit-check-not="Stack dump"
// LOWER: unlowerable.mlir:{{[0-9]+}}:{{[0-9]+}}: error:
// LOWER: ext-run: error: lowering '{{.*}}unlowerable.mlir' with ext-cpu-pipeline failed

// RUN: not ext-run %S/Inputs/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: ext-run: error: {{.*}}does-not-exist.mlir{{.*}}

// RUN: not ext-run --entry=start %S/Inputs/no-main.mlir 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: has no func.func @start with a body

// An invalid value is answered with the valid ones.
// RUN: not ext-run --target=gpu %S/Inputs/no-main.mlir 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: ext-run: for the --target option: 'gpu' is not a valid value; choose one of cpu, cuda

// --help: ext-run's own options, not LLVM's.
// RUN: ext-run --help | FileCheck %s --check-prefix=HELP
// RUN: ext-run --help | sed -n 100p | FileCheck %s --allow-empty --check-prefix=SHORT
// HELP-DAG: --entry=<string>
// HELP-DAG: --random-inputs=<SEED>
// HELP-DAG: --print-outputs
// HELP-DAG: --target=<value>
// HELP-DAG: --racecheck
// HELP-NOT: --amdgpu-
// SHORT-NOT: {{.}}
