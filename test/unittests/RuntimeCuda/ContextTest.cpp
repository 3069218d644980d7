//===- ContextTest.cpp - The CUDA context, memory, kernels and GEMM -------===//
//
// Two kinds of tests. Those that need no device run everywhere: the "no
// device" path of gnnrt_cuda_open, NVRTC compilation (which needs no GPU),
// argument checks that come before any CUDA call, and the thread-local
// state. Those that need a device share one context and skip, with
// gnnrt_cuda_open's reason, when there is none; a device that exists but
// fails to open is a failure, not a skip.
//
// Compiled by the host compiler against the C ABI only: the same file
// tests the stand-in library of a build without the toolkit.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Cuda.h"

#include "CudaTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#ifndef GNNRT_HAVE_CUDA
#error "GNNRT_HAVE_CUDA comes with the GnncRtCuda target"
#endif

namespace {

using gnnrt::test::startsWith;

#if GNNRT_HAVE_CUDA

/// Device code for the tests, as generated units carry it: extern "C"
/// kernels, grid-stride loops, no #includes.
constexpr const char *kKernels = R"(
extern "C" __global__ void axpy(float a, const float *x, float *y,
                                long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

// Thread 0 of every block first spins for `spin` clock cycles, so that the
// writes land long after the launch returned: a copy that does not wait for
// this kernel reads the old values.
extern "C" __global__ void slow_fill(float *y, long long n, float v,
                                     long long spin) {
  if (threadIdx.x == 0) {
    long long start = clock64();
    while (clock64() - start < spin) {
    }
  }
  __syncthreads();
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    y[i] = v;
}
)";

/// Two units with a kernel of the same name and different results, to tell
/// which one ran.
constexpr const char *kFillOne = R"(
extern "C" __global__ void fill(float *y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    y[i] = 1.0f;
}
)";
constexpr const char *kFillTwo = R"(
extern "C" __global__ void fill(float *y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    y[i] = 2.0f;
}
)";

/// What a CUBIN's ELF header says. Fields are read at their ELF64 offsets
/// (little-endian, as every CUDA host and device is).
struct CubinHeader {
  bool elf64 = false;
  int osAbi = 0, abiVersion = 0, machine = 0;
  uint32_t flags = 0;
  /// The SM the code is for: e_flags bits 8..15 from CUDA's ELF ABI
  /// version 8 on (CUDA 12.8+; `readelf -h` of nvcc's sm_90 CUBIN shows
  /// 0x6005a04), bits 0..7 before.
  int sm() const {
    return static_cast<int>(abiVersion >= 8 ? (flags >> 8) & 0xff
                                            : flags & 0xff);
  }
};

CubinHeader readHeader(const void *image, int64_t bytes) {
  CubinHeader header;
  const auto *p = static_cast<const unsigned char *>(image);
  if (bytes < 64 || std::memcmp(p,
                                "\x7f"
                                "ELF",
                                4) != 0)
    return header;
  header.elf64 = p[4] == 2; // EI_CLASS: ELFCLASS64
  header.osAbi = p[7];
  header.abiVersion = p[8];
  uint16_t machine;
  std::memcpy(&machine, p + 18, 2);
  header.machine = machine;
  std::memcpy(&header.flags, p + 48, 4);
  return header;
}

constexpr int kEmCuda = 190;        // e_machine of NVIDIA CUDA
constexpr int kElfOsAbiCuda = 0x41; // e_ident[EI_OSABI] of a CUBIN

/// A compiled image, freed with free() as gnnrt_cuda_compile says.
struct Image {
  void *data = nullptr;
  int64_t bytes = 0;
  ~Image() { std::free(data); }
};

//===----------------------------------------------------------------------===//
// Without a device
//===----------------------------------------------------------------------===//

TEST(CudaBuild, IsAvailable) { EXPECT_EQ(gnnrt_cuda_available(), 1); }

