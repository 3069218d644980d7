//===- Validate.cpp - Checks shared by every way to make a dataset --------===//
//
// Each check walks its array in order and stops at the first bad entry, so
// the message points at something a person can find with a hex dump. Edge
// checks group edges by source with a counting sort (linear, and no hash
// table whose iteration order could change which defect is "first").
//
//===----------------------------------------------------------------------===//
#include "runtime/data/Validate.h"

#include <algorithm>
#include <cmath>

using namespace gnnrt;
using namespace gnnrt::detail;

static bool fail(DatasetError &err, const Where &where,
                 const std::string &message) {
  err = DatasetError{where.file, where.field, message};
  return false;
}

static std::string edgeText(const EdgeList &g, int64_t e) {
  return "edge " + std::to_string(e) + " (" + std::to_string(g.src[e]) + ", " +
         std::to_string(g.dst[e]) + ")";
}

namespace {
/// Edges grouped by source: row u holds keys `dst << 32 | id`, sorted, so
/// equal destinations are adjacent with the lowest id first.
struct BySource {
  std::vector<int64_t> indptr;
  std::vector<uint64_t> keys;

  explicit BySource(const EdgeList &g) {
    size_t n = static_cast<size_t>(g.numNodes);
    indptr.assign(n + 1, 0);
    for (int32_t s : g.src)
      ++indptr[static_cast<size_t>(s) + 1];
    for (size_t i = 0; i < n; ++i)
      indptr[i + 1] += indptr[i];
    keys.resize(g.src.size());
    std::vector<int64_t> next(indptr.begin(), indptr.end() - 1);
    for (size_t e = 0; e < g.src.size(); ++e)
      keys[next[g.src[e]]++] = (static_cast<uint64_t>(g.dst[e]) << 32) | e;
    for (size_t i = 0; i < n; ++i)
      std::sort(keys.begin() + indptr[i], keys.begin() + indptr[i + 1]);
  }

  static int32_t dstOf(uint64_t key) { return static_cast<int32_t>(key >> 32); }
  static int64_t idOf(uint64_t key) {
    return static_cast<int64_t>(key & 0xFFFFFFFFull);
  }

  /// True if row \p u has an edge to \p v.
  bool has(int32_t u, int32_t v) const {
    auto first = keys.begin() + indptr[u], last = keys.begin() + indptr[u + 1];
    auto it = std::lower_bound(first, last, static_cast<uint64_t>(v) << 32);
    return it != last && dstOf(*it) == v;
  }
};
} // namespace

bool detail::checkEdges(const EdgeList &g, bool requireSymmetric,
                        const DatasetNames &names, DatasetError &err) {
  if (g.src.size() != g.dst.size())
    return fail(err, names.dst,
                "has " + std::to_string(g.dst.size()) +
                    " entries but src has " + std::to_string(g.src.size()));
  if (g.numEdges() > kMaxEdges)
    return fail(err, names.edges,
                std::to_string(g.numEdges()) +
                    " edges exceed the int32 edge id limit 2147483647");
  std::string range = "[0, " + std::to_string(g.numNodes) + ")";
  for (int64_t e = 0, n = g.numEdges(); e < n; ++e) {
    if (g.src[e] < 0 || g.src[e] >= g.numNodes)
      return fail(err, names.src,
                  edgeText(g, e) + ": source " + std::to_string(g.src[e]) +
                      " is outside " + range);
    if (g.dst[e] < 0 || g.dst[e] >= g.numNodes)
      return fail(err, names.dst,
                  edgeText(g, e) + ": destination " + std::to_string(g.dst[e]) +
                      " is outside " + range);
  }
  for (int64_t e = 0, n = g.numEdges(); e < n; ++e)
    if (g.src[e] == g.dst[e])
      return fail(err, names.edges,
                  edgeText(g, e) +
                      " is a self loop; datasets have none (gcn_conv adds "
                      "them itself)");

  BySource rows(g);
  int64_t firstRepeat = -1, firstOriginal = -1;
  for (int64_t u = 0; u < g.numNodes; ++u) {
    for (int64_t k = rows.indptr[u] + 1; k < rows.indptr[u + 1]; ++k) {
      if (BySource::dstOf(rows.keys[k]) != BySource::dstOf(rows.keys[k - 1]))
        continue;
      int64_t id = BySource::idOf(rows.keys[k]);
      if (firstRepeat < 0 || id < firstRepeat) {
        firstRepeat = id;
        // Walk back to the lowest id of the run: the edge it repeats.
        int64_t j = k - 1;
        while (j > rows.indptr[u] && BySource::dstOf(rows.keys[j - 1]) ==
                                         BySource::dstOf(rows.keys[k]))
          --j;
        firstOriginal = BySource::idOf(rows.keys[j]);
      }
    }
  }
  if (firstRepeat >= 0)
    return fail(err, names.edges,
                edgeText(g, firstRepeat) + " repeats edge " +
                    std::to_string(firstOriginal) +
                    "; datasets have no duplicate edges");
  if (requireSymmetric) {
    for (int64_t e = 0, n = g.numEdges(); e < n; ++e)
      if (!rows.has(g.dst[e], g.src[e]))
        return fail(err, names.edges,
                    edgeText(g, e) + " has no reverse edge (" +
                        std::to_string(g.dst[e]) + ", " +
                        std::to_string(g.src[e]) +
                        "); the graph must be symmetric");
  }
  return true;
}

