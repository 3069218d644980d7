/*===- Kernels.h - The C ABI of the runtime's kernels -------------*- C -*-===//
//
// One function per primitive of the `gnn` and `train` dialects, as the code
// generators call them: `gnnrt_cpu_<op>` here, `gnnrt_cuda_<op>` with the
// same arguments later. Each op's description in GnnOps.td / TrainOps.td is
// the semantics; the comments below only add what an ABI must say (layouts,
// aliasing, statuses).
//
// Why a C ABI: generated C++ and CUDA, the JIT and foreign hosts all call the
// same symbols without sharing C++ types, and the planner (not the kernels)
// owns every buffer, so kernels take caller-allocated outputs and allocate
// nothing that grows with the graph.
//
// Conventions for every function:
// * Tensors are fp32, dense and row-major; `[N, D]` is N rows of D floats.
//   Sizes are int64_t. Graph index arrays are int32_t: the data layer builds
//   them so (gnnrt/Graph.h), cuSPARSE takes 32-bit indices, and they halve
//   the graph's share of the memory budget.
// * Functions return a gnnrt_status as int; on anything but GNNRT_OK no
//   output has been written. Null pointers, negative or overflowing sizes,
//   unknown enumerators and out-of-range attributes are rejected. A pointer
//   to a tensor with no elements may be null.
// * Array contents are trusted (checking them would cost as much as the
//   kernel): graph indices once per bound graph with gnnrt_graph_check,
//   labels where a kernel reads them anyway.
// * Outputs must not overlap inputs unless the function says "in place".
// * Results do not depend on the number of threads: every output element is
//   computed by one thread in a fixed order, and reductions across rows sum
//   fixed blocks of rows in a fixed order. No atomics.
//
//===----------------------------------------------------------------------===*/
#ifndef GNNRT_KERNELS_H
#define GNNRT_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===//
// Statuses and enumerations
//===----------------------------------------------------------------------===*/

typedef enum gnnrt_status {
  GNNRT_OK = 0,
  GNNRT_ERR_NULL_POINTER = 1, /* a required pointer is null */
  GNNRT_ERR_BAD_SIZE = 2,     /* a size is negative, overflows or mismatches */
  GNNRT_ERR_BAD_ARGUMENT = 3, /* an enumerator or attribute is out of range */
  GNNRT_ERR_BAD_GRAPH = 4,    /* a graph view is malformed */
  GNNRT_ERR_OUT_OF_MEMORY = 5 /* a small scratch allocation failed */
} gnnrt_status;

/* A short English description of \p status ("ok", "null pointer", ...). */
const char *gnnrt_status_string(int status);

/* The enumerators equal the dialects' I32EnumAttr values, so generated code
   may pass an op's attribute value through unchanged. */
/* #gnn<aggr> */
typedef enum gnnrt_aggr {
  GNNRT_AGGR_SUM = 0,
  GNNRT_AGGR_MEAN = 1,
  GNNRT_AGGR_MAX = 2
} gnnrt_aggr;

/* #gnn<activation> */
typedef enum gnnrt_activation {
  GNNRT_ACT_RELU = 0,
  GNNRT_ACT_LEAKY_RELU = 1,
  GNNRT_ACT_ELU = 2,
  GNNRT_ACT_GELU = 3,
  GNNRT_ACT_SIGMOID = 4,
  GNNRT_ACT_TANH = 5
} gnnrt_activation;

/* #gnn<edge_end> */
typedef enum gnnrt_edge_end {
  GNNRT_END_SRC = 0,
  GNNRT_END_DST = 1
} gnnrt_edge_end;

/* #gnn<edge_norm> */
typedef enum gnnrt_edge_norm {
  GNNRT_NORM_SYMMETRIC = 0,
  GNNRT_NORM_MEAN = 1
} gnnrt_edge_norm;

/* #gnn<reduce> */
typedef enum gnnrt_reduce {
  GNNRT_REDUCE_SUM = 0,
  GNNRT_REDUCE_MEAN = 1,
  GNNRT_REDUCE_MAX = 2
} gnnrt_reduce;

/* #gnn<head_matrix> */
typedef enum gnnrt_head_matrix {
  GNNRT_HEADS_SUM = 0,
  GNNRT_HEADS_MEAN = 1,
  GNNRT_HEADS_SPREAD = 2
} gnnrt_head_matrix;

/* #train<init> */
typedef enum gnnrt_init {
  GNNRT_INIT_GLOROT = 0,
  GNNRT_INIT_KAIMING = 1,
  GNNRT_INIT_ZEROS = 2,
  GNNRT_INIT_ONES = 3
} gnnrt_init;

/* #train<class_weights> */
typedef enum gnnrt_class_weights {
  GNNRT_CLASS_WEIGHTS_NONE = 0,
  GNNRT_CLASS_WEIGHTS_BALANCED = 1
} gnnrt_class_weights;

/*===----------------------------------------------------------------------===//
// Graphs
//===----------------------------------------------------------------------===*/

/* Edges grouped by destination: row `i` owns the slots
   `[indptr[i], indptr[i+1])`, one per edge into `i`; slot `s` is the edge
   `edge_id[s]` (its id in the graph's edge list, which indexes every edge
   tensor) from node `src[s]`. Slots within a row may be in any order. */
typedef struct gnnrt_csr {
  const int32_t *indptr;  /* [num_nodes + 1], indptr[0] = 0, last = E */
  const int32_t *src;     /* [E] */
  const int32_t *edge_id; /* [E] */
} gnnrt_csr;

/* A bound graph as the kernels see it. `in` is the CSR by destination of the
   graph itself; `out` is the CSR by destination of `gnn.transpose` of it
   (the graph's CSR by source: row `j` lists the edges out of `j`, and `src`
   holds their destinations), with the same edge ids. Kernels that aggregate
   at destinations read `in` only; `out` may be all null unless a kernel
   below says it needs it. gnnrt_graph_transposed swaps the two, so a kernel
   runs over `gnn.transpose` at no cost. */
typedef struct gnnrt_graph {
  int64_t num_nodes;
  int64_t num_edges;
  gnnrt_csr in;
  gnnrt_csr out;
} gnnrt_graph;

/* The view of `gnn.transpose %g`: edges reversed, edge ids kept. */
static inline gnnrt_graph gnnrt_graph_transposed(gnnrt_graph g) {
  gnnrt_csr t = g.in;
  g.in = g.out;
  g.out = t;
  return g;
}

/* Checks everything the kernels trust, in O(N + E): sizes within int32,
   offsets non-decreasing from 0 to E, node ids in range, edge ids a
   permutation of 0..E-1, and, when `out.indptr` is not null, that `out`
   holds the same edges reversed. Returns GNNRT_ERR_BAD_GRAPH when not. */
