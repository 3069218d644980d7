//===- spmm_variants.cu - Which SpMM kernel shape reaches the bandwidth ---===//
//
// The experiment behind gnnrt_cuda_spmm's own kernel: sum aggregation over a
// uniformly random CSR graph (sources sorted within each row, so every
// kernel here adds in the CPU's order and must give its bits), several
// kernel shapes side by side, each checked bit for bit against the
// thread-per-element kernel (the CPU's order), against a device-to-device
// copy's bandwidth in the same process. Bytes counted as in
// spmm_bandwidth.cpp (x's row per edge, the CSR, y), whatever cache serves
// them.
//
//   elem      a thread per output element (the library's kernel until now)
//   vec4      d/4 lanes per row, float4 loads, 4 slots' loads in flight
//   cols-B    vec4 over B column blocks of x, one launch each: a block's
//             rows of x fit in L2 and y is read back between blocks; the
//             block's slots are found by a binary search in the sorted row
//   scan-B    cols-B for rows in any order: each block walks the whole row
//             and adds the slots whose source is in the block (the sum's
//             order is then block by block, not the CPU's)
//   long-S    vec4 (unroll 4) for the rows of at most S slots; each longer
//             row gets a block of its own, whose thread groups sum
//             consecutive chunks of its slots and then add the chunks'
//             sums in chunk order (a
//             fixed order, not the CPU's: compared within 1e-4 relative,
//             since a hub row of the skewed graph sums 10^5 slots and
//             either order is that many roundings from the exact sum).
//             The fix for vec4's tail on power-law graphs, where a hub's
//             row keeps its few threads busy long after the rest
//             (docs/Cuda.md); meaningful with `skewed`.
//
// Standalone (no gnnc libraries; CMake builds it as gnnc-spmm-variants):
//   nvcc -O3 -arch=sm_90 spmm_variants.cu
// Usage: spmm_variants [NODES [AVG_DEGREE [skewed]]]   (default 2000000 10)
// `skewed` draws the destinations with hubs (UniformGraph.h).
//
//===----------------------------------------------------------------------===//
#include "CudaCheck.h"
#include "UniformGraph.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void elemKernel(const int32_t *indptr, const int32_t *src,
                           const float *x, int64_t n, int64_t d, float *y) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n * d;
       t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = t / d, c = t % d;
    float acc = 0.0f;
    for (int32_t s = indptr[i]; s < indptr[i + 1]; ++s)
      acc += x[int64_t(src[s]) * d + c];
    y[t] = acc;
  }
}

/// The first slot of row [first, last) whose source is >= \p col (sorted).
__device__ int32_t lowerBound(const int32_t *src, int32_t first, int32_t last,
                              int32_t col) {
  while (first < last) {
    int32_t mid = first + (last - first) / 2;
    if (src[mid] < col)
      first = mid + 1;
    else
      last = mid;
  }
  return first;
}

/// acc += v, lane by lane.
__device__ inline void add4(float4 &acc, float4 v) {
  acc.x += v.x;
  acc.y += v.y;
  acc.z += v.z;
  acc.w += v.w;
}

/// Lanes per row L = d / 4; each lane owns a float4 of the row. Slots
/// [colLo, colHi) of x only; \p accumulate starts from y (later blocks).
/// Rows of more than \p longSlots slots are left to longRowKernel.
/// Each lane adds its slots in CSR order: the same bits as elemKernel.
template <int Unroll>
__global__ void vec4Kernel(const int32_t *indptr, const int32_t *src,
                           const float4 *x, int64_t n, int64_t d4,
                           int32_t colLo, int32_t colHi, bool blocked,
                           bool accumulate, int32_t longSlots, float4 *y) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n * d4;
       t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = t / d4, c = t % d4;
    int32_t s = indptr[i], last = indptr[i + 1];
    if (last - s > longSlots)
      continue;
    if (blocked) {
      s = colLo == 0 ? s : lowerBound(src, s, last, colLo);
      last = lowerBound(src, s, last, colHi);
    }
    float4 acc = accumulate ? y[t] : make_float4(0, 0, 0, 0);
    for (; s + Unroll <= last; s += Unroll) {
      float4 v[Unroll];
#pragma unroll
      for (int u = 0; u < Unroll; ++u)
        v[u] = __ldg(&x[int64_t(src[s + u]) * d4 + c]);
#pragma unroll
      for (int u = 0; u < Unroll; ++u)
        add4(acc, v[u]);
    }
    for (; s < last; ++s) {
      float4 v = __ldg(&x[int64_t(src[s]) * d4 + c]);
      add4(acc, v);
    }
    y[t] = acc;
  }
}

