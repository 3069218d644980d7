//===- rows_bench.cpp - Time the receptive-rows kernels on a real graph ---===//
//
// A GCN trained on a few labelled nodes needs, for its loss, only the rows
// within two hops of them (gnn-restrict-rows). This times, on a dataset's
// graph with self loops and symmetric edge weights as `gcn_conv` runs it,
// gnnrt_cpu_receptive_rows from the training nodes with two hops, and
// SpMM of width 64 over all rows (gnnrt_cpu_spmm) against the same at the
// rows of R_1 (the second layer's forward) and of R_2 leaving out the
// sources outside R_1 (a backward whose input is zero there), with one and
// two threads. It prints the median and minimum milliseconds per call, and
// checks that the restricted rows have the whole kernel's bits; then the
// dense products restricted to those rows (gnnrt_cpu_matmul_rows). Not a
// test: run it by hand,
//
//   ninja -C build gnnc-rows-bench && build/bin/gnnc-rows-bench [DATASET_DIR]
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
#include <cstring>
#include <string>
#include <vector>

namespace {

namespace bench = gnnc::bench;

[[noreturn]] void fail(const std::string &message) {
  bench::fail("gnnc-rows-bench", message);
}

constexpr int64_t kHops = 2, kWidth = 64;

void report(const char *what, int threads, const bench::Timing &t,
            const char *note = "") {
  std::printf(
      "%-34s threads %d  median %8.3f ms  min %8.3f ms  (%zu calls)%s\n", what,
      threads, t.medianMs, t.minMs, t.calls, note);
}

/// Whether the rows of level <= \p level have the same bits in \p a and \p
/// b, and \p a is +0.0 elsewhere.
bool sameRows(const std::vector<float> &a, const std::vector<float> &b,
              const int32_t *levels, int64_t n, int64_t level) {
  for (int64_t i = 0; i < n; ++i) {
    const size_t at = static_cast<size_t>(i * kWidth), bytes = kWidth * 4;
    if (levels[i] <= level) {
      if (std::memcmp(&a[at], &b[at], bytes) != 0)
        return false;
    } else {
      for (int64_t c = 0; c < kWidth; ++c) {
        uint32_t bits;
        std::memcpy(&bits, &a[at + c], 4);
        if (bits != 0)
          return false;
      }
    }
  }
  return true;
}

void run(const bench::GcnGraph &p, int threads) {
  const gnnrt_graph *g = &p.looped;
  const int64_t n = g->num_nodes;
  gnnrt_cpu_set_num_threads(threads);

  std::vector<int32_t> sets(static_cast<size_t>(2 * n + kHops + 1));
  auto receptive = [&](uint64_t) {
    if (gnnrt_cpu_receptive_rows(g, p.trainMask.data(), kHops, sets.data()) !=
        GNNRT_OK)
      fail("gnnrt_cpu_receptive_rows failed");
  };
  receptive(0);
  const int32_t *levels = sets.data() + kHops + 1;
  if (threads == 1)
    std::printf("%lld nodes, %lld edges with self loops: |R_0| = %d, "
                "|R_1| = %d, |R_2| = %d\n",
                static_cast<long long>(n), static_cast<long long>(g->num_edges),
                sets[0], sets[1], sets[2]);
  report("receptive_rows, hops 2", threads, bench::timeCalls(receptive));

  // A fixed input: exact fp32 values in [-1, 1) from a counter; for the
  // backward case, zero outside R_1 as it would be.
  std::vector<float> x(static_cast<size_t>(n * kWidth)), y(x.size()),
      yRows(x.size());
  for (size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<float>(static_cast<int64_t>((k * 2654435761u) % 2048) -
                              1024) /
           1024.0f;
  std::vector<float> xBackward = x;
  for (int64_t i = 0; i < n; ++i)
    if (levels[i] > 1)
      std::memset(&xBackward[static_cast<size_t>(i * kWidth)], 0, kWidth * 4);

  // The calls capture the input by pointer: the lambdas outlive the
  // argument references.
  auto spmm = [&](const std::vector<float> &input) {
    const float *in = input.data();
    return [&, in](uint64_t) {
      if (gnnrt_cpu_spmm(g, GNNRT_AGGR_SUM, in, kWidth, p.weights.data(), 1,
                         y.data()) != GNNRT_OK)
        fail("gnnrt_cpu_spmm failed");
    };
  };
  auto spmmRows = [&](const std::vector<float> &input, int64_t level,
                      int64_t skip) {
    const float *in = input.data();
    return [&, in, level, skip](uint64_t) {
      if (gnnrt_cpu_spmm_rows(g, GNNRT_AGGR_SUM, in, kWidth, p.weights.data(),
                              sets.data(), kHops, level, skip, 1,
                              yRows.data()) != GNNRT_OK)
        fail("gnnrt_cpu_spmm_rows failed");
    };
  };

  report("spmm, all rows", threads, bench::timeCalls(spmm(x)));
  spmmRows(x, 1, kHops + 1)(0);
  report("spmm_rows, R_1", threads, bench::timeCalls(spmmRows(x, 1, kHops + 1)),
         sameRows(yRows, y, levels, n, 1) ? "  bits equal" : "  BITS DIFFER");
  spmm(xBackward)(0);
  spmmRows(xBackward, 2, 1)(0);
  report("spmm_rows, R_2 skipping above R_1", threads,
         bench::timeCalls(spmmRows(xBackward, 2, 1)),
         sameRows(yRows, y, levels, n, 2) ? "  bits equal" : "  BITS DIFFER");
  report("spmm_rows, R_2", threads,
         bench::timeCalls(spmmRows(xBackward, 2, kHops + 1)));

  // The dense products the pass restricts in a two-layer GCN with 64
  // hidden features and 4 classes (Facebook's): the second layer's `h W`
  // and `g W^T` at R_1, its weight gradient `h^T g` summed over R_1, and a
  // 64 x 64 product at R_2 (a deeper model's).
  const std::vector<float> w(64 * 64, 0.25f);
  std::vector<float> narrow(static_cast<size_t>(n * 4), 0.5f);
  auto matmulRows = [&](const float *a, int64_t m, int64_t cols, int64_t k,
                        int transposeA, int transposeB, int64_t level,
                        float *c) {
    return [=, &sets](uint64_t) {
      if (gnnrt_cpu_matmul_rows(a, w.data(), m, cols, k, transposeA, transposeB,
                                sets.data(), kHops, level, 1, c) != GNNRT_OK)
        fail("gnnrt_cpu_matmul_rows failed");
    };
  };
  report("matmul_rows h W [64x4], R_1", threads,
         bench::timeCalls(
             matmulRows(x.data(), n, 4, kWidth, 0, 0, 1, narrow.data())));
  report("matmul_rows g W^T [4x64], R_1", threads,
         bench::timeCalls(
             matmulRows(narrow.data(), n, kWidth, 4, 0, 1, 1, yRows.data())));
  report("matmul_rows h W [64x64], R_2", threads,
         bench::timeCalls(
             matmulRows(x.data(), n, kWidth, kWidth, 0, 0, 2, yRows.data())));
  std::vector<float> gradient(64 * 4);
  auto weightGradient = [&](uint64_t) {
    if (gnnrt_cpu_matmul_rows(x.data(), narrow.data(), kWidth, 4, n, 1, 0,
                              sets.data(), kHops, 1, 1,
                              gradient.data()) != GNNRT_OK)
      fail("gnnrt_cpu_matmul_rows failed");
  };
  report("matmul_rows h^T g [64x4], R_1", threads,
         bench::timeCalls(weightGradient));
}

} // namespace

int main(int argc, char **argv) {
  const std::string dir = bench::datasetDir(argc, argv, "gnnc-rows-bench");
  const bench::GcnGraph problem(dir, "gnnc-rows-bench");
  for (int threads : {1, 2})
    run(problem, threads);
  gnnrt_cpu_set_num_threads(0);
  return 0;
}
