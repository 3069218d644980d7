//===- Dense.cu - Dense primitives, dropout and conversions on the device -===//
//
// gnnrt_cuda_reduce, head_matrix, concat, slice, normalize(_grad), dropout
// and the fp32 <-> bf16/fp16 conversions. Each equals its CPU kernel bit for
// bit: the arithmetic is the same operations in the same order (the library
// builds with --fmad=false, and CUDA's double division and square root are
// correctly rounded, as the host's are).
//
// Sums across rows (reduce along dim 0, the statistics of normalize along
// dim 0) follow the CPU's fixed blocks (runtime/cpu/Common.h): rows are
// split into kReductionBlocks blocks, each summed in row order into a
// double, then the blocks are added in order. Here a thread per (block,
// column) writes its partial into the context's scratch and a thread per
// column adds the partials: no atomics, 64 times the parallelism of a
// thread per column, and the CPU's bits.
//
// Dropout uses gnnrt/Philox.h's own functions (host and device), so masks
// are the CPU's; a kept element is `x / (1 - p)` divided in double and
// rounded once. NaN inputs may come out with another payload than on the
// CPU (the GPU's double arithmetic returns the canonical NaN).
//
//===----------------------------------------------------------------------===//
#include "KernelSupport.h"

#include "gnnrt/Convert.h"
#include "gnnrt/Philox.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace {

using namespace gnnrt::cuda;
// The same blocks and conversions as the CPU kernels give the same bits.
using gnnrt::kernel::bf16ToF32;
using gnnrt::kernel::blockRows;
using gnnrt::kernel::f16ToF32;
using gnnrt::kernel::f32ToBf16;
using gnnrt::kernel::f32ToF16;

using kernel::matrixSize;

//===----------------------------------------------------------------------===//
// Fixed-block column sums
//===----------------------------------------------------------------------===//

/// Element (r, c)'s term of a column sum.
struct ColumnSum {
  const float *x;
  int64_t cols;
  __device__ void operator()(int64_t r, int64_t c, double *acc) const {
    acc[0] += x[r * cols + c];
  }
};

struct SquaredDeviation {
  const float *x;
  int64_t cols;
  const double *mean;
  __device__ void operator()(int64_t r, int64_t c, double *acc) const {
    const double dev = x[r * cols + c] - mean[c];
    acc[0] += dev * dev;
  }
};

/// normalize_grad's two column sums, dy and dy * xhat.
struct GradSums {
  const float *x, *dy;
  int64_t cols;
  const double *mean, *rstd;
  __device__ void operator()(int64_t r, int64_t c, double *acc) const {
    const float xv = x[r * cols + c], dyv = dy[r * cols + c];
    acc[0] += dyv;
    acc[1] += dyv * ((xv - mean[c]) * rstd[c]);
  }
};

/// partial[(b cols + c) W + w]: sum w of column c over block b's rows.
template <int W, typename Term>
__global__ void blockPartials(Term term, int64_t rows, int64_t cols,
                              double *partial) {
  for (int64_t t = firstItem(); t < kReductionBlocks * cols;
       t += itemStride()) {
    const int64_t b = t / cols, c = t % cols;
    double acc[W];
    for (int w = 0; w < W; ++w)
      acc[w] = 0;
    int64_t begin, end;
    blockRows(rows, b, begin, end);
    for (int64_t r = begin; r < end; ++r)
      term(r, c, acc);
    for (int w = 0; w < W; ++w)
      partial[t * W + w] = acc[w];
  }
}

/// Column c's totals (blocks added in order from 0) handed to \p finish.
template <int W, typename Finish>
__global__ void blockTotals(const double *partial, int64_t cols,
                            Finish finish) {
  for (int64_t c = firstItem(); c < cols; c += itemStride()) {
    double total[W];
    for (int w = 0; w < W; ++w) {
      total[w] = 0;
      for (int64_t b = 0; b < kReductionBlocks; ++b)
        total[w] += partial[(b * cols + c) * W + w];
    }
    finish(c, total);
  }
}

