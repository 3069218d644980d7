//===- DatasetMetaTest.cpp - Reading and validating dataset metadata ------===//
#include "gnnrt/DatasetMeta.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

using namespace gnnrt;

namespace {

const std::string kDataDir = GNNC_TEST_DATA_DIR;

//===----------------------------------------------------------------------===//
// The shipped datasets
//===----------------------------------------------------------------------===//

struct Expected {
  const char *dir;
  const char *name;
  int64_t nodes, edges, features, classes;
  bool hasFeatures;
  int64_t nnz, train, val, test;
};

void PrintTo(const Expected &e, std::ostream *os) { *os << e.dir; }

class ShippedDatasetTest : public ::testing::TestWithParam<Expected> {};

// The numbers are those of shared/data/README.md and each meta.json.
TEST_P(ShippedDatasetTest, CountsEqualMetaJson) {
  const Expected &e = GetParam();
  std::string dir = kDataDir + "/" + e.dir;
  DatasetMeta meta;
  DatasetError err;
  ASSERT_TRUE(readDatasetMeta(dir, meta, err)) << err.str();
  EXPECT_EQ(meta.dir, dir);
  EXPECT_EQ(meta.name, e.name);
  EXPECT_EQ(meta.formatVersion, 1);
  EXPECT_EQ(meta.numNodes, e.nodes);
  EXPECT_EQ(meta.numEdges, e.edges);
  EXPECT_EQ(meta.numFeatures, e.features);
  EXPECT_EQ(meta.numClasses, e.classes);
  EXPECT_EQ(meta.hasFeatures, e.hasFeatures);
  EXPECT_EQ(meta.featureNnz, e.nnz);
  EXPECT_EQ(meta.numTrain, e.train);
  EXPECT_EQ(meta.numVal, e.val);
  EXPECT_EQ(meta.numTest, e.test);
  EXPECT_TRUE(isDatasetDir(dir));
}

INSTANTIATE_TEST_SUITE_P(
    Shipped, ShippedDatasetTest,
    ::testing::Values(Expected{"cora", "Cora", 2708, 10556, 1433, 7, true,
                               49216, 140, 500, 1000},
                      Expected{"citeseer", "CiteSeer", 3327, 9104, 3703, 6,
                               true, 105165, 120, 500, 1000},
                      Expected{"pubmed", "PubMed", 19717, 88648, 500, 3, false,
                               0, 60, 500, 1000},
                      Expected{"facebook", "FacebookPagePage (MUSAE)", 22470,
                               341646, 4714, 4, true, 314583, 80, 500, 1000}),
    [](const ::testing::TestParamInfo<Expected> &info) {
      return std::string(info.param.dir);
    });

TEST(DatasetMetaTest, IsDatasetDir) {
  EXPECT_TRUE(isDatasetDir(kDataDir + "/cora"));
  EXPECT_FALSE(isDatasetDir(kDataDir)) << "the parent has no meta.json";
  EXPECT_FALSE(isDatasetDir(kDataDir + "/raw"));
  EXPECT_FALSE(isDatasetDir("/nonexistent/gnnc/dataset"));
  EXPECT_FALSE(isDatasetDir(kDataDir + "/cora/meta.json"))
      << "a file is not a dataset directory";
}

//===----------------------------------------------------------------------===//
// Corrupted datasets in a temporary directory
//===----------------------------------------------------------------------===//

/// A small valid dataset (5 nodes, 3 features) written to a fresh temporary
/// directory, which tests then break in one way each.
class TinyDataset : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> path;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("gnnc-meta-test", path));
    root = std::string(path);
    dir = root + "/tiny";
    ASSERT_FALSE(llvm::sys::fs::create_directory(dir));
    fields = {{"format_version", "1"}, {"num_nodes", "5"},
              {"num_edges", "6"},      {"num_undirected_edges", "3"},
              {"num_features", "3"},   {"num_classes", "2"},
              {"has_features", "1"},   {"feature_nnz", "4"},
              {"num_train", "2"},      {"num_val", "1"},
              {"num_test", "2"},       {"num_unlabeled", "0"}};
    writeMeta();
    writeBin("edges.bin", 12);
    writeBin("labels.bin", 5);
    writeBin("train_idx.bin", 2);
    writeBin("val_idx.bin", 1);
    writeBin("test_idx.bin", 2);
    writeBin("feat_indptr.bin", 6);
    writeBin("feat_indices.bin", 4);
    writeBin("feat_values.bin", 4);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(root); }

  /// meta.json in the documented layout; \p extraTop goes first.
  void writeMeta(const std::string &extraTop = "",
                 const std::string &name = "\"Tiny\"") {
    std::ofstream out(dir + "/meta.json");
    out << "{\n" << extraTop;
    for (const auto &[key, value] : order())
      out << "  \"" << key << "\": " << value << ",\n";
    out << "  \"name\": " << name << ",\n";
    out << "  \"files\": {\"edges.bin\": \"00\", \"labels.bin\": \"11\"}\n";
    out << "}\n";
  }
  std::vector<std::pair<std::string, std::string>> order() const {
    std::vector<std::pair<std::string, std::string>> v;
    for (const char *k :
         {"format_version", "num_nodes", "num_edges", "num_undirected_edges",
          "num_features", "num_classes", "has_features", "feature_nnz",
          "num_train", "num_val", "num_test", "num_unlabeled"})
      if (fields.count(k))
        v.emplace_back(k, fields.at(k));
    return v;
  }
  void writeBin(const std::string &file, size_t int32s) {
    std::ofstream out(dir + "/" + file, std::ios::binary);
    std::string zeros(4 * int32s, '\0');
    out.write(zeros.data(), zeros.size());
  }
  bool read() { return readDatasetMeta(dir, meta, err); }

  std::string root, dir;
  std::map<std::string, std::string> fields;
  DatasetMeta meta;
  DatasetError err;
};

