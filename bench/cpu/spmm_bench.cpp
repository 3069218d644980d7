//===- spmm_bench.cpp - Time gnnrt_cpu_spmm on a real graph ---------------===//
//
// GCN's aggregation `A_hat x` is most of a Facebook epoch (docs/Benchmarks.md
// has the profile), and whole-run timings on a shared machine vary by 20%:
// too much to tell one SpMM loop from another. This times the kernel alone
// on a dataset's graph with self loops and symmetric edge weights, as
// `gcn_conv` runs it, at the widths of a GCN (64 hidden units, a handful of
// classes) with one and two threads, and prints the median and minimum
// milliseconds per call and a hash of the output bits, so two builds of the
// kernel can be checked for identical results. Not a test: run it by hand,
//
//   ninja -C build gnnc-spmm-bench && build/bin/gnnc-spmm-bench [DATASET_DIR]
//
// DATASET_DIR defaults to $GNNC_DATA_PATH/facebook, else
// ../shared/data/facebook (the format is ../shared/data/README.md's).
//
//===----------------------------------------------------------------------===//
#include "BenchUtil.h"

#include "gnnrt/Dataset.h"
#include "gnnrt/Graph.h"
#include "gnnrt/Kernels.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

namespace bench = gnnc::bench;

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "gnnc-spmm-bench: error: %s\n", message.c_str());
  std::exit(1);
}

/// A dataset's graph as gcn_conv sees it: A + I with its symmetric
/// normalisation weights, from the runtime's own loader (which checks every
/// file) and CSR builder. Owns the arrays the views point into.
struct GcnGraph {
  gnnrt::CompressedEdges in;
  std::vector<int32_t> loopStorage;
  gnnrt_graph looped{};
  std::vector<float> weights;

  explicit GcnGraph(const std::string &dir) {
    gnnrt::Dataset data;
    gnnrt::DatasetError error;
    gnnrt::LoadOptions options;
    options.missingFeatures = gnnrt::MissingFeatures::Omit;
    if (!gnnrt::loadDataset(dir, options, data, error))
      fail(error.str());
    std::string message;
    if (!gnnrt::buildInCsr(data.graph, in, message))
      fail(message);
    gnnrt_graph raw{};
    raw.num_nodes = data.numNodes();
    raw.num_edges = data.numEdges();
    raw.in = {in.indptr.data(), in.indices.data(), in.edgeIds.data()};
    loopStorage.resize(static_cast<size_t>(
        gnnrt_cpu_add_self_loops_storage(raw.num_nodes, raw.num_edges)));
    if (gnnrt_cpu_add_self_loops(&raw, loopStorage.data(), &looped) != GNNRT_OK)
      fail("gnnrt_cpu_add_self_loops failed");
    weights.resize(static_cast<size_t>(looped.num_edges));
    if (gnnrt_cpu_edge_norm(&looped, GNNRT_NORM_SYMMETRIC, weights.data()) !=
        GNNRT_OK)
      fail("gnnrt_cpu_edge_norm failed");
  }
};

void run(const GcnGraph &g, int64_t width, int threads) {
  const int64_t n = g.looped.num_nodes;
  std::vector<float> x(static_cast<size_t>(n * width)), y(x.size());
  // A fixed input: exact fp32 values in [-1, 1) from a counter.
  for (size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<float>(static_cast<int64_t>((k * 2654435761u) % 2048) -
                              1024) /
           1024.0f;
  gnnrt_cpu_set_num_threads(threads);
  auto call = [&](uint64_t) {
    if (gnnrt_cpu_spmm(&g.looped, GNNRT_AGGR_SUM, x.data(), width,
                       g.weights.data(), 1, y.data()) != GNNRT_OK)
      fail("gnnrt_cpu_spmm failed");
  };
  call(0);
  const uint64_t hash = bench::hashBits(y);
  const bench::Timing t = bench::timeCalls(call);
  std::printf("spmm sum, weighted  %7lld nodes %9lld edges  width %3lld  "
              "threads %d  median %8.3f ms  min %8.3f ms  (%zu calls)  hash "
              "%016llx\n",
              static_cast<long long>(n),
              static_cast<long long>(g.looped.num_edges),
              static_cast<long long>(width), threads, t.medianMs, t.minMs,
              t.calls, static_cast<unsigned long long>(hash));
}

} // namespace

int main(int argc, char **argv) {
  std::string dir;
  if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
    std::fprintf(stderr, "usage: gnnc-spmm-bench [DATASET_DIR]\n");
    return 2;
  }
  if (argc == 2)
    dir = argv[1];
  else if (const char *path = std::getenv("GNNC_DATA_PATH"))
    dir = std::string(path) + "/facebook";
  else
    dir = "../shared/data/facebook";

  const GcnGraph graph(dir);
  for (int threads : {1, 2})
    for (int64_t width : {64, 16, 4})
      run(graph, width, threads);
  gnnrt_cpu_set_num_threads(0);
  return 0;
}
