//===- Tiles.cpp - SpMM over a graph that stays in host memory ------------===//
//
// A memory plan may leave prepare's graph, and the edge weights, in host
// memory and have the aggregation read them a tile at a time through a small
// buffer in the device arena (`mem.load_graph_home {tile_bytes}`): the
// device then holds one tile of the view instead of the whole view, which is
// what lets a budget below the graph's size run.
//
// The host side walks the rows (all of them, or one row set's) and packs
// the next run of their slots into the tile: for each slot its source and
// edge id, and its weights when those stay in host memory too, plus one
// piece record per row (part of a row, when the row is longer than what is
// left of the tile; it continues in the next tile). The device side then
// sums the tile's pieces, one thread per piece. A row is summed in slot
// order into a register row that starts at +0.0, or at what the previous
// tile left in the output row, with the same adds and multiplies as
// sumRow (Common.h): the bits of gnnrt_cpu_spmm and gnnrt_cpu_spmm_rows,
// whatever the tile size and the thread count.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "RowSets.h"

#include "gnnrt/Footprint.h"

#include <algorithm>
#include <cstring>

using namespace gnnrt::cpu;

namespace {

/// One row's slots in a tile: slots [first, first + count) of the tile are
/// slots of row `row`. `begins`: the row's first slot is among them (the
/// sum starts at +0.0, else at the output row); `degree`: the row's
/// in-degree when its last slot is among them (a mean divides by it), else
/// -1.
struct Piece {
  int32_t row, first, count, begins, degree;
};

constexpr int64_t kGraphBytesPerSlot =
    static_cast<int64_t>(sizeof(Piece) + 2 * sizeof(int32_t));
static_assert(sizeof(Piece) == gnnrt::footprint::kTilePieceBytes &&
                  kGraphBytesPerSlot ==
                      gnnrt::footprint::kGraphTileBytesPerSlot &&
                  sizeof(float) == gnnrt::footprint::kWeightTileBytesPerSlot,
              "the planner sizes tiles by Footprint.h");

/// The tile's arrays, carved out of the caller's buffers.
struct Tile {
  Piece *pieces;
  int32_t *src, *eid;
  float *weights; // null: the weights are read on the device by edge id
  int64_t numPieces = 0, numSlots = 0;
};

/// Sums the tile's pieces \p begin .. \p end into \p y (width \p Fixed, or
/// \p d when 0), as sumRow does.
template <int64_t Fixed>
GNNRT_VECTOR_CLONES void
sumPieces(const Tile &tile, const float *x, int64_t d, const float *weights,
          int64_t heads, bool mean, const int32_t *level, int64_t skip,
          float *y, int64_t begin, int64_t end) {
  const int64_t width = Fixed > 0 ? Fixed : d;
  const int64_t f = width / heads;
  // A compile-time width sums in registers; a run-time one in the output
  // row itself (the same operations on each element, in the same order).
  float local[Fixed > 0 ? Fixed : 1];
  for (int64_t p = begin; p < end; ++p) {
    const Piece &piece = tile.pieces[p];
    float *yi = y + static_cast<int64_t>(piece.row) * width;
    float *acc = Fixed > 0 ? local : yi;
    if (piece.begins)
      std::fill(acc, acc + width, 0.0f);
    else if (acc != yi)
      std::memcpy(acc, yi, sizeof(float) * width);
    for (int64_t s = piece.first; s < piece.first + piece.count; ++s) {
      const int64_t source = tile.src[s];
      if (level && level[source] > skip)
        continue;
      const float *row = x + source * width;
      const float *w = tile.weights ? tile.weights + s * heads
                       : weights    ? weights + int64_t(tile.eid[s]) * heads
                                    : nullptr;
      if (!w)
        addRow<Fixed>(acc, row, width);
      else if (heads == 1)
        addScaled<Fixed>(acc, row, *w, width);
      else
        for (int64_t k = 0; k < heads; ++k)
          addScaled<0>(acc + k * f, row + k * f, w[k], f);
    }
    if (mean && piece.degree > 0) {
      const float deg = static_cast<float>(piece.degree);
      for (int64_t c = 0; c < width; ++c)
        acc[c] /= deg;
    }
    if (acc != yi)
      std::memcpy(yi, acc, sizeof(float) * width);
  }
}

} // namespace

