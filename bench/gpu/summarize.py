#!/usr/bin/env python3
"""Reads run.sh's output folder and prints bench/results-ready markdown:
per program, the CUDA and CPU final loss and time per epoch and the CUDA
device peak against its budget; then gnnc against PyG on the same GPU
(ratios from this one run). Usage: summarize.py OUTDIR"""
import glob
import json
import os
import re
import sys


def field(text, pattern):
    m = re.search(pattern, text)
    return m.group(1) if m else "?"


# The report's "(6.00 MiB of GPU memory in use, measured)".
IN_USE = r"\((\S+ \S+) of GPU memory in use"


def mebibytes(text):
    """'6.00 MiB' or '1.87 GiB' (the report's units) in MiB; None if not."""
    m = re.match(r"([0-9.]+) (B|KiB|MiB|GiB)$", text)
    if not m:
        return None
    scale = {"B": 2**-20, "KiB": 2**-10, "MiB": 1, "GiB": 2**10}[m.group(2)]
    return float(m.group(1)) * scale


def main():
    d = sys.argv[1]
    device = open(os.path.join(d, "device.txt")).read().strip().splitlines()
    print(f"# gnnc CUDA target on {device[-1] if device else '?'}\n")
    print("| program | CUDA loss | CPU loss | CUDA ms/epoch | CPU ms/epoch "
          "| CUDA arena peak / budget | GPU memory in use |\n"
          "|---|---|---|---|---|---|---|")
    ms, used = {}, {}
    for path in sorted(glob.glob(os.path.join(d, "*.cuda.txt"))):
        b = os.path.basename(path)[:-len(".cuda.txt")]
        cuda = open(path).read()
        cpu_path = os.path.join(d, b + ".cpu.txt")
        cpu = open(cpu_path).read() if os.path.exists(cpu_path) else ""
        t = field(cuda, r"time/epoch\s+([0-9.]+) ms")
        ms[b] = t
        used[b] = field(cuda, IN_USE)
        loss = r"final loss\s+([0-9.]+)"
        cells = [b, field(cuda, loss), field(cpu, loss), t,
                 field(cpu, r"time/epoch\s+([0-9.]+) ms"),
                 field(cuda, r"device arena\s+peak (.*?) budget"),
                 field(cuda, IN_USE)]
        print("| " + " | ".join(cells) + " |")
        if "error" in cuda.lower():
            print(f"\n{b} (CUDA) said:\n```\n{cuda[-2000:]}\n```\n")
    ab_table(d, "libdropout", "dropout")
    ab_table(d, "libkernels", "reductions, edge softmax, loss, Adam")
    for memcheck in sorted(glob.glob(os.path.join(d, "memcheck-*.txt"))):
        name = os.path.basename(memcheck)[len("memcheck-"):-len(".txt")]
        print(f"\ncompute-sanitizer memcheck ({name}, 2 epochs): " +
              field(open(memcheck).read(), r"(ERROR SUMMARY: .*)"))
    for tests in ("runtime-tests", "generated-tests"):
        path = os.path.join(d, tests + ".txt")
        if os.path.exists(path):
            text = open(path).read()
            failed = re.findall(r"\[  FAILED  \] (\S+)", text)
            print(f"\n{tests}: " +
                  field(text, r"(\[  PASSED  \] \d+ tests?)") +
                  (f", failed: {', '.join(sorted(set(failed)))}"
                   if failed else ""))
    pyg = os.path.join(d, "pyg.json")
    if os.path.exists(pyg):
        rows = json.load(open(pyg))["rows"]
        names = {("gcn", "cora"): "cora_gcn", ("gat", "cora"): "cora_gat",
                 ("gcn", "facebook"): "facebook_gcn",
                 ("gat", "facebook"): "facebook_gat",
                 ("gcn", "synthetic2m"): "synthetic2m_gcn",
                 ("gat", "synthetic2m"): "synthetic2m_gat"}
        print("\n| model | graph | PyG ms/epoch | gnnc ms/epoch | speed-up "
              "| PyG peak MiB | gnnc GPU MiB | memory ratio |\n"
              "|---|---|---|---|---|---|---|---|")
        for r in rows:
            name = names.get((r["model"], r["graph"]), "")
            ours = ms.get(name, "?")
            ratio = (f"{r['ms'] / float(ours):.2f}x"
                     if ours not in ("?", "") else "?")
            mib = mebibytes(used.get(name, "?"))
            peak = r["peak"] / 2**20
            mem = f"{mib / peak:.2f}x" if mib is not None else "?"
            print(f"| {r['model']} | {r['graph']} | {r['ms']:.2f} | {ours} "
                  f"| {ratio} | {peak:.1f} | "
                  f"{'?' if mib is None else f'{mib:.1f}'} | {mem} |")


def ab_table(d, suffix, what):
    """Generated kernels (the default build's run) against the library's
    (the run saved as NAME.SUFFIX.txt), one row per program."""
    ab = sorted(glob.glob(os.path.join(d, f"*.{suffix}.txt")))
    if ab:
        print(f"\n| program | generated {what} ms/epoch | library {what} "
              "ms/epoch | ratio | same final loss |\n|---|---|---|---|---|")
    for path in ab:
        b = os.path.basename(path)[:-len(f".{suffix}.txt")]
        lib = open(path).read()
        gen_path = os.path.join(d, b + ".cuda.txt")
        gen = open(gen_path).read() if os.path.exists(gen_path) else ""
        t_gen = field(gen, r"time/epoch\s+([0-9.]+) ms")
        t_lib = field(lib, r"time/epoch\s+([0-9.]+) ms")
        ratio = (f"{float(t_gen) / float(t_lib):.2f}x"
                 if "?" not in (t_gen, t_lib) else "?")
        loss = r"final loss\s+([0-9.]+)"
        print(f"| {b} | {t_gen} | {t_lib} | {ratio} | "
              f"{field(gen, loss) == field(lib, loss) != '?'} |")


if __name__ == "__main__":
    main()
