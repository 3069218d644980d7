//===- Elementwise.cpp - Element-wise primitives and dropout --------------===//
//
// Flat loops over n elements. The kind of an activation is dispatched once
// per call (a template per kind), never per element. Activations compute in
// fp32 with the libm float functions, as the CUDA backend will; dropout and
// scale take their one product or quotient in double so they equal the fp64
// reference rounded once.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "PhiloxLanes.h"

#include "gnnrt/Philox.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

using namespace gnnrt::cpu;

namespace {

constexpr float kInvSqrt2 = 0.70710678118654752440f;
constexpr float kInvSqrt2Pi = 0.39894228040143267794f;

template <typename Fn>
int binary(const float *a, const float *b, int64_t n, float *y, Fn fn) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(a, n) && present(b, n) && present(y, n),
              GNNRT_ERR_NULL_POINTER);
#pragma omp parallel for schedule(static) if (worthThreads(n))
  for (int64_t i = 0; i < n; ++i)
    y[i] = fn(a[i], b[i]);
  return GNNRT_OK;
}

template <int Kind>
void activate(const float *x, int64_t n, float s, float *y) {
#pragma omp parallel for schedule(static) if (worthThreads(n))
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    if constexpr (Kind == GNNRT_ACT_RELU)
      y[i] = v > 0 ? v : 0.0f;
    else if constexpr (Kind == GNNRT_ACT_LEAKY_RELU)
      y[i] = v > 0 ? v : s * v;
    else if constexpr (Kind == GNNRT_ACT_ELU)
      y[i] = v > 0 ? v : std::expm1(v);
    else if constexpr (Kind == GNNRT_ACT_GELU)
      y[i] = 0.5f * v * (1.0f + std::erf(v * kInvSqrt2));
    else if constexpr (Kind == GNNRT_ACT_SIGMOID)
      y[i] = 1.0f / (1.0f + std::exp(-v));
    else
      y[i] = std::tanh(v);
  }
}

/// dy * f'(x); at the kinks of relu and leaky_relu the derivative is the
/// left one (0 and the slope), as gnn.activation_grad specifies.
template <int Kind>
void activateGrad(const float *x, const float *dy, int64_t n, float s,
                  float *dx) {
#pragma omp parallel for schedule(static) if (worthThreads(n))
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    float d;
    if constexpr (Kind == GNNRT_ACT_RELU) {
      d = v > 0 ? 1.0f : 0.0f;
    } else if constexpr (Kind == GNNRT_ACT_LEAKY_RELU) {
      d = v > 0 ? 1.0f : s;
    } else if constexpr (Kind == GNNRT_ACT_ELU) {
      d = v > 0 ? 1.0f : std::exp(v);
    } else if constexpr (Kind == GNNRT_ACT_GELU) {
      d = 0.5f * (1.0f + std::erf(v * kInvSqrt2)) +
          v * kInvSqrt2Pi * std::exp(-0.5f * v * v);
    } else if constexpr (Kind == GNNRT_ACT_SIGMOID) {
      const float sg = 1.0f / (1.0f + std::exp(-v));
      d = sg * (1.0f - sg);
    } else {
      const float t = std::tanh(v);
      d = 1.0f - t * t;
    }
    dx[i] = dy[i] * d;
  }
}