TEST(CudaOpen, SaysWhyThereIsNoDevice) {
  char error[512] = "unchanged";
  gnnrt_cuda *ctx = gnnrt_cuda_open(-1, error, sizeof(error));
  if (ctx) {
    gnnrt_cuda_device_info info;
    ASSERT_EQ(gnnrt_cuda_info(ctx, &info), GNNRT_OK);
    gnnrt_cuda_close(ctx);
    GTEST_SKIP() << "a CUDA device is present (" << info.name
                 << "): the no-device path cannot be taken";
  }
  // E.g. "no CUDA device: cudaGetDeviceCount: cudaErrorInsufficientDriver
  // (35): CUDA driver version is insufficient for CUDA runtime version"
  // where there is no driver at all.
  std::string message = error;
  EXPECT_TRUE(startsWith(message, "no CUDA device: ")) << message;
  EXPECT_GT(message.size(), std::strlen("no CUDA device: ")) << message;
  EXPECT_EQ(message, gnnrt_cuda_last_error());

  // The message is cut to the buffer and terminated; no buffer is fine.
  char small[8];
  std::memset(small, 'x', sizeof(small));
  EXPECT_EQ(gnnrt_cuda_open(-1, small, sizeof(small)), nullptr);
  EXPECT_STREQ(small, "no CUDA");
  EXPECT_EQ(gnnrt_cuda_open(-1, nullptr, 0), nullptr);
  EXPECT_EQ(message, gnnrt_cuda_last_error());
}

TEST(CudaCompile, BuildsCubinForEachArchitectureWithoutDevice) {
  Image sm80, sm90;
  ASSERT_EQ(gnnrt_cuda_compile(kKernels, "context_test.cu", 80, &sm80.data,
                               &sm80.bytes),
            GNNRT_OK)
      << gnnrt_cuda_last_error();
  ASSERT_EQ(gnnrt_cuda_compile(kKernels, "context_test.cu", 90, &sm90.data,
                               &sm90.bytes),
            GNNRT_OK)
      << gnnrt_cuda_last_error();
  for (const Image *image : {&sm80, &sm90}) {
    ASSERT_NE(image->data, nullptr);
    CubinHeader header = readHeader(image->data, image->bytes);
    EXPECT_TRUE(header.elf64);
    EXPECT_EQ(header.machine, kEmCuda);
    EXPECT_EQ(header.osAbi, kElfOsAbiCuda);
  }
  EXPECT_EQ(readHeader(sm80.data, sm80.bytes).sm(), 80);
  EXPECT_EQ(readHeader(sm90.data, sm90.bytes).sm(), 90);
  EXPECT_TRUE(sm80.bytes != sm90.bytes ||
              std::memcmp(sm80.data, sm90.data, sm80.bytes) != 0);
}

TEST(CudaCompile, ReportsTheCompilerLog) {
  const char *source = "extern \"C\" __global__ void broken(float *y) {\n"
                       "  y[0] = undeclared_name;\n"
                       "}\n";
  void *image = nullptr;
  int64_t bytes = -1;
  EXPECT_EQ(gnnrt_cuda_compile(source, "broken.cu", 90, &image, &bytes),
            GNNRT_ERR_CUDA);
  EXPECT_EQ(image, nullptr);
  EXPECT_EQ(bytes, -1);
  std::string message = gnnrt_cuda_last_error();
  EXPECT_NE(message.find("nvrtcCompileProgram(broken.cu, sm_90): "
                         "NVRTC_ERROR_COMPILATION"),
            std::string::npos)
      << message;
  // The log names the file and line of the error, and the identifier.
  EXPECT_NE(message.find("broken.cu(2)"), std::string::npos) << message;
  EXPECT_NE(message.find("undeclared_name"), std::string::npos) << message;
}

