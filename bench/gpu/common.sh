# Sourced by run.sh and offload.sh, with their arguments (OUTDIR
# [DATA_DIR]): the repository root, the unpacked bundle (bench/gpu/out,
# from bench/gpu/bundle.tar.xz when only that was carried), the datasets
# ($2, else $GNNC_DATA_PATH, else the bundle's), the bundle's shared
# libraries, and the dataset each program names.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=$root/bench/gpu/out
if [ ! -d "$bin" ] && [ -f "$root/bench/gpu/bundle.tar.xz" ]; then
  tar -C "$root/bench/gpu" -xJf "$root/bench/gpu/bundle.tar.xz"
fi
data=${2:-${GNNC_DATA_PATH:-$bin/data}}
export LD_LIBRARY_PATH=$bin/lib:${LD_LIBRARY_PATH:-}
# The dataset program $1 names (empty for a synthetic graph).
dataset() {
  local src=$root/examples/$1.gnn
  [ -f "$src" ] || src=$root/bench/gpu/programs/$1.gnn
  grep -o 'dataset("[a-z_]*"' "$src" | head -1 | cut -d'"' -f2
}
