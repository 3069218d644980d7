//===- HostCopy.cpp - The host tier's memory-to-memory copies -------------===//
//
// Copies to and from the host tier, and home loads, are the host's own work
// on the CPU device, where a GPU would give them to a copy engine: the
// kernels' threads are idle meanwhile, and one core does not draw all of
// the memory bandwidth (on the project's 2-core EPYC, one memcpy moves
// 10.8 GB/s and two threads 16.4 GB/s), so a large copy is split over the
// threads (OpenMP's, as the kernels').
//
//===----------------------------------------------------------------------===//
#include "HostCopy.h"

#include <algorithm>
#include <cstring>

void gnnrt::detail::copyHostBytes(void *to, const void *from, uint64_t bytes) {
  const auto pieces =
      static_cast<int64_t>((bytes + kCopyPiece - 1) / kCopyPiece);
#pragma omp parallel for schedule(static) if (bytes >= kThreadedCopyBytes)
  for (int64_t k = 0; k < pieces; ++k) {
    const uint64_t at = static_cast<uint64_t>(k) * kCopyPiece;
    std::memcpy(static_cast<char *>(to) + at,
                static_cast<const char *>(from) + at,
                std::min(kCopyPiece, bytes - at));
  }
}
