//===- KernelCommon.h - What the CPU and CUDA kernels share -----*- C++ -*-===//
//
// Written once for both runtime/cpu and runtime/cuda: the argument checks
// that turn bad calls into statuses, the fixed blocks of rows that make
// column sums independent of how many threads (or GPU threads) ran them,
// the storage size of a graph with self loops, the fp32 <-> bf16/fp16
// conversions on bit patterns, the loss and normalization kernels' per-row
// math, and the optimizers' per-element updates. Sharing
// the code is what makes the two targets' results equal bit for bit where the
// kernels promise it. Private to the runtime's libraries.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_COMMON_KERNELCOMMON_H
#define GNNRT_COMMON_KERNELCOMMON_H

#include "gnnrt/HostDevice.h"
#include "gnnrt/Kernels.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

/// Why a check failed, as the status the kernel returns.
#define GNNRT_CHECK(cond, status)                                              \
  do {                                                                         \
    if (!(cond))                                                               \
      return (status);                                                         \
  } while (false)

/// Returns from the enclosing function if a gnnrt status is not GNNRT_OK.
#define GNNRT_RETURN_IF_ERROR(expr)                                            \
  do {                                                                         \
    int gnnrt_status_ = (expr);                                                \
    if (gnnrt_status_ != GNNRT_OK)                                             \
      return gnnrt_status_;                                                    \
  } while (0)

namespace gnnrt::kernel {

/// A tensor pointer is acceptable when it is set or the tensor is empty.
inline bool present(const void *p, int64_t count) {
  return p != nullptr || count == 0;
}

/// `a * b` into \p out for non-negative sizes; false on overflow.
inline bool mulSize(int64_t a, int64_t b, int64_t &out) {
  return a >= 0 && b >= 0 && !__builtin_mul_overflow(a, b, &out);
}

/// The int32 count of both views of a graph of \p n nodes and \p e edges
/// once self loops are added (gnnrt_cpu_add_self_loops_storage), or -1
/// when the sizes exceed int32 indices.
inline int64_t selfLoopStorage(int64_t n, int64_t e) {
  if (n < 0 || e < 0 || n >= std::numeric_limits<int32_t>::max() ||
      e > std::numeric_limits<int32_t>::max() - n)
    return -1;
  // At most 2 * (2^31 + 1 + 2^32): no int64 overflow.
  return 2 * (n + 1 + 2 * (e + n));
}

/// Sums across rows are taken over this many fixed blocks of rows, each
/// block in row order, then the blocks in order: the summation order and so
/// the bits of the result do not depend on how many threads ran the blocks.
constexpr int64_t kReductionBlocks = 64;

/// The loss adds a block's rows in chunks of this many: each chunk's terms
/// in row order from 0, then the chunks in order. A GPU then computes the
/// terms with a thread per chunk and still adds them in this order, with
/// no shared memory (the CUDA target's generated loss kernels).
constexpr int64_t kLossChunkRows = 32;

/// Rows `[begin, end)` of block \p b of kReductionBlocks over \p rows.
GNNRT_HD inline void blockRows(int64_t rows, int64_t b, int64_t &begin,
                               int64_t &end) {
  // Spread the remainder over the first blocks; no product of sizes, so no
  // overflow for any row count.
  int64_t q = rows / kReductionBlocks, r = rows % kReductionBlocks;
  begin = b * q + (b < r ? b : r);
  end = begin + q + (b < r ? 1 : 0);
}

/// A float's IEEE-754 bits and back.
GNNRT_HD inline uint32_t bitsOf(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof(b));
  return b;
}
GNNRT_HD inline float fromBits(uint32_t b) {
  float v;
  std::memcpy(&v, &b, sizeof(v));
  return v;
}

// fp32 <-> bf16 / fp16. Every case (normal, subnormal, overflow, NaN) is
// computed and the right one selected rather than branched to: CPU loops
// then compile to vector selects, and the integer arithmetic makes the
// result independent of the floating-point environment (flush-to-zero
// included).

/// `x >> shift` rounded to nearest, ties to even: adding just under half of
/// the dropped part, plus the kept part's lowest bit, carries exactly when
/// the dropped part is above half, or is half and the kept part is odd.
/// \p shift is 1..31 and \p x + 2^(shift-1) must not overflow.
GNNRT_HD inline uint32_t shiftRoundEven(uint32_t x, uint32_t shift) {
  return (x + ((1u << (shift - 1)) - 1) + ((x >> shift) & 1u)) >> shift;
}

