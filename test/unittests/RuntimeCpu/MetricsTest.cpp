//===- MetricsTest.cpp - Classification metrics against hand values -------===//
//
// Every expected value is worked out in the comments from scikit-learn's
// definitions: macro averages over the labels that occur as a label or a
// prediction, AUROC as the trapezoidal area (a tied positive/negative pair
// counts 1/2), average precision as sum_k (R_k - R_{k-1}) P_k over distinct
// thresholds.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

TEST(Metrics, BinaryAurocWithTies) {
  // Positives score 0.9, 0.8, 0.4; negatives 0.8, 0.4, 0.1. Over the 9
  // positive/negative pairs: 0.9 beats all three (3); the positive 0.8 ties
  // the negative 0.8 (1/2) and beats 0.4 and 0.1 (2); the positive 0.4 loses
  // to 0.8, ties 0.4 (1/2) and beats 0.1 (1). AUROC = 7 / 9.
  std::vector<double> scores = {0.9, 0.8, 0.8, 0.4, 0.4, 0.1};
  std::vector<uint8_t> positive = {1, 1, 0, 1, 0, 0};
  double auroc = 0;
  ASSERT_EQ(gnnrt_cpu_metrics_auroc(scores.data(), positive.data(), 6, &auroc),
            GNNRT_OK);
  EXPECT_NEAR(auroc, 7.0 / 9.0, 1e-15);
  // Reversing the order of the samples changes nothing.
  std::vector<double> rs(scores.rbegin(), scores.rend());
  std::vector<uint8_t> rp(positive.rbegin(), positive.rend());
  ASSERT_EQ(gnnrt_cpu_metrics_auroc(rs.data(), rp.data(), 6, &auroc), GNNRT_OK);
  EXPECT_NEAR(auroc, 7.0 / 9.0, 1e-15);
}

TEST(Metrics, BinaryAveragePrecisionTreatsATieAsOneThreshold) {
  // Same samples, P = 3. Thresholds in decreasing order:
  //   0.9: TP 1 of 1 predicted: P = 1,   R = 1/3 -> (1/3 - 0) * 1   = 1/3
  //   0.8: TP 2 of 3 predicted: P = 2/3, R = 2/3 -> (1/3) * (2/3)   = 2/9
  //   0.4: TP 3 of 5 predicted: P = 3/5, R = 1   -> (1/3) * (3/5)   = 1/5
  //   0.1: R stays 1                             -> 0
  // AP = 1/3 + 2/9 + 1/5 = 34/45. (Splitting the 0.8 tie with the positive
  // first would give 1/3 + 1/3 + 1/5 instead.)
  std::vector<double> scores = {0.9, 0.8, 0.8, 0.4, 0.4, 0.1};
  std::vector<uint8_t> positive = {1, 0, 1, 1, 0, 0};
  double ap = 0;
  ASSERT_EQ(gnnrt_cpu_metrics_average_precision(scores.data(), positive.data(),
                                                6, &ap),
            GNNRT_OK);
  EXPECT_NEAR(ap, 34.0 / 45.0, 1e-15);
}

TEST(Metrics, BinaryUndefinedCasesAreNaN) {
  std::vector<double> scores = {0.3, 0.7};
  std::vector<uint8_t> none = {0, 0}, all = {1, 1};
  double v = 0;
  ASSERT_EQ(gnnrt_cpu_metrics_auroc(scores.data(), all.data(), 2, &v),
            GNNRT_OK);
  EXPECT_TRUE(std::isnan(v));
  ASSERT_EQ(
      gnnrt_cpu_metrics_average_precision(scores.data(), none.data(), 2, &v),
      GNNRT_OK);
  EXPECT_TRUE(std::isnan(v));
  // All positives: every threshold has precision 1.
  ASSERT_EQ(
      gnnrt_cpu_metrics_average_precision(scores.data(), all.data(), 2, &v),
      GNNRT_OK);
  EXPECT_DOUBLE_EQ(v, 1.0);
}

