//===- Device.cpp - The emulated device: context, memory, streams ---------===//
//
// Device and pinned memory are aligned host allocations, tracked like the
// real library's so that frees of foreign pointers and "GPU memory in use"
// behave the same. The compute stream has nothing to wait for: each
// operation is done when its call returns.
//
// The copy stream is where a GPU overlaps copies with compute, and where
// generated code can forget a wait. So its copies are not done at once:
// they queue, and run only when the program makes a GPU finish them (the
// compute stream waits for an event recorded after them, or a
// synchronisation, or the context closes). That is the latest a GPU may run
// them, so a missing wait shows as wrong bytes: an offload that reads its
// tensor after compute overwrote it, a kernel that reads a prefetched slot
// before it arrived.
//
//===----------------------------------------------------------------------===//
#include "Emulator.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <unistd.h>

using namespace gnnrt::emu;

namespace {

thread_local std::string lastError;
thread_local gnnrt_cuda *currentContext = nullptr;

/// cudaMalloc's alignment: the real library's kernels and cuSPARSE rely on
/// it, and the emulator should not pass what a GPU would not.
constexpr size_t kAlignment = 256;

constexpr const char *kDeviceName = "gnnc CUDA emulator (CPU, no GPU)";

int requireContext(gnnrt_cuda *ctx, const char *fn) {
  return ctx ? GNNRT_OK
             : fail(GNNRT_ERR_NULL_POINTER, std::string(fn) + ": null context");
}

int requireStream(int stream, const char *fn) {
  if (stream == GNNRT_CUDA_COMPUTE || stream == GNNRT_CUDA_COPY)
    return GNNRT_OK;
  return fail(GNNRT_ERR_BAD_ARGUMENT,
              std::string(fn) + ": no stream " + std::to_string(stream));
}

/// gnnrt_cuda_record's and gnnrt_cuda_wait's checks, named \p fn.
int requireEventCall(gnnrt_cuda *ctx, int stream, int64_t event,
                     const char *fn) {
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, fn));
  GNNRT_RETURN_IF_ERROR(requireStream(stream, fn));
  if (event < 0)
    return fail(GNNRT_ERR_BAD_ARGUMENT,
                std::string(fn) + ": no event " + std::to_string(event));
  return GNNRT_OK;
}

int requireCopy(const char *fn, void *dst, const void *src, int64_t bytes) {
  if (bytes < 0)
    return fail(GNNRT_ERR_BAD_SIZE,
                std::string(fn) + ": " + std::to_string(bytes) + " bytes");
  if (bytes > 0 && (!dst || !src))
    return fail(GNNRT_ERR_NULL_POINTER, std::string(fn) + ": null pointer");
  // cudaMemcpy of overlapping ranges is undefined; memmove would hide it.
  auto d = reinterpret_cast<uintptr_t>(dst);
  auto s = reinterpret_cast<uintptr_t>(src);
  if (bytes > 0 && d != s && d < s + bytes && s < d + bytes)
    return fail(GNNRT_ERR_BAD_ARGUMENT,
                std::string(fn) + ": the source and destination overlap (" +
                    std::to_string(bytes) +
                    " bytes): undefined on a GPU (emulator)");
  return GNNRT_OK;
}

bool inside(const std::map<uintptr_t, int64_t> &live, const void *p,
            int64_t bytes) {
  auto a = reinterpret_cast<uintptr_t>(p);
  auto it = live.upper_bound(a);
  if (it == live.begin())
    return false;
  --it;
  return a + static_cast<uintptr_t>(bytes) <=
         it->first + static_cast<uintptr_t>(it->second);
}

void copyNow(void *dst, const void *src, int64_t bytes) {
  if (bytes > 0 && dst != src)
    std::memcpy(dst, src, static_cast<size_t>(bytes));
}

/// Runs the copy stream's copies issued before the \p count-th.
void drainCopies(gnnrt_cuda *ctx, uint64_t count) {
  uint64_t done = ctx->copiesIssued - ctx->copyQueue.size();
  while (done < count && !ctx->copyQueue.empty()) {
    PendingCopy &c = ctx->copyQueue.front();
    copyNow(c.dst, c.snapshot.empty() ? c.src : c.snapshot.data(), c.bytes);
    ctx->copyQueue.pop_front();
    ++done;
  }
}

