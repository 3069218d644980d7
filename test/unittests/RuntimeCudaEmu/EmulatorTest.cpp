//===- EmulatorTest.cpp - The CUDA emulator's libgnnrt_cuda.so ------------===//
//
// What the lit test (test/gnnc/run-cuda-emulated.test) checks only through
// whole training runs: a launch covers every work item of a grid-stride
// kernel, refuses pointers a GPU could not read, and names what it cannot
// run; copy-stream copies happen no earlier than a GPU would have to finish
// them.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Cuda.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

/// A unit as the CUDA emitter prints one (compiler/Target/CUDA/Kernels.cpp).
const char *const kSource = R"(
// scale by 2 then add 1
extern "C" __global__ void gnnc_k0(long long n, long long cols, const float *in0, float *out0) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    (void)cols;
    const float t0 = in0[i] * 2.0f;
    const float t1 = t0 + 1.0f;
    out0[i] = t1;
  }
}
)";

class Emulator : public ::testing::Test {
protected:
  void SetUp() override {
    char error[256] = "";
    ctx = gnnrt_cuda_open(-1, error, sizeof error);
    ASSERT_NE(ctx, nullptr) << error;
    gnnrt_cuda_set_current(ctx);
  }
  void TearDown() override { gnnrt_cuda_close(ctx); }

  float *deviceFloats(int64_t n) {
    void *p = nullptr;
    EXPECT_EQ(gnnrt_cuda_malloc(ctx, n * 4, &p), GNNRT_OK);
    return static_cast<float *>(p);
  }

  gnnrt_cuda *ctx = nullptr;
};

TEST_F(Emulator, SaysItIsNoGpu) {
  gnnrt_cuda_device_info info{};
  ASSERT_EQ(gnnrt_cuda_info(ctx, &info), GNNRT_OK);
  EXPECT_STREQ(info.name, "gnnc CUDA emulator (CPU, no GPU)");
  EXPECT_EQ(info.sm, 0);
  // "In use" is what the context allocated as device memory.
  int64_t free0 = 0, total = 0, free1 = 0;
  ASSERT_EQ(gnnrt_cuda_mem_info(ctx, &free0, &total), GNNRT_OK);
  float *x = deviceFloats(1000);
  ASSERT_EQ(gnnrt_cuda_mem_info(ctx, &free1, &total), GNNRT_OK);
  EXPECT_EQ(free0 - free1, 4000);
  EXPECT_EQ(gnnrt_cuda_free(ctx, x), GNNRT_OK);
  int host = 0;
  EXPECT_EQ(gnnrt_cuda_free(ctx, &host), GNNRT_ERR_BAD_ARGUMENT);
}

