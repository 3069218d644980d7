//===- CudaCheck.h - Stop with the call and CUDA's message ------*- C++ -*-===//
//
// For the standalone GPU experiments (spmm_variants.cu, host_link.cu),
// which use the CUDA runtime directly rather than libgnnrt_cuda: a failed
// call prints itself and cudaGetErrorString's text and exits 1 (on a
// machine without a GPU, the first call says so).
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_BENCH_GPU_CUDACHECK_H
#define GNNC_BENCH_GPU_CUDACHECK_H

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));         \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

#endif // GNNC_BENCH_GPU_CUDACHECK_H