GNNRT_HD inline uint16_t f32ToBf16(float v) {
  const uint32_t b = bitsOf(v);
  // bf16 is fp32's top half, so rounding never leaves the exponent range
  // except by carrying into it, which correctly turns the largest values
  // into infinities. Only a NaN must not round: a payload in the low bits
  // alone would carry into an infinity or be truncated to one.
  const uint32_t rounded = shiftRoundEven(b, 16);
  const uint32_t quietNaN = (b >> 16) | 0x40u;
  return static_cast<uint16_t>((b & 0x7fffffffu) > 0x7f800000u ? quietNaN
                                                               : rounded);
}

GNNRT_HD inline float bf16ToF32(uint16_t h) {
  const uint32_t quieted = (h & 0x7fffu) > 0x7f80u ? h | 0x40u : h;
  return fromBits(quieted << 16);
}

GNNRT_HD inline uint16_t f32ToF16(float v) {
  const uint32_t b = bitsOf(v);
  const uint32_t sign = (b >> 16) & 0x8000u;
  const uint32_t a = b & 0x7fffffffu;
  // Normal halves: drop 13 mantissa bits and rebias the exponent from 127
  // to 15. A carry out of the mantissa increments the exponent, which is
  // the right answer, up to and including 0x7c00 (an infinity) for
  // [65520, 65536).
  const uint32_t normal = shiftRoundEven(a, 13) - (112u << 10);
  // Subnormal halves count units of 2^-24: the fp32 significand (with its
  // implicit bit) m * 2^(e - 150) is m >> (126 - e) units. The shift is
  // clamped to 1..31 because it is computed for every input, and a shift
  // outside that range would be undefined: from 25 on every input rounds to
  // 0 anyway (m < 2^24 is below half a unit), fp32 zeros and subnormals
  // included, whose wrongly added implicit bit is far below that; below 14
  // (normal halves) the result is not selected.
  const uint32_t exponent = a >> 23;
  const uint32_t shift = exponent < 95    ? 31u
                         : exponent > 125 ? 1u
                                          : 126u - exponent;
  const uint32_t subnormal = shiftRoundEven((a & 0x7fffffu) | 0x800000u, shift);
  const uint32_t quietNaN = 0x7e00u | ((a >> 13) & 0x3ffu);
  uint32_t h = a >= 0x38800000u ? normal : subnormal; // 2^-14, the least normal
  h = a >= 0x477ff000u ? 0x7c00u : h; // rounds to 2^16 or more: infinity
  h = a > 0x7f800000u ? quietNaN : h;
  return static_cast<uint16_t>(sign | h);
}

GNNRT_HD inline float f16ToF32(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  const uint32_t normal = ((exponent + 112u) << 23) | (mantissa << 13);
  const uint32_t special =
      0x7f800000u | (mantissa << 13) | (mantissa ? 0x400000u : 0u);
  // mantissa * 2^-24 is exact in fp32 (at most 10 significant bits, and a
  // normal fp32 result), so neither rounding mode nor flush-to-zero can
  // change it; it is 0 for a zero.
  const uint32_t subnormal =
      bitsOf(static_cast<float>(mantissa) * 5.9604644775390625e-8f);
  uint32_t f = exponent == 0 ? subnormal : normal;
  f = exponent == 0x1fu ? special : f;
  return fromBits(sign | f);
}

//===----------------------------------------------------------------------===//
// Per-row math of the loss and normalization kernels
//===----------------------------------------------------------------------===//

/// Whether node \p i counts for a loss: in the mask (all nodes without one)
/// and labelled.
GNNRT_HD inline bool counted(const int32_t *labels, const uint8_t *mask,
                             int64_t i) {
  return (!mask || mask[i]) && labels[i] >= 0;
}

/// log-sum-exp of one row, shifted by its maximum.
GNNRT_HD inline double logSumExp(const float *row, int64_t classes) {
  double m = row[0];
  for (int64_t c = 1; c < classes; ++c)
    m = m < row[c] ? row[c] : m;
  double sum = 0;
  for (int64_t c = 0; c < classes; ++c)
    sum += std::exp(row[c] - m);
  return m + std::log(sum);
}

/// One counted node's term of the cross entropy with label smoothing \p
/// smoothing (\p perClass = smoothing / classes) and class weight \p
/// weight: `-weight ((1 - s) log p_y + s/C sum_c log p_c)`.
GNNRT_HD inline double crossEntropyTerm(const float *row, int64_t classes,
                                        int32_t y, double smoothing,
                                        double perClass, double weight) {
  const double lse = logSumExp(row, classes);
  // sum_c log p_c = sum_c logits_c - C lse.
  double all = 0;
  for (int64_t c = 0; c < classes; ++c)
    all += row[c];
  all -= static_cast<double>(classes) * lse;
  const double py = row[y] - lse;
  return weight * -((1.0 - smoothing) * py + perClass * all);
}

