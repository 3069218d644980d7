//===- ArenaTest.cpp - The CPU device's budgeted arena --------------------===//
//
// Placement is checked through offsets from base(), so each test states
// exactly where first-fit must put a block; sizes are multiples of 64 unless
// the test is about rounding.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Arena.h"

#include <gtest/gtest.h>

#include <cstring>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

using gnnrt::Arena;

namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

uint64_t offsetOf(const Arena &arena, const void *p) {
  return static_cast<uint64_t>(static_cast<const char *>(p) -
                               static_cast<const char *>(arena.base()));
}

Arena makeArena(uint64_t budget) {
  Arena arena;
  std::string error;
  EXPECT_TRUE(Arena::create(budget, arena, error)) << error;
  return arena;
}

void *mustAllocate(Arena &arena, uint64_t bytes) {
  std::string error;
  void *p = arena.allocate(bytes, "test", error);
  EXPECT_NE(p, nullptr) << error;
  return p;
}

TEST(Arena, RejectsBudgetsOutOfRange) {
  Arena arena;
  std::string error;
  EXPECT_FALSE(Arena::create(0, arena, error));
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;
  error.clear();
  EXPECT_FALSE(Arena::create(Arena::kMaxBudget + 1, arena, error));
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;
  EXPECT_EQ(arena.budget(), 0u);
  EXPECT_EQ(arena.allocate(1, "x", error), nullptr);
}

TEST(Arena, LargeBudgetCostsNothingUntilTouched) {
  Arena arena;
  std::string error;
  if (!Arena::create(64 * GiB, arena, error))
    GTEST_SKIP() << "this machine refuses a 64 GiB reservation: " << error;
  EXPECT_EQ(arena.budget(), 64 * GiB);
  EXPECT_EQ(arena.residentBytes(), 0u);
  void *p = mustAllocate(arena, 32 * GiB);
  ASSERT_NE(p, nullptr);
  static_cast<char *>(p)[0] = 1;
  // One page, or one transparent huge page.
  uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  EXPECT_GE(arena.residentBytes(), page);
  EXPECT_LE(arena.residentBytes(), 2 * MiB);
}

TEST(Arena, AlignsEveryAllocation) {
  Arena arena = makeArena(1 * MiB);
  std::vector<uint64_t> sizes = {1, 63, 64, 65, 100, 0, 4097, 7};
  std::vector<char *> blocks;
  for (uint64_t size : sizes) {
    auto *p = static_cast<char *>(mustAllocate(arena, size));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % Arena::kAlignment, 0u);
    blocks.push_back(p);
  }
  // Sizes round up to 64 (0 takes 64 too, so every pointer is distinct),
  // and first-fit packs them back to back.
  std::vector<uint64_t> expected = {0, 64, 128, 192, 320, 448, 512, 4672};
  for (size_t i = 0; i < blocks.size(); ++i)
    EXPECT_EQ(offsetOf(arena, blocks[i]), expected[i]) << "block " << i;
  EXPECT_EQ(arena.inUse(), 4672u + 64);
  EXPECT_EQ(arena.numAllocations(), sizes.size());
}

TEST(Arena, FirstFitReusesTheLowestHole) {
  Arena arena = makeArena(64 * KiB);
  void *a = mustAllocate(arena, 1024);
  void *b = mustAllocate(arena, 1024);
  void *c = mustAllocate(arena, 1024);
  void *d = mustAllocate(arena, 1024);
  ASSERT_TRUE(arena.release(b));
  ASSERT_TRUE(arena.release(d)); // d's space merges with the tail.
  // Too big for b's hole: goes after c.
  void *e = mustAllocate(arena, 2048);
  EXPECT_EQ(offsetOf(arena, e), 3072u);
  // Fits in b's hole, which is lower than the tail.
  void *f = mustAllocate(arena, 512);
  EXPECT_EQ(f, b);
  void *g = mustAllocate(arena, 512);
  EXPECT_EQ(offsetOf(arena, g), 1536u);
  // The hole is full now; the next block goes after e.
  void *h = mustAllocate(arena, 64);
  EXPECT_EQ(offsetOf(arena, h), 5120u);
  (void)a;
  (void)c;
}

