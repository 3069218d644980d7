#!/usr/bin/env bash
# Builds every shipped example the CUDA target takes, for sm_80 and sm_90
# and for the CPU (the oracle), into bench/gpu/out/, with what they need at
# run time on the GPU machine, and packs it all into bench/gpu/bundle.tar.xz
# (git-ignored) for the device tool's `carry`:
#   out/*.cuda, out/*.cpu      the AOT programs
#   out/lib/                   libgnnrt_cuda.so and the non-CUDA shared
#                              libraries (OpenBLAS, ANTLR, GLPK, ...) that the
#                              GPU machine's image lacks
#   out/prefix/                an install prefix (bin/gnnc, lib/gnnc, include)
#                              so `gnnc run --target=cuda` (the JIT) runs there
#   out/GnncRuntimeCudaTests   the runtime tests whose device cases skip here
#   out/GnncRuntimeCudaGeneratedTests
#                              the generated kernels' tests (the emulator's
#                              GeneratedOps) on the device, skipped here
#   out/data/                  the datasets the examples name, from
#                              $GNNC_DATA_PATH (a transient copy for the
#                              transfer only: the device tool sends the repo
#                              and nothing beside it)
# The device tool carries at most 64 MiB; OpenBLAS alone is 36 MiB, hence xz.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
gnnc=${GNNC:-$build/bin/gnnc}
data=${GNNC_DATA_PATH:-$root/../shared/data}
out=$root/bench/gpu/out
rm -rf "$out" && mkdir -p "$out/lib" "$out/data"
for f in "$root"/examples/*.gnn "$root"/bench/gpu/programs/*.gnn; do
  b=$(basename "$f" .gnn)
  if ! "$gnnc" emit --stage=cuda "$f" > /dev/null 2>&1; then
    echo "skip $b (the CUDA target does not take it yet)"
    continue
  fi
  "$gnnc" compile --target=cuda --arch=sm_80,sm_90 "$f" -o "$out/$b.cuda"
  "$gnnc" compile --target=cpu "$f" -o "$out/$b.cpu"
  ds=$(grep -o 'dataset("[a-z_]*"' "$f" | head -1 | cut -d'"' -f2 || true)
  if [ -n "$ds" ] && [ ! -d "$out/data/$ds" ]; then
    cp -r "$data/$ds" "$out/data/$ds"
  fi
  echo "built $b"
done
# The same programs with dropout through the library's kernel
# (--cuda-library-dropout), and with reductions, edge softmax, the loss and
# Adam through the library's kernels (--cuda-library-kernels), so that run.sh
# times the generated kernels (the default since 2026-11-29) against the
# library's in one run.
mkdir -p "$out/ab" "$out/ab-kernels"
for b in ${DROPOUT_AB_PROGRAMS:-cora_gcn cora_gat facebook_gcn synthetic2m_gcn synthetic2m_gat}; do
  f=$root/examples/$b.gnn
  [ -f "$f" ] || f=$root/bench/gpu/programs/$b.gnn
  "$gnnc" compile --target=cuda --arch=sm_80,sm_90 --cuda-library-dropout "$f" -o "$out/ab/$b.cuda"
  echo "built $b with the library's dropout"
  "$gnnc" compile --target=cuda --arch=sm_80,sm_90 --cuda-library-kernels "$f" -o "$out/ab-kernels/$b.cuda"
  echo "built $b with the library's reductions, edge softmax and loss"
done
# Plans that move tensors off the device (offload.sh runs them against the
# keep-all builds above): offload_all at the program's budget, auto at the
# smallest budget the CUDA planner has a plan for, and offload_all with a
# host tier too small for one tensor, so that it spills to disk.
mkdir -p "$out/plans"
# The smallest --memory for the CUDA target: the planner's "smallest plan"
# bytes (a lower bound when it says "at least"), raised by 1/16 until a
# plan fits.
smallest() {
  local bytes
  bytes=$("$gnnc" plan --target=cuda --memory 1 "$1" 2>&1 |
    grep -o '[0-9]* bytes)' | head -1 | cut -d' ' -f1)
  [ -n "$bytes" ] || return 1
  until "$gnnc" plan --target=cuda --memory "$bytes" "$1" > /dev/null 2>&1; do
    bytes=$((bytes + bytes / 16))
  done
  echo "$bytes"
}
for b in ${OFFLOAD_PROGRAMS:-cora_gcn cora_gat cora_deep_gcn facebook_gcn facebook_gat synthetic2m_gcn synthetic2m_gat}; do
  f=$root/examples/$b.gnn
  [ -f "$f" ] || f=$root/bench/gpu/programs/$b.gnn
  "$gnnc" compile --target=cuda --plan=offload_all "$f" -o "$out/plans/$b-offload.cuda"
  tight=$(smallest "$f")
  "$gnnc" compile --target=cuda --memory "$tight" "$f" -o "$out/plans/$b-tight.cuda"
  echo "$tight" > "$out/plans/$b-tight.bytes"
  # The spill directory is created by offload.sh on the GPU machine. No
  # disk plan for the 2M-node graphs: gigabytes written and read per epoch
  # measure the disk, not the copy stream.
  case $b in synthetic*) echo "built $b's offloading plans (no disk plan)"; continue ;; esac
  sed 's|^\( *\)memory *=.*$|&\n\1host_memory = 4 KiB; disk = spill("/tmp/gnnc-spill", 4 GiB);|' \
    "$f" > "$out/plans/$b-disk.gnn"
  "$gnnc" compile --target=cuda --plan=offload_all "$out/plans/$b-disk.gnn" \
    -o "$out/plans/$b-disk.cuda"
  echo "built $b's offloading plans"
done
cmake --install "$build" --prefix "$out/prefix" > /dev/null
# Only what the JIT needs: gnnc, its runtime archives and headers.
find "$out/prefix/lib" -maxdepth 1 -name 'libGnnc*.a' -delete
rm -rf "$out/prefix/lib/cmake"
cp "$build/bin/GnncRuntimeCudaTests" "$build/bin/GnncRuntimeCudaGeneratedTests" \
  "$out/"
# The SpMM paths against the bandwidth, the kernel shapes behind the own
# kernel, and the host link's copy rates (bench/CMakeLists.txt).
cp "$build/bin/gnnc-spmm-bandwidth" "$build/bin/gnnc-spmm-variants" \
  "$build/bin/gnnc-host-link" "$out/"
cp "$build/lib/libgnnrt_cuda.so" "$out/lib/"
# Shared libraries outside the CUDA toolkit and the C/C++ runtime.
for exe in "$out"/cora_gcn.cpu "$out/prefix/bin/gnnc"; do
  ldd "$exe" |
    awk '/openblas|gfortran|quadmath|gomp|antlr4|glpk|colamd|amd|ltdl|gmp|suitesparse/ {print $3}' |
    xargs -r -I{} cp -L {} "$out/lib/"
done
tar -C "$root/bench/gpu" -cJf "$root/bench/gpu/bundle.tar.xz" out
du -sh "$out" "$root/bench/gpu/bundle.tar.xz"
