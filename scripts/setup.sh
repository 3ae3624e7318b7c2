#!/usr/bin/env bash
# Installs, from Debian's packages, everything ext's build and tests need.
# Idempotent: does nothing (no apt call at all) when every package is present.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ ccache git
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22
  rocm-device-libs
  libboost-context-dev
  pybind11-dev python3-dev python3-numpy python3-pytest
  python3-venv python3-pip python3-setuptools python3-wheel
  python3-matplotlib python3-distributed python3-onnx python3-torch
  libgtest-dev
  clang-14 libclang-rt-14-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
else
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# CUDA's ptxas is optional: report it, never require it.
if command -v ptxas >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ptxas ]; then
  echo "setup: ptxas found ($(PATH=/usr/local/cuda/bin:$PATH ptxas --version | tail -1))"
else
  echo "setup: ptxas not found; PTX assembly checks will be skipped"
fi
