//===- sign_bench.cpp - Time the sign fate's kernels against the float ones
//===//
//
// The planner's `sign` fate keeps a ReLU's or leaky ReLU's input as one bit
// an element (mem.store_sign) and computes the gradient from the bits
// (gnnrt_cpu_activation_grad_sign); the alternative keeps the floats and
// calls gnnrt_cpu_activation_grad. This times the three on the shapes GAT
// and GCN give them on Facebook: GAT's [E, 4] and [E, 1] attention scores
// (E = 364,000, about Facebook's edges with self loops; leaky ReLU) and a
// GCN hidden layer's [N, 64] (N = 22,470; ReLU), with one and two threads,
// median milliseconds per call. Both gradients print a hash of their output
// bits: they must be equal. Not a test: run it by hand
// (`ninja -C <build> gnnc-sign-bench && <build>/bin/gnnc-sign-bench`).
//
//===----------------------------------------------------------------------===//
#include "BenchUtil.h"

#include "gnnrt/Convert.h"
#include "gnnrt/Kernels.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

namespace bench = gnnc::bench;

/// Values in [-1, 1) (exact floats), half of them negative.
std::vector<float> makeValues(int64_t n, uint64_t state) {
  std::vector<float> x(static_cast<size_t>(n));
  for (float &v : x) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<float>(static_cast<int64_t>(state >> 40) -
                           (int64_t(1) << 23)) *
        0x1p-23f;
  }
  return x;
}

void check(int status, const char *what) {
  if (status != GNNRT_OK) {
    std::fprintf(stderr, "%s failed: %d\n", what, status);
    std::exit(1);
  }
}

void run(const char *name, int64_t rows, int64_t cols, int kind, int threads) {
  const int64_t n = rows * cols;
  const std::vector<float> x = makeValues(n, 1), dy = makeValues(n, 2);
  std::vector<float> dx(static_cast<size_t>(n));
  std::vector<uint8_t> bits(static_cast<size_t>(rows * ((cols + 7) / 8)));
  const double slope = 0.2;
  gnnrt_cpu_set_num_threads(threads);

  check(
      gnnrt_cpu_activation_grad(kind, x.data(), dy.data(), n, slope, dx.data()),
      "gnnrt_cpu_activation_grad");
  const uint64_t floatHash = bench::hashBits(dx);
  check(gnnrt_cpu_store_sign(x.data(), rows, cols, bits.data()),
        "gnnrt_cpu_store_sign");
  check(gnnrt_cpu_activation_grad_sign(kind, bits.data(), dy.data(), rows, cols,
                                       slope, nullptr, 0, 0, 0, dx.data()),
        "gnnrt_cpu_activation_grad_sign");
  const uint64_t signHash = bench::hashBits(dx);

  const bench::Timing store = bench::timeCalls([&](uint64_t) {
    gnnrt_cpu_store_sign(x.data(), rows, cols, bits.data());
  });
  const bench::Timing fromSigns = bench::timeCalls([&](uint64_t) {
    gnnrt_cpu_activation_grad_sign(kind, bits.data(), dy.data(), rows, cols,
                                   slope, nullptr, 0, 0, 0, dx.data());
  });
  const bench::Timing fromFloats = bench::timeCalls([&](uint64_t) {
    gnnrt_cpu_activation_grad(kind, x.data(), dy.data(), n, slope, dx.data());
  });
  std::printf("%-16s %7lld x %-3lld threads %d  store_sign %7.3f ms  "
              "grad from signs %7.3f ms  grad from floats %7.3f ms  "
              "hashes %016llx %016llx%s\n",
              name, static_cast<long long>(rows), static_cast<long long>(cols),
              threads, store.medianMs, fromSigns.medianMs, fromFloats.medianMs,
              static_cast<unsigned long long>(signHash),
              static_cast<unsigned long long>(floatHash),
              signHash == floatHash ? "" : "  DIFFER");
}

} // namespace

int main() {
  for (int threads : {1, 2}) {
    run("GAT scores", 364000, 4, GNNRT_ACT_LEAKY_RELU, threads);
    run("GAT scores", 364000, 1, GNNRT_ACT_LEAKY_RELU, threads);
    run("GCN hidden", 22470, 64, GNNRT_ACT_RELU, threads);
  }
  gnnrt_cpu_set_num_threads(0);
  return 0;
}
