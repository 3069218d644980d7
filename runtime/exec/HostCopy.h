//===- HostCopy.h - The host tier's memory-to-memory copies -----*- C++ -*-===//
//
// Internal to GnncRtExec: the copy the CPU device's offloads, prefetches and
// home loads make, shared with `gnnc calibrate` so that the rate the planner
// prices host copies at is the rate of this routine, threads included.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_EXEC_HOSTCOPY_H
#define GNNRT_EXEC_HOSTCOPY_H

#include <cstdint>

namespace gnnrt {
namespace detail {

/// Copies at or above this size are split over the kernels' OpenMP threads.
constexpr uint64_t kThreadedCopyBytes = 1 << 20;
/// The piece each thread copies at a time (or whole rows of about it).
constexpr uint64_t kCopyPiece = 256 << 10;

/// Copies \p bytes from \p from to \p to, which do not overlap; from
/// kThreadedCopyBytes on, in kCopyPiece pieces over the OpenMP threads.
void copyHostBytes(void *to, const void *from, uint64_t bytes);

} // namespace detail
} // namespace gnnrt

#endif // GNNRT_EXEC_HOSTCOPY_H