struct StoreSum {
  float *y;
  double divisor; // 0: no division
  __device__ void operator()(int64_t c, const double *total) const {
    y[c] = static_cast<float>(divisor > 0 ? total[0] / divisor : total[0]);
  }
};

struct StoreMean {
  double *mean;
  double rows;
  __device__ void operator()(int64_t c, const double *total) const {
    mean[c] = total[0] / rows;
  }
};

struct StoreRstd {
  double *rstd;
  double rows, eps;
  __device__ void operator()(int64_t c, const double *total) const {
    rstd[c] = 1.0 / sqrt(total[0] / rows + eps);
  }
};

struct StoreGradMeans {
  double *stats; // [cols][2]
  double rows;
  __device__ void operator()(int64_t c, const double *total) const {
    stats[2 * c] = total[0] / rows;
    stats[2 * c + 1] = total[1] / rows;
  }
};

/// Block maxima, kept in the partials as doubles (exactly: every float is
/// a double). The CPU's comparison: a NaN never becomes the maximum, and
/// of equal maxima (+0 and -0) the first one stays, which block by block
/// in order is still the first one.
__global__ void blockMaxPartials(const float *x, int64_t rows, int64_t cols,
                                 double *partial) {
  for (int64_t t = firstItem(); t < kReductionBlocks * cols;
       t += itemStride()) {
    const int64_t b = t / cols, c = t % cols;
    int64_t begin, end;
    blockRows(rows, b, begin, end);
    float m = -INFINITY;
    for (int64_t r = begin; r < end; ++r) {
      const float v = x[r * cols + c];
      m = m < v ? v : m;
    }
    partial[t] = m;
  }
}

__global__ void blockMaxTotals(const double *partial, int64_t rows,
                               int64_t cols, float *y) {
  for (int64_t c = firstItem(); c < cols; c += itemStride()) {
    float m = -INFINITY;
    for (int64_t b = 0; b < kReductionBlocks; ++b) {
      const float v = static_cast<float>(partial[b * cols + c]);
      m = m < v ? v : m;
    }
    y[c] = rows == 0 ? 0.0f : m;
  }
}