//===----------------------------------------------------------------------===//
// dropout
//===----------------------------------------------------------------------===//
//
// Element i takes word i % 4 of the Philox4x32-10 block i / 4 (the counter
// of gnnrt::dropoutBits, (b lo, b hi, stream, step)). Three things make
// this fast without changing a bit of the result:
//
// * A block whose four inputs are all +0.0 (bit pattern 0) needs no random
//   bits: kept, +0.0 / keep with keep in (0, 1] is +0.0; dropped, the
//   kernel writes +0.0. -0.0 (kept as -0.0) and NaN (kept as NaN) are not
//   such inputs, which is why the test is on the bits and not `== 0`. Input
//   features are mostly +0.0 (Cora's are 98.7% zeros).
// * The blocks that do need bits are generated kLanes at a time in
//   struct-of-arrays form with SSE2 (part of every x86-64), four blocks per
//   vector, instead of one block's ten dependent rounds at a time. GCC does
//   not vectorise the widening products of a portable loop, hence the
//   intrinsics. Integer arithmetic gives the same bits however it is done.
// * Keeping or dropping is a mask, not a branch (which mispredicts half the
//   time at p = 0.5), over the quotients of all four elements. cvtps2pd,
//   divpd and cvtpd2ps round, and treat NaN and subnormals, exactly as their
//   scalar forms do, so the quotient is the scalar code's. When keep is a
//   power of two (p = 0.5, GCN's rate) the quotient is a float product
//   instead, which is exact (DropoutKey::pow2Scale says why); the divisions
//   were most of the kernel's time.

/// Blocks of four elements per tile of the parallel loop: enough for the
/// blocks that need bits to fill whole kLanes batches on sparse inputs.
constexpr int64_t kTileBlocks = 256;

#if defined(__SSE2__)
/// The dropout of the four elements \p x of one block into \p y, given the
/// block's four words \p bits. \p bias flips the sign bit so that a signed
/// compare with \p below, `(threshold - 1) ^ bias`, is the unsigned
/// `bits >= threshold`. With \p Pow2, keep is a power of two and the
/// quotient is the float product with \p scale (DropoutKey::pow2Scale).
template <bool Pow2>
inline void dropBlock(const float *x, float *y, __m128i bits, __m128i bias,
                      __m128i below, __m128d keep, __m128 scale) {
  const __m128 v = _mm_loadu_ps(x);
  __m128 q;
  if constexpr (Pow2) {
    q = _mm_mul_ps(v, scale);
  } else {
    const __m128d lo = _mm_div_pd(_mm_cvtps_pd(v), keep);
    const __m128d hi = _mm_div_pd(_mm_cvtps_pd(_mm_movehl_ps(v, v)), keep);
    q = _mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi));
  }
  const __m128i kept = _mm_cmpgt_epi32(_mm_xor_si128(bits, bias), below);
  _mm_storeu_ps(y, _mm_and_ps(q, _mm_castsi128_ps(kept)));
}
#endif

/// The dropout of the blocks `first + need[l]`, l < \p lanes <= kLanes,
/// whose words philoxLanes left in \p bits.
inline void dropLanes(const float *x, float *y, int64_t first,
                      const uint32_t *need, int lanes,
                      const uint32_t bits[4][kLanes], const DropoutKey &key) {
#if defined(__SSE2__)
  const __m128i bias = _mm_set1_epi32(INT32_MIN);
  const __m128i below =
      _mm_set1_epi32(static_cast<int>((key.threshold - 1) ^ 0x80000000u));
  const __m128d keep = _mm_set1_pd(key.keep);
  const __m128 scale = _mm_set1_ps(key.pow2Scale);
  const bool pow2 = key.pow2Scale != 0;
  for (int g = 0; g < lanes; g += 4) {
    // Transpose four lanes' words into four blocks' words.
    __m128i words[4];
    for (int j = 0; j < 4; ++j)
      words[j] =
          _mm_loadu_si128(reinterpret_cast<const __m128i *>(bits[j] + g));
    const __m128i t0 = _mm_unpacklo_epi32(words[0], words[1]);
    const __m128i t1 = _mm_unpacklo_epi32(words[2], words[3]);
    const __m128i t2 = _mm_unpackhi_epi32(words[0], words[1]);
    const __m128i t3 = _mm_unpackhi_epi32(words[2], words[3]);
    const __m128i block[4] = {
        _mm_unpacklo_epi64(t0, t1), _mm_unpackhi_epi64(t0, t1),
        _mm_unpacklo_epi64(t2, t3), _mm_unpackhi_epi64(t2, t3)};
    const int count = lanes - g < 4 ? lanes - g : 4;
    for (int l = 0; l < count; ++l) {
      const int64_t e = 4 * (first + need[g + l]);
      if (pow2)
        dropBlock<true>(x + e, y + e, block[l], bias, below, keep, scale);
      else
        dropBlock<false>(x + e, y + e, block[l], bias, below, keep, scale);
    }
  }
#else
  for (int l = 0; l < lanes; ++l) {
    const int64_t e = 4 * (first + need[l]);
    for (int j = 0; j < 4; ++j)
      y[e + j] = dropElement(x[e + j], bits[j][l], key);
  }
#endif
}

