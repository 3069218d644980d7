#!/usr/bin/env python3
"""Budget sweep of the memory planner (issue 5's benchmark).

For each program (GCN-3 and GAT, on Facebook and on a 2M-node synthetic
graph) it measures keep-all's device peak, asks the compiler for the
smallest plan, and trains at 100/75/50/35/25% of keep-all's peak and at the
smallest plan with `plan = auto` and with the forced policies
`recompute_all`, `offload_all` and `checkpoint_layers` (a per-layer
checkpoint: each layer's input kept, the rest recomputed; gnnc run --plan
only), all in one run of this script on one machine. Each row reports the median step time, the measured and planned
device peak, the host/disk bytes, and how long gnn-plan-memory took (MLIR's
pass timing, from `gnnc-opt -mlir-timing` on the same IR).

Budgets below the smallest plan cannot train; their rows say so, with the
compiler's smallest budget. A forced policy that does not fit a budget is
reported as "does not fit" (the compiler's error), not as a number.

Usage:
  bench/memory_sweep.py [--quick] [--epochs N] [--threads T] [--markdown]
                        [--json FILE] [--only MODEL] [--graph GRAPH]
                        [--repeat R]
  --quick   Facebook only (minutes instead of tens of minutes).
  --repeat  runs per cell, taken round the policies of a row; the cell's
            time is the median of the runs' median epoch times.

Every round of a row also trains keep-all (at a budget nothing comes near),
and "auto vs keep-all" / "auto vs best forced" are the medians over the
rounds of each round's own ratio: this machine's speed drifts by half
between minutes, and a ratio of two runs taken seconds apart cancels most of
that where a ratio against a keep-all time from another row does not.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from benchcommon import ROOT, build_stamp, stamp_line

MODELS = {
    "GCN-3": """model GCN3(hidden = 64, p = 0.5) {
  h = dropout(x, p = p);
  h = relu(gcn_conv(h, out = hidden));
  h = dropout(h, p = p);
  h = relu(gcn_conv(h, out = hidden));
  h = dropout(h, p = p);
  return gcn_conv(h, out = classes);
}
""",
    "GAT": """model GAT(hidden = 8, heads = 4, p = 0.6) {
  h = dropout(x, p = p);
  h = elu(gat_conv(h, out = hidden, heads = heads, attn_dropout = p));
  h = dropout(h, p = p);
  return gat_conv(h, out = classes, heads = 1, concat = false,
                  attn_dropout = p);
}
""",
}
GRAPHS = {
    "facebook": 'dataset("facebook", normalize_features = true)',
    "synthetic-2M": "synthetic(nodes = 2000000, avg_degree = 5, features = 32, "
                    "classes = 8, seed = 1)",
}
FRACTIONS = [1.0, 0.75, 0.5, 0.35, 0.25]
# checkpoint_layers keeps each layer's input and recomputes inside layers
# (torch.utils.checkpoint around every layer); --plan only, not a language value.
POLICIES = ["auto", "recompute_all", "offload_all", "checkpoint_layers"]
BIG = 1 << 40  # A budget nothing comes near: keep-all's reference.


def program(model, graph, budget, epochs):
    name = re.search(r"model (\w+)", MODELS[model]).group(1)
    return MODELS[model] + """