/// Reduction along dim 1: a thread per row, columns in order.
__global__ void reduceRows(const float *x, int64_t rows, int64_t cols, bool max,
                           bool mean, float *y) {
  for (int64_t r = firstItem(); r < rows; r += itemStride()) {
    const float *xr = x + r * cols;
    if (max) {
      float m = -INFINITY;
      for (int64_t c = 0; c < cols; ++c)
        m = m < xr[c] ? xr[c] : m;
      y[r] = cols == 0 ? 0.0f : m;
      continue;
    }
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      sum += xr[c];
    if (mean && cols > 0)
      sum /= static_cast<double>(cols);
    y[r] = static_cast<float>(sum);
  }
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// kernel::normalizeRow per row (y == x is safe).
__global__ void normalizeRows(const float *x, int64_t rows, int64_t cols,
                              double eps, float *y) {
  for (int64_t r = firstItem(); r < rows; r += itemStride())
    kernel::normalizeRow(x + r * cols, cols, eps, y + r * cols);
}

__global__ void normalizeColumns(const float *x, int64_t count, int64_t cols,
                                 const double *mean, const double *rstd,
                                 float *y) {
  for (int64_t t = firstItem(); t < count; t += itemStride()) {
    const int64_t c = t % cols;
    y[t] = static_cast<float>((x[t] - mean[c]) * rstd[c]);
  }
}

/// kernel::normalizeGradRow per row (dx may alias x or dy).
__global__ void normalizeGradRows(const float *x, const float *dy, int64_t rows,
                                  int64_t cols, double eps, float *dx) {
  for (int64_t r = firstItem(); r < rows; r += itemStride())
    kernel::normalizeGradRow(x + r * cols, dy + r * cols, cols, eps,
                             dx + r * cols);
}

__global__ void normalizeGradColumns(const float *x, const float *dy,
                                     int64_t count, int64_t cols,
                                     const double *mean, const double *rstd,
                                     const double *dyStats, float *dx) {
  for (int64_t t = firstItem(); t < count; t += itemStride()) {
    const int64_t c = t % cols;
    const double xhat = (x[t] - mean[c]) * rstd[c];
    dx[t] = static_cast<float>(
        rstd[c] * (dy[t] - dyStats[2 * c] - xhat * dyStats[2 * c + 1]));
  }
}

/// Per-column mean and rstd of `x[rows, cols]` into \p stats ([2][cols]
/// doubles) through \p partial (kReductionBlocks * cols doubles).
int columnStats(gnnrt_cuda *ctx, const float *x, int64_t rows, int64_t cols,
                double eps, double *partial, double *mean, double *rstd) {
  GNNRT_RETURN_IF_ERROR(launch(ctx, "blockPartials", kReductionBlocks * cols,
                               blockPartials<1, ColumnSum>, ColumnSum{x, cols},
                               rows, cols, partial));
  GNNRT_RETURN_IF_ERROR(launch(ctx, "blockTotals", cols,
                               blockTotals<1, StoreMean>, partial, cols,
                               StoreMean{mean, static_cast<double>(rows)}));
  GNNRT_RETURN_IF_ERROR(launch(ctx, "blockPartials", kReductionBlocks * cols,
                               blockPartials<1, SquaredDeviation>,
                               SquaredDeviation{x, cols, mean}, rows, cols,
                               partial));
  return launch(ctx, "blockTotals", cols, blockTotals<1, StoreRstd>, partial,
                cols, StoreRstd{rstd, static_cast<double>(rows), eps});
}

//===----------------------------------------------------------------------===//
// Copies, dropout, conversions
//===----------------------------------------------------------------------===//

/// `dst[r, dstOffset + c] = src[r, srcOffset + c]` for c < width: concat's
/// and slice's column blocks.
__global__ void copyColumns(const float *src, int64_t srcStride,
                            int64_t srcOffset, float *dst, int64_t dstStride,
                            int64_t dstOffset, int64_t rows, int64_t width) {
  for (int64_t t = firstItem(); t < rows * width; t += itemStride()) {
    const int64_t r = t / width, c = t % width;
    dst[r * dstStride + dstOffset + c] = src[r * srcStride + srcOffset + c];
  }
}

/// A thread per head column (kernel::setHeadMatrixEntry).
__global__ void headMatrixKernel(int kind, int64_t columns, int64_t heads,
                                 int64_t width, float mean, float *y) {
  for (int64_t c = firstItem(); c < columns; c += itemStride())
    kernel::setHeadMatrixEntry(kind, c, heads, width, mean, y);
}

/// gnn.dropout with mask_columns: a thread per element (r, c) of the
/// `rows x width` block, which draws element `r * cols + offset + c` of
/// the whole matrix's mask (one Philox call per element: a GAT head's
/// column of its attention, one element per row).
__global__ void
dropoutColumnsKernel(const float *x, int64_t rows, int64_t width, int64_t cols,
                     int64_t offset, uint64_t seed, uint64_t stream,
                     uint64_t step, uint64_t threshold, double keep, float *y) {
  for (int64_t i = firstItem(); i < rows * width; i += itemStride()) {
    const int64_t index = i / width * cols + offset + i % width;
    const uint64_t bits =
        gnnrt::dropoutBits(seed, step, stream, static_cast<uint64_t>(index));
    y[i] = bits >= threshold
               ? static_cast<float>(static_cast<double>(x[i]) / keep)
               : 0.0f;
  }
}

/// A thread per Philox block of four elements (gnnrt::dropoutBits's
/// counter: block lo, block hi, stream, step); each element is read before
/// it is written, so y == x is allowed.
__global__ void dropoutKernel(const float *x, int64_t n, uint64_t seed,
                              uint32_t stream, uint32_t step,
                              uint64_t threshold, double keep, float *y) {
  const int64_t blocks = (n + 3) / 4;
  const uint32_t key[2] = {static_cast<uint32_t>(seed),
                           static_cast<uint32_t>(seed >> 32)};
  for (int64_t b = firstItem(); b < blocks; b += itemStride()) {
    uint32_t bits[4] = {0, 0, 0, 0};
    if (threshold > 0 && threshold <= UINT32_MAX) {
      const uint32_t ctr[4] = {static_cast<uint32_t>(b),
                               static_cast<uint32_t>(b >> 32), stream, step};
      gnnrt::philox4x32(ctr, key, bits);
    }
    for (int j = 0; j < 4 && 4 * b + j < n; ++j) {
      const int64_t i = 4 * b + j;
      // threshold 0 (p = 0) keeps every element, 2^32 none.
      y[i] = bits[j] >= threshold
                 ? static_cast<float>(static_cast<double>(x[i]) / keep)
                 : 0.0f;
    }
  }
}

/// The conversions as function objects, the kernel's template arguments.
struct ToBf16 {
  __device__ uint16_t operator()(float v) const { return f32ToBf16(v); }
};
struct FromBf16 {
  __device__ float operator()(uint16_t h) const { return bf16ToF32(h); }
};
struct ToF16 {
  __device__ uint16_t operator()(float v) const { return f32ToF16(v); }
};
struct FromF16 {
  __device__ float operator()(uint16_t h) const { return f16ToF32(h); }
};

template <typename Fn, typename Src, typename Dst>
__global__ void convertKernel(const Src *src, Dst *dst, int64_t n) {
  for (int64_t i = firstItem(); i < n; i += itemStride())
    dst[i] = Fn()(src[i]);
}

template <typename Fn, typename Src, typename Dst>
int convert(const Src *src, Dst *dst, int64_t n) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(src, n) && present(dst, n), GNNRT_ERR_NULL_POINTER);
  int status = GNNRT_OK;
  gnnrt_cuda *ctx = gnnrt::cuda::current(status);
  if (!ctx)
    return status;
  return launch(ctx, "convertKernel", n, convertKernel<Fn, Src, Dst>, src, dst,
                n);
}

} // namespace

