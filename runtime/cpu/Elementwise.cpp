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

#include "gnnrt/Philox.h"

#include <cmath>

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
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(p >= 0 && p < 1, GNNRT_ERR_BAD_ARGUMENT); // also rejects NaN
  GNNRT_CHECK(present(x, n) && present(y, n), GNNRT_ERR_NULL_POINTER);
  // Comparing the raw bits with the threshold is exactly `u >= p`.
  const uint64_t threshold = gnnrt::dropoutThreshold(p);
  const double keep = 1.0 - p;
  const uint32_t key[2] = {static_cast<uint32_t>(seed),
                           static_cast<uint32_t>(seed >> 32)};
  const int64_t blocks = n / 4 + (n % 4 != 0);
  // One Philox block serves the four elements 4b .. 4b+3: the counter of
  // gnnrt::dropoutBits, (b lo, b hi, stream, step), computed once per block
  // rather than once per element.
#pragma omp parallel for schedule(static) if (worthThreads(n / 4))
  for (int64_t b = 0; b < blocks; ++b) {
    const uint64_t block = static_cast<uint64_t>(b);
    const uint32_t ctr[4] = {
        static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
        static_cast<uint32_t>(stream), static_cast<uint32_t>(step)};
    uint32_t bits[4];
    gnnrt::philox4x32(ctr, key, bits);
    const int64_t base = 4 * b, count = n - base < 4 ? n - base : 4;
    for (int64_t j = 0; j < count; ++j)
      y[base + j] =
          bits[j] >= threshold
              ? static_cast<float>(static_cast<double>(x[base + j]) / keep)
              : 0.0f;
  }
  return GNNRT_OK;
}

} // extern "C"