TEST(CudaCompile, ChecksArguments) {
  void *image = nullptr;
  int64_t bytes = 0;
  EXPECT_EQ(gnnrt_cuda_compile(nullptr, "x.cu", 90, &image, &bytes),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_compile(kKernels, "x.cu", 90, nullptr, &bytes),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_compile(kKernels, "x.cu", 90, &image, nullptr),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_compile(kKernels, "x.cu", 0, &image, &bytes),
            GNNRT_ERR_BAD_ARGUMENT);
  // An architecture NVRTC does not know is its error, with its log.
  EXPECT_EQ(gnnrt_cuda_compile(kKernels, "x.cu", 12, &image, &bytes),
            GNNRT_ERR_CUDA);
  EXPECT_NE(std::string(gnnrt_cuda_last_error()).find("sm_12"),
            std::string::npos)
      << gnnrt_cuda_last_error();
  EXPECT_EQ(image, nullptr);
  // No name: NVRTC gets a default one.
  Image unnamed;
  EXPECT_EQ(
      gnnrt_cuda_compile(kKernels, nullptr, 80, &unnamed.data, &unnamed.bytes),
      GNNRT_OK)
      << gnnrt_cuda_last_error();
}

TEST(CudaContext, NullContextIsRejected) {
  void *p = nullptr;
  int64_t freeBytes = 0, totalBytes = 0;
  float x = 0;
  gnnrt_cuda_device_info info;
  gnnrt_cuda_kernels unit = {"unit.cu", kKernels, nullptr, 0};
  EXPECT_EQ(gnnrt_cuda_info(nullptr, &info), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_malloc(nullptr, 16, &p), GNNRT_ERR_NULL_POINTER);
  EXPECT_STREQ(gnnrt_cuda_last_error(), "gnnrt_cuda_malloc: null context");
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(gnnrt_cuda_free(nullptr, &x), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_host_alloc(nullptr, 16, &p), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_host_free(nullptr, &x), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_copy(nullptr, &x, &x, 4), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_memset(nullptr, &x, 0, 4), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_copy_async(nullptr, GNNRT_CUDA_COPY, &x, &x, 4),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_record(nullptr, GNNRT_CUDA_COMPUTE, 0),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_wait(nullptr, GNNRT_CUDA_COPY, 0),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_synchronize(nullptr), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_mem_info(nullptr, &freeBytes, &totalBytes),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_launch(nullptr, &unit, "axpy", 1, nullptr),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_set_spmm_path(nullptr, GNNRT_CUDA_SPMM_CUSPARSE),
            GNNRT_ERR_NULL_POINTER);
  gnnrt_cuda_close(nullptr);
}

// The current context and the last error belong to the calling thread.
TEST(CudaContext, StateIsPerThread) {
  void *p = nullptr;
  ASSERT_EQ(gnnrt_cuda_malloc(nullptr, 16, &p), GNNRT_ERR_NULL_POINTER);
  std::string mine = gnnrt_cuda_last_error();
  std::string theirsBefore, theirsAfter;
  gnnrt_cuda *theirCurrent = reinterpret_cast<gnnrt_cuda *>(1);
  std::thread other([&] {
    theirsBefore = gnnrt_cuda_last_error();
    theirCurrent = gnnrt_cuda_current();
    (void)gnnrt_cuda_free(nullptr, nullptr);
    theirsAfter = gnnrt_cuda_last_error();
  });
  other.join();
  EXPECT_EQ(theirsBefore, "");
  EXPECT_EQ(theirCurrent, nullptr);
  EXPECT_EQ(theirsAfter, "gnnrt_cuda_free: null context");
  EXPECT_EQ(mine, gnnrt_cuda_last_error());
}

// The checks are gnnrt_cpu_matmul's and come before the context is needed.
TEST(CudaMatmul, ChecksArgumentsBeforeTheContext) {
  std::thread noContext([] {
    float a[4] = {}, b[4] = {}, c[4] = {};
    EXPECT_EQ(gnnrt_cuda_matmul(a, b, -1, 2, 2, 0, 0, c), GNNRT_ERR_BAD_SIZE);
    EXPECT_EQ(gnnrt_cuda_matmul(a, b, int64_t(1) << 31, 1, 1, 0, 0, c),
              GNNRT_ERR_BAD_SIZE);
    EXPECT_EQ(gnnrt_cuda_matmul(nullptr, b, 2, 2, 2, 0, 0, c),
              GNNRT_ERR_NULL_POINTER);
    EXPECT_EQ(gnnrt_cuda_matmul(a, b, 2, 2, 2, 0, 0, nullptr),
              GNNRT_ERR_NULL_POINTER);
    // Nothing to compute: no context needed.
    EXPECT_EQ(gnnrt_cuda_matmul(nullptr, b, 0, 2, 2, 0, 0, nullptr), GNNRT_OK);
    EXPECT_EQ(gnnrt_cuda_matmul(a, b, 2, 2, 2, 0, 0, c), GNNRT_ERR_CUDA);
    EXPECT_TRUE(startsWith(gnnrt_cuda_last_error(), "no current CUDA context"))
        << gnnrt_cuda_last_error();
  });
  noContext.join();
}