void detail::dropSelfLoopsAndDuplicates(EdgeList &g) {
  BySource rows(g);
  std::vector<uint8_t> keep(g.src.size(), 1);
  for (int64_t u = 0; u < g.numNodes; ++u) {
    for (int64_t k = rows.indptr[u]; k < rows.indptr[u + 1]; ++k) {
      int32_t v = BySource::dstOf(rows.keys[k]);
      bool repeat =
          k > rows.indptr[u] && BySource::dstOf(rows.keys[k - 1]) == v;
      if (repeat || v == u)
        keep[BySource::idOf(rows.keys[k])] = 0;
    }
  }
  size_t out = 0;
  for (size_t e = 0; e < keep.size(); ++e) {
    if (!keep[e])
      continue;
    g.src[out] = g.src[e];
    g.dst[out] = g.dst[e];
    ++out;
  }
  g.src.resize(out);
  g.dst.resize(out);
}

bool detail::checkLabels(const Dataset &d, const DatasetNames &names,
                         DatasetError &err) {
  int64_t n = d.numNodes();
  if (static_cast<int64_t>(d.labels.size()) != n)
    return fail(err, names.labels,
                "has " + std::to_string(d.labels.size()) +
                    " entries but there are " + std::to_string(n) + " nodes");
  for (int64_t i = 0; i < n; ++i) {
    int32_t y = d.labels[i];
    if (y < -1 || y >= d.numClasses)
      return fail(err, names.labels,
                  "node " + std::to_string(i) + " has label " +
                      std::to_string(y) + ", outside [0, " +
                      std::to_string(d.numClasses) +
                      ") (num_classes; -1 means unlabelled)");
  }
  return true;
}

bool detail::checkSplits(const Dataset &d, const DatasetNames &names,
                         DatasetError &err) {
  const std::vector<int32_t> *splits[3] = {&d.trainIdx, &d.valIdx, &d.testIdx};
  int64_t n = d.numNodes();
  // owner[v] = 1 + the split that holds v, or 0.
  std::vector<uint8_t> owner(static_cast<size_t>(n), 0);
  for (int s = 0; s < 3; ++s) {
    const std::vector<int32_t> &idx = *splits[s];
    const Where &where = names.split[s];
    for (size_t k = 0; k < idx.size(); ++k) {
      std::string entry = "entry " + std::to_string(k) + " (node " +
                          std::to_string(idx[k]) + ")";
      if (idx[k] < 0 || idx[k] >= n)
        return fail(err, where,
                    entry + " is outside [0, " + std::to_string(n) + ")");
      if (k > 0 && idx[k] <= idx[k - 1])
        return fail(err, where,
                    entry + " is not greater than entry " +
                        std::to_string(k - 1) + " (node " +
                        std::to_string(idx[k - 1]) +
                        "); indices must be strictly increasing");
      if (owner[idx[k]] != 0)
        return fail(err, where,
                    entry + " is also in " +
                        names.split[owner[idx[k]] - 1].field + " (" +
                        names.split[owner[idx[k]] - 1].file +
                        "); splits must be disjoint");
      if (d.labels[idx[k]] < 0)
        return fail(err, where, entry + " has no label (-1)");
      owner[idx[k]] = static_cast<uint8_t>(s + 1);
    }
  }
  return true;
}

bool detail::checkFeatures(const SparseMatrix &m, const DatasetNames &names,
                           DatasetError &err) {
  int64_t rows = m.numRows;
  if (static_cast<int64_t>(m.indptr.size()) != rows + 1)
    return fail(
        err, names.featIndptr,
        "has " + std::to_string(m.indptr.size()) +
            " entries, expected num_nodes + 1 = " + std::to_string(rows + 1));
  if (m.indices.size() != m.values.size())
    return fail(err, names.featValues,
                "has " + std::to_string(m.values.size()) +
                    " entries but there are " +
                    std::to_string(m.indices.size()) + " column indices");
  int64_t nnz = m.nnz();
  if (m.indptr[0] != 0)
    return fail(err, names.featIndptr,
                "entry 0 is " + std::to_string(m.indptr[0]) + ", expected 0");
  for (int64_t i = 1; i <= rows; ++i)
    if (m.indptr[i] < m.indptr[i - 1])
      return fail(err, names.featIndptr,
                  "entry " + std::to_string(i) + " (" +
                      std::to_string(m.indptr[i]) + ") is less than entry " +
                      std::to_string(i - 1) + " (" +
                      std::to_string(m.indptr[i - 1]) +
                      "); offsets must be non-decreasing");
  if (m.indptr[rows] != nnz)
    return fail(err, names.featIndptr,
                "last entry is " + std::to_string(m.indptr[rows]) +
                    " but there are " + std::to_string(nnz) +
                    " non-zeros (feature_nnz)");
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t k = m.indptr[i]; k < m.indptr[i + 1]; ++k) {
      std::string entry = "entry " + std::to_string(k) + " (row " +
                          std::to_string(i) + ", column " +
                          std::to_string(m.indices[k]) + ")";
      if (m.indices[k] < 0 || m.indices[k] >= m.numCols)
        return fail(err, names.featIndices,
                    entry + ": column is outside [0, " +
                        std::to_string(m.numCols) + ") (num_features)");
      if (k > m.indptr[i] && m.indices[k] <= m.indices[k - 1])
        return fail(err, names.featIndices,
                    entry + ": column is not greater than the previous one (" +
                        std::to_string(m.indices[k - 1]) +
                        "); columns must be strictly increasing in a row");
      if (!std::isfinite(m.values[k]))
        return fail(err, names.featValues,
                    "entry " + std::to_string(k) + " (row " +
                        std::to_string(i) + ") is not a finite number");
    }
  }
  return true;
}