/// cols-B without the sorted rows: every slot of the row is looked at, and
/// those whose source is in [colLo, colHi) are added in slot order.
__global__ void scanKernel(const int32_t *indptr, const int32_t *src,
                           const float4 *x, int64_t n, int64_t d4,
                           int32_t colLo, int32_t colHi, bool accumulate,
                           float4 *y) {
  constexpr int Unroll = 4;
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n * d4;
       t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = t / d4, c = t % d4;
    int32_t s = indptr[i];
    const int32_t last = indptr[i + 1];
    float4 acc = accumulate ? y[t] : make_float4(0, 0, 0, 0);
    for (; s < last; s += Unroll) {
      float4 v[Unroll];
      bool in[Unroll];
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
        const int32_t col = s + u < last ? src[s + u] : -1;
        in[u] = col >= colLo && col < colHi;
        if (in[u])
          v[u] = __ldg(&x[int64_t(col) * d4 + c]);
      }
#pragma unroll
      for (int u = 0; u < Unroll; ++u)
        if (in[u])
          add4(acc, v[u]);
    }
    y[t] = acc;
  }
}

/// One block per row of \p rows (the long ones), kLongThreads threads:
/// groups of d4 lanes (groups = kLongThreads / d4), group g summing the
/// g-th of `groups` consecutive chunks of the row's slots into shared
/// memory; then lane c of group 0 adds the groups' sums in group order.
/// Needs d4 <= kLongThreads.
constexpr int kLongThreads = 256;
__global__ void longRowKernel(const int32_t *indptr, const int32_t *src,
                              const float4 *x, int64_t d4,
                              const int32_t *rows, float4 *y) {
  __shared__ float4 partial[kLongThreads];
  const int groups = kLongThreads / int(d4);
  const int g = threadIdx.x / int(d4), c = threadIdx.x % int(d4);
  const int32_t i = rows[blockIdx.x];
  const int32_t first = indptr[i], last = indptr[i + 1];
  const int32_t chunk = (last - first + groups - 1) / groups;
  float4 acc = make_float4(0, 0, 0, 0);
  if (g < groups) {
    const int32_t lo = first + g * chunk;
    const int32_t hi = min(last, lo + chunk);
    for (int32_t s = lo; s < hi; ++s) {
      float4 v = __ldg(&x[int64_t(src[s]) * d4 + c]);
      add4(acc, v);
    }
  }
  partial[threadIdx.x] = acc;
  __syncthreads();
  if (g == 0) {
    float4 sum = partial[c];
    for (int k = 1; k < groups; ++k) {
      const float4 p = partial[k * int(d4) + c];
      add4(sum, p);
    }
    y[int64_t(i) * d4 + c] = sum;
  }
}

unsigned grid(int64_t threads) {
  int64_t b = (threads + 255) / 256;
  return unsigned(std::min<int64_t>(b, 65535 * 16));
}

