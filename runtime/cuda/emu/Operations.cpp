//===- Operations.cpp - Library operations through the CPU kernels --------===//
//
// Every gnnrt_cuda_X of gnnrt/Cuda.h's library operations takes gnnrt_cpu_X's
// arguments (gnnrt/Kernels.h, gnnrt/Convert.h), and emulated device memory is
// host memory, so each one is that CPU kernel, called as is: the emulator
// gives the CPU target's bits, which is what lets a test compare the two
// targets exactly. They still need a current context, as on a GPU, so that
// generated code that forgot to set one fails here too.
//
// The only differences in the declarations are the parameter names of the
// four conversions (x, y for src, dst); types and order are the same.
//
//===----------------------------------------------------------------------===//
#include "Emulator.h"

#include "gnnrt/Convert.h"

using namespace gnnrt::emu;

namespace {

/// The context check, the CPU kernel, and a message naming both kernels on
/// failure (the CPU kernels return a status only). The real library checks
/// a call's arguments before it looks for the context; here the context
/// comes first, because the CPU kernel cannot check without writing: a
/// call without a context must write nothing. So without one, a call with
/// bad arguments or nothing to do fails with no context, where the real
/// library returns the argument check's status or OK.
template <typename Call>
int forward(const char *cudaName, const char *cpuName, Call call) {
  int status;
  if (!current(cudaName, status))
    return status;
  status = call();
  if (status != GNNRT_OK)
    return fail(status, std::string(cudaName) + " (emulated by " + cpuName +
                            "): " + gnnrt_status_string(status));
  return GNNRT_OK;
}

} // namespace