int gnnrt_graph_check(const gnnrt_graph *g);

/* The int32 count of the storage gnnrt_cpu_add_self_loops writes for a
   graph of \p num_nodes nodes and \p num_edges edges (before the loops):
   both views of `E + N` edges, `2 * (N + 1 + 2 * (E + N))`; -1 when the
   sizes are negative or the result exceeds int32 indices. Compilers size an
   arena slot with the same formula from the graph type. */
int64_t gnnrt_cpu_add_self_loops_storage(int64_t num_nodes, int64_t num_edges);

/* gnn.add_self_loops: `*result` becomes `g` with the loop `i -> i` (edge id
   `E + i`) appended to every row, its arrays laid out in \p storage
   (gnnrt_cpu_add_self_loops_storage int32s, caller-owned and kept alive as
   long as `*result` is used) as in.indptr, in.src, in.edge_id, out.indptr,
   out.src, out.edge_id. The `out` view is built when `g->out.indptr` is set
   and left all null otherwise. */
int gnnrt_cpu_add_self_loops(const gnnrt_graph *g, int32_t *storage,
                             gnnrt_graph *result);

/*===----------------------------------------------------------------------===//
// Threads
//===----------------------------------------------------------------------===*/

/* The number of OpenMP threads later kernels on the calling thread use
   (n <= 0 restores the default); without OpenMP a no-op. OpenBLAS itself
   is kept on one thread: gnnrt_cpu_matmul deals out row blocks to these
   threads. */
void gnnrt_cpu_set_num_threads(int n);
/* The number of threads the next kernel may use (1 without OpenMP). */
int gnnrt_cpu_get_num_threads(void);

/*===----------------------------------------------------------------------===//
// Aggregation over the graph (N = num_nodes, E = num_edges)
//===----------------------------------------------------------------------===*/

/* gnn.spmm: `y[N, d]` from `x[N, d]`. `weights` is null (all 1) or
   `[E, weight_heads]` indexed by edge id (`[E]` is weight_heads = 1);
   weight_heads must divide d. `max` takes no weights. */
int gnnrt_cpu_spmm(const gnnrt_graph *g, int aggr, const float *x, int64_t d,
                   const float *weights, int64_t weight_heads, float *y);

/* gnn.spmm_max_grad: `dx[N, d]` from the max aggregation's input `x[N, d]`
   and cotangent `dy[N, d]`; ties go to the lowest edge id. */
int gnnrt_cpu_spmm_max_grad(const gnnrt_graph *g, const float *x,
                            const float *dy, int64_t d, float *dx);

/* gnn.sddmm: `y[E, heads]` from `lhs[N, d]` (read at destinations) and
   `rhs[N, d]` (at sources); heads must divide d. */
int gnnrt_cpu_sddmm(const gnnrt_graph *g, const float *lhs, const float *rhs,
                    int64_t d, int64_t heads, float *y);

/* gnn.gather: `y[E, d]`, row e = `x[src(e)]` or `x[dst(e)]`. */
int gnnrt_cpu_gather(const gnnrt_graph *g, int end, const float *x, int64_t d,
                     float *y);

/* gnn.edge_add: `y[E, d]`, row e = `a[src(e)] + b[dst(e)]` (a and b are
   `[N, d]`): two gathers and their sum, the same bits, one pass. */
int gnnrt_cpu_edge_add(const gnnrt_graph *g, const float *a, const float *b,
                       int64_t d, float *y);

/* gnn.scatter: `y[N, d]`, row i = sum of `x[e]` (x is `[E, d]`) over the
   edges whose `end` is i. `end = src` needs `g->out`. */
int gnnrt_cpu_scatter(const gnnrt_graph *g, int end, const float *x, int64_t d,
                      float *y);

/* gnn.edge_softmax over `x[E, heads]` into `y[E, heads]`. In place
   (y == x) allowed. */
int gnnrt_cpu_edge_softmax(const gnnrt_graph *g, const float *x, int64_t heads,
                           float *y);

/* gnn.edge_softmax_grad: `dx[E, heads]` from the softmax output `y` and the
   cotangent `dy`. In place (dx == dy or dx == y) allowed. */
int gnnrt_cpu_edge_softmax_grad(const gnnrt_graph *g, const float *y,
                                const float *dy, int64_t heads, float *dx);

/* gnn.edge_norm: `w[E]` by edge id, computed in double and rounded once. */
int gnnrt_cpu_edge_norm(const gnnrt_graph *g, int kind, float *w);

/*===----------------------------------------------------------------------===//
// Sparse matrices: input features stored as CSR
//===----------------------------------------------------------------------===*/

/* A `tensor<R x C x f32, #gnn.csr<nnz = Z>>` (the gnn-sparse-features pass
   gives input features this type when they are mostly zeros): one buffer of
   gnnrt_csr_matrix_bytes(R, C, Z) bytes holding, each section starting at a
   multiple of 64 bytes from the 64-byte aligned base, in this order:
     indptr  int32[R + 1]  row offsets, indptr[0] = 0, indptr[R] = Z
     indices int32[Z]      column of each slot, strictly increasing in a row
     colptr  int32[C + 1]  the same matrix by column (CSC) ...
     rowidx  int32[Z]      ... row of each CSC slot, increasing in a column
     perm    int32[Z]      the CSR slot of each CSC slot
     values  float[Z]      by CSR slot
   The CSC sections (the "pattern" is everything but values) let `A^T B` run
   over output rows with no atomics and in a fixed order. Explicit zeros are
   allowed: dropout keeps the pattern and zeroes values. Dense semantics are
   unchanged: element (i, j) is values[s] for the slot s of (i, j), else 0. */
typedef struct gnnrt_csr_matrix {
  int64_t rows, cols, nnz;
  int32_t *indptr, *indices, *colptr, *rowidx, *perm;
  float *values;
} gnnrt_csr_matrix;

static inline int64_t gnnrt_csr_align64(int64_t bytes) {
  return (bytes + 63) / 64 * 64;
}

/* The buffer size of a CSR matrix; compilers size arena slots with it. */
static inline int64_t gnnrt_csr_matrix_bytes(int64_t rows, int64_t cols,
                                             int64_t nnz) {
  return gnnrt_csr_align64(4 * (rows + 1)) + gnnrt_csr_align64(4 * (cols + 1)) +
         4 * gnnrt_csr_align64(4 * nnz);
}