/// Dropout of the whole blocks [first, last), at most kTileBlocks of them.
void dropoutTile(const float *x, float *y, int64_t first, int64_t last,
                 const DropoutKey &key) {
  // Copy every block to y and list those that are not all +0.0, without a
  // branch per block. A copied +0.0 block is its final output; the others
  // are overwritten below from x, which in place is y but still holds the
  // input, since nothing but a copy of itself was written there.
  uint32_t need[kTileBlocks];
  int count = 0;
  for (int64_t b = first; b < last; ++b) {
    uint64_t w[2];
    std::memcpy(w, x + 4 * b, sizeof(w));
    std::memcpy(y + 4 * b, w, sizeof(w));
    need[count] = static_cast<uint32_t>(b - first);
    count += (w[0] | w[1]) != 0;
  }
  for (int start = 0; start < count; start += kLanes) {
    const int lanes = count - start < kLanes ? count - start : kLanes;
    uint32_t lo[kLanes], hi[kLanes], bits[4][kLanes];
    for (int l = 0; l < kLanes; ++l) {
      // Lanes past the end repeat the last block; their bits go unused.
      const uint64_t block = static_cast<uint64_t>(
          first + need[start + (l < lanes ? l : lanes - 1)]);
      lo[l] = static_cast<uint32_t>(block);
      hi[l] = static_cast<uint32_t>(block >> 32);
    }
    philoxLanes(lo, hi, key, bits);
    dropLanes(x, y, first, need + start, lanes, bits, key);
  }
}

} // namespace

extern "C" {

int gnnrt_cpu_add(const float *a, const float *b, int64_t n, float *y) {
  return binary(a, b, n, y, [](float u, float v) { return u + v; });
}

int gnnrt_cpu_sub(const float *a, const float *b, int64_t n, float *y) {
  return binary(a, b, n, y, [](float u, float v) { return u - v; });
}

int gnnrt_cpu_mul(const float *a, const float *b, int64_t n, float *y) {
  return binary(a, b, n, y, [](float u, float v) { return u * v; });
}

int gnnrt_cpu_scale(const float *x, int64_t n, double factor, float *y) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(x, n) && present(y, n), GNNRT_ERR_NULL_POINTER);
#pragma omp parallel for schedule(static) if (worthThreads(n))
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<float>(static_cast<double>(x[i]) * factor);
  return GNNRT_OK;
}

int gnnrt_cpu_activation(int kind, const float *x, int64_t n, double slope,
                         float *y) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(x, n) && present(y, n), GNNRT_ERR_NULL_POINTER);
  const float s = static_cast<float>(slope);
  switch (kind) {
  case GNNRT_ACT_RELU:
    activate<GNNRT_ACT_RELU>(x, n, s, y);
    return GNNRT_OK;
  case GNNRT_ACT_LEAKY_RELU:
    activate<GNNRT_ACT_LEAKY_RELU>(x, n, s, y);
    return GNNRT_OK;
  case GNNRT_ACT_ELU:
    activate<GNNRT_ACT_ELU>(x, n, s, y);
    return GNNRT_OK;
  case GNNRT_ACT_GELU:
    activate<GNNRT_ACT_GELU>(x, n, s, y);
    return GNNRT_OK;
  case GNNRT_ACT_SIGMOID:
    activate<GNNRT_ACT_SIGMOID>(x, n, s, y);
    return GNNRT_OK;
  case GNNRT_ACT_TANH:
    activate<GNNRT_ACT_TANH>(x, n, s, y);
    return GNNRT_OK;
  default:
    return GNNRT_ERR_BAD_ARGUMENT;
  }
}

