//===- dropout_bench.cpp - Time gnnrt_cpu_dropout on GCN-sized inputs ----===//
//
// GCN training on Cora applies dropout every step to the 2708 x 1433 input
// features (about 1.3% non-zero) and to a dense hidden layer; this times
// the kernel on both shapes with one and with two threads and prints the
// median milliseconds per call. It first times the CSR kernel on a
// Facebook-shaped feature matrix (input features are stored CSR by
// default), whose cost per stored value the planner's cost model prices. It
// also prints a hash of the output bits, so two builds of the kernel can be
// checked for identical results on the same inputs. Not a test: run it by hand
// (`ninja -C <build> gnnc-dropout-bench && <build>/bin/gnnc-dropout-bench`).
//
//===----------------------------------------------------------------------===//
#include "BenchUtil.h"

#include "gnnrt/Kernels.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

namespace bench = gnnc::bench;

/// splitmix64: a fixed input for every run, independent of the C++
/// library's distributions.
uint64_t nextRandom(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// A value in [-1, 1) from the top 24 bits: an exact fp32.
float uniformValue(uint64_t &state) {
  return static_cast<float>(static_cast<int64_t>(nextRandom(state) >> 40) -
                            (int64_t(1) << 23)) *
         0x1p-23f;
}

/// \p n floats, each non-zero with probability \p density.
std::vector<float> makeInput(int64_t n, double density, uint64_t seed) {
  std::vector<float> x(static_cast<size_t>(n), 0.0f);
  uint64_t state = seed;
  const uint64_t cut = static_cast<uint64_t>(density * 0x1p64 - 1);
  for (float &v : x)
    if (density >= 1 || nextRandom(state) < cut)
      v = uniformValue(state);
  return x;
}

void run(const char *name, int64_t rows, int64_t cols, double density,
         int threads) {
  const int64_t n = rows * cols;
  const std::vector<float> x = makeInput(n, density, 42);
  std::vector<float> y(static_cast<size_t>(n));
  const uint64_t seed = 0x123456789ull, stream = 1;
  const double p = 0.5;
  gnnrt_cpu_set_num_threads(threads);

  // The hash is of a fixed step so that runs with any repetition count
  // compare; the timed calls then vary the step as training does.
  if (gnnrt_cpu_dropout(x.data(), n, seed, 0, stream, p, y.data()) !=
      GNNRT_OK) {
    std::fprintf(stderr, "gnnrt_cpu_dropout failed\n");
    std::exit(1);
  }
  const uint64_t hash = bench::hashBits(y);

  const bench::Timing t = bench::timeCalls([&](uint64_t step) {
    gnnrt_cpu_dropout(x.data(), n, seed, step, stream, p, y.data());
  });
  std::printf("%-28s %5lld x %-5lld threads %d  median %9.3f ms  min %9.3f ms"
              "  (%zu calls)  hash %016llx\n",
              name, static_cast<long long>(rows), static_cast<long long>(cols),
              threads, t.medianMs, t.minMs, t.calls,
              static_cast<unsigned long long>(hash));
}

/// The CSR kernel (gnn-sparse-features' layout) on \p nnzPerRow stored
/// values per row at distinct random columns: Facebook's input features
/// are 22470 x 4714 with 314583 (14 per row).
void runCsr(const char *name, int64_t rows, int64_t cols, int64_t nnzPerRow,
            int threads) {
  std::vector<int32_t> indptr(static_cast<size_t>(rows + 1), 0), indices;
  std::vector<float> values;
  uint64_t state = 7;
  for (int64_t i = 0; i < rows; ++i) {
    std::vector<int32_t> row;
    while (static_cast<int64_t>(row.size()) < nnzPerRow) {
      auto c = static_cast<int32_t>(nextRandom(state) % cols);
      if (std::find(row.begin(), row.end(), c) == row.end())
        row.push_back(c);
    }
    std::sort(row.begin(), row.end());
    for (int32_t c : row) {
      indices.push_back(c);
      values.push_back(uniformValue(state));
    }
    indptr[static_cast<size_t>(i + 1)] = static_cast<int32_t>(indices.size());
  }
  const auto nnz = static_cast<int64_t>(indices.size());
  const auto bytes =
      static_cast<size_t>(gnnrt_csr_matrix_bytes(rows, cols, nnz));
  // 64-byte aligned buffers, as the arena gives.
  std::vector<float> xBuf(bytes / 4 + 16), yBuf(bytes / 4 + 16);
  auto *x = reinterpret_cast<void *>(
      (reinterpret_cast<uintptr_t>(xBuf.data()) + 63) & ~uintptr_t(63));
  auto *y = reinterpret_cast<void *>(
      (reinterpret_cast<uintptr_t>(yBuf.data()) + 63) & ~uintptr_t(63));
  if (gnnrt_cpu_csr_matrix_build(indptr.data(), indices.data(), values.data(),
                                 rows, cols, nnz, x) != GNNRT_OK) {
    std::fprintf(stderr, "gnnrt_cpu_csr_matrix_build failed\n");
    std::exit(1);
  }
  const uint64_t seed = 0x123456789ull, stream = 1;
  gnnrt_cpu_set_num_threads(threads);
  const bench::Timing t = bench::timeCalls([&](uint64_t step) {
    gnnrt_cpu_csr_dropout(x, rows, cols, nnz, seed, step, stream, 0.5, y);
  });
  std::printf("%-28s %5lld x %-5lld threads %d  median %9.3f ms  min %9.3f ms"
              "  (%zu calls)  %lld stored, %zu bytes\n",
              name, static_cast<long long>(rows), static_cast<long long>(cols),
              threads, t.medianMs, t.minMs, t.calls,
              static_cast<long long>(nnz), bytes);
}

} // namespace

int main() {
  for (int threads : {1, 2})
    runCsr("facebook-shaped CSR", 22470, 4714, 14, threads);
  for (int threads : {1, 2}) {
    run("cora features (1.3% nz)", 2708, 1433, 0.013, threads);
    run("dense hidden", 2708, 64, 1.0, threads);
  }
  gnnrt_cpu_set_num_threads(0);
  return 0;
}
