#!/usr/bin/env python3
"""Test accuracy of gnnc's example models over several seeds, against published numbers.

Trains each program with seeds 0 .. N-1:

  build/bin/gnnc run PROGRAM --quiet --threads T --seed S --report=TMP.json

and prints, per program, the mean and the SAMPLE standard deviation (n-1 in the
denominator) of the test accuracy in percent, min and max, and the published
target with PASS (mean >= target) or SHORT:

  examples/cora_gcn.gnn      GCN on Cora       >= 81.0  (Kipf & Welling, ICLR 2017: 81.5)
  examples/citeseer_gcn.gnn  GCN on CiteSeer   >= 70.0  (Kipf & Welling: 70.3)
  examples/cora_gat.gnn      GAT on Cora       >= 82.5  (Velickovic et al., ICLR 2018: 83.0 +- 0.7)
  examples/cora_sage.gnn     GraphSAGE on Cora >= 80.0  (PyG-style full-graph GraphSAGE-mean)

Every run uses the program's own epochs and hyper-parameters; only the seed changes.
Accuracy is that of the weights training ends with, and PASS is judged on it: by default the
last epoch's (no early stopping). The table also shows the test accuracy at the epoch of best
validation accuracy (gnnc's report, best_val).

--patience N, --monitor and --restore-best pass gnnc run's early stopping and model selection
on. The GAT paper's protocol (Velickovic et al.'s reference code: patience 100, progress while
the validation accuracy or loss holds its record, the last pass that held both restored, an
epoch cap of 100000) is

  bench/accuracy.py --epochs 100000 --patience 100 --monitor accuracy-or-loss --restore-best

and then the accuracy is that of the restored best-validation weights.
Exit status: 0 when every run trained (whether PASS or SHORT), 2 when any run failed.
Run from anywhere; paths are relative to the project root. Python 3 stdlib only.
"""
import argparse
import datetime
import json
import math
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time

from benchcommon import ROOT, build_stamp, stamp_line

TARGETS = [  # (program, target test accuracy in percent)
    ("examples/cora_gcn.gnn", 81.0),
    ("examples/citeseer_gcn.gnn", 70.0),
    ("examples/cora_gat.gnn", 82.5),
    ("examples/cora_sage.gnn", 80.0),
]


