//===- OffloadTest.cpp - Host and disk tiers for offloaded tensors --------===//
//
// Every round trip compares bytes with a pattern the test keeps, after the
// source buffer was overwritten, so a tier that kept a pointer instead of a
// copy, dropped a staging chunk or wrote one at the wrong offset fails.
// Disk tests run in a fresh directory each and look at the files in it.
// Failures are real: an over-budget call, a file-size limit (RLIMIT_FSIZE)
// that makes the background write fail, a spill file truncated behind the
// object's back, directories no file can be created in.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Offload.h"

#include "gnnrt/Arena.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <memory>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using gnnrt::OffloadConfig;
using gnnrt::OffloadTiers;

namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// A fresh directory under $TMPDIR (or /tmp), removed with its files.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/gnnrt-offload-XXXXXX";
    if (mkdtemp(pattern.data()))
      path = pattern;
  }
  ~TempDir() {
    for (const std::string &name : files())
      unlink((path + "/" + name).c_str());
    rmdir(path.c_str());
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  /// The names of the regular files in the directory, sorted.
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    DIR *dir = opendir(path.c_str());
    if (!dir)
      return names;
    while (dirent *e = readdir(dir)) {
      std::string name = e->d_name;
      if (name != "." && name != "..")
        names.push_back(name);
    }
    closedir(dir);
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string path;
};

/// \p n bytes that differ from one seed to the next and from position to
/// position (no period a misplaced chunk could hide in).
std::vector<unsigned char> pattern(uint64_t n, uint64_t seed) {
  std::vector<unsigned char> bytes(n);
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (uint64_t i = 0; i < n; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    bytes[i] = static_cast<unsigned char>(state >> 24);
  }
  return bytes;
}

uint64_t aligned(uint64_t bytes) {
  uint64_t a = gnnrt::Arena::kAlignment;
  return bytes == 0 ? a : (bytes + a - 1) / a * a;
}

std::unique_ptr<OffloadTiers> makeTiers(const OffloadConfig &config) {
  std::unique_ptr<OffloadTiers> tiers;
  std::string error;
  EXPECT_TRUE(OffloadTiers::create(config, tiers, error)) << error;
  return tiers;
}

OffloadConfig hostConfig(uint64_t budget) {
  OffloadConfig config;
  config.hostBudget = budget;
  return config;
}

OffloadConfig diskConfig(const TempDir &dir, uint64_t budget,
                         uint64_t stagingLimit = 64 * MiB) {
  OffloadConfig config;
  config.spillDir = dir.path;
  config.diskBudget = budget;
  config.stagingLimit = stagingLimit;
  return config;
}

/// Offloads one pattern per size to handles 0, 1, ... with \p offload,
/// overwriting the source right after each call, then prefetches every
/// handle twice and compares. Returns the sum of the sizes.
template <typename Offload>
uint64_t roundTrip(OffloadTiers &tiers, const std::vector<uint64_t> &sizes,
                   Offload offload) {
  uint64_t sum = 0;
  std::vector<unsigned char> source;
  for (size_t h = 0; h < sizes.size(); ++h) {
    source = pattern(sizes[h], h + 1);
    EXPECT_EQ(offload(static_cast<int32_t>(h), source.data(),
                      static_cast<int64_t>(sizes[h])),
              GNNRT_OK)
        << tiers.lastError();
    // The device buffer is reused at once.
    std::fill(source.begin(), source.end(), 0xAB);
    sum += sizes[h];
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t h = 0; h < sizes.size(); ++h) {
      std::vector<unsigned char> back(sizes[h], 0xCD);
      EXPECT_EQ(tiers.prefetch(static_cast<int32_t>(h), back.data(),
                               static_cast<int64_t>(sizes[h])),
                GNNRT_OK)
          << tiers.lastError();
      EXPECT_TRUE(back == pattern(sizes[h], h + 1))
          << "handle " << h << " of " << sizes[h] << " bytes, pass " << pass;
    }
  }
  return sum;
}

/// Lowers the file-size limit for the test's lifetime, so that writes past
/// it fail with EFBIG (SIGXFSZ, which would kill the process, is ignored).
class FileSizeLimit {
public:
  explicit FileSizeLimit(rlim_t bytes) {
    oldHandler = std::signal(SIGXFSZ, SIG_IGN);
    ok = getrlimit(RLIMIT_FSIZE, &old) == 0;
    rlimit lowered = old;
    lowered.rlim_cur = bytes;
    ok = ok && setrlimit(RLIMIT_FSIZE, &lowered) == 0;
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, oldHandler);
  }
  bool ok = false;

private:
  rlimit old{};
  void (*oldHandler)(int) = nullptr;
};

//===----------------------------------------------------------------------===//
// Host tier
//===----------------------------------------------------------------------===//

TEST(OffloadHost, RoundTripIsByteExact) {
  auto tiers = makeTiers(hostConfig(1 * MiB));
  ASSERT_TRUE(tiers);
  std::vector<uint64_t> sizes = {1, 1000, 65537, 0, 12345};
  uint64_t sum =
      roundTrip(*tiers, sizes, [&](int32_t h, const void *p, int64_t n) {
        return tiers->offloadToHost(h, p, n);
      });
  EXPECT_EQ(tiers->bytesToHost(), sum);
  EXPECT_EQ(tiers->bytesFromHost(), 2 * sum);
  EXPECT_EQ(tiers->bytesToDisk(), 0u);
}

