//===- Graph.cpp - Graph view checks, statuses and threads ----------------===//
//
// What the kernels trust about a graph is checked here once per bound graph,
// not on every call: a full check reads every index, as expensive as the
// aggregation itself.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#ifdef GNNRT_OPENBLAS
extern "C" void openblas_set_num_threads(int);
#endif

#include <limits>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace gnnrt::cpu;

namespace {

/// One view's offsets, ids and edge-id permutation; fills \p other (the
/// row of each edge id) and \p end (the stored end of each edge id) so the
/// caller can match the two views.
int checkCsr(const gnnrt_graph *g, const gnnrt_csr &csr,
             std::vector<int32_t> &row, std::vector<int32_t> &end) {
  if (int status = checkView(g, csr))
    return status;
  int64_t n = g->num_nodes, e = g->num_edges;
  row.assign(static_cast<size_t>(e), -1);
  end.assign(static_cast<size_t>(e), -1);
  for (int64_t i = 0; i < n; ++i) {
    int64_t begin = csr.indptr[i], stop = csr.indptr[i + 1];
    GNNRT_CHECK(begin <= stop && stop <= e, GNNRT_ERR_BAD_GRAPH);
    for (int64_t s = begin; s < stop; ++s) {
      int32_t id = csr.edge_id[s], other = csr.src[s];
      GNNRT_CHECK(id >= 0 && id < e && row[id] < 0, GNNRT_ERR_BAD_GRAPH);
      GNNRT_CHECK(other >= 0 && other < n, GNNRT_ERR_BAD_GRAPH);
      row[id] = static_cast<int32_t>(i);
      end[id] = other;
    }
  }
  return GNNRT_OK;
}

} // namespace

void gnnrt::cpu::blasOnOneThread() {
#ifdef GNNRT_OPENBLAS
  // openblas_set_num_threads also sets OpenMP's count in OpenBLAS's OpenMP
  // build, so that count is put back.
  static const bool once = [] {
#ifdef _OPENMP
    const int threads = omp_get_max_threads();
#endif
    openblas_set_num_threads(1);
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    return true;
  }();
  (void)once;
#endif
}

extern "C" {

const char *gnnrt_status_string(int status) {
  switch (status) {
  case GNNRT_OK:
    return "ok";
  case GNNRT_ERR_NULL_POINTER:
    return "null pointer";
  case GNNRT_ERR_BAD_SIZE:
    return "bad size";
  case GNNRT_ERR_BAD_ARGUMENT:
    return "bad argument";
  case GNNRT_ERR_BAD_GRAPH:
    return "malformed graph";
  case GNNRT_ERR_OUT_OF_MEMORY:
    return "out of memory";
  default:
    return "unknown status";
  }
}

int gnnrt_graph_check(const gnnrt_graph *g) {
  GNNRT_CHECK(g, GNNRT_ERR_NULL_POINTER);
  // Exceptions must not cross the C ABI; vectors of E entries may fail.
  try {
    std::vector<int32_t> inRow, inEnd;
    if (int status = checkCsr(g, g->in, inRow, inEnd))
      return status;
    if (!g->out.indptr)
      return GNNRT_OK;
    std::vector<int32_t> outRow, outEnd;
    if (int status = checkCsr(g, g->out, outRow, outEnd))
      return status;
    // Edge e is src -> dst in `in` (row dst, end src) and must be
    // dst -> src in `out` (row src, end dst).
    for (size_t e = 0; e < inRow.size(); ++e)
      GNNRT_CHECK(inRow[e] == outEnd[e] && inEnd[e] == outRow[e],
                  GNNRT_ERR_BAD_GRAPH);
    return GNNRT_OK;
  } catch (const std::bad_alloc &) {
    return GNNRT_ERR_OUT_OF_MEMORY;
  }
}

int64_t gnnrt_cpu_add_self_loops_storage(int64_t num_nodes, int64_t num_edges) {
  return gnnrt::kernel::selfLoopStorage(num_nodes, num_edges);
}

int gnnrt_cpu_add_self_loops(const gnnrt_graph *g, int32_t *storage,
                             gnnrt_graph *result) {
  GNNRT_CHECK(g && storage && result, GNNRT_ERR_NULL_POINTER);
  if (int status = checkView(g, g->in))
    return status;
  bool withOut = g->out.indptr != nullptr;
  if (withOut)
    if (int status = checkView(g, g->out))
      return status;
  int64_t n = g->num_nodes, e = g->num_edges;
  GNNRT_CHECK(gnnrt_cpu_add_self_loops_storage(n, e) >= 0, GNNRT_ERR_BAD_SIZE);
  int64_t total = e + n;
  int32_t *cursor = storage;
  // One view: row i keeps its slots and gains the loop (i, E + i) last. A
  // loop reversed is itself, so both views append the same slot.
  auto build = [&](const gnnrt_csr &from) {
    int32_t *indptr = cursor, *src = cursor + n + 1, *ids = src + total;
    cursor = ids + total;
    indptr[0] = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t begin = from.indptr[i], stop = from.indptr[i + 1];
      int64_t at = indptr[i];
      for (int64_t s = begin; s < stop; ++s, ++at) {
        src[at] = from.src[s];
        ids[at] = from.edge_id[s];
      }
      src[at] = static_cast<int32_t>(i);
      ids[at] = static_cast<int32_t>(e + i);
      indptr[i + 1] = static_cast<int32_t>(at + 1);
    }
    return gnnrt_csr{indptr, src, ids};
  };
  gnnrt_graph out{};
  out.num_nodes = n;
  out.num_edges = total;
  out.in = build(g->in);
  if (withOut)
    out.out = build(g->out);
  *result = out;
  return GNNRT_OK;
}

void gnnrt_cpu_set_num_threads(int n) {
#ifdef _OPENMP
  static const int defaultThreads = omp_get_max_threads();
  blasOnOneThread(); // first: it may set OpenMP's count
  omp_set_num_threads(n > 0 ? n : defaultThreads);
#else
  (void)n;
#endif
}

int gnnrt_cpu_get_num_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

} // extern "C"
