//===- Memory.cu - Allocations, copies, streams and events ----------------===//
//
// The session allocates its arena once and the planner places every tensor
// in it, so these calls are few and may synchronise: clarity over speed.
// The context keeps every allocation it hands out, so that freeing a
// pointer it does not own is an error with a message instead of undefined
// behaviour, and closing the context frees what the caller forgot.
//
//===----------------------------------------------------------------------===//
#include "Context.h"

#include <cstdio>

using gnnrt::cuda::check;
using gnnrt::cuda::fail;

namespace {

/// Events are numbered by the compiler from 0; a number this large is a
/// corrupted argument, not a plan (the vector would be resized to it).
constexpr int64_t kMaxEvents = int64_t(1) << 20;

std::string pointerText(const void *p) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", p);
  return text;
}

int requireContext(const gnnrt_cuda *ctx, const char *function) {
  if (!ctx)
    return fail(GNNRT_ERR_NULL_POINTER,
                std::string(function) + ": null context");
  return GNNRT_OK;
}

int requireBytes(int64_t bytes, const char *function) {
  if (bytes < 0)
    return fail(GNNRT_ERR_BAD_SIZE, std::string(function) + ": negative size " +
                                        std::to_string(bytes));
  return GNNRT_OK;
}

/// A pointer argument is acceptable when set or when nothing is copied.
int requirePointer(const void *p, int64_t bytes, const char *function,
                   const char *what) {
  if (!p && bytes > 0)
    return fail(GNNRT_ERR_NULL_POINTER,
                std::string(function) + ": null " + what);
  return GNNRT_OK;
}

int streamOf(const gnnrt_cuda *ctx, int stream, const char *function,
             cudaStream_t &out) {
  if (stream == GNNRT_CUDA_COMPUTE)
    out = ctx->compute;
  else if (stream == GNNRT_CUDA_COPY)
    out = ctx->copy;
  else
    return fail(GNNRT_ERR_BAD_ARGUMENT, std::string(function) + ": no stream " +
                                            std::to_string(stream) +
                                            " (0 computes, 1 copies)");
  return GNNRT_OK;
}

/// The caller's event \p event, created on first use.
int eventOf(gnnrt_cuda *ctx, int64_t event, const char *function,
            cudaEvent_t &out) {
  if (event < 0 || event >= kMaxEvents)
    return fail(GNNRT_ERR_BAD_ARGUMENT, std::string(function) + ": event " +
                                            std::to_string(event) +
                                            " is out of range");
  if (static_cast<size_t>(event) >= ctx->events.size())
    ctx->events.resize(static_cast<size_t>(event) + 1, nullptr);
  cudaEvent_t &slot = ctx->events[static_cast<size_t>(event)];
  if (!slot) {
    GNNRT_RETURN_IF_ERROR(gnnrt::cuda::bind(ctx));
    // Only ordering is wanted; timing would make every record costlier.
    GNNRT_CUDA_CHECK(cudaEventCreateWithFlags(&slot, cudaEventDisableTiming));
  }
  out = slot;
  return GNNRT_OK;
}

} // namespace

extern "C" {

int gnnrt_cuda_malloc(gnnrt_cuda *ctx, int64_t bytes, void **out) {
  static const char *const kFn = "gnnrt_cuda_malloc";
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, kFn));
  GNNRT_RETURN_IF_ERROR(requirePointer(out, 1, kFn, "output pointer"));
  GNNRT_RETURN_IF_ERROR(requireBytes(bytes, kFn));
  // An empty tensor owns no memory, as on the CPU.
  if (bytes == 0) {
    *out = nullptr;
    return GNNRT_OK;
  }
  GNNRT_RETURN_IF_ERROR(gnnrt::cuda::bind(ctx));
  void *p = nullptr;
  GNNRT_RETURN_IF_ERROR(
      check(cudaMalloc(&p, static_cast<size_t>(bytes)),
            ("cudaMalloc(" + std::to_string(bytes) + " bytes)").c_str()));
  ctx->deviceAllocations.insert(p);
  *out = p;
  return GNNRT_OK;
}