TEST(Arena, ReleaseCoalescesNeighbours) {
  Arena arena = makeArena(4096);
  void *a = mustAllocate(arena, 1024);
  void *b = mustAllocate(arena, 1024);
  void *c = mustAllocate(arena, 1024);
  void *d = mustAllocate(arena, 1024);
  EXPECT_EQ(arena.largestFree(), 0u);
  // a and c free: two separate 1 KiB holes.
  ASSERT_TRUE(arena.release(a));
  ASSERT_TRUE(arena.release(c));
  EXPECT_EQ(arena.largestFree(), 1024u);
  // Freeing b joins a, b and c into one 3 KiB block.
  ASSERT_TRUE(arena.release(b));
  EXPECT_EQ(arena.largestFree(), 3072u);
  void *big = mustAllocate(arena, 3072);
  EXPECT_EQ(big, a);
  ASSERT_TRUE(arena.release(big));
  ASSERT_TRUE(arena.release(d));
  // Everything merged back: the whole budget is one block again.
  EXPECT_EQ(arena.inUse(), 0u);
  EXPECT_EQ(arena.largestFree(), 4096u);
  EXPECT_EQ(mustAllocate(arena, 4096), a);
}

TEST(Arena, ReleaseRejectsForeignPointers) {
  Arena arena = makeArena(4096);
  char *a = static_cast<char *>(mustAllocate(arena, 128));
  int onStack = 0;
  EXPECT_TRUE(arena.release(nullptr));
  EXPECT_FALSE(arena.release(&onStack));
  EXPECT_FALSE(arena.release(a + 64)); // Inside a block, not its start.
  EXPECT_EQ(arena.inUse(), 128u);
  EXPECT_TRUE(arena.release(a));
  EXPECT_FALSE(arena.release(a)); // Double free.
  EXPECT_EQ(arena.inUse(), 0u);
}

TEST(Arena, OutOfBudgetIsAnErrorNamingTheAllocation) {
  Arena arena = makeArena(256 * MiB);
  // 252.8 MiB in use, 3.2 MiB free.
  void *a = mustAllocate(arena, 200 * MiB);
  void *b = mustAllocate(arena, 52 * MiB + 819 * KiB + 200);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  uint64_t inUse = arena.inUse();
  std::string error;
  EXPECT_EQ(arena.allocate(12 * MiB, "step workspace", error), nullptr);
  EXPECT_EQ(error, "device arena: 'step workspace' needs 12.0 MiB but only "
                   "3.20 MiB of the 256 MiB budget is free (in use: 253 MiB "
                   "in 2 allocations)");
  EXPECT_EQ(arena.inUse(), inUse);
  EXPECT_EQ(arena.numAllocations(), 2u);

  // A size beyond the budget, even one that would wrap when rounded.
  error.clear();
  EXPECT_EQ(arena.allocate(UINT64_MAX, "huge", error), nullptr);
  EXPECT_NE(error.find("'huge' needs 16.0 EiB"), std::string::npos) << error;
}

TEST(Arena, FragmentationIsReportedAsSuch) {
  Arena arena = makeArena(4 * KiB);
  std::vector<void *> blocks;
  for (int i = 0; i < 4; ++i)
    blocks.push_back(mustAllocate(arena, 1 * KiB));
  ASSERT_TRUE(arena.release(blocks[0]));
  ASSERT_TRUE(arena.release(blocks[2]));
  std::string error;
  EXPECT_EQ(arena.allocate(2 * KiB, "adj", error), nullptr);
  EXPECT_EQ(error, "device arena: 'adj' needs 2.00 KiB; 2.00 KiB of the "
                   "4.00 KiB budget is free but fragmented, the largest free "
                   "block is 1.00 KiB (in use: 2.00 KiB in 2 allocations)");
}

TEST(Arena, BudgetIsExactNotRoundedToTheAlignment) {
  // 100 bytes: one 64-byte block fits, a second would end at 128 > 100.
  Arena arena = makeArena(100);
  EXPECT_NE(mustAllocate(arena, 10), nullptr);
  std::string error;
  EXPECT_EQ(arena.allocate(10, "second", error), nullptr);
  EXPECT_NE(error.find("needs 64 B but only 36 B of the 100 B budget"),
            std::string::npos)
      << error;
}