/* The sections of the buffer at \p base (no checks, no reads). */
static inline gnnrt_csr_matrix
gnnrt_csr_matrix_view(void *base, int64_t rows, int64_t cols, int64_t nnz) {
  char *p = (char *)base;
  gnnrt_csr_matrix m;
  m.rows = rows;
  m.cols = cols;
  m.nnz = nnz;
  m.indptr = (int32_t *)p;
  p += gnnrt_csr_align64(4 * (rows + 1));
  m.indices = (int32_t *)p;
  p += gnnrt_csr_align64(4 * nnz);
  m.colptr = (int32_t *)p;
  p += gnnrt_csr_align64(4 * (cols + 1));
  m.rowidx = (int32_t *)p;
  p += gnnrt_csr_align64(4 * nnz);
  m.perm = (int32_t *)p;
  p += gnnrt_csr_align64(4 * nnz);
  m.values = (float *)p;
  return m;
}

/* Fills the buffer at \p base (gnnrt_csr_matrix_bytes, 64-byte aligned)
   from a CSR given as arrays: copies them and builds the CSC sections. The
   arrays are checked (indptr from 0 to nnz and non-decreasing, columns in
   range and strictly increasing within a row): GNNRT_ERR_BAD_SIZE when the
   sizes exceed int32 indices or nnz > rows * cols, GNNRT_ERR_BAD_ARGUMENT
   when the arrays are malformed. \p indptr and \p base are never optional
   (R + 1 >= 1 offsets); \p indices and \p values may be null when nnz = 0.
   Called once per bound dataset, not per step.

   The kernels below take such a buffer and the same (R, C, Z), with the
   size checks above. They check only the ends of the offsets in O(1)
   (indptr[0] = colptr[0] = 0, indptr[R] = colptr[C] = Z, else
   GNNRT_ERR_BAD_ARGUMENT) and trust the rest, as gnnrt_graph_check's
   graphs are trusted: the build checked it. */
int gnnrt_cpu_csr_matrix_build(const int32_t *indptr, const int32_t *indices,
                               const float *values, int64_t rows, int64_t cols,
                               int64_t nnz, void *base);

/* gnn.dropout of a CSR matrix: \p y gets \p x's pattern and, for each slot
   of element (i, j), exactly what gnnrt_cpu_dropout writes for element
   `i * cols + j` of the dense matrix (same Philox word, same quotient), so
   the sparse and dense forms of a program compute the same values. Not in
   place; p in [0, 1), else GNNRT_ERR_BAD_ARGUMENT. */
int gnnrt_cpu_csr_dropout(const void *x, int64_t rows, int64_t cols,
                          int64_t nnz, uint64_t seed, uint64_t step,
                          uint64_t stream, double p, void *y);

/* gnn.matmul with a CSR left operand `a` (R x C, nnz Z): `c[R, n] = a b`
   with `b[C, n]`, or, when transpose_a, `c[C, n] = a^T b` with `b[R, n]`
   (through the CSC sections). Each output element starts at +0.0 and adds
   its products in slot order (CSR slots of row i; CSC slots, rows
   increasing, of column j) in fp32, whatever the thread count. Any nonzero
   transpose_a transposes, as for gnnrt_cpu_matmul. */
int gnnrt_cpu_csr_matmul(const void *a, int64_t rows, int64_t cols, int64_t nnz,
                         int transpose_a, const float *b, int64_t n, float *c);

/*===----------------------------------------------------------------------===//
// Receptive rows (gnn-restrict-rows): computing only the rows the loss reads
//===----------------------------------------------------------------------===*/

/* gnn.receptive_rows: the nested row sets R_0 c R_1 c ... c R_hops of a
   graph with N nodes. R_0 = {i : mask[i] != 0}; R_{k+1} = R_k plus every
   source of an edge into R_k (g's CSR by destination). \p out holds
   gnnrt_row_sets_length(N, hops) int32:
     out[k], k in [0, hops]         |R_k|;
     out[hops + 1 + t], t in [0, N) every node, sorted by (level, id), so
                                    R_k is the first |R_k| entries;
   then N bytes, ((const int8_t *)(out + hops + 1 + N))[i] = level(i): the
   least k with i in R_k, or hops + 1 when i is in none; then zero bytes up
   to a whole int32. A level takes a byte, so 0 <= hops <=
   GNNRT_ROW_SETS_MAX_HOPS (else GNNRT_ERR_BAD_ARGUMENT): on 2 M nodes the
   sets take 10 MB where int32 levels took 16. O(N + the edges into
   R_{hops-1}), one thread.

   The kernels below read such a buffer (\p row_sets, made with the same
   \p hops) over the N rows of their row-indexed operand: the graph's
   nodes, or a CSR matrix's rows. They check 0 <= level <= hops and that
   |R_level| is in [0, N] (else GNNRT_ERR_BAD_ARGUMENT) and trust the rest,
   as they trust a graph. Those that take \p zero_rest set every row
   outside R_level to +0.0 when it is nonzero, and leave those rows as they
   were when it is 0: for a caller that reads none of them (most of a
   tensor, so it saves a memset of most of it). */
#define GNNRT_ROW_SETS_MAX_HOPS 126
static inline int64_t gnnrt_row_sets_length(int64_t n, int64_t hops) {
  return hops + 1 + n + (n + 3) / 4;
}
int gnnrt_cpu_receptive_rows(const gnnrt_graph *g, const uint8_t *mask,
                             int64_t hops, int32_t *out);

/* gnn.receptive_edges: the same nested sets over g's E edges, E_k being the
   edges whose destination (the row of g's CSR by destination that holds
   the slot) is in R_k, for element-wise ops on per-edge tensors ([E, ...],
   row e edge id e) to compute only the edges into R_level. \p node_sets
   is a gnnrt_cpu_receptive_rows buffer over g's N nodes made with
   \p node_hops; 0 <= hops <= node_hops <= GNNRT_ROW_SETS_MAX_HOPS (else
   GNNRT_ERR_BAD_ARGUMENT), and |R_hops| in [0, N] is checked as the
   kernels below check |R_level|. \p out holds gnnrt_row_sets_length(E,
   hops) int32, laid out as gnnrt_cpu_receptive_rows' over E rows:
     out[k], k in [0, hops]         |E_k|;
     out[hops + 1 + t], t < |E_hops| the edge ids of E_0, then of
                                    E_1 \ E_0, ..., then of
                                    E_hops \ E_{hops-1}, each level's in
                                    increasing id;
   then E level bytes (edge e's: its destination's level when that is at
   most hops, else hops + 1) and zero bytes up to a whole int32. The order
   entries from |E_hops| to E are not written: no kernel reads an order
   past |R_level|, level <= hops, and listing every other edge would cost
   O(E) int32 writes a step (12 M on a large graph) for nothing.
   O(E) bytes for the levels plus O(the edges into R_hops) and their
   ordering (a sort of each level's ids when they are few, else a scan of
   the level bytes), one thread. */
