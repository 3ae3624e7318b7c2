#!/usr/bin/env bash
# Sets up, builds and runs every ext test: the lit suite (IR, diagnostics,
# execution, tools) with the GoogleTest unit tests, then the Python tests.
# Ends with one summary line: "N passed, N failed".
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${EXT_BUILD_DIR:-$ROOT/build}"

bash "$ROOT/scripts/setup.sh" || exit 1
start=$(date +%s)
bash "$ROOT/scripts/build.sh" --target ext-test-depends || { echo "0 passed, 1 failed"; exit 1; }
echo "build: $(( $(date +%s) - start )) s"

passed=0; failed=0
log="$BUILD/lit.log"
/usr/lib/llvm-22/bin/lit -sv "$BUILD/test" "$BUILD/test/Unit" 2>&1 | tee "$log"
lit_rc=${PIPESTATUS[0]}
# lit's summary: "  Passed: N (..)", "  Failed: N (..)", and the other
# non-passing kinds; expected failures and unsupported tests are not failures.
count() {
  sed -nE "s/^ *$1 *: +([0-9]+).*/\1/p" "$log" | awk '{s += $1} END {print s + 0}'
}
passed=$((passed + $(count Passed) + $(count "Expectedly Failed")))
failed=$((failed + $(count Failed) + $(count "Unexpectedly Passed") + $(count Unresolved) + $(count "Timed Out")))
skipped=$(count Unsupported)
if [ "$lit_rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi

if [ -d "$ROOT/test/python" ]; then
  pylog="$BUILD/pytest.log"
  PYTHONPATH="$BUILD/python_packages${PYTHONPATH:+:$PYTHONPATH}" \
    /usr/bin/python3 -m pytest -q "$ROOT/test/python" 2>&1 | tee "$pylog"
  py_rc=${PIPESTATUS[0]}
  py_passed=$(grep -Eo "[0-9]+ passed" "$pylog" | tail -1 | awk '{print $1}')
  py_failed=$(grep -Eo "[0-9]+ (failed|error)" "$pylog" | awk '{s += $1} END {print s + 0}')
  passed=$((passed + ${py_passed:-0}))
  failed=$((failed + py_failed))
  if [ "$py_rc" -ne 0 ] && [ "$py_failed" -eq 0 ]; then failed=$((failed + 1)); fi
fi

echo "total: $(( $(date +%s) - start )) s"
if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
