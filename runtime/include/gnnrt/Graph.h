//===- Graph.h - Graph preprocessing for the runtime ------------*- C++ -*-===//
//
// The views of a bound graph, built once on the host: CSR by destination
// (the layout `gnn.spmm` reads), its transposed view and in-degrees. The
// graph-derived values of the dialect (`gnn.add_self_loops`,
// `gnn.edge_norm`) are kernels (gnnrt/Kernels.h) that generated code runs
// once per graph in `@M.prepare`; they are not repeated here.
//
// Edge ids are the positions in the edge list and every view keeps them
// (`edgeIds`), so one edge tensor indexed by original edge id (GCN weights,
// attention scores) serves the forward aggregation and its transposed
// backward, as the dialect promises.
//
// Plain C++17, no LLVM: the runtime does not depend on the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_GRAPH_H
#define GNNRT_GRAPH_H

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// The most edges a graph may have: edge ids and CSR offsets are int32.
constexpr int64_t kMaxEdges = 2147483647;

/// A directed graph as an edge list: edge `e` goes from `src[e]` to
/// `dst[e]`, and `e` is its id.
struct EdgeList {
  int64_t numNodes = 0;
  std::vector<int32_t> src, dst;

  int64_t numEdges() const { return static_cast<int64_t>(src.size()); }
};

/// Edges grouped by one end (the row) and listing the other end: row `r`
/// owns slots `[indptr[r], indptr[r+1])`; slot `k` holds the other end
/// `indices[k]` of edge `edgeIds[k]`. Within a row, slots are in increasing
/// edge id, so "the first incoming edge" (`gnn.spmm_max_grad`'s tie-break)
/// is the first slot.
struct CompressedEdges {
  int64_t numNodes = 0;
  std::vector<int32_t> indptr;  ///< numNodes + 1 offsets.
  std::vector<int32_t> indices; ///< The other end of each slot's edge.
  std::vector<int32_t> edgeIds; ///< The original id of each slot's edge.

  int64_t numEdges() const { return static_cast<int64_t>(indices.size()); }
  int32_t rowSize(int64_t row) const { return indptr[row + 1] - indptr[row]; }
};

/// Checks what every function below relies on: `src` and `dst` of equal
/// length, at most kMaxEdges of them, every id in [0, numNodes), numNodes in
/// [0, 2^31 - 1]. Returns an empty string when \p g is sound, else what is
/// wrong with the first bad edge. Functions below return false (or empty
/// results) rather than read out of bounds when it fails.
std::string checkEdgeList(const EdgeList &g);

/// CSR by destination (incoming edges): row `i` lists the sources of the
/// edges into `i`. This is the layout of `gnn.spmm`: `y[i]` aggregates
/// over row `i`.
bool buildInCsr(const EdgeList &g, CompressedEdges &out, std::string &error);

/// CSR by source (outgoing edges), i.e. the CSC view of the same adjacency
/// and the in-CSR of `gnn.transpose`'s graph: row `j` lists the
/// destinations of the edges out of `j`. The backward pass of an
/// aggregation reads this view.
bool buildOutCsr(const EdgeList &g, CompressedEdges &out, std::string &error);

/// `gnn.transpose`: every edge reversed, edge ids kept.
EdgeList transposed(const EdgeList &g);

/// The number of incoming edges of each node (empty if \p g is unsound).
std::vector<int32_t> inDegrees(const EdgeList &g);

} // namespace gnnrt

#endif // GNNRT_GRAPH_H
