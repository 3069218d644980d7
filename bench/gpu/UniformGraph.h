//===- UniformGraph.h - The SpMM benchmarks' random graph -------*- C++ -*-===//
//
// The graph of spmm_bandwidth.cpp and spmm_variants.cu, on the host: n
// nodes, n * degree edges with uniformly random ends (seed 1), as a CSR by
// destination with each row's sources sorted (as a loader that sorts its
// edge list gives). No locality and no hubs: every gather is a random row.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_BENCH_GPU_UNIFORMGRAPH_H
#define GNNC_BENCH_GPU_UNIFORMGRAPH_H

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace gnnc::bench {

struct UniformGraph {
  std::vector<int32_t> indptr; // n + 1 row offsets
  std::vector<int32_t> src;    // the sources, row by row
};

/// With \p skewed, the destinations are not uniform: node floor(n u^3)
/// for u uniform in [0, 1), so the low-numbered nodes are hubs whose rows
/// hold thousands of slots (node 0 about n^(2/3) times the mean, on 2M
/// nodes), as a power-law graph's do; the sources stay uniform.
inline UniformGraph uniformGraph(int64_t n, int64_t degree,
                                 bool skewed = false) {
  const int64_t e = n * degree;
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<int64_t> node(0, n - 1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  UniformGraph g;
  std::vector<int32_t> dst(e);
  g.src.resize(e);
  g.indptr.assign(n + 1, 0);
  for (int64_t i = 0; i < e; ++i) {
    if (skewed) {
      const double u = unit(rng);
      dst[i] = static_cast<int32_t>(
          std::min<int64_t>(n - 1, static_cast<int64_t>(n * u * u * u)));
    } else {
      dst[i] = static_cast<int32_t>(node(rng));
    }
    ++g.indptr[dst[i] + 1];
  }
  for (int64_t v = 0; v < n; ++v)
    g.indptr[v + 1] += g.indptr[v];
  std::vector<int32_t> fill(g.indptr.begin(), g.indptr.end() - 1);
  for (int64_t i = 0; i < e; ++i)
    g.src[fill[dst[i]]++] = static_cast<int32_t>(node(rng));
  for (int64_t v = 0; v < n; ++v)
    std::sort(g.src.begin() + g.indptr[v], g.src.begin() + g.indptr[v + 1]);
  return g;
}

} // namespace gnnc::bench

#endif // GNNC_BENCH_GPU_UNIFORMGRAPH_H
