//===- CudaTestUtil.h - One GPU context per test suite ------*- C++ -*-===//
//
// Shared by the context and kernel tests. Opening a context creates cuBLAS
// and cuSPARSE handles, which takes long enough to matter per test, so each
// suite opens one. Without a device the tests are skipped with the CUDA
// runtime's reason; a device that exists but fails to open is a failure,
// never a skip.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_TEST_RUNTIMECUDA_CUDATESTUTIL_H
#define GNNC_TEST_RUNTIMECUDA_CUDATESTUTIL_H

#include "gnnrt/Cuda.h"

#include <gtest/gtest.h>

#include <string>

namespace gnnrt::test {

inline bool startsWith(const std::string &text, const std::string &prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

/// The suite's context is current during each test.
class CudaSuite : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    error[0] = '\0';
    ctx = gnnrt_cuda_open(-1, error, sizeof(error));
  }
  static void TearDownTestSuite() {
    gnnrt_cuda_close(ctx);
    ctx = nullptr;
  }

  void SetUp() override {
    if (!ctx) {
      if (startsWith(error, "no CUDA device"))
        GTEST_SKIP() << error;
      FAIL() << error;
    }
    gnnrt_cuda_set_current(ctx);
  }

  inline static gnnrt_cuda *ctx = nullptr;
  inline static char error[512] = "";
};

} // namespace gnnrt::test

#endif // GNNC_TEST_RUNTIMECUDA_CUDATESTUTIL_H