TEST(Metrics, MulticlassByHand) {
  // Four classes; class 3's logit is -5 everywhere, so it is never predicted
  // and never a label: it must drop out of every macro average. With
  // l2 = ln 2, l3 = ln 3, l4 = ln 4, softmax over the first three columns is
  // (to the 0.5% that the -5 column perturbs, which no ranking below is
  // near):
  //   node label logits            probs              prediction
  //   n0   0     [l4, 0, 0]        [2/3, 1/6, 1/6]    0
  //   n1   1     [l2, l2, 0]       [2/5, 2/5, 1/5]    0 (first maximum)
  //   n2   1     [0, l3, 0]        [1/5, 3/5, 1/5]    1
  //   n3   2     [0, 0, l4]        [1/6, 1/6, 2/3]    2
  //   n4   2     [0, l4, 0]        [1/6, 2/3, 1/6]    1
  //   n5   0     [l2, 0, 0]        [1/2, 1/4, 1/4]    0
  //   n6   0     [0, 0, 9]         masked out
  //   n7  -1     [9, 0, 0]         unlabelled
  // n0 and n4 have the same entries in the same places up to a swap of
  // columns 0 and 1, so their class-2 probabilities tie exactly.
  const float l2 = std::log(2.0f), l3 = std::log(3.0f), l4 = std::log(4.0f);
  std::vector<float> logits = {l4, 0,  0, -5, l2, l2, 0,  -5, 0,  l3, 0,
                               -5, 0,  0, l4, -5, 0,  l4, 0,  -5, l2, 0,
                               0,  -5, 0, 0,  9,  -5, 9,  0,  0,  -5};
  std::vector<int32_t> labels = {0, 1, 1, 2, 2, 0, 0, -1};
  std::vector<uint8_t> mask = {1, 1, 1, 1, 1, 1, 0, 1};
  gnnrt_metrics m;
  ASSERT_EQ(gnnrt_cpu_metrics_classification(logits.data(), labels.data(),
                                             mask.data(), 8, 4, &m),
            GNNRT_OK);
  EXPECT_EQ(m.count, 6);
  // Correct: n0, n2, n3, n5.
  EXPECT_DOUBLE_EQ(m.accuracy, 4.0 / 6.0);
  // Per class (TP, predicted, actual): 0: (2, 3, 2), 1: (1, 2, 2),
  // 2: (1, 1, 2); class 3 neither occurs nor is predicted.
  // Precision: (2/3 + 1/2 + 1) / 3 = 13/18.
  EXPECT_DOUBLE_EQ(m.precision, 13.0 / 18.0);
  // Recall: (1 + 1/2 + 1/2) / 3 = 2/3.
  EXPECT_DOUBLE_EQ(m.recall, 2.0 / 3.0);
  // F1 = 2TP / (predicted + actual): 4/5, 2/4, 2/3; mean 59/90.
  EXPECT_DOUBLE_EQ(m.f1, 59.0 / 90.0);
  // AUROC, one vs rest, over the positive/negative pairs:
  //   class 0: positives 2/3, 1/2 beat all four negatives: 8/8 = 1.
  //   class 1: positives 2/5, 3/5 each beat 1/6, 1/6, 1/4 and lose to
  //            n4's 2/3: 6/8 = 3/4.
  //   class 2: positive 2/3 beats all four (4); positive n4 at 1/6 ties
  //            n0's 1/6 (1/2) and loses to 1/5, 1/5, 1/4: 4.5/8 = 9/16.
  //   class 3: no positive, excluded.
  // Macro: (1 + 3/4 + 9/16) / 3 = 37/48.
  EXPECT_NEAR(m.auroc, 37.0 / 48.0, 1e-12);
  // Average precision:
  //   class 0: the two positives rank first: 1.
  //   class 1: n4 (neg) 2/3, n2 (pos) 3/5: P 1/2, R 1/2 -> 1/4;
  //            n1 (pos) 2/5: P 2/3, R 1 -> 1/2 * 2/3 = 1/3. AP = 7/12.
  //   class 2: n3 (pos) 2/3: P 1, R 1/2 -> 1/2; then 1/4, 1/5, 1/5
  //            (negatives); the tie at 1/6 (n0 neg, n4 pos) is one
  //            threshold with all 6 predicted: P 2/6, R 1 -> 1/2 * 1/3.
  //            AP = 1/2 + 1/6 = 2/3.
  // Macro: (1 + 7/12 + 2/3) / 3 = 3/4.
  EXPECT_NEAR(m.aupr, 0.75, 1e-12);
  // Cross-entropy, -log softmax[label], over all four columns (the -5s
  // count as e = e^-5): n0 log(6+e) - log 4, n1 log(5+e) - log 2, n2
  // log(5+e) - log 3, n3 log(6+e) - log 4, n4 log(6+e), n5 log(4+e) -
  // log 2; their mean. The logits are float roundings of the logs, a few
  // 1e-8 off, hence the tolerance.
  const double e = std::exp(-5.0);
  const double ce =
      (3 * std::log(6 + e) + 2 * std::log(5 + e) + std::log(4 + e) -
       2 * std::log(4.0) - 2 * std::log(2.0) - std::log(3.0)) /
      6;
  EXPECT_NEAR(m.cross_entropy, ce, 1e-6);
}

