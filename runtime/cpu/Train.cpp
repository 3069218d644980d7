//===- Train.cpp - Loss, optimizers and parameter initialisation ----------===//
//
// fp32 storage, fp64 arithmetic: these kernels are memory-bound (the
// optimizers) or tiny (the loss, per row), so the extra precision is free,
// and the loss sum over many nodes is taken in fixed blocks (Common.h) so
// it does not change with the thread count.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "gnnrt/Philox.h"

#include <algorithm>
#include <cmath>

using namespace gnnrt::cpu;

namespace {

/// What the loss and its gradient share: each class's weight and the sum of
/// the weights of the counted nodes.
struct LossWeights {
  std::unique_ptr<double[]> classWeight;
  double weightSum = 0;
};

using kernel::counted;

int lossWeights(const float *logits, const int32_t *labels, const uint8_t *mask,
                int64_t n, int64_t classes, double smoothing, int classWeights,
                LossWeights &out) {
  if (int status =
          kernel::lossArgs(logits, labels, n, classes, smoothing, classWeights))
    return status;
  auto perClass = scratch<int64_t>(classes);
  out.classWeight = scratch<double>(classes);
  GNNRT_CHECK(perClass && out.classWeight, GNNRT_ERR_OUT_OF_MEMORY);
  for (int64_t c = 0; c < classes; ++c)
    perClass[c] = 0;
  // Serial: one integer pass, which also validates the labels before any
  // output is written.
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!counted(labels, mask, i))
      continue;
    GNNRT_CHECK(labels[i] < classes, GNNRT_ERR_BAD_ARGUMENT);
    ++perClass[labels[i]];
    ++total;
  }
  out.weightSum = 0;
  for (int64_t c = 0; c < classes; ++c) {
    // scikit-learn's "balanced": n / (C n_c).
    double w = 1.0;
    if (classWeights == GNNRT_CLASS_WEIGHTS_BALANCED)
      w = perClass[c]
              ? static_cast<double>(total) / (static_cast<double>(classes) *
                                              static_cast<double>(perClass[c]))
              : 0.0;
    out.classWeight[c] = w;
    out.weightSum += w * static_cast<double>(perClass[c]);
  }
  return GNNRT_OK;
}

using kernel::AdamConstants;

/// Adam on elements [begin, end) (kernel::adamElement). Compiled twice, for
/// baseline x86-64 and for AVX-512 (picked at load time): the loop is
/// element-wise and uses only correctly rounded operations (no
/// contraction: -ffp-contract=off), so both give the same bits, the wider
/// one with eight doubles per instruction.
GNNRT_VECTOR_CLONES void
adamRange(int64_t begin, int64_t end, const float *__restrict param,
          const float *__restrict grad, const float *__restrict m,
          const float *__restrict v, const AdamConstants &c,
          float *__restrict new_param, float *__restrict new_m,
          float *__restrict new_v) {
  for (int64_t i = begin; i < end; ++i)
    kernel::adamElement(i, param, grad, m, v, c, new_param, new_m, new_v);
}

} // namespace