/// The checks of a call \p fn that hands out \p bytes of memory in \p out.
int requireAllocation(gnnrt_cuda *ctx, const char *fn, int64_t bytes,
                      void **out) {
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, fn));
  if (!out)
    return fail(GNNRT_ERR_NULL_POINTER, std::string(fn) + ": null output");
  if (bytes < 0)
    return fail(GNNRT_ERR_BAD_SIZE,
                std::string(fn) + ": " + std::to_string(bytes) + " bytes");
  return GNNRT_OK;
}

int allocate(gnnrt_cuda *ctx, bool device, int64_t bytes, void **out) {
  const char *fn = device ? "gnnrt_cuda_malloc" : "gnnrt_cuda_host_alloc";
  GNNRT_RETURN_IF_ERROR(requireAllocation(ctx, fn, bytes, out));
  *out = nullptr;
  if (bytes == 0)
    return GNNRT_OK;
  size_t size =
      (static_cast<size_t>(bytes) + kAlignment - 1) / kAlignment * kAlignment;
  void *p = std::aligned_alloc(kAlignment, size);
  if (!p)
    return fail(GNNRT_ERR_CUDA, std::string(fn) + "(" + std::to_string(bytes) +
                                    " bytes): out of host memory (emulator)");
  (device ? ctx->device : ctx->host)[reinterpret_cast<uintptr_t>(p)] = bytes;
  if (device)
    ctx->deviceBytes += bytes;
  *out = p;
  return GNNRT_OK;
}

int release(gnnrt_cuda *ctx, bool device, void *p) {
  const char *fn = device ? "gnnrt_cuda_free" : "gnnrt_cuda_host_free";
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, fn));
  if (!p)
    return GNNRT_OK;
  auto &live = device ? ctx->device : ctx->host;
  auto it = live.find(reinterpret_cast<uintptr_t>(p));
  if (it == live.end())
    return fail(GNNRT_ERR_BAD_ARGUMENT,
                std::string(fn) + ": the pointer was not allocated by " +
                    (device ? "gnnrt_cuda_malloc" : "gnnrt_cuda_host_alloc") +
                    " on this context (or was freed already)");
  // A GPU would finish the copies before cudaFree returns; one still queued
  // from or to this block must not touch freed memory.
  drainCopies(ctx, ctx->copiesIssued);
  if (device)
    ctx->deviceBytes -= it->second;
  live.erase(it);
  std::free(p);
  return GNNRT_OK;
}

} // namespace

int64_t gnnrt::emu::gridFor(int64_t threads) {
  constexpr int64_t kMaxBlocks = 65535 * 16;
  int64_t blocks = (threads + 255) / 256;
  return std::min(std::max<int64_t>(blocks, 1), kMaxBlocks);
}

int gnnrt::emu::fail(int status, const std::string &message) {
  lastError = message;
  return status;
}

gnnrt_cuda *gnnrt::emu::current(const char *fn, int &status) {
  status = GNNRT_OK;
  // The real library's message, then the call's name.
  if (!currentContext)
    status = fail(GNNRT_ERR_CUDA,
                  std::string("no current CUDA context (gnnrt_cuda_set_current "
                              "was not called on this thread): ") +
                      fn);
  return currentContext;
}

bool gnnrt::emu::isDeviceMemory(const gnnrt_cuda *ctx, const void *p,
                                int64_t bytes) {
  return inside(ctx->device, p, bytes);
}

