#!/usr/bin/env bash
# On the GPU machine: every example built by build.sh on CUDA and on the
# CPU, the runtime's device tests, the JIT, compute-sanitizer on the Cora
# programs, and the PyG peer, in one run. Each step has a time limit so a
# hang costs minutes, not the lease.
# Usage: bench/gpu/run.sh OUTDIR [DATA_DIR]
set -uo pipefail
dest=${1:?usage: run.sh OUTDIR [DATA_DIR]}
source "$(dirname "$0")/common.sh"
mkdir -p "$dest"
# The JIT links generated code against OpenBLAS where this build found it.
blasdir=/usr/lib/x86_64-linux-gnu/openblas-openmp
if [ ! -e "$blasdir/libopenblas.so" ] && [ -w / ]; then
  mkdir -p "$blasdir" && cp "$bin/lib/libopenblas.so.0" "$blasdir/" &&
    ln -sf libopenblas.so.0 "$blasdir/libopenblas.so"
fi
log() { echo "$*" | tee -a "$dest/log.txt"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv \
  > "$dest/device.txt" 2>&1
cat "$dest/device.txt"
for exe in "$bin"/*.cuda; do
  b=$(basename "$exe" .cuda)
  ds=$(dataset "$b")
  args=(--quiet)
  [ -n "$ds" ] && args+=(--data "$data/$ds")
  timeout 150 "$exe" "${args[@]}" > "$dest/$b.cuda.txt" 2>&1
  log "$b cuda rc=$?"
  if [ "${CPU_ORACLE:-1}" = 1 ]; then
    timeout 150 "$bin/$b.cpu" "${args[@]}" --threads 16 > "$dest/$b.cpu.txt" 2>&1
    log "$b cpu rc=$?"
  fi
done
# The generated kernels (above) against the library's: dropout (build.sh's
# ab/, PROGRAM.libdropout.txt), and reductions, edge softmax and loss
# (ab-kernels/, PROGRAM.libkernels.txt).
for variant in ab:libdropout ab-kernels:libkernels; do
  for exe in "$bin/${variant%%:*}"/*.cuda; do
    [ -e "$exe" ] || continue
    b=$(basename "$exe" .cuda)
    ds=$(dataset "$b")
    timeout 150 "$exe" --quiet ${ds:+--data "$data/$ds"} > "$dest/$b.${variant#*:}.txt" 2>&1
    log "$b cuda, ${variant#*:} rc=$?"
  done
done
timeout 120 "$bin/gnnc-spmm-bandwidth" > "$dest/spmm-bandwidth.txt" 2>&1
log "spmm bandwidth rc=$?"
# At Facebook's size, where x fits in L2 (fixed costs show).
timeout 60 "$bin/gnnc-spmm-bandwidth" 22470 16 > "$dest/spmm-bandwidth-small.txt" 2>&1
log "spmm bandwidth small rc=$?"
timeout 60 "$bin/gnnc-spmm-variants" > "$dest/spmm-variants.txt" 2>&1
log "spmm variants rc=$?"
# The same with hubs: vec4's tail, and the long-row variant meant to end it.
timeout 90 "$bin/gnnc-spmm-variants" 2000000 10 skewed > "$dest/spmm-variants-skewed.txt" 2>&1
log "spmm variants skewed rc=$?"
timeout 60 "$bin/gnnc-host-link" > "$dest/host-link.txt" 2>&1
log "host link rc=$?"
timeout 180 "$bin/GnncRuntimeCudaTests" > "$dest/runtime-tests.txt" 2>&1
log "GnncRuntimeCudaTests rc=$?"
# The generated reductions, edge softmax, loss and optimizers against the
# CPU kernels, on the device (NVRTC compiles each test's unit).
timeout 180 "$bin/GnncRuntimeCudaGeneratedTests" > "$dest/generated-tests.txt" 2>&1
log "GnncRuntimeCudaGeneratedTests rc=$?"
export GNNC_CACHE_DIR=/tmp/gnnc-cache
# gnnc run's --data is a folder to search for the dataset the program names.
timeout 240 "$bin/prefix/bin/gnnc" run --target=cuda --quiet \
  --data "$data" "$root/examples/cora_gcn.gnn" > "$dest/jit.txt" 2>&1
log "jit cora_gcn rc=$?"
if command -v compute-sanitizer > /dev/null; then
  for b in cora_gcn cora_gat cora_sage cora_deep_gcn; do
    timeout 180 compute-sanitizer --tool memcheck --error-exitcode 9 \
      "$bin/$b.cuda" --data "$data/cora" --epochs 2 --quiet \
      > "$dest/memcheck-$b.txt" 2>&1
    log "memcheck $b rc=$?"
  done
fi
# Where an epoch's time goes: every kernel's duration over 3 epochs
# (NCU=1; Nsight Compute replays each kernel, so this is not a timing run).
if [ "${NCU:-0}" = 1 ] && command -v ncu > /dev/null; then
  for b in ${NCU_PROGRAMS:-facebook_gcn facebook_gat}; do
    ds=$(dataset "$b")
    timeout 240 ncu --metrics gpu__time_duration.sum --csv \
      "$bin/$b.cuda" ${ds:+--data "$data/$ds"} --epochs 3 --quiet \
      > "$dest/ncu-$b.csv" 2> "$dest/ncu-$b.err"
    log "ncu $b rc=$?"
  done
fi
if [ "${PYG:-1}" = 1 ]; then
  timeout 300 python3 "$root/bench/gpu/pyg_peer.py" --data "$data" \
    --json "$dest/pyg.json" > "$dest/pyg.txt" 2>&1
  log "pyg rc=$?"
fi
python3 "$root/bench/gpu/summarize.py" "$dest" > "$dest/summary.md"
cat "$dest/summary.md"
