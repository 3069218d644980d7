//===- Synthetic.cpp - The synthetic(...) graph generator -----------------===//
//
// Chung-Lu with planted classes. Pairs are drawn with alias tables (O(1) per
// draw, so 10 M edges take seconds) and deduplicated in an open-addressing
// set whose insertion order is the draw order; the result therefore depends
// only on the seed. See Dataset.h for what is guaranteed.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Dataset.h"
#include "runtime/data/Random.h"

#include <algorithm>
#include <cmath>
#include <new>

using namespace gnnrt;
using namespace gnnrt::detail;

namespace {
// One RNG stream per part, so each part can change without moving the
// others (Dataset.cpp's stand-in features use stream 5).
constexpr uint64_t kPermStream = 1;
constexpr uint64_t kEdgeStream = 2;
constexpr uint64_t kFeatureStream = 3;
constexpr uint64_t kSplitStream = 4;

/// P(second end drawn from the first end's class) = 0.8, as a 2^-64
/// fraction.
constexpr uint64_t kIntraClass = 0xCCCCCCCCCCCCCCCDull;

/// The unordered pairs drawn so far: an open-addressing set of
/// `min << 32 | max` keys (never 0, since min < max).
class PairSet {
public:
  explicit PairSet(uint64_t expected) {
    uint64_t cap = 16;
    while (cap < expected + expected / 2 + 1)
      cap <<= 1;
    slots.assign(static_cast<size_t>(cap), 0);
    mask = cap - 1;
  }

  static uint64_t key(uint32_t a, uint32_t b) {
    return a < b ? (uint64_t(a) << 32) | b : (uint64_t(b) << 32) | a;
  }

  /// Inserts \p k; false if it was there already.
  bool insert(uint64_t k) {
    for (uint64_t i = mix64(k) & mask;; i = (i + 1) & mask) {
      if (slots[i] == k)
        return false;
      if (slots[i] == 0) {
        slots[i] = k;
        return true;
      }
    }
  }

  bool contains(uint64_t k) const {
    for (uint64_t i = mix64(k) & mask;; i = (i + 1) & mask) {
      if (slots[i] == k)
        return true;
      if (slots[i] == 0)
        return false;
    }
  }

private:
  std::vector<uint64_t> slots;
  uint64_t mask;
};

struct Generator {
  Generator(const SyntheticSpec &spec, int64_t edges)
      : spec(spec), n(spec.nodes), c(spec.classes), f(spec.features), e(edges) {
  }

  const SyntheticSpec &spec;
  int64_t n, c, f, e; ///< Nodes, classes, features, directed edges.
  std::vector<int32_t> labels;
  // Class c's members in rank order are order[classStart[c] ..
  // classStart[c+1]); their alias tables sit at the same positions.
  std::vector<int32_t> order;
  std::vector<int64_t> classStart;
  std::vector<uint64_t> classThreshold, classTotal;
  std::vector<uint32_t> classAlias;
  // The alias table over all nodes, indexed by node id.
  std::vector<uint64_t> nodeThreshold;
  std::vector<uint32_t> nodeAlias;
  uint64_t nodeTotal = 0;

  void planClassesAndWeights();
  int32_t drawNode(Rng &rng) const {
    return static_cast<int32_t>(
        sampleAlias(rng, nodeThreshold.data(), nodeAlias.data(), n, nodeTotal));
  }
  int32_t drawInClass(Rng &rng, int32_t cls) const {
    int64_t first = classStart[cls];
    size_t size = static_cast<size_t>(classStart[cls + 1] - first);
    uint32_t k = sampleAlias(rng, classThreshold.data() + first,
                             classAlias.data() + first, size, classTotal[cls]);
    return order[first + k];
  }
  std::vector<uint64_t> drawPairs();
  void buildGraph(const std::vector<uint64_t> &pairs, EdgeList &g) const;
  void makeFeatures(SparseMatrix &m) const;
  void makeSplit(Dataset &d) const;
};
} // namespace

/// Non-zeros per feature row: ~10% of the width, at most 64.
static int64_t featuresPerRow(int64_t features) {
  return std::min<int64_t>(64, (features + 9) / 10);
}

