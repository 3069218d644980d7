//===- Metrics.cpp - Classification metrics as scikit-learn computes them -===//
//
// Evaluation runs on the host once per epoch, so these allocate O(n)
// scratch (unlike the kernels) and sort. Definitions follow scikit-learn so
// numbers can be compared with a Python baseline: macro averages over the
// labels that occur, AUROC from the trapezoidal ROC curve (a tied
// positive/negative pair counts one half) and average precision as a sum
// over distinct thresholds, never interpolated.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <numeric>
#include <vector>

using namespace gnnrt::cpu;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// \p scores with NaN (a diverged model) replaced by -inf: sorting needs a
/// strict weak order, and NaN ranks last rather than poisoning the area.
std::vector<double> orderable(const double *scores, int64_t n) {
  std::vector<double> out(scores, scores + n);
  for (double &s : out)
    if (std::isnan(s))
      s = -std::numeric_limits<double>::infinity();
  return out;
}

/// Sample indices in decreasing score order, ties by index (nothing below
/// depends on the order within a tie; the tie-break only makes the
/// comparison a total order).
std::vector<int64_t> byScoreDescending(const double *scores, int64_t n) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
  });
  return order;
}

/// ROC AUC of scores without NaN, by ranks (Mann-Whitney U): with tied groups
/// given their average rank, `(sum of positive ranks - P (P + 1) / 2) / (P N)`
/// equals the area under scikit-learn's trapezoidal ROC curve, ties included.
double auroc(const double *scores, const uint8_t *positive, int64_t n) {
  std::vector<int64_t> order = byScoreDescending(scores, n);
  double positives = 0, rankSum = 0;
  for (int64_t lo = 0; lo < n;) {
    int64_t hi = lo;
    double groupPositives = 0;
    while (hi < n && scores[order[hi]] == scores[order[lo]])
      groupPositives += positive[order[hi++]] != 0;
    // Ranks ascend with the score: positions lo..hi-1 of the descending
    // order hold ranks n-hi+1 .. n-lo; their average is the group's rank.
    const double rank =
        (static_cast<double>(n - hi + 1) + static_cast<double>(n - lo)) / 2.0;
    rankSum += groupPositives * rank;
    positives += groupPositives;
    lo = hi;
  }
  const double negatives = static_cast<double>(n) - positives;
  if (positives == 0 || negatives == 0)
    return kNaN;
  return (rankSum - positives * (positives + 1) / 2) / (positives * negatives);
}

/// scikit-learn's average_precision_score of scores without NaN: `sum_k (R_k -
/// R_{k-1}) P_k` over the distinct scores taken as thresholds in decreasing
/// order, a tie being one threshold.
double averagePrecision(const double *scores, const uint8_t *positive,
                        int64_t n) {
  double total = 0;
  for (int64_t i = 0; i < n; ++i)
    total += positive[i] != 0;
  if (total == 0)
    return kNaN;
  std::vector<int64_t> order = byScoreDescending(scores, n);
  double tp = 0, seen = 0, recall = 0, ap = 0;
  for (int64_t lo = 0; lo < n;) {
    int64_t hi = lo;
    while (hi < n && scores[order[hi]] == scores[order[lo]])
      tp += positive[order[hi++]] != 0;
    seen = static_cast<double>(hi);
    const double r = tp / total;
    ap += (r - recall) * (tp / seen);
    recall = r;
    lo = hi;
  }
  return ap;
}

/// The macro mean of \p values over the entries where \p use holds; NaN
/// when there are none.
double macro(const std::vector<double> &values, const std::vector<bool> &use) {
  double sum = 0, count = 0;
  for (size_t c = 0; c < values.size(); ++c)
    if (use[c]) {
      sum += values[c];
      ++count;
    }
  return count > 0 ? sum / count : kNaN;
}

