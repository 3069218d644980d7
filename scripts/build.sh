#!/usr/bin/env bash
# Configures and builds gnnc into ${GNNC_BUILD_DIR:-build}. Extra arguments go
# to CMake's configure step (e.g. -DGNNC_ENABLE_SANITIZERS=ON).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GNNC_BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${GNNC_BUILD_TYPE:-Release}" "${launcher[@]}" "$@"
cmake --build "$build" -j "${GNNC_JOBS:-$(nproc)}"
