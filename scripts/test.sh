#!/usr/bin/env bash
# Sets up, builds and runs every ext test: the lit suite (IR, diagnostics,
# execution, tools) with the GoogleTest unit tests, then the Python tests,
# then examples/plugin built against ext installed into a fresh prefix, then
# the sanitizer pass (scripts/sanitize.sh).
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
# When the sanitizer pass below can run, it replays the fuzz corpus through
# ASan and UBSan builds; the suite then skips its unsanitized replay of it.
lit_params=()
if bash "$ROOT/scripts/build-fuzz.sh" --probe >/dev/null 2>&1; then
  lit_params=(-Dsanitized_replay=1)
fi
/usr/lib/llvm-22/bin/lit -sv "${lit_params[@]}" "$BUILD/test" "$BUILD/test/Unit" 2>&1 | tee "$log"
lit_rc=${PIPESTATUS[0]}
# lit's summary: "  Passed: N (..)", "  Failed: N (..)", and the other
# non-passing kinds; expected failures and unsupported tests are not failures.
count() {
  sed -nE "s/^ *$2 *: +([0-9]+).*/\1/p" "$1" | awk '{s += $1} END {print s + 0}'
}
# Adds a lit run's results (its log, its exit status) to the totals.
add_lit_results() {
  local before=$failed
  passed=$((passed + $(count "$1" Passed) + $(count "$1" "Expectedly Failed")))
  failed=$((failed + $(count "$1" Failed) + $(count "$1" "Unexpectedly Passed") + $(count "$1" Unresolved) + $(count "$1" "Timed Out")))
  skipped=$((skipped + $(count "$1" Unsupported)))
  if [ "$2" -ne 0 ] && [ "$failed" -eq "$before" ]; then failed=$((failed + 1)); fi
}
skipped=0
add_lit_results "$log" "$lit_rc"

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

# The example plugin (docs/extending.md): ext installed into a fresh prefix,
# examples/plugin configured and built against it as a separate project
# (find_package(Ext)), its lit tests run with the installed tools. The paths
# stay the same from run to run, so ccache hits.
plugin_start=$(date +%s)
prefix="$BUILD/test-install"
plugin_build="$BUILD/test-plugin"
plugin_log="$BUILD/plugin.log"
rm -rf "$prefix"
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if cmake --install "$BUILD" --prefix "$prefix" > "$plugin_log" 2>&1 &&
   cmake -G Ninja -S "$ROOT/examples/plugin" -B "$plugin_build" \
     -DCMAKE_BUILD_TYPE="${EXT_BUILD_TYPE:-Release}" \
     -DExt_DIR="$prefix/lib/cmake/ext" \
     -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
     -DPython3_EXECUTABLE=/usr/bin/python3 \
     "${launcher[@]}" >> "$plugin_log" 2>&1 &&
   cmake --build "$plugin_build" >> "$plugin_log" 2>&1; then
  echo "plugin install + configure + build: $(( $(date +%s) - plugin_start )) s"
  plugin_lit_log="$BUILD/plugin-lit.log"
  /usr/lib/llvm-22/bin/lit -sv "$plugin_build/test" 2>&1 | tee "$plugin_lit_log"
  add_lit_results "$plugin_lit_log" "${PIPESTATUS[0]}"
else
  tail -40 "$plugin_log"
  echo "FAILED: installing ext or building examples/plugin against it (see $plugin_log)"
  failed=$((failed + 1))
fi

# The sanitizer pass (scripts/sanitize.sh): the tools built again with ASan
# and UBSan in build-fuzz/ (clang-14, ccache), the fuzz corpus and the lit
# tests that need only ext-opt and ext-translate replayed through them.
san_log="$BUILD/sanitize.log"
bash "$ROOT/scripts/sanitize.sh" 2>&1 | tee "$san_log"
san_rc=${PIPESTATUS[0]}
san_line=$(grep -E "^sanitize: [0-9]+ passed, [0-9]+ failed" "$san_log" | tail -1)
if [ -n "$san_line" ]; then
  passed=$((passed + $(echo "$san_line" | awk '{print $2}')))
  failed=$((failed + $(echo "$san_line" | awk '{print $4}')))
elif [ "$san_rc" -ne 0 ]; then
  failed=$((failed + 1))
elif grep -q "^sanitize: skipped" "$san_log"; then
  skipped=$((skipped + 1))
fi

echo "total: $(( $(date +%s) - start )) s"
if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