int classification(const float *logits, const int32_t *labels,
                   const uint8_t *mask, int64_t n, int64_t classes,
                   bool ranking, gnnrt_metrics *out) {
  std::vector<int64_t> nodes;
  for (int64_t i = 0; i < n; ++i) {
    if ((mask && !mask[i]) || labels[i] < 0)
      continue;
    GNNRT_CHECK(labels[i] < classes, GNNRT_ERR_BAD_ARGUMENT);
    nodes.push_back(i);
  }
  const int64_t m = static_cast<int64_t>(nodes.size());
  gnnrt_metrics r{m, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN};
  if (m == 0) {
    *out = r;
    return GNNRT_OK;
  }
  // Softmax probabilities: one-vs-rest AUROC ranks one class's probability
  // across nodes, which is not the ranking of its raw logit.
  std::vector<double> prob(static_cast<size_t>(m * classes));
  std::vector<double> tp(classes, 0), predicted(classes, 0), actual(classes, 0);
  double correct = 0, loss = 0;
  for (int64_t k = 0; k < m; ++k) {
    const float *row = logits + nodes[k] * classes;
    int64_t best = 0;
    for (int64_t c = 1; c < classes; ++c)
      if (row[c] > row[best])
        best = c;
    double sum = 0;
    for (int64_t c = 0; c < classes; ++c)
      sum += prob[k * classes + c] = std::exp(static_cast<double>(row[c]) -
                                              static_cast<double>(row[best]));
    for (int64_t c = 0; c < classes; ++c)
      prob[k * classes + c] /= sum;
    const int32_t y = labels[nodes[k]];
    // log(sum_c e^(z_c - z_max)) - (z_y - z_max): no exp overflows.
    loss += std::log(sum) -
            (static_cast<double>(row[y]) - static_cast<double>(row[best]));
    predicted[best] += 1;
    actual[y] += 1;
    if (best == y) {
      tp[y] += 1;
      correct += 1;
    }
  }
  r.accuracy = correct / static_cast<double>(m);
  r.cross_entropy = loss / static_cast<double>(m);

  std::vector<double> precision(classes), recall(classes), f1(classes);
  std::vector<bool> occurs(classes);
  for (int64_t c = 0; c < classes; ++c) {
    occurs[c] = predicted[c] > 0 || actual[c] > 0;
    precision[c] = predicted[c] > 0 ? tp[c] / predicted[c] : 0.0;
    recall[c] = actual[c] > 0 ? tp[c] / actual[c] : 0.0;
    // 2 TP / (2 TP + FP + FN), scikit-learn's form of 2PR / (P + R).
    const double denom = predicted[c] + actual[c];
    f1[c] = denom > 0 ? 2 * tp[c] / denom : 0.0;
  }
  r.precision = macro(precision, occurs);
  r.recall = macro(recall, occurs);
  r.f1 = macro(f1, occurs);
  if (!ranking) {
    *out = r;
    return GNNRT_OK;
  }

  std::vector<double> aurocs(classes), aps(classes), scores(m);
  std::vector<uint8_t> positive(m);
  std::vector<bool> hasAuroc(classes), hasAp(classes);
  for (int64_t c = 0; c < classes; ++c) {
    for (int64_t k = 0; k < m; ++k) {
      scores[k] = std::isnan(prob[k * classes + c])
                      ? -std::numeric_limits<double>::infinity()
                      : prob[k * classes + c];
      positive[k] = labels[nodes[k]] == c;
    }
    aurocs[c] = auroc(scores.data(), positive.data(), m);
    aps[c] = averagePrecision(scores.data(), positive.data(), m);
    hasAuroc[c] = !std::isnan(aurocs[c]);
    hasAp[c] = !std::isnan(aps[c]);
  }
  r.auroc = macro(aurocs, hasAuroc);
  r.aupr = macro(aps, hasAp);
  *out = r;
  return GNNRT_OK;
}

} // namespace

extern "C" {

int gnnrt_cpu_metrics_classification(const float *logits, const int32_t *labels,
                                     const uint8_t *mask, int64_t n,
                                     int64_t classes, gnnrt_metrics *out) {
  return gnnrt_cpu_metrics_classification_select(logits, labels, mask, n,
                                                 classes, 1, out);
}

int gnnrt_cpu_metrics_classification_select(const float *logits,
                                            const int32_t *labels,
                                            const uint8_t *mask, int64_t n,
                                            int64_t classes, int ranking,
                                            gnnrt_metrics *out) {
  int64_t count;
  GNNRT_CHECK(classes >= 1 && mulSize(n, classes, count), GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(out && present(logits, count) && present(labels, n),
              GNNRT_ERR_NULL_POINTER);
  // Exceptions must not cross the C ABI.
  try {
    return classification(logits, labels, mask, n, classes, ranking != 0,
                           out);
  } catch (const std::bad_alloc &) {
    return GNNRT_ERR_OUT_OF_MEMORY;
  }
}

int gnnrt_cpu_metrics_auroc(const double *scores, const uint8_t *positive,
                            int64_t n, double *result) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(result && present(scores, n) && present(positive, n),
              GNNRT_ERR_NULL_POINTER);
  try {
    *result = auroc(orderable(scores, n).data(), positive, n);
    return GNNRT_OK;
  } catch (const std::bad_alloc &) {
    return GNNRT_ERR_OUT_OF_MEMORY;
  }
}

int gnnrt_cpu_metrics_average_precision(const double *scores,
                                        const uint8_t *positive, int64_t n,
                                        double *result) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(result && present(scores, n) && present(positive, n),
              GNNRT_ERR_NULL_POINTER);
  try {
    *result = averagePrecision(orderable(scores, n).data(), positive, n);
    return GNNRT_OK;
  } catch (const std::bad_alloc &) {
    return GNNRT_ERR_OUT_OF_MEMORY;
  }
}

} // extern "C"
