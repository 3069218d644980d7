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
#include "GcnGraph.h"

#include "gnnrt/Kernels.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

namespace bench = gnnc::bench;

[[noreturn]] void fail(const std::string &message) {
  bench::fail("gnnc-spmm-bench", message);
}

void run(const bench::GcnGraph &g, int64_t width, int threads) {
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
  const std::string dir = bench::datasetDir(argc, argv, "gnnc-spmm-bench");
  const bench::GcnGraph graph(dir, "gnnc-spmm-bench");
  for (int threads : {1, 2})
    for (int64_t width : {64, 16, 4})
      run(graph, width, threads);
  gnnrt_cpu_set_num_threads(0);
  return 0;
}
