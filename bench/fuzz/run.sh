#!/usr/bin/env bash
# Runs ext-fuzz (the libFuzzer target, built by scripts/build-fuzz.sh) for a
# given time and reports executions, coverage and findings.
#
#   bench/fuzz/run.sh SECONDS [WORKERS]     (default 300 s, 1 worker)
#
# The run starts from a copy of the generated corpus ($EXT_FUZZ_CORPUS,
# default build/fuzz/corpus: scripts/build.sh --target ext-fuzz-corpus) with
# fuzz/ext.dict, in libFuzzer's fork mode: a crash, timeout, leak or out-of-memory input is written to the
# run's artifacts/ and the run goes on, so the count of findings is the count
# of distinct inputs there (slow-unit-* files, inputs slower than 10 s that
# finish inside the 30 s timeout, are counted apart). Everything lands in
# $EXT_FUZZ_RUN_DIR (default build-fuzz/fuzz-runs/<date>): fuzz.log, corpus/ (the grown corpus),
# artifacts/, and summary.md, the table printed at the end.
# Turn a finding into a regression test: minimize it
#   build-fuzz/bin/ext-fuzz -minimize_crash=1 -runs=2000 ARTIFACT
# and add it under test/Fuzz/ (an expected-error test if it is invalid).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SECONDS_TO_RUN="${1:-300}"
WORKERS="${2:-1}"
BIN="${EXT_FUZZ_BIN:-$ROOT/build-fuzz/bin/ext-fuzz}"
RUN="${EXT_FUZZ_RUN_DIR:-$ROOT/build-fuzz/fuzz-runs/$(date +%Y%m%d-%H%M%S)}"
CORPUS="${EXT_FUZZ_CORPUS:-$ROOT/build/fuzz/corpus}"

if [ ! -x "$BIN" ]; then
  echo "bench/fuzz: $BIN is missing; build it with scripts/build-fuzz.sh" >&2
  exit 1
fi
if [ -z "$(ls -A "$CORPUS" 2>/dev/null)" ]; then
  echo "bench/fuzz: no corpus in $CORPUS; generate it with scripts/build.sh --target ext-fuzz-corpus" >&2
  exit 1
fi
mkdir -p "$RUN/corpus" "$RUN/artifacts"
cp "$CORPUS"/* "$RUN/corpus/"
seeds=$(ls "$RUN/corpus" | wc -l)

start=$(date +%s)
set +e
"$BIN" "$RUN/corpus" -dict="$ROOT/fuzz/ext.dict" \
  -fork="$WORKERS" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
  -max_total_time="$SECONDS_TO_RUN" -timeout=30 -rss_limit_mb=4096 \
  -max_len=16384 -artifact_prefix="$RUN/artifacts/" -print_final_stats=1 \
  > "$RUN/fuzz.log" 2>&1
rc=$?
set -e
elapsed=$(( $(date +%s) - start ))

# Fork mode's progress lines: "#EXECS: cov: C ft: F corp: N exec/s: E oom/timeout/crash: a/b/c time: Ts ..."
last=$(grep -E '^#[0-9]+: cov:' "$RUN/fuzz.log" | tail -1 || true)
field() { echo "$last" | sed -nE "s#.* $1:? ([^ ]+).*#\1#p"; }
execs=$(echo "$last" | sed -nE 's/^#([0-9]+):.*/\1/p')
cov=$(field cov); ft=$(field ft); corp=$(field corp); eps=$(field "exec/s")
otc=$(field "oom/timeout/crash")
# libFuzzer also writes slow-unit-* for an input slower than 10 s that still
# finishes inside -timeout: a speed observation, listed apart from findings.
findings=$(find "$RUN/artifacts" -type f ! -name 'slow-unit-*' | wc -l)
slow=$(find "$RUN/artifacts" -type f -name 'slow-unit-*' | wc -l)

{
  echo "| metric | value |"
  echo "| --- | --- |"
  echo "| duration | ${elapsed} s (asked ${SECONDS_TO_RUN} s, ${WORKERS} worker(s)) |"
  echo "| executions | ${execs:-?} (${eps:-?} exec/s) |"
  echo "| coverage (libFuzzer cov / ft) | ${cov:-?} edges / ${ft:-?} features |"
  echo "| corpus | ${seeds} seeds -> ${corp:-?} inputs |"
  echo "| findings (artifacts) | ${findings} (oom/timeout/crash: ${otc:-0/0/0}) |"
  echo "| slow inputs (over 10 s, under the 30 s timeout) | ${slow} |"
  echo "| libFuzzer exit | ${rc} |"
  if [ "$findings" -gt 0 ] || [ "$slow" -gt 0 ]; then
    echo
    echo "artifacts:"
    find "$RUN/artifacts" -type f | sort | sed 's/^/- /'
  fi
} | tee "$RUN/summary.md"
echo "bench/fuzz: log, corpus, artifacts and summary.md in $RUN"
[ "$findings" -eq 0 ]