int gnnrt_cuda_free(gnnrt_cuda *ctx, void *p) {
  static const char *const kFn = "gnnrt_cuda_free";
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, kFn));
  if (!p)
    return GNNRT_OK;
  auto it = ctx->deviceAllocations.find(p);
  if (it == ctx->deviceAllocations.end())
    return fail(GNNRT_ERR_BAD_ARGUMENT,
                std::string(kFn) + ": " + pointerText(p) +
                    " was not allocated by gnnrt_cuda_malloc on this "
                    "context (or was freed already)");
  GNNRT_RETURN_IF_ERROR(gnnrt::cuda::bind(ctx));
  // Forgotten either way: after a failed cudaFree (a sticky error) the
  // pointer is unusable and close must not free it again.
  ctx->deviceAllocations.erase(it);
  GNNRT_CUDA_CHECK(cudaFree(p));
  return GNNRT_OK;
}

int gnnrt_cuda_host_alloc(gnnrt_cuda *ctx, int64_t bytes, void **out) {
  static const char *const kFn = "gnnrt_cuda_host_alloc";
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, kFn));
  GNNRT_RETURN_IF_ERROR(requirePointer(out, 1, kFn, "output pointer"));
  GNNRT_RETURN_IF_ERROR(requireBytes(bytes, kFn));
  if (bytes == 0) {
    *out = nullptr;
    return GNNRT_OK;
  }
  GNNRT_RETURN_IF_ERROR(gnnrt::cuda::bind(ctx));
  void *p = nullptr;
  GNNRT_RETURN_IF_ERROR(
      check(cudaHostAlloc(&p, static_cast<size_t>(bytes), cudaHostAllocDefault),
            ("cudaHostAlloc(" + std::to_string(bytes) + " bytes)").c_str()));
  ctx->hostAllocations.insert(p);
  *out = p;
  return GNNRT_OK;
}

int gnnrt_cuda_host_free(gnnrt_cuda *ctx, void *p) {
  static const char *const kFn = "gnnrt_cuda_host_free";
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, kFn));
  if (!p)
    return GNNRT_OK;
  auto it = ctx->hostAllocations.find(p);
  if (it == ctx->hostAllocations.end())
    return fail(GNNRT_ERR_BAD_ARGUMENT,
                std::string(kFn) + ": " + pointerText(p) +
                    " was not allocated by gnnrt_cuda_host_alloc on this "
                    "context (or was freed already)");
  ctx->hostAllocations.erase(it);
  GNNRT_CUDA_CHECK(cudaFreeHost(p));
  return GNNRT_OK;
}

int gnnrt_cuda_copy(gnnrt_cuda *ctx, void *dst, const void *src,
                    int64_t bytes) {
  static const char *const kFn = "gnnrt_cuda_copy";
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, kFn));
  GNNRT_RETURN_IF_ERROR(requireBytes(bytes, kFn));
  GNNRT_RETURN_IF_ERROR(requirePointer(dst, bytes, kFn, "destination"));
  GNNRT_RETURN_IF_ERROR(requirePointer(src, bytes, kFn, "source"));
  if (bytes == 0)
    return GNNRT_OK;
  GNNRT_RETURN_IF_ERROR(gnnrt::cuda::bind(ctx));
  // On the compute stream, so that the copy sees the kernels queued before
  // it, and then waited for, so that the caller may read or reuse the host
  // side at once.
  GNNRT_CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes),
                                   cudaMemcpyDefault, ctx->compute));
  GNNRT_CUDA_CHECK(cudaStreamSynchronize(ctx->compute));
  return GNNRT_OK;
}

