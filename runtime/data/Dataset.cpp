//===- Dataset.cpp - Loading datasets from files and host arrays ----------===//
//
// Files are read with stdio in bounded chunks: readDatasetMeta has already
// matched every size to meta.json, but a file can still change underneath
// us, so each read checks what it got. Nothing is trusted until the shared
// checks in Validate.cpp have passed.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Dataset.h"
#include "runtime/data/Random.h"
#include "runtime/data/Validate.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>

using namespace gnnrt;
using namespace gnnrt::detail;

bool SparseMatrix::toDense(std::vector<float> &out, int64_t maxBytes) const {
  if (numRows < 0 || numCols < 0 ||
      static_cast<int64_t>(indptr.size()) != numRows + 1 ||
      indices.size() != values.size())
    return false;
  if (numCols > 0 && numRows > maxBytes / 4 / numCols)
    return false;
  std::vector<float> dense(static_cast<size_t>(numRows * numCols));
  writeDense(dense.data());
  out = std::move(dense);
  return true;
}

void SparseMatrix::writeDense(float *out) const {
  std::fill(out, out + numRows * numCols, 0.0f);
  for (int64_t i = 0; i + 1 < static_cast<int64_t>(indptr.size()); ++i) {
    int64_t first = std::max<int64_t>(indptr[i], 0);
    int64_t last = std::min<int64_t>(indptr[i + 1], nnz());
    for (int64_t k = first; k < last; ++k)
      if (indices[k] >= 0 && indices[k] < numCols)
        out[i * numCols + indices[k]] = values[k];
  }
}

void SparseMatrix::normalizeRows() {
  for (int64_t r = 0; r < numRows; ++r) {
    double sum = 0;
    for (int32_t k = indptr[r]; k < indptr[r + 1]; ++k)
      sum += values[k];
    if (sum == 0)
      continue;
    for (int32_t k = indptr[r]; k < indptr[r + 1]; ++k)
      values[k] = static_cast<float>(static_cast<double>(values[k]) / sum);
  }
}

//===----------------------------------------------------------------------===//
// Reading files
//===----------------------------------------------------------------------===//

static bool hostIsLittleEndian() {
  uint32_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

/// Reads exactly \p count little-endian 4-byte values from \p path, passing
/// each chunk to \p sink(words, n) as host-order uint32.
template <typename Sink>
static bool readWords(const std::string &path, const std::string &field,
                      int64_t count, DatasetError &err, Sink sink) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    err = DatasetError{path, "", "cannot open file"};
    return false;
  }
  const bool swap = !hostIsLittleEndian();
  constexpr int64_t kChunk = 1 << 16;
  std::vector<uint32_t> buf(static_cast<size_t>(std::min(count, kChunk)));
  int64_t done = 0;
  while (done < count) {
    size_t want = static_cast<size_t>(std::min(count - done, kChunk));
    size_t got = std::fread(buf.data(), 4, want, f);
    if (swap)
      for (size_t i = 0; i < got; ++i)
        buf[i] = (buf[i] >> 24) | ((buf[i] >> 8) & 0xFF00u) |
                 ((buf[i] << 8) & 0xFF0000u) | (buf[i] << 24);
    sink(buf.data(), done, got);
    done += static_cast<int64_t>(got);
    if (got != want)
      break;
  }
  std::fclose(f);
  if (done != count) {
    err =
        DatasetError{path, field,
                     "file ends after " + std::to_string(done) +
                         " values; meta.json implies " + std::to_string(count)};
    return false;
  }
  return true;
}

template <typename T>
static bool readArray(const std::string &path, const std::string &field,
                      int64_t count, std::vector<T> &out, DatasetError &err) {
  static_assert(sizeof(T) == 4, "the format has 4-byte values only");
  out.resize(static_cast<size_t>(count));
  return readWords(path, field, count, err,
                   [&](const uint32_t *w, int64_t at, size_t n) {
                     std::memcpy(out.data() + at, w, n * 4);
                   });
}

