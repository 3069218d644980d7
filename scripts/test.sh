#!/usr/bin/env bash
# README command 2: install what is missing, build everything, run every test
# (GoogleTest units and the lit/FileCheck suite) through ctest.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GNNC_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh" "$@"
cd "$build"
ctest --output-on-failure -j "${GNNC_JOBS:-$(nproc)}"
