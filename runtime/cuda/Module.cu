//===- Module.cu - Generated kernels: NVRTC, loading, launching -----------===//
//
// A unit of generated kernels is loaded on its first launch, as a CUDA
// library (cudaLibrary_t): from the image nvcc built ahead of time when
// there is one, else from its source compiled by NVRTC for this device.
// Libraries are context-independent and their kernels (cudaKernel_t) are
// launched with cudaLaunchKernel, which takes a cudaKernel_t cast to
// `const void *` in place of a host stub (cuda_runtime_api.h, "note
// cudaKernel_t"): no driver API, so no link to libcuda.
//
//===----------------------------------------------------------------------===//
#include "Context.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

using gnnrt::cuda::check;
using gnnrt::cuda::fail;

namespace {

/// Destroys an NVRTC program on every path out of gnnrt_cuda_compile.
struct ProgramGuard {
  nvrtcProgram program = nullptr;
  ~ProgramGuard() {
    if (program)
      (void)nvrtcDestroyProgram(&program);
  }
};

/// The compiler's log, without its terminating newlines ("" when none).
std::string programLog(nvrtcProgram program) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1)
    return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(program, &log[0]) != NVRTC_SUCCESS)
    return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  return log;
}

const char *unitName(const gnnrt_cuda_kernels *unit) {
  return unit->name ? unit->name : "<unnamed unit>";
}

/// Tries to load \p library's code into the current context now. With lazy
/// loading (CUDA's default since 12.2) cudaLibraryLoadData only reads the
/// image, and an image without code for this device would fail at the first
/// launch; here its source can still replace it. (On an H100 with CUDA 13
/// an sm_80 CUBIN passed this and failed at cudaLibraryGetKernel: lookUp.)
int loadNow(cudaLibrary_t library) {
  unsigned count = 0;
  GNNRT_CUDA_CHECK(cudaLibraryGetKernelCount(&count, library));
  if (count == 0)
    return GNNRT_OK;
  std::vector<cudaKernel_t> kernels(count);
  GNNRT_CUDA_CHECK(cudaLibraryEnumerateKernels(kernels.data(), count, library));
  // Attributes are per device, so asking for them loads the kernel's code.
  cudaFuncAttributes attributes;
  GNNRT_CUDA_CHECK(cudaFuncGetAttributes(
      &attributes, reinterpret_cast<const void *>(kernels[0])));
  return GNNRT_OK;
}

/// Compiles \p unit's source with NVRTC for this device and loads it into
/// \p module; \p imageFailure, if any, says why its image did not serve.
int loadSource(gnnrt_cuda *ctx, const gnnrt_cuda_kernels *unit,
               gnnrt_cuda_module &module, const std::string &imageFailure) {
  void *cubin = nullptr;
  int64_t cubinBytes = 0;
  int status = gnnrt_cuda_compile(unit->source, unitName(unit), ctx->info.sm,
                                  &cubin, &cubinBytes);
  if (status != GNNRT_OK) {
    if (!imageFailure.empty())
      return fail(status, std::string(gnnrt_cuda_last_error()) +
                              "\n(after its image failed to load: " +
                              imageFailure + ")");
    return status;
  }
  // The driver keeps its own copy of the code (cudaLibraryBinaryIsPreserved
  // is not given), so the CUBIN can go at once.
  std::unique_ptr<void, decltype(&std::free)> owned(cubin, &std::free);
  return check(cudaLibraryLoadData(&module.library, cubin, nullptr, nullptr, 0,
                                   nullptr, nullptr, 0),
               (std::string("cudaLibraryLoadData(") + unitName(unit) +
                ", compiled by NVRTC)")
                   .c_str());
}

/// Loads \p unit into \p module: its image first, its source when there is
/// no image or the image has no code for this device (a fatbin built for
/// other architectures).
int load(gnnrt_cuda *ctx, const gnnrt_cuda_kernels *unit,
         gnnrt_cuda_module &module) {
  std::string imageFailure;
  if (unit->image) {
    int status =
        check(cudaLibraryLoadData(&module.library, unit->image, nullptr,
                                  nullptr, 0, nullptr, nullptr, 0),
              "cudaLibraryLoadData");
    if (status == GNNRT_OK) {
      status = loadNow(module.library);
      if (status == GNNRT_OK) {
        module.fromImage = true;
        return GNNRT_OK;
      }
      std::string message = gnnrt_cuda_last_error();
      (void)cudaLibraryUnload(module.library);
      module.library = nullptr;
      fail(status, message);
    }
    imageFailure = gnnrt_cuda_last_error();
    if (!unit->source)
      return fail(GNNRT_ERR_CUDA, std::string("cannot load the image of ") +
                                      unitName(unit) + ": " + imageFailure);
  }
  if (!unit->source)
    return fail(GNNRT_ERR_BAD_ARGUMENT,
                std::string("gnnrt_cuda_launch: ") + unitName(unit) +
                    " has neither an image nor a source");
  return loadSource(ctx, unit, module, imageFailure);
}

/// Looks \p kernel up in \p module. Even after loadNow, an image without
/// code for this device can fail only here, with
/// cudaErrorNoKernelImageForDevice (an sm_80 CUBIN on an H100, 2026-11-22):
/// then the unit's source replaces it, as when the load itself fails.
/// \p status is set when the replacement fails.
cudaError_t lookUp(gnnrt_cuda *ctx, const gnnrt_cuda_kernels *unit,
                   gnnrt_cuda_module &module, const char *kernel,
                   cudaKernel_t &handle, int &status) {
  status = GNNRT_OK;
  cudaError_t code = cudaLibraryGetKernel(&handle, module.library, kernel);
  if (code != cudaErrorNoKernelImageForDevice || !module.fromImage)
    return code;
  check(code, "cudaLibraryGetKernel");
  std::string imageFailure = gnnrt_cuda_last_error();
  (void)cudaLibraryUnload(module.library);
  module = gnnrt_cuda_module();
  if (!unit->source) {
    status = fail(GNNRT_ERR_CUDA, std::string("cannot load the image of ") +
                                      unitName(unit) + ": " + imageFailure);
    return code;
  }
  status = loadSource(ctx, unit, module, imageFailure);
  if (status != GNNRT_OK)
    return code;
  return cudaLibraryGetKernel(&handle, module.library, kernel);
}

} // namespace

