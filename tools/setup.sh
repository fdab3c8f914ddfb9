#!/usr/bin/env bash
# Installs every Debian package texc needs to build, test and benchmark (idempotent).
# Usage: tools/setup.sh   (as root, or with sudo available)
set -euo pipefail
packages=(
  cmake ninja-build ccache g++ clang-14 libclang-rt-14-dev
  llvm-19-dev libpolly-19-dev zlib1g-dev libzstd-dev libedit-dev libxml2-dev
  antlr4 libantlr4-runtime-dev
  libxgboost-dev libfmt-dev doctest-dev
  qemu-user g++-aarch64-linux-gnu
  libopenblas-dev libdnnl-dev libhalide14-0-dev
  python3-numpy
  # texc import (tools/onnx: ONNX's C++ protobuf classes), ONNX's node tests (ctest e2e_onnx_node),
  # and onnx.helper for the models of tests/e2e/onnx_import_test.sh (Debian's python3, /usr/bin/python3)
  libonnx-dev libprotobuf-dev libonnx-testdata python3-onnx
  # bench/e2e: torchvision's models exported to ONNX (random weights) and PyTorch as a peer
  python3-torch python3-torchvision
  redis-server libhiredis-dev  # the measurement farm (texc worker, tune --broker): optional
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# bench/e2e's ONNX Runtime peer: onnxruntime-node (its CPU library) in the git-ignored
# bench/e2e/ort/node_modules; --ignore-scripts, as its install script would fetch CUDA binaries.
root=$(cd "$(dirname "$0")/.." && pwd)
if command -v npm >/dev/null && [ ! -d "$root/bench/e2e/ort/node_modules/onnxruntime-node" ]; then
  (cd "$root/bench/e2e/ort" && npm install --ignore-scripts --no-audit --no-fund) ||
    echo "setup.sh: npm install of onnxruntime-node failed (bench/e2e/run_e2e.py needs it)"
fi
