//===- Arena.h - The CPU device's budgeted memory ---------------*- C++ -*-===//
//
// The CPU device's memory is one region of exactly the training recipe's
// budget (`memory = 256 MiB;`). Every device tensor lives in it, so a
// memory plan that claims to fit is checked by construction, and its peak
// is measured rather than estimated: an allocation that does not fit fails
// with a message naming the tensor, never with an abort.
//
// The region is reserved with mmap(MAP_NORESERVE): pages the plan never
// touches cost no physical memory, so a generous budget is free until used.
// residentBytes() asks the kernel (mincore) which pages were touched, an
// independent measurement to compare with the arena's own bookkeeping.
//
// A device whose memory the host cannot address (a CUDA GPU) gets the same
// bookkeeping over a region its owner allocated (createOver): the arena
// only computes addresses in it, never reads, writes or frees it, so the
// first-fit placement and the high-water marks are the CPU device's.
//
// Not thread-safe: one training driver owns an arena and allocates from
// one thread (kernels may use the memory from many).
//
// Plain C++17, no LLVM: the runtime does not depend on the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_ARENA_H
#define GNNRT_ARENA_H

#include <cstdint>
#include <map>
#include <string>

namespace gnnrt {

class Arena {
public:
  /// Every allocation starts on this boundary (a cache line, and enough for
  /// any vector load) and its size is rounded up to it.
  static constexpr uint64_t kAlignment = 64;
  /// The largest budget: 256 TiB, the x86-64 and AArch64 user address space.
  static constexpr uint64_t kMaxBudget = uint64_t(1) << 48;

  /// An arena with no region (budget 0); every allocation fails.
  Arena() = default;
  ~Arena();
  Arena(Arena &&other) noexcept;
  Arena &operator=(Arena &&other) noexcept;
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;

  /// Reserves \p budgetBytes (1 .. kMaxBudget) of address space into \p out,
  /// replacing what \p out held. On failure returns false, sets \p error
  /// and leaves \p out unchanged.
  static bool create(uint64_t budgetBytes, Arena &out, std::string &error);

  /// Places allocations in the \p bytes (1 .. kMaxBudget) at \p base, a
  /// region the caller owns and keeps for the arena's life (device memory
  /// from cudaMalloc), into \p out, replacing what \p out held. The arena
  /// never touches the region and does not free it; residentBytes() is 0.
  /// \p base must be a multiple of kAlignment. On failure returns false,
  /// sets \p error and leaves \p out unchanged.
  static bool createOver(void *base, uint64_t bytes, Arena &out,
                         std::string &error);

  /// \p bytes rounded up to kAlignment (0 counts as kAlignment, so every
  /// allocation has its own address), placed first-fit: at the lowest
  /// offset where it fits. Returns nullptr and sets \p error if it does not
  /// fit; \p what names the allocation in that message ("device arena:
  /// 'step workspace' needs 12.0 MiB but only 3.20 MiB of the 256 MiB budget
  /// is free (in use: ...)"). Memory is not cleared: it holds whatever the
  /// previous user left (zeros if never used).
  void *allocate(uint64_t bytes, const char *what, std::string &error);

  /// Returns \p p, a live allocation, to the free space, merging it with
  /// free neighbours. nullptr is ignored (returns true). Returns false and
  /// changes nothing if \p p is not a live allocation of this arena.
  bool release(void *p);

  /// The bytes reserved by create() or given to createOver().
  uint64_t budget() const { return budgetBytes; }
  /// The sum of the live allocations' aligned sizes.
  uint64_t inUse() const { return inUseBytes; }
  /// The largest inUse() since create() or the last resetHighWater(): what
  /// the live tensors needed at the worst moment, the number the memory
  /// planner predicts as its peak.
  uint64_t highWater() const { return highWaterBytes; }
  /// The largest end offset of any allocation since create() or the last
  /// resetHighWater(): what the budget really had to cover, fragmentation
  /// included. Always >= highWater().
  uint64_t highWaterEnd() const { return highWaterEndBytes; }
  /// Restarts both high-water marks from the allocations live now (e.g.
  /// after setup, to measure one training step).
  void resetHighWater();
  /// The number of live allocations.
  uint64_t numAllocations() const { return live.size(); }
  /// The largest block an allocation could get now.
  uint64_t largestFree() const;

  /// The bytes of the region the kernel holds in memory, counted page by
  /// page with mincore(): pages touched since create() (freed allocations
  /// are not given back to the system). 0 if mincore is unavailable, and
  /// for a region given to createOver() (not the host's to count).
  uint64_t residentBytes() const;

  /// The start of the region (nullptr without one), for tests and tools
  /// that print offsets.
  const void *base() const { return region; }

private:
  uint8_t *region = nullptr;
  uint64_t budgetBytes = 0;
  uint64_t mappedBytes = 0; ///< The budget rounded up to whole pages.
  /// Whether create() mapped the region (unmapped by the destructor) or
  /// createOver() was given it.
  bool ownsRegion = false;
  /// Free blocks and live allocations, offset -> size. Free blocks never
  /// touch each other (release merges them) and, with the live ones, tile
  /// [0, budget) exactly.
  std::map<uint64_t, uint64_t> freeBlocks, live;
  uint64_t inUseBytes = 0, highWaterBytes = 0, highWaterEndBytes = 0;
  /// The largest end offset ever allocated: no page beyond it was touched,
  /// so residentBytes() need not ask about them.
  uint64_t touchedEnd = 0;
};

} // namespace gnnrt

#endif // GNNRT_ARENA_H
