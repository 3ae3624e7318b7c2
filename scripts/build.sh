#!/usr/bin/env bash
# Configures (once) and builds ext in build/ with Ninja against the installed
# LLVM/MLIR 22, using ccache when it is there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${EXT_BUILD_DIR:-$ROOT/build}"
LLVM_PREFIX=/usr/lib/llvm-22

# A fresh build directory is a unity build (8 sources per compile: MLIR's
# headers parsed once per batch), which takes a cold build on 2 cores from
# about 13 minutes to under 8; EXT_UNITY_BUILD=0 configures one file per
# compile, quicker to rebuild after editing one file.
unity=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8)
if [ "${EXT_UNITY_BUILD:-1}" = "0" ]; then unity=(-DCMAKE_UNITY_BUILD=OFF); fi
if [ ! -f "$BUILD/build.ninja" ]; then
  launcher=()
  if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -G Ninja -S "$ROOT" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE="${EXT_BUILD_TYPE:-Release}" \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_DIR="$LLVM_PREFIX/lib/cmake/llvm" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
    -DPython3_EXECUTABLE=/usr/bin/python3 \
    "${unity[@]}" "${launcher[@]}"
fi
cmake --build "$BUILD" "$@"
