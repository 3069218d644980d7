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
cmake --install "$build" --prefix "$out/prefix" > /dev/null
# Only what the JIT needs: gnnc, its runtime archives and headers.
find "$out/prefix/lib" -maxdepth 1 -name 'libGnnc*.a' -delete
rm -rf "$out/prefix/lib/cmake"
cp "$build/bin/GnncRuntimeCudaTests" "$out/"
cp "$build/bin/gnnc-spmm-bandwidth" "$out/"
cp "$build/lib/libgnnrt_cuda.so" "$out/lib/"
# Shared libraries outside the CUDA toolkit and the C/C++ runtime.
for exe in "$out"/cora_gcn.cpu "$out/prefix/bin/gnnc"; do
  ldd "$exe" |
    awk '/openblas|gfortran|quadmath|gomp|antlr4|glpk|colamd|amd|ltdl|gmp|suitesparse/ {print $3}' |
    xargs -r -I{} cp -L {} "$out/lib/"
done
tar -C "$root/bench/gpu" -cJf "$root/bench/gpu/bundle.tar.xz" out
du -sh "$out" "$root/bench/gpu/bundle.tar.xz"
