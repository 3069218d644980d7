#!/usr/bin/env python3
"""Epoch times of several gnnc programs, taken in turn, on a noisy machine.

On a small shared machine one run's epoch time moves by 20-70% from the next, so two
programs timed one after the other mostly compare moments of the machine. This runs

  build/bin/gnnc run PROGRAM --quiet --threads T --epochs E --report=TMP.json

for each program in turn, ROUNDS times, and prints per program three estimators of its
epoch time (epoch 1 excluded), each also relative to the first program:
  - the median over rounds of each run's median epoch;
  - the fastest epoch of all runs (other work only ever slows an epoch down);
  - the 25th percentile of all epochs;
and each run's median, so the spread is visible.

Example (the memory planner's 50% and 35% plans against keep-all):
  bench/interleave.py keep.gnn half.gnn third.gnn --rounds 6 --threads 2 --epochs 40
Python 3 stdlib only. A benchmark, not a test.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from benchcommon import ROOT


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("programs", nargs="+", help=".gnn files; the first is the reference")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--build", default="build", help="build directory (default: build)")
    a = ap.parse_args()
    if a.epochs < 2 or a.rounds < 1:
        sys.exit("interleave.py: --epochs must be >= 2 and --rounds >= 1")

    gnnc = os.path.join(ROOT, a.build, "bin", "gnnc")
    epochs = {p: [] for p in a.programs}
    with tempfile.TemporaryDirectory(prefix="gnnc-interleave-") as tmp:
        report = os.path.join(tmp, "report.json")
        for r in range(a.rounds):
            for p in a.programs:
                run = subprocess.run([gnnc, "run", "--quiet", "--threads", str(a.threads),
                                      "--epochs", str(a.epochs), p, "--report=" + report],
                                     capture_output=True, text=True)
                if run.returncode != 0:
                    sys.exit("interleave.py: gnnc run %s failed:\n%s" % (p, run.stderr))
                with open(report) as f:
                    epochs[p].append(json.load(f)["runs"][0]["epoch_seconds"][1:])
            print("round %d/%d done" % (r + 1, a.rounds), file=sys.stderr)

    def estimators(runs):
        flat = sorted(x for run in runs for x in run)
        return (statistics.median(statistics.median(run) for run in runs) * 1e3,
                flat[0] * 1e3, flat[len(flat) // 4] * 1e3)

    ref = estimators(epochs[a.programs[0]])
    print("%d rounds, %d epochs, %d threads; ms/epoch (vs the first program)"
          % (a.rounds, a.epochs, a.threads))
    print("| program | median of runs | fastest epoch | 25th percentile | run medians |")
    print("|---|---|---|---|---|")
    for p in a.programs:
        est = estimators(epochs[p])
        cells = ["%.2f (%+.1f%%)" % (v, 100 * (v / r - 1)) for v, r in zip(est, ref)]
        medians = " ".join("%.1f" % (statistics.median(run) * 1e3) for run in epochs[p])
        print("| %s | %s | %s |" % (os.path.basename(p), " | ".join(cells), medians))


if __name__ == "__main__":
    main()
