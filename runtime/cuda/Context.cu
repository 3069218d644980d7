//===- Context.cu - Opening the device, errors, the current context -------===//
//
// A context is the device's primary context (shared with cuBLAS, cuSPARSE
// and any other library in the process) plus our own streams and handles.
// Both streams are non-blocking so that neither waits for work another
// library queued on the legacy default stream; ordering between them is
// only what gnnrt_cuda_record / _wait say.
//
// The CUDA runtime is linked statically and opens libcuda.so.1 on its first
// call, so a machine without a driver or GPU gets here and is told why.
//
//===----------------------------------------------------------------------===//
#include "Context.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

namespace {

// Per thread, as errno: two threads driving two contexts must not read each
// other's failures.
thread_local std::string lastError;
thread_local gnnrt_cuda *currentContext = nullptr;

/// "call: NAME (code): text", the one shape every library's failure takes.
std::string describe(const char *call, const char *name, long code,
                     const char *text) {
  std::string message = call;
  message += ": ";
  message += name ? name : "unknown error";
  message += " (" + std::to_string(code) + ")";
  if (text && *text && (!name || std::strcmp(name, text) != 0)) {
    message += ": ";
    message += text;
  }
  return message;
}

/// Copies \p message into the caller's buffer, truncated and terminated.
void writeError(const std::string &message, char *error, int64_t errorSize) {
  if (!error || errorSize <= 0)
    return;
  size_t n = std::min(message.size(), static_cast<size_t>(errorSize - 1));
  std::memcpy(error, message.data(), n);
  error[n] = '\0';
}

/// Releases whatever part of \p ctx exists. Every step runs even if an
/// earlier one failed (a context whose device hit a sticky error must
/// still give its host memory back); the first failure stays the thread's
/// last error.
void destroy(gnnrt_cuda *ctx) {
  using gnnrt::cuda::check;
  std::string firstFailure;
  auto note = [&](int status) {
    if (status != GNNRT_OK && firstFailure.empty())
      firstFailure = lastError;
  };
  note(check(cudaSetDevice(ctx->info.ordinal), "cudaSetDevice"));
  if (ctx->compute)
    note(check(cudaStreamSynchronize(ctx->compute), "cudaStreamSynchronize"));
  if (ctx->copy)
    note(check(cudaStreamSynchronize(ctx->copy), "cudaStreamSynchronize"));
  for (auto &entry : ctx->modules)
    if (entry.second.library)
      note(check(cudaLibraryUnload(entry.second.library), "cudaLibraryUnload"));
  for (cudaEvent_t event : ctx->events)
    if (event)
      note(check(cudaEventDestroy(event), "cudaEventDestroy"));
  if (ctx->scratch)
    note(check(cudaFree(ctx->scratch), "cudaFree"));
  for (void *p : ctx->deviceAllocations)
    note(check(cudaFree(p), "cudaFree"));
  for (void *p : ctx->hostAllocations)
    note(check(cudaFreeHost(p), "cudaFreeHost"));
  if (ctx->blas)
    note(check(cublasDestroy(ctx->blas), "cublasDestroy"));
  if (ctx->sparse)
    note(check(cusparseDestroy(ctx->sparse), "cusparseDestroy"));
  if (ctx->compute)
    note(check(cudaStreamDestroy(ctx->compute), "cudaStreamDestroy"));
  if (ctx->copy)
    note(check(cudaStreamDestroy(ctx->copy), "cudaStreamDestroy"));
  if (currentContext == ctx)
    currentContext = nullptr;
  delete ctx;
  if (!firstFailure.empty())
    lastError = firstFailure;
}

/// Creates the streams and handles of \p ctx on device \p ordinal and fills
/// its info; on failure the thread's last error says which call failed.
int create(gnnrt_cuda *ctx, int ordinal, const cudaDeviceProp &prop) {
  GNNRT_CUDA_CHECK(cudaSetDevice(ordinal));
  GNNRT_CUDA_CHECK(
      cudaStreamCreateWithFlags(&ctx->compute, cudaStreamNonBlocking));
  GNNRT_CUDA_CHECK(
      cudaStreamCreateWithFlags(&ctx->copy, cudaStreamNonBlocking));
  GNNRT_CUDA_CHECK(cublasCreate(&ctx->blas));
  GNNRT_CUDA_CHECK(cublasSetStream(ctx->blas, ctx->compute));
  // Pedantic rather than default math: under the default, settings outside
  // this library (environment variables) and newer cuBLAS releases may
  // trade plain fp32 for TF32 or the BF16x9 emulation of fp32 (cuBLAS
  // 12.9+, on devices that have it); pedantic keeps every SGEMM in fp32
  // arithmetic, which is what Cuda.h promises.
  GNNRT_CUDA_CHECK(cublasSetMathMode(ctx->blas, CUBLAS_PEDANTIC_MATH));
  GNNRT_CUDA_CHECK(cusparseCreate(&ctx->sparse));
  GNNRT_CUDA_CHECK(cusparseSetStream(ctx->sparse, ctx->compute));

  gnnrt_cuda_device_info &info = ctx->info;
  std::snprintf(info.name, sizeof(info.name), "%s", prop.name);
  info.ordinal = ordinal;
  info.sm = 10 * prop.major + prop.minor;
  size_t freeBytes = 0, totalBytes = 0;
  GNNRT_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
  info.free_bytes = static_cast<int64_t>(freeBytes);
  info.total_bytes = static_cast<int64_t>(totalBytes);
  GNNRT_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  GNNRT_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  return GNNRT_OK;
}

/// Returns NULL after keeping \p message as the last error and writing it
/// into the caller's buffer.
gnnrt_cuda *refuse(const std::string &message, char *error, int64_t errorSize) {
  lastError = message;
  writeError(message, error, errorSize);
  return nullptr;
}

} // namespace

