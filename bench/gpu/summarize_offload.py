#!/usr/bin/env python3
"""Reads offload.sh's output folder and prints bench/results-ready markdown:
per program and plan, whether the trained weights equal the keep-all
build's, the final loss (the CPU build's beside it), the time per epoch,
and the planned and measured peaks per tier from the report's `memory
plan` line. Usage: summarize_offload.py OUTDIR"""
import glob
import os
import re
import sys


def field(text, pattern):
    m = re.search(pattern, text)
    return m.group(1) if m else "?"


def main():
    d = sys.argv[1]
    device = open(os.path.join(d, "device.txt")).read().strip()
    log = open(os.path.join(d, "offload-log.txt")).read()
    print(f"# gnnc CUDA plans that offload, on {device}\n")
    print("| program | plan | weights vs keep-all | final loss (CPU) "
          "| ms/epoch | device planned / measured | host planned / measured "
          "| disk planned / measured |\n|---|---|---|---|---|---|---|---|")
    for keep in sorted(glob.glob(os.path.join(d, "*-keep.txt"))):
        b = os.path.basename(keep)[:-len("-keep.txt")]
        cpu = open(os.path.join(d, f"{b}-cpu.txt")).read()
        cpu_loss = field(cpu, r"final loss\s+(\S+)")
        for plan in ["keep", "offload", "tight", "disk"]:
            path = os.path.join(d, f"{b}-{plan}.txt")
            if not os.path.exists(path):
                continue
            text = open(path).read()
            same = ("reference" if plan == "keep" else
                    field(log, rf"{re.escape(b)} {plan} rc=\d+ weights (\S+)"))
            rc = ("0" if plan == "keep" else
                  field(log, rf"{re.escape(b)} {plan} rc=(\d+)"))
            if rc != "0":
                error = text.strip().splitlines()[-1] if text.strip() else ""
                print(f"| {b} | {plan} | FAILED rc={rc}: {error} |||||||")
                continue
            m = re.search(
                r"memory plan\s+(\S+): device (\S+ \S+) planned, (\S+ \S+) "
                r"measured; host (\S+ \S+) planned, (\S+ \S+) measured; "
                r"disk (\S+ \S+) planned, (\S+ \S+) measured", text)
            g = m.groups() if m else ["?"] * 7
            loss = field(text, r"final loss\s+(\S+)")
            ms = field(text, r"time/epoch\s+(\S+) ms")
            print(f"| {b} | {plan} ({g[0]}) | {same} "
                  f"| {loss} ({cpu_loss}) | {ms} "
                  f"| {g[1]} / {g[2]} | {g[3]} / {g[4]} | {g[5]} / {g[6]} |")
    for path in sorted(glob.glob(os.path.join(d, "memcheck-*.txt"))):
        name = os.path.basename(path)[len("memcheck-"):-len(".txt")]
        summary = field(open(path).read(), r"(ERROR SUMMARY: .*)")
        print(f"\ncompute-sanitizer memcheck ({name}, 2 epochs): {summary}")


if __name__ == "__main__":
    main()