int gnnrt_cpu_receptive_edges(const gnnrt_graph *g, const int32_t *node_sets,
                              int64_t node_hops, int64_t hops, int32_t *out);

/* gnn.spmm_rows: gnnrt_cpu_spmm (sum or mean, weights null or `[E]`; max
   is GNNRT_ERR_BAD_ARGUMENT) at the rows of R_level only, with the bits
   gnnrt_cpu_spmm gives them (a mean still divides by the whole in-degree);
   every other row of y is +0.0. When skip <= hops, sources whose level
   exceeds skip are left out of every sum: the caller knows those rows of x
   are zero (+0.0 or -0.0) and the weights finite, so the computed rows
   still get gnnrt_cpu_spmm's bits (adding a product that is +-0.0 to a sum
   that starts at +0.0 changes no bit). skip > hops skips nothing; a
   negative skip leaves out every source. */
int gnnrt_cpu_spmm_rows(const gnnrt_graph *g, int aggr, const float *x,
                        int64_t d, const float *weights,
                        const int32_t *row_sets, int64_t hops, int64_t level,
                        int64_t skip, int zero_rest, float *y);

/* The edge kernels at the rows of R_level (gnn-restrict-rows on GAT): each
   computes, of its whole kernel's output, only what belongs to the rows of
   R_level of the row sets (over g's N nodes), with the whole kernel's bits
   there, whatever the thread count.

   gnnrt_cpu_sddmm_rows, gnnrt_cpu_edge_add_rows,
   gnnrt_cpu_edge_softmax_rows and gnnrt_cpu_edge_softmax_grad_rows write
   the edge rows (edge ids) of the slots of the CSR rows (destinations) in
   R_level; with \p zero_rest nonzero every other edge row is +0.0, else
   left as it was. The soft-max and its gradient are in place as their
   whole kernels.

   gnnrt_cpu_scatter_rows writes the node rows of R_level (sums over the
   slots of each row of the `end` view, as gnnrt_cpu_scatter), leaving out
   every slot whose other end (the view's `src`) has a level above \p skip
   when skip <= hops (the caller knows those edge rows of x are +-0.0);
   zero_rest as above, over node rows.

   gnnrt_cpu_spmm_heads_rows is gnnrt_cpu_spmm_rows with `[E,
   weight_heads]` weights (GAT's attention; weight_heads divides d, head k
   weighing columns [k d/H, (k+1) d/H)), sum or mean, with
   gnnrt_cpu_spmm's bits at the computed rows; the weights are required
   (null is GNNRT_ERR_NULL_POINTER). */
int gnnrt_cpu_sddmm_rows(const gnnrt_graph *g, const float *lhs,
                         const float *rhs, int64_t d, int64_t heads,
                         const int32_t *row_sets, int64_t hops, int64_t level,
                         int zero_rest, float *y);
int gnnrt_cpu_edge_add_rows(const gnnrt_graph *g, const float *a,
                            const float *b, int64_t d, const int32_t *row_sets,
                            int64_t hops, int64_t level, int zero_rest,
                            float *y);
int gnnrt_cpu_edge_softmax_rows(const gnnrt_graph *g, const float *x,
                                int64_t heads, const int32_t *row_sets,
                                int64_t hops, int64_t level, int zero_rest,
                                float *y);
int gnnrt_cpu_edge_softmax_grad_rows(const gnnrt_graph *g, const float *y,
                                     const float *dy, int64_t heads,
                                     const int32_t *row_sets, int64_t hops,
                                     int64_t level, int zero_rest, float *dx);
int gnnrt_cpu_scatter_rows(const gnnrt_graph *g, int end, const float *x,
                           int64_t d, const int32_t *row_sets, int64_t hops,
                           int64_t level, int64_t skip, int zero_rest,
                           float *y);
int gnnrt_cpu_spmm_heads_rows(const gnnrt_graph *g, int aggr, const float *x,
                              int64_t d, const float *weights,
                              int64_t weight_heads, const int32_t *row_sets,
                              int64_t hops, int64_t level, int64_t skip,
                              int zero_rest, float *y);

/* gnn.spmm (sum or mean) over a graph whose `in` view stays in host memory
   (a plan's `mem.load_graph_home {tile_bytes}`), read a tile at a time
   through \p graph_tile (device memory, \p graph_tile_bytes; 28 bytes per
   slot). \p weights (null, `[E]` or `[E, weight_heads]`) are on the device,
   or in host memory when \p weights_tile is non-null (`mem.load_home
   {tile_bytes}`): their tile then holds 4 * weight_heads bytes per slot.
   With \p row_sets non-null the rows are R_level's and the rest is as
   gnnrt_cpu_spmm_rows (gnnrt_cpu_spmm_heads_rows with weights per head);
   else every row. \p y gets the
   bits of gnnrt_cpu_spmm (gnnrt_cpu_spmm_rows), whatever the tile sizes and
   thread count: a row longer than a tile goes on in the next one. The tile
   is cut into one section per thread. Adds the bytes copied from host
   memory into the tiles to *moved (a row split between two tiles has a
   piece record in each, so it depends on the thread count). A tile that
   cannot hold one slot is GNNRT_ERR_BAD_SIZE; max is
   GNNRT_ERR_BAD_ARGUMENT. */
int gnnrt_cpu_spmm_tiles(const gnnrt_graph *g, int aggr, const float *x,
                         int64_t d, const float *weights, int64_t weight_heads,
                         const int32_t *row_sets, int64_t hops, int64_t level,
                         int64_t skip, int zero_rest, void *graph_tile,
                         int64_t graph_tile_bytes, void *weights_tile,
                         int64_t weights_tile_bytes, float *y, int64_t *moved);

/* gnn.matmul with a CSR left operand `a` (the buffer of
   gnnrt_cpu_csr_matrix_build, CSC sections included) that stays in host
   memory, read a tile at a time through \p tile (device memory,
   \p tile_bytes; 28 bytes per slot: a piece record, the slot's other index
   and its value). `c = a b`, or `a^T b` when transpose_a, as
   gnnrt_cpu_csr_matmul; with \p row_sets non-null, as
   gnnrt_cpu_csr_matmul_rows (below) with the same hops, level and
   zero_rest (`a^T b` then reads only the slots of the rows of a in
   R_level). \p c gets the bits of gnnrt_cpu_csr_matmul
   (gnnrt_cpu_csr_matmul_rows), whatever the tile size and thread count: an
   output row longer than a tile goes on in the next one; the tile is cut
   as gnnrt_cpu_spmm_tiles's. Adds the bytes copied from host memory into
   the tiles to *moved. A tile that cannot hold one slot is
   GNNRT_ERR_BAD_SIZE. */