/// Training nodes taken from class \p cls, of ceil((n - cls) / c) nodes
/// (the class sizes planClassesAndWeights makes).
static int64_t trainQuota(int64_t n, int64_t c, int64_t cls) {
  const int64_t size = cls < n ? (n - cls + c - 1) / c : 0;
  return std::min<int64_t>(20, (size + 9) / 10);
}

int64_t gnnrt::syntheticTrainCount(int64_t nodes, int64_t classes) {
  int64_t count = 0;
  for (int64_t cls = 0; cls < classes; ++cls)
    count += trainQuota(nodes, classes, cls);
  return count;
}

int64_t gnnrt::syntheticFeatureNnz(int64_t nodes, int64_t features) {
  return nodes * featuresPerRow(features);
}

int64_t gnnrt::syntheticEdgeCount(int64_t nodes, double avgDegree) {
  // The front end's formula (lang/Sema), so the graph type it binds matches.
  double edges = std::round(static_cast<double>(nodes) * avgDegree);
  if (!(edges >= 0.0) || edges > 9.0e18)
    return -1;
  return static_cast<int64_t>(edges);
}

void Generator::planClassesAndWeights() {
  // Rank k (a seeded permutation's position) gives the weight and the
  // class, so every class gets hubs and the hubs are scattered over ids.
  std::vector<int32_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    perm[i] = static_cast<int32_t>(i);
  Rng rng(spec.seed, kPermStream);
  shuffle(perm, rng);

  // Weight ~ 2^24 (k+1)^-1/2: sqrt and division are correctly rounded in
  // IEEE 754, so every platform gets the same integers. At least 362 for
  // k < 2^31, so no node is left out.
  std::vector<uint64_t> rankWeight(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)
    rankWeight[k] = static_cast<uint64_t>(
        16777216.0 / std::sqrt(static_cast<double>(k + 1)));

  labels.assign(static_cast<size_t>(n), 0);
  std::vector<uint64_t> nodeWeight(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    labels[perm[k]] = static_cast<int32_t>(k % c);
    nodeWeight[perm[k]] = rankWeight[k];
  }
  nodeThreshold.resize(static_cast<size_t>(n));
  nodeAlias.resize(static_cast<size_t>(n));
  nodeTotal = buildAlias(nodeWeight.data(), static_cast<size_t>(n),
                         nodeThreshold.data(), nodeAlias.data());

  // Class cls holds ranks cls, cls + c, ...: (n - cls + c - 1) / c of them.
  classStart.assign(static_cast<size_t>(c) + 1, 0);
  for (int64_t cls = 0; cls < c; ++cls)
    classStart[cls + 1] =
        classStart[cls] + (cls < n ? (n - cls + c - 1) / c : 0);
  order.resize(static_cast<size_t>(n));
  std::vector<uint64_t> orderWeight(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    int64_t pos = classStart[k % c] + k / c;
    order[pos] = perm[k];
    orderWeight[pos] = rankWeight[k];
  }
  classThreshold.resize(static_cast<size_t>(n));
  classAlias.resize(static_cast<size_t>(n));
  classTotal.assign(static_cast<size_t>(c), 0);
  for (int64_t cls = 0; cls < c && cls < n; ++cls) {
    int64_t first = classStart[cls];
    classTotal[cls] =
        buildAlias(orderWeight.data() + first,
                   static_cast<size_t>(classStart[cls + 1] - first),
                   classThreshold.data() + first, classAlias.data() + first);
  }
}

