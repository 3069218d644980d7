#!/usr/bin/env python3
"""gnnc vs. a plain-PyTorch GCN on the CPU: time per epoch, peak RSS, test accuracy.

For each dataset (cora, citeseer, facebook) and thread count (1, 2) this runs, one
after the other in the same invocation:

  peer:  /usr/bin/python3 ../shared/peers/torch_gcn_cpu.py --data ../shared/data/NAME \\
             --threads T --seed 0 --json [--epochs E]
  gnnc:  build/bin/gnnc run examples/NAME_gcn.gnn --threads T --quiet --seed 0 \\
             --report=TMP.json [--epochs E]

and prints one table row per (dataset, threads):

  ms/epoch    median time of one training epoch, epoch 1 excluded (both tools
              measure it themselves, the same way)
  speedup     peer ms/epoch / gnnc ms/epoch            target: >= 5x
  RSS MiB     peak resident set size as the tool reports it (getrusage of itself);
              the same number is also measured from outside (wait4's ru_maxrss of
              the child) and shown in brackets where the two differ
  RSS ratio   gnnc RSS / peer RSS (the tools' own numbers) target: <= 0.25x
  test acc    test-set accuracy in percent after the last epoch
  load        the 1-minute load average when the row started: timings taken
              while something else uses the cores are not comparable

Before measuring, every gnnc program is run once with --epochs 1 (a warm-up), so the
C++ compile of the generated code (cached in $GNNC_CACHE_DIR or ~/.cache/gnnc) is
not part of any measured run. Both processes get OMP_NUM_THREADS and
OPENBLAS_NUM_THREADS = T, so neither uses more cores than the row says.
If a run fails (e.g. gnnc refuses a program whose memory budget is too small),
its error text is shown in the row instead of numbers, and the script goes on.

Run from anywhere; paths default relative to the project root. Python 3 stdlib only.
Set-up for the peer: apt-get install -y python3-torch python3-numpy libopenblas0-openmp
"""
import argparse
import datetime
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time

from benchcommon import ROOT, build_stamp, stamp_line

ALL_DATASETS = ["cora", "citeseer", "facebook"]
SPEEDUP_TARGET = 5.0   # gnnc at least 5x faster per epoch
RSS_TARGET = 0.25      # gnnc peak RSS at most 0.25x the peer's


