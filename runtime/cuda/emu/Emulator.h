//===- Emulator.h - The CUDA emulator's context -----------------*- C++ -*-===//
//
// What the emulator's files share: the context behind gnnrt_cuda *, the
// thread's last error, and the current context. "Device" memory is host
// memory; the compute stream runs every operation at once; the copy
// stream's copies wait in a queue until something the program does would
// make a GPU finish them (see Device.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_CUDA_EMU_EMULATOR_H
#define GNNRT_CUDA_EMU_EMULATOR_H

#include "common/KernelCommon.h"
#include "gnnrt/Cuda.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gnnrt::emu {

/// A unit's kernels compiled for the CPU and loaded (Launch.cpp).
struct KernelUnit {
  void *handle = nullptr;
  struct Kernel {
    /// NAME__emu: unpacks cudaLaunchKernel-style params, runs the grid.
    void (*run)(void **params, long long blocks);
    std::vector<bool> isPointer;
  };
  std::map<std::string, Kernel> kernels;
};

/// A copy queued on the copy stream. A source in pageable memory was read
/// when the copy was issued, as cudaMemcpyAsync does with pageable memory,
/// and is kept in `snapshot`.
struct PendingCopy {
  void *dst;
  const void *src;
  int64_t bytes;
  std::vector<char> snapshot;
};

/// An event: the stream it was last recorded on and, for the copy stream,
/// how many copies had been issued to it by then.
struct Event {
  int stream;
  uint64_t copiesBefore;
};

/// The number of blocks a real launch of \p threads work items uses
/// (gnnrt::cuda::gridFor in runtime/cuda/Context.h): the emulator walks the
/// same grid, so the kernels' index arithmetic sees the same values.
int64_t gridFor(int64_t threads);

/// Records \p message as the calling thread's last error; returns \p status.
int fail(int status, const std::string &message);

/// The calling thread's context, or null with the failure recorded (as the
/// real library's library operations do).
gnnrt_cuda *current(const char *fn, int &status);

/// Whether [p, p + bytes) lies inside one gnnrt_cuda_malloc allocation.
bool isDeviceMemory(const gnnrt_cuda *ctx, const void *p, int64_t bytes);

/// Unloads the compiled kernel units of \p ctx (Launch.cpp).
void unloadUnits(gnnrt_cuda *ctx);

} // namespace gnnrt::emu

struct gnnrt_cuda {
  gnnrt_cuda_device_info info{};
  int64_t totalBytes = 0;
  /// Live allocations by address: device (gnnrt_cuda_malloc) and pinned
  /// host (gnnrt_cuda_host_alloc) memory.
  std::map<uintptr_t, int64_t> device, host;
  int64_t deviceBytes = 0;
  void *staging = nullptr;
  int64_t stagingBytes = 0;
  /// gnnrt_cuda_scratch's device memory (grow-only).
  void *scratch = nullptr;
  int64_t scratchBytes = 0;
  /// The copy stream: copies not yet done, and how many were ever issued.
  std::deque<gnnrt::emu::PendingCopy> copyQueue;
  uint64_t copiesIssued = 0;
  std::map<int64_t, gnnrt::emu::Event> events;
  /// Loaded units by the address of their gnnrt_cuda_kernels, as the real
  /// library caches modules; the lock keeps one launch at a time (the
  /// kernels' index variables are globals of their unit).
  std::map<const gnnrt_cuda_kernels *, std::unique_ptr<gnnrt::emu::KernelUnit>>
      units;
  std::mutex launchLock;
};

#endif // GNNRT_CUDA_EMU_EMULATOR_H