train %s on %s {
  loss = cross_entropy(); optimizer = adam(lr = 0.01, weight_decay = 5e-4);
  epochs = %d; seed = 1; eval_every = 1000;
  memory = %d B;
}
""" % (name, GRAPHS[graph], epochs, budget)


def fmt_bytes(n):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return "%.2f %s" % (n / scale, unit)
    return "%d B" % n


class Sweep:
    def __init__(self, args, tmp):
        self.args = args
        self.tmp = tmp
        self.gnnc = os.path.join(ROOT, args.build, "bin", "gnnc")
        self.opt = os.path.join(ROOT, args.build, "bin", "gnnc-opt")

    def write(self, model, graph, budget):
        path = os.path.join(self.tmp, "%s-%s-%d.gnn" % (model, graph, budget))
        with open(path, "w") as f:
            f.write(program(model, graph, budget, self.args.epochs))
        return path

    def smallest(self, model, graph):
        """The compiler's smallest budget: the front end's bound from a 1-byte
        budget, then the planner's exact smallest plan from there."""
        out = subprocess.run([self.gnnc, "check", self.write(model, graph, 1)],
                             capture_output=True, text=True)
        m = re.search(r"\(at least [^,]*, (\d+) bytes\)", out.stderr)
        if not m:
            sys.exit("gnnc check gave no lower bound:\n" + out.stderr)
        bound = int(m.group(1))
        out = subprocess.run([self.gnnc, "emit", "--stage=plan",
                              self.write(model, graph, bound)],
                             capture_output=True, text=True)
        if out.returncode == 0:
            return bound
        m = re.search(r"smallest plan[^(]*\([^,]*, (\d+) bytes\)", out.stderr)
        if not m:
            sys.exit("gnnc emit --stage=plan failed:\n" + out.stderr[-2000:])
        return int(m.group(1))

    def plan_seconds(self, model, graph, budget):
        """gnn-plan-memory's wall time on the step, by MLIR's pass timing.

        The IR carries the budget (gnn-decompose's split-heads=auto reads it
        from the train block), and where that pipeline fails on a GAT, the
        time of the head-by-head attempt is added, as the driver makes it
        (docs/MemoryPlanning.md, "GAT by heads"). Until 2026-11-23 the IR
        carried a large budget, so GAT's first layer was never split here
        and the 2M-node 25% cell timed the whole layers' failed planning."""
        ir = subprocess.run([self.gnnc, "emit", "--stage=gnn",
                             self.write(model, graph, budget)],
                            capture_output=True, text=True, check=True).stdout
        total = 0.0
        for split in ("auto", "always"):
            out = subprocess.run([self.opt, "-gnnc-pipeline=stage=plan budget=%d split-heads=%s"
                                  % (budget, split),
                                  "-mlir-timing", "-mlir-timing-display=list",
                                  "-o", os.devnull], input=ir, capture_output=True, text=True)
            m = re.search(r"([0-9.]+) \(\s*[0-9.]+%\)\s+GnnPlanMemory", out.stderr)
            if not m:
                return None
            total += float(m.group(1))
            if out.returncode == 0:
                return total
            if model != "GAT":
                break
        # No plan on this path ("?" in the table): gnnc-opt's IR is not
        # gnnc's byte for byte, and at the smallest plan the search's
        # outcome can differ by a slot.
        return None

    def run(self, model, graph, budget, policy):
        return self.combine([self.run_once(model, graph, budget, policy)
                             for _ in range(self.args.repeat)])

    @staticmethod
    def paired(runs):
        """Per round, auto's time over keep-all's and over the best forced
        policy's of the same round; their medians and ranges."""
        def summary(ratios):
            if not ratios:
                return None
            ratios = sorted(ratios)
            return {"median": ratios[len(ratios) // 2], "min": ratios[0],
                    "max": ratios[-1], "all": ratios}
        vs_keep, vs_best = [], []
        for rep, auto in enumerate(runs["auto"]):
            keep = runs["keep_all"][rep]
            if "ms" not in auto:
                continue
            if "ms" in keep:
                vs_keep.append(auto["ms"] / keep["ms"])
            forced = [runs[p][rep]["ms"] for p in POLICIES[1:] if "ms" in runs[p][rep]]
            if forced:
                vs_best.append(auto["ms"] / min(forced))
        return {"vs_keep": summary(vs_keep), "vs_best": summary(vs_best)}

    @staticmethod
    def combine(runs):
        """One cell from its runs: the epoch time is the median of their medians."""
        if any("error" in r for r in runs):
            return next(r for r in runs if "error" in r)
        ms = sorted(r["ms"] for r in runs)
        result = runs[0]
        result["ms"] = ms[len(ms) // 2]
        result["ms_all"] = ms
        return result

    def run_once(self, model, graph, budget, policy):
        report = os.path.join(self.tmp, "report.json")
        cmd = [self.gnnc, "run", "--quiet", "--plan", policy, "--report", report,
               self.write(model, graph, budget)]
        if self.args.threads:
            cmd += ["--threads", str(self.args.threads)]
        started = time.time()
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            err = [l for l in out.stderr.splitlines() if "error" in l]
            return {"error": err[0] if err else out.stderr[-300:]}
        with open(report) as f:
            r = json.load(f)["runs"][0]
        mem = r["memory"]
        return {
            "ms": 1000 * r["median_epoch_seconds"],
            "measured": mem["device"]["measured_peak_bytes"],
            "planned": mem["device"]["planned_peak_bytes"],
            "host": mem["host"]["measured_peak_bytes"],
            "disk": mem["disk"]["measured_peak_bytes"],
            "predicted_ms": 1000 * mem["plan"]["predicted_step_seconds"],
            "loss": r["loss"],
            "wall_s": time.time() - started,
        }

    def sweep(self, model, graph):
        print("== %s on %s" % (model, graph), file=sys.stderr, flush=True)
        # The reference peak and losses; its epoch time is taken again in
        # the 100% row, round the policies like theirs (the first runs of a
        # sweep are often the slowest).
        keep = self.run_once(model, graph, BIG, "keep_all")
        if "error" in keep:
            sys.exit("keep_all failed: " + keep["error"])
        peak = keep["planned"]
        smallest = self.smallest(model, graph)
        budgets = [(f, int(f * peak)) for f in FRACTIONS]
        budgets.append((smallest / peak, smallest))
        rows = []
        for fraction, budget in sorted(set(budgets), key=lambda b: -b[1]):
            row = {"fraction": fraction, "budget": budget, "runs": {}}
            if budget < smallest:
                row["below_smallest"] = True
                rows.append(row)
                continue
            row["plan_seconds"] = self.plan_seconds(model, graph, budget)
            # Repeats go round the policies, so a slow spell of the machine
            # falls on every policy of the round rather than on one; each
            # round has its own keep-all run to compare with.
            policies = ["keep_all"] + POLICIES
            runs = {policy: [] for policy in policies}
            for rep in range(self.args.repeat):
                for policy in policies:
                    print("   %5.1f%% %s (%d/%d)" % (100 * fraction, policy, rep + 1,
                                                   self.args.repeat),
                          file=sys.stderr, flush=True)
                    runs[policy].append(self.run_once(
                        model, graph, BIG if policy == "keep_all" else budget, policy))
            row["paired"] = self.paired(runs)
            for policy in policies:
                r = self.combine(runs[policy])
                if "loss" in r:
                    r["same_losses"] = r.pop("loss") == keep["loss"]
                if policy == "keep_all":
                    row["keep_all"] = r
                    if budget == peak:
                        keep["ms"], keep["ms_all"] = r["ms"], r["ms_all"]
                    continue
                row["runs"][policy] = r
            rows.append(row)
        keep.pop("loss")
        return {"model": model, "graph": graph, "keep_all": keep,
                "keep_all_peak": peak, "smallest": smallest, "rows": rows}


def cell(r):
    if "error" in r:
        return "does not fit"
    return "%.1f ms, %s" % (r["ms"], fmt_bytes(r["measured"]))


def table(result, markdown):
    keep = result["keep_all"]
    lines = ["%s on %s: keep-all peak %s, %.1f ms/epoch; smallest plan %s (%.0f%%)" % (
        result["model"], result["graph"], fmt_bytes(result["keep_all_peak"]), keep["ms"],
        fmt_bytes(result["smallest"]), 100.0 * result["smallest"] / result["keep_all_peak"])]
    head = ["budget"] + POLICIES + [
            "auto vs keep-all", "auto vs best forced", "planned = measured",
            "plan time"]
    rows = []
    for row in result["rows"]:
        label = "%.0f%% (%s)" % (100 * row["fraction"], fmt_bytes(row["budget"]))
        if row.get("below_smallest"):
            rows.append([label, "below the smallest plan"] + [""] * (len(head) - 2))
            continue
        runs = row["runs"]
        auto = runs["auto"]
        paired = row["paired"]
        vs_keep = ("%+.1f%% (%+.0f..%+.0f)" % tuple(
            100 * (paired["vs_keep"][k] - 1) for k in ("median", "min", "max"))
                   if paired["vs_keep"] else "")
        vs_best = ("%.2fx (%.2f..%.2f)" % tuple(
            paired["vs_best"][k] for k in ("median", "min", "max"))
                   if paired["vs_best"] else "-")
        exact = all(r["measured"] == r["planned"] and r["measured"] <= row["budget"]
                    and r["same_losses"] for r in runs.values() if "ms" in r)
        plan = "%.3f s" % row["plan_seconds"] if row["plan_seconds"] is not None else "?"
        rows.append([label] + [cell(runs[p]) for p in POLICIES] +
                    [vs_keep, vs_best, "yes" if exact else "NO", plan])
    if markdown:
        lines.append("")
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        lines += ["| " + " | ".join(r) + " |" for r in rows]
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
        lines.append("  ".join(h.ljust(w) for h, w in zip(head, widths)))
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--epochs", type=int, default=4,
                    help="epochs per run; the first is excluded from the median")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs per cell; the cell shows the median of their epoch times")
    ap.add_argument("--quick", action="store_true", help="Facebook only")
    ap.add_argument("--only", help="one model (GCN-3 or GAT)")
    ap.add_argument("--graph", help="one graph (facebook or synthetic-2M)")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()
    stamps = build_stamp(os.path.join(args.build, "bin", "gnnc"))
    graphs = ["facebook"] if args.quick else list(GRAPHS)
    if args.graph:
        graphs = [args.graph]
    models = [args.only] if args.only else list(MODELS)
    results = []
    with tempfile.TemporaryDirectory(prefix="gnnc-sweep-") as tmp:
        sweep = Sweep(args, tmp)
        for graph in graphs:
            for model in models:
                results.append(sweep.sweep(model, graph))
    print("# gnnc memory planner budget sweep (%d epochs per run, median of epochs 2..%d)"
          % (args.epochs, args.epochs))
    print("# build: " + stamp_line(stamps))
    print("# cells: median ms/epoch, measured device peak; 'planned = measured' also "
          "checks peak <= budget and losses bit-identical to keep_all")
    print("# auto vs keep-all / best forced: median (range) over the rounds of each "
          "round's own ratio; every round trains keep-all too")
    for r in results:
        print()
        print(table(r, args.markdown))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"build": stamps, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
