#!/usr/bin/env bash
# profile_gcn.sh — where does `gnnc run` spend its time? perf over GCN on Cora.
#
# Usage: bench/profile_gcn.sh [-n TOP] [-o DIR] [-- extra gnnc run options]
#   -n TOP   how many symbols to print (default 25)
#   -o DIR   keep perf.data and the full report in DIR (default: a temp dir, removed)
#   -h       this help
# Environment: GNNC (default build/bin/gnnc), PROGRAM (default examples/cora_gcn.gnn),
#   EPOCHS (default 100), THREADS (default 1), GNNC_CACHE_DIR (gnnc's build cache,
#   default ~/.cache/gnnc).
#
# What it does, from the project root:
#   1. one warm-up `gnnc run PROGRAM --epochs 1`, so the generated C++ is compiled and
#      cached before profiling (otherwise the profile is mostly the C++ compiler);
#   2. perf record -g -- gnnc run PROGRAM --quiet --epochs EPOCHS --threads THREADS
#      (the whole process: dataset loading, training, per-epoch validation, metrics);
#   3. perf report --no-children --sort dso,symbol: the top symbols by self time.
# The generated code is a shared object dlopen'ed from the cache
# (gnnc-<hash>.so); perf records its path when it is mapped, and the script also
# adds it to perf's build-id cache, so its symbols still resolve if the cache entry
# is later rebuilt or deleted. It must be the same path form as the warm-up's
# (the script runs both from the project root with the same PROGRAM argument).
# Needs perf (linux-perf) and permission to profile your own processes
# (/proc/sys/kernel/perf_event_paranoid <= 2, or root).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOP=25
KEEP=""
while getopts "n:o:h" opt; do
  case "$opt" in
    n) TOP="$OPTARG" ;;
    o) KEEP="$OPTARG" ;;
    h) sed -n '2,24p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [-n TOP] [-o DIR] [-- extra gnnc run options]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))

GNNC="${GNNC:-build/bin/gnnc}"
PROGRAM="${PROGRAM:-examples/cora_gcn.gnn}"
EPOCHS="${EPOCHS:-100}"
THREADS="${THREADS:-1}"
CACHE="${GNNC_CACHE_DIR:-$HOME/.cache/gnnc}"

cd "$ROOT"
command -v perf >/dev/null || { echo "profile_gcn.sh: perf not found (apt-get install linux-perf)" >&2; exit 1; }
[[ -x "$GNNC" ]] || { echo "profile_gcn.sh: $GNNC not found or not executable" >&2; exit 1; }

if [[ -n "$KEEP" ]]; then
  mkdir -p "$KEEP"; OUTDIR="$(cd "$KEEP" && pwd)"
else
  OUTDIR="$(mktemp -d /tmp/gnnc-profile.XXXXXX)"; trap 'rm -rf "$OUTDIR"' EXIT
fi

echo "# warm-up (compiles and caches the generated code): $GNNC run $PROGRAM --quiet --epochs 1 --threads $THREADS $*"
"$GNNC" run "$PROGRAM" --quiet --epochs 1 --threads "$THREADS" "$@" >/dev/null

CMD=("$GNNC" run "$PROGRAM" --quiet --epochs "$EPOCHS" --threads "$THREADS" "$@")
echo "# perf record -g -o $OUTDIR/perf.data -- ${CMD[*]}"
perf record -q -g -o "$OUTDIR/perf.data" -- "${CMD[@]}" > "$OUTDIR/gnnc.out" 2>&1 \
  || { cat "$OUTDIR/gnnc.out" >&2; exit 1; }

# Which generated .so was mapped; make sure perf can find it by build id.
SOS=$(perf report -i "$OUTDIR/perf.data" --stdio --no-children --sort dso -g none 2>/dev/null \
        | awk '$2 ~ /^gnnc-[0-9a-f]+\.so$/ {print $2}' | sort -u)
for so in $SOS; do
  if [[ -f "$CACHE/$so" ]]; then
    perf buildid-cache -a "$CACHE/$so" 2>/dev/null || true
    echo "# generated code: $CACHE/$so"
  else
    echo "# generated code: $so (not found in $CACHE; symbols come from perf's build-id cache, ~/.debug)"
  fi
done

perf report -i "$OUTDIR/perf.data" --stdio --no-children --sort dso,symbol -g none \
  --percent-limit 0 2>/dev/null > "$OUTDIR/report.txt"
SAMPLES=$(grep -m1 '^# Samples' "$OUTDIR/report.txt" || true)
echo "# ${SAMPLES#\# } ; top $TOP symbols by self time (perf report --no-children --sort dso,symbol)"
echo
grep -v '^#' "$OUTDIR/report.txt" | grep -v '^[[:space:]]*$' | sed -E 's/[[:space:]]+-[[:space:]]+-[[:space:]]*$//; s/[[:space:]]+$//' | awk -v n="$TOP" 'NR <= n'
echo
sed 's/^/# gnnc: /' "$OUTDIR/gnnc.out"
[[ -n "$KEEP" ]] && echo "# kept $OUTDIR/perf.data and $OUTDIR/report.txt"
exit 0
