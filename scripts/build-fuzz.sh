#!/usr/bin/env bash
# Configures (once) and builds the fuzz build in build-fuzz/: ext's code with
# clang, AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer coverage,
# and the ext-fuzz target (see fuzz/ext-fuzz.cpp, bench/fuzz/run.sh).
# Needs Debian's clang-14 and libclang-rt-14-dev; without them it says so and
# exits 0 (the default build never needs them). Extra arguments go to
# `cmake --build` (e.g. -j 2). `build-fuzz.sh --probe` only checks the
# compiler and its runtimes: exit 0 when the build can be made, 1 when not.
set -euo pipefail
probe_only=0
if [ "${1:-}" = "--probe" ]; then probe_only=1; shift; fi
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${EXT_FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
LLVM_PREFIX=/usr/lib/llvm-22
CC="${EXT_FUZZ_CC:-clang-14}"
CXX="${EXT_FUZZ_CXX:-clang++-14}"

if ! command -v "$CC" >/dev/null 2>&1 || ! command -v "$CXX" >/dev/null 2>&1; then
  echo "build-fuzz: $CXX is not installed; skipping the fuzz build"
  exit $probe_only
fi
# The runtimes (libclang-rt-14-dev): link a trivial fuzz target.
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char *, unsigned long) { return 0; }' \
  > "$probe/probe.cpp"
if ! "$CXX" -fsanitize=fuzzer,address,undefined "$probe/probe.cpp" -o "$probe/probe" \
     >"$probe/log" 2>&1; then
  echo "build-fuzz: $CXX cannot link libFuzzer with ASan and UBSan (libclang-rt-14-dev missing?); skipping the fuzz build"
  sed 's/^/  /' "$probe/log" | head -5
  exit $probe_only
fi
if [ $probe_only -eq 1 ]; then exit 0; fi

# A unity build (8 sources per compile): the instrumented tools compile
# ext's MLIR-heavy sources a second time, and parsing MLIR's headers once
# per batch instead of once per file takes this build from 15-20 minutes
# to about 5 on 2 cores. A build-fuzz/ configured before is reconfigured.
unity=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8)
if [ -f "$BUILD/CMakeCache.txt" ] &&
   ! grep -q "^CMAKE_UNITY_BUILD:BOOL=ON" "$BUILD/CMakeCache.txt"; then
  cmake "${unity[@]}" "$BUILD" >/dev/null
fi
if [ ! -f "$BUILD/build.ninja" ]; then
  launcher=()
  if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  # -O1: fast enough to fuzz, quick to build, readable sanitizer traces.
  cmake -G Ninja -S "$ROOT" -B "$BUILD" \
    -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE=-O1 -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
    -DEXT_ENABLE_FUZZER=ON "${unity[@]}" \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_DIR="$LLVM_PREFIX/lib/cmake/llvm" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
    -DPython3_EXECUTABLE=/usr/bin/python3 \
    "${launcher[@]}"
fi
cmake --build "$BUILD" --target ext-fuzz "$@"
echo "build-fuzz: $BUILD/bin/ext-fuzz"
# The seed corpus bench/fuzz/run.sh starts from comes from the normal build
# (its uninstrumented ext-opt): build/fuzz/corpus.
if [ -f "$ROOT/build/build.ninja" ]; then
  cmake --build "$ROOT/build" --target ext-fuzz-corpus "$@"
else
  echo "build-fuzz: no build/ yet; run scripts/build.sh --target ext-fuzz-corpus for the seed corpus"
fi
