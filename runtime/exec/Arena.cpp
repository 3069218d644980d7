//===- Arena.cpp - The CPU device's budgeted memory -----------------------===//
//
// A first-fit allocator over a std::map of free blocks. A training step
// allocates a few dozen tensors, so a linear scan is cheaper than anything
// cleverer, and first-fit keeps the high end of the region untouched for as
// long as possible, which is what the high-water marks measure.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Arena.h"
#include "gnnrt/ProcessStats.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace gnnrt;

static uint64_t pageSize() {
  long size = sysconf(_SC_PAGESIZE);
  return size > 0 ? static_cast<uint64_t>(size) : 4096;
}

Arena::~Arena() {
  if (region && ownsRegion)
    munmap(region, mappedBytes);
}

Arena::Arena(Arena &&other) noexcept { *this = std::move(other); }

Arena &Arena::operator=(Arena &&other) noexcept {
  if (this == &other)
    return *this;
  if (region && ownsRegion)
    munmap(region, mappedBytes);
  region = std::exchange(other.region, nullptr);
  budgetBytes = std::exchange(other.budgetBytes, 0);
  mappedBytes = std::exchange(other.mappedBytes, 0);
  ownsRegion = std::exchange(other.ownsRegion, false);
  freeBlocks = std::move(other.freeBlocks);
  live = std::move(other.live);
  other.freeBlocks.clear();
  other.live.clear();
  inUseBytes = std::exchange(other.inUseBytes, 0);
  highWaterBytes = std::exchange(other.highWaterBytes, 0);
  highWaterEndBytes = std::exchange(other.highWaterEndBytes, 0);
  touchedEnd = std::exchange(other.touchedEnd, 0);
  return *this;
}

bool Arena::create(uint64_t budgetBytes, Arena &out, std::string &error) {
  if (budgetBytes == 0 || budgetBytes > kMaxBudget) {
    error = "device arena: a budget of " + std::to_string(budgetBytes) +
            " bytes is out of range (1 B to " + formatBytes(kMaxBudget) + ")";
    return false;
  }
  uint64_t page = pageSize();
  uint64_t mapped = (budgetBytes + page - 1) / page * page;
  void *p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    error = "device arena: cannot reserve " + formatBytes(budgetBytes) +
            " of address space: " + std::strerror(errno);
    return false;
  }
  Arena arena;
  arena.region = static_cast<uint8_t *>(p);
  arena.budgetBytes = budgetBytes;
  arena.mappedBytes = mapped;
  arena.ownsRegion = true;
  arena.freeBlocks.emplace(0, budgetBytes);
  out = std::move(arena);
  return true;
}

bool Arena::createOver(void *base, uint64_t bytes, Arena &out,
                       std::string &error) {
  if (bytes == 0 || bytes > kMaxBudget) {
    error = "device arena: a region of " + std::to_string(bytes) +
            " bytes is out of range (1 B to " + formatBytes(kMaxBudget) + ")";
    return false;
  }
  if (!base || reinterpret_cast<uintptr_t>(base) % kAlignment != 0) {
    error = base ? "device arena: the region's start is not aligned to " +
                       std::to_string(kAlignment) + " bytes"
                 : "device arena: the region is null";
    return false;
  }
  // Only offsets are computed from here on: the region may be memory the
  // host cannot read (a GPU's).
  Arena arena;
  arena.region = static_cast<uint8_t *>(base);
  arena.budgetBytes = bytes;
  arena.freeBlocks.emplace(0, bytes);
  out = std::move(arena);
  return true;
}

uint64_t Arena::largestFree() const {
  uint64_t largest = 0;
  for (const auto &[offset, size] : freeBlocks)
    largest = std::max(largest, size);
  return largest;
}