int gnnrt_cpu_csr_matmul_tiles(const void *a, int64_t rows, int64_t cols,
                               int64_t nnz, int transpose_a, const float *b,
                               int64_t n, const int32_t *row_sets, int64_t hops,
                               int64_t level, int zero_rest, void *tile,
                               int64_t tile_bytes, float *c, int64_t *moved);

/* gnn.sddmm, gnn.edge_softmax and gnn.edge_softmax_grad over a graph whose
   `in` view stays in host memory (a plan's `mem.load_graph_home
   {tile_bytes}`), read a tile at a time through \p graph_tile (device
   memory, \p graph_tile_bytes; 28 bytes per slot, as
   gnnrt_cpu_spmm_tiles's). The dense operands and results are on the
   device, with the arguments and the bits of gnnrt_cpu_sddmm,
   gnnrt_cpu_edge_softmax and gnnrt_cpu_edge_softmax_grad (in place
   allowed as there), whatever the tile size and thread count.
   SDDMM's tiles hold a piece record, the source and the edge id per slot,
   and a row may go on in the next tile; the soft-max's hold a piece record
   and the edge id, and whole rows, since a row's normalisation reads all
   of it: a row longer than the tile is read through it in parts once per
   pass over the row (three for the soft-max, two for its gradient). The
   tile is cut into one section per thread. Adds the bytes copied from host
   memory into the tiles to *moved. A tile that cannot hold one slot is
   GNNRT_ERR_BAD_SIZE. */
int gnnrt_cpu_sddmm_tiles(const gnnrt_graph *g, const float *lhs,
                          const float *rhs, int64_t d, int64_t heads,
                          void *graph_tile, int64_t graph_tile_bytes, float *y,
                          int64_t *moved);
int gnnrt_cpu_edge_softmax_tiles(const gnnrt_graph *g, const float *x,
                                 int64_t heads, void *graph_tile,
                                 int64_t graph_tile_bytes, float *y,
                                 int64_t *moved);
int gnnrt_cpu_edge_softmax_grad_tiles(const gnnrt_graph *g, const float *y,
                                      const float *dy, int64_t heads,
                                      void *graph_tile,
                                      int64_t graph_tile_bytes, float *dx,
                                      int64_t *moved);

/* gnnrt_cpu_receptive_rows over a graph whose `in` view stays in host
   memory: level by level, the slots of R_k's rows come through
   \p graph_tile (28 bytes per slot) and their sources join R_{k+1}; each
   level sorts every node by (level, id) again (O(N) per hop). The same
   buffer; adds the bytes copied into the tiles to *moved. */
int gnnrt_cpu_receptive_rows_tiles(const gnnrt_graph *g, const uint8_t *mask,
                                   int64_t hops, void *graph_tile,
                                   int64_t graph_tile_bytes, int32_t *out,
                                   int64_t *moved);

/* gnnrt_cpu_receptive_edges over a graph whose `in` view stays in host
   memory: the slots of R_hops's rows come through \p graph_tile (28 bytes
   per slot, as the edge kernels' tiles), the counts and the order from a
   scan of the level bytes. The same buffer, the order's tail unwritten
   too; adds the bytes copied into the tiles to *moved. */
int gnnrt_cpu_receptive_edges_tiles(const gnnrt_graph *g,
                                    const int32_t *node_sets, int64_t node_hops,
                                    int64_t hops, void *graph_tile,
                                    int64_t graph_tile_bytes, int32_t *out,
                                    int64_t *moved);

/* The edge kernels at the rows of R_level (gnnrt_cpu_sddmm_rows and the
   like, same arguments before the tile) over a graph whose view stays in
   host memory, read a tile at a time through \p graph_tile (device
   memory, \p graph_tile_bytes; 28 bytes per slot): only the slots of the
   rows of R_level are copied. Each gives the bits of its _rows kernel at
   what it computes, whatever the tile size and thread count, and adds the
   bytes copied into the tiles to *moved.

   The edge-output kernels (SDDMM, edge add, the soft-max and its
   gradient) leave every edge row outside the edges into R_level as it was
   (zero_rest 0 of their _rows kernels: clearing them would need the rest
   of the graph): for callers that read none of them (gnn.rest_unread).
   gnnrt_cpu_scatter_rows_tiles reads the `end` view (g->in for dst,
   g->out for src) and takes skip and zero_rest as gnnrt_cpu_scatter_rows
   (its other rows are node rows, cleared without the graph).

   SDDMM, the edge add and the scatter with skip <= hops copy a piece
   record, the slot's other end and its edge id per slot; the soft-max and
   its gradient, and the scatter without skip, a piece record and the edge
   id. The soft-max's tiles hold whole rows (a row longer than the tile is
   read through it in parts once per pass over it), as
   gnnrt_cpu_edge_softmax_tiles's. A tile that cannot hold one slot is
   GNNRT_ERR_BAD_SIZE. */
int gnnrt_cpu_sddmm_rows_tiles(const gnnrt_graph *g, const float *lhs,
                               const float *rhs, int64_t d, int64_t heads,
                               const int32_t *row_sets, int64_t hops,
                               int64_t level, void *graph_tile,
                               int64_t graph_tile_bytes, float *y,
                               int64_t *moved);
int gnnrt_cpu_edge_add_rows_tiles(const gnnrt_graph *g, const float *a,
                                  const float *b, int64_t d,
                                  const int32_t *row_sets, int64_t hops,
                                  int64_t level, void *graph_tile,
                                  int64_t graph_tile_bytes, float *y,
                                  int64_t *moved);
int gnnrt_cpu_edge_softmax_rows_tiles(const gnnrt_graph *g, const float *x,
                                      int64_t heads, const int32_t *row_sets,
                                      int64_t hops, int64_t level,
                                      void *graph_tile,
                                      int64_t graph_tile_bytes, float *y,
                                      int64_t *moved);
int gnnrt_cpu_edge_softmax_grad_rows_tiles(
    const gnnrt_graph *g, const float *y, const float *dy, int64_t heads,
    const int32_t *row_sets, int64_t hops, int64_t level, void *graph_tile,
    int64_t graph_tile_bytes, float *dx, int64_t *moved);
int gnnrt_cpu_scatter_rows_tiles(const gnnrt_graph *g, int end, const float *x,
                                 int64_t d, const int32_t *row_sets,
                                 int64_t hops, int64_t level, int64_t skip,
                                 int zero_rest, void *graph_tile,
                                 int64_t graph_tile_bytes, float *y,
                                 int64_t *moved);

/* gnn.dropout_rows of a CSR matrix: \p y gets \p x's pattern, as from
   gnnrt_cpu_csr_dropout, and its values at the slots of the rows in
   R_level (row sets over the matrix's rows); +0.0 at every other slot. */
