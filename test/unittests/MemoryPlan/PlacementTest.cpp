//===- PlacementTest.cpp - Arena offsets for slots ------------------------===//
//
// placeSlots (passes/MemoryPlan/Placement.h) on random slots, where every
// placement must be valid and no smaller than the live peak, on small cases
// whose best arena is known, and on a recorded step of GAT run head by head
// on 2M nodes.
//
//===----------------------------------------------------------------------===//
#include "passes/MemoryPlan/Placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>

using namespace mlir::gnn;

namespace {

/// Fails the test where two slots live at one op share a byte, or the arena
/// is not the highest slot's top.
void expectValid(const std::vector<Slot> &slots, const SlotPlacement &p) {
  ASSERT_EQ(p.offsets.size(), slots.size());
  int64_t top = 0;
  for (size_t i = 0; i < slots.size(); ++i) {
    ASSERT_GE(p.offsets[i], 0) << "slot " << i;
    if (slots[i].bytes == 0)
      continue;
    top = std::max(top, p.offsets[i] + slots[i].bytes);
    for (size_t j = i + 1; j < slots.size(); ++j) {
      if (slots[j].bytes == 0 || slots[i].end < slots[j].begin ||
          slots[j].end < slots[i].begin)
        continue;
      bool apart = p.offsets[i] + slots[i].bytes <= p.offsets[j] ||
                   p.offsets[j] + slots[j].bytes <= p.offsets[i];
      EXPECT_TRUE(apart) << "slots " << i << " and " << j << " overlap";
    }
  }
  EXPECT_EQ(p.arenaBytes, top);
}

/// Places \p slots at their live peak, fails the test (naming \p what)
/// where the placement is invalid, below the peak, or not the same twice
/// (the planner compares placements of the same plan), and returns it.
SlotPlacement expectPlacedAbovePeak(const std::vector<Slot> &slots,
                                    const std::string &what) {
  int64_t peak = liveSlotPeak(slots);
  SlotPlacement p = placeSlots(slots, peak);
  expectValid(slots, p);
  EXPECT_GE(p.arenaBytes, peak) << what;
  EXPECT_EQ(placeSlots(slots, peak).offsets, p.offsets) << what;
  return p;
}

/// 200 random rounds from \p seed, each of minSlots + rng() % slotsRange
/// slots over minOps + rng() % opsRange ops, each slot \p slotOf(rng, ops),
/// placed by expectPlacedAbovePeak.
template <typename SlotOf>
void placeRandomRounds(uint64_t seed, int minSlots, int slotsRange, int minOps,
                       int opsRange, SlotOf slotOf) {
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 200; ++round) {
    std::vector<Slot> slots;
    int n = minSlots + rng() % slotsRange;
    int ops = minOps + rng() % opsRange;
    for (int k = 0; k < n; ++k)
      slots.push_back(slotOf(rng, ops));
    expectPlacedAbovePeak(slots, "round " + std::to_string(round));
  }
}

TEST(PlacementTest, RandomSlotsArePlacedValidlyAboveThePeak) {
  placeRandomRounds(5, 1, 60, 1, 40, [](std::mt19937_64 &rng, int ops) {
    int64_t a = rng() % ops, b = rng() % ops;
    // Sizes of a few classes, as a step's activations are, and zeros.
    int64_t bytes = 64 * static_cast<int64_t>(rng() % 5) * (1 + rng() % 3);
    return Slot{std::min(a, b), std::max(a, b), bytes};
  });
}