void *Arena::allocate(uint64_t bytes, const char *what, std::string &error) {
  // Compare before rounding: rounding a size near 2^64 would wrap.
  uint64_t size = kAlignment;
  if (bytes > budgetBytes)
    size = bytes;
  else if (bytes > 0)
    size = (bytes + kAlignment - 1) / kAlignment * kAlignment;

  // Offsets stay multiples of kAlignment: allocations are taken from the
  // start of a free block, and only the block at the budget's end can have
  // a size that is not a multiple.
  auto fit =
      std::find_if(freeBlocks.begin(), freeBlocks.end(),
                   [&](const auto &block) { return block.second >= size; });
  if (fit == freeBlocks.end()) {
    uint64_t freeBytes = budgetBytes - inUseBytes;
    std::string name = what && *what ? what : "allocation";
    std::string inUseNote =
        "(in use: " + formatBytes(inUseBytes) + " in " +
        std::to_string(live.size()) +
        (live.size() == 1 ? " allocation)" : " allocations)");
    if (!region)
      error = "device arena: '" + name + "' needs " + formatBytes(size) +
              " but the arena has no memory (it was never created)";
    else if (freeBytes < size)
      error = "device arena: '" + name + "' needs " + formatBytes(size) +
              " but only " + formatBytes(freeBytes) + " of the " +
              formatBytes(budgetBytes) + " budget is free " + inUseNote;
    else
      error = "device arena: '" + name + "' needs " + formatBytes(size) + "; " +
              formatBytes(freeBytes) + " of the " + formatBytes(budgetBytes) +
              " budget is free but fragmented, the largest free block is " +
              formatBytes(largestFree()) + " " + inUseNote;
    return nullptr;
  }

  uint64_t offset = fit->first, blockSize = fit->second;
  freeBlocks.erase(fit);
  if (blockSize > size)
    freeBlocks.emplace(offset + size, blockSize - size);
  live.emplace(offset, size);
  inUseBytes += size;
  highWaterBytes = std::max(highWaterBytes, inUseBytes);
  highWaterEndBytes = std::max(highWaterEndBytes, offset + size);
  touchedEnd = std::max(touchedEnd, offset + size);
  return region + offset;
}

bool Arena::release(void *p) {
  if (!p)
    return true;
  auto *bytePtr = static_cast<uint8_t *>(p);
  if (!region || bytePtr < region || bytePtr >= region + budgetBytes)
    return false;
  auto it = live.find(static_cast<uint64_t>(bytePtr - region));
  if (it == live.end())
    return false;
  uint64_t offset = it->first, size = it->second;
  live.erase(it);
  inUseBytes -= size;

  // Merge with the free block that ends where this one starts, then with
  // the one that starts where it ends.
  auto next = freeBlocks.lower_bound(offset);
  if (next != freeBlocks.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      size += prev->second;
      freeBlocks.erase(prev);
    }
  }
  if (next != freeBlocks.end() && offset + size == next->first) {
    size += next->second;
    freeBlocks.erase(next);
  }
  freeBlocks.emplace(offset, size);
  return true;
}

void Arena::resetHighWater() {
  highWaterBytes = inUseBytes;
  highWaterEndBytes =
      live.empty() ? 0 : live.rbegin()->first + live.rbegin()->second;
}

uint64_t Arena::residentBytes() const {
  if (!region || !ownsRegion || touchedEnd == 0)
    return 0;
  uint64_t page = pageSize();
  uint64_t pages = (touchedEnd + page - 1) / page;
  // Ask in chunks so a large high-water mark needs no large vector.
  constexpr uint64_t chunkPages = uint64_t(1) << 16;
  std::vector<unsigned char> resident(
      static_cast<size_t>(std::min(pages, chunkPages)));
  uint64_t count = 0;
  for (uint64_t first = 0; first < pages; first += chunkPages) {
    uint64_t n = std::min(chunkPages, pages - first);
    if (mincore(region + first * page, n * page, resident.data()) != 0)
      return 0;
    for (uint64_t i = 0; i < n; ++i)
      count += resident[i] & 1;
  }
  return count * page;
}