int gnnrt_cpu_csr_dropout_rows(const void *x, int64_t rows, int64_t cols,
                               int64_t nnz, uint64_t seed, uint64_t step,
                               uint64_t stream, double p,
                               const int32_t *row_sets, int64_t hops,
                               int64_t level, void *y);

/* gnn.csr_matmul_rows: gnnrt_cpu_csr_matmul restricted to R_level, the row
   sets being over the rows of a in both directions. Without transpose_a,
   the rows of c in R_level get gnnrt_cpu_csr_matmul's bits and the others
   +0.0. With transpose_a, `c = a^T b` (every row of c) sums over the rows
   of a and b in R_level only: the caller knows the other rows of b are
   zero and a's values in them finite, so c gets gnnrt_cpu_csr_matmul's
   bits. */
int gnnrt_cpu_csr_matmul_rows(const void *a, int64_t rows, int64_t cols,
                              int64_t nnz, int transpose_a, const float *b,
                              int64_t n, const int32_t *row_sets, int64_t hops,
                              int64_t level, int zero_rest, float *c);

/*===----------------------------------------------------------------------===//
// Dense primitives
//===----------------------------------------------------------------------===*/

/* gnn.matmul: `c[m, n] = op(a) op(b)` with op(a) `[m, k]` and op(b)
   `[k, n]`; `a` is stored `[m, k]`, or `[k, m]` when transpose_a, and `b`
   `[k, n]`, or `[n, k]` when transpose_b. cblas_sgemm on one thread per
   block of rows of c, the blocks a function of m alone, so the bits do not
   depend on the thread count; with transpose_a the contraction is summed
   in fixed chunks of rows, each chunk's product added to the sum of those
   before it (as gnnrt_cpu_matmul_rows and _tiles do); m, n, k < 2^31. c may be
   a itself (a not transposed and k == n: each row of c from the same row of a,
   into as many floats), read a tile of rows at a time into at most 256 KiB of
   scratch per thread before it is written, with the same bits; c == b, or c ==
   a otherwise, is GNNRT_ERR_BAD_ARGUMENT. */
int gnnrt_cpu_matmul(const float *a, const float *b, int64_t m, int64_t n,
                     int64_t k, int transpose_a, int transpose_b, float *c);

/* gnnrt_cpu_matmul restricted to R_level, the row sets over the rows of a
   as stored (the rows of c without transpose_a, the contraction's with
   it). Without transpose_a, the rows of c in R_level are computed, by the
   same blocked cblas_sgemm calls over those rows gathered, and the others
   are +0.0. With transpose_a (and not transpose_b), `c = a^T b` sums over
   the rows of a and b in R_level only, gathered in increasing id a tile
   at a time and the tiles' products added up: the caller knows the others
   are zero, but the shorter, tiled sum may round differently from
   gnnrt_cpu_matmul's (zero_rest is then unused). Rows are gathered a tile
   at a time into at most 256 KiB of scratch per thread (at least one row
   of the operands), whatever |R_level| is: memory outside the planned
   arena stays bounded by the operands' widths, not the graph. */
int gnnrt_cpu_matmul_rows(const float *a, const float *b, int64_t m, int64_t n,
                          int64_t k, int transpose_a, int transpose_b,
                          const int32_t *row_sets, int64_t hops, int64_t level,
                          int zero_rest, float *c);

/* gnnrt_cpu_matmul (\p row_sets null) or gnnrt_cpu_matmul_rows with a, a
   dense matrix, in host memory (a plan's `mem.prefetch {tile_bytes}` or
   `mem.load_home {tile_bytes}`), read a tile of its rows at a time into
   \p tile (device memory, \p tile_bytes): the same cblas_sgemm calls over
   the same values, so the same bits, whatever the tile size. With
   \p listed, a holds only the rows of R_level, in the sets' order (what
   gnnrt_offload_rows_to_host keeps); else all its rows. A transposed
   product takes its rows in increasing id, merging the sets' sorted runs.
   Adds the bytes copied into the tiles to *moved. A tile that cannot hold
   one unit of the product's calls (gnnrt::footprint::denseTileBytes always
   does) is GNNRT_ERR_BAD_SIZE; c == a or c == b, \p listed without sets,
   or transpose_a and transpose_b with sets GNNRT_ERR_BAD_ARGUMENT. */
int gnnrt_cpu_matmul_tiles(const float *a, const float *b, int64_t m, int64_t n,
                           int64_t k, int transpose_a, int transpose_b,
                           const int32_t *row_sets, int64_t hops, int64_t level,
                           int listed, int zero_rest, void *tile,
                           int64_t tile_bytes, float *c, int64_t *moved);

/* gnn.bias_add: `y[rows, cols] = x + bias[cols]` per row. In place
   allowed. */
int gnnrt_cpu_bias_add(const float *x, const float *bias, int64_t rows,
                       int64_t cols, float *y);

/* gnn.row_mul: `y[rows, cols] = x * scale[cols]` per row. In place
   allowed. */
int gnnrt_cpu_row_mul(const float *x, const float *scale, int64_t rows,
                      int64_t cols, float *y);

/* gnn.reduce of `x[rows, cols]`: dim 0 gives `y[cols]`, dim 1 `y[rows]`;
   sums and means accumulate in double; an empty reduction gives 0. */
int gnnrt_cpu_reduce(int kind, const float *x, int64_t rows, int64_t cols,
                     int dim, float *y);

/* gnnrt_cpu_reduce over dim 0 (sum or mean; max is GNNRT_ERR_BAD_ARGUMENT)
   reading only the rows of R_level: the others are taken to be zero. The
   rows read are summed in the blocks and order of gnnrt_cpu_reduce, so
   when the others are indeed zero the bits are the same (a left-out +-0.0
   changes no bit of a sum that starts at +0.0). A mean still divides by
   rows. */
int gnnrt_cpu_reduce_rows(int kind, const float *x, int64_t rows, int64_t cols,
                          const int32_t *row_sets, int64_t hops, int64_t level,
                          float *y);

/* gnn.head_matrix: `y[heads * width, heads]` (sum),
   `y[heads * width, width]` (mean) or `y[heads, heads * width]` (spread). */
int gnnrt_cpu_head_matrix(int kind, int64_t heads, int64_t width, float *y);

/* gnn.zeros: `y[n] = 0`. */
int gnnrt_cpu_zeros(float *y, int64_t n);

/* gnn.concat: `y[rows, sum widths]`, input i (`[rows, widths[i]]`) in the
   columns after those of inputs 0..i-1. */
int gnnrt_cpu_concat(const float *const *inputs, const int64_t *widths,
                     int64_t num_inputs, int64_t rows, float *y);

