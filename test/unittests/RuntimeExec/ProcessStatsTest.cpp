//===- ProcessStatsTest.cpp - Process memory statistics -------------------===//
//
// The RSS tests touch real memory with mmap, so the compiler cannot elide
// the writes and munmap gives the pages back at once.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/ProcessStats.h"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

using namespace gnnrt;

namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

TEST(ProcessStats, PeakIsAtLeastCurrent) {
  uint64_t current = currentRssBytes();
  uint64_t peak = peakRssBytes();
  EXPECT_GT(current, 0u);
  EXPECT_GE(peak, current);
}

TEST(ProcessStats, PeakGrowsWhenMemoryIsTouched) {
  uint64_t currentBefore = currentRssBytes();
  uint64_t peakBefore = peakRssBytes();
  ASSERT_GT(currentBefore, 0u);
  // Touch 64 MiB more than the old peak needs, so the peak must move even
  // if an earlier test went higher than where we are now.
  uint64_t gap = peakBefore > currentBefore ? peakBefore - currentBefore : 0;
  uint64_t bytes = gap + 64 * MiB;
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  auto *bytePtr = static_cast<volatile unsigned char *>(p);
  uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  for (uint64_t i = 0; i < bytes; i += page)
    bytePtr[i] = 1;
  uint64_t currentDuring = currentRssBytes();
  uint64_t peakAfter = peakRssBytes();
  munmap(p, bytes);

  EXPECT_GE(currentDuring, currentBefore + 60 * MiB);
  EXPECT_GE(peakAfter, peakBefore + 60 * MiB);
  EXPECT_GE(peakAfter, currentDuring);
  // The pages went back: the current RSS falls, the peak stays.
  EXPECT_LT(currentRssBytes(), currentDuring - 32 * MiB);
  EXPECT_GE(peakRssBytes(), peakAfter);
}

TEST(ProcessStats, FormatBytesUsesThreeSignificantDigits) {
  EXPECT_EQ(formatBytes(0), "0 B");
  EXPECT_EQ(formatBytes(512), "512 B");
  EXPECT_EQ(formatBytes(1023), "1023 B");
  EXPECT_EQ(formatBytes(1024), "1.00 KiB");
  EXPECT_EQ(formatBytes(1536), "1.50 KiB");
  EXPECT_EQ(formatBytes(12 * KiB), "12.0 KiB");
  EXPECT_EQ(formatBytes(10235), "10.0 KiB"); // 9.995 KiB rounds up a digit.
  EXPECT_EQ(formatBytes(1000 * KiB), "1000 KiB");
  EXPECT_EQ(formatBytes(1023 * KiB + 600), "1.00 MiB"); // Never "1024 KiB".
  EXPECT_EQ(formatBytes(MiB - 1), "1.00 MiB");
  EXPECT_EQ(formatBytes(3 * MiB + MiB / 4), "3.25 MiB");
  EXPECT_EQ(formatBytes(256 * MiB), "256 MiB");
  EXPECT_EQ(formatBytes(GiB + GiB / 2), "1.50 GiB");
  EXPECT_EQ(formatBytes(uint64_t(1) << 40), "1.00 TiB");
  EXPECT_EQ(formatBytes(UINT64_MAX), "16.0 EiB");
}

} // namespace