std::vector<uint64_t> Generator::drawPairs() {
  // ceil(E/2) distinct pairs; with E odd the last gives one direction.
  uint64_t want = static_cast<uint64_t>((e + 1) / 2);
  uint64_t allPairs = static_cast<uint64_t>(n) * (n - 1) / 2;
  std::vector<uint64_t> pairs; // `u << 32 | v` as drawn
  pairs.reserve(static_cast<size_t>(want));
  PairSet seen(want);
  Rng rng(spec.seed, kEdgeStream);
  auto accept = [&](uint32_t u, uint32_t v) {
    if (u == v || !seen.insert(PairSet::key(u, v)))
      return;
    pairs.push_back((uint64_t(u) << 32) | v);
  };

  // Chung-Lu draws. A sparse graph is done long before the budget; a dense
  // one would spend ever more draws on pairs it already has.
  uint64_t budget = 4 * want + 1024;
  for (uint64_t tries = 0; pairs.size() < want && tries < budget; ++tries) {
    int32_t u = drawNode(rng);
    int32_t v =
        rng.chance(kIntraClass) ? drawInClass(rng, labels[u]) : drawNode(rng);
    accept(static_cast<uint32_t>(u), static_cast<uint32_t>(v));
  }
  if (pairs.size() == want)
    return pairs;

  uint64_t left = want - pairs.size();
  uint64_t unused = allPairs - pairs.size();
  if (unused > 2 * left) {
    // Sparse enough that uniform draws succeed at least half the time.
    while (pairs.size() < want) {
      uint32_t u = static_cast<uint32_t>(rng.below(n));
      uint32_t v = static_cast<uint32_t>(rng.below(n));
      accept(u, v);
    }
    return pairs;
  }
  // Nearly complete: pick the rest among the unused pairs by selection
  // sampling (Knuth's Algorithm S), one pass, no retries.
  for (uint32_t u = 0; u < n && left > 0; ++u) {
    for (uint32_t v = u + 1; v < n && left > 0; ++v) {
      if (seen.contains(PairSet::key(u, v)))
        continue;
      if (rng.below(unused) < left) {
        pairs.push_back((uint64_t(u) << 32) | v);
        --left;
      }
      --unused;
    }
  }
  return pairs;
}

void Generator::buildGraph(const std::vector<uint64_t> &pairs,
                           EdgeList &g) const {
  bool odd = e % 2 != 0;
  size_t numPairs = pairs.size();
  auto both = [&](size_t i) { return !(odd && i + 1 == numPairs); };
  // Counting sort by source, then each row by destination: edges end up
  // sorted by (src, dst) like the shipped datasets.
  std::vector<int32_t> indptr(static_cast<size_t>(n) + 1, 0);
  for (size_t i = 0; i < numPairs; ++i) {
    ++indptr[(pairs[i] >> 32) + 1];
    if (both(i))
      ++indptr[(pairs[i] & 0xFFFFFFFFull) + 1];
  }
  for (int64_t i = 0; i < n; ++i)
    indptr[i + 1] += indptr[i];
  g.numNodes = n;
  g.dst.resize(static_cast<size_t>(e));
  std::vector<int32_t> next(indptr.begin(), indptr.end() - 1);
  for (size_t i = 0; i < numPairs; ++i) {
    int32_t u = static_cast<int32_t>(pairs[i] >> 32);
    int32_t v = static_cast<int32_t>(pairs[i] & 0xFFFFFFFFull);
    g.dst[next[u]++] = v;
    if (both(i))
      g.dst[next[v]++] = u;
  }
  g.src.resize(static_cast<size_t>(e));
  for (int64_t u = 0; u < n; ++u) {
    std::sort(g.dst.begin() + indptr[u], g.dst.begin() + indptr[u + 1]);
    std::fill(g.src.begin() + indptr[u], g.src.begin() + indptr[u + 1],
              static_cast<int32_t>(u));
  }
}

void Generator::makeFeatures(SparseMatrix &m) const {
  int64_t perRow = featuresPerRow(f);
  m.numRows = n;
  m.numCols = f;
  m.indptr.resize(static_cast<size_t>(n) + 1);
  m.indices.resize(static_cast<size_t>(n * perRow));
  m.values.assign(static_cast<size_t>(n * perRow), 1.0f);
  for (int64_t i = 0; i < n; ++i) {
    m.indptr[i] = static_cast<int32_t>(i * perRow);
    // Class cls owns columns [cls * f / c, (cls + 1) * f / c), at least one.
    int64_t cls = labels[i];
    int64_t blockStart = cls * f / c;
    int64_t blockSize = std::max<int64_t>(1, (cls + 1) * f / c - blockStart);
    Rng rng(spec.seed, kFeatureStream, static_cast<uint64_t>(i));
    int32_t *row = m.indices.data() + i * perRow;
    int64_t have = 0;
    while (have < perRow) {
      int64_t col =
          (rng.next() >> 63)
              ? blockStart + static_cast<int64_t>(
                                 rng.below(static_cast<uint64_t>(blockSize)))
              : static_cast<int64_t>(rng.below(static_cast<uint64_t>(f)));
      if (std::find(row, row + have, col) == row + have)
        row[have++] = static_cast<int32_t>(col);
    }
    std::sort(row, row + perRow);
  }
  m.indptr[n] = static_cast<int32_t>(n * perRow);
}

