#!/usr/bin/env python3
"""PyTorch Geometric on the same GPU: GCN and GAT, the shapes of gnnc's
examples (GCN 2 layers hidden 16; GAT 8 heads x 8 then 1 head), on Cora,
Facebook and a synthetic 2M-node graph (bench/gpu/programs/). Prints one
row per (model, graph): median ms per epoch (forward, backward, Adam step;
first epochs excluded as warm-up) and torch.cuda.max_memory_allocated.

Usage: pyg_peer.py --data DATA_DIR [--epochs N] [--json FILE]
"""
import argparse
import json
import os
import statistics
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch_geometric.nn import GATConv, GCNConv


def load(d):
    meta = json.load(open(os.path.join(d, "meta.json"), encoding="utf-8"))
    rd = lambda name, dt: np.fromfile(os.path.join(d, name), dtype=dt)
    edges = rd("edges.bin", "<i4").reshape(-1, 2).astype(np.int64)
    n = meta["num_nodes"]
    labels = rd("labels.bin", "<i4").astype(np.int64)
    x = np.zeros((n, meta["num_features"]), dtype=np.float32)
    if meta["has_features"]:
        indptr = rd("feat_indptr.bin", "<i4").astype(np.int64)
        indices = rd("feat_indices.bin", "<i4").astype(np.int64)
        values = rd("feat_values.bin", "<f4")
        rows = np.repeat(np.arange(n), np.diff(indptr))
        x[rows, indices] = values
        s = x.sum(1, keepdims=True)
        x = np.divide(x, s, out=np.zeros_like(x), where=s > 0)
    train = rd("train_idx.bin", "<i4").astype(np.int64)
    return x, edges.T.copy(), labels, train, int(labels.max()) + 1


def synthetic(nodes=2_000_000, avg_degree=10, features=64, classes=16):
    g = np.random.default_rng(1)
    m = nodes * avg_degree
    edges = g.integers(0, nodes, size=(2, m), dtype=np.int64)
    x = g.random((nodes, features), dtype=np.float32)
    labels = g.integers(0, classes, size=nodes, dtype=np.int64)
    train = np.arange(0, nodes, 10)
    return x, edges, labels, train, classes


class GCN(torch.nn.Module):
    def __init__(self, f, c):
        super().__init__()
        self.c1, self.c2 = GCNConv(f, 16, cached=True), GCNConv(16, c, cached=True)

    def forward(self, x, e):
        x = F.dropout(x, 0.5, self.training)
        x = F.relu(self.c1(x, e))
        x = F.dropout(x, 0.5, self.training)
        return self.c2(x, e)


class GAT(torch.nn.Module):
    def __init__(self, f, c):
        super().__init__()
        self.c1 = GATConv(f, 8, heads=8, dropout=0.6)
        self.c2 = GATConv(64, c, heads=1, concat=False, dropout=0.6)

    def forward(self, x, e):
        x = F.dropout(x, 0.6, self.training)
        x = F.elu(self.c1(x, e))
        x = F.dropout(x, 0.6, self.training)
        return self.c2(x, e)


def measure(model_cls, graph, epochs):
    dev = torch.device("cuda")
    x, e, y, train, c = graph
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    x, e = torch.from_numpy(x).to(dev), torch.from_numpy(e).to(dev)
    y, train = torch.from_numpy(y).to(dev), torch.from_numpy(train).to(dev)
    model = model_cls(x.shape[1], c).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    times = []
    for _ in range(epochs):
        torch.cuda.synchronize()
        t = time.perf_counter()
        model.train()
        opt.zero_grad()
        loss = F.cross_entropy(model(x, e)[train], y[train])
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    return statistics.median(times[3:]) * 1e3, torch.cuda.max_memory_allocated()


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--data", required=True)
    a.add_argument("--epochs", type=int, default=23)
    a.add_argument("--json")
    args = a.parse_args()
    graphs = {"cora": lambda: load(os.path.join(args.data, "cora")),
              "facebook": lambda: load(os.path.join(args.data, "facebook")),
              "synthetic2m": synthetic}
    rows = []
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("| model | graph | ms/epoch | peak MiB |\n|---|---|---|---|")
    for gname, make in graphs.items():
        graph = make()
        for mname, cls in (("gcn", GCN), ("gat", GAT)):
            ms, peak = measure(cls, graph, args.epochs)
            rows.append({"model": mname, "graph": gname, "ms": ms, "peak": peak})
            print(f"| {mname} | {gname} | {ms:.2f} | {peak / 2**20:.1f} |", flush=True)
    if args.json:
        json.dump({"device": torch.cuda.get_device_name(), "rows": rows},
                  open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
