#!/usr/bin/env bash
# Regenerates the ODS-derived references and copies them into docs/, where
# test/Dialect/docs.test compares them with the build's.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GNNC_BUILD_DIR:-$root/build}"
cmake --build "$build" --target mlir-doc
cp "$build/docs/Dialects/GnnDialect.md" "$build/docs/Dialects/TrainDialect.md" \
  "$build/docs/Dialects/MemDialect.md" "$root/docs/Dialects/"
cp "$build/docs/GnncPasses.md" "$root/docs/GnncPasses.md"