def run_measured(cmd, env, cwd):
    """Run cmd; return (rc, stdout, stderr, wall_s, ext_maxrss_mib, cpu_s).

    The child's own peak RSS is taken from os.wait4 (ru_maxrss, KiB on Linux): it
    is this child's alone, unlike RUSAGE_CHILDREN, which is a maximum over all
    children waited for so far."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)  # keep Popen from waiting again
        out.seek(0)
        err.seek(0)
        return (p.returncode, out.read().decode(errors="replace"), err.read().decode(errors="replace"),
                wall, ru.ru_maxrss / 1024.0, ru.ru_utime + ru.ru_stime)


def error_text(rc, stdout, stderr):
    lines = [l.strip() for l in (stderr + "\n" + stdout).splitlines() if l.strip()]
    errs = [l for l in lines if "error" in l.lower()]
    text = (errs or lines[-1:] or ["(no output)"])[0]
    text = re.sub(r"^gnnc: error: ", "", text)
    return "exit %d: %s" % (rc, text)


def program_value(path, key):
    """An integer `key = N` from a .gnn file (first occurrence), or None."""
    try:
        src = open(path, encoding="utf-8").read()
    except OSError:
        return None
    src = re.sub(r"#[^\n]*", "", src)
    m = re.search(r"\b%s\s*=\s*(\d+)" % re.escape(key), src)
    return int(m.group(1)) if m else None


def thread_env(threads):
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = str(threads)
    env["OPENBLAS_NUM_THREADS"] = str(threads)
    return env


def run_peer(a, dataset, threads, epochs, hidden):
    cmd = [a.peer_python, a.peer, "--data", os.path.join(a.data, dataset),
           "--threads", str(threads), "--seed", str(a.seed), "--json"]
    if epochs is not None:
        cmd += ["--epochs", str(epochs)]
    if hidden is not None:
        cmd += ["--hidden", str(hidden)]
    log(cmd)
    rc, out, err, wall, ext, cpu = run_measured(cmd, thread_env(threads), ROOT)
    r = {"cmd": cmd, "rc": rc, "wall_s": wall, "ext_rss_mib": ext, "cpu_s": cpu}
    js = [l[5:] for l in out.splitlines() if l.startswith("JSON ")]
    if rc != 0 or not js:
        r["error"] = error_text(rc, out, err)
        return r
    j = json.loads(js[-1])
    r.update(ms=j["epoch_ms_median"], rss_mib=j["peak_rss_mib"], test_acc=100.0 * j["test_acc"],
             raw=j)
    return r


def run_gnnc(a, program, threads, epochs):
    with tempfile.TemporaryDirectory(prefix="gnnc-bench-") as tmp:
        rep = os.path.join(tmp, "report.json")
        cmd = [a.gnnc, "run", program, "--threads=%d" % threads, "--quiet",
               "--seed=%d" % a.seed, "--report=" + rep]
        if epochs is not None:
            cmd.append("--epochs=%d" % epochs)
        log(cmd)
        rc, out, err, wall, ext, cpu = run_measured(cmd, thread_env(threads), ROOT)
        r = {"cmd": cmd, "rc": rc, "wall_s": wall, "ext_rss_mib": ext, "cpu_s": cpu}
        if rc != 0 or not os.path.exists(rep):
            r["error"] = error_text(rc, out, err)
            return r
        j = json.load(open(rep, encoding="utf-8"))
    run = j["runs"][0]
    r.update(ms=1e3 * run["median_epoch_seconds"], rss_mib=run["memory"]["peak_rss_bytes"] / 2.0**20,
             test_acc=100.0 * run["metrics"]["test"]["accuracy"],
             device_peak_mib=run["memory"]["device"]["measured_peak_bytes"] / 2.0**20,
             raw={k: v for k, v in run.items() if k not in ("epoch_seconds", "loss")})
    r["raw"]["final_loss"] = run["loss"][-1] if run.get("loss") else None
    return r


def warm_up(a, program):
    cmd = [a.gnnc, "run", program, "--epochs=1", "--quiet", "--threads=1", "--seed=%d" % a.seed]
    log(cmd, "warm-up")
    rc, out, err, wall, _, _ = run_measured(cmd, thread_env(1), ROOT)
    return None if rc == 0 else error_text(rc, out, err)


VERBOSE = True


def log(cmd, what="run"):
    if VERBOSE:
        print("# %s: %s" % (what, " ".join(shlex.quote(c) for c in cmd)), file=sys.stderr, flush=True)


def rss_cell(r):
    own, ext = r["rss_mib"], r["ext_rss_mib"]
    if abs(own - ext) > max(1.0, 0.01 * own):
        return "%.1f (ext %.1f)" % (own, ext)
    return "%.1f" % own


HEAD = ["dataset", "T", "peer ms/ep", "gnnc ms/ep", "speedup", "peer RSS MiB", "gnnc RSS MiB",
        "RSS ratio", "peer acc", "gnnc acc", "speed>=5x", "RSS<=0.25x", "load"]


def row_cells(row):
    p, g = row["peer"], row["gnnc"]
    cells = [row["dataset"], str(row["threads"])]
    load = "%.1f" % row["load1"]
    cells.append("FAILED" if "error" in p else "%.2f" % p["ms"])
    if "error" in g:
        cells.append("gnnc FAILED: " + g["error"])
        return cells, True
    cells.append("%.2f" % g["ms"])
    if "error" in p:
        cells += ["-", "-", rss_cell(g), "-", "-", "%.1f" % g["test_acc"], "-", "-", load]
        return cells, False
    cells += ["%.2fx" % row["speedup"], rss_cell(p), rss_cell(g), "%.2fx" % row["rss_ratio"],
              "%.1f" % p["test_acc"], "%.1f" % g["test_acc"],
              "PASS" if row["speed_pass"] else "SHORT", "PASS" if row["rss_pass"] else "SHORT", load]
    return cells, False


def print_table(rows, markdown):
    body = [row_cells(r) for r in rows]
    if markdown:
        print("| " + " | ".join(HEAD) + " |")
        print("|" + "|".join("---" for _ in HEAD) + "|")
        for cells, failed in body:
            if failed:  # the error text spans the remaining columns
                cells = cells + [""] * (len(HEAD) - len(cells))
            print("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        return
    widths = [len(h) for h in HEAD]
    for cells, failed in body:
        for i, c in enumerate(cells if not failed else cells[:-1]):
            widths[i] = max(widths[i], len(c))
    fmt = lambda cells: "  ".join(c.ljust(widths[i]) if i < 2 else c.rjust(widths[i])
                                  for i, c in enumerate(cells))
    print(fmt(HEAD))
    print("  ".join("-" * w for w in widths))
    for cells, failed in body:
        if failed:
            print(fmt(cells[:-1]) + "  " + cells[-1])
        else:
            print(fmt(cells))


def main():
    global VERBOSE
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=",".join(ALL_DATASETS),
                    help="comma-separated subset of %s (default: all)" % ",".join(ALL_DATASETS))
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts (default: 1,2)")
    ap.add_argument("--epochs", type=int, default=None,
                    help="epochs for both tools (default: the gnnc program's own `epochs`, "
                         "which is also passed to the peer)")
    ap.add_argument("--seed", type=int, default=0, help="seed for both tools (default: 0)")
    ap.add_argument("--gnnc", default="build/bin/gnnc", help="gnnc binary (default: build/bin/gnnc)")
    ap.add_argument("--peer", default="../shared/peers/torch_gcn_cpu.py", help="peer script")
    ap.add_argument("--peer-python", default="/usr/bin/python3",
                    help="Python with python3-torch for the peer (default: /usr/bin/python3)")
    ap.add_argument("--data", default="../shared/data", help="dataset root (default: ../shared/data)")
    ap.add_argument("--peer-hidden", choices=["default", "program"], default="default",
                    help="peer's hidden width: its own default (16, Kipf & Welling) or the gnnc "
                         "program's `hidden` (facebook_gcn.gnn uses 64)")
    ap.add_argument("--gnnc-memory", metavar="SIZE",
                    help="run gnnc on a temporary copy of each program with `memory = SIZE;` "
                         "(e.g. '512 MiB': facebook_gcn.gnn's 256 MiB is below what the CPU "
                         "runtime needs for Facebook's dense features); default: the programs as they are")
    ap.add_argument("--no-warm-up", action="store_true", help="skip the gnnc --epochs 1 warm-up runs")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--json", metavar="OUT", help="also write all results as JSON to OUT")
    ap.add_argument("-q", "--quiet", action="store_true", help="do not echo the commands on stderr")
    a = ap.parse_args()
    VERBOSE = not a.quiet

    datasets = [d.strip() for d in a.datasets.split(",") if d.strip()]
    for d in datasets:
        if d not in ALL_DATASETS:
            ap.error("unknown dataset %r (choose from %s)" % (d, ", ".join(ALL_DATASETS)))
    threads = [int(t) for t in a.threads.split(",") if t.strip()]
    # Relative paths are relative to the project root, where every command runs.
    for path in (a.gnnc, a.peer, a.data):
        if not os.path.exists(os.path.join(ROOT, path)):
            ap.error("not found: %s (relative to %s)" % (path, ROOT))
    if os.sep not in a.gnnc:
        a.gnnc = os.path.join(".", a.gnnc)
    programs = {d: os.path.join("examples", "%s_gcn.gnn" % d) for d in datasets}
    tmpdir = None
    if a.gnnc_memory:
        # Same file name in a temporary folder, so warm-up and measured runs share a cache entry.
        tmpdir = tempfile.TemporaryDirectory(prefix="gnnc-bench-prog-")
        for d, prog in programs.items():
            src = open(os.path.join(ROOT, prog), encoding="utf-8").read()
            src, n = re.subn(r"(?m)^(\s*memory\s*=\s*)[^;]+;", lambda m: m.group(1) + a.gnnc_memory + ";", src)
            if n == 0:
                ap.error("%s has no `memory = ...;` line to override" % prog)
            programs[d] = os.path.join(tmpdir.name, os.path.basename(prog))
            with open(programs[d], "w", encoding="utf-8") as f:
                f.write(src)

    if not a.no_warm_up:
        for d in datasets:
            err = warm_up(a, programs[d])
            if err:
                print("# warm-up of %s failed (%s)" % (programs[d], err), file=sys.stderr)

    stamps_before = build_stamp(a.gnnc)
    rows = []
    for d in datasets:
        source = os.path.join(ROOT, "examples", "%s_gcn.gnn" % d)
        epochs = a.epochs if a.epochs is not None else program_value(source, "epochs")
        hidden = program_value(source, "hidden") if a.peer_hidden == "program" else None
        for t in threads:
            row = {"dataset": d, "threads": t, "program": programs[d], "epochs": epochs,
                   "load1": os.getloadavg()[0], "peer": run_peer(a, d, t, epochs, hidden)}
            row["gnnc"] = run_gnnc(a, programs[d], t, a.epochs)
            p, g = row["peer"], row["gnnc"]
            if "error" not in p and "error" not in g:
                row["speedup"] = p["ms"] / g["ms"]
                row["rss_ratio"] = g["rss_mib"] / p["rss_mib"]
                row["speed_pass"] = row["speedup"] >= SPEEDUP_TARGET
                row["rss_pass"] = row["rss_ratio"] <= RSS_TARGET
            rows.append(row)

    print("gnnc vs. PyTorch peer (torch_gcn_cpu.py), CPU, seed %d, %s epochs; ms/epoch = median, "
          "epoch 1 excluded" % (a.seed, a.epochs if a.epochs is not None else "the programs'"))
    if a.gnnc_memory:
        print("gnnc programs run with `memory = %s;` instead of their own budget" % a.gnnc_memory)
    if a.peer_hidden == "program":
        print("peer hidden width = the gnnc program's `hidden`")
    print("targets: gnnc >= %.0fx faster per epoch (speedup = peer/gnnc), gnnc peak RSS <= %.2fx the peer's"
          % (SPEEDUP_TARGET, RSS_TARGET))
    print()
    print_table(rows, a.markdown)
    print()
    print("load: 1-minute load average when the row started (%d CPUs); other work on the machine "
          "shows up here and in the timings." % os.cpu_count())
    print("RSS: each tool's own peak RSS; '(ext N)' = wait4 ru_maxrss measured from outside, shown "
          "where it differs by more than 1 MiB / 1%.")
    stamps = build_stamp(a.gnnc)
    print("build: " + stamp_line(stamps))
    if stamps != stamps_before:
        print("WARNING: gnnc or its runtime was rebuilt during this run (was: %s)" % stamp_line(stamps_before))
    blas = next((r["peer"]["raw"].get("blas") for r in rows if "raw" in r["peer"]), None)
    if blas:
        print("peer BLAS: %s" % blas)

    if a.json:
        meta = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
                "host": platform.node(), "platform": platform.platform(), "cpus": os.cpu_count(),
                "argv": sys.argv, "gnnc_memory": a.gnnc_memory, "peer_hidden": a.peer_hidden, "build": stamps, "build_before": stamps_before, "seed": a.seed, "epochs_override": a.epochs,
                "targets": {"speedup_min": SPEEDUP_TARGET, "rss_ratio_max": RSS_TARGET}}
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=2)
        print("wrote %s" % a.json)
    if tmpdir:
        tmpdir.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