TEST(PlacementTest, KnownArenas) {
  // Slots that never meet share one offset; slots all live at once stack.
  std::vector<Slot> chain = {{0, 1, 640}, {2, 3, 640}, {4, 5, 128}};
  EXPECT_EQ(placeSlots(chain, liveSlotPeak(chain)).arenaBytes, 640);
  std::vector<Slot> stack = {{0, 5, 64}, {1, 4, 128}, {2, 3, 256}};
  EXPECT_EQ(liveSlotPeak(stack), 448);
  EXPECT_EQ(placeSlots(stack, liveSlotPeak(stack)).arenaBytes, 448);
  // A long-lived slot across a hand-over: B (2..5) meets A (0..2) and C
  // (3..5) but they never meet each other, so A and C share the bottom.
  std::vector<Slot> handOver = {{0, 2, 256}, {2, 5, 64}, {3, 5, 256}};
  EXPECT_EQ(placeSlots(handOver, liveSlotPeak(handOver)).arenaBytes, 320);
}

// A value live from the step's entry begins before op 0 (at -1); the
// skyline's starts, built where the fixed orders leave holes, must hold it
// too (they once looked for it over ops 0 on only, and never ended).
TEST(PlacementTest, SlotsFromTheEntryArePlaced) {
  placeRandomRounds(11, 2, 40, 2, 30, [](std::mt19937_64 &rng, int ops) {
    int64_t a = static_cast<int64_t>(rng() % (ops + 1)) - 1,
            b = static_cast<int64_t>(rng() % (ops + 1)) - 1;
    int64_t bytes = 64 * (1 + static_cast<int64_t>(rng() % 4));
    return Slot{std::min(a, b), std::max(a, b), bytes};
  });
}

// With a lower bound no placement can exceed, placeSlots keeps its first
// start: first fit in definition order. Its offsets must be those of first
// fit written the plain way, over the overlapping values sorted by offset
// (placeSlots finds the lowest clear offset without sorting them).
TEST(PlacementTest, FirstFitMatchesTheSortedScan) {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 200; ++round) {
    std::vector<Slot> slots;
    int n = 1 + rng() % 80, ops = 1 + rng() % 50;
    for (int k = 0; k < n; ++k) {
      int64_t a = rng() % ops, b = rng() % ops;
      slots.push_back({std::min(a, b), std::max(a, b),
                       64 * static_cast<int64_t>(rng() % 6) * (1 + rng() % 3)});
    }
    std::vector<int64_t> expected(n, -1);
    for (int k = 0; k < n; ++k) {
      std::vector<std::pair<int64_t, int64_t>> busy;
      for (int j = 0; j < k; ++j)
        if (slots[j].bytes > 0 && slots[k].bytes > 0 &&
            slots[j].begin <= slots[k].end && slots[k].begin <= slots[j].end)
          busy.push_back({expected[j], expected[j] + slots[j].bytes});
      std::sort(busy.begin(), busy.end());
      int64_t offset = 0;
      for (auto [lo, hi] : busy) {
        if (offset + slots[k].bytes <= lo)
          break;
        offset = std::max(offset, hi);
      }
      expected[k] = offset;
    }
    SlotPlacement p = placeSlots(slots, std::numeric_limits<int64_t>::max());
    EXPECT_EQ(p.offsets, expected) << "round " << round;
  }
}

TEST(PlacementTest, RecordedGatStepHeadByHead) {
  std::ifstream in(GNNC_SOURCE_DIR
                   "/test/unittests/MemoryPlan/Inputs/gat-2m-heads-slots.txt");
  ASSERT_TRUE(in) << "missing fixture";
  std::vector<Slot> slots;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream fields(line);
    Slot slot;
    ASSERT_TRUE(fields >> slot.begin >> slot.end >> slot.bytes) << line;
    slots.push_back(slot);
  }
  ASSERT_EQ(slots.size(), 155u);
  EXPECT_EQ(liveSlotPeak(slots), 554001664);
  SlotPlacement p = expectPlacedAbovePeak(slots, "the recorded GAT step");
  // From the fixed orders and their local search first fit left 64 MB of
  // holes on this step (a 64 MB head slice above the rest: 618,001,664
  // bytes), and GAT at 25% of keep-all on this graph then planned in 7 s,
  // its first rooms refused for the holes; the skyline's orders leave 32
  // MB (docs/MemoryPlanning.md, "Placement").
  EXPECT_LE(p.arenaBytes, 586001984);
}

} // namespace
