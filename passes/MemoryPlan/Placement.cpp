//===- Placement.cpp - Static offsets for arena slots ---------------------===//
//
// See Placement.h.
//
//===----------------------------------------------------------------------===//
#include "passes/MemoryPlan/Placement.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

using namespace mlir::gnn;
using llvm::SmallVector;

int64_t mlir::gnn::liveSlotPeak(llvm::ArrayRef<Slot> slots) {
  // Each slot arrives at its first op and leaves after its last, in op
  // order; at one op, leaving (a negative delta) sorts before arriving, so
  // a slot that ends just before another begins never counts with it.
  std::vector<std::pair<int64_t, int64_t>> events;
  for (const Slot &slot : slots) {
    events.push_back({slot.begin, slot.bytes});
    events.push_back({slot.end + 1, -slot.bytes});
  }
  llvm::sort(events);
  int64_t live = 0, peak = 0;
  for (auto [at, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

/// An order of \p slots by the offsets the skyline best fit of
/// Sekiyama et al. ("Profile-guided memory optimization for deep neural
/// networks", 2018) gives them: the skyline is the top of the values placed
/// so far over every op; its lowest stretch takes, at its height, the
/// unplaced value that lives within it and comes first by \p before; where
/// none does, the stretch rises to its lower neighbour and merges with it.
/// The holes it leaves are the raises only: on steps of many values of a few
/// sizes live side by side (GAT head by head on 2M nodes: 48, 64 and 104 MB
/// values), where first fit in the fixed orders and its local search left
/// 64 MB of holes at the smallest plans, from these starts they leave 32
/// (test/unittests/MemoryPlan/PlacementTest.cpp). Returned as an order because
/// first fit in the order of these offsets places every value at or below its
/// offset here (a value that overlaps one placed before it in time lies wholly
/// below it here, and first fit can only move that one down), so the caller's
/// first fit and its local search take it as one more start.
static std::vector<uint32_t>
skylineOrder(llvm::ArrayRef<Slot> slots,
             llvm::function_ref<bool(uint32_t, uint32_t)> before) {
  const size_t n = slots.size();
  std::vector<uint32_t> order;
  std::vector<uint32_t> pending;
  // The stretch over every op must hold any value, or a value no stretch
  // holds would raise the last stretch forever: it spans the slots' ops,
  // whatever they are (a value live from the step's entry begins at -1).
  int64_t first = 0, last = 0;
  for (uint32_t k = 0; k < n; ++k) {
    if (slots[k].bytes == 0)
      order.push_back(k); // Takes no room; first fit puts it at 0.
    else
      pending.push_back(k);
    first = std::min(first, slots[k].begin);
    last = std::max(last, slots[k].end);
  }
  llvm::stable_sort(pending, before);
  struct Stretch {
    int64_t begin, end, height; // Op indices, inclusive.
  };
  SmallVector<Stretch> skyline = {{first, last, 0}};
  std::vector<std::pair<int64_t, uint32_t>> placed;
  while (!pending.empty()) {
    size_t low = 0;
    for (size_t s = 1; s < skyline.size(); ++s)
      if (skyline[s].height < skyline[low].height)
        low = s;
    Stretch stretch = skyline[low];
    auto fits = llvm::find_if(pending, [&](uint32_t k) {
      return slots[k].begin >= stretch.begin && slots[k].end <= stretch.end;
    });
    if (fits == pending.end()) {
      // Nothing fits here: raise the stretch to its lower neighbour's
      // height (a hole of the difference) and merge it with the neighbours
      // now as high. Some neighbour exists, since the one stretch over
      // every op takes any value.
      int64_t height = INT64_MAX;
      if (low > 0)
        height = skyline[low - 1].height;
      if (low + 1 < skyline.size())
        height = std::min(height, skyline[low + 1].height);
      skyline[low].height = height;
      if (low + 1 < skyline.size() && skyline[low + 1].height == height) {
        skyline[low].end = skyline[low + 1].end;
        skyline.erase(skyline.begin() + low + 1);
      }
      if (low > 0 && skyline[low - 1].height == height) {
        skyline[low - 1].end = skyline[low].end;
        skyline.erase(skyline.begin() + low);
      }
      continue;
    }
    const Slot &cur = slots[*fits];
    placed.push_back({stretch.height, *fits});
    SmallVector<Stretch, 3> parts;
    if (cur.begin > stretch.begin)
      parts.push_back({stretch.begin, cur.begin - 1, stretch.height});
    parts.push_back({cur.begin, cur.end, stretch.height + cur.bytes});
    if (cur.end < stretch.end)
      parts.push_back({cur.end + 1, stretch.end, stretch.height});
    skyline.erase(skyline.begin() + low);
    skyline.insert(skyline.begin() + low, parts.begin(), parts.end());
    pending.erase(fits);
  }
  // Lower offsets first; equal offsets never overlap in time.
  llvm::stable_sort(placed, [](auto x, auto y) { return x.first < y.first; });
  for (auto [offset, k] : placed)
    order.push_back(k);
  return order;
}

SlotPlacement mlir::gnn::placeSlots(llvm::ArrayRef<Slot> slots,
                                    int64_t lowerBound) {
  const size_t n = slots.size();

  // Who overlaps whom, once: every order below places against these lists.
  std::vector<SmallVector<uint32_t>> overlaps(n);
  for (size_t i = 0; i < n; ++i) {
    const Slot &cur = slots[i];
    if (cur.bytes == 0)
      continue;
    for (size_t j = i + 1; j < n; ++j) {
      const Slot &other = slots[j];
      if (other.bytes > 0 && other.begin <= cur.end && cur.begin <= other.end) {
        overlaps[i].push_back(j);
        overlaps[j].push_back(i);
      }
    }
  }

  // Each value in turn goes where no already placed, overlapping value
  // uses its bytes: at the lowest such offset (first fit), or (`fresh`) at
  // the offset of the value freed last before it begins, where it fits
  // without raising the arena. First fit alternates the large values of a
  // chain of ops between two slots by chance; reusing the slot freed last
  // keeps a value that lives across such a hand-over (a gradient read by
  // the next op of the chain) clear of both slots' next values, so it need
  // not go above them.
  //
  // The local search below re-places orders that share a prefix with one
  // already placed (\p prefix: its placement), and keeps them only when
  // their arena is no larger than \p cutoff's: the first \p prefixLength
  // values are taken from \p prefix (they meet the same placed values, so
  // they go to the same offsets), and a placement whose arena passes
  // \p cutoff stops there, its arena above the cutoff and its offsets
  // incomplete. From position \p sameFrom on, the order is \p prefix's own
  // (first fit only): once every value placed so far sits where \p prefix
  // put it, the rest would too, so \p prefix is the placement. A moved
  // value's changes often die out within a few values: on 142 placements
  // recorded from the benchmark's cells this took another 6% off their
  // time after the sort's removal below (1068 to 513 ms), same offsets.
  auto place = [&](llvm::ArrayRef<uint32_t> order, bool fresh,
                   const SlotPlacement *prefix = nullptr,
                   size_t prefixLength = 0,
                   int64_t cutoff = std::numeric_limits<int64_t>::max(),
                   size_t sameFrom = std::numeric_limits<size_t>::max()) {
    SlotPlacement result;
    result.offsets.assign(n, -1);
    for (size_t i = 0; i < prefixLength; ++i) {
      uint32_t k = order[i];
      result.offsets[k] = prefix->offsets[k];
      result.arenaBytes =
          std::max(result.arenaBytes, result.offsets[k] + slots[k].bytes);
    }
    // For `fresh`: every value, the latest freed first, ties in placement
    // order. Sorted once per placement; a value's candidates are the ones
    // already placed that end before it begins, in this order.
    std::vector<uint32_t> byEnd;
    if (fresh) {
      byEnd.assign(order.begin(), order.end());
      llvm::stable_sort(byEnd, [&](uint32_t x, uint32_t y) {
        return slots[x].end > slots[y].end;
      });
    }
    size_t differing = 0;
    for (size_t i = prefixLength; i < order.size(); ++i) {
      if (result.arenaBytes > cutoff)
        break;
      if (i >= sameFrom && differing == 0)
        return *prefix;
      uint32_t k = order[i];
      const Slot &cur = slots[k];
      // The lowest offset clear of every placed value that overlaps this
      // one in time. Each pass moves `offset` to the end of a value that
      // overlaps [offset, offset + bytes); none of those can end above the
      // lowest clear offset (it would overlap there too), so the passes
      // stop at it: the offset first fit over the values sorted by offset
      // gives, without the sort.
      const llvm::SmallVector<uint32_t> &near = overlaps[k];
      int64_t offset = 0;
      for (bool moved = true; moved;) {
        moved = false;
        for (uint32_t j : near) {
          int64_t lo = result.offsets[j];
          if (lo < 0)
            continue;
          int64_t hi = lo + slots[j].bytes;
          if (lo < offset + cur.bytes && offset < hi) {
            offset = hi;
            moved = true;
          }
        }
      }
      if (fresh && cur.bytes > 0) {
        // The slots freed before this value begins, the latest first.
        const int64_t top = std::max(result.arenaBytes, offset + cur.bytes);
        for (uint32_t j : byEnd) {
          if (result.offsets[j] < 0 || slots[j].end >= cur.begin ||
              slots[j].bytes == 0)
            continue;
          int64_t at = result.offsets[j];
          bool fits = at + cur.bytes <= top;
          for (uint32_t other : near) {
            int64_t lo = result.offsets[other];
            if (!fits)
              break;
            fits = lo < 0 ||
                   !(lo < at + cur.bytes && at < lo + slots[other].bytes);
          }
          if (fits) {
            offset = at;
            break;
          }
        }
      }
      result.offsets[k] = offset;
      if (prefix && offset != prefix->offsets[k])
        ++differing;
      result.arenaBytes = std::max(result.arenaBytes, offset + cur.bytes);
    }
    return result;
  };

  // Definition order fragments badly when a large value is defined while
  // small long-lived ones sit in the holes (a parameter staged from its
  // host home late in the step); the largest-first order (TFLite's "greedy
  // by size") does not, but is not always smaller. Every order below is
  // tried with both offset rules, the smallest arena kept; ties go to the
  // earlier: definition order and first fit first.
  std::vector<uint32_t> byDefinition(n);
  std::iota(byDefinition.begin(), byDefinition.end(), 0u);
  std::vector<uint32_t> bySize = byDefinition;
  std::stable_sort(bySize.begin(), bySize.end(), [&](uint32_t x, uint32_t y) {
    return slots[x].bytes > slots[y].bytes;
  });
  // Two more starts for the search below: among equal sizes the longer
  // lived first, and the largest area (bytes x ops live) first. Large
  // steps of equal-sized activations (GAT on 2M nodes: many 64 to 256 MB
  // values) reach the lower bound from these in hundreds of moves, where
  // from the two above a thousand moves left 32 MB of holes.
  auto span = [&](uint32_t k) { return slots[k].end - slots[k].begin + 1; };
  auto largerFirst = [&](uint32_t x, uint32_t y) {
    if (slots[x].bytes != slots[y].bytes)
      return slots[x].bytes > slots[y].bytes;
    return span(x) > span(y);
  };
  auto areaFirst = [&](uint32_t x, uint32_t y) {
    // Bytes x span fits in 128 bits, not always in 64.
    return static_cast<__int128>(slots[x].bytes) * span(x) >
           static_cast<__int128>(slots[y].bytes) * span(y);
  };
  std::vector<uint32_t> bySizeThenSpan = byDefinition;
  llvm::stable_sort(bySizeThenSpan, largerFirst);
  std::vector<uint32_t> byArea = byDefinition;
  llvm::stable_sort(byArea, areaFirst);
  auto longerFirst = [&](uint32_t x, uint32_t y) {
    if (span(x) != span(y))
      return span(x) > span(y);
    return slots[x].bytes > slots[y].bytes;
  };
  const std::pair<const std::vector<uint32_t> *, bool> starts[] = {
      {&bySize, false},         {&byDefinition, true}, {&bySize, true},
      {&bySizeThenSpan, false}, {&byArea, false},      {&bySizeThenSpan, true},
      {&byArea, true}};
  // Then the skyline's orders (skylineOrder), built only when the fixed
  // orders above leave holes: the longest lived first, the largest first,
  // the largest area first.
  const llvm::function_ref<bool(uint32_t, uint32_t)> skylineBefore[] = {
      longerFirst, largerFirst, areaFirst};
  SlotPlacement best = place(byDefinition, /*fresh=*/false);
  std::vector<uint32_t> bestOrder = byDefinition;
  bool bestFresh = false;
  auto tryStart = [&](const std::vector<uint32_t> &order, bool fresh) {
    SlotPlacement tried = place(order, fresh);
    if (tried.arenaBytes < best.arenaBytes) {
      best = std::move(tried);
      bestOrder = order;
      bestFresh = fresh;
    }
  };
  for (auto [order, fresh] : starts) {
    if (best.arenaBytes <= lowerBound)
      break;
    tryStart(*order, fresh);
  }
  for (auto before : skylineBefore) {
    if (best.arenaBytes <= lowerBound)
      break;
    tryStart(skylineOrder(slots, before), /*fresh=*/false);
  }

  // Neither order is optimal when a value overlaps two large ones that
  // first fit put side by side: it has to go above both, and a long-lived
  // small value above it (GCN-3 on Facebook at its smallest plan lost 160
  // KB so). Whether a large value goes low or high is decided by the order,
  // so while the arena is above the lower bound, a local search over
  // orders: move one value elsewhere in the order, keep the move when the
  // arena does not grow. Deterministic (a fixed-seed minstd_rand, whose
  // sequence the standard defines), and bounded so a large step plans in
  // milliseconds.
  if (best.arenaBytes > lowerBound && n > 1) {
    std::minstd_rand rng(20261122u);
    const size_t tries = std::min<size_t>(1000, 100000 / (n + 1) + 20);
    std::vector<uint32_t> order = bestOrder;
    for (size_t t = 0; t < tries && best.arenaBytes > lowerBound; ++t) {
      size_t from = rng() % n, to = rng() % n;
      if (from == to)
        continue;
      std::vector<uint32_t> trial = order;
      uint32_t moved = trial[from];
      trial.erase(trial.begin() + from);
      trial.insert(trial.begin() + to, moved);
      SlotPlacement tried =
          place(trial, bestFresh, &best, std::min(from, to), best.arenaBytes,
                bestFresh ? std::numeric_limits<size_t>::max()
                          : std::max(from, to) + 1);
      if (tried.arenaBytes <= best.arenaBytes) {
        best = std::move(tried);
        order = std::move(trial);
      }
    }
  }

  return best;
}
