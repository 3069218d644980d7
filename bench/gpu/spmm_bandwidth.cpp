//===- spmm_bandwidth.cpp - gnnrt_cuda_spmm against the GPU's bandwidth ---===//
//
// Issue 6's SpMM target: the aggregation at >= 60% of the HBM bandwidth
// measured on the same GPU in the same run. The bandwidth is that of a
// device-to-device cudaMemcpy of 1 GiB (bytes read plus bytes written, as
// the copy moves both). The SpMM's bytes are what it must move at least
// once from memory: the CSR (row pointers and sources), the edge values
// cuSPARSE reads (gathered into scratch by gnnrt_cuda_spmm: written, then
// read), each edge's source row of x, and y. Rows of x read twice from L2
// count twice, so on a graph whose x fits in L2 the rate can pass the
// copy's; the graphs here are made so that it does not (2M nodes, x of
// 128 MiB and more, against 50 MiB of L2).
//
// Usage: gnnc-spmm-bandwidth [NODES [AVG_DEGREE]]   (default 2000000 10)
//
//===----------------------------------------------------------------------===//
#include "../cpu/BenchUtil.h"
#include "UniformGraph.h"

#include "gnnrt/Cuda.h"
#include "gnnrt/Kernels.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

gnnrt_cuda *ctx;

void check(int status, const char *what) {
  if (status != GNNRT_OK) {
    std::fprintf(stderr, "spmm_bandwidth: %s: %s\n", what,
                 gnnrt_cuda_last_error());
    std::exit(1);
  }
}

void *upload(const void *host, int64_t bytes) {
  void *p = nullptr;
  check(gnnrt_cuda_malloc(ctx, bytes, &p), "cudaMalloc");
  check(gnnrt_cuda_copy(ctx, p, host, bytes), "upload");
  return p;
}

/// Median seconds of \p body, each call waited for (BenchUtil's loop: about
/// a second of calls, at least 5).
template <typename F> double median(F body) {
  return gnnc::bench::timeCalls([&](uint64_t) {
           body();
           check(gnnrt_cuda_synchronize(ctx), "synchronize");
         }).medianMs /
         1e3;
}

} // namespace

int main(int argc, char **argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 2000000;
  const int64_t degree = argc > 2 ? std::atoll(argv[2]) : 10;
  char error[512];
  ctx = gnnrt_cuda_open(-1, error, sizeof(error));
  if (!ctx) {
    std::fprintf(stderr, "spmm_bandwidth: %s\n", error);
    return 1;
  }
  gnnrt_cuda_set_current(ctx);
  gnnrt_cuda_device_info info;
  check(gnnrt_cuda_info(ctx, &info), "info");

  // Bandwidth: 1 GiB copied device to device.
  const int64_t copyBytes = int64_t(1) << 30;
  void *a = nullptr, *b = nullptr;
  check(gnnrt_cuda_malloc(ctx, copyBytes, &a), "cudaMalloc");
  check(gnnrt_cuda_malloc(ctx, copyBytes, &b), "cudaMalloc");
  check(gnnrt_cuda_memset(ctx, a, 1, copyBytes), "memset");
  double copySeconds =
      median([&] { check(gnnrt_cuda_copy(ctx, b, a, copyBytes), "copy"); });
  const double bandwidth = 2.0 * copyBytes / copySeconds;
  check(gnnrt_cuda_free(ctx, a), "free");
  check(gnnrt_cuda_free(ctx, b), "free");

  const gnnc::bench::UniformGraph graph = gnnc::bench::uniformGraph(n, degree);
  const int64_t e = n * degree;
  std::vector<int32_t> ids(e);
  for (int64_t i = 0; i < e; ++i)
    ids[i] = static_cast<int32_t>(i);
  gnnrt_graph g{};
  g.num_nodes = n;
  g.num_edges = e;
  g.in.indptr =
      static_cast<int32_t *>(upload(graph.indptr.data(), 4 * (n + 1)));
  g.in.src = static_cast<int32_t *>(upload(graph.src.data(), 4 * e));
  g.in.edge_id = static_cast<int32_t *>(upload(ids.data(), 4 * e));
  std::vector<float> w(e, 0.5f);
  const float *weights = static_cast<const float *>(upload(w.data(), 4 * e));

  std::printf("# gnnrt_cuda_spmm on %s: %lld nodes, %lld edges\n", info.name,
              static_cast<long long>(n), static_cast<long long>(e));
  std::printf("device-to-device copy: %.0f GB/s (read + written)\n\n",
              bandwidth / 1e9);
  std::printf("| width | aggregation | path | ms | GB/s | of the copy's |\n"
              "|---|---|---|---|---|---|\n");
  for (int64_t d : {16, 32, 64, 128}) {
    std::vector<float> xs(n * d);
    for (int64_t i = 0; i < n * d; ++i)
      xs[i] = static_cast<float>(i % 97) * 0.01f;
    float *x = static_cast<float *>(upload(xs.data(), 4 * n * d));
    float *y = nullptr;
    check(gnnrt_cuda_malloc(ctx, 4 * n * d, reinterpret_cast<void **>(&y)),
          "cudaMalloc");
    // The library's own kernel (float4 rows at these widths) and, asked
    // for, cusparseSpMM, in one process.
    for (int path : {GNNRT_CUDA_SPMM_CUSPARSE, GNNRT_CUDA_SPMM_OWN}) {
      check(gnnrt_cuda_set_spmm_path(ctx, path), "set_spmm_path");
      const bool own = path == GNNRT_CUDA_SPMM_OWN;
      for (bool weighted : {false, true}) {
        double t = median([&] {
          check(gnnrt_cuda_spmm(&g, GNNRT_AGGR_SUM, x, d,
                                weighted ? weights : nullptr, 1, y),
                "gnnrt_cuda_spmm");
        });
        // CSR rows and sources, x's rows by edge, y; cuSPARSE's values,
        // written and read, or the own kernel's edge ids and weights.
        double bytes = 4.0 * (n + 1) + 4.0 * e + 4.0 * e * d + 4.0 * n * d +
                       (own ? (weighted ? 8.0 * e : 0.0)
                            : 8.0 * e + (weighted ? 8.0 * e : 0.0));
        std::printf("| %lld | sum%s | %s | %.3f | %.0f | %.0f%% |\n",
                    static_cast<long long>(d), weighted ? ", edge weights" : "",
                    own ? "own kernel" : "cuSPARSE", t * 1e3, bytes / t / 1e9,
                    100.0 * bytes / t / bandwidth);
      }
    }
    check(gnnrt_cuda_free(ctx, x), "free");
    check(gnnrt_cuda_free(ctx, y), "free");
  }
  gnnrt_cuda_close(ctx);
  return 0;
}