def mean_std(xs):
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, float("nan")
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def run_one(a, program, seed):
    with tempfile.TemporaryDirectory(prefix="gnnc-acc-") as tmp:
        rep = os.path.join(tmp, "report.json")
        cmd = [a.gnnc, "run", program, "--quiet", "--threads=%d" % a.threads, "--seed=%d" % seed,
               "--report=" + rep]
        if a.epochs is not None:
            cmd.append("--epochs=%d" % a.epochs)
        if a.patience:
            cmd.append("--patience=%d" % a.patience)
        if a.restore_best:
            cmd.append("--restore-best")
        if a.monitor:
            cmd.append("--monitor=" + a.monitor)
        if not a.quiet:
            print("# " + " ".join(shlex.quote(c) for c in cmd), file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if p.returncode != 0 or not os.path.exists(rep):
            lines = [l for l in (p.stderr + p.stdout).splitlines() if l.strip()]
            return {"seed": seed, "error": "exit %d: %s" % (p.returncode, lines[0] if lines else "(no output)")}
        run = json.load(open(rep, encoding="utf-8"))["runs"][0]
    return {"seed": seed, "wall_s": wall, "model": run["model"], "dataset": run["dataset"],
            "epochs": run["epochs"], "test_acc": 100.0 * run["metrics"]["test"]["accuracy"],
            "val_acc": 100.0 * run["metrics"]["val"]["accuracy"],
            "best_val_test_acc": 100.0 * run["best_val"]["test"]["accuracy"],
            "best_val_epoch": run["best_val"]["epoch"],
            "stopped_early": run.get("early_stop", {}).get("stopped", False),
            "restored_best": run.get("restored_best", False),
            "kept_epoch": run.get("early_stop", {}).get("kept_epoch"),
            "final_loss": run["loss"][-1] if run.get("loss") else None,
            "median_epoch_ms": 1e3 * run["median_epoch_seconds"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=10, help="train with seeds 0..N-1 (default: 10)")
    ap.add_argument("--threads", type=int, default=2, help="gnnc --threads (default: 2)")
    ap.add_argument("--epochs", type=int, default=None, help="override every program's epochs "
                    "(default: the programs' own; the targets assume those)")
    ap.add_argument("--patience", type=int, default=0, help="gnnc run --patience: stop once N "
                    "validation passes in a row bring no better accuracy (default: 0, off)")
    ap.add_argument("--monitor", choices=["accuracy", "accuracy-or-loss"], help="gnnc run "
                    "--monitor: what --patience and --restore-best watch (default: gnnc's, accuracy)")
    ap.add_argument("--restore-best", action="store_true", help="gnnc run --restore-best: judge "
                    "the best validation pass's weights, not the last epoch's")
    ap.add_argument("--programs", default=",".join(p for p, _ in TARGETS),
                    help="comma-separated subset of the programs above (default: all four)")
    ap.add_argument("--gnnc", default="build/bin/gnnc", help="gnnc binary (default: build/bin/gnnc)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--json", metavar="OUT", help="also write all per-seed results as JSON to OUT")
    ap.add_argument("-q", "--quiet", action="store_true", help="do not echo the commands on stderr")
    a = ap.parse_args()
    if a.seeds < 1:
        ap.error("--seeds must be >= 1")
    if a.patience < 0:
        ap.error("--patience must be >= 0")
    if not os.path.exists(os.path.join(ROOT, a.gnnc)):
        ap.error("not found: %s (relative to %s)" % (a.gnnc, ROOT))
    if os.sep not in a.gnnc:
        a.gnnc = os.path.join(".", a.gnnc)
    targets = dict(TARGETS)
    programs = [p.strip() for p in a.programs.split(",") if p.strip()]
    for p in programs:
        if p not in targets:
            ap.error("no target for %r (choose from %s)" % (p, ", ".join(targets)))

    stamps_before = build_stamp(a.gnnc)
    results = []
    for prog in programs:
        runs = [run_one(a, prog, s) for s in range(a.seeds)]
        ok = [r for r in runs if "error" not in r]
        res = {"program": prog, "target": targets[prog], "runs": runs, "failed": len(runs) - len(ok)}
        if ok:
            accs = [r["test_acc"] for r in ok]
            m, sd = mean_std(accs)
            bm, bsd = mean_std([r["best_val_test_acc"] for r in ok])
            ran = [r["epochs"] for r in ok]
            epochs = str(ran[0]) if min(ran) == max(ran) else "%d-%d" % (min(ran), max(ran))
            res.update(model=ok[0]["model"], dataset=ok[0]["dataset"], epochs=epochs,
                       mean=m, std=sd, min=min(accs), max=max(accs), n=len(accs),
                       best_val_mean=bm, best_val_std=bsd,
                       passed=m >= targets[prog])
        results.append(res)

    head = ["program", "model", "dataset", "epochs", "seeds", "test acc % (mean ± sd)", "min", "max",
            "target", "result", "test acc @ best val"]
    rows = []
    for r in results:
        if "mean" not in r:
            rows.append([r["program"], "-", "-", "-", "0/%d" % a.seeds,
                         "FAILED: " + r["runs"][0]["error"], "-", "-", ">= %.1f" % r["target"], "SHORT",
                         "-"])
            continue
        rows.append([r["program"], r["model"], r["dataset"], r["epochs"],
                     "%d/%d" % (r["n"], a.seeds) if r["failed"] else str(r["n"]),
                     "%.2f ± %.2f" % (r["mean"], r["std"]), "%.1f" % r["min"], "%.1f" % r["max"],
                     ">= %.1f" % r["target"], "PASS" if r["passed"] else "SHORT",
                     "%.2f ± %.2f" % (r["best_val_mean"], r["best_val_std"])])

    protocol = ("early stopping with patience %d on the validation %s" % (
        a.patience, "accuracy or loss" if a.monitor == "accuracy-or-loss" else "accuracy")
                if a.patience else "no early stopping")
    ending = ("the last epoch's weights" if not a.restore_best else
              "the weights of the last pass with the best validation accuracy and loss, restored"
              if a.monitor == "accuracy-or-loss" else "the best validation pass's weights, restored")
    print("gnnc test accuracy over seeds 0..%d, --threads %d, %s epochs at most, %s; the accuracy "
          "is of %s; the epochs column is the epochs run; sd = sample standard "
          "deviation (n-1); PASS = mean test accuracy >= target; the last "
          "column is the test accuracy of the epoch with the best validation accuracy (model "
          "selection, as PyG's examples report)" % (
              a.seeds - 1, a.threads, a.epochs if a.epochs is not None else "the programs'",
              protocol, ending))
    print()
    if a.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" for _ in head) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        w = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
        print("  ".join(h.ljust(w[i]) for i, h in enumerate(head)))
        print("  ".join("-" * x for x in w))
        for row in rows:
            print("  ".join(c.ljust(w[i]) if i < 3 else c.rjust(w[i]) for i, c in enumerate(row)))
    for r in results:
        for run in r["runs"]:
            if "error" in run:
                print("%s seed %d failed: %s" % (r["program"], run["seed"], run["error"]))
    print()
    for r in results:
        if "mean" in r:
            print("%-26s per seed: %s" % (r["program"], " ".join(
                "%.1f" % run["test_acc"] if "test_acc" in run else "fail" for run in r["runs"])))

    stamps = build_stamp(a.gnnc)
    print("build: " + stamp_line(stamps))
    if stamps != stamps_before:
        print("WARNING: gnnc or its runtime was rebuilt during this run (was: %s)" % stamp_line(stamps_before))
    if a.json:
        meta = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "host": platform.node(),
                "platform": platform.platform(), "cpus": os.cpu_count(), "argv": sys.argv,
                "build": stamps, "build_before": stamps_before,
                "threads": a.threads, "seeds": list(range(a.seeds)), "epochs_override": a.epochs,
                "patience": a.patience, "restore_best": a.restore_best,
                "monitor": a.monitor or "accuracy",
                "std": "sample (n-1)"}
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"meta": meta, "results": results}, f, indent=2)
        print("wrote %s" % a.json)
    return 2 if any(r["failed"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
