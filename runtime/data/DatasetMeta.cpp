//===- DatasetMeta.cpp - gnnc dataset metadata ----------------------------===//
//
// meta.json is valid JSON; the runtime reads only its top-level scalar
// fields with a small scanner, which keeps it free of a JSON dependency.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/DatasetMeta.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
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

/// Collects the top-level `"key": value` pairs of meta.json, values as raw
/// text (numbers as written, strings with their quotes). Braces, brackets
/// and strings are tracked so keys of nested objects ("files",
/// "raw_edge_stats") never shadow the top-level fields, whatever the layout.
static std::map<std::string, std::string> scanFields(const std::string &text) {
  std::map<std::string, std::string> fields;
  int depth = 0;
  size_t i = 0, n = text.size();
  auto readString = [&](size_t start) {
    // text[start] is the opening quote; returns the index past the closing
    // one (or n when unterminated).
    size_t j = start + 1;
    while (j < n && text[j] != '"')
      j += text[j] == '\\' ? 2 : 1;
    return std::min(j + 1, n);
  };
  while (i < n) {
    char c = text[i];
    if (c == '{' || c == '[') {
      ++depth;
      ++i;
      continue;
    }
    if (c == '}' || c == ']') {
      --depth;
      ++i;
      continue;
    }
    if (c != '"') {
      ++i;
      continue;
    }
    size_t end = readString(i);
    if (depth != 1) {
      i = end;
      continue;
    }
    std::string key = text.substr(i + 1, end - i - 2);
    size_t j = end;
    while (j < n && std::isspace(static_cast<unsigned char>(text[j])))
      ++j;
    if (j >= n || text[j] != ':') {
      i = end; // A string value, not a key.
      continue;
    }
    ++j;
    while (j < n && std::isspace(static_cast<unsigned char>(text[j])))
      ++j;
    size_t valueStart = j;
    if (j < n && text[j] == '"') {
      j = readString(j);
    } else if (j < n && (text[j] == '{' || text[j] == '[')) {
      fields.emplace(key, ""); // Nested values are not read here.
      i = j;
      continue;
    } else {
      while (j < n && text[j] != ',' && text[j] != '}' && text[j] != '\n')
        ++j;
    }
    std::string value = text.substr(valueStart, j - valueStart);
    while (!value.empty() &&
           std::isspace(static_cast<unsigned char>(value.back())))
      value.pop_back();
    fields.emplace(key, value);
    i = j;
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
  // A name with a NUL would address another file than the one reported.
  if (dir.find('\0') != std::string::npos) {
    err = DatasetError{metaPath, "", "path contains a NUL byte"};
    return false;
  }
  // stdio, not iostreams: reading a directory must be an error, and
  // libstdc++'s filebuf throws for that even without an exception mask.
  int64_t metaSize = 0;
  std::FILE *f = fileSize(metaPath, metaSize)
                     ? std::fopen(metaPath.c_str(), "rb")
                     : nullptr;
  if (!f) {
    err = DatasetError{metaPath, "", "cannot open file"};
    return false;
  }
  if (metaSize > (1 << 24)) {
    std::fclose(f);
    err = DatasetError{metaPath, "", "file is larger than 16 MiB"};
    return false;
  }
  std::string text(static_cast<size_t>(metaSize), '\0');
  size_t got = std::fread(text.data(), 1, text.size(), f);
  std::fclose(f);
  text.resize(got);
  auto fields = scanFields(text);
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
  if (fields.count("num_unlabeled") &&
      !r.getInt("num_unlabeled", meta.numUnlabeled, 0, meta.numNodes))
    return false;
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