int gnnrt_cpu_activation_grad(int kind, const float *x, const float *dy,
                              int64_t n, double slope, float *dx) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(x, n) && present(dy, n) && present(dx, n),
              GNNRT_ERR_NULL_POINTER);
  const float s = static_cast<float>(slope);
  switch (kind) {
  case GNNRT_ACT_RELU:
    activateGrad<GNNRT_ACT_RELU>(x, dy, n, s, dx);
    return GNNRT_OK;
  case GNNRT_ACT_LEAKY_RELU:
    activateGrad<GNNRT_ACT_LEAKY_RELU>(x, dy, n, s, dx);
    return GNNRT_OK;
  case GNNRT_ACT_ELU:
    activateGrad<GNNRT_ACT_ELU>(x, dy, n, s, dx);
    return GNNRT_OK;
  case GNNRT_ACT_GELU:
    activateGrad<GNNRT_ACT_GELU>(x, dy, n, s, dx);
    return GNNRT_OK;
  case GNNRT_ACT_SIGMOID:
    activateGrad<GNNRT_ACT_SIGMOID>(x, dy, n, s, dx);
    return GNNRT_OK;
  case GNNRT_ACT_TANH:
    activateGrad<GNNRT_ACT_TANH>(x, dy, n, s, dx);
    return GNNRT_OK;
  default:
    return GNNRT_ERR_BAD_ARGUMENT;
  }
}

int gnnrt_cpu_dropout(const float *x, int64_t n, uint64_t seed, uint64_t step,
                      uint64_t stream, double p, float *y) {
  if (int status = kernel::dropoutArgs(x, n, p, y))
    return status;
  // Comparing the raw bits with the threshold is exactly `u >= p`.
  const uint64_t threshold = gnnrt::dropoutThreshold(p);
  const double keep = 1.0 - p;
  [[maybe_unused]] const bool threads = worthThreads(n / 4);
  if (threshold == 0) {
    // p = 0 keeps every element whatever its bits: no Philox at all. Still
    // the quotient, which is what the general path writes (it quiets a
    // signalling NaN, for one).
#pragma omp parallel for schedule(static) if (threads)
    for (int64_t i = 0; i < n; ++i)
      y[i] = keepElement(x[i], keep);
    return GNNRT_OK;
  }
  if (threshold > UINT32_MAX) {
    // p > 1 - 2^-32 drops every element whatever its bits.
#pragma omp parallel for schedule(static) if (threads)
    for (int64_t i = 0; i < n; ++i)
      y[i] = 0.0f;
    return GNNRT_OK;
  }
  const DropoutKey key = dropoutKey(seed, step, stream, threshold, keep);
  // Whole blocks of four elements go by tiles; each tile's output is a pure
  // function of its inputs, so the bits do not depend on the schedule.
  const int64_t fullBlocks = n / 4;
  const int64_t tiles = (fullBlocks + kTileBlocks - 1) / kTileBlocks;
#pragma omp parallel for schedule(static) if (threads)
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t first = t * kTileBlocks;
    const int64_t last =
        fullBlocks - first < kTileBlocks ? fullBlocks : first + kTileBlocks;
    dropoutTile(x, y, first, last, key);
  }
  // The last, partial block of n % 4 elements.
  if (n % 4 != 0) {
    const uint64_t block = static_cast<uint64_t>(fullBlocks);
    const uint32_t ctr[4] = {static_cast<uint32_t>(block),
                             static_cast<uint32_t>(block >> 32), key.stream,
                             key.step};
    const uint32_t k[2] = {key.k0, key.k1};
    uint32_t bits[4];
    gnnrt::philox4x32(ctr, k, bits);
    for (int64_t i = 4 * fullBlocks; i < n; ++i)
      y[i] = dropElement(x[i], bits[i % 4], key);
  }
  return GNNRT_OK;
}

} // extern "C"