namespace gnnrt::cuda {

int fail(int status, const std::string &message) {
  lastError = message;
  return status;
}

int check(cudaError_t code, const char *call) {
  if (code == cudaSuccess)
    return GNNRT_OK;
  // The runtime also keeps the failure as its own per-thread last error;
  // clear it so a later, unrelated launch does not report it again. Sticky
  // errors (a faulting kernel) survive this and fail every later call.
  (void)cudaGetLastError();
  return fail(GNNRT_ERR_CUDA, describe(call, cudaGetErrorName(code), code,
                                       cudaGetErrorString(code)));
}

int check(cublasStatus_t code, const char *call) {
  if (code == CUBLAS_STATUS_SUCCESS)
    return GNNRT_OK;
  return fail(GNNRT_ERR_CUDA, describe(call, cublasGetStatusName(code), code,
                                       cublasGetStatusString(code)));
}

int check(cusparseStatus_t code, const char *call) {
  if (code == CUSPARSE_STATUS_SUCCESS)
    return GNNRT_OK;
  return fail(GNNRT_ERR_CUDA, describe(call, cusparseGetErrorName(code), code,
                                       cusparseGetErrorString(code)));
}

int check(nvrtcResult code, const char *call) {
  if (code == NVRTC_SUCCESS)
    return GNNRT_OK;
  // NVRTC has a name ("NVRTC_ERROR_COMPILATION") but no separate text.
  return fail(GNNRT_ERR_CUDA,
              describe(call, nvrtcGetErrorString(code), code, nullptr));
}

gnnrt_cuda *current(int &status) {
  if (!currentContext) {
    status = fail(GNNRT_ERR_CUDA,
                  "no current CUDA context (gnnrt_cuda_set_current was not "
                  "called on this thread)");
    return nullptr;
  }
  status = GNNRT_OK;
  return currentContext;
}

int bind(gnnrt_cuda *ctx) {
  return check(cudaSetDevice(ctx->info.ordinal), "cudaSetDevice");
}

int scratch(gnnrt_cuda *ctx, size_t bytes, void **out) {
  if (!ctx || !out)
    return fail(GNNRT_ERR_NULL_POINTER, "gnnrt::cuda::scratch: null argument");
  if (bytes > ctx->scratchBytes) {
    GNNRT_RETURN_IF_ERROR(bind(ctx));
    // Kernels queued earlier may still read the old buffer; every user of
    // the scratch runs on the compute stream.
    GNNRT_CUDA_CHECK(cudaStreamSynchronize(ctx->compute));
    if (ctx->scratch) {
      GNNRT_CUDA_CHECK(cudaFree(ctx->scratch));
      ctx->scratch = nullptr;
      ctx->scratchBytes = 0;
    }
    void *p = nullptr;
    int status = check(
        cudaMalloc(&p, bytes),
        ("cudaMalloc(" + std::to_string(bytes) + " bytes of scratch)").c_str());
    if (status != GNNRT_OK)
      return status;
    ctx->scratch = p;
    ctx->scratchBytes = bytes;
  }
  *out = ctx->scratch;
  return GNNRT_OK;
}

} // namespace gnnrt::cuda

