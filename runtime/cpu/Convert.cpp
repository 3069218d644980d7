//===- Convert.cpp - Storage precision conversions ------------------------===//
//
// fp32 <-> bf16 / fp16 over arrays: vector loops over the scalar
// conversions of common/KernelCommon.h, which the CUDA kernels share.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Convert.h"

#include "Common.h"

#include <cstdint>

using namespace gnnrt::cpu;
using gnnrt::kernel::bf16ToF32;
using gnnrt::kernel::f16ToF32;
using gnnrt::kernel::f32ToBf16;
using gnnrt::kernel::f32ToF16;

namespace {

/// Elements per chunk of the parallel loop: large enough that a chunk's
/// cost dwarfs handing it out, small enough that two threads balance.
constexpr int64_t kChunk = 1 << 16;

GNNRT_VECTOR_CLONES void f32ToBf16Range(const float *__restrict src,
                                        uint16_t *__restrict dst, int64_t begin,
                                        int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    dst[i] = f32ToBf16(src[i]);
}

GNNRT_VECTOR_CLONES void bf16ToF32Range(const uint16_t *__restrict src,
                                        float *__restrict dst, int64_t begin,
                                        int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    dst[i] = bf16ToF32(src[i]);
}

GNNRT_VECTOR_CLONES void f32ToF16Range(const float *__restrict src,
                                       uint16_t *__restrict dst, int64_t begin,
                                       int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    dst[i] = f32ToF16(src[i]);
}

GNNRT_VECTOR_CLONES void f16ToF32Range(const uint16_t *__restrict src,
                                       float *__restrict dst, int64_t begin,
                                       int64_t end) {
  for (int64_t i = begin; i < end; ++i)
    dst[i] = f16ToF32(src[i]);
}

template <typename Src, typename Dst, typename Range>
int convert(const Src *src, Dst *dst, int64_t n, Range range) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(src, n) && present(dst, n), GNNRT_ERR_NULL_POINTER);
  forEachChunk(n, kChunk, worthThreads(n), [&](int64_t begin, int64_t end) {
    range(src, dst, begin, end);
  });
  return GNNRT_OK;
}

} // namespace

int gnnrt_cpu_f32_to_bf16(const float *src, uint16_t *dst, int64_t n) {
  return convert(src, dst, n, f32ToBf16Range);
}

int gnnrt_cpu_bf16_to_f32(const uint16_t *src, float *dst, int64_t n) {
  return convert(src, dst, n, bf16ToF32Range);
}

int gnnrt_cpu_f32_to_f16(const float *src, uint16_t *dst, int64_t n) {
  return convert(src, dst, n, f32ToF16Range);
}

int gnnrt_cpu_f16_to_f32(const uint16_t *src, float *dst, int64_t n) {
  return convert(src, dst, n, f16ToF32Range);
}