extern "C" {

int gnnrt_cuda_reduce(int kind, const float *x, int64_t rows, int64_t cols,
                      int dim, float *y) {
  int64_t count;
  if (int status = kernel::reduceArgs(kind, x, rows, cols, dim, y, count))
    return status;
  int64_t partialCount;
  GNNRT_CHECK(dim == 1 || mulSize(kReductionBlocks, cols, partialCount),
              GNNRT_ERR_BAD_SIZE);
  GNNRT_CURRENT_CONTEXT(ctx);
  const bool max = kind == GNNRT_REDUCE_MAX, mean = kind == GNNRT_REDUCE_MEAN;
  if (dim == 1)
    return launch(ctx, "reduceRows", rows, reduceRows, x, rows, cols, max, mean,
                  y);
  if (cols == 0)
    return GNNRT_OK;
  void *buffer = nullptr;
  GNNRT_RETURN_IF_ERROR(gnnrt::cuda::scratch(
      ctx, static_cast<size_t>(partialCount) * sizeof(double), &buffer));
  double *partial = static_cast<double *>(buffer);
  if (max) {
    GNNRT_RETURN_IF_ERROR(launch(ctx, "blockMaxPartials", partialCount,
                                 blockMaxPartials, x, rows, cols, partial));
    return launch(ctx, "blockMaxTotals", cols, blockMaxTotals, partial, rows,
                  cols, y);
  }
  GNNRT_RETURN_IF_ERROR(launch(ctx, "blockPartials", partialCount,
                               blockPartials<1, ColumnSum>, ColumnSum{x, cols},
                               rows, cols, partial));
  return launch(ctx, "blockTotals", cols, blockTotals<1, StoreSum>, partial,
                cols,
                StoreSum{y, mean && rows > 0 ? static_cast<double>(rows) : 0});
}

int gnnrt_cuda_head_matrix(int kind, int64_t heads, int64_t width, float *y) {
  int64_t columns, count;
  if (int status =
          kernel::headMatrixArgs(kind, heads, width, y, columns, count))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  GNNRT_CUDA_CHECK(
      cudaMemsetAsync(y, 0, static_cast<size_t>(count) * 4, ctx->compute));
  // The CPU's value, computed on the host.
  const float mean = static_cast<float>(1.0 / static_cast<double>(heads));
  return launch(ctx, "headMatrixKernel", columns, headMatrixKernel, kind,
                columns, heads, width, mean, y);
}

int gnnrt_cuda_concat(const float *const *inputs, const int64_t *widths,
                      int64_t num_inputs, int64_t rows, float *y) {
  // inputs and widths are host arrays (of device pointers and sizes): the
  // CPU kernel's checks read them as it does.
  int64_t total;
  if (int status =
          kernel::concatArgs(inputs, widths, num_inputs, rows, y, total))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  // One launch per input: concat joins a few tensors (heads, layers), and
  // separate launches need no table of pointers on the device.
  int64_t offset = 0;
  for (int64_t i = 0; i < num_inputs; ++i) {
    GNNRT_RETURN_IF_ERROR(launch(ctx, "copyColumns", rows * widths[i],
                                 copyColumns, inputs[i], widths[i], int64_t{0},
                                 y, total, offset, rows, widths[i]));
    offset += widths[i];
  }
  return GNNRT_OK;
}

int gnnrt_cuda_slice(const float *x, int64_t rows, int64_t cols, int64_t offset,
                     int64_t width, float *y) {
  int64_t out;
  if (int status = kernel::sliceArgs(x, rows, cols, offset, width, y, out))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  return launch(ctx, "copyColumns", out, copyColumns, x, cols, offset, y, width,
                int64_t{0}, rows, width);
}

int gnnrt_cuda_insert_columns(const float *x, const float *block, int64_t rows,
                              int64_t cols, int64_t offset, int64_t width,
                              float *y) {
  int64_t count;
  if (int status = kernel::insertColumnsArgs(x, block, rows, cols, offset,
                                             width, y, count))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  if (y != x && count > 0)
    GNNRT_CUDA_CHECK(cudaMemcpyAsync(y, x,
                                     static_cast<size_t>(count) * sizeof(float),
                                     cudaMemcpyDeviceToDevice, ctx->compute));
  if (rows * width == 0)
    return GNNRT_OK;
  return launch(ctx, "copyColumns", rows * width, copyColumns, block, width,
                int64_t{0}, y, cols, offset, rows, width);
}

int gnnrt_cuda_normalize(const float *x, int64_t rows, int64_t cols, int dim,
                         double eps, float *y) {
  int64_t count;
  if (int status = kernel::normalizeArgs(x, rows, cols, dim, eps, y, count))
    return status;
  // partial[kReductionBlocks * cols], mean[cols], rstd[cols].
  int64_t doubles = 0;
  GNNRT_CHECK(count == 0 || dim == 1 ||
                  (cols <= std::numeric_limits<int64_t>::max() /
                               (kReductionBlocks + 2) / 8 &&
                   mulSize(kReductionBlocks + 2, cols, doubles)),
              GNNRT_ERR_BAD_SIZE);
  GNNRT_CURRENT_CONTEXT(ctx);
  if (count == 0)
    return GNNRT_OK;
  if (dim == 1)
    return launch(ctx, "normalizeRows", rows, normalizeRows, x, rows, cols, eps,
                  y);
  void *buffer = nullptr;
  GNNRT_RETURN_IF_ERROR(gnnrt::cuda::scratch(
      ctx, static_cast<size_t>(doubles) * sizeof(double), &buffer));
  double *partial = static_cast<double *>(buffer);
  double *mean = partial + kReductionBlocks * cols, *rstd = mean + cols;
  GNNRT_RETURN_IF_ERROR(
      columnStats(ctx, x, rows, cols, eps, partial, mean, rstd));
  return launch(ctx, "normalizeColumns", count, normalizeColumns, x, count,
                cols, mean, rstd, y);
}

int gnnrt_cuda_normalize_grad(const float *x, const float *dy, int64_t rows,
                              int64_t cols, int dim, double eps, float *dx) {
  int64_t count;
  if (int status =
          kernel::normalizeGradArgs(x, dy, rows, cols, dim, eps, dx, count))
    return status;
  // partial[kReductionBlocks * 2 cols], mean, rstd, dyStats[2 cols].
  constexpr int64_t kPerColumn = 2 * kReductionBlocks + 4;
  int64_t doubles = 0;
  GNNRT_CHECK(
      count == 0 || dim == 1 ||
          (cols <= std::numeric_limits<int64_t>::max() / kPerColumn / 8 &&
           mulSize(kPerColumn, cols, doubles)),
      GNNRT_ERR_BAD_SIZE);
  GNNRT_CURRENT_CONTEXT(ctx);
  if (count == 0)
    return GNNRT_OK;
  if (dim == 1)
    return launch(ctx, "normalizeGradRows", rows, normalizeGradRows, x, dy,
                  rows, cols, eps, dx);
  void *buffer = nullptr;
  GNNRT_RETURN_IF_ERROR(gnnrt::cuda::scratch(
      ctx, static_cast<size_t>(doubles) * sizeof(double), &buffer));
  double *partial = static_cast<double *>(buffer);
  double *mean = partial + 2 * kReductionBlocks * cols, *rstd = mean + cols;
  double *dyStats = rstd + cols;
  GNNRT_RETURN_IF_ERROR(
      columnStats(ctx, x, rows, cols, eps, partial, mean, rstd));
  GNNRT_RETURN_IF_ERROR(launch(
      ctx, "blockPartials", kReductionBlocks * cols, blockPartials<2, GradSums>,
      GradSums{x, dy, cols, mean, rstd}, rows, cols, partial));
  GNNRT_RETURN_IF_ERROR(
      launch(ctx, "blockTotals", cols, blockTotals<2, StoreGradMeans>, partial,
             cols, StoreGradMeans{dyStats, static_cast<double>(rows)}));
  return launch(ctx, "normalizeGradColumns", count, normalizeGradColumns, x, dy,
                count, cols, mean, rstd, dyStats, dx);
}

int gnnrt_cuda_dropout(const float *x, int64_t n, uint64_t seed, uint64_t step,
                       uint64_t stream, double p, float *y) {
  if (int status = kernel::dropoutArgs(x, n, p, y))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  // stream and step enter the counter modulo 2^32 (gnnrt::dropoutBits).
  return launch(ctx, "dropoutKernel", (n + 3) / 4, dropoutKernel, x, n, seed,
                static_cast<uint32_t>(stream), static_cast<uint32_t>(step),
                gnnrt::dropoutThreshold(p), 1.0 - p, y);
}

int gnnrt_cuda_dropout_columns(const float *x, int64_t rows, int64_t width,
                               int64_t cols, int64_t offset, uint64_t seed,
                               uint64_t step, uint64_t stream, double p,
                               float *y) {
  int64_t n;
  if (int status =
          kernel::dropoutColumnsArgs(x, rows, width, cols, offset, p, y, n))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  return launch(ctx, "dropoutColumnsKernel", n, dropoutColumnsKernel, x, rows,
                width, cols, offset, seed, stream, step,
                gnnrt::dropoutThreshold(p), 1.0 - p, y);
}

int gnnrt_cuda_f32_to_bf16(const float *x, uint16_t *y, int64_t n) {
  return convert<ToBf16>(x, y, n);
}

int gnnrt_cuda_bf16_to_f32(const uint16_t *x, float *y, int64_t n) {
  return convert<FromBf16>(x, y, n);
}

int gnnrt_cuda_f32_to_f16(const float *x, uint16_t *y, int64_t n) {
  return convert<ToF16>(x, y, n);
}

int gnnrt_cuda_f16_to_f32(const uint16_t *x, float *y, int64_t n) {
  return convert<FromF16>(x, y, n);
}

} // extern "C"