TEST_F(Emulator, LaunchCoversEveryItemOfTheGrid) {
  static const gnnrt_cuda_kernels unit = {"test", kSource, nullptr, 0};
  // 1000 items: four blocks of 256, the last one partly idle.
  long long n = 1000, cols = 1;
  std::vector<float> host(n), back(n);
  for (long long i = 0; i < n; ++i)
    host[i] = static_cast<float>(i);
  float *in = deviceFloats(n), *out = deviceFloats(n);
  ASSERT_EQ(gnnrt_cuda_copy(ctx, in, host.data(), n * 4), GNNRT_OK);
  void *params[] = {&n, &cols, &in, &out};
  ASSERT_EQ(gnnrt_cuda_launch(ctx, &unit, "gnnc_k0", n, params), GNNRT_OK)
      << gnnrt_cuda_last_error();
  ASSERT_EQ(gnnrt_cuda_copy(ctx, back.data(), out, n * 4), GNNRT_OK);
  for (long long i = 0; i < n; ++i)
    ASSERT_EQ(back[i], 2.0f * i + 1.0f) << i;

  EXPECT_EQ(gnnrt_cuda_launch(ctx, &unit, "gnnc_k9", n, params),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_STREQ(gnnrt_cuda_last_error(),
               "gnnrt_cuda_launch: unit test has no kernel named 'gnnc_k9'");
  // A host buffer where a GPU needs device memory.
  float *hostIn = host.data();
  void *bad[] = {&n, &cols, &hostIn, &out};
  EXPECT_EQ(gnnrt_cuda_launch(ctx, &unit, "gnnc_k0", n, bad), GNNRT_ERR_CUDA);
  EXPECT_NE(std::string(gnnrt_cuda_last_error())
                .find("argument 2 does not point into memory from "
                      "gnnrt_cuda_malloc"),
            std::string::npos)
      << gnnrt_cuda_last_error();
}

TEST_F(Emulator, ThreadsRunLastFirst) {
  // The output one element below the input: a loop going up (the CPU
  // target's) reads every input before it is written over; threads in
  // another order, as a GPU may run them, do not. Here they run down, so
  // such an overlap shows.
  static const gnnrt_cuda_kernels unit = {"test", kSource, nullptr, 0};
  long long n = 600, cols = 1;
  std::vector<float> host(n + 1), back(n + 1);
  for (long long i = 0; i <= n; ++i)
    host[i] = static_cast<float>(i);
  float *m = deviceFloats(n + 1);
  ASSERT_EQ(gnnrt_cuda_copy(ctx, m, host.data(), (n + 1) * 4), GNNRT_OK);
  float *in = m + 1, *out = m;
  void *params[] = {&n, &cols, &in, &out};
  ASSERT_EQ(gnnrt_cuda_launch(ctx, &unit, "gnnc_k0", n, params), GNNRT_OK)
      << gnnrt_cuda_last_error();
  ASSERT_EQ(gnnrt_cuda_copy(ctx, back.data(), m, (n + 1) * 4), GNNRT_OK);
  // Going up, m[i] would be 2 * (i + 1) + 1. The last item's thread ran
  // first and read the untouched m[n]; the one before it read that result.
  const float last = 2.0f * n + 1.0f;
  EXPECT_EQ(back[n - 1], last);
  EXPECT_EQ(back[n - 2], 2.0f * last + 1.0f);
  EXPECT_NE(back[n - 2], 2.0f * (n - 1) + 1.0f);
  // Blocks too: block 1 ran before block 0's last thread read m[256].
  EXPECT_NE(back[255], 2.0f * 256 + 1.0f);
}

TEST_F(Emulator, UnitItCannotRunIsAnError) {
  static const gnnrt_cuda_kernels unit = {
      "vec", "extern \"C\" __global__ void k(long long n, float4 *x) {}",
      nullptr, 0};
  long long n = 1;
  void *params[] = {&n, &n};
  EXPECT_EQ(gnnrt_cuda_launch(ctx, &unit, "k", n, params), GNNRT_ERR_CUDA);
  EXPECT_STREQ(gnnrt_cuda_last_error(),
               "gnnrt_cuda_launch: vec (emulator): kernel k: parameter 'x' "
               "has type 'float4 *', which the emulator does not unpack "
               "(integers, float, double and pointers to them)");
  // Shared memory and barriers are not emulated: the compiler refuses them.
  static const gnnrt_cuda_kernels shared = {
      "shared",
      "extern \"C\" __global__ void k(long long n, float *x) {\n"
      "  __shared__ float s[256]; s[threadIdx.x] = x[0]; __syncthreads();\n}\n",
      nullptr, 0};
  EXPECT_EQ(gnnrt_cuda_launch(ctx, &shared, "k", n, params), GNNRT_ERR_CUDA);
  EXPECT_NE(
      std::string(gnnrt_cuda_last_error()).find("the host compiler failed"),
      std::string::npos)
      << gnnrt_cuda_last_error();
}

TEST_F(Emulator, CopyStreamRunsNoEarlierThanAGpuMust) {
  const int64_t n = 64;
  float *dev = deviceFloats(n);
  void *pinned = nullptr;
  ASSERT_EQ(gnnrt_cuda_host_alloc(ctx, n * 4, &pinned), GNNRT_OK);
  std::vector<float> ones(n, 1.0f);
  ASSERT_EQ(gnnrt_cuda_copy(ctx, dev, ones.data(), n * 4), GNNRT_OK);
  auto *host = static_cast<float *>(pinned);
  host[0] = -1.0f;

  // An offload: queued after event 0, not done until the compute stream
  // waits for event 1, recorded after it on the copy stream.
  ASSERT_EQ(gnnrt_cuda_record(ctx, GNNRT_CUDA_COMPUTE, 0), GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_wait(ctx, GNNRT_CUDA_COPY, 0), GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_copy_async(ctx, GNNRT_CUDA_COPY, host, dev, n * 4),
            GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_record(ctx, GNNRT_CUDA_COPY, 1), GNNRT_OK);
  EXPECT_EQ(host[0], -1.0f);
  // Writing over the tensor before that wait would change what is copied.
  ASSERT_EQ(gnnrt_cuda_wait(ctx, GNNRT_CUDA_COMPUTE, 1), GNNRT_OK);
  EXPECT_EQ(host[0], 1.0f);

  // A prefetch: done by a synchronisation too.
  host[0] = 5.0f;
  ASSERT_EQ(gnnrt_cuda_copy_async(ctx, GNNRT_CUDA_COPY, dev, host, n * 4),
            GNNRT_OK);
  float first = 0;
  ASSERT_EQ(gnnrt_cuda_copy(ctx, &first, dev, 4), GNNRT_OK);
  EXPECT_EQ(first, 1.0f);
  ASSERT_EQ(gnnrt_cuda_synchronize(ctx), GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_copy(ctx, &first, dev, 4), GNNRT_OK);
  EXPECT_EQ(first, 5.0f);

  // Overlapping copies are undefined on a GPU, so refused.
  EXPECT_EQ(gnnrt_cuda_copy(ctx, dev + 1, dev, 8), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cuda_copy_async(ctx, 2, dev, host, 4),
            GNNRT_ERR_BAD_ARGUMENT);
}

TEST_F(Emulator, LibraryOperationsAreTheCpuKernels) {
  // 2x2 times 2x1, as gnnrt_cpu_matmul.
  float *a = deviceFloats(4), *b = deviceFloats(2), *c = deviceFloats(2);
  const float av[] = {1, 2, 3, 4}, bv[] = {5, 6};
  ASSERT_EQ(gnnrt_cuda_copy(ctx, a, av, sizeof av), GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_copy(ctx, b, bv, sizeof bv), GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_matmul(a, b, 2, 1, 2, 0, 0, c), GNNRT_OK);
  float cv[2];
  ASSERT_EQ(gnnrt_cuda_copy(ctx, cv, c, sizeof cv), GNNRT_OK);
  EXPECT_EQ(cv[0], 17.0f);
  EXPECT_EQ(cv[1], 39.0f);
  EXPECT_EQ(gnnrt_cuda_matmul(a, b, -1, 1, 2, 0, 0, c), GNNRT_ERR_BAD_SIZE);
  EXPECT_STREQ(gnnrt_cuda_last_error(),
               "gnnrt_cuda_matmul (emulated by gnnrt_cpu_matmul): "
               "bad size");
  // Without a current context, as on a GPU, nothing runs.
  gnnrt_cuda_set_current(nullptr);
  EXPECT_EQ(gnnrt_cuda_matmul(a, b, 2, 1, 2, 0, 0, c), GNNRT_ERR_CUDA);
  gnnrt_cuda_set_current(ctx);
}

} // namespace