/// Row \p i of the logits' gradient: for a counted node `scale (softmax -
/// q)`, q the smoothed one-hot target (\p perClass = smoothing / classes)
/// and scale = lossGrad * classWeight[y] / weightSum; 0 for the others.
GNNRT_HD inline void crossEntropyGradNode(
    const float *logits, const int32_t *labels, const uint8_t *mask, int64_t i,
    int64_t classes, double smoothing, double perClass, double lossGrad,
    const double *classWeight, double weightSum, float *dlogits) {
  const float *row = logits + i * classes;
  float *d = dlogits + i * classes;
  if (!counted(labels, mask, i)) {
    for (int64_t c = 0; c < classes; ++c)
      d[c] = 0.0f;
    return;
  }
  const int32_t y = labels[i];
  const double scale = lossGrad * classWeight[y] / weightSum;
  const double lse = logSumExp(row, classes);
  for (int64_t c = 0; c < classes; ++c) {
    const double q = (c == y ? 1.0 - smoothing : 0.0) + perClass;
    d[c] = static_cast<float>(scale * (std::exp(row[c] - lse) - q));
  }
}

/// Mean and 1/sqrt(biased variance + eps) of one row of \p n elements.
GNNRT_HD inline void rowStats(const float *xr, int64_t n, double eps,
                              double &mean, double &rstd) {
  double sum = 0;
  for (int64_t c = 0; c < n; ++c)
    sum += xr[c];
  mean = sum / static_cast<double>(n);
  double var = 0;
  for (int64_t c = 0; c < n; ++c) {
    const double dev = xr[c] - mean;
    var += dev * dev;
  }
  rstd = 1.0 / std::sqrt(var / static_cast<double>(n) + eps);
}

/// One row normalized; its statistics are taken before it is written, so
/// \p yr may be \p xr.
GNNRT_HD inline void normalizeRow(const float *xr, int64_t cols, double eps,
                                  float *yr) {
  double mean, rstd;
  rowStats(xr, cols, eps, mean, rstd);
  for (int64_t c = 0; c < cols; ++c)
    yr[c] = static_cast<float>((xr[c] - mean) * rstd);
}

/// dx = r (dy - mean(dy) - xhat mean(dy xhat)) for one row, xhat = (x -
/// mean) r. Each dx element is written after its own x and dy are read,
/// so \p dxr may be \p xr or \p dyr.
GNNRT_HD inline void normalizeGradRow(const float *xr, const float *dyr,
                                      int64_t cols, double eps, float *dxr) {
  double mean, rstd;
  rowStats(xr, cols, eps, mean, rstd);
  double meanDy = 0, meanDyXhat = 0;
  for (int64_t c = 0; c < cols; ++c) {
    meanDy += dyr[c];
    meanDyXhat += dyr[c] * ((xr[c] - mean) * rstd);
  }
  meanDy /= static_cast<double>(cols);
  meanDyXhat /= static_cast<double>(cols);
  for (int64_t c = 0; c < cols; ++c) {
    const double xhat = (xr[c] - mean) * rstd;
    dxr[c] = static_cast<float>(rstd * (dyr[c] - meanDy - xhat * meanDyXhat));
  }
}

//===----------------------------------------------------------------------===//
// Optimizer updates, one element at a time
//===----------------------------------------------------------------------===//

/// What every element of one Adam update shares, computed once on the host
/// (CUDA included, so std::pow gives the same bits on both targets).
struct AdamConstants {
  double lr, beta1, beta2, eps, correction1, correction2, l2, shrink;
};

inline AdamConstants adamConstants(int64_t step, double lr, double beta1,
                                   double beta2, double eps, double weightDecay,
                                   bool decoupled) {
  const double t = static_cast<double>(step);
  AdamConstants c;
  c.lr = lr;
  c.beta1 = beta1;
  c.beta2 = beta2;
  c.eps = eps;
  c.correction1 = 1.0 - std::pow(beta1, t);
  c.correction2 = 1.0 - std::pow(beta2, t);
  c.l2 = decoupled ? 0.0 : weightDecay;
  c.shrink = decoupled ? 1.0 - lr * weightDecay : 1.0;
  return c;
}

/// Adam on element \p i, in double, rounded once per output. Each output is
/// written after the element's inputs are read, so outputs may alias
/// inputs. Only correctly rounded operations (the libraries build without
/// contraction), so every target and vector width gives the same bits.
GNNRT_HD inline void adamElement(int64_t i, const float *param,
                                 const float *grad, const float *m,
                                 const float *v, const AdamConstants &c,
                                 float *newParam, float *newM, float *newV) {
  double p = param[i];
  const double g = grad[i] + c.l2 * p;
  const double mi = c.beta1 * m[i] + (1.0 - c.beta1) * g;
  const double vi = c.beta2 * v[i] + (1.0 - c.beta2) * g * g;
  const double mh = mi / c.correction1, vh = vi / c.correction2;
  p *= c.shrink;
  p -= c.lr * mh / (std::sqrt(vh) + c.eps);
  newM[i] = static_cast<float>(mi);
  newV[i] = static_cast<float>(vi);
  newParam[i] = static_cast<float>(p);
}