static DatasetNames fileNames(const std::string &dir) {
  DatasetNames n;
  std::string edges = dir + "/edges.bin";
  n.src = {edges, "src"};
  n.dst = {edges, "dst"};
  n.edges = {edges, "edges"};
  n.labels = {dir + "/labels.bin", "labels"};
  n.split[0] = {dir + "/train_idx.bin", "train_idx"};
  n.split[1] = {dir + "/val_idx.bin", "val_idx"};
  n.split[2] = {dir + "/test_idx.bin", "test_idx"};
  n.featIndptr = {dir + "/feat_indptr.bin", "feat_indptr"};
  n.featIndices = {dir + "/feat_indices.bin", "feat_indices"};
  n.featValues = {dir + "/feat_values.bin", "feat_values"};
  return n;
}

/// Features for a dataset that has none, by \p policy.
static bool missingFeatures(MissingFeatures policy, uint64_t seed,
                            double density, const Where &hasFeatures,
                            Dataset &out, DatasetError &err) {
  switch (policy) {
  case MissingFeatures::Error:
    err = DatasetError{hasFeatures.file, hasFeatures.field,
                       "the dataset ships no node features; load it with "
                       "MissingFeatures::Omit or MissingFeatures::Synthesize "
                       "(random stand-in values)"};
    return false;
  case MissingFeatures::Omit:
    out.features = SparseMatrix();
    out.featureSource = FeatureSource::None;
    return true;
  case MissingFeatures::Synthesize:
    out.featureSource = FeatureSource::RandomStandIn;
    return randomFeatures(out.numNodes(), out.numFeatures, density, seed,
                          out.features, err);
  }
  return false;
}

static bool loadFromDir(const std::string &dir, const LoadOptions &opts,
                        Dataset &out, DatasetError &err) {
  DatasetMeta meta;
  if (!readDatasetMeta(dir, meta, err))
    return false;
  DatasetNames names = fileNames(dir);
  Dataset d;
  d.name = meta.name;
  d.numFeatures = meta.numFeatures;
  d.numClasses = meta.numClasses;
  d.graph.numNodes = meta.numNodes;

  // edges.bin interleaves (src, dst); split it while reading.
  d.graph.src.resize(static_cast<size_t>(meta.numEdges));
  d.graph.dst.resize(static_cast<size_t>(meta.numEdges));
  if (!readWords(names.edges.file, "num_edges", 2 * meta.numEdges, err,
                 [&](const uint32_t *w, int64_t at, size_t n) {
                   for (size_t i = 0; i < n; ++i) {
                     int64_t word = at + static_cast<int64_t>(i);
                     int32_t v;
                     std::memcpy(&v, &w[i], 4);
                     (word % 2 == 0 ? d.graph.src : d.graph.dst)[word / 2] = v;
                   }
                 }))
    return false;
  if (!checkEdges(d.graph, /*requireSymmetric=*/true, names, err))
    return false;

  if (!readArray(names.labels.file, "num_nodes", meta.numNodes, d.labels,
                 err) ||
      !checkLabels(d, names, err))
    return false;
  std::vector<int32_t> *splits[3] = {&d.trainIdx, &d.valIdx, &d.testIdx};
  const char *countFields[3] = {"num_train", "num_val", "num_test"};
  int64_t counts[3] = {meta.numTrain, meta.numVal, meta.numTest};
  for (int s = 0; s < 3; ++s)
    if (!readArray(names.split[s].file, countFields[s], counts[s], *splits[s],
                   err))
      return false;
  if (!checkSplits(d, names, err))
    return false;
  // Checked after the splits: a -1 on a split node has a better message.
  if (meta.numUnlabeled >= 0) {
    int64_t unlabeled = std::count(d.labels.begin(), d.labels.end(), -1);
    if (unlabeled != meta.numUnlabeled) {
      err = DatasetError{names.labels.file, "num_unlabeled",
                         std::to_string(unlabeled) +
                             " nodes have label -1 but meta.json says " +
                             std::to_string(meta.numUnlabeled)};
      return false;
    }
  }

  if (meta.hasFeatures) {
    SparseMatrix &m = d.features;
    m.numRows = meta.numNodes;
    m.numCols = meta.numFeatures;
    if (!readArray(names.featIndptr.file, "num_nodes", meta.numNodes + 1,
                   m.indptr, err) ||
        !readArray(names.featIndices.file, "feature_nnz", meta.featureNnz,
                   m.indices, err) ||
        !readArray(names.featValues.file, "feature_nnz", meta.featureNnz,
                   m.values, err) ||
        !checkFeatures(m, names, err))
      return false;
    d.featureSource = FeatureSource::File;
  } else if (!missingFeatures(opts.missingFeatures, opts.standInSeed,
                              opts.standInDensity,
                              {dir + "/meta.json", "has_features"}, d, err)) {
    return false;
  }
  out = std::move(d);
  return true;
}