TEST_F(TinyDataset, ValidTinyDataset) {
  ASSERT_TRUE(read()) << err.str();
  EXPECT_EQ(meta.name, "Tiny");
  EXPECT_EQ(meta.dir, dir);
  EXPECT_EQ(meta.numNodes, 5);
  EXPECT_EQ(meta.numEdges, 6);
  EXPECT_EQ(meta.numFeatures, 3);
  EXPECT_EQ(meta.numClasses, 2);
  EXPECT_TRUE(meta.hasFeatures);
  EXPECT_EQ(meta.featureNnz, 4);
  EXPECT_EQ(meta.numTrain, 2);
  EXPECT_EQ(meta.numVal, 1);
  EXPECT_EQ(meta.numTest, 2);
}

TEST_F(TinyDataset, MissingDirectory) {
  std::string missing = root + "/nope";
  ASSERT_FALSE(readDatasetMeta(missing, meta, err));
  EXPECT_EQ(err.file, missing + "/meta.json");
  EXPECT_EQ(err.field, "");
  EXPECT_EQ(err.message, "cannot open file");
  EXPECT_EQ(err.str(), missing + "/meta.json: cannot open file");
}

TEST_F(TinyDataset, MissingMetaJson) {
  ASSERT_FALSE(llvm::sys::fs::remove(dir + "/meta.json"));
  ASSERT_FALSE(read());
  EXPECT_EQ(err.file, dir + "/meta.json");
  EXPECT_EQ(err.field, "");
  EXPECT_EQ(err.message, "cannot open file");
  EXPECT_FALSE(isDatasetDir(dir));
}

TEST_F(TinyDataset, MissingField) {
  for (const char *key : {"format_version", "num_nodes", "num_edges",
                          "num_features", "num_classes", "has_features",
                          "feature_nnz", "num_train", "num_val", "num_test"}) {
    fields.erase(key);
    writeMeta(); // Every field but this one.
    ASSERT_FALSE(read()) << key;
    EXPECT_EQ(err.file, dir + "/meta.json") << key;
    EXPECT_EQ(err.field, key);
    EXPECT_EQ(err.message, "missing") << key;
    EXPECT_EQ(err.str(), dir + "/meta.json: field '" + key + "': missing");
    TearDown(); // A fresh directory for the next one.
    SetUp();
  }
}

TEST_F(TinyDataset, NonIntegerField) {
  for (const char *bad : {"\"5\"", "5.0", "five", "5x", "1e3", "null", "-"}) {
    fields["num_nodes"] = bad;
    writeMeta();
    ASSERT_FALSE(read()) << bad;
    EXPECT_EQ(err.file, dir + "/meta.json");
    EXPECT_EQ(err.field, "num_nodes") << bad;
    EXPECT_EQ(err.message,
              std::string("expected an integer, found '") + bad + "'")
        << bad;
  }
}

// `"num_nodes": ,` has no value at all; the message must not quote the
// separating comma as if it were the value.
TEST_F(TinyDataset, EmptyFieldValue) {
  fields["num_nodes"] = "";
  writeMeta();
  ASSERT_FALSE(read());
  EXPECT_EQ(err.field, "num_nodes");
  EXPECT_EQ(err.message, "expected an integer, found ''");
}

