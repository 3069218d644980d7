//===- DatasetTest.cpp - Loading and validating datasets ------------------===//
//
// The shipped datasets against an independent reading of their files and
// the numbers of shared/data/README.md; one defect per copy of the tiny
// dataset (test/Inputs/tiny) against the message it must produce; host
// arrays against the files they were copied from.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Dataset.h"

#include "RuntimeTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <utility>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

TEST(DatasetTest, NormalizeRowsDividesEachRowByItsSum) {
  // Rows {1, 3}, {} (empty), {0, 0} (sums to 0: unchanged), {0.1, 0.2, 0.3}.
  gnnrt::SparseMatrix m;
  m.numRows = 4;
  m.numCols = 5;
  m.indptr = {0, 2, 2, 4, 7};
  m.indices = {0, 4, 1, 2, 0, 1, 3};
  m.values = {1.0f, 3.0f, 0.0f, -0.0f, 0.1f, 0.2f, 0.3f};
  m.normalizeRows();
  EXPECT_EQ(m.values[0], 0.25f);
  EXPECT_EQ(m.values[1], 0.75f);
  EXPECT_EQ(m.values[2], 0.0f);
  EXPECT_TRUE(std::signbit(m.values[3]));
  // The sum in double of the float inputs, each quotient rounded once.
  double sum = double(0.1f) + double(0.2f) + double(0.3f);
  EXPECT_EQ(m.values[4], static_cast<float>(double(0.1f) / sum));
  EXPECT_EQ(m.values[5], static_cast<float>(double(0.2f) / sum));
  EXPECT_EQ(m.values[6], static_cast<float>(double(0.3f) / sum));
  EXPECT_EQ(m.indices.size(), 7u); // The pattern is kept.
}

TEST(DatasetTest, TestMachineIsLittleEndian) {
  // The independent readers below memcpy the files' bytes.
  uint32_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  ASSERT_EQ(first, 1);
}

//===----------------------------------------------------------------------===//
// Shipped datasets
//===----------------------------------------------------------------------===//

struct Shipped {
  const char *dir;
  int64_t nodes, edges, features, classes, nnz, train, val, test;
  int64_t unlabeled; ///< README: only CiteSeer has unlabelled nodes.
  int64_t isolated;  ///< -1 where the README gives no number.
};

void PrintTo(const Shipped &s, std::ostream *os) { *os << s.dir; }

class ShippedTest : public ::testing::TestWithParam<Shipped> {};