bool gnnrt::loadDataset(const std::string &dir, const LoadOptions &opts,
                        Dataset &out, DatasetError &err) {
  try {
    return loadFromDir(dir, opts, out, err);
  } catch (const std::bad_alloc &) {
    err = DatasetError{dir, "", "out of memory while loading the dataset"};
    return false;
  }
}

//===----------------------------------------------------------------------===//
// Host arrays
//===----------------------------------------------------------------------===//

template <typename T> static std::vector<T> copyOf(const HostArray<T> &a) {
  if (!a.data || a.size <= 0)
    return {};
  return std::vector<T>(a.data, a.data + a.size);
}

static bool fail(DatasetError &err, const Where &where,
                 const std::string &message) {
  err = DatasetError{where.file, where.field, message};
  return false;
}

static bool checkSize(const Where &where, int64_t size, int64_t expected,
                      const std::string &what, DatasetError &err) {
  if (size == expected)
    return true;
  return fail(err, where,
              "has " + std::to_string(size) + " entries, expected " + what +
                  " = " + std::to_string(expected));
}

static bool loadFromHost(const HostDataset &in, const HostLoadOptions &opts,
                         Dataset &out, DatasetError &err) {
  std::string file = "host '" + in.name + "'";
  auto at = [&](const char *field) { return Where{file, field}; };
  DatasetNames names;
  names.src = at("src");
  names.dst = at("dst");
  names.edges = at("edges");
  names.labels = at("labels");
  names.featIndptr = at("feat_indptr");
  names.featIndices = at("feat_indices");
  names.featValues = at("feat_values");
  const HostArray<uint8_t> *masks[3] = {&in.trainMask, &in.valMask,
                                        &in.testMask};
  const HostArray<int32_t> *lists[3] = {&in.trainIdx, &in.valIdx, &in.testIdx};
  const char *maskFields[3] = {"train_mask", "val_mask", "test_mask"};
  const char *listFields[3] = {"train_idx", "val_idx", "test_idx"};
  for (int s = 0; s < 3; ++s)
    names.split[s] = at(masks[s]->given() ? maskFields[s] : listFields[s]);

  // The counts are the host's meta.json; hold them to the same ranges.
  if (in.numNodes < 1 || in.numNodes > kMaxEdges)
    return fail(err, at("num_nodes"),
                "value " + std::to_string(in.numNodes) +
                    " is out of range [1, 2147483647]");
  if (in.numFeatures < 1 || in.numFeatures > kMaxEdges)
    return fail(err, at("num_features"),
                "value " + std::to_string(in.numFeatures) +
                    " is out of range [1, 2147483647]");
  if (in.numClasses < 1 || in.numClasses > kMaxEdges)
    return fail(err, at("num_classes"),
                "value " + std::to_string(in.numClasses) +
                    " is out of range [1, 2147483647]");
  for (const HostArray<int32_t> *a :
       {&in.src, &in.dst, &in.csrIndptr, &in.csrIndices, &in.featIndptr,
        &in.featIndices, &in.labels, &in.trainIdx, &in.valIdx, &in.testIdx})
    if (a->size < 0 || (a->size > 0 && !a->data))
      return fail(err, at("arrays"),
                  "an array has a null pointer or a "
                  "negative size");
  for (const HostArray<float> *a : {&in.featValues, &in.denseFeatures})
    if (a->size < 0 || (a->size > 0 && !a->data))
      return fail(err, at("arrays"),
                  "an array has a null pointer or a "
                  "negative size");
  for (const HostArray<uint8_t> *a : masks)
    if (a->size < 0 || (a->size > 0 && !a->data))
      return fail(err, at("arrays"),
                  "an array has a null pointer or a "
                  "negative size");

  Dataset d;
  d.name = in.name;
  d.numFeatures = in.numFeatures;
  d.numClasses = in.numClasses;
  int64_t n = in.numNodes;
  d.graph.numNodes = n;

  // Graph: CSR over sources becomes COO in slot order.
  if (in.csrIndptr.given()) {
    if (in.src.given() || in.dst.given())
      return fail(err, at("csr_indptr"),
                  "give the graph as COO (src, dst) or as CSR, not both");
    Where indptr = at("csr_indptr"), indices = at("csr_indices");
    if (!checkSize(indptr, in.csrIndptr.size, n + 1, "num_nodes + 1", err))
      return false;
    const int32_t *p = in.csrIndptr.data;
    if (p[0] != 0)
      return fail(err, indptr,
                  "entry 0 is " + std::to_string(p[0]) + ", expected 0");
    for (int64_t i = 1; i <= n; ++i)
      if (p[i] < p[i - 1])
        return fail(err, indptr,
                    "entry " + std::to_string(i) + " (" + std::to_string(p[i]) +
                        ") is less than entry " + std::to_string(i - 1) + " (" +
                        std::to_string(p[i - 1]) +
                        "); offsets must be non-decreasing");
    if (p[n] != in.csrIndices.size)
      return fail(err, indptr,
                  "last entry is " + std::to_string(p[n]) +
                      " but csr_indices "
                      "has " +
                      std::to_string(in.csrIndices.size) + " entries");
    d.graph.src.resize(static_cast<size_t>(p[n]));
    for (int64_t u = 0; u < n; ++u)
      std::fill(d.graph.src.begin() + p[u], d.graph.src.begin() + p[u + 1],
                static_cast<int32_t>(u));
    d.graph.dst = copyOf(in.csrIndices);
    // Ids in range are a property of the indices, not of the derived src.
    names.dst = indices;
  } else {
    if (!checkSize(at("dst"), in.dst.size, in.src.size, "the size of src", err))
      return false;
    d.graph.src = copyOf(in.src);
    d.graph.dst = copyOf(in.dst);
  }
  if (opts.dropSelfLoopsAndDuplicates) {
    // Drop only once ids are known to be in range (the check says which).
    if (!checkEdges(d.graph, false, names, err) &&
        err.field != names.edges.field)
      return false;
    dropSelfLoopsAndDuplicates(d.graph);
  }
  if (!checkEdges(d.graph, opts.requireSymmetric, names, err))
    return false;

  if (!checkSize(names.labels, in.labels.size, n, "num_nodes", err))
    return false;
  d.labels = copyOf(in.labels);
  if (!checkLabels(d, names, err))
    return false;

  std::vector<int32_t> *splits[3] = {&d.trainIdx, &d.valIdx, &d.testIdx};
  for (int s = 0; s < 3; ++s) {
    if (masks[s]->given()) {
      if (lists[s]->given())
        return fail(err, names.split[s],
                    std::string("give ") + listFields[s] + " or " +
                        maskFields[s] + ", not both");
      if (!checkSize(names.split[s], masks[s]->size, n, "num_nodes", err))
        return false;
      for (int64_t i = 0; i < n; ++i)
        if (masks[s]->data[i])
          splits[s]->push_back(static_cast<int32_t>(i));
    } else {
      *splits[s] = copyOf(*lists[s]);
    }
  }
  if (!checkSplits(d, names, err))
    return false;

  if (in.featIndptr.given()) {
    if (in.denseFeatures.given())
      return fail(err, names.featIndptr,
                  "give the features as CSR or dense, not both");
    SparseMatrix &m = d.features;
    m.numRows = n;
    m.numCols = in.numFeatures;
    m.indptr = copyOf(in.featIndptr);
    m.indices = copyOf(in.featIndices);
    m.values = copyOf(in.featValues);
    if (!checkFeatures(m, names, err))
      return false;
    d.featureSource = FeatureSource::File;
  } else if (in.denseFeatures.given()) {
    Where dense = at("dense_features");
    if (in.denseFeatures.size / in.numFeatures != n ||
        in.denseFeatures.size % in.numFeatures != 0)
      return fail(err, dense,
                  "has " + std::to_string(in.denseFeatures.size) +
                      " entries, expected num_nodes * num_features = " +
                      std::to_string(n) + " * " +
                      std::to_string(in.numFeatures));
    SparseMatrix &m = d.features;
    m.numRows = n;
    m.numCols = in.numFeatures;
    m.indptr.assign(1, 0);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < in.numFeatures; ++j) {
        float v = in.denseFeatures.data[i * in.numFeatures + j];
        if (v == 0.0f)
          continue;
        if (m.nnz() == kMaxEdges)
          return fail(err, dense,
                      "more than 2147483647 non-zeros (int32 offsets)");
        m.indices.push_back(static_cast<int32_t>(j));
        m.values.push_back(v);
      }
      m.indptr.push_back(static_cast<int32_t>(m.nnz()));
    }
    names.featValues = dense;
    if (!checkFeatures(m, names, err))
      return false;
    d.featureSource = FeatureSource::File;
  } else if (!missingFeatures(opts.missingFeatures, opts.standInSeed,
                              opts.standInDensity, at("features"), d, err)) {
    return false;
  }
  out = std::move(d);
  return true;
}