TEST(Metrics, SelectSkipsOnlyTheRankingMetrics) {
  // Per-epoch validation asks for the ranking metrics only when the
  // program shows them: the rest must be the same bits, the skipped ones
  // NaN, and asking for them must give gnnrt_cpu_metrics_classification's.
  std::vector<float> logits = {2, 0, 1, 0, 3, 1, 0.5f, 0.5f, 2, 1, 0, 4};
  std::vector<int32_t> labels = {0, 1, 2, 2};
  gnnrt_metrics all, without, with;
  ASSERT_EQ(gnnrt_cpu_metrics_classification(logits.data(), labels.data(),
                                             nullptr, 4, 3, &all),
            GNNRT_OK);
  ASSERT_EQ(gnnrt_cpu_metrics_classification_select(
                logits.data(), labels.data(), nullptr, 4, 3, 0, &without),
            GNNRT_OK);
  ASSERT_EQ(gnnrt_cpu_metrics_classification_select(
                logits.data(), labels.data(), nullptr, 4, 3, 1, &with),
            GNNRT_OK);
  EXPECT_EQ(without.count, all.count);
  EXPECT_EQ(without.accuracy, all.accuracy);
  EXPECT_EQ(without.precision, all.precision);
  EXPECT_EQ(without.recall, all.recall);
  EXPECT_EQ(without.f1, all.f1);
  EXPECT_TRUE(std::isnan(without.auroc));
  EXPECT_TRUE(std::isnan(without.aupr));
  EXPECT_FALSE(std::isnan(all.auroc));
  EXPECT_EQ(with.auroc, all.auroc);
  EXPECT_EQ(with.aupr, all.aupr);
  EXPECT_EQ(gnnrt_cpu_metrics_classification_select(
                nullptr, labels.data(), nullptr, 4, 3, 0, &without),
            GNNRT_ERR_NULL_POINTER);
}

TEST(Metrics, NullMaskMeansEveryLabelledNodeAndEmptyIsNaN) {
  // Two nodes, both right: accuracy 1, and each class has one positive and
  // one negative ranked perfectly.
  std::vector<float> logits = {2, 0, 0, 2};
  std::vector<int32_t> labels = {0, 1};
  gnnrt_metrics m;
  ASSERT_EQ(gnnrt_cpu_metrics_classification(logits.data(), labels.data(),
                                             nullptr, 2, 2, &m),
            GNNRT_OK);
  EXPECT_EQ(m.count, 2);
  EXPECT_DOUBLE_EQ(m.accuracy, 1.0);
  EXPECT_DOUBLE_EQ(m.f1, 1.0);
  EXPECT_DOUBLE_EQ(m.auroc, 1.0);
  EXPECT_DOUBLE_EQ(m.aupr, 1.0);

  std::vector<uint8_t> none = {0, 0};
  ASSERT_EQ(gnnrt_cpu_metrics_classification(logits.data(), labels.data(),
                                             none.data(), 2, 2, &m),
            GNNRT_OK);
  EXPECT_EQ(m.count, 0);
  EXPECT_TRUE(std::isnan(m.accuracy));
  EXPECT_TRUE(std::isnan(m.auroc));
}

TEST(Metrics, RejectsLabelsOutOfRange) {
  std::vector<float> logits = {1, 0, 0, 1};
  std::vector<int32_t> labels = {0, 2};
  gnnrt_metrics m;
  EXPECT_EQ(gnnrt_cpu_metrics_classification(logits.data(), labels.data(),
                                             nullptr, 2, 2, &m),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_metrics_classification(logits.data(), labels.data(),
                                             nullptr, 2, 2, nullptr),
            GNNRT_ERR_NULL_POINTER);
}

} // namespace
