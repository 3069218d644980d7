//===- DatasetMeta.cpp - gnnc dataset metadata ----------------------------===//
//
// meta.json is valid JSON, but the format guarantees that every integer field
// is written one per line as `  "key": <integer>,`; reading those lines keeps
// the runtime free of a JSON dependency. The "name" string is read the same
// way when it is on a line of its own.
//
//===----------------------------------------------------------------------===//
#include "runtime/data/DatasetMeta.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sys/stat.h>

using namespace gnnrt;

std::string DatasetError::str() const {
  std::string s = file + ": ";
  if (!field.empty())
    s += "field '" + field + "': ";
  return s + message;
}

static bool fileSize(const std::string &path, int64_t &size) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return false;
  size = static_cast<int64_t>(st.st_size);
  return true;
}

bool gnnrt::isDatasetDir(const std::string &dir) {
  int64_t size;
  return fileSize(dir + "/meta.json", size);
}

/// Parses `"key": value` lines; values are kept as raw text.
static std::map<std::string, std::string> scanFields(std::istream &in) {
  std::map<std::string, std::string> fields;
  std::string line;
  while (std::getline(in, line)) {
    size_t q0 = line.find('"');
    if (q0 == std::string::npos)
      continue;
    size_t q1 = line.find('"', q0 + 1);
    if (q1 == std::string::npos)
      continue;
    size_t colon = line.find(':', q1 + 1);
    if (colon == std::string::npos)
      continue;
    // Only top-level "key": lines (two-space indent) count; nested objects
    // such as "files" or "raw_edge_stats" put several keys on one line.
    std::string key = line.substr(q0 + 1, q1 - q0 - 1);
    std::string value = line.substr(colon + 1);
    size_t b = value.find_first_not_of(" \t");
    size_t e = value.find_last_not_of(" \t\r,");
    value = (b == std::string::npos || e < b) ? "" : value.substr(b, e - b + 1);
    fields.emplace(key, value);
  }
  return fields;
}

namespace {
struct Reader {
  const std::map<std::string, std::string> &fields;
  std::string metaPath;
  DatasetError &err;

  bool fail(const std::string &field, const std::string &message) {
    err = DatasetError{metaPath, field, message};
    return false;
  }

  bool getInt(const char *key, int64_t &out, int64_t min, int64_t max) {
    auto it = fields.find(key);
    if (it == fields.end())
      return fail(key, "missing");
    const std::string &text = it->second;
    errno = 0;
    char *end = nullptr;
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || errno != 0 || *end != '\0')
      return fail(key, "expected an integer, found '" + text + "'");
    if (v < min || v > max)
      return fail(key, "value " + text + " is out of range [" +
                           std::to_string(min) + ", " + std::to_string(max) +
                           "]");
    out = v;
    return true;
  }
};
} // namespace

bool gnnrt::readDatasetMeta(const std::string &dir, DatasetMeta &meta,
                            DatasetError &err) {
  std::string metaPath = dir + "/meta.json";
  std::ifstream in(metaPath);
  if (!in) {
    err = DatasetError{metaPath, "", "cannot open file"};
    return false;
  }
  auto fields = scanFields(in);
  Reader r{fields, metaPath, err};
  meta = DatasetMeta();
  meta.dir = dir;
  // A cap of 2^31-1 matches the int32 ids of the .bin files.
  const int64_t i32max = 2147483647;
  int64_t hasFeatures = 0;
  if (!r.getInt("format_version", meta.formatVersion, 0, i32max))
    return false;
  if (meta.formatVersion != 1)
    return r.fail("format_version", "unsupported version " +
                                        std::to_string(meta.formatVersion) +
                                        " (this gnnc reads version 1)");
  if (!r.getInt("num_nodes", meta.numNodes, 1, i32max) ||
      !r.getInt("num_edges", meta.numEdges, 0, i32max) ||
      !r.getInt("num_features", meta.numFeatures, 1, i32max) ||
      !r.getInt("num_classes", meta.numClasses, 1, i32max) ||
      !r.getInt("has_features", hasFeatures, 0, 1) ||
      !r.getInt("num_train", meta.numTrain, 0, meta.numNodes) ||
      !r.getInt("num_val", meta.numVal, 0, meta.numNodes) ||
      !r.getInt("num_test", meta.numTest, 0, meta.numNodes))
    return false;
  meta.hasFeatures = hasFeatures != 0;
  if (meta.hasFeatures && !r.getInt("feature_nnz", meta.featureNnz, 0, i32max))
    return false;
  auto name = fields.find("name");
  if (name != fields.end() && name->second.size() >= 2 &&
      name->second.front() == '"' && name->second.back() == '"')
    meta.name = name->second.substr(1, name->second.size() - 2);
  else
    meta.name = dir.substr(dir.find_last_of('/') + 1);

  // Every .bin file must be there with exactly the size the counts imply, so
  // a truncated download is caught before anything reads past its end.
  struct Expect {
    const char *file;
    const char *field;
    int64_t elems;
  };
  std::vector<Expect> expects = {
      {"edges.bin", "num_edges", 2 * meta.numEdges},
      {"labels.bin", "num_nodes", meta.numNodes},
      {"train_idx.bin", "num_train", meta.numTrain},
      {"val_idx.bin", "num_val", meta.numVal},
      {"test_idx.bin", "num_test", meta.numTest},
  };
  if (meta.hasFeatures) {
    expects.push_back({"feat_indptr.bin", "num_nodes", meta.numNodes + 1});
    expects.push_back({"feat_indices.bin", "feature_nnz", meta.featureNnz});
    expects.push_back({"feat_values.bin", "feature_nnz", meta.featureNnz});
  }
  for (const Expect &e : expects) {
    std::string path = dir + "/" + e.file;
    int64_t size = 0;
    if (!fileSize(path, size)) {
      err = DatasetError{path, "", "missing (required by meta.json)"};
      return false;
    }
    if (size != 4 * e.elems) {
      err = DatasetError{path, e.field,
                         "file has " + std::to_string(size) + " bytes but " +
                             std::string(e.field) + " implies " +
                             std::to_string(4 * e.elems)};
      return false;
    }
  }
  return true;
}