extern "C" {

int gnnrt_cuda_compile(const char *source, const char *name, int sm,
                       void **image, int64_t *image_bytes) {
  if (!source || !image || !image_bytes)
    return fail(GNNRT_ERR_NULL_POINTER, "gnnrt_cuda_compile: null argument");
  // NVRTC judges which architectures it knows; this only keeps the option
  // text well formed.
  if (sm <= 0 || sm >= 1000)
    return fail(GNNRT_ERR_BAD_ARGUMENT, "gnnrt_cuda_compile: sm " +
                                            std::to_string(sm) +
                                            " is not an architecture");
  const char *programName = name ? name : "gnnrt_kernels.cu";
  ProgramGuard guard;
  GNNRT_CUDA_CHECK(nvrtcCreateProgram(&guard.program, source, programName, 0,
                                      nullptr, nullptr));
  std::string arch = "--gpu-architecture=sm_" + std::to_string(sm);
  // --fmad=false: the library is built the same way (CMakeLists.txt), and
  // the CPU kernels with -ffp-contract=off, so a generated kernel rounds
  // each product and each sum as its source says, like its CPU twin.
  const char *options[] = {arch.c_str(), "-std=c++17", "--fmad=false"};
  nvrtcResult code = nvrtcCompileProgram(
      guard.program, static_cast<int>(sizeof(options) / sizeof(*options)),
      options);
  if (code != NVRTC_SUCCESS) {
    std::string log = programLog(guard.program);
    std::string call = std::string("nvrtcCompileProgram(") + programName +
                       ", sm_" + std::to_string(sm) + ")";
    check(code, call.c_str());
    std::string message = gnnrt_cuda_last_error();
    if (!log.empty())
      message += "\n" + log;
    return fail(GNNRT_ERR_CUDA, message);
  }
  size_t bytes = 0;
  GNNRT_CUDA_CHECK(nvrtcGetCUBINSize(guard.program, &bytes));
  if (bytes == 0)
    return fail(GNNRT_ERR_CUDA, std::string("nvrtcGetCUBINSize(") +
                                    programName + "): NVRTC produced no CUBIN");
  void *out = std::malloc(bytes);
  if (!out)
    return fail(GNNRT_ERR_OUT_OF_MEMORY,
                "gnnrt_cuda_compile: cannot allocate " + std::to_string(bytes) +
                    " bytes for the CUBIN");
  int status = check(nvrtcGetCUBIN(guard.program, static_cast<char *>(out)),
                     "nvrtcGetCUBIN");
  if (status != GNNRT_OK) {
    std::free(out);
    return status;
  }
  *image = out;
  *image_bytes = static_cast<int64_t>(bytes);
  return GNNRT_OK;
}

int gnnrt_cuda_launch(gnnrt_cuda *ctx, const gnnrt_cuda_kernels *unit,
                      const char *kernel, int64_t threads, void **params) {
  if (!ctx || !unit || !kernel)
    return fail(GNNRT_ERR_NULL_POINTER, "gnnrt_cuda_launch: null argument");
  if (threads < 0)
    return fail(GNNRT_ERR_BAD_SIZE,
                std::string("gnnrt_cuda_launch: ") + unitName(unit) + ": " +
                    kernel + " over " + std::to_string(threads) + " threads");
  GNNRT_RETURN_IF_ERROR(gnnrt::cuda::bind(ctx));

  auto found = ctx->modules.find(unit);
  if (found == ctx->modules.end()) {
    gnnrt_cuda_module module;
    GNNRT_RETURN_IF_ERROR(load(ctx, unit, module));
    found = ctx->modules.emplace(unit, std::move(module)).first;
  }
  gnnrt_cuda_module &module = found->second;

  auto cached = module.kernels.find(kernel);
  if (cached == module.kernels.end()) {
    cudaKernel_t handle = nullptr;
    int status;
    cudaError_t code = lookUp(ctx, unit, module, kernel, handle, status);
    if (status != GNNRT_OK)
      return status;
    if (code != cudaSuccess) {
      std::string call = std::string("cudaLibraryGetKernel(") + unitName(unit) +
                         ", " + kernel + ")";
      status = check(code, call.c_str());
      if (code == cudaErrorSymbolNotFound)
        return fail(GNNRT_ERR_BAD_ARGUMENT,
                    std::string("gnnrt_cuda_launch: unit ") + unitName(unit) +
                        " has no kernel named '" + kernel + "' (" +
                        gnnrt_cuda_last_error() + ")");
      return status;
    }
    cached = module.kernels.emplace(kernel, handle).first;
  }
  // No work items, no launch: a grid of zero blocks is a launch error.
  if (threads == 0)
    return GNNRT_OK;

  dim3 grid(gnnrt::cuda::gridFor(threads)), block(256);
  cudaError_t code =
      cudaLaunchKernel(reinterpret_cast<const void *>(cached->second), grid,
                       block, params, 0, ctx->compute);
  if (code == cudaSuccess)
    return GNNRT_OK;
  std::string call =
      std::string("cudaLaunchKernel(") + unitName(unit) + ": " + kernel + ")";
  return check(code, call.c_str());
}

} // extern "C"
