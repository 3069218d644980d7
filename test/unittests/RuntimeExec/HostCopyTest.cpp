//===- HostCopyTest.cpp - The host tier's copy ----------------------------===//
//
// The copy every offload, prefetch and home load makes, and the one
// `gnnc calibrate` times: sizes around the threaded threshold and the
// pieces' edges, each compared byte for byte, with the bytes just past the
// end untouched (a piece that ran over would overwrite them).
//
//===----------------------------------------------------------------------===//
#include "HostCopy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace {

using gnnrt::detail::copyHostBytes;
using gnnrt::detail::kCopyPiece;
using gnnrt::detail::kThreadedCopyBytes;

TEST(HostCopy, EveryByteArrivesAndNothingPastTheEnd) {
  const uint64_t sizes[] = {0,
                            1,
                            kCopyPiece - 1,
                            kCopyPiece + 1,
                            kThreadedCopyBytes - 1,
                            kThreadedCopyBytes,
                            kThreadedCopyBytes + 4097,
                            3 * kThreadedCopyBytes + kCopyPiece / 2 + 5};
  for (uint64_t size : sizes) {
    SCOPED_TRACE(size);
    std::vector<uint8_t> from(size), to(size + 64, 0xee);
    for (uint64_t i = 0; i < size; ++i)
      from[i] = static_cast<uint8_t>(i * 131 + (i >> 12));
    copyHostBytes(to.data(), from.data(), size);
    EXPECT_TRUE(std::equal(from.begin(), from.end(), to.begin()));
    for (uint64_t i = size; i < size + 64; ++i)
      ASSERT_EQ(to[i], 0xee) << "byte " << i << " past the copy";
  }
}

TEST(HostCopy, CopiesFromAnUnalignedStart) {
  // A row set's copy starts wherever its first row does.
  const uint64_t size = 2 * kThreadedCopyBytes + 3;
  std::vector<uint8_t> from(size + 7), to(size + 5, 0);
  for (uint64_t i = 0; i < from.size(); ++i)
    from[i] = static_cast<uint8_t>(i ^ (i >> 8));
  copyHostBytes(to.data() + 5, from.data() + 7, size);
  for (uint64_t i = 0; i < 5; ++i)
    ASSERT_EQ(to[i], 0) << "byte " << i << " before the copy";
  EXPECT_TRUE(std::equal(from.begin() + 7, from.end(), to.begin() + 5));
}

} // namespace