extern "C" {

int gnnrt_cuda_available(void) { return 1; }

gnnrt_cuda *gnnrt_cuda_open(int ordinal, char *error, int64_t error_size) {
  using gnnrt::cuda::check;
  int count = 0;
  if (check(cudaGetDeviceCount(&count), "cudaGetDeviceCount") != GNNRT_OK)
    return refuse("no CUDA device: " + lastError, error, error_size);
  if (count == 0)
    return refuse("no CUDA device: cudaGetDeviceCount found none", error,
                  error_size);
  if (ordinal == -1)
    ordinal = 0;
  if (ordinal < 0 || ordinal >= count)
    return refuse("no CUDA device: ordinal " + std::to_string(ordinal) +
                      " is not one of the " + std::to_string(count) +
                      " visible device(s)",
                  error, error_size);
  cudaDeviceProp prop;
  if (check(cudaGetDeviceProperties(&prop, ordinal),
            "cudaGetDeviceProperties") != GNNRT_OK)
    return refuse("no CUDA device: " + lastError, error, error_size);
  // The library's kernels are built for sm_80 and sm_90 (with PTX for
  // newer devices): an older device has no image to run them, and failing
  // here says so before the first launch would.
  int sm = 10 * prop.major + prop.minor;
  if (sm < 80)
    return refuse("no CUDA device: device " + std::to_string(ordinal) + " (" +
                      prop.name + ") is sm_" + std::to_string(sm) +
                      "; gnnc needs sm_80 or newer",
                  error, error_size);

  auto *ctx = new (std::nothrow) gnnrt_cuda;
  if (!ctx)
    return refuse("cannot open CUDA device " + std::to_string(ordinal) +
                      ": out of host memory",
                  error, error_size);
  ctx->info.ordinal = ordinal;
  if (create(ctx, ordinal, prop) != GNNRT_OK) {
    std::string message = "cannot open CUDA device " + std::to_string(ordinal) +
                          " (" + prop.name + "): " + lastError;
    destroy(ctx);
    return refuse(message, error, error_size);
  }
  return ctx;
}

void gnnrt_cuda_close(gnnrt_cuda *ctx) {
  if (ctx)
    destroy(ctx);
}

int gnnrt_cuda_info(const gnnrt_cuda *ctx, gnnrt_cuda_device_info *out) {
  if (!ctx || !out)
    return gnnrt::cuda::fail(GNNRT_ERR_NULL_POINTER,
                             "gnnrt_cuda_info: null argument");
  *out = ctx->info;
  return GNNRT_OK;
}

int gnnrt_cuda_set_spmm_path(gnnrt_cuda *ctx, int path) {
  if (!ctx)
    return gnnrt::cuda::fail(GNNRT_ERR_NULL_POINTER,
                             "gnnrt_cuda_set_spmm_path: null context");
  if (path != GNNRT_CUDA_SPMM_OWN && path != GNNRT_CUDA_SPMM_CUSPARSE)
    return gnnrt::cuda::fail(GNNRT_ERR_BAD_ARGUMENT,
                             "gnnrt_cuda_set_spmm_path: no path " +
                                 std::to_string(path));
  ctx->spmmOwn = path == GNNRT_CUDA_SPMM_OWN;
  return GNNRT_OK;
}

void gnnrt_cuda_set_current(gnnrt_cuda *ctx) {
  currentContext = ctx;
  // Library operations take no context argument, so the thread's device
  // must be the context's before the first of them; a failure here shows
  // again in that operation's own check.
  if (ctx)
    (void)gnnrt::cuda::bind(ctx);
}

gnnrt_cuda *gnnrt_cuda_current(void) { return currentContext; }

const char *gnnrt_cuda_last_error(void) { return lastError.c_str(); }

} // extern "C"