TEST_F(TinyDataset, FormatVersion2) {
  fields["format_version"] = "2";
  writeMeta();
  ASSERT_FALSE(read());
  EXPECT_EQ(err.file, dir + "/meta.json");
  EXPECT_EQ(err.field, "format_version");
  EXPECT_EQ(err.message, "unsupported version 2 (this gnnc reads version 1)");
  EXPECT_EQ(err.str(), dir + "/meta.json: field 'format_version': "
                             "unsupported version 2 (this gnnc reads "
                             "version 1)");
}

TEST_F(TinyDataset, OutOfRangeCounts) {
  fields["num_train"] = "6"; // more than num_nodes = 5
  writeMeta();
  ASSERT_FALSE(read());
  EXPECT_EQ(err.field, "num_train");
  EXPECT_EQ(err.message, "value 6 is out of range [0, 5]");

  fields["num_train"] = "2";
  fields["num_nodes"] = "0";
  writeMeta();
  ASSERT_FALSE(read());
  EXPECT_EQ(err.field, "num_nodes");

  fields["num_nodes"] = "5";
  fields["num_edges"] = "-1";
  writeMeta();
  ASSERT_FALSE(read());
  EXPECT_EQ(err.field, "num_edges");

  fields["num_edges"] = "6";
  fields["has_features"] = "2";
  writeMeta();
  ASSERT_FALSE(read());
  EXPECT_EQ(err.field, "has_features");
  EXPECT_EQ(err.message, "value 2 is out of range [0, 1]");

  fields["has_features"] = "1";
  fields["num_nodes"] = "2147483648"; // int32 ids
  writeMeta();
  ASSERT_FALSE(read());
  EXPECT_EQ(err.field, "num_nodes");
}

TEST_F(TinyDataset, TruncatedEdgesBin) {
  writeBin("edges.bin", 11); // 44 bytes, not 2 * 6 * 4 = 48
  ASSERT_FALSE(read());
  EXPECT_EQ(err.file, dir + "/edges.bin");
  EXPECT_EQ(err.field, "num_edges");
  EXPECT_EQ(err.message, "file has 44 bytes but num_edges implies 48");
  EXPECT_EQ(err.str(), dir + "/edges.bin: field 'num_edges': file has 44 "
                             "bytes but num_edges implies 48");
}

TEST_F(TinyDataset, OversizedBinFiles) {
  writeBin("labels.bin", 6);
  ASSERT_FALSE(read());
  EXPECT_EQ(err.file, dir + "/labels.bin");
  EXPECT_EQ(err.field, "num_nodes");

  writeBin("labels.bin", 5);
  writeBin("val_idx.bin", 2);
  ASSERT_FALSE(read());
  EXPECT_EQ(err.file, dir + "/val_idx.bin");
  EXPECT_EQ(err.field, "num_val");

  writeBin("val_idx.bin", 1);
  writeBin("feat_indptr.bin", 5); // needs num_nodes + 1
  ASSERT_FALSE(read());
  EXPECT_EQ(err.file, dir + "/feat_indptr.bin");
  EXPECT_EQ(err.field, "num_nodes");
  EXPECT_EQ(err.message, "file has 20 bytes but num_nodes implies 24");

  writeBin("feat_indptr.bin", 6);
  writeBin("feat_indices.bin", 3);
  ASSERT_FALSE(read());
  EXPECT_EQ(err.file, dir + "/feat_indices.bin");
  EXPECT_EQ(err.field, "feature_nnz");
}

TEST_F(TinyDataset, MissingFeatureFileWithFeatures) {
  for (const char *file :
       {"feat_indptr.bin", "feat_indices.bin", "feat_values.bin"}) {
    ASSERT_FALSE(llvm::sys::fs::remove(dir + "/" + file));
    ASSERT_FALSE(read()) << file;
    EXPECT_EQ(err.file, dir + "/" + file);
    EXPECT_EQ(err.field, "");
    EXPECT_EQ(err.message, "missing (required by meta.json)");
    TearDown();
    SetUp();
  }
}

TEST_F(TinyDataset, MissingRequiredBinFile) {
  for (const char *file : {"edges.bin", "labels.bin", "train_idx.bin",
                           "val_idx.bin", "test_idx.bin"}) {
    ASSERT_FALSE(llvm::sys::fs::remove(dir + "/" + file));
    ASSERT_FALSE(read()) << file;
    EXPECT_EQ(err.file, dir + "/" + file);
    EXPECT_EQ(err.message, "missing (required by meta.json)");
    TearDown();
    SetUp();
  }
}

