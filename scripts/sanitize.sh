#!/usr/bin/env bash
# The sanitizer pass of the test command: ext's tools built with
# AddressSanitizer and UndefinedBehaviorSanitizer (the fuzz build,
# scripts/build-fuzz.sh: Debian's clang-14, -O1, ccache, in build-fuzz/),
# then, through them:
#   1. the fuzz corpus (build/fuzz/corpus) through ext-fuzz-replay: parse,
#      verify, print, then every ext pass and pipeline on every input (what
#      fuzz/replay.py does through ext-opt, in one process: the normal build
#      runs that one, test/Fuzz/);
#   2. every lit test that runs only ext-opt, ext-translate and text tools
#      (not ext-run, whose JIT-compiled kernels the sanitizers cannot see,
#      nor the Python scripts such as ext-tune), from build-fuzz/'s own lit
#      configuration.
# Any sanitizer report fails the step. Prints lit's summary and ends with
# "sanitize: N passed, N failed" (scripts/test.sh adds it to its totals).
# Without clang-14 and its runtimes it says so and reports nothing.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${EXT_BUILD_DIR:-$ROOT/build}"
SAN="${EXT_FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
LIT=/usr/lib/llvm-22/bin/lit

start=$(date +%s)
# build-fuzz.sh configures build-fuzz/, builds ext-fuzz and the corpus (in
# build/); the tools come from the same configuration.
out=$(bash "$ROOT/scripts/build-fuzz.sh" 2>&1 &&
      cmake --build "$SAN" --target ext-opt ext-translate ext-fuzz-replay 2>&1)
rc=$?
if echo "$out" | grep -q "skipping the fuzz build"; then
  echo "$out" | tail -3
  echo "sanitize: skipped (no clang-14 with its sanitizer runtimes)"
  exit 0
fi
if [ $rc -ne 0 ]; then
  echo "$out" | tail -40
  echo "sanitize: 0 passed, 1 failed (the sanitized build failed)"
  exit 1
fi
echo "sanitize: build $(( $(date +%s) - start )) s"

# Leaks are not findings here: MLIR's contexts keep what they unique until
# exit, and tools end without tearing everything down. User poisoning is off
# as in the fuzz harness (fuzz/README.md): LLVM's headers poison allocator
# slabs that the uninstrumented libMLIR.so then reads.
export ASAN_OPTIONS="detect_leaks=0:allow_user_poisoning=0:abort_on_error=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

passed=0; failed=0
step() { # NAME COMMAND...: one step, passed or failed by its exit status
  local name=$1; shift
  local t=$(date +%s)
  if "$@" > "$SAN/sanitize-$name.log" 2>&1; then
    passed=$((passed + 1)); echo "PASS: sanitize $name ($(( $(date +%s) - t )) s)"
  else
    failed=$((failed + 1)); echo "FAIL: sanitize $name ($(( $(date +%s) - t )) s)"
    tail -30 "$SAN/sanitize-$name.log"
  fi
}
# The corpus in one shard per core, replayed side by side (ASan makes each
# input several times slower than the plain build's replay).
replay_shards() {
  local corpus="$BUILD/fuzz/corpus" jobs rc=0 i
  jobs=$(nproc 2>/dev/null || echo 2)
  mapfile -t inputs < <(find "$corpus" -maxdepth 1 -type f | sort)
  if [ ${#inputs[@]} -eq 0 ]; then echo "sanitize: no corpus in $corpus"; return 1; fi
  local pids=()
  for ((i = 0; i < jobs; i++)); do
    local shard=()
    for ((j = i; j < ${#inputs[@]}; j += jobs)); do shard+=("${inputs[j]}"); done
    [ ${#shard[@]} -gt 0 ] || continue
    "$SAN/bin/ext-fuzz-replay" "${shard[@]}" > "$SAN/sanitize-replay-$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    if ! wait "${pids[i]}"; then rc=1; tail -30 "$SAN/sanitize-replay-$i.log"; fi
    tail -1 "$SAN/sanitize-replay-$i.log"
  done
  return $rc
}
step corpus-replay replay_shards

# The lit tests whose RUN lines use only tools this build has.
mapfile -t tests < <(cd "$ROOT/test" && grep -rlE --include='*.mlir' '^// RUN:' . |
  grep -v '/Inputs/' | sort | while read -r t; do
    if ! grep -E '^// RUN:' "$t" | grep -qE 'ext-run|ext-fuzz-replay|ext-tune|%python|python3|%ext_obj|%fake_cuda'; then
      echo "$SAN/test/${t#./}"
    fi
  done)
lit_log="$SAN/sanitize-lit.log"
"$LIT" -sv "${tests[@]}" 2>&1 | tee "$lit_log" | grep -E "^(FAIL|UNRESOLVED|XPASS|TIMEOUT):|Testing Time|Total Discovered"
lit_rc=${PIPESTATUS[0]}
lit_passed=$(sed -nE 's/^ *Passed *: +([0-9]+).*/\1/p' "$lit_log")
lit_failed=$(sed -nE 's/^ *(Failed|Unresolved|Timed Out|Unexpectedly Passed) *: +([0-9]+).*/\2/p' "$lit_log" | awk '{s += $1} END {print s + 0}')
passed=$((passed + ${lit_passed:-0})); failed=$((failed + lit_failed))
if [ "$lit_rc" -ne 0 ] && [ "$lit_failed" -eq 0 ]; then failed=$((failed + 1)); fi
echo "sanitize: ${#tests[@]} lit tests through the sanitized tools; total $(( $(date +%s) - start )) s"
echo "sanitize: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
