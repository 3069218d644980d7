#!/usr/bin/env bash
# Installs the build into a scratch prefix and uses it as a user would:
# the installed gnnc trains on the installed runtime, and examples/jit_host
# builds against the installed CMake package (find_package(gnnc)) and runs.
# Usage: check-install.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
export GNNC_CACHE_DIR="$work/cache"
unset GNNC_RUNTIME_DIR GNNC_DATA_PATH

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
for f in bin/gnnc include/gnnc/JIT.h include/gnnrt/Session.h \
         lib/libgnnc-jit.so lib/gnnc/libGnncRtCpu.a lib/cmake/gnnc/gnncConfig.cmake; do
  test -e "$work/prefix/$f" || { echo "not installed: $f"; exit 1; }
done

"$work/prefix/bin/gnnc" run --quiet --data "$src/test/Inputs" --epochs 2 \
  "$src/test/Inputs/train-tiny.gnn" > "$work/run.out"
grep -q 'M on Tiny: 2 epochs' "$work/run.out" || { cat "$work/run.out"; exit 1; }

cmake -S "$src/examples/jit_host" -B "$work/host" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -Dgnnc_DIR="$work/prefix/lib/cmake/gnnc" \
  > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/host" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
# The host finds the runtime through the prefix it was installed in.
GNNC_RUNTIME_DIR="$work/prefix" "$work/host/jit_host" "$work/host.weights"
echo "install check: ok"