void Generator::makeSplit(Dataset &d) const {
  std::vector<int32_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    perm[i] = static_cast<int32_t>(i);
  Rng rng(spec.seed, kSplitStream);
  shuffle(perm, rng);
  std::vector<int64_t> taken(static_cast<size_t>(c), 0);
  std::vector<int32_t> rest;
  rest.reserve(static_cast<size_t>(n));
  for (int32_t v : perm) {
    int32_t cls = labels[v];
    if (taken[cls] < trainQuota(n, c, cls)) {
      ++taken[cls];
      d.trainIdx.push_back(v);
    } else {
      rest.push_back(v);
    }
  }
  size_t numVal = std::min<size_t>(500, rest.size() / 4);
  size_t numTest = std::min<size_t>(1000, rest.size() / 2);
  d.valIdx.assign(rest.begin(), rest.begin() + numVal);
  d.testIdx.assign(rest.begin() + numVal, rest.begin() + numVal + numTest);
  for (std::vector<int32_t> *s : {&d.trainIdx, &d.valIdx, &d.testIdx})
    std::sort(s->begin(), s->end());
}

bool gnnrt::generateSynthetic(const SyntheticSpec &spec, Dataset &out,
                              DatasetError &err) {
  const std::string where = "synthetic(...)";
  auto fail = [&](const char *field, const std::string &message) {
    err = DatasetError{where, field, message};
    return false;
  };
  // The front end's ranges (lang/Sema/Builtins.cpp), checked again because
  // host programs can call this directly.
  if (spec.nodes < 2 || spec.nodes > kMaxEdges)
    return fail("nodes", "value " + std::to_string(spec.nodes) +
                             " is out of range [2, 2147483647]");
  if (!(spec.avgDegree > 0 && spec.avgDegree <= 1e6))
    return fail("avg_degree", "value " + std::to_string(spec.avgDegree) +
                                  " is out of range (0, 1e+06]");
  if (spec.avgDegree > static_cast<double>(spec.nodes - 1))
    return fail("avg_degree", "value " + std::to_string(spec.avgDegree) +
                                  " is larger than nodes - 1 = " +
                                  std::to_string(spec.nodes - 1));
  if (spec.features < 1 || spec.features > (int64_t(1) << 24))
    return fail("features", "value " + std::to_string(spec.features) +
                                " is out of range [1, 16777216]");
  if (spec.classes < 2 || spec.classes > (int64_t(1) << 20))
    return fail("classes", "value " + std::to_string(spec.classes) +
                               " is out of range [2, 1048576]");
  int64_t edges = syntheticEdgeCount(spec.nodes, spec.avgDegree);
  if (edges < 0 || edges > kMaxEdges)
    return fail("avg_degree", "the graph would have " + std::to_string(edges) +
                                  " edges; the limit is 2147483647 (int32 "
                                  "edge ids)");
  if (syntheticFeatureNnz(spec.nodes, spec.features) > kMaxEdges)
    return fail("features", "the features would have more than 2147483647 "
                            "non-zeros (int32 offsets)");

  try {
    Generator gen(spec, edges);
    gen.planClassesAndWeights();
    Dataset d;
    d.name = "synthetic(" + std::to_string(spec.nodes) + ", " +
             std::to_string(spec.avgDegree) + ", " +
             std::to_string(spec.features) + ", " +
             std::to_string(spec.classes) + ", " + std::to_string(spec.seed) +
             ")";
    d.numFeatures = spec.features;
    d.numClasses = spec.classes;
    {
      // The pair list and its set die here, before the features exist.
      std::vector<uint64_t> pairs = gen.drawPairs();
      gen.buildGraph(pairs, d.graph);
    }
    // The alias tables are not needed past this point.
    gen.nodeThreshold = {};
    gen.nodeAlias = {};
    gen.classThreshold = {};
    gen.classAlias = {};
    gen.makeFeatures(d.features);
    d.featureSource = FeatureSource::Generator;
    gen.makeSplit(d);
    d.labels = std::move(gen.labels);
    out = std::move(d);
    return true;
  } catch (const std::bad_alloc &) {
    return fail("nodes", "out of memory generating the graph");
  }
}