TEST(Arena, TracksHighWaterMarks) {
  Arena arena = makeArena(1 * MiB);
  void *a = mustAllocate(arena, 1000); // [0, 1024)
  void *b = mustAllocate(arena, 2000); // [1024, 3072)
  EXPECT_EQ(arena.highWater(), 3072u);
  EXPECT_EQ(arena.highWaterEnd(), 3072u);
  ASSERT_TRUE(arena.release(a));
  EXPECT_EQ(arena.inUse(), 2048u);
  EXPECT_EQ(arena.highWater(), 3072u);

  // After a reset, the marks start from what is live: b ends at 3072.
  arena.resetHighWater();
  EXPECT_EQ(arena.highWater(), 2048u);
  EXPECT_EQ(arena.highWaterEnd(), 3072u);

  // 512 bytes go into a's hole: in use rises, the end does not.
  void *c = mustAllocate(arena, 512);
  EXPECT_EQ(c, a);
  EXPECT_EQ(arena.highWater(), 2560u);
  EXPECT_EQ(arena.highWaterEnd(), 3072u);

  // 1024 bytes do not fit in the 512 left of the hole: a new end.
  mustAllocate(arena, 1024);
  EXPECT_EQ(arena.highWater(), 3584u);
  EXPECT_EQ(arena.highWaterEnd(), 4096u);

  // Fragmentation shows as the difference between the two marks.
  ASSERT_TRUE(arena.release(b));
  ASSERT_TRUE(arena.release(c));
  arena.resetHighWater();
  EXPECT_EQ(arena.highWater(), 1024u);
  EXPECT_EQ(arena.highWaterEnd(), 4096u);
}

TEST(Arena, ResidentBytesGrowAfterWriting) {
  Arena arena = makeArena(64 * MiB);
  EXPECT_EQ(arena.residentBytes(), 0u);
  auto *p = static_cast<char *>(mustAllocate(arena, 16 * MiB));
  ASSERT_NE(p, nullptr);
  // Reserved but untouched: still nothing resident.
  EXPECT_EQ(arena.residentBytes(), 0u);
  std::memset(p, 1, 8 * MiB);
  uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  uint64_t half = arena.residentBytes();
  EXPECT_GE(half, 8 * MiB);
  // Transparent huge pages may fault in a little more than was written.
  EXPECT_LE(half, 8 * MiB + 2 * MiB + page);
  std::memset(p, 1, 16 * MiB);
  EXPECT_GE(arena.residentBytes(), 16 * MiB);
}

TEST(Arena, MovesOwnership) {
  Arena first = makeArena(4096);
  void *p = mustAllocate(first, 100);
  Arena second(std::move(first));
  EXPECT_EQ(first.budget(), 0u);
  EXPECT_EQ(first.base(), nullptr);
  EXPECT_EQ(second.budget(), 4096u);
  EXPECT_EQ(second.inUse(), 128u);
  std::memset(p, 7, 100); // Still mapped.
  EXPECT_TRUE(second.release(p));

  Arena third = makeArena(8192);
  third = std::move(second);
  EXPECT_EQ(third.budget(), 4096u);
  EXPECT_EQ(third.inUse(), 0u);
  std::string error;
  EXPECT_EQ(second.allocate(1, "after move", error), nullptr);
  EXPECT_NE(error.find("never created"), std::string::npos) << error;
}

// createOver: the same first-fit bookkeeping over a region the arena does
// not own and must never touch (a GPU's memory on the CUDA target).

