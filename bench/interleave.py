#!/usr/bin/env python3
"""Epoch times of several gnnc programs, taken in turn, on a noisy machine.

On a small shared machine one run's epoch time moves by 20-70% from the next, so two
programs timed one after the other mostly compare moments of the machine. This runs

  build/bin/gnnc run PROGRAM --quiet --threads T --epochs E --report=TMP.json

for each program in turn, ROUNDS times (round r starting at the r-th program, so
none always runs right after the same one), and prints per program three estimators of its
epoch time (epoch 1 excluded), each also relative to the first program:
  - the median over rounds of each run's median epoch;
  - the fastest epoch of all runs (other work only ever slows an epoch down);
  - the 25th percentile of all epochs;
and each run's median, so the spread is visible.

Example (the memory planner's 50% and 35% plans against keep-all):
  bench/interleave.py keep.gnn half.gnn third.gnn --rounds 6 --threads 2 --epochs 40
and one program planned with two profiles:
  bench/interleave.py keep.gnn quarter.gnn quarter.gnn --args 3 '--profile old.json'
Python 3 stdlib only. A benchmark, not a test.
"""
import argparse
import json
import os
import shlex
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
    ap.add_argument("--args", nargs=2, action="append", default=[], metavar=("N", "ARGS"),
                    help="more gnnc run arguments for the N-th program (from 1), e.g. "
                         "--args 2 '--profile old.json': the same file may then be "
                         "given twice")
    a = ap.parse_args()
    if a.epochs < 2 or a.rounds < 1:
        sys.exit("interleave.py: --epochs must be >= 2 and --rounds >= 1")
    extra = [[] for _ in a.programs]
    for n, args in a.args:
        if not n.isdigit() or not 1 <= int(n) <= len(a.programs):
            sys.exit("interleave.py: --args %s: no such program (1 to %d)"
                     % (n, len(a.programs)))
        extra[int(n) - 1] += shlex.split(args)
    labels = [" ".join([os.path.basename(p)] + e) for p, e in zip(a.programs, extra)]

    gnnc = os.path.join(ROOT, a.build, "bin", "gnnc")
    epochs = [[] for _ in a.programs]
    with tempfile.TemporaryDirectory(prefix="gnnc-interleave-") as tmp:
        report = os.path.join(tmp, "report.json")
        for r in range(a.rounds):
            # Each round starts one program further on. In a fixed order,
            # two plans of GAT on 2M nodes at 25% (3 rounds, 2026-11-23)
            # measured the one run second 5.5% slower than the one run
            # third, and with the two swapped 0.9% slower the other way.
            for k in range(len(a.programs)):
                i = (r + k) % len(a.programs)
                p = a.programs[i]
                run = subprocess.run([gnnc, "run", "--quiet", "--threads", str(a.threads),
                                      "--epochs", str(a.epochs), p, "--report=" + report]
                                     + extra[i], capture_output=True, text=True)
                if run.returncode != 0:
                    sys.exit("interleave.py: gnnc run %s failed:\n%s" % (labels[i], run.stderr))
                with open(report) as f:
                    epochs[i].append(json.load(f)["runs"][0]["epoch_seconds"][1:])
            print("round %d/%d done" % (r + 1, a.rounds), file=sys.stderr)

    def estimators(runs):
        flat = sorted(x for run in runs for x in run)
        return (statistics.median(statistics.median(run) for run in runs) * 1e3,
                flat[0] * 1e3, flat[len(flat) // 4] * 1e3)

    ref = estimators(epochs[0])
    print("%d rounds, %d epochs, %d threads; ms/epoch (vs the first program)"
          % (a.rounds, a.epochs, a.threads))
    print("| program | median of runs | fastest epoch | 25th percentile | run medians |")
    print("|---|---|---|---|---|")
    for label, runs in zip(labels, epochs):
        est = estimators(runs)
        cells = ["%.2f (%+.1f%%)" % (v, 100 * (v / r - 1)) for v, r in zip(est, ref)]
        medians = " ".join("%.1f" % (statistics.median(run) * 1e3) for run in runs)
        print("| %s | %s | %s |" % (label, " | ".join(cells), medians))


if __name__ == "__main__":
    main()
