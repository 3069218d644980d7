#!/usr/bin/env bash
# README command 1: install what is missing, build gnnc, and run the main job:
# train the shipped Cora GCN example (Kipf & Welling) with `gnnc run`, which
# prints progress on stderr and the final report (test metrics, time per
# epoch, measured peak arena bytes, peak RSS).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GNNC_BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
GNNC_BUILD_DIR="$build" "$root/scripts/build.sh" >/dev/null
cd "$root"
"$build/bin/gnnc" run examples/cora_gcn.gnn "$@"