int gnnrt_cuda_memset(gnnrt_cuda *ctx, void *dst, int value, int64_t bytes) {
  static const char *const kFn = "gnnrt_cuda_memset";
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, kFn));
  GNNRT_RETURN_IF_ERROR(requireBytes(bytes, kFn));
  GNNRT_RETURN_IF_ERROR(requirePointer(dst, bytes, kFn, "destination"));
  if (bytes == 0)
    return GNNRT_OK;
  GNNRT_RETURN_IF_ERROR(gnnrt::cuda::bind(ctx));
  GNNRT_CUDA_CHECK(
      cudaMemsetAsync(dst, value, static_cast<size_t>(bytes), ctx->compute));
  GNNRT_CUDA_CHECK(cudaStreamSynchronize(ctx->compute));
  return GNNRT_OK;
}

int gnnrt_cuda_copy_async(gnnrt_cuda *ctx, int stream, void *dst,
                          const void *src, int64_t bytes) {
  static const char *const kFn = "gnnrt_cuda_copy_async";
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, kFn));
  cudaStream_t s;
  GNNRT_RETURN_IF_ERROR(streamOf(ctx, stream, kFn, s));
  GNNRT_RETURN_IF_ERROR(requireBytes(bytes, kFn));
  GNNRT_RETURN_IF_ERROR(requirePointer(dst, bytes, kFn, "destination"));
  GNNRT_RETURN_IF_ERROR(requirePointer(src, bytes, kFn, "source"));
  if (bytes == 0)
    return GNNRT_OK;
  GNNRT_RETURN_IF_ERROR(gnnrt::cuda::bind(ctx));
  // Overlaps compute only when the host side is pinned
  // (gnnrt_cuda_host_alloc); from pageable memory the runtime stages it and
  // returns after the host side was read.
  GNNRT_CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes),
                                   cudaMemcpyDefault, s));
  return GNNRT_OK;
}

int gnnrt_cuda_record(gnnrt_cuda *ctx, int stream, int64_t event) {
  static const char *const kFn = "gnnrt_cuda_record";
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, kFn));
  cudaStream_t s;
  GNNRT_RETURN_IF_ERROR(streamOf(ctx, stream, kFn, s));
  cudaEvent_t e;
  GNNRT_RETURN_IF_ERROR(eventOf(ctx, event, kFn, e));
  GNNRT_CUDA_CHECK(cudaEventRecord(e, s));
  return GNNRT_OK;
}

int gnnrt_cuda_wait(gnnrt_cuda *ctx, int stream, int64_t event) {
  static const char *const kFn = "gnnrt_cuda_wait";
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, kFn));
  cudaStream_t s;
  GNNRT_RETURN_IF_ERROR(streamOf(ctx, stream, kFn, s));
  cudaEvent_t e;
  // As in CUDA, waiting for an event that was never recorded does not wait.
  GNNRT_RETURN_IF_ERROR(eventOf(ctx, event, kFn, e));
  GNNRT_CUDA_CHECK(cudaStreamWaitEvent(s, e, cudaEventWaitDefault));
  return GNNRT_OK;
}

int gnnrt_cuda_synchronize(gnnrt_cuda *ctx) {
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, "gnnrt_cuda_synchronize"));
  // A kernel that faulted reports here, in the first synchronisation after
  // it, under the name of the call that waited.
  GNNRT_CUDA_CHECK(cudaStreamSynchronize(ctx->compute));
  GNNRT_CUDA_CHECK(cudaStreamSynchronize(ctx->copy));
  return GNNRT_OK;
}

int gnnrt_cuda_mem_info(gnnrt_cuda *ctx, int64_t *free_bytes,
                        int64_t *total_bytes) {
  static const char *const kFn = "gnnrt_cuda_mem_info";
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, kFn));
  if (!free_bytes || !total_bytes)
    return fail(GNNRT_ERR_NULL_POINTER, std::string(kFn) + ": null output");
  GNNRT_RETURN_IF_ERROR(gnnrt::cuda::bind(ctx));
  size_t freeNow = 0, totalNow = 0;
  GNNRT_CUDA_CHECK(cudaMemGetInfo(&freeNow, &totalNow));
  *free_bytes = static_cast<int64_t>(freeNow);
  *total_bytes = static_cast<int64_t>(totalNow);
  return GNNRT_OK;
}

} // extern "C"