extern "C" {

int gnnrt_cuda_available(void) { return 1; }

gnnrt_cuda *gnnrt_cuda_open(int ordinal, char *error, int64_t error_size) {
  if (ordinal != -1 && ordinal != 0) {
    std::string message = "no CUDA device: ordinal " + std::to_string(ordinal) +
                          " is not the emulator's one device";
    if (error && error_size > 0) {
      size_t n = std::min(message.size(), static_cast<size_t>(error_size - 1));
      std::memcpy(error, message.data(), n);
      error[n] = '\0';
    }
    fail(GNNRT_ERR_NO_DEVICE, message);
    return nullptr;
  }
  auto *ctx = new (std::nothrow) gnnrt_cuda;
  if (!ctx)
    return nullptr;
  // The "device" is the host's memory; total and free say so rather than
  // inventing a GPU's.
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  ctx->totalBytes = pages > 0 && pageSize > 0
                        ? static_cast<int64_t>(pages) * pageSize
                        : INT64_C(1) << 40;
  std::snprintf(ctx->info.name, sizeof ctx->info.name, "%s", kDeviceName);
  ctx->info.ordinal = 0;
  ctx->info.sm = 0;
  ctx->info.total_bytes = ctx->totalBytes;
  ctx->info.free_bytes = ctx->totalBytes;
  return ctx;
}

void gnnrt_cuda_close(gnnrt_cuda *ctx) {
  if (!ctx)
    return;
  drainCopies(ctx, ctx->copiesIssued);
  unloadUnits(ctx);
  for (auto &[p, bytes] : ctx->device)
    std::free(reinterpret_cast<void *>(p));
  for (auto &[p, bytes] : ctx->host)
    std::free(reinterpret_cast<void *>(p));
  if (currentContext == ctx)
    currentContext = nullptr;
  delete ctx;
}

int gnnrt_cuda_info(const gnnrt_cuda *ctx, gnnrt_cuda_device_info *out) {
  if (!ctx || !out)
    return fail(GNNRT_ERR_NULL_POINTER, "gnnrt_cuda_info: null argument");
  *out = ctx->info;
  return GNNRT_OK;
}

// Both paths are the CPU's gnnrt_cpu_spmm here; the setting is checked and
// kept so that programs choosing one run unchanged.
int gnnrt_cuda_set_spmm_path(gnnrt_cuda *ctx, int path) {
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, "gnnrt_cuda_set_spmm_path"));
  if (path != GNNRT_CUDA_SPMM_OWN && path != GNNRT_CUDA_SPMM_CUSPARSE)
    return fail(GNNRT_ERR_BAD_ARGUMENT,
                "gnnrt_cuda_set_spmm_path: no path " + std::to_string(path));
  return GNNRT_OK;
}

void gnnrt_cuda_set_current(gnnrt_cuda *ctx) { currentContext = ctx; }
gnnrt_cuda *gnnrt_cuda_current(void) { return currentContext; }
const char *gnnrt_cuda_last_error(void) { return lastError.c_str(); }

int gnnrt_cuda_malloc(gnnrt_cuda *ctx, int64_t bytes, void **out) {
  return allocate(ctx, true, bytes, out);
}
int gnnrt_cuda_free(gnnrt_cuda *ctx, void *p) { return release(ctx, true, p); }
int gnnrt_cuda_host_alloc(gnnrt_cuda *ctx, int64_t bytes, void **out) {
  return allocate(ctx, false, bytes, out);
}
int gnnrt_cuda_host_free(gnnrt_cuda *ctx, void *p) {
  return release(ctx, false, p);
}

} // extern "C"

namespace {

/// gnnrt_cuda_staging's and gnnrt_cuda_scratch's grow-only buffer \p buffer
/// of \p size bytes: at least \p bytes (and one), pinned host or \p device
/// memory.
int growBuffer(gnnrt_cuda *ctx, const char *fn, bool device, int64_t bytes,
               void *&buffer, int64_t &size, void **out) {
  GNNRT_RETURN_IF_ERROR(requireAllocation(ctx, fn, bytes, out));
  if (bytes > size || !buffer) {
    GNNRT_RETURN_IF_ERROR(release(ctx, device, buffer));
    buffer = nullptr;
    size = 0;
    GNNRT_RETURN_IF_ERROR(
        allocate(ctx, device, bytes > 0 ? bytes : 1, &buffer));
    size = bytes;
  }
  *out = buffer;
  return GNNRT_OK;
}

} // namespace

extern "C" {

int gnnrt_cuda_staging(gnnrt_cuda *ctx, int64_t bytes, void **out) {
  return growBuffer(ctx, "gnnrt_cuda_staging", false, bytes, ctx->staging,
                    ctx->stagingBytes, out);
}

// Device memory like the arena's, so the report's "GPU memory in use"
// counts it as a GPU's cudaMemGetInfo would.
int gnnrt_cuda_scratch(gnnrt_cuda *ctx, int64_t bytes, void **out) {
  return growBuffer(ctx, "gnnrt_cuda_scratch", true, bytes, ctx->scratch,
                    ctx->scratchBytes, out);
}

// Synchronous copies are on the compute stream: they wait for nothing on
// the copy stream, as on a GPU.
int gnnrt_cuda_copy(gnnrt_cuda *ctx, void *dst, const void *src,
                    int64_t bytes) {
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, "gnnrt_cuda_copy"));
  GNNRT_RETURN_IF_ERROR(requireCopy("gnnrt_cuda_copy", dst, src, bytes));
  copyNow(dst, src, bytes);
  return GNNRT_OK;
}

