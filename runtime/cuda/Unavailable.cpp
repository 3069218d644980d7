//===- Unavailable.cpp - gnnrt/Cuda.h without the CUDA toolkit ------------===//
//
// Built instead of the .cu files when configure found no nvcc, so that gnnc,
// the JIT and host programs link the same symbols on every machine and learn
// at run time, with a message, that this build has no CUDA target. Plain
// C++: no CUDA header is needed.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Cuda.h"

#include <cstring>

namespace {

constexpr const char *kMessage = "this gnnc was built without the CUDA "
                                 "toolkit (nvcc not found at configure time)";

// As in the real library, the message is the calling thread's last error
// only after one of its calls failed.
thread_local bool failed = false;

int unavailable() {
  failed = true;
  return GNNRT_ERR_NO_CUDA_BUILD;
}

} // namespace

extern "C" {

int gnnrt_cuda_available(void) { return 0; }

gnnrt_cuda *gnnrt_cuda_open(int, char *error, int64_t error_size) {
  unavailable();
  if (error && error_size > 0) {
    size_t n = std::strlen(kMessage);
    if (n > static_cast<size_t>(error_size - 1))
      n = static_cast<size_t>(error_size - 1);
    std::memcpy(error, kMessage, n);
    error[n] = '\0';
  }
  return nullptr;
}

// No context can exist, so there is nothing to close or make current.
void gnnrt_cuda_close(gnnrt_cuda *) {}
void gnnrt_cuda_set_current(gnnrt_cuda *) {}
gnnrt_cuda *gnnrt_cuda_current(void) { return nullptr; }

const char *gnnrt_cuda_last_error(void) { return failed ? kMessage : ""; }

int gnnrt_cuda_info(const gnnrt_cuda *, gnnrt_cuda_device_info *) {
  return unavailable();
}
int gnnrt_cuda_set_spmm_path(gnnrt_cuda *, int) { return unavailable(); }
int gnnrt_cuda_malloc(gnnrt_cuda *, int64_t, void **) { return unavailable(); }
int gnnrt_cuda_free(gnnrt_cuda *, void *) { return unavailable(); }
int gnnrt_cuda_host_alloc(gnnrt_cuda *, int64_t, void **) {
  return unavailable();
}
int gnnrt_cuda_host_free(gnnrt_cuda *, void *) { return unavailable(); }
int gnnrt_cuda_staging(gnnrt_cuda *, int64_t, void **) { return unavailable(); }
int gnnrt_cuda_scratch(gnnrt_cuda *, int64_t, void **) { return unavailable(); }
int gnnrt_cuda_copy(gnnrt_cuda *, void *, const void *, int64_t) {
  return unavailable();
}
int gnnrt_cuda_memset(gnnrt_cuda *, void *, int, int64_t) {
  return unavailable();
}
int gnnrt_cuda_copy_async(gnnrt_cuda *, int, void *, const void *, int64_t) {
  return unavailable();
}
int gnnrt_cuda_record(gnnrt_cuda *, int, int64_t) { return unavailable(); }
int gnnrt_cuda_wait(gnnrt_cuda *, int, int64_t) { return unavailable(); }
int gnnrt_cuda_synchronize(gnnrt_cuda *) { return unavailable(); }
int gnnrt_cuda_mem_info(gnnrt_cuda *, int64_t *, int64_t *) {
  return unavailable();
}
int gnnrt_cuda_launch(gnnrt_cuda *, const gnnrt_cuda_kernels *, const char *,
                      int64_t, void **) {
  return unavailable();
}
int gnnrt_cuda_compile(const char *, const char *, int, void **, int64_t *) {
  return unavailable();
}
int gnnrt_cuda_add_self_loops(const gnnrt_graph *, int32_t *, gnnrt_graph *) {
  return unavailable();
}
int gnnrt_cuda_spmm(const gnnrt_graph *, int, const float *, int64_t,
                    const float *, int64_t, float *) {
  return unavailable();
}
int gnnrt_cuda_spmm_max_grad(const gnnrt_graph *, const float *, const float *,
                             int64_t, float *) {
  return unavailable();
}
int gnnrt_cuda_sddmm(const gnnrt_graph *, const float *, const float *, int64_t,
                     int64_t, float *) {
  return unavailable();
}
int gnnrt_cuda_gather(const gnnrt_graph *, int, const float *, int64_t,
                      float *) {
  return unavailable();
}
int gnnrt_cuda_edge_add(const gnnrt_graph *, const float *, const float *,
                        int64_t, float *) {
  return unavailable();
}
int gnnrt_cuda_scatter(const gnnrt_graph *, int, const float *, int64_t,
                       float *) {
  return unavailable();
}
int gnnrt_cuda_edge_softmax(const gnnrt_graph *, const float *, int64_t,
                            float *) {
  return unavailable();
}
int gnnrt_cuda_edge_softmax_grad(const gnnrt_graph *, const float *,
                                 const float *, int64_t, float *) {
  return unavailable();
}
int gnnrt_cuda_edge_norm(const gnnrt_graph *, int, float *) {
  return unavailable();
}
int gnnrt_cuda_csr_dropout(const void *, int64_t, int64_t, int64_t, uint64_t,
                           uint64_t, uint64_t, double, void *) {
  return unavailable();
}
int gnnrt_cuda_csr_matmul(const void *, int64_t, int64_t, int64_t, int,
                          const float *, int64_t, float *) {
  return unavailable();
}
int gnnrt_cuda_matmul(const float *, const float *, int64_t, int64_t, int64_t,
                      int, int, float *) {
  return unavailable();
}
int gnnrt_cuda_reduce(int, const float *, int64_t, int64_t, int, float *) {
  return unavailable();
}
int gnnrt_cuda_head_matrix(int, int64_t, int64_t, float *) {
  return unavailable();
}
int gnnrt_cuda_concat(const float *const *, const int64_t *, int64_t, int64_t,
                      float *) {
  return unavailable();
}
int gnnrt_cuda_slice(const float *, int64_t, int64_t, int64_t, int64_t,
                     float *) {
  return unavailable();
}
int gnnrt_cuda_insert_columns(const float *, const float *, int64_t, int64_t,
                              int64_t, int64_t, float *) {
  return unavailable();
}
int gnnrt_cuda_normalize(const float *, int64_t, int64_t, int, double,
                         float *) {
  return unavailable();
}
int gnnrt_cuda_normalize_grad(const float *, const float *, int64_t, int64_t,
                              int, double, float *) {
  return unavailable();
}
int gnnrt_cuda_dropout(const float *, int64_t, uint64_t, uint64_t, uint64_t,
                       double, float *) {
  return unavailable();
}
int gnnrt_cuda_dropout_columns(const float *, int64_t, int64_t, int64_t,
                               int64_t, uint64_t, uint64_t, uint64_t, double,
                               float *) {
  return unavailable();
}
int gnnrt_cuda_init(int, uint64_t, uint64_t, int64_t, int64_t, int64_t,
                    float *) {
  return unavailable();
}
int gnnrt_cuda_cross_entropy(const float *, const int32_t *, const uint8_t *,
                             int64_t, int64_t, double, int, float *) {
  return unavailable();
}
int gnnrt_cuda_cross_entropy_grad(const float *, const int32_t *,
                                  const uint8_t *, const float *, int64_t,
                                  int64_t, double, int, float *) {
  return unavailable();
}
int gnnrt_cuda_adam(const float *, const float *, const float *, const float *,
                    int64_t, int64_t, double, double, double, double, double,
                    int, float *, float *, float *) {
  return unavailable();
}
int gnnrt_cuda_sgd(const float *, const float *, const float *, int64_t, double,
                   double, double, int, float *, float *) {
  return unavailable();
}
int gnnrt_cuda_f32_to_bf16(const float *, uint16_t *, int64_t) {
  return unavailable();
}
int gnnrt_cuda_bf16_to_f32(const uint16_t *, float *, int64_t) {
  return unavailable();
}
int gnnrt_cuda_f32_to_f16(const float *, uint16_t *, int64_t) {
  return unavailable();
}
int gnnrt_cuda_f16_to_f32(const uint16_t *, float *, int64_t) {
  return unavailable();
}

} // extern "C"