//===----------------------------------------------------------------------===//
// With a device
//===----------------------------------------------------------------------===//

class CudaDevice : public gnnrt::test::CudaSuite {
protected:
  void SetUp() override {
    CudaSuite::SetUp();
    if (ctx) {
      ASSERT_EQ(gnnrt_cuda_info(ctx, &info), GNNRT_OK);
    }
  }
  void TearDown() override {
    if (ctx) {
      EXPECT_EQ(gnnrt_cuda_synchronize(ctx), GNNRT_OK)
          << gnnrt_cuda_last_error();
      gnnrt_cuda_set_current(nullptr);
    }
  }

  /// A device copy of \p host (freed when the context closes if the test
  /// fails before freeing it).
  float *upload(const std::vector<float> &host) {
    void *p = nullptr;
    int64_t bytes = static_cast<int64_t>(host.size() * sizeof(float));
    EXPECT_EQ(gnnrt_cuda_malloc(ctx, bytes, &p), GNNRT_OK)
        << gnnrt_cuda_last_error();
    EXPECT_EQ(gnnrt_cuda_copy(ctx, p, host.data(), bytes), GNNRT_OK)
        << gnnrt_cuda_last_error();
    return static_cast<float *>(p);
  }
  std::vector<float> download(const float *device, size_t n) {
    std::vector<float> host(n);
    EXPECT_EQ(gnnrt_cuda_copy(ctx, host.data(), device,
                              static_cast<int64_t>(n * sizeof(float))),
              GNNRT_OK)
        << gnnrt_cuda_last_error();
    return host;
  }
  void release(void *p) {
    EXPECT_EQ(gnnrt_cuda_free(ctx, p), GNNRT_OK) << gnnrt_cuda_last_error();
  }

  gnnrt_cuda_device_info info{};
};

TEST_F(CudaDevice, DescribesItself) {
  EXPECT_GT(std::strlen(info.name), 0u);
  EXPECT_GE(info.sm, 80);
  EXPECT_GT(info.total_bytes, 0);
  EXPECT_GT(info.free_bytes, 0);
  EXPECT_LE(info.free_bytes, info.total_bytes);
  EXPECT_GE(info.runtime_version, 13000);
  EXPECT_GT(info.driver_version, 0);
  EXPECT_EQ(gnnrt_cuda_current(), ctx);
  int64_t freeBytes = 0, totalBytes = 0;
  ASSERT_EQ(gnnrt_cuda_mem_info(ctx, &freeBytes, &totalBytes), GNNRT_OK);
  EXPECT_EQ(totalBytes, info.total_bytes);
  EXPECT_LE(freeBytes, totalBytes);

  char message[256];
  EXPECT_EQ(gnnrt_cuda_open(1000, message, sizeof(message)), nullptr);
  EXPECT_TRUE(startsWith(message, "no CUDA device: ordinal 1000")) << message;
}

TEST_F(CudaDevice, CopiesRoundTrip) {
  std::vector<float> host(1000);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<float>(i) * 0.5f - 7.0f;
  float *device = upload(host);
  EXPECT_EQ(download(device, host.size()), host);

  // memset fills bytes: 0 bytes give 0.0f.
  ASSERT_EQ(gnnrt_cuda_memset(ctx, device + 10, 0, 20 * sizeof(float)),
            GNNRT_OK);
  std::vector<float> expected = host;
  std::fill(expected.begin() + 10, expected.begin() + 30, 0.0f);
  EXPECT_EQ(download(device, host.size()), expected);

  // Device to device, and through pinned host memory on the copy stream.
  void *other = nullptr, *pinned = nullptr;
  int64_t bytes = static_cast<int64_t>(host.size() * sizeof(float));
  ASSERT_EQ(gnnrt_cuda_malloc(ctx, bytes, &other), GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_copy(ctx, other, device, bytes), GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_host_alloc(ctx, bytes, &pinned), GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_copy_async(ctx, GNNRT_CUDA_COPY, pinned, other, bytes),
            GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_synchronize(ctx), GNNRT_OK);
  EXPECT_EQ(std::memcmp(pinned, expected.data(), bytes), 0);

  EXPECT_EQ(gnnrt_cuda_host_free(ctx, pinned), GNNRT_OK);
  release(other);
  release(device);
}

