//===- host_link.cu - The host link's rates, for the CUDA cost profile ----===//
//
// What an offloading plan's copies can reach: cudaMemcpyAsync between the
// device and pinned host memory (cudaHostAlloc, as the session's host
// tier), device to host and host to device alone, and both at once on two
// streams (an offload and a prefetch overlapping), each over 256 MiB, the
// median of 11 after a warm-up. Also pageable memory, which the runtime
// does not use, for scale.
//
// Standalone (CMake builds it as gnnc-host-link): nvcc -O3 -arch=sm_90
// host_link.cu
//
//===----------------------------------------------------------------------===//
#include "CudaCheck.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

/// Median seconds of \p body (which enqueues on the streams it names and
/// is waited for with cudaDeviceSynchronize).
template <typename F> double median(F body) {
  body();
  CHECK(cudaDeviceSynchronize());
  std::vector<double> seconds;
  for (int r = 0; r < 11; ++r) {
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    CHECK(cudaEventRecord(a));
    body();
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    seconds.push_back(ms / 1e3);
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

} // namespace

int main() {
  const size_t bytes = size_t(256) << 20;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  void *dev1, *dev2, *pinned1, *pinned2;
  CHECK(cudaMalloc(&dev1, bytes));
  CHECK(cudaMalloc(&dev2, bytes));
  CHECK(cudaHostAlloc(&pinned1, bytes, cudaHostAllocDefault));
  CHECK(cudaHostAlloc(&pinned2, bytes, cudaHostAllocDefault));
  std::vector<char> pageable(bytes, 1);
  CHECK(cudaMemset(dev1, 1, bytes));
  CHECK(cudaMemset(dev2, 1, bytes));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

  auto rate = [&](double seconds, double moved) {
    return moved / seconds / 1e9;
  };
  double d2h = median([&] {
    CHECK(cudaMemcpyAsync(pinned1, dev1, bytes, cudaMemcpyDeviceToHost, s1));
  });
  double h2d = median([&] {
    CHECK(cudaMemcpyAsync(dev2, pinned2, bytes, cudaMemcpyHostToDevice, s2));
  });
  double both = median([&] {
    CHECK(cudaMemcpyAsync(pinned1, dev1, bytes, cudaMemcpyDeviceToHost, s1));
    CHECK(cudaMemcpyAsync(dev2, pinned2, bytes, cudaMemcpyHostToDevice, s2));
  });
  double pageableD2h = median([&] {
    CHECK(cudaMemcpy(pageable.data(), dev1, bytes, cudaMemcpyDeviceToHost));
  });
  double pageableH2d = median([&] {
    CHECK(cudaMemcpy(dev2, pageable.data(), bytes, cudaMemcpyHostToDevice));
  });
  std::printf("# host link of %s, 256 MiB per copy\n\n", prop.name);
  std::printf("| copy | ms | GB/s |\n|---|---|---|\n");
  std::printf("| device to pinned host | %.2f | %.1f |\n", d2h * 1e3,
              rate(d2h, bytes));
  std::printf("| pinned host to device | %.2f | %.1f |\n", h2d * 1e3,
              rate(h2d, bytes));
  std::printf("| both at once, two streams | %.2f | %.1f (sum) |\n", both * 1e3,
              rate(both, 2.0 * bytes));
  std::printf("| device to pageable host | %.2f | %.1f |\n", pageableD2h * 1e3,
              rate(pageableD2h, bytes));
  std::printf("| pageable host to device | %.2f | %.1f |\n", pageableH2d * 1e3,
              rate(pageableH2d, bytes));
  return 0;
}