int gnnrt_cuda_memset(gnnrt_cuda *ctx, void *dst, int value, int64_t bytes) {
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, "gnnrt_cuda_memset"));
  if (bytes < 0)
    return fail(GNNRT_ERR_BAD_SIZE,
                "gnnrt_cuda_memset: " + std::to_string(bytes) + " bytes");
  if (bytes > 0 && !dst)
    return fail(GNNRT_ERR_NULL_POINTER, "gnnrt_cuda_memset: null destination");
  if (bytes > 0)
    std::memset(dst, value, static_cast<size_t>(bytes));
  return GNNRT_OK;
}

int gnnrt_cuda_copy_async(gnnrt_cuda *ctx, int stream, void *dst,
                          const void *src, int64_t bytes) {
  static const char *const kFn = "gnnrt_cuda_copy_async";
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, kFn));
  GNNRT_RETURN_IF_ERROR(requireStream(stream, kFn));
  GNNRT_RETURN_IF_ERROR(requireCopy(kFn, dst, src, bytes));
  if (bytes == 0)
    return GNNRT_OK;
  if (stream == GNNRT_CUDA_COMPUTE) {
    copyNow(dst, src, bytes);
    return GNNRT_OK;
  }
  auto pageable = [&](const void *p) {
    return !inside(ctx->device, p, bytes) && !inside(ctx->host, p, bytes);
  };
  // A copy into pageable memory returns only when done (CUDA's rule), so it
  // runs now, after the copies before it.
  if (pageable(dst)) {
    drainCopies(ctx, ctx->copiesIssued);
    copyNow(dst, src, bytes);
    ++ctx->copiesIssued;
    return GNNRT_OK;
  }
  PendingCopy copy{dst, src, bytes, {}};
  if (pageable(src)) {
    auto *bytesAt = static_cast<const char *>(src);
    copy.snapshot.assign(bytesAt, bytesAt + bytes);
  }
  ctx->copyQueue.push_back(std::move(copy));
  ++ctx->copiesIssued;
  return GNNRT_OK;
}

int gnnrt_cuda_record(gnnrt_cuda *ctx, int stream, int64_t event) {
  GNNRT_RETURN_IF_ERROR(
      requireEventCall(ctx, stream, event, "gnnrt_cuda_record"));
  ctx->events[event] = Event{stream, ctx->copiesIssued};
  return GNNRT_OK;
}

int gnnrt_cuda_wait(gnnrt_cuda *ctx, int stream, int64_t event) {
  GNNRT_RETURN_IF_ERROR(
      requireEventCall(ctx, stream, event, "gnnrt_cuda_wait"));
  // As in CUDA, an event never recorded does not wait. The copy stream
  // waiting for the compute stream has nothing to wait for: compute is
  // always done.
  auto it = ctx->events.find(event);
  if (stream == GNNRT_CUDA_COMPUTE && it != ctx->events.end() &&
      it->second.stream == GNNRT_CUDA_COPY)
    drainCopies(ctx, it->second.copiesBefore);
  return GNNRT_OK;
}

int gnnrt_cuda_synchronize(gnnrt_cuda *ctx) {
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, "gnnrt_cuda_synchronize"));
  drainCopies(ctx, ctx->copiesIssued);
  return GNNRT_OK;
}

// Free is the host's memory less what this context holds as device memory:
// the session's "GPU memory in use" is then exactly what it allocated.
int gnnrt_cuda_mem_info(gnnrt_cuda *ctx, int64_t *free_bytes,
                        int64_t *total_bytes) {
  GNNRT_RETURN_IF_ERROR(requireContext(ctx, "gnnrt_cuda_mem_info"));
  if (!free_bytes || !total_bytes)
    return fail(GNNRT_ERR_NULL_POINTER, "gnnrt_cuda_mem_info: null output");
  *total_bytes = ctx->totalBytes;
  *free_bytes = std::max<int64_t>(ctx->totalBytes - ctx->deviceBytes, 0);
  return GNNRT_OK;
}

int gnnrt_cuda_compile(const char *, const char *, int, void **image,
                       int64_t *image_bytes) {
  if (image)
    *image = nullptr;
  if (image_bytes)
    *image_bytes = 0;
  return fail(GNNRT_ERR_CUDA,
              "gnnrt_cuda_compile: the CUDA emulator has no NVRTC and builds "
              "no CUBIN (its gnnrt_cuda_launch compiles kernels for the CPU)");
}

} // extern "C"
