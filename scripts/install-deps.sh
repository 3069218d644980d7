#!/usr/bin/env bash
# Installs the Debian packages gnnc needs, and nothing when they are already
# there, so both README commands (and CI) can call it every time.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache python3 openjdk-17-jre-headless
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools
  antlr4 libantlr4-runtime-dev uuid-dev libgtest-dev libgmock-dev
  clang-19 libclang-rt-19-dev libopenblas-openmp-dev libglpk-dev
  zlib1g-dev libzstd-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing[@]}"
