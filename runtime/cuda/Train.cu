//===- Train.cu - Loss, optimizers and initialisation on the device -------===//
//
// gnnrt_cuda_init, cross_entropy(_grad), adam and sgd. As on the CPU, fp32
// storage and fp64 arithmetic, each output rounded once; the expressions
// are the CPU's, operation for operation (the library builds with
// --fmad=false), so init, adam and sgd equal the CPU kernels bit for bit.
// The loss and its gradient call CUDA's double exp and log, which may
// differ from glibc's in the last bit of a double: after the rounding to
// fp32 the results are the CPU's or one ulp away.
//
// The loss is a sum over nodes: it is taken in the CPU's kReductionBlocks
// fixed blocks of rows (runtime/cpu/Common.h), each summed in chunks of
// kLossChunkRows rows in row order, then the blocks in order, so it is
// deterministic and follows the CPU's order. Each of 64 thread blocks
// computes its rows' terms in parallel and one thread adds them in order; a
// single thread adds the 64 partials.
//
// Labels live on the device, yet a counted label >= classes must give
// GNNRT_ERR_BAD_ARGUMENT with no output written, as on the CPU. The class
// counts (which balanced class weights need anyway) flag bad labels in the
// context's scratch, and these two functions wait for the compute stream
// (cudaStreamSynchronize) to read the flag before writing anything. They
// run once per training step, where one synchronization costs little; every
// other kernel of the library stays asynchronous.
//
//===----------------------------------------------------------------------===//
#include "KernelSupport.h"

#include "gnnrt/Philox.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace {

using namespace gnnrt::cuda;

//===----------------------------------------------------------------------===//
// init
//===----------------------------------------------------------------------===//

__global__ void fillKernel(float value, int64_t n, float *y) {
  for (int64_t i = firstItem(); i < n; i += itemStride())
    y[i] = value;
}

__global__ void initUniformKernel(uint64_t seed, uint64_t stream, double bound,
                                  int64_t n, float *y) {
  for (int64_t i = firstItem(); i < n; i += itemStride())
    y[i] = static_cast<float>(
        (2.0 * gnnrt::initUniform(seed, stream, static_cast<uint64_t>(i)) -
         1.0) *
        bound);
}

//===----------------------------------------------------------------------===//
// cross_entropy
//===----------------------------------------------------------------------===//

/// common/KernelCommon.h's blockRows over any number of blocks.
__host__ __device__ inline void blockRows(int64_t rows, int64_t blocks,
                                          int64_t b, int64_t &begin,
                                          int64_t &end) {
  const int64_t q = rows / blocks, r = rows % blocks;
  begin = b * q + (b < r ? b : r);
  end = begin + q + (b < r ? 1 : 0);
}

using kernel::counted;

/// What the loss kernels share, in the scratch after the class weights.
struct LossSummary {
  double weightSum;
  int32_t badLabel;
};

/// Where one call's scratch goes: the bad-label flag, the count and weight
/// of each class, the summary and the loss's block partials.
struct LossScratch {
  int32_t *bad = nullptr;        // [1]
  double *classWeight = nullptr; // [classes]
  int64_t *classCount = nullptr; // [classes]
  LossSummary *summary = nullptr;
  double *lossPartial = nullptr; // [kReductionBlocks]
};

/// Classes counted in a block's shared memory first; more go straight to
/// the global counts.
constexpr int64_t kSharedClasses = 1024;

/// Counts the labels of the counted rows into \p classCount (zeroed
/// before) and flags a label >= classes in \p bad (zeroed before). Integer
/// counts do not depend on the order of the atomic adds, so this is
/// deterministic; a block counts into shared memory first, so that a graph
/// with few classes does not queue millions of adds on a few addresses.
/// (A thread per block of rows without atomics, as before, walked 1024 rows
/// each: 255 us per call on Facebook on an H100, 29% of a GCN epoch.)
__global__ void countLabels(const int32_t *labels, const uint8_t *mask,
                            int64_t n, int64_t classes,
                            unsigned long long *classCount, int32_t *bad) {
  __shared__ unsigned long long local[kSharedClasses];
  const bool inShared = classes <= kSharedClasses;
  if (inShared)
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x)
      local[c] = 0;
  __syncthreads();
  for (int64_t i = firstItem(); i < n; i += itemStride()) {
    if (!counted(labels, mask, i))
      continue;
    if (labels[i] >= classes)
      *bad = 1;
    else
      atomicAdd(inShared ? &local[labels[i]] : &classCount[labels[i]], 1ull);
  }
  __syncthreads();
  if (inShared)
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x)
      if (local[c])
        atomicAdd(&classCount[c], local[c]);
}

