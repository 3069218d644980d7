//===- Dataset.h - Datasets for the runtime ---------------------*- C++ -*-===//
//
// A dataset in memory (graph, labels, splits, sparse features) and the three
// ways to get one: from a directory in the gnnc format (format_version 1,
// shared/data/README.md), from arrays the host program already holds, and
// from the `synthetic(nodes, avg_degree, features, classes, seed)`
// generator. Files and host arrays go through the same validation; any
// defect is reported as a DatasetError naming the file (or host array) and
// field, never as an abort or an out-of-bounds read.
//
// Plain C++17, no LLVM: the runtime does not depend on the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_DATASET_H
#define GNNRT_DATASET_H

#include "gnnrt/DatasetMeta.h"
#include "gnnrt/Graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// A row-major sparse matrix in CSR form, the layout of feat_*.bin.
/// Features stay sparse: dense Facebook features would take 424 MB.
struct SparseMatrix {
  int64_t numRows = 0, numCols = 0;
  std::vector<int32_t> indptr;  ///< numRows + 1 offsets (empty if no rows).
  std::vector<int32_t> indices; ///< Column of each non-zero, increasing
                                ///< within a row.
  std::vector<float> values;    ///< Value of each non-zero.

  int64_t nnz() const { return static_cast<int64_t>(indices.size()); }
  /// Bytes of the dense fp32 form, numRows * numCols * 4.
  int64_t denseBytes() const { return numRows * numCols * 4; }
  /// Writes the dense row-major fp32 matrix to \p out. Refuses (returns
  /// false, \p out untouched) above \p maxBytes, so that a small-graph helper
  /// cannot allocate gigabytes for a large graph by accident.
  bool toDense(std::vector<float> &out, int64_t maxBytes = int64_t(1)
                                                           << 30) const;
  /// Writes the dense matrix to \p out (numRows * numCols floats, which
  /// the caller provides; the runtime's arena, say).
  void writeDense(float *out) const;
  /// Divides every row by the sum of its values (in double, each quotient
  /// rounded once), as PyTorch Geometric's NormalizeFeatures and the GCN
  /// reference code do; rows that sum to 0 stay as they are. What
  /// `dataset(..., normalize_features = true)` asks of the runtime.
  void normalizeRows();
};

/// Where a dataset's features came from.
enum class FeatureSource {
  File,          ///< feat_*.bin, or the host program's arrays.
  Generator,     ///< synthetic(...): class-dependent, learnable.
  RandomStandIn, ///< The dataset ships none (has_features = 0); seeded
                 ///< random values so that timing runs work. Accuracy on
                 ///< them is meaningless.
  None,          ///< The dataset ships none and none were made.
};

/// A dataset in memory. Node ids, labels and split entries are int32 like
/// the files; edge ids are the positions in `graph` (file order).
struct Dataset {
  std::string name;
  int64_t numFeatures = 0; ///< Feature width, also when features are None.
  int64_t numClasses = 0;
  EdgeList graph;              ///< No self loops, no duplicates.
  std::vector<int32_t> labels; ///< Per node, in [0, numClasses) or -1.
  std::vector<int32_t> trainIdx, valIdx, testIdx; ///< Strictly increasing,
                                                  ///< pairwise disjoint.
  SparseMatrix features; ///< numNodes x numFeatures; empty when None.
  FeatureSource featureSource = FeatureSource::None;

  int64_t numNodes() const { return graph.numNodes; }
  int64_t numEdges() const { return graph.numEdges(); }
};

/// What to do when a dataset ships no features (has_features = 0, PubMed).
enum class MissingFeatures {
  Error,      ///< Fail with a DatasetError naming has_features.
  Omit,       ///< Load the rest; FeatureSource::None, features empty.
  Synthesize, ///< FeatureSource::RandomStandIn (randomFeatures below).
};

struct LoadOptions {
  MissingFeatures missingFeatures = MissingFeatures::Error;
  /// For MissingFeatures::Synthesize: the seed (that of the PyTorch peer,
  /// shared/peers/torch_gcn_cpu.py) and the density (PubMed's real ~10%).
  uint64_t standInSeed = 12345;
  double standInDensity = 0.1;
};

/// Reads and validates the dataset in \p dir: meta.json and file sizes
/// (readDatasetMeta), then every file's contents: node ids in range, no self
/// loops, no duplicate edges, symmetric edges, labels in [-1, classes),
/// split indices in range, strictly increasing, pairwise disjoint and
/// labelled, feature CSR well formed (indptr from 0, non-decreasing, ending
/// at feature_nnz; columns in range and increasing per row; finite values).
/// On failure returns false with the file, field and first bad entry in
/// \p err; \p out is then unspecified.
bool loadDataset(const std::string &dir, const LoadOptions &opts, Dataset &out,
                 DatasetError &err);

/// A read-only view of a host array; converts from std::vector.
template <typename T> struct HostArray {
  const T *data = nullptr;
  int64_t size = 0;

  HostArray() = default;
  HostArray(const T *data, int64_t size) : data(data), size(size) {}
  HostArray(const std::vector<T> &v)
      : data(v.data()), size(static_cast<int64_t>(v.size())) {}
  /// A view of a temporary would dangle; name the vector instead.
  HostArray(std::vector<T> &&) = delete;
  bool given() const { return size != 0; }
};