TEST_P(ShippedTest, MatchesReadmeAndFiles) {
  const Shipped &s = GetParam();
  std::string dir = kDataDir + "/" + s.dir;
  Dataset d;
  DatasetError err;
  ASSERT_TRUE(loadDataset(dir, LoadOptions(), d, err)) << err.str();

  // Counts as the README states them.
  EXPECT_EQ(d.numNodes(), s.nodes);
  EXPECT_EQ(d.numEdges(), s.edges);
  EXPECT_EQ(d.numFeatures, s.features);
  EXPECT_EQ(d.numClasses, s.classes);
  EXPECT_EQ(d.features.nnz(), s.nnz);
  EXPECT_EQ(d.features.numRows, s.nodes);
  EXPECT_EQ(d.features.numCols, s.features);
  EXPECT_EQ(d.featureSource, FeatureSource::File);
  EXPECT_EQ(static_cast<int64_t>(d.trainIdx.size()), s.train);
  EXPECT_EQ(static_cast<int64_t>(d.valIdx.size()), s.val);
  EXPECT_EQ(static_cast<int64_t>(d.testIdx.size()), s.test);

  // The arrays equal an independent reading of the files.
  std::vector<int32_t> edges = readFile<int32_t>(dir + "/edges.bin");
  ASSERT_EQ(static_cast<int64_t>(edges.size()), 2 * s.edges);
  for (int64_t e = 0; e < s.edges; ++e) {
    ASSERT_EQ(d.graph.src[e], edges[2 * e]) << "edge " << e;
    ASSERT_EQ(d.graph.dst[e], edges[2 * e + 1]) << "edge " << e;
  }
  EXPECT_EQ(d.labels, readFile<int32_t>(dir + "/labels.bin"));
  EXPECT_EQ(d.trainIdx, readFile<int32_t>(dir + "/train_idx.bin"));
  EXPECT_EQ(d.valIdx, readFile<int32_t>(dir + "/val_idx.bin"));
  EXPECT_EQ(d.testIdx, readFile<int32_t>(dir + "/test_idx.bin"));
  EXPECT_EQ(d.features.indptr, readFile<int32_t>(dir + "/feat_indptr.bin"));
  EXPECT_EQ(d.features.indices, readFile<int32_t>(dir + "/feat_indices.bin"));
  EXPECT_EQ(d.features.values, readFile<float>(dir + "/feat_values.bin"));

  // Degree of node 0 by counting the raw pairs; symmetric: as often a
  // source as a destination.
  int64_t out0 = 0, in0 = 0;
  for (int64_t e = 0; e < s.edges; ++e) {
    out0 += edges[2 * e] == 0;
    in0 += edges[2 * e + 1] == 0;
  }
  std::vector<int32_t> deg = inDegrees(d.graph);
  EXPECT_EQ(deg[0], in0);
  EXPECT_EQ(in0, out0);
  EXPECT_GT(out0, 0);

  // Symmetry and no duplicates, checked with a std::set.
  std::set<std::pair<int32_t, int32_t>> pairs;
  for (int64_t e = 0; e < s.edges; ++e)
    pairs.insert({d.graph.src[e], d.graph.dst[e]});
  EXPECT_EQ(static_cast<int64_t>(pairs.size()), s.edges);
  for (const auto &p : pairs)
    ASSERT_TRUE(pairs.count({p.second, p.first}))
        << p.first << " -> " << p.second;

  // Label histogram: every node counted once; -1 exactly for the README's
  // unlabelled nodes.
  std::map<int32_t, int64_t> hist;
  for (int32_t y : d.labels)
    ++hist[y];
  int64_t sum = 0;
  for (const auto &kv : hist)
    sum += kv.second;
  EXPECT_EQ(sum, s.nodes);
  EXPECT_EQ(hist.count(-1) ? hist[-1] : 0, s.unlabeled);
  EXPECT_EQ(static_cast<int64_t>(hist.size()) - (s.unlabeled > 0), s.classes);
  if (s.isolated >= 0) {
    EXPECT_EQ(std::count(deg.begin(), deg.end(), 0), s.isolated);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shipped, ShippedTest,
    ::testing::Values(Shipped{"cora", 2708, 10556, 1433, 7, 49216, 140, 500,
                              1000, 0, 0},
                      Shipped{"citeseer", 3327, 9104, 3703, 6, 105165, 120, 500,
                              1000, 15, 48},
                      Shipped{"facebook", 22470, 341646, 4714, 4, 314583, 80,
                              500, 1000, 0, -1}),
    [](const ::testing::TestParamInfo<Shipped> &info) {
      return std::string(info.param.dir);
    });

TEST(DatasetTest, CoraKnownValues) {
  // Published facts about Planetoid Cora (e.g. PyTorch Geometric's copy):
  // class sizes, the largest degree (168) and the standard train split
  // (nodes 0..139).
  Dataset d;
  DatasetError err;
  ASSERT_TRUE(loadDataset(kDataDir + "/cora", LoadOptions(), d, err))
      << err.str();
  std::vector<int64_t> sizes(7, 0);
  for (int32_t y : d.labels)
    ++sizes[y];
  EXPECT_EQ(sizes, (std::vector<int64_t>{351, 217, 418, 818, 426, 298, 180}));
  std::vector<int32_t> deg = inDegrees(d.graph);
  EXPECT_EQ(*std::max_element(deg.begin(), deg.end()), 168);
  ASSERT_EQ(d.trainIdx.size(), 140u);
  EXPECT_EQ(d.trainIdx.front(), 0);
  EXPECT_EQ(d.trainIdx.back(), 139);
  EXPECT_EQ(d.valIdx.front(), 140);
  EXPECT_EQ(d.valIdx.back(), 639);
  // Binary bag-of-words features.
  for (float v : d.features.values)
    ASSERT_EQ(v, 1.0f);
}

TEST(DatasetTest, PubMedHasNoFeaturesAndSaysSo) {
  std::string dir = kDataDir + "/pubmed";
  Dataset d;
  DatasetError err;
  ASSERT_FALSE(loadDataset(dir, LoadOptions(), d, err));
  EXPECT_EQ(err.file, dir + "/meta.json");
  EXPECT_EQ(err.field, "has_features");
  EXPECT_NE(err.message.find("ships no node features"), std::string::npos)
      << err.str();

  LoadOptions omit;
  omit.missingFeatures = MissingFeatures::Omit;
  ASSERT_TRUE(loadDataset(dir, omit, d, err)) << err.str();
  EXPECT_EQ(d.featureSource, FeatureSource::None);
  EXPECT_EQ(d.features.nnz(), 0);
  EXPECT_EQ(d.features.numRows, 0);
  EXPECT_EQ(d.numFeatures, 500);
  EXPECT_EQ(d.numNodes(), 19717);
  EXPECT_EQ(d.numEdges(), 88648);
  EXPECT_EQ(d.trainIdx.size(), 60u);
  EXPECT_EQ(d.valIdx.size(), 500u);
  EXPECT_EQ(d.testIdx.size(), 1000u);
  std::vector<int32_t> edges = readFile<int32_t>(dir + "/edges.bin");
  int64_t deg0 = 0;
  for (size_t e = 0; e < edges.size(); e += 2)
    deg0 += edges[e + 1] == 0;
  EXPECT_EQ(inDegrees(d.graph)[0], deg0);

  LoadOptions synth;
  synth.missingFeatures = MissingFeatures::Synthesize;
  Dataset a, b, c;
  ASSERT_TRUE(loadDataset(dir, synth, a, err)) << err.str();
  ASSERT_TRUE(loadDataset(dir, synth, b, err)) << err.str();
  synth.standInSeed = 7;
  ASSERT_TRUE(loadDataset(dir, synth, c, err)) << err.str();
  EXPECT_EQ(a.featureSource, FeatureSource::RandomStandIn);
  EXPECT_EQ(a.features.numRows, 19717);
  EXPECT_EQ(a.features.numCols, 500);
  double density = double(a.features.nnz()) / (19717.0 * 500.0);
  EXPECT_NEAR(density, 0.1, 0.002);
  EXPECT_EQ(a.features.indices, b.features.indices);
  EXPECT_EQ(a.features.values, b.features.values);
  EXPECT_NE(a.features.indices, c.features.indices);
  double mean = 0;
  for (float v : a.features.values) {
    ASSERT_GT(v, 0.0f);
    ASSERT_LE(v, 1.0f);
    mean += v;
  }
  EXPECT_NEAR(mean / double(a.features.nnz()), 0.5, 0.01);
}

TEST(DatasetTest, TinyKnownValues) {
  // test/Inputs/README.md: a 6-ring, features {i%4, (i+1)%4}, label i%2.
  Dataset d;
  DatasetError err;
  ASSERT_TRUE(loadDataset(kTinyDir, LoadOptions(), d, err)) << err.str();
  EXPECT_EQ(d.name, "Tiny");
  ASSERT_EQ(d.numEdges(), 12);
  std::set<std::pair<int32_t, int32_t>> expected;
  for (int32_t i = 0; i < 6; ++i) {
    expected.insert({i, (i + 1) % 6});
    expected.insert({(i + 1) % 6, i});
  }
  std::set<std::pair<int32_t, int32_t>> got;
  for (int64_t e = 0; e < 12; ++e)
    got.insert({d.graph.src[e], d.graph.dst[e]});
  EXPECT_EQ(got, expected);
  for (int32_t i = 0; i < 6; ++i)
    EXPECT_EQ(d.labels[i], i % 2);
  EXPECT_EQ(d.trainIdx, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(d.valIdx, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(d.testIdx, (std::vector<int32_t>{4, 5}));
  std::vector<float> dense;
  ASSERT_TRUE(d.features.toDense(dense));
  ASSERT_EQ(dense.size(), 24u);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(dense[i * 4 + j],
                (j == i % 4 || j == (i + 1) % 4) ? 1.0f : 0.0f)
          << i << "," << j;
  // The helper refuses what would not fit its limit.
  std::vector<float> untouched = {42.0f};
  EXPECT_FALSE(d.features.toDense(untouched, 95));
  EXPECT_EQ(untouched, std::vector<float>{42.0f});
  EXPECT_TRUE(d.features.toDense(untouched, 96));
  EXPECT_EQ(d.features.denseBytes(), 96);
}

TEST(DatasetTest, DenseRefusesFacebookUnderDefaultLimitButNotCora) {
  Dataset fb;
  DatasetError err;
  ASSERT_TRUE(loadDataset(kDataDir + "/facebook", LoadOptions(), fb, err));
  EXPECT_EQ(fb.features.denseBytes(), int64_t(22470) * 4714 * 4);
  std::vector<float> dense;
  EXPECT_FALSE(fb.features.toDense(dense, int64_t(256) << 20));
  EXPECT_TRUE(dense.empty());
}

//===----------------------------------------------------------------------===//
// Corrupted copies of the tiny dataset: one defect each
//===----------------------------------------------------------------------===//

struct Defect {
  const char *name;
  /// Edits the copy in the given directory.
  std::function<void(const std::string &)> apply;
  const char *file;  ///< Expected DatasetError::file, relative to the copy.
  const char *field; ///< Expected DatasetError::field.
  const char *words; ///< Expected somewhere in the message.
};

void PrintTo(const Defect &d, std::ostream *os) { *os << d.name; }

/// Returns an editor that rewrites element \p index of int32 file \p file.
std::function<void(const std::string &)> setInt(const char *file, size_t index,
                                                int32_t value) {
  return [=](const std::string &dir) {
    auto v = readFile<int32_t>(dir + "/" + file);
    ASSERT_LT(index, v.size());
    v[index] = value;
    writeFile(dir + "/" + file, v);
  };
}

std::function<void(const std::string &)> setEdge(size_t e, int32_t src,
                                                 int32_t dst) {
  return [=](const std::string &dir) {
    auto v = readFile<int32_t>(dir + "/edges.bin");
    ASSERT_LT(2 * e + 1, v.size());
    v[2 * e] = src;
    v[2 * e + 1] = dst;
    writeFile(dir + "/edges.bin", v);
  };
}

class CorruptTinyTest : public ::testing::TestWithParam<Defect> {};

TEST_P(CorruptTinyTest, NamesFileAndField) {
  const Defect &defect = GetParam();
  TempDir tmp;
  tmp.copyFrom(kTinyDir);
  {
    // The unedited copy loads: the defect alone is what fails.
    Dataset d;
    DatasetError err;
    ASSERT_TRUE(loadDataset(tmp.path(), LoadOptions(), d, err)) << err.str();
  }
  defect.apply(tmp.path());
  Dataset d;
  DatasetError err;
  ASSERT_FALSE(loadDataset(tmp.path(), LoadOptions(), d, err));
  EXPECT_EQ(err.file, tmp.path() + "/" + defect.file) << err.str();
  EXPECT_EQ(err.field, defect.field) << err.str();
  EXPECT_NE(err.message.find(defect.words), std::string::npos)
      << "message: " << err.message << "\nexpected: " << defect.words;
  // The printed form carries both, as every tool shows it.
  EXPECT_NE(err.str().find(defect.file), std::string::npos);
}

// tiny's edges in file order: 0:(0,1) 1:(0,5) 2:(1,0) 3:(1,2) 4:(2,1)
// 5:(2,3) 6:(3,2) 7:(3,4) 8:(4,3) 9:(4,5) 10:(5,0) 11:(5,4).
INSTANTIATE_TEST_SUITE_P(
    Tiny, CorruptTinyTest,
    ::testing::Values(
        Defect{"truncated_edges",
               [](const std::string &dir) {
                 auto v = readFile<int32_t>(dir + "/edges.bin");
                 v.pop_back();
                 writeFile(dir + "/edges.bin", v);
               },
               "edges.bin", "num_edges", "file has 92 bytes"},
        Defect{"truncated_features",
               [](const std::string &dir) {
                 auto v = readFile<float>(dir + "/feat_values.bin");
                 v.resize(5);
                 writeFile(dir + "/feat_values.bin", v);
               },
               "feat_values.bin", "feature_nnz", "file has 20 bytes"},
        Defect{"missing_labels",
               [](const std::string &dir) {
                 std::remove((dir + "/labels.bin").c_str());
               },
               "labels.bin", "", "missing"},
        Defect{"missing_meta",
               [](const std::string &dir) {
                 std::remove((dir + "/meta.json").c_str());
               },
               "meta.json", "", "cannot open"},
        Defect{"dst_out_of_range", setEdge(7, 3, 6), "edges.bin", "dst",
               "edge 7 (3, 6): destination 6 is outside [0, 6)"},
        Defect{"src_negative", setEdge(4, -1, 1), "edges.bin", "src",
               "edge 4 (-1, 1): source -1 is outside [0, 6)"},
        Defect{"self_loop", setEdge(3, 1, 1), "edges.bin", "edges",
               "edge 3 (1, 1) is a self loop"},
        Defect{"duplicate_edge", setEdge(3, 1, 0), "edges.bin", "edges",
               "edge 3 (1, 0) repeats edge 2"},
        Defect{"asymmetric", setEdge(0, 0, 2), "edges.bin", "edges",
               "edge 0 (0, 2) has no reverse edge (2, 0)"},
        Defect{"label_too_large", setInt("labels.bin", 3, 2), "labels.bin",
               "labels", "node 3 has label 2, outside [0, 2)"},
        Defect{"label_below_minus_one", setInt("labels.bin", 5, -2),
               "labels.bin", "labels", "node 5 has label -2"},
        Defect{"split_unlabelled", setInt("labels.bin", 1, -1), "train_idx.bin",
               "train_idx", "entry 1 (node 1) has no label (-1)"},
        Defect{"unlabelled_count_differs_from_meta",
               [](const std::string &dir) {
                 std::ifstream in(dir + "/meta.json");
                 std::string text((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
                 size_t at = text.find("\"num_unlabeled\": 0");
                 ASSERT_NE(at, std::string::npos);
                 text.replace(at, 18, "\"num_unlabeled\": 1");
                 std::ofstream(dir + "/meta.json") << text;
               },
               "labels.bin", "num_unlabeled",
               "0 nodes have label -1 but meta.json says 1"},
        Defect{"split_overlap", setInt("val_idx.bin", 0, 1), "val_idx.bin",
               "val_idx", "entry 0 (node 1) is also in train_idx"},
        Defect{"split_overlap_val_test", setInt("test_idx.bin", 0, 2),
               "test_idx.bin", "test_idx",
               "entry 0 (node 2) is also in val_idx"},
        Defect{"split_not_increasing", setInt("train_idx.bin", 1, 0),
               "train_idx.bin", "train_idx",
               "entry 1 (node 0) is not greater than entry 0 (node 0)"},
        Defect{"split_out_of_range", setInt("test_idx.bin", 1, 6),
               "test_idx.bin", "test_idx",
               "entry 1 (node 6) is outside [0, 6)"},
        Defect{"indptr_not_monotone", setInt("feat_indptr.bin", 3, 3),
               "feat_indptr.bin", "feat_indptr",
               "entry 3 (3) is less than entry 2 (4)"},
        Defect{"indptr_decreasing", setInt("feat_indptr.bin", 2, 1),
               "feat_indptr.bin", "feat_indptr",
               "entry 2 (1) is less than entry 1 (2)"},
        Defect{"indptr_not_starting_at_zero", setInt("feat_indptr.bin", 0, 1),
               "feat_indptr.bin", "feat_indptr", "entry 0 is 1, expected 0"},
        Defect{"indptr_not_ending_at_nnz", setInt("feat_indptr.bin", 6, 11),
               "feat_indptr.bin", "feat_indptr",
               "last entry is 11 but there are 12 non-zeros"},
        Defect{"feature_column_out_of_range", setInt("feat_indices.bin", 5, 4),
               "feat_indices.bin", "feat_indices",
               "entry 5 (row 2, column 4): column is outside [0, 4)"},
        Defect{"feature_columns_not_increasing",
               setInt("feat_indices.bin", 3, 1), "feat_indices.bin",
               "feat_indices",
               "entry 3 (row 1, column 1): column is not greater"},
        Defect{"feature_value_nan",
               [](const std::string &dir) {
                 auto v = readFile<float>(dir + "/feat_values.bin");
                 v[7] = std::nanf("");
                 writeFile(dir + "/feat_values.bin", v);
               },
               "feat_values.bin", "feat_values",
               "entry 7 (row 3) is not a finite number"}),
    [](const ::testing::TestParamInfo<Defect> &info) {
      return std::string(info.param.name);
    });

TEST(DatasetTest, CoraFirstBadEntryIsReported) {
  // A defect deep inside a real file: the message must point at it.
  TempDir tmp;
  tmp.copyFrom(kDataDir + "/cora");
  auto edges = readFile<int32_t>(tmp.path() + "/edges.bin");
  // Edge 5001 becomes a copy of edge 5000.
  edges[2 * 5001] = edges[2 * 5000];
  edges[2 * 5001 + 1] = edges[2 * 5000 + 1];
  writeFile(tmp.path() + "/edges.bin", edges);
  Dataset d;
  DatasetError err;
  ASSERT_FALSE(loadDataset(tmp.path(), LoadOptions(), d, err));
  EXPECT_EQ(err.file, tmp.path() + "/edges.bin");
  EXPECT_EQ(err.field, "edges");
  std::string want = "edge 5001 (" + std::to_string(edges[10000]) + ", " +
                     std::to_string(edges[10001]) + ") repeats edge 5000";
  EXPECT_NE(err.message.find(want), std::string::npos) << err.message;
}

TEST(DatasetTest, NotADirectory) {
  Dataset d;
  DatasetError err;
  EXPECT_FALSE(loadDataset("/nonexistent/gnnc", LoadOptions(), d, err));
  EXPECT_EQ(err.file, "/nonexistent/gnnc/meta.json");
}

//===----------------------------------------------------------------------===//
// Host arrays
//===----------------------------------------------------------------------===//

/// Cora's files, read independently, as a host program would hold them.
struct HostCora {
  std::vector<int32_t> src, dst, labels, train, val, test, indptr, indices;
  std::vector<float> values;
  HostCora() {
    std::string dir = kDataDir + "/cora";
    auto edges = readFile<int32_t>(dir + "/edges.bin");
    for (size_t e = 0; e < edges.size(); e += 2) {
      src.push_back(edges[e]);
      dst.push_back(edges[e + 1]);
    }
    labels = readFile<int32_t>(dir + "/labels.bin");
    train = readFile<int32_t>(dir + "/train_idx.bin");
    val = readFile<int32_t>(dir + "/val_idx.bin");
    test = readFile<int32_t>(dir + "/test_idx.bin");
    indptr = readFile<int32_t>(dir + "/feat_indptr.bin");
    indices = readFile<int32_t>(dir + "/feat_indices.bin");
    values = readFile<float>(dir + "/feat_values.bin");
  }
  HostDataset view() const {
    HostDataset h;
    h.name = "cora";
    h.numNodes = 2708;
    h.numFeatures = 1433;
    h.numClasses = 7;
    h.src = src;
    h.dst = dst;
    h.labels = labels;
    h.trainIdx = train;
    h.valIdx = val;
    h.testIdx = test;
    h.featIndptr = indptr;
    h.featIndices = indices;
    h.featValues = values;
    return h;
  }
};

void expectSameDataset(const Dataset &a, const Dataset &b) {
  EXPECT_EQ(a.numNodes(), b.numNodes());
  EXPECT_EQ(a.graph.src, b.graph.src);
  EXPECT_EQ(a.graph.dst, b.graph.dst);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.trainIdx, b.trainIdx);
  EXPECT_EQ(a.valIdx, b.valIdx);
  EXPECT_EQ(a.testIdx, b.testIdx);
  EXPECT_EQ(a.features.indptr, b.features.indptr);
  EXPECT_EQ(a.features.indices, b.features.indices);
  EXPECT_EQ(a.features.values, b.features.values);
  EXPECT_EQ(a.numFeatures, b.numFeatures);
  EXPECT_EQ(a.numClasses, b.numClasses);
}

TEST(HostDatasetTest, CooCsrMasksAndDenseAgreeWithFiles) {
  Dataset fromFiles;
  DatasetError err;
  ASSERT_TRUE(loadDataset(kDataDir + "/cora", LoadOptions(), fromFiles, err));
  HostCora cora;
  HostLoadOptions opts;
  opts.requireSymmetric = true;

  Dataset coo;
  ASSERT_TRUE(loadHostDataset(cora.view(), opts, coo, err)) << err.str();
  expectSameDataset(coo, fromFiles);
  EXPECT_EQ(coo.featureSource, FeatureSource::File);

  // The graph as CSR over sources (edges.bin is sorted by src, so slot
  // order is file order), the splits as masks, the features dense.
  std::vector<int32_t> rowPtr(2709, 0);
  for (int32_t s : cora.src)
    ++rowPtr[s + 1];
  for (size_t i = 0; i < 2708; ++i)
    rowPtr[i + 1] += rowPtr[i];
  std::vector<uint8_t> masks[3];
  const std::vector<int32_t> *lists[3] = {&cora.train, &cora.val, &cora.test};
  for (int s = 0; s < 3; ++s) {
    masks[s].assign(2708, 0);
    for (int32_t v : *lists[s])
      masks[s][v] = 1;
  }
  std::vector<float> dense(size_t(2708) * 1433, 0.0f);
  for (size_t i = 0; i < 2708; ++i)
    for (int32_t k = cora.indptr[i]; k < cora.indptr[i + 1]; ++k)
      dense[i * 1433 + cora.indices[k]] = cora.values[k];

  HostDataset h = cora.view();
  h.src = {};
  h.dst = {};
  h.csrIndptr = rowPtr;
  h.csrIndices = cora.dst;
  h.trainIdx = h.valIdx = h.testIdx = {};
  h.trainMask = masks[0];
  h.valMask = masks[1];
  h.testMask = masks[2];
  h.featIndptr = h.featIndices = {};
  h.featValues = {};
  h.denseFeatures = dense;
  Dataset other;
  ASSERT_TRUE(loadHostDataset(h, opts, other, err)) << err.str();
  expectSameDataset(other, fromFiles);
}

TEST(HostDatasetTest, SameChecksAsFiles) {
  HostCora cora;
  Dataset d;
  DatasetError err;
  auto expectError = [&](const HostDataset &h, const HostLoadOptions &opts,
                         const std::string &field, const std::string &words) {
    ASSERT_FALSE(loadHostDataset(h, opts, d, err)) << field;
    EXPECT_EQ(err.file, "host 'cora'");
    EXPECT_EQ(err.field, field) << err.str();
    EXPECT_NE(err.message.find(words), std::string::npos) << err.str();
  };
  HostLoadOptions opts;
  {
    HostCora c = cora;
    c.dst[10] = 2708;
    expectError(c.view(), opts, "dst", "edge 10 (");
  }
  {
    HostCora c = cora;
    c.dst.pop_back();
    expectError(c.view(), opts, "dst", "has 10555 entries");
  }
  {
    HostCora c = cora;
    c.dst[10] = c.src[10];
    expectError(c.view(), opts, "edges", "is a self loop");
  }
  {
    HostCora c = cora;
    c.labels[100] = 7;
    expectError(c.view(), opts, "labels", "node 100 has label 7");
  }
  {
    HostCora c = cora;
    c.val[0] = c.train[139];
    expectError(c.view(), opts, "val_idx", "is also in train_idx");
  }
  {
    HostCora c = cora;
    c.indices[3] = 1433;
    expectError(c.view(), opts, "feat_indices", "entry 3 (row ");
  }
  {
    // A directed edge is fine for a host graph unless symmetry is asked.
    HostCora c = cora;
    c.dst[0] = c.dst[1] == 5 ? 6 : 5; // neither a repeat nor a loop
    ASSERT_NE(c.dst[0], c.src[0]);
    HostDataset h = c.view();
    Dataset ok;
    EXPECT_TRUE(loadHostDataset(h, opts, ok, err)) << err.str();
    HostLoadOptions sym;
    sym.requireSymmetric = true;
    expectError(h, sym, "edges", "has no reverse edge");
  }
  {
    HostDataset h = cora.view();
    h.featIndptr = h.featIndices = {};
    h.featValues = {};
    expectError(h, opts, "features", "ships no node features");
  }
}

TEST(HostDatasetTest, DropSelfLoopsAndDuplicatesKeepsFirst) {
  // 0->1, 1->1 (loop), 0->1 (repeat), 1->0, 2->2 (loop), 1->0 (repeat).
  std::vector<int32_t> src = {0, 1, 0, 1, 2, 1}, dst = {1, 1, 1, 0, 2, 0};
  std::vector<int32_t> labels = {0, 1, -1}, train = {0};
  HostDataset h;
  h.name = "g";
  h.numNodes = 3;
  h.numFeatures = 2;
  h.numClasses = 2;
  h.src = src;
  h.dst = dst;
  h.labels = labels;
  h.trainIdx = train;
  std::vector<float> dense = {1, 0, 0, 2, 0, 0};
  h.denseFeatures = dense;
  Dataset d;
  DatasetError err;
  HostLoadOptions opts;
  ASSERT_FALSE(loadHostDataset(h, opts, d, err));
  EXPECT_EQ(err.message.substr(0, 12), "edge 1 (1, 1");
  opts.dropSelfLoopsAndDuplicates = true;
  opts.requireSymmetric = true;
  ASSERT_TRUE(loadHostDataset(h, opts, d, err)) << err.str();
  EXPECT_EQ(d.graph.src, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(d.graph.dst, (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(d.features.indptr, (std::vector<int32_t>{0, 1, 2, 2}));
  EXPECT_EQ(d.features.indices, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(d.features.values, (std::vector<float>{1, 2}));
}

TEST(HostDatasetTest, RejectsBadShapes) {
  std::vector<int32_t> labels = {0, 1};
  HostDataset h;
  h.name = "g";
  h.numNodes = 2;
  h.numFeatures = 3;
  h.numClasses = 2;
  h.labels = labels;
  std::vector<float> dense(5, 1.0f);
  h.denseFeatures = dense;
  Dataset d;
  DatasetError err;
  ASSERT_FALSE(loadHostDataset(h, HostLoadOptions(), d, err));
  EXPECT_EQ(err.field, "dense_features");
  h.denseFeatures = {};
  std::vector<uint8_t> shortMask = {1};
  h.trainMask = shortMask;
  ASSERT_FALSE(loadHostDataset(h, HostLoadOptions(), d, err));
  EXPECT_EQ(err.field, "train_mask");
  h.trainMask = {};
  h.numNodes = 0;
  ASSERT_FALSE(loadHostDataset(h, HostLoadOptions(), d, err));
  EXPECT_EQ(err.field, "num_nodes");
  h.numNodes = 2;
  std::vector<int32_t> rowPtr = {0, 2, 1};
  std::vector<int32_t> cols = {1};
  h.csrIndptr = rowPtr;
  h.csrIndices = cols;
  ASSERT_FALSE(loadHostDataset(h, HostLoadOptions(), d, err));
  EXPECT_EQ(err.field, "csr_indptr");
  EXPECT_NE(err.message.find("non-decreasing"), std::string::npos);
}

} // namespace
