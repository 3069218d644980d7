#!/usr/bin/env bash
# Builds every shipped example the CUDA target takes, for sm_80 and sm_90
# and for the CPU (the oracle), into bench/gpu/out/, plus the shared
# libraries the executables need at run time on the GPU machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
gnnc=${GNNC:-$root/build/bin/gnnc}
out=$root/bench/gpu/out
rm -rf "$out" && mkdir -p "$out/lib"
for f in "$root"/examples/*.gnn "$root"/bench/gpu/programs/*.gnn; do
  b=$(basename "$f" .gnn)
  if ! "$gnnc" emit --stage=cuda "$f" > /dev/null 2>&1; then
    echo "skip $b (the CUDA target does not take it yet)"
    continue
  fi
  "$gnnc" compile --target=cuda --arch=sm_80,sm_90 "$f" -o "$out/$b.cuda"
  "$gnnc" compile --target=cpu "$f" -o "$out/$b.cpu"
  echo "built $b"
done
# The CUDA device library and the BLAS the executables link dynamically.
cp "$root"/build/lib/libgnnrt_cuda.so "$out/lib/"
for exe in "$out"/*.cpu; do
  ldd "$exe" | awk '/openblas|gfortran|quadmath|gomp/ {print $3}' |
    xargs -r -I{} cp -L {} "$out/lib/"
  break
done
du -sh "$out"