/// A dataset the host program already holds. Give the graph either as COO
/// (`src`, `dst`: edge e is src[e] -> dst[e]) or as CSR over sources
/// (`csrIndptr` [numNodes + 1], `csrIndices`: the edges out of u are
/// csrIndices[csrIndptr[u] .. csrIndptr[u+1]), edge ids in that order).
/// Features as CSR (`feat*`) or dense row-major `denseFeatures`
/// [numNodes x numFeatures] (kept as CSR of its non-zeros), or neither.
/// Each split as an index list or as a 0/1 byte mask over nodes.
struct HostDataset {
  std::string name = "host";
  int64_t numNodes = 0, numFeatures = 0, numClasses = 0;
  HostArray<int32_t> src, dst;
  HostArray<int32_t> csrIndptr, csrIndices;
  HostArray<int32_t> featIndptr, featIndices;
  HostArray<float> featValues;
  HostArray<float> denseFeatures;
  HostArray<int32_t> labels;
  HostArray<int32_t> trainIdx, valIdx, testIdx;
  HostArray<uint8_t> trainMask, valMask, testMask;
};

struct HostLoadOptions {
  /// The file format promises a symmetric graph; a host graph may be
  /// directed.
  bool requireSymmetric = false;
  /// Drop self loops and repeated edges (keeping the first) instead of
  /// failing; edge ids are then renumbered in the order kept.
  bool dropSelfLoopsAndDuplicates = false;
  MissingFeatures missingFeatures = MissingFeatures::Error;
  uint64_t standInSeed = 12345;
  double standInDensity = 0.1;
};

/// Copies and validates a host dataset with the checks of loadDataset.
/// Errors name the array, e.g. "host 'mygraph': field 'dst': ...".
bool loadHostDataset(const HostDataset &in, const HostLoadOptions &opts,
                     Dataset &out, DatasetError &err);

/// The stand-in for features a dataset does not ship, in the manner of the
/// PyTorch peer: each entry independently non-zero with probability
/// \p density, values uniform in (0, 1] (multiples of 2^-24), deterministic
/// in \p seed (not the peer's bits: numpy's generator is not reproduced).
/// Costs one 64-bit draw per entry (rows * cols). Fails if the non-zeros
/// would exceed int32 offsets or \p density is outside [0, 1].
bool randomFeatures(int64_t rows, int64_t cols, double density, uint64_t seed,
                    SparseMatrix &out, DatasetError &err);

/// The arguments of `synthetic(...)`, defaults as in the language.
struct SyntheticSpec {
  int64_t nodes = 0;
  double avgDegree = 10;
  int64_t features = 64;
  int64_t classes = 8;
  uint64_t seed = 0;
};

/// The number of directed edges synthetic() makes: round(nodes *
/// avg_degree), as the front end computes it for the graph type.
int64_t syntheticEdgeCount(int64_t nodes, double avgDegree);

/// The number of stored feature values synthetic() makes: every node has
/// min(64, ceil(features / 10)) non-zeros, so the front end can type the
/// features before any data exists.
int64_t syntheticFeatureNnz(int64_t nodes, int64_t features);

/// The number of training nodes synthetic() labels: from each class of
/// ceil((nodes - class) / classes) nodes, a tenth (rounded up), at most 20
/// (Planetoid's 20 per class on large graphs). A function of the sizes
/// alone, so the compiler's cost model knows it before any data exists.
int64_t syntheticTrainCount(int64_t nodes, int64_t classes);

/// Generates `synthetic(nodes, avg_degree, features, classes, seed)`:
///
/// * Graph: exactly E = syntheticEdgeCount() directed edges, no self loops,
///   no duplicates, sorted by (src, dst). They come in ceil(E/2) distinct
///   node pairs, each giving both directions, so the graph is symmetric;
///   when E is odd the last pair drawn gives one direction only (the one
///   asymmetric edge, needed to honour E exactly).
/// * Degrees: Chung-Lu style. A seeded permutation gives each node a rank k
///   and weight ~ (k+1)^-1/2 (power law, exponent 3, like preferential
///   attachment); both ends of a pair are drawn in proportion to weight, so
///   the maximum degree is ~sqrt(nodes)/2 times the mean.
/// * Classes: rank k has class k mod classes (balanced). With probability
///   0.8 the second end is drawn from the first end's class, so edge
///   homophily is about 0.8 + 0.2/classes. Repeated pairs are redrawn; a
///   graph too dense for that to finish quickly gets its remaining pairs
///   uniformly.
/// * Features (CSR, values 1.0): each node has min(64, ceil(features / 10))
///   distinct columns, each drawn with probability 1/2 from its class's
///   block of features/classes columns and otherwise uniformly.
/// * Split: over a seeded permutation, train takes the first
///   min(20, ceil(size/10)) nodes of each class; of the rest, val takes the
///   next min(500, rest/4) and test the next min(1000, rest/2). All nodes
///   are labelled.
///
/// Everything uses integer sampling on splitmix64/xoshiro256** streams (and
/// only correctly rounded sqrt and division for the weights), so a seed
/// gives the same dataset on every platform. Arguments are checked as the
/// front end checks them.
bool generateSynthetic(const SyntheticSpec &spec, Dataset &out,
                       DatasetError &err);

} // namespace gnnrt

#endif // GNNRT_DATASET_H