template <typename F> double medianMs(F body) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  body(); // warm-up
  body();
  std::vector<float> ms;
  for (int r = 0; r < 21; ++r) {
    CHECK(cudaEventRecord(a));
    body();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float t;
    CHECK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

int main(int argc, char **argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 2000000;
  const int64_t degree = argc > 2 ? std::atoll(argv[2]) : 10;
  const bool skewed = argc > 3 && std::strcmp(argv[3], "skewed") == 0;
  const int64_t e = n * degree;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));

  const int64_t copyBytes = int64_t(1) << 30;
  void *ca, *cb;
  CHECK(cudaMalloc(&ca, copyBytes));
  CHECK(cudaMalloc(&cb, copyBytes));
  CHECK(cudaMemset(ca, 1, copyBytes));
  double copyMs = medianMs(
      [&] { CHECK(cudaMemcpy(cb, ca, copyBytes, cudaMemcpyDeviceToDevice)); });
  double bandwidth = 2.0 * copyBytes / (copyMs / 1e3);
  CHECK(cudaFree(ca));
  CHECK(cudaFree(cb));

  const gnnc::bench::UniformGraph graph =
      gnnc::bench::uniformGraph(n, degree, skewed);
  int32_t longest = 0;
  for (int64_t i = 0; i < n; ++i)
    longest = std::max(longest, graph.indptr[i + 1] - graph.indptr[i]);
  int32_t *dIndptr, *dSrc;
  CHECK(cudaMalloc(&dIndptr, 4 * (n + 1)));
  CHECK(cudaMalloc(&dSrc, 4 * e));
  CHECK(cudaMemcpy(dIndptr, graph.indptr.data(), 4 * (n + 1),
                   cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dSrc, graph.src.data(), 4 * e, cudaMemcpyHostToDevice));

  std::printf("# SpMM kernel shapes on %s (%d SMs, %d MiB L2): %lld nodes, "
              "%lld edges, %s destinations (longest row %d slots)\n"
              "device-to-device copy: %.0f GB/s (read + written)\n\n",
              prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20,
              (long long)n, (long long)e, skewed ? "skewed" : "uniform",
              longest, bandwidth / 1e9);
  std::printf("| width | kernel | ms | GB/s | of the copy's | same bits |\n"
              "|---|---|---|---|---|---|\n");
  // The long rows of each threshold, on the device.
  auto longRows = [&](int32_t slots) {
    std::vector<int32_t> rows;
    for (int64_t i = 0; i < n; ++i)
      if (graph.indptr[i + 1] - graph.indptr[i] > slots)
        rows.push_back(int32_t(i));
    return rows;
  };
  for (int64_t d : {16, 32, 64, 128}) {
    std::vector<float> xs(n * d);
    for (int64_t i = 0; i < n * d; ++i)
      xs[i] = float(int64_t(i * 2654435761u) % 1000) * 0.001f;
    float *x, *y, *ref;
    CHECK(cudaMalloc(&x, 4 * n * d));
    CHECK(cudaMalloc(&y, 4 * n * d));
    CHECK(cudaMalloc(&ref, 4 * n * d));
    CHECK(cudaMemcpy(x, xs.data(), 4 * n * d, cudaMemcpyHostToDevice));
    const double bytes = 4.0 * (n + 1) + 4.0 * e + 4.0 * e * d + 4.0 * n * d;
    std::vector<float> want(n * d), got(n * d);
    // \p tolerance > 0: another order of the sums, compared within it
    // (relative to the sum's magnitude) instead of bit for bit.
    auto report = [&](const char *name, double ms, bool check,
                      double tolerance = 0) {
      bool same = true;
      if (check) {
        CHECK(cudaMemcpy(got.data(), y, 4 * n * d, cudaMemcpyDeviceToHost));
        if (tolerance == 0) {
          same = std::memcmp(got.data(), want.data(), 4 * n * d) == 0;
        } else {
          for (int64_t k = 0; k < n * d && same; ++k)
            same = std::fabs(got[k] - want[k]) <=
                   tolerance * std::max(1.0f, std::fabs(want[k]));
        }
      }
      std::printf("| %lld | %s | %.3f | %.0f | %.0f%% | %s |\n", (long long)d,
                  name, ms, bytes / ms / 1e6,
                  100.0 * bytes / (ms / 1e3) / bandwidth,
                  !check            ? "reference"
                  : tolerance == 0  ? (same ? "yes" : "NO")
                  : same            ? "within 1e-4"
                                    : "NO (beyond 1e-4)");
      std::fflush(stdout);
    };
    double ms = medianMs(
        [&] { elemKernel<<<grid(n * d), 256>>>(dIndptr, dSrc, x, n, d, ref); });
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(want.data(), ref, 4 * n * d, cudaMemcpyDeviceToHost));
    report("elem", ms, false);
    const int64_t d4 = d / 4;
    auto vec = [&](auto unroll, int blocks) {
      constexpr int U = decltype(unroll)::value;
      return medianMs([&] {
        for (int b = 0; b < blocks; ++b) {
          int32_t lo = int32_t(n * b / blocks),
                  hi = int32_t(n * (b + 1) / blocks);
          vec4Kernel<U><<<grid(n * d4), 256>>>(
              dIndptr, dSrc, reinterpret_cast<const float4 *>(x), n, d4, lo, hi,
              blocks > 1, b > 0, INT32_MAX, reinterpret_cast<float4 *>(y));
        }
      });
    };
    report("vec4 unroll 1", vec(std::integral_constant<int, 1>(), 1), true);
    report("vec4 unroll 4", vec(std::integral_constant<int, 4>(), 1), true);
    report("vec4 unroll 8", vec(std::integral_constant<int, 8>(), 1), true);
    for (int32_t slots : {32, 128, 512}) {
      if (d4 > kLongThreads || slots >= longest)
        continue;
      std::vector<int32_t> rows = longRows(slots);
      int32_t *dRows;
      CHECK(cudaMalloc(&dRows, 4 * rows.size()));
      CHECK(cudaMemcpy(dRows, rows.data(), 4 * rows.size(),
                       cudaMemcpyHostToDevice));
      char name[64];
      std::snprintf(name, sizeof(name), "long-%d (%zu rows)", slots,
                    rows.size());
      report(name, medianMs([&] {
               vec4Kernel<4><<<grid(n * d4), 256>>>(
                   dIndptr, dSrc, reinterpret_cast<const float4 *>(x), n, d4,
                   0, 0, false, false, slots, reinterpret_cast<float4 *>(y));
               longRowKernel<<<unsigned(rows.size()), kLongThreads>>>(
                   dIndptr, dSrc, reinterpret_cast<const float4 *>(x), d4,
                   dRows, reinterpret_cast<float4 *>(y));
             }),
             true, 1e-4);
      CHECK(cudaGetLastError());
      CHECK(cudaFree(dRows));
    }
    for (int blocks : {2, 3, 4, 6, 8}) {
      if (4.0 * n * d / blocks > 4.0 * prop.l2CacheSize)
        continue;
      char name[64];
      std::snprintf(name, sizeof(name), "cols-%d unroll 4", blocks);
      report(name, vec(std::integral_constant<int, 4>(), blocks), true);
      std::snprintf(name, sizeof(name), "scan-%d", blocks);
      report(name, medianMs([&] {
               for (int b = 0; b < blocks; ++b)
                 scanKernel<<<grid(n * d4), 256>>>(
                     dIndptr, dSrc, reinterpret_cast<const float4 *>(x), n, d4,
                     int32_t(n * b / blocks), int32_t(n * (b + 1) / blocks),
                     b > 0, reinterpret_cast<float4 *>(y));
             }),
             true);
    }
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(ref));
  }
  return 0;
}
