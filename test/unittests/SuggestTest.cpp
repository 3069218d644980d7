//===- SuggestTest.cpp - "did you mean" engine ----------------------------===//
#include "lang/Basic/Suggest.h"

#include <gtest/gtest.h>

using namespace gnnc;

namespace {
const llvm::StringRef kOps[] = {"gcn_conv",   "sage_conv", "gat_conv",
                                "graph_conv", "linear",    "relu"};

TEST(SuggestTest, OneEditAway) {
  EXPECT_EQ(closestMatch("gcn_cnv", kOps), "gcn_conv");
  EXPECT_EQ(closestMatch("linar", kOps), "linear");
}

TEST(SuggestTest, AdjacentSwapCostsOne) {
  const llvm::StringRef models[] = {"GCN", "GAT"};
  EXPECT_EQ(closestMatch("GNC", models), "GCN");
  const llvm::StringRef args[] = {"h", "out", "bias"};
  EXPECT_EQ(closestMatch("otu", args), "out");
}

TEST(SuggestTest, CaseOnlyDifference) {
  EXPECT_EQ(closestMatch("ReLU", kOps), "relu");
}

TEST(SuggestTest, PrefixOfLongerName) {
  EXPECT_EQ(closestMatch("sage", kOps), "sage_conv");
}

TEST(SuggestTest, NothingCloseEnough) {
  EXPECT_EQ(closestMatch("transformer", kOps), std::nullopt);
  EXPECT_EQ(closestMatch("", kOps), std::nullopt);
  EXPECT_EQ(didYouMean("zzz", kOps), "");
}

TEST(SuggestTest, ExactMatchIsNotASuggestion) {
  const llvm::StringRef one[] = {"relu"};
  EXPECT_EQ(closestMatch("relu", one), std::nullopt);
}

TEST(SuggestTest, EarlierCandidateWinsTies) {
  const llvm::StringRef ab[] = {"abc", "abd"};
  EXPECT_EQ(closestMatch("abx", ab), "abc");
}

TEST(SuggestTest, DidYouMeanFormatting) {
  EXPECT_EQ(didYouMean("gcn_cnv", kOps), "; did you mean 'gcn_conv'?");
}
} // namespace