/* gnn.concat with row sets: gnnrt_cpu_concat at the rows of R_level only
   (row sets over the `rows` rows); the other rows of y are +0.0 when
   zero_rest, else left as they were. */
int gnnrt_cpu_concat_rows(const float *const *inputs, const int64_t *widths,
                          int64_t num_inputs, int64_t rows,
                          const int32_t *row_sets, int64_t hops, int64_t level,
                          int zero_rest, float *y);

/* gnn.slice: `y[rows, width] = x[:, offset : offset + width]` of
   `x[rows, cols]`. */
int gnnrt_cpu_slice(const float *x, int64_t rows, int64_t cols, int64_t offset,
                    int64_t width, float *y);

/* gnn.slice with row sets: gnnrt_cpu_slice at the rows of R_level only
   (row sets over the `rows` rows, as gnnrt_cpu_receptive_rows makes them);
   the other rows of y are +0.0 when zero_rest, else left as they were. */
int gnnrt_cpu_slice_rows(const float *x, int64_t rows, int64_t cols,
                         int64_t offset, int64_t width, const int32_t *row_sets,
                         int64_t hops, int64_t level, int zero_rest, float *y);

/* gnn.insert_columns: `y[rows, cols] = x` with the columns `[offset,
   offset + width)` replaced by `block[rows, width]`. In place allowed (y
   == x: only the block's columns are written); y == block is
   GNNRT_ERR_BAD_ARGUMENT. */
int gnnrt_cpu_insert_columns(const float *x, const float *block, int64_t rows,
                             int64_t cols, int64_t offset, int64_t width,
                             float *y);

/* gnn.insert_columns with row sets: `y = x` with the block's columns
   replaced at the rows of R_level only; every other row is x's, whole
   (nothing is cleared). In place (y == x) writes those rows' block
   columns and nothing else. */
int gnnrt_cpu_insert_columns_rows(const float *x, const float *block,
                                  int64_t rows, int64_t cols, int64_t offset,
                                  int64_t width, const int32_t *row_sets,
                                  int64_t hops, int64_t level, float *y);

/* gnn.normalize of `x[rows, cols]` along dim (0: per column over rows, 1:
   per row over columns), statistics in double. In place allowed. */
int gnnrt_cpu_normalize(const float *x, int64_t rows, int64_t cols, int dim,
                        double eps, float *y);

/* gnn.normalize_grad: `dx` from the input `x` and cotangent `dy`. In place
   (dx == x or dx == dy) allowed. */
int gnnrt_cpu_normalize_grad(const float *x, const float *dy, int64_t rows,
                             int64_t cols, int dim, double eps, float *dx);

/*===----------------------------------------------------------------------===//
// Element-wise primitives (n elements; all allow in place)
//===----------------------------------------------------------------------===*/

int gnnrt_cpu_add(const float *a, const float *b, int64_t n, float *y);
int gnnrt_cpu_sub(const float *a, const float *b, int64_t n, float *y);
int gnnrt_cpu_mul(const float *a, const float *b, int64_t n, float *y);

/* gnn.scale: `y = x * factor`, the product taken in double and rounded
   once. */
int gnnrt_cpu_scale(const float *x, int64_t n, double factor, float *y);

/* gnn.activation; `slope` is leaky_relu's and ignored by the others. */
int gnnrt_cpu_activation(int kind, const float *x, int64_t n, double slope,
                         float *y);

/* gnn.activation_grad: `dx = dy * f'(x)`, `x` the activation's input. */
int gnnrt_cpu_activation_grad(int kind, const float *x, const float *dy,
                              int64_t n, double slope, float *dx);

/* gnn.dropout with key (seed, step) and `stream`, p in [0, 1): element i is
   kept iff Philox word u(i) >= p and then equals `x[i] / (1 - p)` divided
   in double and rounded once, so it equals the fp64 reference rounded to
   fp32. Being its own adjoint, it is also the op's backward. */
int gnnrt_cpu_dropout(const float *x, int64_t n, uint64_t seed, uint64_t step,
                      uint64_t stream, double p, float *y);

/* gnn.dropout with `mask_columns = [cols, offset]`: \p x is a `rows x width`
   matrix, columns [offset, offset + width) of a `rows x cols` one, and
   element (r, c) is what gnnrt_cpu_dropout writes for element
   `r * cols + offset + c` of that matrix (same Philox word, same
   quotient). May work in place (y == x). */
int gnnrt_cpu_dropout_columns(const float *x, int64_t rows, int64_t width,
                              int64_t cols, int64_t offset, uint64_t seed,
                              uint64_t step, uint64_t stream, double p,
                              float *y);

/* gnnrt_cpu_dropout_columns at the rows of R_level only: \p row_sets is
   a buffer over its \p rows rows (gnnrt_cpu_receptive_rows' layout;
   gnnrt_cpu_receptive_edges' for GAT's per-edge tensors), checked as the
   receptive-row kernels check theirs. Those rows get
   gnnrt_cpu_dropout_columns' bits, an element's mask being a function of
   its index `r * cols + offset + c` alone; with \p zero_rest nonzero every
   other row of y is +0.0, else left as it was. May work in place. */
int gnnrt_cpu_dropout_columns_rows(const float *x, int64_t rows, int64_t width,
                                   int64_t cols, int64_t offset, uint64_t seed,
                                   uint64_t step, uint64_t stream, double p,
                                   const int32_t *row_sets, int64_t hops,
                                   int64_t level, int zero_rest, float *y);

/* One op of a fused element-wise chain (gnnrt_cpu_fused). */
#define GNNRT_FUSED_MAX_OPS 32
typedef enum gnnrt_fused_kind {
  GNNRT_FUSED_ADD = 0,             /* a + b */
  GNNRT_FUSED_SUB = 1,             /* a - b */
  GNNRT_FUSED_MUL = 2,             /* a * b */
  GNNRT_FUSED_SCALE = 3,           /* a * param, as gnnrt_cpu_scale */
  GNNRT_FUSED_ACTIVATION = 4,      /* act(a), slope param */
  GNNRT_FUSED_ACTIVATION_GRAD = 5, /* b * act'(a), slope param */
  GNNRT_FUSED_BIAS_ADD = 6,        /* a + b[column], b a [cols] input */
  GNNRT_FUSED_ROW_MUL = 7,         /* a * b[column], b a [cols] input */
  GNNRT_FUSED_ZEROS = 8,           /* +0.0 */
  GNNRT_FUSED_DROPOUT = 9          /* dropout of a, p param, key below */
} gnnrt_fused_kind;

