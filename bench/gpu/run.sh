#!/usr/bin/env bash
# On the GPU machine: every example built by build.sh on CUDA and on the
# CPU, compute-sanitizer on the smallest, and the PyG peer, in one run.
# Usage: bench/gpu/run.sh OUTDIR [DATA_DIR]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=${1:?usage: run.sh OUTDIR [DATA_DIR]}
data=${2:-${GNNC_DATA_PATH:-$root/../shared/data}}
bin=$root/bench/gpu/out
mkdir -p "$dest"
export LD_LIBRARY_PATH=$bin/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv \
  > "$dest/device.txt" 2>&1
for exe in "$bin"/*.cuda; do
  b=$(basename "$exe" .cuda)
  echo "== $b" | tee -a "$dest/log.txt"
  # The dataset the program names, found under DATA_DIR here.
  src=$(ls "$root"/examples/$b.gnn "$root"/bench/gpu/programs/$b.gnn 2>/dev/null | head -1)
  ds=$(grep -o 'dataset("[a-z_]*"' "$src" | head -1 | cut -d'"' -f2)
  args=(--quiet)
  [ -n "$ds" ] && args+=(--data "$data/$ds")
  "$exe" "${args[@]}" > "$dest/$b.cuda.txt" 2>&1
  echo "cuda rc=$?" >> "$dest/log.txt"
  "$bin/$b.cpu" "${args[@]}" --threads 16 > "$dest/$b.cpu.txt" 2>&1
  echo "cpu rc=$?" >> "$dest/log.txt"
done
if command -v compute-sanitizer > /dev/null; then
  compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$bin/cora_gcn.cuda" --data "$data/cora" --epochs 3 --quiet \
    > "$dest/memcheck.txt" 2>&1
  echo "memcheck rc=$?" >> "$dest/log.txt"
fi
python3 "$root/bench/gpu/pyg_peer.py" --data "$data" --json "$dest/pyg.json" \
  > "$dest/pyg.txt" 2>&1
echo "pyg rc=$?" >> "$dest/log.txt"
python3 "$root/bench/gpu/summarize.py" "$dest" > "$dest/summary.md"
cat "$dest/summary.md"