extern "C" {

int gnnrt_cpu_cross_entropy(const float *logits, const int32_t *labels,
                            const uint8_t *mask, int64_t n, int64_t classes,
                            double label_smoothing, int class_weights,
                            float *loss) {
  GNNRT_CHECK(loss, GNNRT_ERR_NULL_POINTER);
  LossWeights lw;
  if (int status = lossWeights(logits, labels, mask, n, classes,
                               label_smoothing, class_weights, lw))
    return status;
  const double s = label_smoothing, perClass = s / static_cast<double>(classes);
  const double *w = lw.classWeight.get();
  double partial[kReductionBlocks];
#pragma omp parallel for schedule(dynamic, 1) if (worthThreads(n * classes))
  for (int64_t b = 0; b < kReductionBlocks; ++b) {
    int64_t begin, end;
    blockRows(n, b, begin, end);
    double acc = 0;
    for (int64_t from = begin; from < end; from += kLossChunkRows) {
      const int64_t to = std::min(end, from + kLossChunkRows);
      double chunk = 0;
      for (int64_t i = from; i < to; ++i) {
        if (!counted(labels, mask, i))
          continue;
        const int32_t y = labels[i];
        chunk += kernel::crossEntropyTerm(logits + i * classes, classes, y, s,
                                          perClass, w[y]);
      }
      acc += chunk;
    }
    partial[b] = acc;
  }
  double sum = 0;
  for (int64_t b = 0; b < kReductionBlocks; ++b)
    sum += partial[b];
  *loss = lw.weightSum > 0 ? static_cast<float>(sum / lw.weightSum) : 0.0f;
  return GNNRT_OK;
}

int gnnrt_cpu_cross_entropy_grad(const float *logits, const int32_t *labels,
                                 const uint8_t *mask, const float *loss_grad,
                                 int64_t n, int64_t classes,
                                 double label_smoothing, int class_weights,
                                 float *dlogits) {
  GNNRT_CHECK(loss_grad, GNNRT_ERR_NULL_POINTER);
  LossWeights lw;
  if (int status = lossWeights(logits, labels, mask, n, classes,
                               label_smoothing, class_weights, lw))
    return status;
  GNNRT_CHECK(present(dlogits, n * classes), GNNRT_ERR_NULL_POINTER);
  const double s = label_smoothing, perClass = s / static_cast<double>(classes);
  const double *w = lw.classWeight.get();
  const double dl = *loss_grad;
#pragma omp parallel for schedule(static) if (worthThreads(n * classes))
  for (int64_t i = 0; i < n; ++i)
    kernel::crossEntropyGradNode(logits, labels, mask, i, classes, s, perClass,
                                 dl, w, lw.weightSum, dlogits);
  return GNNRT_OK;
}

int gnnrt_cpu_adam(const float *param, const float *grad, const float *m,
                   const float *v, int64_t n, int64_t step, double lr,
                   double beta1, double beta2, double eps, double weight_decay,
                   int decoupled, float *new_param, float *new_m,
                   float *new_v) {
  if (int status =
          kernel::adamArgs(param, grad, m, v, n, step, lr, beta1, beta2, eps,
                           weight_decay, new_param, new_m, new_v))
    return status;
  const AdamConstants c = kernel::adamConstants(step, lr, beta1, beta2, eps,
                                                weight_decay, decoupled != 0);
  forEachChunk(n, 4096, worthThreads(n), [&](int64_t begin, int64_t end) {
    adamRange(begin, end, param, grad, m, v, c, new_param, new_m, new_v);
  });
  return GNNRT_OK;
}

int gnnrt_cpu_sgd(const float *param, const float *grad,
                  const float *momentum_buffer, int64_t n, double lr,
                  double momentum, double weight_decay, int nesterov,
                  float *new_param, float *new_momentum_buffer) {
  if (int status =
          kernel::sgdArgs(param, grad, momentum_buffer, n, lr, momentum,
                          weight_decay, new_param, new_momentum_buffer))
    return status;
  // Without momentum the buffers are null (sgdArgs checked it).
#pragma omp parallel for schedule(static) if (worthThreads(n))
  for (int64_t i = 0; i < n; ++i)
    kernel::sgdElement(i, param, grad, momentum_buffer, lr, momentum,
                       weight_decay, nesterov != 0, new_param,
                       new_momentum_buffer);
  return GNNRT_OK;
}

int gnnrt_cpu_init(int kind, uint64_t seed, uint64_t stream, int64_t fan_in,
                   int64_t fan_out, int64_t n, float *y) {
  double bound;
  if (int status = kernel::initArgs(kind, fan_in, fan_out, n, y, bound))
    return status;
  if (kind == GNNRT_INIT_ZEROS || kind == GNNRT_INIT_ONES) {
    const float value = kind == GNNRT_INIT_ONES ? 1.0f : 0.0f;
    for (int64_t i = 0; i < n; ++i)
      y[i] = value;
    return GNNRT_OK;
  }
  // Once per parameter, so the per-element helper's redundant Philox
  // rounds (one block serves four elements) cost nothing that matters.
#pragma omp parallel for schedule(static) if (worthThreads(n / 4))
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<float>(
        (2.0 * gnnrt::initUniform(seed, stream, static_cast<uint64_t>(i)) -
         1.0) *
        bound);
  return GNNRT_OK;
}

} // extern "C"
