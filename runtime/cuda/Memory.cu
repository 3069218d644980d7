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

/// The two kinds of memory a context allocates and tracks, so that close
/// frees what is left: device memory and pinned host memory.
enum class Memory { Device, PinnedHost };

/// gnnrt_cuda_malloc and gnnrt_cuda_host_alloc.
int allocate(gnnrt_cuda *ctx, Memory kind, int64_t bytes, void **out) {
  const bool device = kind == Memory::Device;
  const char *fn = device ? "gnnrt_cuda_malloc" : "gnnrt_cuda_host_alloc";
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, fn));
  GNNRT_RETURN_IF_ERROR(requirePointer(out, 1, fn, "output pointer"));
  GNNRT_RETURN_IF_ERROR(requireBytes(bytes, fn));
  // An empty tensor owns no memory, as on the CPU.
  if (bytes == 0) {
    *out = nullptr;
    return GNNRT_OK;
  }
  GNNRT_RETURN_IF_ERROR(gnnrt::cuda::bind(ctx));
  void *p = nullptr;
  const size_t size = static_cast<size_t>(bytes);
  cudaError_t code = device ? cudaMalloc(&p, size)
                            : cudaHostAlloc(&p, size, cudaHostAllocDefault);
  GNNRT_RETURN_IF_ERROR(
      check(code, ((device ? "cudaMalloc(" : "cudaHostAlloc(") +
                   std::to_string(bytes) + " bytes)")
                      .c_str()));
  (device ? ctx->deviceAllocations : ctx->hostAllocations).insert(p);
  *out = p;
  return GNNRT_OK;
}

/// gnnrt_cuda_free and gnnrt_cuda_host_free.
int release(gnnrt_cuda *ctx, Memory kind, void *p) {
  const bool device = kind == Memory::Device;
  const char *fn = device ? "gnnrt_cuda_free" : "gnnrt_cuda_host_free";
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, fn));
  if (!p)
    return GNNRT_OK;
  auto &live = device ? ctx->deviceAllocations : ctx->hostAllocations;
  auto it = live.find(p);
  if (it == live.end())
    return fail(GNNRT_ERR_BAD_ARGUMENT,
                std::string(fn) + ": " + pointerText(p) +
                    " was not allocated by " +
                    (device ? "gnnrt_cuda_malloc" : "gnnrt_cuda_host_alloc") +
                    " on this context (or was freed already)");
  if (device)
    GNNRT_RETURN_IF_ERROR(gnnrt::cuda::bind(ctx));
  // Forgotten either way: after a failed free (a sticky error) the pointer
  // is unusable and close must not free it again.
  live.erase(it);
  return device ? check(cudaFree(p), "cudaFree(p)")
                : check(cudaFreeHost(p), "cudaFreeHost(p)");
}

} // namespace

extern "C" {

int gnnrt_cuda_malloc(gnnrt_cuda *ctx, int64_t bytes, void **out) {
  return allocate(ctx, Memory::Device, bytes, out);
}

int gnnrt_cuda_free(gnnrt_cuda *ctx, void *p) {
  return release(ctx, Memory::Device, p);
}

int gnnrt_cuda_host_alloc(gnnrt_cuda *ctx, int64_t bytes, void **out) {
  return allocate(ctx, Memory::PinnedHost, bytes, out);
}

int gnnrt_cuda_host_free(gnnrt_cuda *ctx, void *p) {
  return release(ctx, Memory::PinnedHost, p);
}

int gnnrt_cuda_staging(gnnrt_cuda *ctx, int64_t bytes, void **out) {
  static const char *const kFn = "gnnrt_cuda_staging";
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, kFn));
  GNNRT_RETURN_IF_ERROR(requirePointer(out, 1, kFn, "output pointer"));
  GNNRT_RETURN_IF_ERROR(requireBytes(bytes, kFn));
  if (bytes > ctx->stagingBytes) {
    // Its callers copy synchronously, so nothing is in flight from the old
    // buffer when it goes.
    GNNRT_RETURN_IF_ERROR(release(ctx, Memory::PinnedHost, ctx->staging));
    ctx->staging = nullptr;
    ctx->stagingBytes = 0;
    GNNRT_RETURN_IF_ERROR(
        allocate(ctx, Memory::PinnedHost, bytes, &ctx->staging));
    ctx->stagingBytes = bytes;
  }
  *out = ctx->staging;
  return GNNRT_OK;
}

int gnnrt_cuda_scratch(gnnrt_cuda *ctx, int64_t bytes, void **out) {
  static const char *const kFn = "gnnrt_cuda_scratch";
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, kFn));
  GNNRT_RETURN_IF_ERROR(requirePointer(out, 1, kFn, "output pointer"));
  GNNRT_RETURN_IF_ERROR(requireBytes(bytes, kFn));
  // At least one byte, so that the pointer is a real allocation.
  return gnnrt::cuda::scratch(ctx, static_cast<size_t>(bytes > 0 ? bytes : 1),
                              out);
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