TEST_F(CudaDevice, ChecksMemoryArguments) {
  void *p = reinterpret_cast<void *>(0x1234);
  float x = 0;
  EXPECT_EQ(gnnrt_cuda_malloc(ctx, -1, &p), GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cuda_malloc(ctx, 16, nullptr), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_host_alloc(ctx, -1, &p), GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(p, reinterpret_cast<void *>(0x1234));
  // An empty allocation is no allocation, as on the CPU.
  EXPECT_EQ(gnnrt_cuda_malloc(ctx, 0, &p), GNNRT_OK);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(gnnrt_cuda_free(ctx, nullptr), GNNRT_OK);
  EXPECT_EQ(gnnrt_cuda_host_free(ctx, nullptr), GNNRT_OK);

  EXPECT_EQ(gnnrt_cuda_copy(ctx, &x, &x, -4), GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cuda_copy(ctx, nullptr, &x, 4), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_copy(ctx, &x, nullptr, 4), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_copy(ctx, nullptr, nullptr, 0), GNNRT_OK);
  EXPECT_EQ(gnnrt_cuda_memset(ctx, nullptr, 0, 4), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_copy_async(ctx, 2, &x, &x, 4), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cuda_copy_async(ctx, -1, &x, &x, 4), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cuda_record(ctx, 2, 0), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cuda_wait(ctx, GNNRT_CUDA_COPY, -1), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cuda_mem_info(ctx, nullptr, nullptr), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cuda_set_spmm_path(ctx, 2), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cuda_set_spmm_path(ctx, -1), GNNRT_ERR_BAD_ARGUMENT);

  // Only what this context allocated may be freed, once.
  EXPECT_EQ(gnnrt_cuda_free(ctx, &x), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_NE(std::string(gnnrt_cuda_last_error())
                .find("was not allocated by gnnrt_cuda_malloc"),
            std::string::npos)
      << gnnrt_cuda_last_error();
  void *device = nullptr;
  ASSERT_EQ(gnnrt_cuda_malloc(ctx, 64, &device), GNNRT_OK);
  EXPECT_EQ(gnnrt_cuda_host_free(ctx, device), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cuda_free(ctx, device), GNNRT_OK);
  EXPECT_EQ(gnnrt_cuda_free(ctx, device), GNNRT_ERR_BAD_ARGUMENT);

  // Left allocated on purpose: gnnrt_cuda_close frees it.
  ASSERT_EQ(gnnrt_cuda_malloc(ctx, 64, &device), GNNRT_OK);
}

TEST_F(CudaDevice, LaunchesFromSource) {
  static const gnnrt_cuda_kernels unit = {"context_test_source.cu", kKernels,
                                          nullptr, 0};
  // Small integers and a quarter: every product and sum is exact, so the
  // result is exact whatever the rounding.
  const int64_t n = 1000;
  std::vector<float> x(n), y(n, 0.25f), expected(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    expected[i] = 2.0f * x[i] + 0.25f;
  }
  float *dx = upload(x), *dy = upload(y);
  float a = 2.0f;
  long long count = n;
  void *params[] = {&a, &dx, &dy, &count};
  ASSERT_EQ(gnnrt_cuda_launch(ctx, &unit, "axpy", n, params), GNNRT_OK)
      << gnnrt_cuda_last_error();
  EXPECT_EQ(download(dy, n), expected);

  // Loaded once: the second launch uses the cached module and kernel. Over
  // 0 threads nothing runs.
  ASSERT_EQ(gnnrt_cuda_launch(ctx, &unit, "axpy", 0, params), GNNRT_OK);
  EXPECT_EQ(download(dy, n), expected);
  ASSERT_EQ(gnnrt_cuda_launch(ctx, &unit, "axpy", n, params), GNNRT_OK);
  for (int64_t i = 0; i < n; ++i)
    expected[i] = 2.0f * x[i] + expected[i];
  EXPECT_EQ(download(dy, n), expected);
  EXPECT_EQ(gnnrt_cuda_launch(ctx, &unit, "axpy", -1, params),
            GNNRT_ERR_BAD_SIZE);
  release(dx);
  release(dy);
}

TEST_F(CudaDevice, LaunchesFromImageFirst) {
  Image mine, foreign;
  ASSERT_EQ(gnnrt_cuda_compile(kFillOne, "fill_one.cu", info.sm, &mine.data,
                               &mine.bytes),
            GNNRT_OK)
      << gnnrt_cuda_last_error();
  // A CUBIN runs only on devices of its own major architecture: sm_80 code
  // does not run on sm_90, nor sm_90 code on sm_8x or sm_100.
  int foreignSm = info.sm / 10 == 9 ? 80 : 90;
  ASSERT_EQ(gnnrt_cuda_compile(kFillOne, "fill_one.cu", foreignSm,
                               &foreign.data, &foreign.bytes),
            GNNRT_OK)
      << gnnrt_cuda_last_error();

  const int64_t n = 300;
  float *dy = upload(std::vector<float>(n, 0.0f));
  long long count = n;
  void *params[] = {&dy, &count};

  // The image wins over the source, which is never compiled.
  const gnnrt_cuda_kernels imageFirst = {"image_first", kFillTwo, mine.data,
                                         mine.bytes};
  ASSERT_EQ(gnnrt_cuda_launch(ctx, &imageFirst, "fill", n, params), GNNRT_OK)
      << gnnrt_cuda_last_error();
  EXPECT_EQ(download(dy, n), std::vector<float>(n, 1.0f));

  // An image alone is enough.
  const gnnrt_cuda_kernels imageOnly = {"image_only", nullptr, mine.data,
                                        mine.bytes};
  ASSERT_EQ(gnnrt_cuda_memset(ctx, dy, 0, n * sizeof(float)), GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_launch(ctx, &imageOnly, "fill", n, params), GNNRT_OK)
      << gnnrt_cuda_last_error();
  EXPECT_EQ(download(dy, n), std::vector<float>(n, 1.0f));

  // An image with no code for this device gives way to the source.
  const gnnrt_cuda_kernels fallback = {"fallback", kFillTwo, foreign.data,
                                       foreign.bytes};
  ASSERT_EQ(gnnrt_cuda_launch(ctx, &fallback, "fill", n, params), GNNRT_OK)
      << gnnrt_cuda_last_error();
  EXPECT_EQ(download(dy, n), std::vector<float>(n, 2.0f));

  // ... and without a source that is an error naming the unit.
  const gnnrt_cuda_kernels foreignOnly = {"foreign_only", nullptr, foreign.data,
                                          foreign.bytes};
  EXPECT_EQ(gnnrt_cuda_launch(ctx, &foreignOnly, "fill", n, params),
            GNNRT_ERR_CUDA);
  EXPECT_TRUE(startsWith(gnnrt_cuda_last_error(),
                         "cannot load the image of foreign_only: "))
      << gnnrt_cuda_last_error();
  release(dy);
}

TEST_F(CudaDevice, NamesTheUnitOfAnUnknownKernel) {
  static const gnnrt_cuda_kernels unit = {"context_test_names.cu", kKernels,
                                          nullptr, 0};
  EXPECT_EQ(gnnrt_cuda_launch(ctx, &unit, "no_such_kernel", 1, nullptr),
            GNNRT_ERR_BAD_ARGUMENT);
  std::string message = gnnrt_cuda_last_error();
  EXPECT_NE(message.find("unit context_test_names.cu has no kernel named "
                         "'no_such_kernel'"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("cudaErrorSymbolNotFound"), std::string::npos)
      << message;

  // A source that does not compile fails its first launch with the log.
  static const gnnrt_cuda_kernels broken = {
      "context_test_broken.cu", "extern \"C\" __global__ void k() { nope; }",
      nullptr, 0};
  EXPECT_EQ(gnnrt_cuda_launch(ctx, &broken, "k", 1, nullptr), GNNRT_ERR_CUDA);
  message = gnnrt_cuda_last_error();
  EXPECT_NE(message.find("context_test_broken.cu(1)"), std::string::npos)
      << message;
}

// An event recorded on one stream orders the other stream's later work
// after everything queued before it, both ways.
TEST_F(CudaDevice, EventsOrderTheStreams) {
  static const gnnrt_cuda_kernels unit = {"context_test_events.cu", kKernels,
                                          nullptr, 0};
  const int64_t n = 1 << 20;
  const int64_t bytes = n * static_cast<int64_t>(sizeof(float));
  void *device = nullptr, *pinned = nullptr;
  ASSERT_EQ(gnnrt_cuda_malloc(ctx, bytes, &device), GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_host_alloc(ctx, bytes, &pinned), GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_memset(ctx, device, 0, bytes), GNNRT_OK);

  // Compute then copy: the kernel writes 5 after spinning 10^8 cycles (at
  // least 50 ms at the H100's 1.98 GHz), long after the copy was queued;
  // only the event keeps the copy from reading the zeros.
  float *y = static_cast<float *>(device);
  long long count = n, spin = 100000000;
  float value = 5.0f;
  void *params[] = {&y, &count, &value, &spin};
  ASSERT_EQ(gnnrt_cuda_launch(ctx, &unit, "slow_fill", n, params), GNNRT_OK)
      << gnnrt_cuda_last_error();
  ASSERT_EQ(gnnrt_cuda_record(ctx, GNNRT_CUDA_COMPUTE, 0), GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_wait(ctx, GNNRT_CUDA_COPY, 0), GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_copy_async(ctx, GNNRT_CUDA_COPY, pinned, device, bytes),
            GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_synchronize(ctx), GNNRT_OK) << gnnrt_cuda_last_error();
  const float *host = static_cast<const float *>(pinned);
  EXPECT_EQ(host[0], 5.0f);
  EXPECT_EQ(host[n - 1], 5.0f);

  // Copy then compute: the kernel reads what the copy stream brought in.
  float *h = static_cast<float *>(pinned);
  for (int64_t i = 0; i < n; ++i)
    h[i] = 3.0f;
  void *x = nullptr;
  ASSERT_EQ(gnnrt_cuda_malloc(ctx, bytes, &x), GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_copy_async(ctx, GNNRT_CUDA_COPY, x, pinned, bytes),
            GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_record(ctx, GNNRT_CUDA_COPY, 1), GNNRT_OK);
  ASSERT_EQ(gnnrt_cuda_wait(ctx, GNNRT_CUDA_COMPUTE, 1), GNNRT_OK);
  float a = 2.0f;
  void *axpyParams[] = {&a, &x, &y, &count};
  ASSERT_EQ(gnnrt_cuda_launch(ctx, &unit, "axpy", n, axpyParams), GNNRT_OK);
  std::vector<float> result = download(y, n);
  EXPECT_EQ(result[0], 11.0f);
  EXPECT_EQ(result[n - 1], 11.0f);

  release(x);
  release(device);
  EXPECT_EQ(gnnrt_cuda_host_free(ctx, pinned), GNNRT_OK);
}

// cuBLAS against OpenBLAS for every transpose combination. Both sum k
// products in fp32, in different orders (and either may fuse a multiply
// and an add). Any such sum is within gamma_k * sum_l |a_il b_lj| of the
// exact value, gamma_k = k u / (1 - k u) with u = 2^-24 (Higham, Accuracy
// and Stability of Numerical Algorithms, 3.1), so the two are within twice
// that of each other: a bound, not a guess, and tight enough to catch a
// wrong transpose or leading dimension (errors of order 1) or TF32 (u =
// 2^-11 per product).
TEST_F(CudaDevice, MatmulMatchesTheCpu) {
  const int64_t m = 37, n = 29, k = 53;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const double u = std::ldexp(1.0, -24);
  const double gamma = k * u / (1 - k * u);
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      SCOPED_TRACE("transpose_a " + std::to_string(ta) + ", transpose_b " +
                   std::to_string(tb));
      std::vector<float> a(m * k), b(k * n), cpu(m * n);
      for (float &v : a)
        v = uniform(rng);
      for (float &v : b)
        v = uniform(rng);
      ASSERT_EQ(
          gnnrt_cpu_matmul(a.data(), b.data(), m, n, k, ta, tb, cpu.data()),
          GNNRT_OK);
      float *da = upload(a), *db = upload(b);
      float *dc = upload(std::vector<float>(m * n, NAN));
      ASSERT_EQ(gnnrt_cuda_matmul(da, db, m, n, k, ta, tb, dc), GNNRT_OK)
          << gnnrt_cuda_last_error();
      std::vector<float> gpu = download(dc, m * n);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double magnitude = 0;
          for (int64_t l = 0; l < k; ++l) {
            double ail = ta ? a[l * m + i] : a[i * k + l];
            double blj = tb ? b[j * k + l] : b[l * n + j];
            magnitude += std::fabs(ail * blj);
          }
          EXPECT_NEAR(gpu[i * n + j], cpu[i * n + j], 2 * gamma * magnitude)
              << "at (" << i << ", " << j << ")";
        }
      }
      // Deterministic: the same call gives the same bits.
      ASSERT_EQ(gnnrt_cuda_matmul(da, db, m, n, k, ta, tb, dc), GNNRT_OK);
      std::vector<float> again = download(dc, m * n);
      EXPECT_EQ(std::memcmp(again.data(), gpu.data(), gpu.size() * 4), 0);
      release(da);
      release(db);
      release(dc);
    }
  }
}