TEST_F(TinyDataset, NoFeatureFilesNeededWithoutFeatures) {
  fields["has_features"] = "0";
  fields["feature_nnz"] = "0";
  writeMeta();
  for (const char *file :
       {"feat_indptr.bin", "feat_indices.bin", "feat_values.bin"})
    ASSERT_FALSE(llvm::sys::fs::remove(dir + "/" + file));
  ASSERT_TRUE(read()) << err.str();
  EXPECT_FALSE(meta.hasFeatures);
  EXPECT_EQ(meta.numFeatures, 3);

  // feature_nnz is optional without features.
  fields.erase("feature_nnz");
  writeMeta();
  ASSERT_TRUE(read()) << err.str();
}

TEST_F(TinyDataset, NameFallsBackToDirectory) {
  writeMeta("", "42");
  ASSERT_TRUE(read()) << err.str();
  EXPECT_EQ(meta.name, "tiny") << "a non-string name is ignored";

  std::ofstream(dir + "/meta.json")
      << "{\n  \"format_version\": 1,\n  \"num_nodes\": 5,\n"
         "  \"num_edges\": 6,\n  \"num_features\": 3,\n"
         "  \"num_classes\": 2,\n  \"has_features\": 1,\n"
         "  \"feature_nnz\": 4,\n  \"num_train\": 2,\n  \"num_val\": 1,\n"
         "  \"num_test\": 2\n}\n";
  ASSERT_TRUE(read()) << err.str();
  EXPECT_EQ(meta.name, "tiny");
  EXPECT_EQ(meta.numTest, 2) << "the last field has no comma";
}

TEST_F(TinyDataset, ToleratesCrLfAndSpacing) {
  std::ofstream out(dir + "/meta.json", std::ios::binary);
  out << "{\r\n";
  for (const auto &[key, value] : order())
    out << "  \"" << key << "\":\t" << value << " ,\r\n";
  out << "  \"name\": \"Tiny\"\r\n}\r\n";
  out.close();
  ASSERT_TRUE(read()) << err.str();
  EXPECT_EQ(meta.numNodes, 5);
  EXPECT_EQ(meta.name, "Tiny");
}

// meta.json is JSON: an informational object written over several lines must
// not shadow the top-level integer fields of the same name.
TEST_F(TinyDataset, NestedKeysDoNotShadowTopLevelFields) {
  writeMeta("  \"raw_edge_stats\": {\n"
            "    \"num_edges\": 999,\n"
            "    \"num_nodes\": 1\n"
            "  },\n");
  ASSERT_TRUE(read()) << err.str();
  EXPECT_EQ(meta.numEdges, 6);
  EXPECT_EQ(meta.numNodes, 5);
}

TEST_F(TinyDataset, TruncatedCopyOfCora) {
  // A real dataset copied and truncated like a broken download.
  std::string copy = root + "/cora";
  ASSERT_FALSE(llvm::sys::fs::create_directory(copy));
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(kDataDir + "/cora", ec), end;
       it != end && !ec; it.increment(ec)) {
    std::string to = copy + "/" + llvm::sys::path::filename(it->path()).str();
    ASSERT_FALSE(llvm::sys::fs::copy_file(it->path(), to));
    llvm::sys::fs::setPermissions(to, llvm::sys::fs::all_read |
                                          llvm::sys::fs::owner_write);
  }
  ASSERT_TRUE(readDatasetMeta(copy, meta, err)) << err.str();
  ASSERT_EQ(::truncate((copy + "/edges.bin").c_str(), 4096), 0);
  ASSERT_FALSE(readDatasetMeta(copy, meta, err));
  EXPECT_EQ(err.file, copy + "/edges.bin");
  EXPECT_EQ(err.field, "num_edges");
  EXPECT_EQ(err.message, "file has 4096 bytes but num_edges implies 84448");
}

TEST(DatasetMetaTest, ErrorStrFormat) {
  DatasetError withField{"/d/meta.json", "num_nodes", "missing"};
  EXPECT_EQ(withField.str(), "/d/meta.json: field 'num_nodes': missing");
  DatasetError withoutField{"/d/edges.bin", "",
                            "missing (required by "
                            "meta.json)"};
  EXPECT_EQ(withoutField.str(),
            "/d/edges.bin: missing (required by meta.json)");
}

} // namespace
