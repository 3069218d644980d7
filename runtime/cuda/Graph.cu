//===- Graph.cu - Self loops and edge norms on the device -----------------===//
//
// gnnrt_cuda_add_self_loops and gnnrt_cuda_edge_norm: the graph-derived
// values that generated code computes once per bound graph in @M.prepare.
// Both are pure index arithmetic (and one double expression per edge), so
// their results equal gnnrt_cpu_*'s bit for bit.
//
// Argument checks are the CPU kernels' except the O(1) reads of the offsets
// (indptr[0] == 0, indptr[N] == E): the arrays are in device memory, and
// reading them would synchronize the stream on every call. Like index
// contents, they are checked once per bound graph by gnnrt_graph_check on
// the host before the graph is uploaded.
//
//===----------------------------------------------------------------------===//
#include "KernelSupport.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace {

using namespace gnnrt::cuda;

/// Row i of the view with loops starts after the i loops of the rows
/// before it.
__global__ void selfLoopOffsets(const int32_t *indptr, int64_t n,
                                int32_t *out) {
  for (int64_t i = firstItem(); i <= n; i += itemStride())
    out[i] = static_cast<int32_t>(indptr[i] + i);
}

/// Items [0, E) move the existing slots (slot s of row i to s + i); items
/// [E, E + N) append the loop of node i after its row's last slot.
__global__ void selfLoopSlots(const int32_t *indptr, const int32_t *src,
                              const int32_t *ids, int64_t n, int64_t e,
                              int32_t *newSrc, int32_t *newIds) {
  for (int64_t t = firstItem(); t < e + n; t += itemStride()) {
    if (t < e) {
      const int64_t at = t + rowOfSlot(indptr, n, t);
      newSrc[at] = src[t];
      newIds[at] = ids[t];
    } else {
      const int64_t i = t - e, at = indptr[i + 1] + i;
      newSrc[at] = static_cast<int32_t>(i);
      newIds[at] = static_cast<int32_t>(e + i);
    }
  }
}

/// One weight per slot, written at the slot's edge id: the CPU kernel's
/// expression in double, rounded once.
__global__ void edgeNormKernel(const int32_t *indptr, const int32_t *src,
                               const int32_t *ids, int64_t n, int64_t e,
                               bool mean, float *w) {
  for (int64_t s = firstItem(); s < e; s += itemStride()) {
    const int64_t i = rowOfSlot(indptr, n, s);
    const double dd = static_cast<double>(indptr[i + 1] - indptr[i]);
    double v;
    if (mean) {
      v = 1.0 / dd;
    } else {
      const int32_t j = src[s];
      const double ds = static_cast<double>(indptr[j + 1] - indptr[j]);
      v = ds == 0 ? 0.0 : 1.0 / sqrt(ds) * (1.0 / sqrt(dd));
    }
    w[ids[s]] = static_cast<float>(v);
  }
}

} // namespace

extern "C" {

int gnnrt_cuda_add_self_loops(const gnnrt_graph *g, int32_t *storage,
                              gnnrt_graph *result) {
  GNNRT_CHECK(g && storage && result, GNNRT_ERR_NULL_POINTER);
  if (int status = checkView(g, g->in))
    return status;
  const bool withOut = g->out.indptr != nullptr;
  if (withOut)
    if (int status = checkView(g, g->out))
      return status;
  const int64_t n = g->num_nodes, e = g->num_edges;
  GNNRT_CHECK(gnnrt::kernel::selfLoopStorage(n, e) >= 0, GNNRT_ERR_BAD_SIZE);
  int status = GNNRT_OK;
  gnnrt_cuda *ctx = gnnrt::cuda::current(status);
  if (!ctx)
    return status;

  // The layout of gnnrt_cpu_add_self_loops: per view indptr[N + 1], then
  // src and edge_id of E + N slots each, `in` first.
  const int64_t total = e + n;
  int32_t *cursor = storage;
  auto build = [&](const gnnrt_csr &from, gnnrt_csr &to) -> int {
    int32_t *indptr = cursor, *src = cursor + n + 1, *ids = src + total;
    cursor = ids + total;
    GNNRT_RETURN_IF_ERROR(launch(ctx, "selfLoopOffsets", n + 1, selfLoopOffsets,
                                 from.indptr, n, indptr));
    GNNRT_RETURN_IF_ERROR(launch(ctx, "selfLoopSlots", total, selfLoopSlots,
                                 from.indptr, from.src, from.edge_id, n, e, src,
                                 ids));
    to = gnnrt_csr{indptr, src, ids};
    return GNNRT_OK;
  };
  gnnrt_graph out{};
  out.num_nodes = n;
  out.num_edges = total;
  GNNRT_RETURN_IF_ERROR(build(g->in, out.in));
  if (withOut)
    GNNRT_RETURN_IF_ERROR(build(g->out, out.out));
  *result = out;
  return GNNRT_OK;
}

int gnnrt_cuda_edge_norm(const gnnrt_graph *g, int kind, float *w) {
  GNNRT_CHECK(g, GNNRT_ERR_NULL_POINTER);
  if (int status = checkView(g, g->in))
    return status;
  GNNRT_CHECK(kind == GNNRT_NORM_SYMMETRIC || kind == GNNRT_NORM_MEAN,
              GNNRT_ERR_BAD_ARGUMENT);
  GNNRT_CHECK(present(w, g->num_edges), GNNRT_ERR_NULL_POINTER);
  int status = GNNRT_OK;
  gnnrt_cuda *ctx = gnnrt::cuda::current(status);
  if (!ctx)
    return status;
  return launch(ctx, "edgeNormKernel", g->num_edges, edgeNormKernel,
                g->in.indptr, g->in.src, g->in.edge_id, g->num_nodes,
                g->num_edges, kind == GNNRT_NORM_MEAN, w);
}

} // extern "C"