/// SGD (PyTorch's: weight decay into the gradient, then momentum, Nesterov
/// optionally) on element \p i; \p momentumBuffer null means no momentum.
GNNRT_HD inline void sgdElement(int64_t i, const float *param,
                                const float *grad, const float *momentumBuffer,
                                double lr, double momentum, double weightDecay,
                                bool nesterov, float *newParam,
                                float *newMomentumBuffer) {
  const double p = param[i];
  double g = grad[i] + weightDecay * p;
  if (momentumBuffer) {
    const double buf = momentum * momentumBuffer[i] + g;
    g = nesterov ? g + momentum * buf : buf;
    newMomentumBuffer[i] = static_cast<float>(buf);
  }
  newParam[i] = static_cast<float>(p - lr * g);
}

/// gnn.head_matrix's one entry for head column \p c (in head c / width) of
/// a matrix of kind \p kind (gnnrt_head_matrix) over `heads * width` head
/// columns, whose other entries are 0: the CPU kernel and the CUDA one set
/// the same entries. \p mean is 1/heads as the host computes it.
GNNRT_HD inline void setHeadMatrixEntry(int kind, int64_t c, int64_t heads,
                                        int64_t width, float mean, float *y) {
  if (kind == GNNRT_HEADS_SUM)
    y[c * heads + c / width] = 1.0f; // [heads * width, heads]
  else if (kind == GNNRT_HEADS_MEAN)
    y[c * width + c % width] = mean; // [heads * width, width]
  else
    y[c / width * heads * width + c] = 1.0f; // spread: [heads, heads * width]
}

/// The dot product of \p f floats with eight interleaved partial sums (lane
/// j takes elements j, j + 8, ...) added pairwise at the end. A single
/// accumulator would be a chain of dependent additions the compiler may not
/// vectorise without reassociating; this fixed order vectorises as written
/// and still gives the same bits on every call, and on both targets: the
/// CPU's SDDMM (gnnrt_cpu_sddmm and its tiled form) and the CUDA one call it.
/// An edge softmax adds over a destination's slots (the exponentials; the
/// gradient's dot product) in kEdgeLanes lanes: slot j of the row (from 0)
/// goes to lane j % kEdgeLanes, each lane adds its slots in order from 0,
/// and laneButterflySum combines the lanes. That is the order of a warp
/// that gives a lane every 32nd slot and adds with __shfl_xor_sync at
/// offsets 16, 8, 4, 2, 1, so the CUDA kernels take a row per warp (not a
/// hub's hundreds of slots in one thread) and still give these bits.
constexpr int kEdgeLanes = 32;

/// The lanes laneButterflySum reads when only the first \p used hold
/// slots: \p used rounded up to a power of two (at least 1).
GNNRT_HD inline int laneSpan(int used) {
  int span = 1;
  while (span < used)
    span *= 2;
  return span;
}

/// The warp butterfly's sum of \p lanes (overwritten): at offset m, lane j
/// becomes lanes[j] + lanes[j ^ m]; every lane ends with the same bits, so
/// lane 0's, which needs only the lanes below m at each step, is computed.
/// With \p used < kEdgeLanes (a row of fewer slots), the lanes from \p used
/// to laneSpan(used) must be +0.0 and the others are not read: the steps
/// at offsets of laneSpan(used) and more only add +0.0, which changes
/// nothing but a -0.0 into +0.0, so that is done once instead.
GNNRT_HD inline float laneButterflySum(float *lanes, int used = kEdgeLanes) {
  const int span = laneSpan(used);
  if (span < kEdgeLanes)
    for (int j = 0; j < used; ++j)
      lanes[j] += 0.0f;
  for (int m = span / 2; m > 0; m /= 2)
    for (int j = 0; j < m; ++j)
      lanes[j] = lanes[j] + lanes[j + m];
  return lanes[0];
}

GNNRT_HD inline float dot8(const float *a, const float *b, int64_t f) {
  float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t c = 0;
  for (; c + 8 <= f; c += 8)
    for (int j = 0; j < 8; ++j)
      lane[j] += a[c + j] * b[c + j];
  for (int j = 0; c < f; ++c, ++j)
    lane[j] += a[c] * b[c];
  return ((lane[0] + lane[4]) + (lane[1] + lane[5])) +
         ((lane[2] + lane[6]) + (lane[3] + lane[7]));
}

} // namespace gnnrt::kernel

#endif // GNNRT_COMMON_KERNELCOMMON_H
