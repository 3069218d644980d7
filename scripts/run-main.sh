#!/usr/bin/env bash
# README command 1: install what is missing, build gnnc, and run the main job
# on the shipped Cora GCN example. Until the runtime lands (issue 4) the main
# job compiles as far as gnnc goes: check the program and print its training
# step (init, step and predict functions in the train dialect).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GNNC_BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
GNNC_BUILD_DIR="$build" "$root/scripts/build.sh" >/dev/null
cd "$root"
"$build/bin/gnnc" check examples/cora_gcn.gnn
"$build/bin/gnnc" emit --stage=train examples/cora_gcn.gnn