/// One thread: the class weights and their sum over the counted nodes in
/// class order, as gnnrt::cpu's lossWeights.
__global__ void classWeightsKernel(const int64_t *classCount,
                                   const int32_t *badLabel, int64_t classes,
                                   bool balanced, double *classWeight,
                                   LossSummary *summary) {
  if (firstItem() != 0)
    return;
  const int32_t bad = *badLabel;
  int64_t total = 0;
  for (int64_t c = 0; c < classes; ++c)
    total += classCount[c];
  double weightSum = 0;
  for (int64_t c = 0; c < classes; ++c) {
    // scikit-learn's "balanced": n / (C n_c).
    double w = 1.0;
    if (balanced)
      w = classCount[c] ? static_cast<double>(total) /
                              (static_cast<double>(classes) *
                               static_cast<double>(classCount[c]))
                        : 0.0;
    classWeight[c] = w;
    weightSum += w * static_cast<double>(classCount[c]);
  }
  summary->weightSum = weightSum;
  summary->badLabel = bad;
}

constexpr unsigned kLossThreads = 256;
static_assert(kLossThreads % kLossChunkRows == 0,
              "a round of lossBlocks holds whole chunks");

/// Block b of the loss (one thread block per kReductionBlocks block): the
/// rows' terms in parallel, added by thread 0 in the CPU's order (chunks of
/// kLossChunkRows rows from the block's first, each in row order, then the
/// chunks in order; a chunk never straddles two of this loop's rounds).
__global__ void lossBlocks(const float *logits, const int32_t *labels,
                           const uint8_t *mask, int64_t n, int64_t classes,
                           double smoothing, const double *classWeight,
                           double *lossPartial) {
  __shared__ double term[kLossThreads];
  __shared__ bool use[kLossThreads];
  const int64_t b = blockIdx.x;
  const double perClass = smoothing / static_cast<double>(classes);
  int64_t begin, end;
  blockRows(n, kReductionBlocks, b, begin, end);
  double acc = 0;
  for (int64_t chunk = begin; chunk < end; chunk += kLossThreads) {
    const int64_t i = chunk + threadIdx.x;
    use[threadIdx.x] = i < end && counted(labels, mask, i);
    if (use[threadIdx.x]) {
      const int32_t y = labels[i];
      term[threadIdx.x] =
          kernel::crossEntropyTerm(logits + i * classes, classes, y, smoothing,
                                   perClass, classWeight[y]);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      const int64_t rows =
          end - chunk < kLossThreads ? end - chunk : int64_t{kLossThreads};
      for (int64_t k = 0; k < rows; k += kLossChunkRows) {
        const int64_t stop =
            k + kLossChunkRows < rows ? k + kLossChunkRows : rows;
        double chunk = 0;
        for (int64_t j = k; j < stop; ++j)
          if (use[j])
            chunk += term[j];
        acc += chunk;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    lossPartial[b] = acc;
}

__global__ void lossTotal(const double *lossPartial, const LossSummary *summary,
                          float *loss) {
  if (firstItem() != 0)
    return;
  double sum = 0;
  for (int64_t b = 0; b < kReductionBlocks; ++b)
    sum += lossPartial[b];
  *loss = summary->weightSum > 0 ? static_cast<float>(sum / summary->weightSum)
                                 : 0.0f;
}

/// A thread per row: softmax minus the smoothed target, scaled by the
/// cotangent and the row's class weight; uncounted rows get 0.
__global__ void lossGradRows(const float *logits, const int32_t *labels,
                             const uint8_t *mask, const float *lossGrad,
                             int64_t n, int64_t classes, double smoothing,
                             const double *classWeight,
                             const LossSummary *summary, float *dlogits) {
  const double perClass = smoothing / static_cast<double>(classes);
  for (int64_t i = firstItem(); i < n; i += itemStride())
    kernel::crossEntropyGradNode(logits, labels, mask, i, classes, smoothing,
                                 perClass, *lossGrad, classWeight,
                                 summary->weightSum, dlogits);
}

/// Bytes rounded up to keep every region of the scratch aligned.
size_t aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

/// Class counts and weights on the device; waits for them and returns
/// GNNRT_ERR_BAD_ARGUMENT when a counted label is >= classes.
int lossWeights(gnnrt_cuda *ctx, const int32_t *labels, const uint8_t *mask,
                int64_t n, int64_t classes, int classWeights,
                LossScratch &out) {
  // classes > 2^40 cannot be counted anyway; the CPU kernel fails its
  // allocation there too.
  GNNRT_CHECK(classes <= (int64_t{1} << 40), GNNRT_ERR_OUT_OF_MEMORY);
  const size_t badBytes = aligned(sizeof(int32_t));
  const size_t classBytes = aligned(static_cast<size_t>(classes) * 8);
  const size_t summaryBytes = aligned(sizeof(LossSummary));
  const size_t partialBytes = aligned(kReductionBlocks * sizeof(double));
  void *buffer = nullptr;
  GNNRT_RETURN_IF_ERROR(gnnrt::cuda::scratch(
      ctx, badBytes + 2 * classBytes + summaryBytes + partialBytes, &buffer));
  char *at = static_cast<char *>(buffer);
  out.bad = reinterpret_cast<int32_t *>(at);
  at += badBytes;
  out.classWeight = reinterpret_cast<double *>(at);
  at += classBytes;
  out.classCount = reinterpret_cast<int64_t *>(at);
  at += classBytes;
  out.summary = reinterpret_cast<LossSummary *>(at);
  at += summaryBytes;
  out.lossPartial = reinterpret_cast<double *>(at);

  GNNRT_CUDA_CHECK(cudaMemsetAsync(out.bad, 0, sizeof(int32_t), ctx->compute));
  GNNRT_CUDA_CHECK(cudaMemsetAsync(
      out.classCount, 0, static_cast<size_t>(classes) * 8, ctx->compute));
  GNNRT_RETURN_IF_ERROR(
      launch(ctx, "countLabels", n, countLabels, labels, mask, n, classes,
             reinterpret_cast<unsigned long long *>(out.classCount), out.bad));
  GNNRT_RETURN_IF_ERROR(launchBlocks(
      ctx, "classWeightsKernel", 1, 1, classWeightsKernel, out.classCount,
      out.bad, classes, classWeights == GNNRT_CLASS_WEIGHTS_BALANCED,
      out.classWeight, out.summary));
  int32_t bad = 0;
  GNNRT_CUDA_CHECK(cudaMemcpyAsync(&bad, &out.summary->badLabel, sizeof(bad),
                                   cudaMemcpyDeviceToHost, ctx->compute));
  GNNRT_CUDA_CHECK(cudaStreamSynchronize(ctx->compute));
  GNNRT_CHECK(!bad, GNNRT_ERR_BAD_ARGUMENT);
  return GNNRT_OK;
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

using kernel::AdamConstants;

/// kernel::adamElement over the elements; outputs may alias inputs.
__global__ void adamKernel(const float *param, const float *grad,
                           const float *m, const float *v, int64_t n,
                           AdamConstants c, float *newParam, float *newM,
                           float *newV) {
  for (int64_t i = firstItem(); i < n; i += itemStride())
    kernel::adamElement(i, param, grad, m, v, c, newParam, newM, newV);
}

__global__ void sgdKernel(const float *param, const float *grad,
                          const float *momentumBuffer, int64_t n, double lr,
                          double momentum, double weightDecay, bool nesterov,
                          float *newParam, float *newMomentumBuffer) {
  for (int64_t i = firstItem(); i < n; i += itemStride())
    kernel::sgdElement(i, param, grad, momentumBuffer, lr, momentum,
                       weightDecay, nesterov, newParam, newMomentumBuffer);
}

} // namespace

extern "C" {

int gnnrt_cuda_init(int kind, uint64_t seed, uint64_t stream, int64_t fan_in,
                    int64_t fan_out, int64_t n, float *y) {
  // The bound is computed on the host by the CPU's code: the same bits.
  double bound;
  if (int status = kernel::initArgs(kind, fan_in, fan_out, n, y, bound))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  if (kind == GNNRT_INIT_ZEROS || kind == GNNRT_INIT_ONES)
    return launch(ctx, "fillKernel", n, fillKernel,
                  kind == GNNRT_INIT_ONES ? 1.0f : 0.0f, n, y);
  return launch(ctx, "initUniformKernel", n, initUniformKernel, seed, stream,
                bound, n, y);
}

int gnnrt_cuda_cross_entropy(const float *logits, const int32_t *labels,
                             const uint8_t *mask, int64_t n, int64_t classes,
                             double label_smoothing, int class_weights,
                             float *loss) {
  GNNRT_CHECK(loss, GNNRT_ERR_NULL_POINTER);
  if (int status = kernel::lossArgs(logits, labels, n, classes, label_smoothing,
                                    class_weights))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  LossScratch work;
  GNNRT_RETURN_IF_ERROR(
      lossWeights(ctx, labels, mask, n, classes, class_weights, work));
  GNNRT_RETURN_IF_ERROR(launchBlocks(ctx, "lossBlocks", kReductionBlocks,
                                     kLossThreads, lossBlocks, logits, labels,
                                     mask, n, classes, label_smoothing,
                                     work.classWeight, work.lossPartial));
  return launchBlocks(ctx, "lossTotal", 1, 1, lossTotal, work.lossPartial,
                      work.summary, loss);
}

int gnnrt_cuda_cross_entropy_grad(const float *logits, const int32_t *labels,
                                  const uint8_t *mask, const float *loss_grad,
                                  int64_t n, int64_t classes,
                                  double label_smoothing, int class_weights,
                                  float *dlogits) {
  GNNRT_CHECK(loss_grad, GNNRT_ERR_NULL_POINTER);
  if (int status = kernel::lossArgs(logits, labels, n, classes, label_smoothing,
                                    class_weights))
    return status;
  // The CPU checks dlogits after the labels; here the labels are checked on
  // the device, so a null dlogits is reported first (only a call with both
  // faults sees the difference).
  GNNRT_CHECK(present(dlogits, n * classes), GNNRT_ERR_NULL_POINTER);
  GNNRT_CURRENT_CONTEXT(ctx);
  LossScratch work;
  GNNRT_RETURN_IF_ERROR(
      lossWeights(ctx, labels, mask, n, classes, class_weights, work));
  return launch(ctx, "lossGradRows", n, lossGradRows, logits, labels, mask,
                loss_grad, n, classes, label_smoothing, work.classWeight,
                work.summary, dlogits);
}

int gnnrt_cuda_adam(const float *param, const float *grad, const float *m,
                    const float *v, int64_t n, int64_t step, double lr,
                    double beta1, double beta2, double eps, double weight_decay,
                    int decoupled, float *new_param, float *new_m,
                    float *new_v) {
  if (int status =
          kernel::adamArgs(param, grad, m, v, n, step, lr, beta1, beta2, eps,
                           weight_decay, new_param, new_m, new_v))
    return status;
  GNNRT_CURRENT_CONTEXT(ctx);
  const AdamConstants c = kernel::adamConstants(step, lr, beta1, beta2, eps,
                                                weight_decay, decoupled != 0);
  return launch(ctx, "adamKernel", n, adamKernel, param, grad, m, v, n, c,
                new_param, new_m, new_v);
}

int gnnrt_cuda_sgd(const float *param, const float *grad,
                   const float *momentum_buffer, int64_t n, double lr,
                   double momentum, double weight_decay, int nesterov,
                   float *new_param, float *new_momentum_buffer) {
  if (int status =
          kernel::sgdArgs(param, grad, momentum_buffer, n, lr, momentum,
                          weight_decay, new_param, new_momentum_buffer))
    return status;
  const bool useMomentum = momentum > 0;
  GNNRT_CURRENT_CONTEXT(ctx);
  // With momentum and n = 0 the buffers may be null: the kernel then has no
  // element to read them for.
  return launch(ctx, "sgdKernel", n, sgdKernel, param, grad,
                useMomentum ? momentum_buffer : nullptr, n, lr, momentum,
                weight_decay, nesterov != 0, new_param,
                useMomentum ? new_momentum_buffer : nullptr);
}

} // extern "C"
