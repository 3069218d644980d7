#!/usr/bin/env bash
# Builds the libFuzzer target with clang-19 (ASan + UBSan) in build-fuzz and
# fuzzes the front end for ${1:-600} seconds, seeded from examples/ and the
# lit tests. Crashing inputs land in build-fuzz/crashes/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-600}"
build="${GNNC_FUZZ_BUILD_DIR:-$root/build-fuzz}"
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DGNNC_ENABLE_FUZZER=ON >/dev/null
cmake --build "$build" --target gnnc-fuzz-frontend
corpus="$build/corpus"
mkdir -p "$corpus" "$build/crashes"
find "$root/examples" "$root/test" -name '*.gnn' -exec cp {} "$corpus/" \;
cd "$build"
# -rss_limit_mb guards against runaway allocation; -max_len lets whole
# example programs mutate.
./bin/gnnc-fuzz-frontend "$corpus" -max_total_time="$seconds" \
  -max_len=4096 -rss_limit_mb=4096 -timeout=10 -print_final_stats=1 \
  -artifact_prefix="$build/crashes/" -dict="$root/test/fuzz/gnn.dict"
