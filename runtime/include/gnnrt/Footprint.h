//===- Footprint.h - What a session holds on the device ---------*- C++ -*-===//
//
// A training session keeps some bytes on the device whatever the memory plan
// decides: the bound graph, @M.prepare's values, the inputs, two copies of
// the parameters and optimizer state, and the loss. The session
// allocates them (Session::bind) and the memory planner subtracts them from
// the budget before it plans the step (gnn-plan-memory); both sum them here,
// so the planned and the measured device peaks cannot drift apart.
//
// Every buffer is one arena allocation, rounded up to the arena's 64 bytes.
// Plain C++17, header only: the compiler uses it without the runtime
// libraries.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_FOOTPRINT_H
#define GNNRT_FOOTPRINT_H

#include "gnnrt/Kernels.h"

#include <cstdint>

namespace gnnrt::footprint {

/// \p bytes as one arena allocation takes them.
inline uint64_t align64(uint64_t bytes) { return (bytes + 63) / 64 * 64; }

/// What a gat_conv's aggregation by its attention needs on the device at
/// once with its heads together: the [E, heads] attention (\p edges counts
/// the self loops), the projected features [N, \p width] and a result as
/// wide, \p elt bytes an element. Below it split-heads=auto runs the heads
/// one by one (gnn-decompose), Sema's lower bound counts the split layer,
/// and the driver need not retry a failed plan head by head.
inline uint64_t gatWholeAggregationBytes(uint64_t edges, uint64_t nodes,
                                         uint64_t heads, uint64_t width,
                                         uint64_t elt) {
  return (edges * heads + 2 * nodes * width) * elt;
}

/// The graph's CSR and CSC views: indptr [N + 1], and source and edge id
/// [E] each, int32.
inline uint64_t graphBytes(uint64_t nodes, uint64_t edges) {
  return 2 * (align64(4 * (nodes + 1)) + 2 * align64(4 * edges));
}

/// The features as the functions take them: dense f32 when \p dense, the
/// gnnrt_csr_matrix buffer when \p csrNnz >= 0, possibly both.
inline uint64_t featureBytes(uint64_t nodes, uint64_t features, bool dense,
                             int64_t csrNnz) {
  uint64_t bytes = 0;
  if (dense)
    bytes += align64(4 * nodes * features);
  if (csrNnz >= 0)
    bytes += align64(static_cast<uint64_t>(gnnrt_csr_matrix_bytes(
        static_cast<int64_t>(nodes), static_cast<int64_t>(features), csrNnz)));
  return bytes;
}

/// The roles of the inputs besides the features: the labels, then the
/// train, val and test masks.
inline constexpr const char *kLabelAndMaskRoles[] = {"labels", "train_mask",
                                                     "val_mask", "test_mask"};

/// The int32 labels.
inline uint64_t labelBytes(uint64_t nodes) { return align64(4 * nodes); }

/// One byte mask (train, val or test). The session puts the labels and a
/// mask on the device only when a function takes them: the metrics read
/// host copies, so the validation and test masks, which no compiled
/// function reads, never take device bytes.
inline uint64_t maskBytes(uint64_t nodes) { return align64(nodes); }

/// One f32 parameter or optimizer state of \p elements: two copies, the one
/// a step reads and the one it writes.
inline uint64_t stateBytes(uint64_t elements) {
  return 2 * align64(4 * elements);
}

/// One f32 tensor @M.prepare returns.
inline uint64_t preparedTensorBytes(uint64_t elements) {
  return align64(4 * elements);
}

/// The loss: one f32 the step writes.
inline uint64_t outputBytes() { return align64(4); }

/// Where in the shared workspace @M.predict leaves the logits it returns:
/// inside its arena of \p arena bytes at \p inArena when it computes them
/// there (GNNRT_VALUE_IN_ARENA, the offset its table gives), else (\p
/// inArena < 0: a table that writes results[0]) right after the arena.
inline uint64_t logitsOffset(uint64_t arena, int64_t inArena) {
  return inArena >= 0 ? static_cast<uint64_t>(inArena) : align64(arena);
}

/// What @M.predict needs of the shared workspace: its arena (\p arena
/// bytes), which holds the logits [N, C] it returns when \p logitsInArena
/// (GNNRT_VALUE_IN_ARENA), else the arena and the logits after it. Only
/// predict writes the logits and only the host reads them, right after
/// predict returns and before the next step, so they need no place of their
/// own while the step runs.
inline uint64_t predictWorkspace(uint64_t arena, uint64_t nodes,
                                 uint64_t classes, bool logitsInArena) {
  return logitsInArena ? arena
                       : logitsOffset(arena, -1) + align64(4 * nodes * classes);
}

/// The device peak of the session's own allocations, in the order
/// Session::bind makes them: @M.prepare's arena and tensors (\p prepared)
/// first, then the graph's two views (\p graph), then everything else
/// (\p rest: inputs, state, outputs, the shared workspace). When no
/// function but prepare reads the graph (GNNRT_VALUE_UNUSED on every other
/// graph argument), the session frees it once prepare has run and the rest
/// reuses its place, so the peak is the larger of the two phases.
inline uint64_t sessionPeak(uint64_t prepared, uint64_t graph, uint64_t rest,
                            bool graphReleased) {
  return prepared +
         (graphReleased ? (graph > rest ? graph : rest) : graph + rest);
}

/// gnnrt_cpu_spmm_tiles: a piece record (five int32, one per row in a
/// tile, at most one per slot); a graph tile's bytes per slot (a piece
/// record, a source and an edge id); a weights tile's per slot and head.
constexpr uint64_t kTilePieceBytes = 20;
constexpr uint64_t kGraphTileBytesPerSlot = kTilePieceBytes + 8;
constexpr uint64_t kWeightTileBytesPerSlot = 4;

/// gnnrt_cpu_csr_matmul_tiles: a tile's bytes per slot of the CSR matrix (a
/// piece record, the slot's other index and its value, int32 and f32).
constexpr uint64_t kCsrTileBytesPerSlot = kTilePieceBytes + 8;

/// gnnrt_cpu_matmul_tiles: the device tile through which a product reads a
/// dense left operand of \p rowBytes-byte rows from host memory: 1 MiB, or
/// 16 rows where rows are wider than 64 KiB. The kernels' units of rows (a
/// block of output rows, a chunk of the contraction) take at most 256 KiB
/// or 16 rows, so a tile holds at least one whole unit.
inline uint64_t denseTileBytes(uint64_t rowBytes) {
  const uint64_t bytes = uint64_t(1) << 20;
  return align64(bytes > 16 * rowBytes ? bytes : 16 * rowBytes);
}

/// The slots a plan's tiles hold for a graph of \p edges edges: a 64th of
/// them (about 64 tiles per aggregation, so the per-tile cost stays small
/// beside the copy), at least 4096 and at most 2^20.
inline uint64_t tileSlots(uint64_t edges) {
  uint64_t slots = (edges + 63) / 64;
  return slots<4096 ? 4096 : slots>(uint64_t(1) << 20) ? uint64_t(1) << 20
                                                       : slots;
}

} // namespace gnnrt::footprint

#endif // GNNRT_FOOTPRINT_H
