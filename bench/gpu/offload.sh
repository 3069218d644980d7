#!/usr/bin/env bash
# On the GPU machine: the plans that move tensors off the device
# (build.sh's out/plans/: offload_all to pinned host memory, auto at the
# smallest CUDA budget, offload_all spilling to disk) against the keep-all
# build of the same program. Every fate the planner gives is exact, so the
# trained weights must be the same bytes (cmp of --save-weights files); the
# final loss of the CPU build is beside them, and the report's planned and
# measured peaks per tier. compute-sanitizer memcheck on Cora's plans.
# Usage: [EPOCHS=50] [PROGRAMS='cora_*'] bench/gpu/offload.sh OUTDIR [DATA_DIR]
# (PROGRAMS: a glob of the program names to run, all by default)
set -uo pipefail
dest=${1:?usage: offload.sh OUTDIR [DATA_DIR]}
source "$(dirname "$0")/common.sh"
epochs=${EPOCHS:-50}
mkdir -p "$dest" /tmp/gnnc-spill
log() { echo "$*" | tee -a "$dest/offload-log.txt"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader \
  > "$dest/device.txt" 2>&1
for keep in "$bin"/plans/${PROGRAMS:-*}-offload.cuda; do
  b=$(basename "$keep" -offload.cuda)
  ds=$(dataset "$b")
  args=(--quiet --epochs "$epochs" ${ds:+--data "$data/$ds"})
  timeout 300 "$bin/$b.cuda" "${args[@]}" --save-weights "$dest/$b-keep.w" \
    > "$dest/$b-keep.txt" 2>&1
  log "$b keep rc=$?"
  timeout 300 "$bin/$b.cpu" "${args[@]}" --threads 16 > "$dest/$b-cpu.txt" 2>&1
  log "$b cpu rc=$?"
  for plan in offload tight disk; do
    [ -x "$bin/plans/$b-$plan.cuda" ] || continue
    timeout 300 "$bin/plans/$b-$plan.cuda" "${args[@]}" \
      --save-weights "$dest/$b-$plan.w" > "$dest/$b-$plan.txt" 2>&1
    rc=$?
    if cmp -s "$dest/$b-keep.w" "$dest/$b-$plan.w"; then same=identical; else same=DIFFERENT; fi
    log "$b $plan rc=$rc weights $same"
  done
done
if command -v compute-sanitizer > /dev/null; then
  for v in cora_gcn-offload cora_gcn-disk cora_gat-tight cora_gat-offload; do
    timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 \
      "$bin/plans/$v.cuda" --data "$data/cora" --epochs 2 --quiet \
      > "$dest/memcheck-$v.txt" 2>&1
    log "memcheck $v rc=$?"
  done
fi
python3 "$root/bench/gpu/summarize_offload.py" "$dest" > "$dest/offload.md"
cat "$dest/offload.md"