TEST_F(CudaDevice, MatmulOfEmptySizes) {
  // k = 0: the empty sum, zeros.
  const int64_t m = 3, n = 4;
  float *dc = upload(std::vector<float>(m * n, NAN));
  ASSERT_EQ(gnnrt_cuda_matmul(nullptr, nullptr, m, n, 0, 0, 0, dc), GNNRT_OK)
      << gnnrt_cuda_last_error();
  EXPECT_EQ(download(dc, m * n), std::vector<float>(m * n, 0.0f));
  // m = 0: nothing written; b (k x n = 3 x 4 floats) must still be given.
  EXPECT_EQ(gnnrt_cuda_matmul(nullptr, dc, 0, n, 3, 0, 0, nullptr), GNNRT_OK);
  EXPECT_EQ(gnnrt_cuda_matmul(nullptr, nullptr, 0, 0, 5, 1, 1, nullptr),
            GNNRT_OK);
  release(dc);
}

#else // !GNNRT_HAVE_CUDA

// The stand-in library: every call says this build has no CUDA.
TEST(CudaBuild, IsUnavailable) {
  EXPECT_EQ(gnnrt_cuda_available(), 0);
  char error[256];
  EXPECT_EQ(gnnrt_cuda_open(-1, error, sizeof(error)), nullptr);
  EXPECT_TRUE(startsWith(error, "this gnnc was built without the CUDA "
                                "toolkit"))
      << error;
  EXPECT_STREQ(gnnrt_cuda_last_error(), error);
  void *image = nullptr;
  int64_t bytes = 0;
  EXPECT_EQ(gnnrt_cuda_compile("", "x.cu", 90, &image, &bytes),
            GNNRT_ERR_NO_CUDA_BUILD);
  EXPECT_EQ(gnnrt_cuda_matmul(nullptr, nullptr, 0, 0, 0, 0, 0, nullptr),
            GNNRT_ERR_NO_CUDA_BUILD);
  EXPECT_EQ(gnnrt_cuda_set_spmm_path(nullptr, GNNRT_CUDA_SPMM_OWN),
            GNNRT_ERR_NO_CUDA_BUILD);
  EXPECT_EQ(gnnrt_cuda_current(), nullptr);
}

#endif // GNNRT_HAVE_CUDA

} // namespace