/// \p bytes of address space that faults on any access: an arena that read
/// or wrote its region would crash the test.
void *reserveUntouchable(uint64_t bytes) {
  void *p = mmap(nullptr, bytes, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  EXPECT_NE(p, MAP_FAILED);
  return p == MAP_FAILED ? nullptr : p;
}

TEST(ArenaOver, PlacesFirstFitWithoutTouchingTheRegion) {
  void *region = reserveUntouchable(1 * MiB);
  ASSERT_NE(region, nullptr);
  {
    Arena arena;
    std::string error;
    ASSERT_TRUE(Arena::createOver(region, 1 * MiB, arena, error)) << error;
    EXPECT_EQ(arena.base(), region);
    EXPECT_EQ(arena.budget(), 1 * MiB);
    void *a = mustAllocate(arena, 100); // 128 bytes.
    void *b = mustAllocate(arena, 64);
    void *c = mustAllocate(arena, 4096);
    EXPECT_EQ(offsetOf(arena, a), 0u);
    EXPECT_EQ(offsetOf(arena, b), 128u);
    EXPECT_EQ(offsetOf(arena, c), 192u);
    EXPECT_EQ(arena.inUse(), 128u + 64 + 4096);
    EXPECT_EQ(arena.highWater(), 128u + 64 + 4096);
    EXPECT_EQ(arena.highWaterEnd(), 192u + 4096);

    // The hole a leaves takes the next block that fits, first-fit.
    EXPECT_TRUE(arena.release(a));
    void *d = mustAllocate(arena, 64);
    EXPECT_EQ(offsetOf(arena, d), 0u);
    EXPECT_EQ(arena.highWater(), 128u + 64 + 4096);

    // Released neighbours merge back into one block.
    EXPECT_TRUE(arena.release(b));
    EXPECT_TRUE(arena.release(c));
    EXPECT_TRUE(arena.release(d));
    EXPECT_EQ(arena.inUse(), 0u);
    EXPECT_EQ(arena.largestFree(), 1 * MiB);
    arena.resetHighWater();
    EXPECT_EQ(arena.highWater(), 0u);
    EXPECT_EQ(arena.highWaterEnd(), 0u);
    void *all = mustAllocate(arena, 1 * MiB);
    EXPECT_EQ(all, region);

    // Not the host's pages to count.
    EXPECT_EQ(arena.residentBytes(), 0u);
  }
  // The arena did not unmap it: changing the protection of an unmapped
  // range fails with ENOMEM.
  EXPECT_EQ(mprotect(region, 1 * MiB, PROT_READ), 0);
  munmap(region, 1 * MiB);
}

TEST(ArenaOver, NeverWritesAHostRegion) {
  std::vector<uint64_t> words(64 * KiB / 8 + 8, 0xa5a5a5a5a5a5a5a5ull);
  // A 64-byte aligned start inside the vector.
  auto *base = reinterpret_cast<char *>(
      (reinterpret_cast<uintptr_t>(words.data()) + 63) / 64 * 64);
  {
    Arena arena;
    std::string error;
    ASSERT_TRUE(Arena::createOver(base, 64 * KiB, arena, error)) << error;
    std::vector<void *> blocks;
    for (uint64_t size : {1, 64, 1000, 0, 4096, 63})
      blocks.push_back(mustAllocate(arena, size));
    EXPECT_TRUE(arena.release(blocks[1]));
    EXPECT_TRUE(arena.release(blocks[3]));
    blocks.push_back(mustAllocate(arena, 128));
    EXPECT_EQ(arena.allocate(1 * MiB, "too big", error), nullptr);
    EXPECT_NE(error.find("'too big' needs 1.00 MiB but only"),
              std::string::npos)
        << error;
    for (void *p : blocks)
      arena.release(p);
  }
  for (uint64_t w : words)
    ASSERT_EQ(w, 0xa5a5a5a5a5a5a5a5ull);
}

TEST(ArenaOver, RejectsBadRegions) {
  alignas(64) static char buffer[256];
  Arena arena;
  std::string error;
  EXPECT_FALSE(Arena::createOver(nullptr, 256, arena, error));
  EXPECT_NE(error.find("null"), std::string::npos) << error;
  EXPECT_FALSE(Arena::createOver(buffer + 8, 128, arena, error));
  EXPECT_NE(error.find("aligned to 64"), std::string::npos) << error;
  EXPECT_FALSE(Arena::createOver(buffer, 0, arena, error));
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;
  EXPECT_FALSE(Arena::createOver(buffer, Arena::kMaxBudget + 1, arena, error));
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;
  // A failure leaves the arena as it was.
  EXPECT_EQ(arena.budget(), 0u);
  EXPECT_EQ(arena.base(), nullptr);
}

TEST(ArenaOver, MovesWithoutUnmappingTheRegion) {
  void *region = reserveUntouchable(64 * KiB);
  ASSERT_NE(region, nullptr);
  {
    Arena over;
    std::string error;
    ASSERT_TRUE(Arena::createOver(region, 64 * KiB, over, error)) << error;
    void *p = mustAllocate(over, 100);
    Arena moved(std::move(over));
    EXPECT_EQ(over.base(), nullptr);
    EXPECT_EQ(moved.base(), region);
    EXPECT_EQ(moved.inUse(), 128u);
    // An owning arena assigned this one unmaps its own region only.
    Arena owning = makeArena(4096);
    owning = std::move(moved);
    EXPECT_EQ(owning.base(), region);
    EXPECT_TRUE(owning.release(p));
    EXPECT_EQ(owning.residentBytes(), 0u);
    // And this one assigned an owning arena leaves the region alone.
    owning = makeArena(4096);
    EXPECT_NE(owning.base(), region);
  }
  EXPECT_EQ(mprotect(region, 64 * KiB, PROT_READ), 0);
  munmap(region, 64 * KiB);
}

} // namespace
