#!/usr/bin/env python3
"""gnn-plan-memory's time for every cell of the memory sweep, planning only.

For GCN-3 and GAT on Facebook and the 2M-node synthetic graph, at 100, 75,
50, 35 and 25% of keep-all's device peak and at the smallest plan, prints
the plan time bench/memory_sweep.py reports for the cell (MLIR's pass
timing of gnn-plan-memory, Sweep.plan_seconds) without training anything:
seconds per run instead of half an hour. '-' marks a budget below the
smallest plan, '?' a cell whose plan time could not be taken.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memory_sweep  # noqa: E402

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--graph", help="one graph (facebook or synthetic-2M)")
    parser.add_argument("--only", help="one model (GCN-3 or GAT)")
    args = parser.parse_args()
    args.epochs = 1  # Sweep writes programs with it; nothing is trained.
    gnnc = os.path.join(memory_sweep.ROOT, args.build, "bin", "gnnc")
    graphs = [args.graph] if args.graph else list(memory_sweep.GRAPHS)
    models = [args.only] if args.only else list(memory_sweep.MODELS)
    header = ["graph", "model", "smallest plan (B)"] + \
        ["%d%%" % (f * 100) for f in memory_sweep.FRACTIONS] + ["smallest"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        sweep = memory_sweep.Sweep(args, tmp)
        for graph in graphs:
            for model in models:
                out = subprocess.run(
                    [gnnc, "plan", sweep.write(model, graph, memory_sweep.BIG),
                     "--json", "--plan", "keep_all"],
                    capture_output=True, text=True, check=True).stdout
                keep = json.loads(out)["trains"][0]["peak"]["device_bytes"]
                smallest = sweep.smallest(model, graph)
                cells = []
                budgets = [int(keep * f) for f in memory_sweep.FRACTIONS]
                for budget in budgets + [smallest]:
                    if budget < smallest:
                        cells.append("-")
                        continue
                    seconds = sweep.plan_seconds(model, graph, budget)
                    cells.append("?" if seconds is None else "%.3f s" % seconds)
                print("| %s | %s | %d | %s |" % (graph, model, smallest,
                                                 " | ".join(cells)), flush=True)


if __name__ == "__main__":
    main()