#define GNNRT_EMU_FORWARD(NAME, PARAMS, ARGS)                                  \
  int gnnrt_cuda_##NAME PARAMS {                                               \
    return forward("gnnrt_cuda_" #NAME, "gnnrt_cpu_" #NAME,                    \
                   [&] { return gnnrt_cpu_##NAME ARGS; });                     \
  }

extern "C" {

GNNRT_EMU_FORWARD(add_self_loops,
                  (const gnnrt_graph *g, int32_t *storage, gnnrt_graph *result),
                  (g, storage, result))
GNNRT_EMU_FORWARD(spmm,
                  (const gnnrt_graph *g, int aggr, const float *x, int64_t d,
                   const float *weights, int64_t weight_heads, float *y),
                  (g, aggr, x, d, weights, weight_heads, y))
GNNRT_EMU_FORWARD(spmm_max_grad,
                  (const gnnrt_graph *g, const float *x, const float *dy,
                   int64_t d, float *dx),
                  (g, x, dy, d, dx))
GNNRT_EMU_FORWARD(sddmm,
                  (const gnnrt_graph *g, const float *lhs, const float *rhs,
                   int64_t d, int64_t heads, float *y),
                  (g, lhs, rhs, d, heads, y))
GNNRT_EMU_FORWARD(gather,
                  (const gnnrt_graph *g, int end, const float *x, int64_t d,
                   float *y),
                  (g, end, x, d, y))
GNNRT_EMU_FORWARD(edge_add,
                  (const gnnrt_graph *g, const float *a, const float *b,
                   int64_t d, float *y),
                  (g, a, b, d, y))
GNNRT_EMU_FORWARD(scatter,
                  (const gnnrt_graph *g, int end, const float *x, int64_t d,
                   float *y),
                  (g, end, x, d, y))
GNNRT_EMU_FORWARD(edge_softmax,
                  (const gnnrt_graph *g, const float *x, int64_t heads,
                   float *y),
                  (g, x, heads, y))
GNNRT_EMU_FORWARD(edge_softmax_grad,
                  (const gnnrt_graph *g, const float *y, const float *dy,
                   int64_t heads, float *dx),
                  (g, y, dy, heads, dx))
GNNRT_EMU_FORWARD(edge_norm, (const gnnrt_graph *g, int kind, float *w),
                  (g, kind, w))
GNNRT_EMU_FORWARD(csr_dropout,
                  (const void *x, int64_t rows, int64_t cols, int64_t nnz,
                   uint64_t seed, uint64_t step, uint64_t stream, double p,
                   void *y),
                  (x, rows, cols, nnz, seed, step, stream, p, y))
GNNRT_EMU_FORWARD(csr_matmul,
                  (const void *a, int64_t rows, int64_t cols, int64_t nnz,
                   int transpose_a, const float *b, int64_t n, float *c),
                  (a, rows, cols, nnz, transpose_a, b, n, c))
GNNRT_EMU_FORWARD(matmul,
                  (const float *a, const float *b, int64_t m, int64_t n,
                   int64_t k, int transpose_a, int transpose_b, float *c),
                  (a, b, m, n, k, transpose_a, transpose_b, c))
GNNRT_EMU_FORWARD(reduce,
                  (int kind, const float *x, int64_t rows, int64_t cols,
                   int dim, float *y),
                  (kind, x, rows, cols, dim, y))
GNNRT_EMU_FORWARD(head_matrix,
                  (int kind, int64_t heads, int64_t width, float *y),
                  (kind, heads, width, y))
GNNRT_EMU_FORWARD(concat,
                  (const float *const *inputs, const int64_t *widths,
                   int64_t num_inputs, int64_t rows, float *y),
                  (inputs, widths, num_inputs, rows, y))
GNNRT_EMU_FORWARD(slice,
                  (const float *x, int64_t rows, int64_t cols, int64_t offset,
                   int64_t width, float *y),
                  (x, rows, cols, offset, width, y))
GNNRT_EMU_FORWARD(insert_columns,
                  (const float *x, const float *block, int64_t rows,
                   int64_t cols, int64_t offset, int64_t width, float *y),
                  (x, block, rows, cols, offset, width, y))
GNNRT_EMU_FORWARD(normalize,
                  (const float *x, int64_t rows, int64_t cols, int dim,
                   double eps, float *y),
                  (x, rows, cols, dim, eps, y))
GNNRT_EMU_FORWARD(normalize_grad,
                  (const float *x, const float *dy, int64_t rows, int64_t cols,
                   int dim, double eps, float *dx),
                  (x, dy, rows, cols, dim, eps, dx))
GNNRT_EMU_FORWARD(dropout,
                  (const float *x, int64_t n, uint64_t seed, uint64_t step,
                   uint64_t stream, double p, float *y),
                  (x, n, seed, step, stream, p, y))
GNNRT_EMU_FORWARD(dropout_columns,
                  (const float *x, int64_t rows, int64_t width, int64_t cols,
                   int64_t offset, uint64_t seed, uint64_t step,
                   uint64_t stream, double p, float *y),
                  (x, rows, width, cols, offset, seed, step, stream, p, y))
GNNRT_EMU_FORWARD(init,
                  (int kind, uint64_t seed, uint64_t stream, int64_t fan_in,
                   int64_t fan_out, int64_t n, float *y),
                  (kind, seed, stream, fan_in, fan_out, n, y))
GNNRT_EMU_FORWARD(cross_entropy,
                  (const float *logits, const int32_t *labels,
                   const uint8_t *mask, int64_t n, int64_t classes,
                   double label_smoothing, int class_weights, float *loss),
                  (logits, labels, mask, n, classes, label_smoothing,
                   class_weights, loss))
GNNRT_EMU_FORWARD(cross_entropy_grad,
                  (const float *logits, const int32_t *labels,
                   const uint8_t *mask, const float *loss_grad, int64_t n,
                   int64_t classes, double label_smoothing, int class_weights,
                   float *dlogits),
                  (logits, labels, mask, loss_grad, n, classes, label_smoothing,
                   class_weights, dlogits))
GNNRT_EMU_FORWARD(adam,
                  (const float *param, const float *grad, const float *m,
                   const float *v, int64_t n, int64_t step, double lr,
                   double beta1, double beta2, double eps, double weight_decay,
                   int decoupled, float *new_param, float *new_m, float *new_v),
                  (param, grad, m, v, n, step, lr, beta1, beta2, eps,
                   weight_decay, decoupled, new_param, new_m, new_v))
GNNRT_EMU_FORWARD(sgd,
                  (const float *param, const float *grad,
                   const float *momentum_buffer, int64_t n, double lr,
                   double momentum, double weight_decay, int nesterov,
                   float *new_param, float *new_momentum_buffer),
                  (param, grad, momentum_buffer, n, lr, momentum, weight_decay,
                   nesterov, new_param, new_momentum_buffer))
GNNRT_EMU_FORWARD(f32_to_bf16, (const float *x, uint16_t *y, int64_t n),
                  (x, y, n))
GNNRT_EMU_FORWARD(bf16_to_f32, (const uint16_t *x, float *y, int64_t n),
                  (x, y, n))
GNNRT_EMU_FORWARD(f32_to_f16, (const float *x, uint16_t *y, int64_t n),
                  (x, y, n))
GNNRT_EMU_FORWARD(f16_to_f32, (const uint16_t *x, float *y, int64_t n),
                  (x, y, n))

} // extern "C"
