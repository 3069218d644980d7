//===- BenchUtil.h - What the micro-benchmarks share ------------*- C++ -*-===//
//
// Shared by bench/cpu and bench/gpu (whose calls wait for the device): a
// hash of output bits (so two builds of a kernel can be compared for
// identical results) and the timing loop: calls for about a second, at
// least 5 and at most 2000, reported as median and minimum.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_BENCH_CPU_BENCHUTIL_H
#define GNNC_BENCH_CPU_BENCHUTIL_H

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gnnc::bench {

/// FNV-1a over the bits of \p y.
inline uint64_t hashBits(const std::vector<float> &y) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (float v : y) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    h = (h ^ bits) * 0x100000001B3ull;
  }
  return h;
}

struct Timing {
  double medianMs = 0, minMs = 0;
  size_t calls = 0;
};

/// Times `call(k)` for k = 1, 2, ... (the call number, for kernels that vary
/// a step as training does).
template <typename Call> Timing timeCalls(Call &&call) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> ms;
  const Clock::time_point start = Clock::now();
  for (uint64_t k = 1;
       ms.size() < 5 ||
       (Clock::now() - start < std::chrono::seconds(1) && ms.size() < 2000);
       ++k) {
    const Clock::time_point t0 = Clock::now();
    call(k);
    ms.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.size()};
}

} // namespace gnnc::bench

#endif // GNNC_BENCH_CPU_BENCHUTIL_H