bool gnnrt::loadHostDataset(const HostDataset &in, const HostLoadOptions &opts,
                            Dataset &out, DatasetError &err) {
  try {
    return loadFromHost(in, opts, out, err);
  } catch (const std::bad_alloc &) {
    err = DatasetError{"host '" + in.name + "'", "",
                       "out of memory while copying the dataset"};
    return false;
  }
}

//===----------------------------------------------------------------------===//
// Stand-in features
//===----------------------------------------------------------------------===//

/// The RNG stream of stand-in features (Synthetic.cpp uses 1 to 4).
constexpr uint64_t kStandInStream = 5;

bool gnnrt::randomFeatures(int64_t rows, int64_t cols, double density,
                           uint64_t seed, SparseMatrix &out,
                           DatasetError &err) {
  const std::string where = "random features";
  if (!(density >= 0.0 && density <= 1.0)) {
    err = DatasetError{where, "density",
                       "must be in [0, 1], not " + std::to_string(density)};
    return false;
  }
  if (rows < 0 || cols < 0 || rows > kMaxEdges || cols > kMaxEdges) {
    err = DatasetError{where, "shape", "rows and columns must be in [0, 2^31)"};
    return false;
  }
  // Entry kept iff its 64-bit draw is below density * 2^64 (exact: a power
  // of two scale); the draw's low 24 bits, independent of that test, give
  // the value.
  double scaled = density * 0x1p64;
  uint64_t threshold =
      scaled >= 0x1p64 ? ~uint64_t(0) : static_cast<uint64_t>(scaled);
  bool all = density >= 1.0;
  SparseMatrix m;
  m.numRows = rows;
  m.numCols = cols;
  m.indptr.reserve(static_cast<size_t>(rows) + 1);
  m.indptr.push_back(0);
  try {
    size_t expected = static_cast<size_t>(double(rows) * double(cols) *
                                          std::min(1.0, density * 1.05));
    m.indices.reserve(std::min<size_t>(expected, size_t(kMaxEdges)));
    m.values.reserve(m.indices.capacity());
    for (int64_t i = 0; i < rows; ++i) {
      // One stream per row: rows can be regenerated independently.
      Rng rng(seed, kStandInStream, static_cast<uint64_t>(i));
      for (int64_t j = 0; j < cols; ++j) {
        uint64_t r = rng.next();
        if (!all && r >= threshold)
          continue;
        if (m.nnz() == kMaxEdges) {
          err = DatasetError{where, "density",
                             "more than 2147483647 non-zeros (int32 offsets)"};
          return false;
        }
        m.indices.push_back(static_cast<int32_t>(j));
        m.values.push_back(static_cast<float>((r & 0xFFFFFF) + 1) * 0x1p-24f);
      }
      m.indptr.push_back(static_cast<int32_t>(m.nnz()));
    }
  } catch (const std::bad_alloc &) {
    err = DatasetError{where, "", "out of memory"};
    return false;
  }
  out = std::move(m);
  return true;
}