// gnnrt_offload_host_block: the host copy itself, for a kernel that reads
// it a tile at a time; nothing is copied or counted.
TEST(OffloadHost, HostBlockIsTheCopy) {
  auto tiers = makeTiers(hostConfig(1 * MiB));
  ASSERT_TRUE(tiers);
  std::vector<unsigned char> x(1000);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<unsigned char>(i * 7 + 3);
  ASSERT_EQ(tiers->offloadToHost(4, x.data(), 1000), GNNRT_OK);
  const void *block = nullptr;
  ASSERT_EQ(tiers->hostBlock(4, 1000, &block), GNNRT_OK);
  ASSERT_NE(block, nullptr);
  EXPECT_NE(block, static_cast<const void *>(x.data()));
  EXPECT_EQ(std::memcmp(block, x.data(), 1000), 0);
  EXPECT_EQ(tiers->bytesFromHost(), 0u);
  // The wrong size, an unknown handle, a null result, a freed handle.
  EXPECT_EQ(tiers->hostBlock(4, 999, &block), GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(block, nullptr);
  EXPECT_NE(tiers->hostBlock(5, 1000, &block), GNNRT_OK);
  EXPECT_EQ(tiers->hostBlock(4, 1000, nullptr), GNNRT_ERR_NULL_POINTER);
  ASSERT_EQ(tiers->release(4), GNNRT_OK);
  EXPECT_NE(tiers->hostBlock(4, 1000, &block), GNNRT_OK);
}

// gnnrt_offload_host_reserve (the CUDA target's offload): a block of the
// host tier for the handle, filled by the caller, counted as bytes to the
// host; a handle that is live is refused as by offloadToHost.
TEST(OffloadHost, ReserveGivesTheBlockTheCallerFills) {
  auto tiers = makeTiers(hostConfig(1 * MiB));
  ASSERT_TRUE(tiers);
  void *block = nullptr;
  ASSERT_EQ(tiers->reserveHost(2, 1000, &block), GNNRT_OK);
  ASSERT_NE(block, nullptr);
  std::memset(block, 0x5a, 1000);
  const void *seen = nullptr;
  ASSERT_EQ(tiers->hostBlock(2, 1000, &seen), GNNRT_OK);
  EXPECT_EQ(seen, static_cast<const void *>(block));
  std::vector<unsigned char> back(1000);
  ASSERT_EQ(tiers->prefetch(2, back.data(), 1000), GNNRT_OK);
  EXPECT_EQ(back[0], 0x5a);
  EXPECT_EQ(back[999], 0x5a);
  EXPECT_EQ(tiers->bytesToHost(), 1000u);
  void *again = nullptr;
  EXPECT_EQ(tiers->reserveHost(2, 1000, &again), GNNRT_ERR_BAD_HANDLE);
  EXPECT_EQ(again, nullptr);
  EXPECT_EQ(tiers->reserveHost(3, 1000, nullptr), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(tiers->reserveHost(3, -1, &again), GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(tiers->reserveHost(3, 2 * MiB, &again), GNNRT_ERR_HOST_FULL);
  ASSERT_EQ(tiers->release(2), GNNRT_OK);
  EXPECT_EQ(tiers->reserveHost(2, 1000, &again), GNNRT_OK);
}

// OffloadConfig::hostRegion: the host tier lies in the caller's memory
// (the CUDA session's pinned memory), of exactly the budget.
TEST(OffloadHost, TierInTheCallersRegion) {
  // Arena::createOver wants the arena's alignment, as cudaHostAlloc gives.
  struct alignas(64) Region {
    unsigned char bytes[64 * 1024];
  };
  auto region = std::make_unique<Region>();
  const uint64_t size = sizeof region->bytes;
  OffloadConfig config = hostConfig(size);
  config.hostRegion = region->bytes;
  auto tiers = makeTiers(config);
  ASSERT_TRUE(tiers);
  std::vector<unsigned char> x(4096, 7);
  ASSERT_EQ(tiers->offloadToHost(0, x.data(), 4096), GNNRT_OK);
  const void *block = nullptr;
  ASSERT_EQ(tiers->hostBlock(0, 4096, &block), GNNRT_OK);
  auto *p = static_cast<const unsigned char *>(block);
  EXPECT_GE(p, region->bytes);
  EXPECT_LE(p + 4096, region->bytes + size);
  EXPECT_EQ(*p, 7);
  EXPECT_EQ(tiers->offloadToHost(1, x.data(), size), GNNRT_ERR_HOST_FULL);
}

TEST(OffloadDisk, HostBlockOfAFileIsRefused) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  auto tiers = makeTiers(diskConfig(dir, 1 * MiB));
  ASSERT_TRUE(tiers);
  std::vector<unsigned char> x(100, 1);
  ASSERT_EQ(tiers->offloadToDisk(0, x.data(), 100), GNNRT_OK);
  const void *block = &x;
  EXPECT_EQ(tiers->hostBlock(0, 100, &block), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(block, nullptr);
  EXPECT_NE(tiers->lastError().find("on disk"), std::string::npos);
  EXPECT_EQ(tiers->sync(), GNNRT_OK);
}

/// A gnnrt_cpu_receptive_rows buffer over 6 rows with 1 hop: R_0 = {4},
/// R_1 = {1, 4} (counts, the rows sorted by level and id, then the levels
/// a byte each, four to an int32 from the lowest byte: 2 1 2 2 | 0 2).
std::vector<int32_t> sixRowSets() {
  return {1, 2, /*order*/ 4, 1, 0, 2, 3, 5, /*levels*/ 0x02020102, 0x0200};
}

/// Six rows of 12 bytes, no two bytes alike.
std::vector<unsigned char> sixRows() {
  std::vector<unsigned char> x(6 * 12);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<unsigned char>(i + 1);
  return x;
}

TEST(OffloadHost, RowsTravelAloneAndComeBackInPlace) {
  auto tiers = makeTiers(hostConfig(1 * MiB));
  ASSERT_TRUE(tiers);
  const std::vector<int32_t> sets = sixRowSets();
  const std::vector<unsigned char> x = sixRows();
  ASSERT_EQ(gnnrt_offload_rows_to_host(tiers->c(), 0, x.data(), 6, 12,
                                       sets.data(), 1, 1),
            GNNRT_OK)
      << tiers->lastError();
  // Two rows went, and the host tier holds two rows.
  EXPECT_EQ(tiers->bytesToHost(), 24u);
  EXPECT_EQ(tiers->hostHighWater(), aligned(24));
  std::vector<unsigned char> y(x.size(), 0xee);
  ASSERT_EQ(
      gnnrt_prefetch_rows(tiers->c(), 0, y.data(), 6, 12, sets.data(), 1, 1),
      GNNRT_OK)
      << tiers->lastError();
  EXPECT_EQ(tiers->bytesFromHost(), 24u);
  for (size_t i = 0; i < y.size(); ++i) {
    const size_t row = i / 12;
    EXPECT_EQ(y[i], row == 1 || row == 4 ? x[i] : 0xee) << "byte " << i;
  }
  // A whole prefetch of a copy of rows is a size mismatch, not garbage.
  EXPECT_EQ(tiers->prefetch(0, y.data(), 72), GNNRT_ERR_BAD_SIZE);
  // So is bringing it back at another level.
  EXPECT_EQ(
      gnnrt_prefetch_rows(tiers->c(), 0, y.data(), 6, 12, sets.data(), 1, 0),
      GNNRT_ERR_BAD_SIZE);
  EXPECT_NE(tiers->lastError().find("prefetch rows: handle 0 holds 24 bytes"),
            std::string::npos)
      << tiers->lastError();
  ASSERT_EQ(tiers->release(0), GNNRT_OK);
}

TEST(OffloadHome, LoadRowsCopiesTheListedRowsInPlace) {
  auto tiers = makeTiers(hostConfig(1 * MiB));
  ASSERT_TRUE(tiers);
  const std::vector<int32_t> sets = sixRowSets();
  const std::vector<unsigned char> home = sixRows();
  std::vector<unsigned char> device(home.size(), 0xee);
  ASSERT_EQ(gnnrt_home_load_rows(tiers->c(), device.data(), home.data(), 6, 12,
                                 sets.data(), 1, 1),
            GNNRT_OK)
      << tiers->lastError();
  for (size_t i = 0; i < device.size(); ++i) {
    const size_t row = i / 12;
    EXPECT_EQ(device[i], row == 1 || row == 4 ? home[i] : 0xee) << "byte " << i;
  }
  EXPECT_EQ(tiers->bytesFromHost(), 24u);
  EXPECT_EQ(gnnrt_home_load_rows(tiers->c(), device.data(), home.data(), 6, 12,
                                 nullptr, 1, 1),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_home_load_rows(tiers->c(), nullptr, home.data(), 6, 12,
                                 sets.data(), 1, 1),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_NE(tiers->lastError().find("home load rows"), std::string::npos)
      << tiers->lastError();
}

TEST(OffloadHost, BadRowCallsAreRefused) {
  auto tiers = makeTiers(hostConfig(1 * MiB));
  ASSERT_TRUE(tiers);
  std::vector<int32_t> sets = sixRowSets();
  std::vector<unsigned char> x(6 * 12, 1);
  auto offload = [&](const int32_t *rowSets, int64_t rows, int64_t hops,
                     int64_t level) {
    return gnnrt_offload_rows_to_host(tiers->c(), 0, x.data(), rows, 12,
                                      rowSets, hops, level);
  };
  EXPECT_EQ(offload(nullptr, 6, 1, 0), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(offload(sets.data(), 6, 1, 2), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(offload(sets.data(), -1, 1, 0), GNNRT_ERR_BAD_SIZE);
  sets[2] = 9; // a row id past the matrix, in R_0's order
  EXPECT_EQ(offload(sets.data(), 6, 1, 0), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_NE(tiers->lastError().find("row 9 is not among 6"), std::string::npos)
      << tiers->lastError();
  // Nothing was taken: the handle is still free.
  sets = sixRowSets();
  EXPECT_EQ(offload(sets.data(), 6, 1, 0), GNNRT_OK);
}

TEST(OffloadHost, HighWaterIsTheLargestLiveSum) {
  auto tiers = makeTiers(hostConfig(1 * MiB));
  ASSERT_TRUE(tiers);
  std::vector<unsigned char> data(5000, 7);
  ASSERT_EQ(tiers->offloadToHost(0, data.data(), 100), GNNRT_OK);
  ASSERT_EQ(tiers->offloadToHost(1, data.data(), 1000), GNNRT_OK);
  ASSERT_EQ(tiers->release(0), GNNRT_OK);
  ASSERT_EQ(tiers->offloadToHost(2, data.data(), 64), GNNRT_OK);
  ASSERT_EQ(tiers->offloadToHost(3, data.data(), 5000), GNNRT_OK);
  // Live sets: {0,1}, {1}, {1,2}, {1,2,3}; the last is the largest.
  uint64_t peak = aligned(1000) + aligned(64) + aligned(5000);
  EXPECT_EQ(tiers->hostHighWater(), peak);
  ASSERT_EQ(tiers->release(3), GNNRT_OK);
  EXPECT_EQ(tiers->hostHighWater(), peak);
  tiers->resetHighWater();
  EXPECT_EQ(tiers->hostHighWater(), aligned(1000) + aligned(64));
  ASSERT_EQ(tiers->offloadToHost(0, data.data(), 100), GNNRT_OK);
  EXPECT_EQ(tiers->hostHighWater(), aligned(1000) + aligned(64) + aligned(100));
}

TEST(OffloadHost, OverBudgetNamesHandleAndBytes) {
  auto tiers = makeTiers(hostConfig(1 * MiB));
  ASSERT_TRUE(tiers);
  std::vector<unsigned char> data(768 * KiB, 1);
  ASSERT_EQ(tiers->offloadToHost(0, data.data(), 768 * KiB), GNNRT_OK);
  EXPECT_EQ(tiers->offloadToHost(3, data.data(), 512 * KiB),
            GNNRT_ERR_HOST_FULL);
  const std::string &error = tiers->lastError();
  EXPECT_TRUE(contains(error, "host memory: handle 3 needs 512 KiB but only "
                              "256 KiB of the 1.00 MiB budget is free"))
      << error;
  // The failed handle is not live, and nothing was taken.
  EXPECT_EQ(tiers->prefetch(3, data.data(), 512 * KiB), GNNRT_ERR_BAD_HANDLE);
  EXPECT_EQ(tiers->hostHighWater(), 768 * KiB);
  ASSERT_EQ(tiers->release(0), GNNRT_OK);
  EXPECT_EQ(tiers->offloadToHost(3, data.data(), 512 * KiB), GNNRT_OK)
      << tiers->lastError();
}

TEST(OffloadHost, FragmentedBudgetSaysSo) {
  auto tiers = makeTiers(hostConfig(3 * KiB));
  ASSERT_TRUE(tiers);
  std::vector<unsigned char> data(2 * KiB, 1);
  ASSERT_EQ(tiers->offloadToHost(0, data.data(), 1 * KiB), GNNRT_OK);
  ASSERT_EQ(tiers->offloadToHost(1, data.data(), 1 * KiB), GNNRT_OK);
  ASSERT_EQ(tiers->offloadToHost(2, data.data(), 1 * KiB), GNNRT_OK);
  ASSERT_EQ(tiers->release(0), GNNRT_OK);
  ASSERT_EQ(tiers->release(2), GNNRT_OK);
  EXPECT_EQ(tiers->offloadToHost(4, data.data(), 2 * KiB), GNNRT_ERR_HOST_FULL);
  EXPECT_TRUE(contains(tiers->lastError(), "fragmented")) << tiers->lastError();
  EXPECT_TRUE(contains(tiers->lastError(), "largest free block is 1.00 KiB"))
      << tiers->lastError();
}

TEST(OffloadHost, NoHostTier) {
  TempDir dir;
  auto tiers = makeTiers(diskConfig(dir, 1 * MiB));
  ASSERT_TRUE(tiers);
  char byte = 1;
  EXPECT_EQ(tiers->offloadToHost(0, &byte, 1), GNNRT_ERR_HOST_FULL);
  EXPECT_TRUE(contains(tiers->lastError(), "no host tier"))
      << tiers->lastError();
}

//===----------------------------------------------------------------------===//
// Host homes
//===----------------------------------------------------------------------===//

TEST(OffloadHome, HomesCountInTheHostHighWater) {
  auto tiers = makeTiers(hostConfig(1 * MiB));
  ASSERT_TRUE(tiers);
  void *a = tiers->allocateHome(1000);
  void *b = tiers->allocateHome(64);
  ASSERT_TRUE(a && b) << tiers->lastError();
  EXPECT_NE(a, b);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % gnnrt::Arena::kAlignment, 0u);
  EXPECT_EQ(tiers->hostHighWater(), aligned(1000) + aligned(64));
  // Offloaded tensors come and go on top of the homes, which stay.
  std::vector<unsigned char> data(5000, 3);
  ASSERT_EQ(tiers->offloadToHost(0, data.data(), 5000), GNNRT_OK);
  ASSERT_EQ(tiers->release(0), GNNRT_OK);
  uint64_t peak = aligned(1000) + aligned(64) + aligned(5000);
  EXPECT_EQ(tiers->hostHighWater(), peak);
  tiers->resetHighWater();
  EXPECT_EQ(tiers->hostHighWater(), aligned(1000) + aligned(64));
  // Homes are plain host memory: written and read in place.
  std::memset(a, 0x5A, 1000);
  EXPECT_EQ(static_cast<unsigned char *>(a)[999], 0x5A);
  EXPECT_EQ(tiers->bytesToHost(), 5000u);
}

TEST(OffloadHome, OverBudgetIsHostFullWithTheBytes) {
  auto tiers = makeTiers(hostConfig(1 * MiB));
  ASSERT_TRUE(tiers);
  ASSERT_TRUE(tiers->allocateHome(768 * KiB)) << tiers->lastError();
  EXPECT_EQ(tiers->allocateHome(512 * KiB), nullptr);
  EXPECT_TRUE(contains(tiers->lastError(),
                       "host memory: a home of 524288 bytes needs 512 KiB but "
                       "only 256 KiB of the 1.00 MiB budget is free"))
      << tiers->lastError();
  // Nothing was taken: the rest still fits.
  EXPECT_EQ(tiers->hostHighWater(), 768 * KiB);
  EXPECT_TRUE(tiers->allocateHome(256 * KiB)) << tiers->lastError();
  // And an offload finds the budget full of homes.
  char byte = 1;
  EXPECT_EQ(tiers->offloadToHost(0, &byte, 1), GNNRT_ERR_HOST_FULL);
}

TEST(OffloadHome, NoHostTier) {
  TempDir dir;
  auto tiers = makeTiers(diskConfig(dir, 1 * MiB));
  ASSERT_TRUE(tiers);
  EXPECT_EQ(tiers->allocateHome(100), nullptr);
  EXPECT_TRUE(contains(tiers->lastError(),
                       "a home of 100 bytes needs 128 B but there is no host "
                       "tier"))
      << tiers->lastError();
}

TEST(OffloadHome, LoadAndStoreCopyAndCount) {
  auto tiers = makeTiers(hostConfig(1 * MiB));
  ASSERT_TRUE(tiers);
  auto *home = static_cast<unsigned char *>(tiers->allocateHome(3000));
  ASSERT_TRUE(home) << tiers->lastError();
  auto values = pattern(3000, 9);
  ASSERT_EQ(tiers->homeStore(home, values.data(), 3000), GNNRT_OK);
  std::fill(values.begin(), values.end(), 0);
  std::vector<unsigned char> back(3000, 0xCD);
  ASSERT_EQ(tiers->homeLoad(back.data(), home, 3000), GNNRT_OK);
  EXPECT_TRUE(back == pattern(3000, 9));
  ASSERT_EQ(tiers->homeLoad(back.data(), home, 1000), GNNRT_OK);
  ASSERT_EQ(tiers->homeStore(home, back.data(), 0), GNNRT_OK);
  EXPECT_EQ(tiers->bytesToHost(), 3000u);
  EXPECT_EQ(tiers->bytesFromHost(), 4000u);
  // Copies take no host memory of their own.
  EXPECT_EQ(tiers->hostHighWater(), aligned(3000));
}

// One CSR view of a host graph comes to the device buffer, back to back,
// and the result has that view only: the in view for the aggregations, the
// out view for a sum by source.
TEST(OffloadHome, LoadGraphCopiesOneView) {
  auto tiers = makeTiers(hostConfig(1 * MiB));
  ASSERT_TRUE(tiers);
  // 3 nodes, edges 0: 0->1, 1: 1->2, 2: 2->0, 3: 0->2.
  std::vector<int32_t> inPtr = {0, 1, 2, 4}, inSrc = {2, 0, 1, 0},
                       inEid = {2, 0, 1, 3};
  std::vector<int32_t> outPtr = {0, 2, 3, 4}, outDst = {1, 2, 2, 0},
                       outEid = {0, 3, 1, 2};
  gnnrt_graph home{};
  home.num_nodes = 3;
  home.num_edges = 4;
  home.in = {inPtr.data(), inSrc.data(), inEid.data()};
  home.out = {outPtr.data(), outDst.data(), outEid.data()};
  ASSERT_EQ(gnnrt_graph_check(&home), GNNRT_OK);
  for (bool out : {false, true}) {
    std::vector<int32_t> storage(3 + 1 + 2 * 4, -7);
    gnnrt_graph g{};
    ASSERT_EQ(tiers->homeLoadGraph(&home, out, storage.data(), &g), GNNRT_OK)
        << tiers->lastError();
    EXPECT_EQ(g.num_nodes, 3);
    EXPECT_EQ(g.num_edges, 4);
    const gnnrt_csr &copied = out ? g.out : g.in;
    const gnnrt_csr &absent = out ? g.in : g.out;
    EXPECT_EQ(copied.indptr, storage.data());
    EXPECT_EQ(absent.indptr, nullptr);
    EXPECT_EQ(absent.src, nullptr);
    std::vector<int32_t> expected =
        out ? std::vector<int32_t>{0, 2, 3, 4, 1, 2, 2, 0, 0, 3, 1, 2}
            : std::vector<int32_t>{0, 1, 2, 4, 2, 0, 1, 0, 2, 0, 1, 3};
    EXPECT_EQ(storage, expected);
    EXPECT_EQ(copied.src, storage.data() + 4);
    EXPECT_EQ(copied.edge_id, storage.data() + 8);
  }
  EXPECT_EQ(tiers->bytesFromHost(), 2u * 4 * (4 + 2 * 4));
  gnnrt_graph g{};
  EXPECT_EQ(tiers->homeLoadGraph(nullptr, false, nullptr, &g),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_TRUE(contains(tiers->lastError(), "home load graph"))
      << tiers->lastError();
}

TEST(OffloadHome, BadCallsAreRefused) {
  auto tiers = makeTiers(hostConfig(1 * MiB));
  ASSERT_TRUE(tiers);
  EXPECT_EQ(tiers->allocateHome(-1), nullptr);
  EXPECT_TRUE(contains(tiers->lastError(), "the size is negative"))
      << tiers->lastError();
  char buffer[16] = {};
  EXPECT_EQ(tiers->homeLoad(buffer, buffer + 8, -1), GNNRT_ERR_BAD_SIZE);
  EXPECT_TRUE(contains(tiers->lastError(), "home load: size -1 is negative"))
      << tiers->lastError();
  EXPECT_EQ(tiers->homeStore(nullptr, buffer, 8), GNNRT_ERR_NULL_POINTER);
  EXPECT_TRUE(
      contains(tiers->lastError(), "home store: the destination is null"))
      << tiers->lastError();
  EXPECT_EQ(tiers->homeLoad(buffer, nullptr, 8), GNNRT_ERR_NULL_POINTER);
  EXPECT_TRUE(contains(tiers->lastError(), "home load: the source is null"))
      << tiers->lastError();
  // Nothing to copy needs no buffers.
  EXPECT_EQ(tiers->homeLoad(nullptr, nullptr, 0), GNNRT_OK);
  EXPECT_EQ(tiers->bytesFromHost(), 0u);
  EXPECT_EQ(tiers->bytesToHost(), 0u);
  EXPECT_EQ(tiers->hostHighWater(), 0u);
}

//===----------------------------------------------------------------------===//
// Handles and arguments
//===----------------------------------------------------------------------===//

TEST(OffloadHandles, BadCallsAreRefused) {
  TempDir dir;
  OffloadConfig config = diskConfig(dir, 1 * MiB);
  config.hostBudget = 1 * MiB;
  auto tiers = makeTiers(config);
  ASSERT_TRUE(tiers);
  std::vector<unsigned char> data(100, 5);

  EXPECT_EQ(tiers->offloadToHost(-1, data.data(), 100), GNNRT_ERR_BAD_HANDLE);
  EXPECT_TRUE(contains(tiers->lastError(), "handle -1 is out of range"))
      << tiers->lastError();
  EXPECT_EQ(tiers->offloadToDisk(OffloadTiers::kMaxHandles, data.data(), 100),
            GNNRT_ERR_BAD_HANDLE);
  EXPECT_EQ(tiers->prefetch(0, data.data(), 100), GNNRT_ERR_BAD_HANDLE);
  EXPECT_TRUE(contains(tiers->lastError(), "prefetch: handle 0 is not live"))
      << tiers->lastError();
  EXPECT_EQ(tiers->release(7), GNNRT_ERR_BAD_HANDLE);

  EXPECT_EQ(tiers->offloadToHost(0, data.data(), -1), GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(tiers->offloadToDisk(0, nullptr, 100), GNNRT_ERR_NULL_POINTER);
  EXPECT_TRUE(dir.files().empty());

  // Offloading to a live handle, to either tier, is refused.
  ASSERT_EQ(tiers->offloadToHost(0, data.data(), 100), GNNRT_OK);
  ASSERT_EQ(tiers->offloadToDisk(1, data.data(), 100), GNNRT_OK);
  EXPECT_EQ(tiers->offloadToDisk(0, data.data(), 100), GNNRT_ERR_BAD_HANDLE);
  EXPECT_TRUE(contains(tiers->lastError(),
                       "handle 0 is live (offloaded to host memory"))
      << tiers->lastError();
  EXPECT_EQ(tiers->offloadToHost(1, data.data(), 100), GNNRT_ERR_BAD_HANDLE);
  EXPECT_TRUE(contains(tiers->lastError(), "handle 1 is live (offloaded to "
                                           "disk"))
      << tiers->lastError();
  EXPECT_EQ(dir.files().size(), 1u);

  // A prefetch must ask for exactly the offloaded size.
  EXPECT_EQ(tiers->prefetch(0, data.data(), 99), GNNRT_ERR_BAD_SIZE);
  EXPECT_TRUE(contains(tiers->lastError(), "holds 100 bytes, not 99"))
      << tiers->lastError();
  EXPECT_EQ(tiers->prefetch(1, nullptr, 100), GNNRT_ERR_NULL_POINTER);

  // Free, then free again.
  EXPECT_EQ(tiers->release(0), GNNRT_OK);
  EXPECT_EQ(tiers->release(0), GNNRT_ERR_BAD_HANDLE);
  EXPECT_TRUE(contains(tiers->lastError(), "already freed"))
      << tiers->lastError();
  EXPECT_EQ(tiers->release(1), GNNRT_OK);
  EXPECT_EQ(tiers->prefetch(1, data.data(), 100), GNNRT_ERR_BAD_HANDLE);
}

TEST(OffloadHandles, TableGrowsAndHandlesAreReused) {
  auto tiers = makeTiers(hostConfig(1 * MiB));
  ASSERT_TRUE(tiers);
  auto a = pattern(300, 1), b = pattern(200, 2);
  ASSERT_EQ(tiers->offloadToHost(5000, a.data(), 300), GNNRT_OK);
  ASSERT_EQ(tiers->offloadToHost(3, b.data(), 200), GNNRT_OK);
  std::vector<unsigned char> back(300);
  ASSERT_EQ(tiers->prefetch(5000, back.data(), 300), GNNRT_OK);
  EXPECT_TRUE(back == a);
  // Freed, the handle takes a tensor of another size.
  ASSERT_EQ(tiers->release(5000), GNNRT_OK);
  ASSERT_EQ(tiers->offloadToHost(5000, b.data(), 200), GNNRT_OK);
  back.assign(200, 0);
  ASSERT_EQ(tiers->prefetch(5000, back.data(), 200), GNNRT_OK);
  EXPECT_TRUE(back == b);
}

//===----------------------------------------------------------------------===//
// Disk tier
//===----------------------------------------------------------------------===//

TEST(OffloadDisk, RoundTripIsByteExact) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  auto tiers = makeTiers(diskConfig(dir, 64 * MiB));
  ASSERT_TRUE(tiers);
  // Around and across the 4 MiB staging chunk, and empty.
  std::vector<uint64_t> sizes = {1, 4097, 3 * MiB + 5, 0, 4 * MiB, 9 * MiB + 3};
  uint64_t sum =
      roundTrip(*tiers, sizes, [&](int32_t h, const void *p, int64_t n) {
        return tiers->offloadToDisk(h, p, n);
      });
  EXPECT_EQ(dir.files().size(), sizes.size());
  EXPECT_EQ(tiers->bytesToDisk(), sum);
  EXPECT_EQ(tiers->bytesFromDisk(), 2 * sum);
  EXPECT_EQ(tiers->diskHighWater(), sum);
  EXPECT_EQ(tiers->hostHighWater(), 0u);
  EXPECT_EQ(tiers->sync(), GNNRT_OK);
  // The files hold exactly the tensors.
  uint64_t onDisk = 0;
  for (const std::string &name : dir.files()) {
    struct stat info;
    ASSERT_EQ(stat((dir.path + "/" + name).c_str(), &info), 0);
    onDisk += static_cast<uint64_t>(info.st_size);
  }
  EXPECT_EQ(onDisk, sum);
}

TEST(OffloadDisk, PrefetchWaitsForItsWrites) {
  TempDir dir;
  auto tiers = makeTiers(diskConfig(dir, 64 * MiB));
  ASSERT_TRUE(tiers);
  // Read back the moment the write is queued, before the IO thread has
  // even woken up: without the wait the file would still be empty.
  for (int32_t h = 0; h < 200; ++h) {
    auto data = pattern(4 * KiB + h, 30 + h);
    auto size = static_cast<int64_t>(data.size());
    ASSERT_EQ(tiers->offloadToDisk(h, data.data(), size), GNNRT_OK);
    std::vector<unsigned char> back(data.size());
    ASSERT_EQ(tiers->prefetch(h, back.data(), size), GNNRT_OK)
        << tiers->lastError();
    ASSERT_TRUE(back == data) << "handle " << h;
  }
  // And a large tensor queued behind others.
  std::vector<std::vector<unsigned char>> data;
  for (int32_t h = 0; h < 4; ++h)
    data.push_back(pattern(8 * MiB, 300 + h));
  for (int32_t h = 0; h < 4; ++h)
    ASSERT_EQ(tiers->offloadToDisk(1000 + h, data[h].data(), 8 * MiB),
              GNNRT_OK);
  std::vector<unsigned char> back(8 * MiB);
  ASSERT_EQ(tiers->prefetch(1003, back.data(), 8 * MiB), GNNRT_OK)
      << tiers->lastError();
  EXPECT_TRUE(back == data[3]);
}

TEST(OffloadDisk, FreeDeletesTheFile) {
  TempDir dir;
  auto tiers = makeTiers(diskConfig(dir, 1 * MiB));
  ASSERT_TRUE(tiers);
  auto data = pattern(1000, 3);
  ASSERT_EQ(tiers->offloadToDisk(0, data.data(), 1000), GNNRT_OK);
  ASSERT_EQ(tiers->offloadToDisk(1, data.data(), 10), GNNRT_OK);
  std::vector<std::string> files = dir.files();
  ASSERT_EQ(files.size(), 2u);
  // Named after the process, so processes can share a directory.
  std::string pid = "gnnrt-" + std::to_string(getpid()) + "-";
  EXPECT_EQ(files[0].rfind(pid, 0), 0u) << files[0];
  EXPECT_EQ(files[1].rfind(pid, 0), 0u) << files[1];

  ASSERT_EQ(tiers->release(0), GNNRT_OK) << tiers->lastError();
  files = dir.files();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_TRUE(contains(files[0], "-h1-")) << files[0];
  ASSERT_EQ(tiers->release(1), GNNRT_OK) << tiers->lastError();
  EXPECT_TRUE(dir.files().empty());
}

TEST(OffloadDisk, HighWaterIsTheLargestLiveSum) {
  TempDir dir;
  auto tiers = makeTiers(diskConfig(dir, 1 * MiB));
  ASSERT_TRUE(tiers);
  std::vector<unsigned char> data(3000, 1);
  ASSERT_EQ(tiers->offloadToDisk(0, data.data(), 1000), GNNRT_OK);
  ASSERT_EQ(tiers->offloadToDisk(1, data.data(), 3000), GNNRT_OK);
  ASSERT_EQ(tiers->release(0), GNNRT_OK);
  ASSERT_EQ(tiers->offloadToDisk(2, data.data(), 500), GNNRT_OK);
  EXPECT_EQ(tiers->diskHighWater(), 4000u);
  tiers->resetHighWater();
  EXPECT_EQ(tiers->diskHighWater(), 3500u);
  ASSERT_EQ(tiers->offloadToDisk(0, data.data(), 7), GNNRT_OK);
  EXPECT_EQ(tiers->diskHighWater(), 3507u);
}

TEST(OffloadDisk, OverBudgetNamesDirectoryAndBytes) {
  TempDir dir;
  auto tiers = makeTiers(diskConfig(dir, 100 * KiB));
  ASSERT_TRUE(tiers);
  std::vector<unsigned char> data(60 * KiB, 2);
  ASSERT_EQ(tiers->offloadToDisk(0, data.data(), 60 * KiB), GNNRT_OK);
  EXPECT_EQ(tiers->offloadToDisk(2, data.data(), 60 * KiB),
            GNNRT_ERR_DISK_FULL);
  EXPECT_TRUE(contains(tiers->lastError(),
                       "disk spill: handle 2 needs 60.0 KiB but only 40.0 KiB "
                       "of the 100 KiB budget in '" +
                           dir.path + "' is free"))
      << tiers->lastError();
  // No file for the refused tensor.
  EXPECT_EQ(dir.files().size(), 1u);
  ASSERT_EQ(tiers->release(0), GNNRT_OK);
  EXPECT_EQ(tiers->offloadToDisk(2, data.data(), 60 * KiB), GNNRT_OK)
      << tiers->lastError();
  // Exactly the budget fits.
  ASSERT_EQ(tiers->offloadToDisk(3, data.data(), 40 * KiB), GNNRT_OK)
      << tiers->lastError();
  EXPECT_EQ(tiers->offloadToDisk(4, data.data(), 1), GNNRT_ERR_DISK_FULL);
}

TEST(OffloadDisk, NoDiskTier) {
  auto tiers = makeTiers(hostConfig(1 * MiB));
  ASSERT_TRUE(tiers);
  char byte = 1;
  EXPECT_EQ(tiers->offloadToDisk(0, &byte, 1), GNNRT_ERR_DISK_FULL);
  EXPECT_TRUE(contains(tiers->lastError(), "no disk tier"))
      << tiers->lastError();
  EXPECT_EQ(tiers->sync(), GNNRT_OK);
}

TEST(OffloadDisk, StagingSmallerThanTheDataStillRoundTrips) {
  TempDir dir;
  // 64 KiB of staging: two 32 KiB slots for ~6 MiB of tensors, so the
  // caller waits for the IO thread again and again.
  auto tiers = makeTiers(diskConfig(dir, 64 * MiB, 64 * KiB));
  ASSERT_TRUE(tiers);
  std::vector<uint64_t> sizes = {1 * MiB + 1, 32 * KiB, 32 * KiB + 1, 17,
                                 5 * MiB - 3};
  uint64_t sum =
      roundTrip(*tiers, sizes, [&](int32_t h, const void *p, int64_t n) {
        return tiers->offloadToDisk(h, p, n);
      });
  EXPECT_EQ(tiers->bytesToDisk(), sum);
  EXPECT_GT(tiers->stagingBytes(), 0u);
  EXPECT_LE(tiers->stagingBytes(), 64 * KiB);
  EXPECT_GE(tiers->ioWaitSeconds(), 0.0);

  // A limit of one byte is absurd but must still be correct.
  TempDir dir1;
  auto tiny = makeTiers(diskConfig(dir1, 1 * MiB, 1));
  ASSERT_TRUE(tiny);
  roundTrip(*tiny, {3, 1, 200}, [&](int32_t h, const void *p, int64_t n) {
    return tiny->offloadToDisk(h, p, n);
  });
  EXPECT_EQ(tiny->stagingBytes(), 1u);
}

TEST(OffloadDisk, TwoObjectsShareADirectory) {
  TempDir dir;
  auto first = makeTiers(diskConfig(dir, 1 * MiB));
  auto second = makeTiers(diskConfig(dir, 1 * MiB));
  ASSERT_TRUE(first && second);
  auto a = pattern(5000, 11), b = pattern(6000, 12);
  ASSERT_EQ(first->offloadToDisk(0, a.data(), 5000), GNNRT_OK);
  ASSERT_EQ(second->offloadToDisk(0, b.data(), 6000), GNNRT_OK);
  EXPECT_EQ(dir.files().size(), 2u);
  ASSERT_EQ(first->release(0), GNNRT_OK);
  EXPECT_EQ(dir.files().size(), 1u);
  std::vector<unsigned char> back(6000);
  ASSERT_EQ(second->prefetch(0, back.data(), 6000), GNNRT_OK);
  EXPECT_TRUE(back == b);
}

TEST(OffloadDisk, DestructionWithPendingWritesLeavesNoFiles) {
  TempDir dir;
  {
    auto tiers = makeTiers(diskConfig(dir, 256 * MiB));
    ASSERT_TRUE(tiers);
    auto data = pattern(8 * MiB, 4);
    // 64 MiB queued: the IO thread cannot have written it all by the time
    // the object goes.
    for (int32_t h = 0; h < 8; ++h)
      ASSERT_EQ(tiers->offloadToDisk(h, data.data(), 8 * MiB), GNNRT_OK);
    EXPECT_EQ(dir.files().size(), 8u);
    auto start = std::chrono::steady_clock::now();
    tiers.reset();
    // Queued writes are dropped, not done: well under the time to write
    // 64 MiB to a slow disk.
    EXPECT_LT(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count(),
        30.0);
  }
  EXPECT_TRUE(dir.files().empty());

  // Also straight after the writes were queued with a tiny staging limit,
  // and with handles freed and reused in between.
  {
    auto tiers = makeTiers(diskConfig(dir, 8 * MiB, 16 * KiB));
    ASSERT_TRUE(tiers);
    auto data = pattern(1 * MiB, 5);
    ASSERT_EQ(tiers->offloadToDisk(0, data.data(), 1 * MiB), GNNRT_OK);
    ASSERT_EQ(tiers->release(0), GNNRT_OK);
    ASSERT_EQ(tiers->offloadToDisk(0, data.data(), 1 * MiB), GNNRT_OK);
    ASSERT_EQ(tiers->offloadToDisk(1, data.data(), 1 * MiB), GNNRT_OK);
  }
  EXPECT_TRUE(dir.files().empty());
}

//===----------------------------------------------------------------------===//
// Configuration errors
//===----------------------------------------------------------------------===//

std::string createError(const OffloadConfig &config) {
  std::unique_ptr<OffloadTiers> tiers;
  std::string error;
  EXPECT_FALSE(OffloadTiers::create(config, tiers, error));
  EXPECT_FALSE(tiers);
  return error;
}

TEST(OffloadCreate, MissingDirectoryIsRefused) {
  TempDir dir;
  OffloadConfig config = diskConfig(dir, 1 * MiB);
  config.spillDir = dir.path + "/missing";
  std::string error = createError(config);
  EXPECT_TRUE(contains(error, "disk spill: the directory '" + dir.path +
                                  "/missing' does not exist"))
      << error;
}

TEST(OffloadCreate, PathUnderAFileIsRefused) {
  TempDir dir;
  std::string file = dir.path + "/plain";
  FILE *f = std::fopen(file.c_str(), "w");
  ASSERT_TRUE(f);
  std::fclose(f);

  OffloadConfig config = diskConfig(dir, 1 * MiB);
  config.spillDir = file + "/sub";
  std::string error = createError(config);
  EXPECT_TRUE(contains(error, "'" + file + "/sub' does not exist")) << error;

  config.spillDir = file;
  error = createError(config);
  EXPECT_TRUE(contains(error, "'" + file + "' is not a directory")) << error;
}

TEST(OffloadCreate, UnwritableDirectoryIsRefused) {
  // /proc exists and is a directory, but refuses new files even to root.
  struct stat info;
  if (stat("/proc", &info) != 0 || !S_ISDIR(info.st_mode))
    GTEST_SKIP() << "no /proc on this system";
  OffloadConfig config;
  config.spillDir = "/proc";
  config.diskBudget = 1 * MiB;
  std::string error = createError(config);
  EXPECT_TRUE(contains(error, "disk spill: the directory '/proc' is not "
                              "writable: cannot create a file in it"))
      << error;
}

TEST(OffloadCreate, ReadOnlyDirectoryIsRefusedUnlessRoot) {
  if (geteuid() == 0)
    GTEST_SKIP() << "root writes to read-only directories";
  TempDir dir;
  ASSERT_EQ(chmod(dir.path.c_str(), 0555), 0);
  std::string error = createError(diskConfig(dir, 1 * MiB));
  chmod(dir.path.c_str(), 0755);
  EXPECT_TRUE(contains(error, "is not writable")) << error;
}

TEST(OffloadCreate, BudgetsAreChecked) {
  TempDir dir;
  std::string error = createError(diskConfig(dir, 0));
  EXPECT_TRUE(contains(error, "the budget for '" + dir.path + "' is 0 bytes"))
      << error;
  error = createError(diskConfig(dir, 1 * MiB, 0));
  EXPECT_TRUE(contains(error, "staging limit of 0 bytes is out of range"))
      << error;
  OffloadConfig noDir;
  noDir.diskBudget = 1 * MiB;
  error = createError(noDir);
  EXPECT_TRUE(contains(error, "no spill directory")) << error;
  error = createError(hostConfig(gnnrt::Arena::kMaxBudget + 1));
  EXPECT_TRUE(contains(error, "host memory: a budget of")) << error;
  // The probe file is gone.
  EXPECT_TRUE(dir.files().empty());
}

//===----------------------------------------------------------------------===//
// IO failures
//===----------------------------------------------------------------------===//

TEST(OffloadIoErrors, FailedWriteIsReportedAndNeverReadBack) {
  TempDir dir;
  auto tiers = makeTiers(diskConfig(dir, 64 * MiB, 64 * KiB));
  ASSERT_TRUE(tiers);
  auto big = pattern(100 * KiB, 6), small = pattern(100, 7);
  {
    // Files may not grow past 8 KiB: the background write of handle 0
    // fails part way, that of handle 1 does not.
    FileSizeLimit limit(8 * KiB);
    ASSERT_TRUE(limit.ok);
    ASSERT_EQ(tiers->offloadToDisk(0, big.data(), 100 * KiB), GNNRT_OK)
        << "the failure is the IO thread's, found later";
    ASSERT_EQ(tiers->offloadToDisk(1, small.data(), 100), GNNRT_OK);
    ASSERT_EQ(tiers->sync(), GNNRT_ERR_IO);
    EXPECT_TRUE(contains(tiers->lastError(), "writing handle 0 (100 KiB) to '" +
                                                 dir.path + "/gnnrt-"))
        << tiers->lastError();
    EXPECT_TRUE(contains(tiers->lastError(), "failed at byte 8192: " +
                                                 std::string(strerror(EFBIG))))
        << tiers->lastError();
    // Reported once by sync; nothing else failed.
    EXPECT_EQ(tiers->sync(), GNNRT_OK);
  }
  // Every prefetch of the broken handle fails, and writes nothing.
  std::vector<unsigned char> back(100 * KiB, 0xEE);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(tiers->prefetch(0, back.data(), 100 * KiB), GNNRT_ERR_IO);
    EXPECT_TRUE(contains(tiers->lastError(), "writing handle 0"))
        << tiers->lastError();
    EXPECT_TRUE(std::all_of(back.begin(), back.end(),
                            [](unsigned char c) { return c == 0xEE; }));
  }
  std::vector<unsigned char> smallBack(100);
  ASSERT_EQ(tiers->prefetch(1, smallBack.data(), 100), GNNRT_OK);
  EXPECT_TRUE(smallBack == small);
  // Already reported: free succeeds and deletes the file.
  EXPECT_EQ(tiers->release(0), GNNRT_OK) << tiers->lastError();
  EXPECT_EQ(dir.files().size(), 1u);
  // The handle works again once the limit is gone.
  ASSERT_EQ(tiers->offloadToDisk(0, big.data(), 100 * KiB), GNNRT_OK);
  ASSERT_EQ(tiers->prefetch(0, back.data(), 100 * KiB), GNNRT_OK)
      << tiers->lastError();
  EXPECT_TRUE(back == big);
}

TEST(OffloadIoErrors, FreeReportsAFailureNobodySaw) {
  TempDir dir;
  auto tiers = makeTiers(diskConfig(dir, 64 * MiB));
  ASSERT_TRUE(tiers);
  auto big = pattern(64 * KiB, 8);
  {
    FileSizeLimit limit(4 * KiB);
    ASSERT_TRUE(limit.ok);
    ASSERT_EQ(tiers->offloadToDisk(2, big.data(), 64 * KiB), GNNRT_OK);
    // Free waits for the write (a queued one may be cancelled instead, in
    // which case nothing failed): either way the failure, if any, is told
    // and the file is gone.
    int status = tiers->release(2);
    if (status != GNNRT_OK) {
      EXPECT_EQ(status, GNNRT_ERR_IO);
      EXPECT_TRUE(contains(tiers->lastError(), "writing handle 2"))
          << tiers->lastError();
    }
    EXPECT_TRUE(dir.files().empty());

    // With the write surely done, free must report it.
    ASSERT_EQ(tiers->offloadToDisk(3, big.data(), 64 * KiB), GNNRT_OK);
    std::vector<std::string> before = dir.files();
    ASSERT_EQ(before.size(), 1u);
    // Once the file has its first 4 KiB, the IO thread has taken the write
    // (one chunk) and free must wait for it rather than cancel it. Polled
    // by hand: sync would report the failure itself.
    bool started = false;
    for (int i = 0; i < 10000 && !started; ++i) {
      struct stat info;
      started = stat((dir.path + "/" + before[0]).c_str(), &info) == 0 &&
                info.st_size == 4 * KiB;
      if (!started)
        usleep(1000);
    }
    ASSERT_TRUE(started);
    EXPECT_EQ(tiers->release(3), GNNRT_ERR_IO);
    EXPECT_TRUE(contains(tiers->lastError(), "writing handle 3"))
        << tiers->lastError();
    EXPECT_TRUE(dir.files().empty());
  }
  EXPECT_EQ(tiers->sync(), GNNRT_OK);
}

TEST(OffloadIoErrors, TruncatedFileIsAShortRead) {
  TempDir dir;
  auto tiers = makeTiers(diskConfig(dir, 1 * MiB));
  ASSERT_TRUE(tiers);
  auto data = pattern(10000, 9);
  ASSERT_EQ(tiers->offloadToDisk(0, data.data(), 10000), GNNRT_OK);
  ASSERT_EQ(tiers->sync(), GNNRT_OK);
  std::vector<std::string> files = dir.files();
  ASSERT_EQ(files.size(), 1u);
  ASSERT_EQ(truncate((dir.path + "/" + files[0]).c_str(), 5000), 0);
  std::vector<unsigned char> back(10000);
  EXPECT_EQ(tiers->prefetch(0, back.data(), 10000), GNNRT_ERR_IO);
  EXPECT_TRUE(
      contains(tiers->lastError(), "the file ends after 5000 of 10000 bytes"))
      << tiers->lastError();
  EXPECT_EQ(tiers->release(0), GNNRT_OK);
}

TEST(OffloadIoErrors, DeletedDirectoryFailsTheOffload) {
  TempDir dir;
  auto tiers = makeTiers(diskConfig(dir, 1 * MiB));
  ASSERT_TRUE(tiers);
  ASSERT_EQ(rmdir(dir.path.c_str()), 0);
  char byte = 1;
  EXPECT_EQ(tiers->offloadToDisk(4, &byte, 1), GNNRT_ERR_IO);
  EXPECT_TRUE(contains(tiers->lastError(),
                       "cannot create a spill file for handle 4 in '" +
                           dir.path + "': " + strerror(ENOENT)))
      << tiers->lastError();
  // Nothing is live, nothing counted.
  EXPECT_EQ(tiers->diskHighWater(), 0u);
  EXPECT_EQ(tiers->prefetch(4, &byte, 1), GNNRT_ERR_BAD_HANDLE);
}

//===----------------------------------------------------------------------===//
// C ABI
//===----------------------------------------------------------------------===//

TEST(OffloadCApi, RoundTripStatsAndErrors) {
  TempDir dir;
  gnnrt_offload_config config = {};
  config.host_budget = 1 * MiB;
  config.spill_dir = dir.path.c_str();
  config.disk_budget = 1 * MiB;
  char error[256] = "unset";
  gnnrt_offload *t = gnnrt_offload_create(&config, error, sizeof(error));
  ASSERT_NE(t, nullptr) << error;

  auto a = pattern(777, 21), b = pattern(3333, 22);
  EXPECT_EQ(gnnrt_offload_to_host(t, 0, a.data(), 777), GNNRT_OK);
  EXPECT_EQ(gnnrt_offload_to_disk(t, 1, b.data(), 3333), GNNRT_OK);
  std::vector<unsigned char> back(3333);
  EXPECT_EQ(gnnrt_prefetch(t, 1, back.data(), 3333), GNNRT_OK);
  EXPECT_TRUE(back == b);
  back.resize(777);
  EXPECT_EQ(gnnrt_prefetch(t, 0, back.data(), 777), GNNRT_OK);
  EXPECT_TRUE(back == a);

  EXPECT_STREQ(gnnrt_offload_last_error(t), "");
  EXPECT_EQ(gnnrt_offload_to_host(t, 0, a.data(), 777), GNNRT_ERR_BAD_HANDLE);
  EXPECT_TRUE(contains(gnnrt_offload_last_error(t), "handle 0 is live"));
  EXPECT_EQ(gnnrt_offload_sync(t), GNNRT_OK);

  gnnrt_offload_stats stats;
  ASSERT_EQ(gnnrt_offload_get_stats(t, &stats), GNNRT_OK);
  EXPECT_EQ(stats.host_high_water, aligned(777));
  EXPECT_EQ(stats.disk_high_water, 3333u);
  EXPECT_EQ(stats.bytes_to_host, 777u);
  EXPECT_EQ(stats.bytes_to_disk, 3333u);
  EXPECT_EQ(stats.bytes_from_host, 777u);
  EXPECT_EQ(stats.bytes_from_disk, 3333u);
  EXPECT_GE(stats.io_wait_seconds, 0.0);

  EXPECT_EQ(gnnrt_offload_free(t, 0), GNNRT_OK);
  EXPECT_EQ(dir.files().size(), 1u);
  gnnrt_offload_destroy(t);
  EXPECT_TRUE(dir.files().empty());

  EXPECT_EQ(gnnrt_offload_to_host(nullptr, 0, a.data(), 1),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_offload_alloc_home(nullptr, 64), nullptr);
  EXPECT_EQ(gnnrt_home_load(nullptr, back.data(), a.data(), 1),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_home_store(nullptr, back.data(), a.data(), 1),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_offload_get_stats(nullptr, &stats), GNNRT_ERR_NULL_POINTER);
  gnnrt_offload_destroy(nullptr);

  // A failed create leaves the reason, cut to the buffer.
  config.spill_dir = "/nonexistent-gnnrt-dir";
  EXPECT_EQ(gnnrt_offload_create(&config, error, sizeof(error)), nullptr);
  EXPECT_TRUE(contains(error, "'/nonexistent-gnnrt-dir' does not exist"))
      << error;
  char shortError[8];
  EXPECT_EQ(gnnrt_offload_create(&config, shortError, sizeof(shortError)),
            nullptr);
  EXPECT_STREQ(shortError, "disk sp");
}

TEST(OffloadCApi, HomesThroughTheCFunctions) {
  gnnrt_offload_config config = {};
  config.host_budget = 4 * KiB;
  char error[256] = "unset";
  gnnrt_offload *t = gnnrt_offload_create(&config, error, sizeof(error));
  ASSERT_NE(t, nullptr) << error;
  void *home = gnnrt_offload_alloc_home(t, 1000);
  ASSERT_NE(home, nullptr) << gnnrt_offload_last_error(t);
  auto a = pattern(1000, 31);
  EXPECT_EQ(gnnrt_home_store(t, home, a.data(), 1000), GNNRT_OK);
  std::vector<unsigned char> back(1000);
  EXPECT_EQ(gnnrt_home_load(t, back.data(), home, 1000), GNNRT_OK);
  EXPECT_TRUE(back == a);
  EXPECT_EQ(gnnrt_home_load(t, back.data(), home, -4), GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_offload_alloc_home(t, 4 * KiB), nullptr);
  EXPECT_TRUE(contains(gnnrt_offload_last_error(t), "a home of 4096 bytes"))
      << gnnrt_offload_last_error(t);

  gnnrt_offload_stats stats;
  ASSERT_EQ(gnnrt_offload_get_stats(t, &stats), GNNRT_OK);
  EXPECT_EQ(stats.host_high_water, aligned(1000));
  EXPECT_EQ(stats.bytes_to_host, 1000u);
  EXPECT_EQ(stats.bytes_from_host, 1000u);
  gnnrt_offload_destroy(t);
}

TEST(OffloadCApi, StatusStrings) {
  EXPECT_STREQ(gnnrt_offload_status_string(GNNRT_ERR_HOST_FULL),
               "host memory budget exceeded");
  EXPECT_STREQ(gnnrt_offload_status_string(GNNRT_ERR_DISK_FULL),
               "disk spill budget exceeded");
  EXPECT_STREQ(gnnrt_offload_status_string(GNNRT_ERR_IO),
               "spill file input/output error");
  EXPECT_STREQ(gnnrt_offload_status_string(GNNRT_ERR_BAD_HANDLE),
               "bad offload handle");
  EXPECT_STREQ(gnnrt_offload_status_string(GNNRT_ERR_BAD_SIZE), "bad size");
}

} // namespace