extern "C" {

int gnnrt_cpu_spmm_tiles(const gnnrt_graph *g, int aggr, const float *x,
                         int64_t d, const float *weights, int64_t weight_heads,
                         const int32_t *row_sets, int64_t hops, int64_t level,
                         int64_t skip, int zero_rest, void *graph_tile,
                         int64_t graph_tile_bytes, void *weights_tile,
                         int64_t weights_tile_bytes, float *y, int64_t *moved) {
  if (int status = checkIn(g))
    return status;
  int64_t nd;
  const int64_t heads = weights ? weight_heads : 1;
  if (int status = kernel::spmmArgs(g, aggr, x, d, weights, heads, y, nd))
    return status;
  GNNRT_CHECK(aggr != GNNRT_AGGR_MAX, GNNRT_ERR_BAD_ARGUMENT);
  GNNRT_CHECK(graph_tile && moved, GNNRT_ERR_NULL_POINTER);
  GNNRT_CHECK(!weights_tile || weights, GNNRT_ERR_BAD_ARGUMENT);
  RowSets sets{};
  if (row_sets) {
    GNNRT_CHECK(heads == 1, GNNRT_ERR_BAD_ARGUMENT);
    if (int status = rowSetArgs(row_sets, g->num_nodes, hops, level, sets))
      return status;
  }
  // Slots per tile: what both buffers hold, at least one.
  int64_t capacity = graph_tile_bytes / kGraphBytesPerSlot;
  if (weights_tile)
    capacity = std::min<int64_t>(
        capacity, weights_tile_bytes / (heads * int64_t(sizeof(float))));
  GNNRT_CHECK(capacity >= 1, GNNRT_ERR_BAD_SIZE);

  Tile tile;
  tile.pieces = static_cast<Piece *>(graph_tile);
  tile.src = reinterpret_cast<int32_t *>(tile.pieces + capacity);
  tile.eid = tile.src + capacity;
  tile.weights = static_cast<float *>(weights_tile);

  const int32_t *indptr = g->in.indptr;
  const int64_t rows = row_sets ? sets.count[level] : g->num_nodes;
  const bool mean = aggr == GNNRT_AGGR_MEAN;
  const int32_t *levels = row_sets && skip <= hops ? sets.level : nullptr;
  int64_t t = 0, done = 0; // the next row of the walk, and its slots done
  int64_t bytes = 0;
  while (t < rows) {
    // Host: pack the next run of slots.
    tile.numPieces = tile.numSlots = 0;
    while (t < rows && tile.numPieces < capacity) {
      const int64_t i = row_sets ? sets.order[t] : t;
      const int64_t first = indptr[i] + done, last = indptr[i + 1];
      const int64_t take = std::min(last - first, capacity - tile.numSlots);
      if (take == 0 && last > first)
        break; // the tile is full
      tile.pieces[tile.numPieces++] = {
          static_cast<int32_t>(i), static_cast<int32_t>(tile.numSlots),
          static_cast<int32_t>(take), done == 0,
          first + take == last ? static_cast<int32_t>(last - indptr[i]) : -1};
      std::memcpy(tile.src + tile.numSlots, g->in.src + first,
                  sizeof(int32_t) * take);
      std::memcpy(tile.eid + tile.numSlots, g->in.edge_id + first,
                  sizeof(int32_t) * take);
      if (tile.weights) {
        // Gathered by edge id: a plain loop, not a memcpy call per slot.
        float *to = tile.weights + tile.numSlots * heads;
        for (int64_t k = 0; k < take; ++k) {
          const float *from =
              weights + int64_t(g->in.edge_id[first + k]) * heads;
          for (int64_t h = 0; h < heads; ++h)
            to[k * heads + h] = from[h];
        }
      }
      tile.numSlots += take;
      if (first + take == last) {
        ++t;
        done = 0;
      } else {
        done += take;
        break; // the row goes on in the next tile
      }
    }
    bytes += static_cast<int64_t>(sizeof(Piece)) * tile.numPieces +
             (2 * int64_t(sizeof(int32_t)) +
              (tile.weights ? heads * int64_t(sizeof(float)) : 0)) *
                 tile.numSlots;
    // Device: sum the pieces; each row is in one piece of a tile.
    [[maybe_unused]] const bool par =
        worthThreads(tile.numSlots + tile.numPieces, d);
    const float *deviceWeights = tile.weights ? nullptr : weights;
    withRowWidth(d, [&](auto fixed) {
      forEachChunk(tile.numPieces, 16, par, [&](int64_t begin, int64_t end) {
        sumPieces<fixed()>(tile, x, d, deviceWeights, heads, mean, levels, skip,
                           y, begin, end);
      });
    });
  }
  if (row_sets && zero_rest)
    zeroOtherRows(sets.level, g->num_nodes, level, d, y);
  *moved += bytes;
  return GNNRT_OK;
}

} // extern "C"
