//===- dropout_bench.cpp - Time gnnrt_cpu_dropout on GCN-sized inputs ----===//
//
// GCN training on Cora applies dropout every step to the 2708 x 1433 input
// features (about 1.3% non-zero) and to a dense hidden layer; this times
// the kernel on both shapes with one and with two threads and prints the
// median milliseconds per call. It also prints a hash of the output bits,
// so two builds of the kernel can be checked for identical results on the
// same inputs. Not a test: run it by hand
// (`ninja -C <build> gnnc-dropout-bench && <build>/bin/gnnc-dropout-bench`).
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Kernels.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

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
  const uint64_t hash = hashBits(y);

  using Clock = std::chrono::steady_clock;
  std::vector<double> ms;
  const Clock::time_point start = Clock::now();
  for (uint64_t step = 1;
       ms.size() < 5 ||
       (Clock::now() - start < std::chrono::seconds(1) && ms.size() < 2000);
       ++step) {
    const Clock::time_point t0 = Clock::now();
    gnnrt_cpu_dropout(x.data(), n, seed, step, stream, p, y.data());
    ms.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%-28s %5lld x %-5lld threads %d  median %9.3f ms  min %9.3f ms"
              "  (%zu calls)  hash %016llx\n",
              name, static_cast<long long>(rows), static_cast<long long>(cols),
              threads, ms[ms.size() / 2], ms.front(), ms.size(),
              static_cast<unsigned long long>(hash));
}

} // namespace

int main() {
  for (int threads : {1, 2}) {
    run("cora features (1.3% nz)", 2708, 1433, 0.013, threads);
    run("dense hidden", 2708, 64, 1.0, threads);
  }
  gnnrt_cpu_set_num_threads(0);
  return 0;
}
