//===- Graph.cpp - Graph preprocessing for the runtime --------------------===//
//
// Counting sorts over edge ids: they are linear, and being stable they leave
// each row in increasing edge id without a comparison sort.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Graph.h"

using namespace gnnrt;

std::string gnnrt::checkEdgeList(const EdgeList &g) {
  if (g.numNodes < 0 || g.numNodes > kMaxEdges)
    return "node count " + std::to_string(g.numNodes) +
           " is outside [0, 2147483647]";
  if (g.src.size() != g.dst.size())
    return "src has " + std::to_string(g.src.size()) + " entries but dst has " +
           std::to_string(g.dst.size());
  if (g.numEdges() > kMaxEdges)
    return std::to_string(g.numEdges()) +
           " edges exceed the int32 edge id limit 2147483647";
  for (int64_t e = 0, n = g.numEdges(); e < n; ++e) {
    for (int32_t end : {g.src[e], g.dst[e]}) {
      if (end < 0 || end >= g.numNodes)
        return "edge " + std::to_string(e) + " (" + std::to_string(g.src[e]) +
               ", " + std::to_string(g.dst[e]) + ") has node " +
               std::to_string(end) + " outside [0, " +
               std::to_string(g.numNodes) + ")";
    }
  }
  return "";
}

/// Groups edges by `rows[e]`, listing `cols[e]`; stable in edge id.
static void compress(int64_t numNodes, const std::vector<int32_t> &rows,
                     const std::vector<int32_t> &cols, CompressedEdges &out) {
  size_t numEdges = rows.size();
  out.numNodes = numNodes;
  out.indptr.assign(static_cast<size_t>(numNodes) + 1, 0);
  for (int32_t r : rows)
    ++out.indptr[static_cast<size_t>(r) + 1];
  for (int64_t i = 0; i < numNodes; ++i)
    out.indptr[i + 1] += out.indptr[i];
  out.indices.resize(numEdges);
  out.edgeIds.resize(numEdges);
  // `next` starts as a copy of the row starts and walks each row forward.
  std::vector<int32_t> next(out.indptr.begin(), out.indptr.end() - 1);
  for (size_t e = 0; e < numEdges; ++e) {
    int32_t slot = next[rows[e]]++;
    out.indices[slot] = cols[e];
    out.edgeIds[slot] = static_cast<int32_t>(e);
  }
}

bool gnnrt::buildInCsr(const EdgeList &g, CompressedEdges &out,
                       std::string &error) {
  error = checkEdgeList(g);
  if (!error.empty())
    return false;
  compress(g.numNodes, g.dst, g.src, out);
  return true;
}

bool gnnrt::buildOutCsr(const EdgeList &g, CompressedEdges &out,
                        std::string &error) {
  error = checkEdgeList(g);
  if (!error.empty())
    return false;
  compress(g.numNodes, g.src, g.dst, out);
  return true;
}

EdgeList gnnrt::transposed(const EdgeList &g) {
  EdgeList t;
  t.numNodes = g.numNodes;
  t.src = g.dst;
  t.dst = g.src;
  return t;
}

std::vector<int32_t> gnnrt::inDegrees(const EdgeList &g) {
  if (!checkEdgeList(g).empty())
    return {};
  std::vector<int32_t> deg(static_cast<size_t>(g.numNodes), 0);
  for (int32_t d : g.dst)
    ++deg[d];
  return deg;
}