typedef struct gnnrt_fused_op {
  int32_t kind;       /* gnnrt_fused_kind */
  int32_t activation; /* gnnrt_activation, for the two activation kinds */
  /* Operands: value v < ninputs is inputs[v]; v = ninputs + k is the
     result of op k < this op. -1 where the kind takes fewer operands. */
  int32_t a, b;
  double param;                /* slope, factor or dropout p; 0 where unused */
  uint64_t seed, step, stream; /* dropout's key; 0 otherwise */
} gnnrt_fused_op;

/* A chain of element-wise ops over n elements, rows of `cols` (the column
   that BIAS_ADD and ROW_MUL read; n % cols == 0), in one pass over memory:
   element tiles go through every op while they are in cache, and only the
   values `output_values[j]` (results, >= ninputs) are stored, into
   `outputs[j]`. Each element equals what the separate kernels above write,
   bit for bit, whatever the thread count (the tiles are fixed by n). All of
   a tile's inputs are read before its outputs are stored, so an output may
   be an input's very buffer; a partial overlap, or an output over a [cols]
   input, is the caller's error. At most GNNRT_FUSED_MAX_OPS ops. */
int gnnrt_cpu_fused(const gnnrt_fused_op *ops, int32_t nops, int64_t n,
                    int64_t cols, const float *const *inputs, int32_t ninputs,
                    float *const *outputs, const int32_t *output_values,
                    int32_t noutputs);

/* gnnrt_cpu_fused at the rows of R_level only (row sets over the n / cols
   rows, as for gnnrt_cpu_spmm_rows): their elements get gnnrt_cpu_fused's
   bits, and every other row of every output is +0.0 (written after the
   listed rows, so an output may still be an input's buffer). */
int gnnrt_cpu_fused_rows(const gnnrt_fused_op *ops, int32_t nops, int64_t n,
                         int64_t cols, const float *const *inputs,
                         int32_t ninputs, float *const *outputs,
                         const int32_t *output_values, int32_t noutputs,
                         const int32_t *row_sets, int64_t hops, int64_t level,
                         int zero_rest);

/*===----------------------------------------------------------------------===//
// train
//===----------------------------------------------------------------------===*/

/* train.init of `y[n]`: glorot needs fan_in + fan_out > 0, kaiming
   fan_in > 0. Each value is the fp64 reference's rounded once. */
int gnnrt_cpu_init(int kind, uint64_t seed, uint64_t stream, int64_t fan_in,
                   int64_t fan_out, int64_t n, float *y);

/* train.cross_entropy of `logits[n, classes]` against `labels[n]` over the
   nodes with `mask[i] != 0` (every node when mask is null) and
   `labels[i] >= 0`; a counted label must be < classes (else
   GNNRT_ERR_BAD_ARGUMENT). label_smoothing is in [0, 1]. Writes the scalar
   `*loss`; in double inside. */
int gnnrt_cpu_cross_entropy(const float *logits, const int32_t *labels,
                            const uint8_t *mask, int64_t n, int64_t classes,
                            double label_smoothing, int class_weights,
                            float *loss);

/* train.cross_entropy_grad: `dlogits[n, classes]`, `*loss_grad` being the
   loss's cotangent (a pointer: it is a 0-d tensor that lives with the other
   tensors). Uncounted rows get 0. */
int gnnrt_cpu_cross_entropy_grad(const float *logits, const int32_t *labels,
                                 const uint8_t *mask, const float *loss_grad,
                                 int64_t n, int64_t classes,
                                 double label_smoothing, int class_weights,
                                 float *dlogits);

/* train.adam (decoupled = AdamW) for update number step >= 1. Every output
   may alias its input (new_param == param etc.): the update is in place
   when the planner wants it. */
int gnnrt_cpu_adam(const float *param, const float *grad, const float *m,
                   const float *v, int64_t n, int64_t step, double lr,
                   double beta1, double beta2, double eps, double weight_decay,
                   int decoupled, float *new_param, float *new_m, float *new_v);

/* train.sgd. The momentum buffers are given exactly when momentum > 0 (as
   the op's operand and result exist exactly then). Outputs may alias their
   inputs. */
int gnnrt_cpu_sgd(const float *param, const float *grad,
                  const float *momentum_buffer, int64_t n, double lr,
                  double momentum, double weight_decay, int nesterov,
                  float *new_param, float *new_momentum_buffer);

/*===----------------------------------------------------------------------===//
// Metrics (host-side evaluation; allocate O(n) scratch)
//===----------------------------------------------------------------------===*/

/* Classification metrics over the nodes with `mask[i] != 0` (all nodes when
   mask is null) and `labels[i] >= 0`. A value that is undefined (no node
   counted, no class with both positives and negatives) is NaN. */
typedef struct gnnrt_metrics {
  int64_t count;    /* nodes counted */
  double accuracy;  /* argmax of logits (first maximum) == label */
  double precision; /* macro over the classes that occur as label or as
                       prediction (scikit-learn's default labels); a class
                       never predicted has precision 0 */
  double recall;    /* macro, same classes */
  double f1;        /* macro mean of per-class F1 (0 when P + R = 0) */
  double auroc;     /* macro one-vs-rest ROC AUC of softmax(logits), over
                       the classes with at least one positive and one
                       negative; ties count one half */
  double aupr;      /* macro one-vs-rest average precision (scikit-learn's:
                       sum over distinct thresholds of (R_k - R_{k-1}) P_k),
                       over the classes with at least one positive */
  double cross_entropy; /* mean of -log softmax(logits)[label] (no label
                           smoothing, no class weights: the loss early
                           stopping watches, not the program's) */
} gnnrt_metrics;

int gnnrt_cpu_metrics_classification(const float *logits, const int32_t *labels,
                                     const uint8_t *mask, int64_t n,
                                     int64_t classes, gnnrt_metrics *out);

/* The same, with the ranking metrics (auroc, aupr) only when `ranking` is
   non-zero; they are NaN otherwise. They sort every class's scores, which a
   validation pass after every epoch need not pay for when the program
   shows neither. The other fields are the same bits either way. */
int gnnrt_cpu_metrics_classification_select(const float *logits,
                                            const int32_t *labels,
                                            const uint8_t *mask, int64_t n,
                                            int64_t classes, int ranking,
                                            gnnrt_metrics *out);

/* Binary ROC AUC of `scores[n]` for `positive[n] != 0`, as scikit-learn's
   roc_auc_score (the trapezoidal ROC: a tie between a positive and a
   negative counts one half). NaN unless both classes occur. */
int gnnrt_cpu_metrics_auroc(const double *scores, const uint8_t *positive,
                            int64_t n, double *auroc);

/* Binary average precision as scikit-learn's average_precision_score: tied
   scores form one threshold. NaN when there is no positive. */
int gnnrt_cpu_metrics_average_precision(const double *scores,
                                        const uint8_t *positive, int64_t n,
                                        double *ap);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GNNRT_KERNELS_H */
