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
#include "gnnrt/Kernels.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "gnnc-spmm-bench: error: %s\n", message.c_str());
  std::exit(1);
}

/// The (src, dst) int32 pairs of DIR/edges.bin.
std::vector<int32_t> readEdges(const std::string &dir) {
  const std::string path = dir + "/edges.bin";
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    fail("cannot open '" + path + "': " + std::strerror(errno));
  std::vector<int32_t> pairs;
  int32_t buffer[4096];
  size_t got;
  while ((got = std::fread(buffer, sizeof(int32_t), 4096, f)) > 0)
    pairs.insert(pairs.end(), buffer, buffer + got);
  std::fclose(f);
  if (pairs.empty() || pairs.size() % 2 != 0)
    fail("'" + path + "' is not a non-empty list of int32 pairs");
  return pairs;
}

/// FNV-1a over the output bits.
uint64_t hashBits(const std::vector<float> &y) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (float v : y) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    h = (h ^ bits) * 0x100000001B3ull;
  }
  return h;
}

/// The graph of an edge list as gcn_conv sees it: A + I with its symmetric
/// normalisation weights. Owns the arrays the views point into.
struct GcnGraph {
  std::vector<int32_t> indptr, src, edgeId, loopStorage;
  gnnrt_graph raw{}, looped{};
  std::vector<float> weights;

  explicit GcnGraph(const std::vector<int32_t> &pairs) {
    const int64_t e = static_cast<int64_t>(pairs.size() / 2);
    int32_t n = 0;
    for (int32_t v : pairs) {
      if (v < 0)
        fail("negative node id in edges.bin");
      n = std::max(n, v + 1);
    }
    // CSR by destination; edge k keeps id k.
    indptr.assign(static_cast<size_t>(n) + 1, 0);
    for (int64_t k = 0; k < e; ++k)
      ++indptr[static_cast<size_t>(pairs[2 * k + 1]) + 1];
    for (int32_t i = 0; i < n; ++i)
      indptr[i + 1] += indptr[i];
    src.resize(static_cast<size_t>(e));
    edgeId.resize(static_cast<size_t>(e));
    std::vector<int32_t> next(indptr.begin(), indptr.end() - 1);
    for (int64_t k = 0; k < e; ++k) {
      const int32_t slot = next[pairs[2 * k + 1]]++;
      src[slot] = pairs[2 * k];
      edgeId[slot] = static_cast<int32_t>(k);
    }
    raw.num_nodes = n;
    raw.num_edges = e;
    raw.in = {indptr.data(), src.data(), edgeId.data()};
    loopStorage.resize(
        static_cast<size_t>(gnnrt_cpu_add_self_loops_storage(n, e)));
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
  auto call = [&] {
    if (gnnrt_cpu_spmm(&g.looped, GNNRT_AGGR_SUM, x.data(), width,
                       g.weights.data(), 1, y.data()) != GNNRT_OK)
      fail("gnnrt_cpu_spmm failed");
  };
  call();
  const uint64_t hash = hashBits(y);

  using Clock = std::chrono::steady_clock;
  std::vector<double> ms;
  const Clock::time_point start = Clock::now();
  while (ms.size() < 5 ||
         (Clock::now() - start < std::chrono::seconds(1) && ms.size() < 2000)) {
    const Clock::time_point t0 = Clock::now();
    call();
    ms.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("spmm sum, weighted  %7lld nodes %9lld edges  width %3lld  "
              "threads %d  median %8.3f ms  min %8.3f ms  (%zu calls)  hash "
              "%016llx\n",
              static_cast<long long>(n),
              static_cast<long long>(g.looped.num_edges),
              static_cast<long long>(width), threads, ms[ms.size() / 2],
              ms.front(), ms.size(), static_cast<unsigned long long>(hash));
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

  const GcnGraph graph(readEdges(dir));
  for (int threads : {1, 2})
    for (int64_t width : {64, 16, 4})
      run(graph, width, threads);
  gnnrt_cpu_set_num_threads(0);
  return 0;
}
