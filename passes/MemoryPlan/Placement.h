//===- Placement.h - Static offsets for arena slots -------------*- C++ -*-===//
//
// Dynamic storage allocation for one step: every slot (a value's bytes over
// the ops it is live) gets an offset in one arena so that no two slots live
// at the same op share a byte. NP-hard in general; placeSlots runs a few
// greedy orders and a bounded local search, and stops early when the arena
// reaches the live-bytes peak, which bounds every placement from below.
// Plain C++ over intervals, so it is tested without IR
// (test/unittests/MemoryPlan/PlacementTest.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_PASSES_MEMORYPLAN_PLACEMENT_H
#define GNNC_PASSES_MEMORYPLAN_PLACEMENT_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace mlir::gnn {

/// One arena slot: \p bytes (already aligned) over the ops \p begin to \p
/// end of the schedule, inclusive.
struct Slot {
  int64_t begin, end;
  int64_t bytes;
};

struct SlotPlacement {
  std::vector<int64_t> offsets; // One per slot.
  int64_t arenaBytes = 0;
};

/// The most bytes of \p slots live at one op: no placement is smaller.
int64_t liveSlotPeak(llvm::ArrayRef<Slot> slots);

/// Offsets for \p slots: the smallest arena found by first fit in several
/// orders and a bounded deterministic local search over orders, which stop
/// as soon as the arena reaches \p lowerBound (the live peak, or less).
SlotPlacement placeSlots(llvm::ArrayRef<Slot> slots, int64_t lowerBound);

} // namespace mlir::gnn

#endif // GNNC_PASSES_MEMORYPLAN_PLACEMENT_H
