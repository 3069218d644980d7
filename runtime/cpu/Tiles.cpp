//===- Tiles.cpp - Sparse products over operands left in host memory ------===//
//
// A memory plan may leave prepare's graph, and the edge weights, in host
// memory and have the aggregation read them a tile at a time through a small
// buffer in the device arena (`mem.load_graph_home {tile_bytes}`): the
// device then holds one tile of the view instead of the whole view, which is
// what lets a budget below the graph's size run. A CSR feature matrix's
// products with a dense matrix read it the same way
// (gnnrt_cpu_csr_matmul_tiles).
//
// The tile buffer is cut into one section per thread, and the output rows
// (all of them, or one row set's) into runs that the threads take in turn.
// A thread walks its run and packs the next slots of its rows into its
// section: for each slot what the device reads of it (a graph slot's source
// and edge id, and its weights when those stay in host memory too; a CSR
// slot's other index and value), plus one piece record per row (part of a
// row, when the row is longer than what is left of the section; it
// continues in the next one). Then it sums the section's pieces and packs
// the next. The threads share nothing but the output, whose rows each
// belong to one run, so a tile costs no fork, join or barrier: with tiles
// of a few thousand slots those were most of the cost of a small budget.
// A row is summed in slot order into a register row that starts at +0.0,
// or at what the previous tile left in the output row, with the same adds
// and multiplies as sumRow (Common.h) and productRow (CsrMatrix.h): the
// bits of gnnrt_cpu_spmm and gnnrt_cpu_spmm_rows, gnnrt_cpu_csr_matmul and
// gnnrt_cpu_csr_matmul_rows, whatever the tile size and the thread count.
// (productRow may skip the slots whose value is +-0.0 when b is finite;
// each such product is +-0.0, which the sum absorbs, so adding every slot
// gives the same bits.) The pieces, and so the bytes copied, depend on
// where the runs and sections end, and so on the thread count.
//
// The edge kernels read the graph the same way: SDDMM and the edge add a
// slot at a time (each slot's output its own, so any cut keeps the bits),
// the soft-max and its gradient a whole row at a time (its normalisation
// reads all of it; a row longer than the tile is read through it once per
// pass), the scatter as SpMM sums, by edge id. With row sets they walk the
// set's order instead of every row, so only the slots of R_level's rows are
// copied and only their outputs written, with their `_rows` kernels' bits.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "CsrMatrix.h"
#include "RowSets.h"

#include "gnnrt/Footprint.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace gnnrt::cpu;

namespace {

/// The checks the row-restricted tiled kernels make after their whole
/// kernels' own: a tile and a byte count to add to, and the row sets over
/// \p g's nodes.
int tiledRowSetArgs(const gnnrt_graph *g, const int32_t *rowSets, int64_t hops,
                    int64_t level, const void *graphTile, const int64_t *moved,
                    RowSets &sets) {
  GNNRT_CHECK(graphTile && moved, GNNRT_ERR_NULL_POINTER);
  return rowSetArgs(rowSets, g->num_nodes, hops, level, sets);
}

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
constexpr int64_t kCsrBytesPerSlot =
    static_cast<int64_t>(sizeof(Piece) + sizeof(int32_t) + sizeof(float));
static_assert(sizeof(Piece) == gnnrt::footprint::kTilePieceBytes &&
                  kGraphBytesPerSlot ==
                      gnnrt::footprint::kGraphTileBytesPerSlot &&
                  sizeof(float) == gnnrt::footprint::kWeightTileBytesPerSlot &&
                  kCsrBytesPerSlot == gnnrt::footprint::kCsrTileBytesPerSlot,
              "the planner sizes tiles by Footprint.h");

/// The tile's arrays, carved out of the caller's buffers: the whole
/// buffer's, or one thread's section of them.
struct Tile {
  Piece *pieces;
  /// Per slot, the row of the dense operand it reads: an edge's source, or
  /// a CSR slot's other index (its column for `a b`, its row for `a^T b`);
  /// the scatter's other end, whose level says whether the slot is skipped
  /// (the scatter reads x by edge id).
  int32_t *src;
  int32_t *eid;   // a graph slot's edge id; null for a CSR product
  float *weights; // SpMM's weights when tiled, a CSR slot's value; null:
                  // SpMM's weights are read on the device by edge id
  int64_t numPieces = 0, numSlots = 0;

  /// Section \p k of \p slots slots (and piece records) each; \p heads
  /// weights per slot.
  Tile section(int64_t k, int64_t slots, int64_t heads) const {
    Tile t;
    t.pieces = pieces + k * slots;
    t.src = src + k * slots;
    t.eid = eid ? eid + k * slots : nullptr;
    t.weights = weights ? weights + k * slots * heads : nullptr;
    return t;
  }
};

/// Sums the tile's pieces into \p y (width \p Fixed, or \p d when 0), as
/// sumRow does; a CSR product's as productRow does, its values being
/// weights tiled with one head. \p ByEdge: the rows of \p x are read by
/// the slots' edge ids rather than their sources, as scatterRow (Sparse.cpp)
/// sums them (x is `[E, d]`; no weights). With \p level, the slots whose
/// source (the scatter's other end) has a level above \p skip are left out.
template <int64_t Fixed, bool ByEdge = false>
GNNRT_VECTOR_CLONES void sumPieces(const Tile &tile, const float *x, int64_t d,
                                   const float *weights, int64_t heads,
                                   bool mean, const Level *level, int64_t skip,
                                   float *y) {
  const int64_t width = Fixed > 0 ? Fixed : d;
  const int64_t f = width / heads;
  // A compile-time width sums in registers; a run-time one in the output
  // row itself (the same operations on each element, in the same order).
  float local[Fixed > 0 ? Fixed : 1];
  for (int64_t p = 0; p < tile.numPieces; ++p) {
    const Piece &piece = tile.pieces[p];
    float *yi = y + static_cast<int64_t>(piece.row) * width;
    float *acc = Fixed > 0 ? local : yi;
    if (piece.begins)
      std::fill(acc, acc + width, 0.0f);
    else if (acc != yi)
      std::memcpy(acc, yi, sizeof(float) * width);
    for (int64_t s = piece.first; s < piece.first + piece.count; ++s) {
      if (level && level[tile.src[s]] > skip)
        continue;
      const int64_t at = ByEdge ? tile.eid[s] : tile.src[s];
      const float *row = x + at * width;
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

/// Where a packing function of packTiles stopped: at slot `end` of the row
/// (the row's end when it is done), having taken `slots` slots.
struct Packed {
  int64_t end, slots;
};

/// Packs the slots of the rows `rowAt(t)`, t in [\p begin, \p end), in
/// order, into \p tile (\p capacity slots and piece records) one tile after
/// another, and calls `sum(tile)` on each. Row i's slots are
/// [offsets[i], offsets[i + 1]); `pack(tile, first, last, room)` copies up
/// to `room` of the slots [first, last) to the tile's slots from numSlots on
/// and says where it stopped, before `last` only when the tile is full. A
/// row gets a piece in every tile that holds part of it (a row longer than
/// what is left of the tile goes on in the next one), and one even when it
/// has no slots, so that its output row is written. Adds the pieces and
/// slots packed to \p pieces and \p slots.
template <typename RowAt, typename Pack, typename Sum>
void packTiles(Tile &tile, int64_t capacity, int64_t begin, int64_t end,
               const int32_t *offsets, RowAt &rowAt, Pack &pack, Sum &sum,
               int64_t &pieces, int64_t &slots) {
  int64_t t = begin, next = 0; // the next row of the walk, and its next slot
  bool goesOn = false;         // when it goes on from the previous tile
  while (t < end) {
    tile.numPieces = tile.numSlots = 0;
    while (t < end && tile.numPieces < capacity) {
      const int64_t i = rowAt(t);
      const int64_t first = goesOn ? next : offsets[i], last = offsets[i + 1];
      const int64_t room = capacity - tile.numSlots;
      if (room == 0 && last > first)
        break; // the tile is full
      const Packed packed = pack(tile, first, last, room);
      const bool ends = packed.end == last;
      tile.pieces[tile.numPieces++] = {
          static_cast<int32_t>(i), static_cast<int32_t>(tile.numSlots),
          static_cast<int32_t>(packed.slots), !goesOn,
          ends ? static_cast<int32_t>(last - offsets[i]) : -1};
      tile.numSlots += packed.slots;
      goesOn = !ends;
      if (goesOn) {
        next = packed.end;
        break; // the row goes on in the next tile
      }
      ++t;
    }
    pieces += tile.numPieces;
    slots += tile.numSlots;
    sum(tile);
  }
}

/// Runs of rows per thread: enough that a thread that draws the long rows
/// does not hold the others back, few enough that the tile each run leaves
/// part empty costs nothing.
constexpr int64_t kRunsPerThread = 8;

/// Runs `walk(section, sectionSlots, begin, end, pieces, slots)` over the
/// rows t in [0, \p count) on the threads: \p tile's arrays (\p capacity
/// slots, \p heads weights per slot) cut into one section per thread, the
/// rows into runs that the threads take in turn, each through its own
/// section; on the calling thread alone unless \p par. `walk` adds what it
/// copied to `pieces` and `slots`.
template <typename Walk>
void walkOnThreads(const Tile &tile, int64_t capacity, int64_t heads,
                   int64_t count, bool par, Walk walk, int64_t &pieces,
                   int64_t &slots) {
  int64_t threads = 1;
#ifdef _OPENMP
  if (par)
    threads = std::min<int64_t>({omp_get_max_threads(), capacity, count});
#endif
  threads = std::max<int64_t>(threads, 1);
  const int64_t sectionSlots = capacity / threads;
  const int64_t runs = threads == 1 ? 1 : threads * kRunsPerThread;
  int64_t runPieces = 0, runSlots = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)             \
    reduction(+ : runPieces, runSlots) if (threads > 1)
  for (int64_t r = 0; r < runs; ++r) {
    int64_t k = 0;
#ifdef _OPENMP
    k = omp_get_thread_num();
#endif
    Tile section = tile.section(k, sectionSlots, heads);
    walk(section, sectionSlots, count * r / runs, count * (r + 1) / runs,
         runPieces, runSlots);
  }
  pieces += runPieces;
  slots += runSlots;
}

/// packTiles over the rows t in [0, \p count) on the threads
/// (walkOnThreads).
template <typename RowAt, typename Pack, typename Sum>
void packTilesOnThreads(const Tile &tile, int64_t capacity, int64_t heads,
                        int64_t count, const int32_t *offsets, RowAt rowAt,
                        Pack pack, Sum sum, bool par, int64_t &pieces,
                        int64_t &slots) {
  walkOnThreads(
      tile, capacity, heads, count, par,
      [&](Tile &section, int64_t sectionSlots, int64_t begin, int64_t end,
          int64_t &runPieces, int64_t &runSlots) {
        packTiles(section, sectionSlots, begin, end, offsets, rowAt, pack, sum,
                  runPieces, runSlots);
      },
      pieces, slots);
}

/// The tile's arrays in \p buffer of \p capacity slots and piece records:
/// the pieces, then the sources, then the edge ids (gnnrt_cpu_spmm_tiles's
/// layout, which the planner sizes at kGraphBytesPerSlot a slot).
Tile graphTile(void *buffer, int64_t capacity) {
  Tile tile;
  tile.pieces = static_cast<Piece *>(buffer);
  tile.src = reinterpret_cast<int32_t *>(tile.pieces + capacity);
  tile.eid = tile.src + capacity;
  tile.weights = nullptr;
  return tile;
}

/// Runs `pass(ids, count)` over the edge ids of the slots [\p first, \p
/// first + \p count) of a row longer than \p tile (\p capacity slots), in
/// slot order: copied into the tile's edge ids a tile at a time. Returns
/// the ids copied.
template <typename Pass>
int64_t streamRow(const Tile &tile, int64_t capacity, const int32_t *eid,
                  int64_t first, int64_t count, Pass pass) {
  for (int64_t at = 0; at < count; at += capacity) {
    const int64_t take = std::min(capacity, count - at);
    copyInts(tile.eid, eid + first + at, take);
    pass(tile.eid, take);
  }
  return count;
}

/// Packs the edge ids of whole rows `rowAt(t)`, t in [\p begin, \p end),
/// of \p view, row after row, into \p tile (\p capacity slots and piece
/// records), and calls `row(ids, count)` on each row of a tile once the
/// tile is full: a row-wise operation over a row's edges (the soft-max's)
/// needs all of them at once. A row longer than the whole tile goes to
/// `longRow(first, count)`, which reads it in parts (streamRow) and returns the
/// ids it copied. Rows without edges are skipped. Adds the pieces and ids
/// copied to \p pieces and \p slots.
template <typename RowAt, typename Row, typename LongRow>
void packWholeRows(Tile &tile, int64_t capacity, int64_t begin, int64_t end,
                   const gnnrt_csr &view, RowAt &rowAt, Row &row,
                   LongRow &longRow, int64_t &pieces, int64_t &slots) {
  tile.numPieces = tile.numSlots = 0;
  auto flush = [&] {
    for (int64_t p = 0; p < tile.numPieces; ++p) {
      const Piece &piece = tile.pieces[p];
      row(tile.eid + piece.first, int64_t(piece.count));
    }
    pieces += tile.numPieces;
    slots += tile.numSlots;
    tile.numPieces = tile.numSlots = 0;
  };
  for (int64_t t = begin; t < end; ++t) {
    const int64_t i = rowAt(t);
    const int64_t first = view.indptr[i], count = view.indptr[i + 1] - first;
    if (count == 0)
      continue;
    if (count > capacity) {
      flush();
      slots += longRow(first, count);
      continue;
    }
    if (tile.numSlots + count > capacity || tile.numPieces == capacity)
      flush();
    copyInts(tile.eid + tile.numSlots, view.edge_id + first, count);
    tile.pieces[tile.numPieces++] = {
        static_cast<int32_t>(i), static_cast<int32_t>(tile.numSlots),
        static_cast<int32_t>(count), 1, static_cast<int32_t>(count)};
    tile.numSlots += count;
  }
  flush();
}

/// Runs `rowOps(forEachPass, work)` for every row of \p g's in view, or
/// every row of R_level when \p sets is not null, through \p buffer's
/// tiles on the threads (whole rows: packWholeRows), where
/// `forEachPass(pass)` runs `pass(ids, count)` over the row's edge ids, in
/// slot order: once over the tile's copy, or over the row in parts for a
/// row longer than the tile. `work` is \p scratchFloats floats of scratch,
/// one block per run. Adds what the tiles copied to *\p moved: a piece
/// record per row that fits a tile, an edge id per slot (per pass for the
/// longer rows).
template <typename RowOps>
int wholeRowsOnThreads(const gnnrt_graph *g, const RowSets *sets, int64_t level,
                       void *buffer, int64_t bytes, int64_t width,
                       int64_t scratchFloats, RowOps rowOps, int64_t *moved) {
  const int64_t capacity = bytes / kGraphBytesPerSlot;
  GNNRT_CHECK(capacity >= 1, GNNRT_ERR_BAD_SIZE);
  Tile tile = graphTile(buffer, capacity);
  const int64_t rows = sets ? sets->count[level] : g->num_nodes;
  const int64_t slotsRead =
      sets ? slotsOfRows(g->in.indptr, sets->order, rows) : g->num_edges;
  auto rowAt = [&](int64_t t) {
    return sets ? static_cast<int64_t>(sets->order[t]) : t;
  };
  int64_t pieces = 0, ids = 0;
  bool failed = false;
  walkOnThreads(
      tile, capacity, 1, rows, worthThreads(slotsRead + rows, width),
      [&](Tile &section, int64_t sectionSlots, int64_t begin, int64_t end,
          int64_t &runPieces, int64_t &runIds) {
        std::unique_ptr<float[]> scratchBlock = scratch<float>(scratchFloats);
        if (!scratchBlock) {
#pragma omp atomic write
          failed = true;
          return;
        }
        float *work = scratchBlock.get();
        auto row = [&](const int32_t *rowIds, int64_t count) {
          rowOps([&](auto pass) { pass(rowIds, count); }, work);
        };
        auto longRow = [&](int64_t first, int64_t count) {
          int64_t streamed = 0;
          rowOps(
              [&](auto pass) {
                streamed += streamRow(section, sectionSlots, g->in.edge_id,
                                      first, count, pass);
              },
              work);
          return streamed;
        };
        packWholeRows(section, sectionSlots, begin, end, g->in, rowAt, row,
                      longRow, runPieces, runIds);
      },
      pieces, ids);
  if (failed)
    return GNNRT_ERR_OUT_OF_MEMORY;
  *moved += static_cast<int64_t>(sizeof(Piece)) * pieces +
            static_cast<int64_t>(sizeof(int32_t)) * ids;
  return GNNRT_OK;
}

/// Runs `slot(row, source, edge)` for every slot of the rows of \p g's in
/// view, or of the rows of R_level when \p sets is not null, through \p
/// buffer's tiles on the threads (packTilesOnThreads: a piece record per
/// row, the source and edge id per slot; a row longer than what is left of
/// a tile goes on in the next one). For the edge kernels whose every slot
/// is a computation of its own (SDDMM, the edge add), which any cut of the
/// rows keeps to the bit. \p width: the floats a slot reads, for
/// worthThreads. Adds what the tiles copied to *\p moved.
template <typename SlotFn>
int slotsOnTiles(const gnnrt_graph *g, const RowSets *sets, int64_t level,
                 void *buffer, int64_t bytes, int64_t width, SlotFn slot,
                 int64_t *moved) {
  const int64_t capacity = bytes / kGraphBytesPerSlot;
  GNNRT_CHECK(capacity >= 1, GNNRT_ERR_BAD_SIZE);
  Tile tile = graphTile(buffer, capacity);
  const gnnrt_csr &in = g->in;
  const int64_t rows = sets ? sets->count[level] : g->num_nodes;
  const int64_t slotsRead =
      sets ? slotsOfRows(in.indptr, sets->order, rows) : g->num_edges;
  auto pack = [&](Tile &t, int64_t first, int64_t last, int64_t room) {
    const int64_t take = std::min(last - first, room), at = t.numSlots;
    copyInts(t.src + at, in.src + first, take);
    copyInts(t.eid + at, in.edge_id + first, take);
    return Packed{first + take, take};
  };
  auto visit = [&](const Tile &t) {
    for (int64_t p = 0; p < t.numPieces; ++p) {
      const Piece &piece = t.pieces[p];
      for (int64_t s = piece.first; s < piece.first + piece.count; ++s)
        slot(static_cast<int64_t>(piece.row), static_cast<int64_t>(t.src[s]),
             static_cast<int64_t>(t.eid[s]));
    }
  };
  int64_t pieces = 0, slots = 0;
  packTilesOnThreads(
      tile, capacity, 1, rows, in.indptr,
      [&](int64_t t) {
        return sets ? static_cast<int64_t>(sets->order[t]) : t;
      },
      pack, visit, worthThreads(slotsRead + rows, width), pieces, slots);
  *moved += static_cast<int64_t>(sizeof(Piece)) * pieces +
            2 * static_cast<int64_t>(sizeof(int32_t)) * slots;
  return GNNRT_OK;
}

/// gnnrt_cpu_edge_softmax_tiles at every row (\p sets null) or at the rows
/// of R_level, once the caller has checked its arguments.
int softmaxOnTiles(const gnnrt_graph *g, const float *x, int64_t heads,
                   const RowSets *sets, int64_t level, void *buffer,
                   int64_t bytes, float *y, int64_t *moved) {
  // gnnrt_cpu_edge_softmax's operations on each head, in its order
  // (softmaxRow, Sparse.cpp): the maximum, then the exponentials and their
  // sum in kEdgeLanes lanes (the row's j-th slot in lane j % kEdgeLanes,
  // across the pieces a long row comes in), then the quotients, each over
  // the row's slots in order. The heads go side by side (a row's slots are
  // read once per pass, not once per head and pass), which changes no
  // head's sequence of operations. Each x[e, k] is read before y[e, k] is
  // written, which is what allows y == x.
  constexpr int64_t kLanes = kernel::kEdgeLanes;
  auto rowOps = [&](auto forEachPass, float *work) {
    float *m = work, *lanes = work + heads; // lanes[k * kLanes + lane]
    std::fill(m, m + heads, -std::numeric_limits<float>::infinity());
    std::fill(lanes, lanes + heads * kLanes, 0.0f);
    forEachPass([&](const int32_t *ids, int64_t count) {
      for (int64_t s = 0; s < count; ++s)
        for (int64_t k = 0; k < heads; ++k) {
          const float v = x[static_cast<int64_t>(ids[s]) * heads + k];
          m[k] = m[k] < v ? v : m[k];
        }
    });
    int64_t slot = 0; // the row's slots so far, over its pieces
    forEachPass([&](const int32_t *ids, int64_t count) {
      for (int64_t s = 0; s < count; ++s, ++slot)
        for (int64_t k = 0; k < heads; ++k) {
          const int64_t p = static_cast<int64_t>(ids[s]) * heads + k;
          const float ev = std::exp(x[p] - m[k]);
          y[p] = ev;
          lanes[k * kLanes + slot % kLanes] += ev;
        }
    });
    for (int64_t k = 0; k < heads; ++k)
      m[k] = kernel::laneButterflySum(lanes + k * kLanes); // now the sums
    forEachPass([&](const int32_t *ids, int64_t count) {
      for (int64_t s = 0; s < count; ++s)
        for (int64_t k = 0; k < heads; ++k)
          y[static_cast<int64_t>(ids[s]) * heads + k] /= m[k];
    });
  };
  return wholeRowsOnThreads(g, sets, level, buffer, bytes, heads,
                            heads + heads * kLanes, rowOps, moved);
}

/// gnnrt_cpu_edge_softmax_grad_tiles at every row (\p sets null) or at the
/// rows of R_level, once the caller has checked its arguments.
int softmaxGradOnTiles(const gnnrt_graph *g, const float *y, const float *dy,
                       int64_t heads, const RowSets *sets, int64_t level,
                       void *buffer, int64_t bytes, float *dx, int64_t *moved) {
  // gnnrt_cpu_edge_softmax_grad's operations on each head, in its order
  // (softmaxGradRow; the heads side by side, as in softmaxOnTiles): the sum
  // of y dy over the row in kEdgeLanes lanes, then each slot's y (dy -
  // sum). Each slot's y and dy are read before its dx is written (dx == y
  // or dx == dy).
  constexpr int64_t kLanes = kernel::kEdgeLanes;
  auto rowOps = [&](auto forEachPass, float *work) {
    float *total = work, *lanes = work + heads;
    std::fill(lanes, lanes + heads * kLanes, 0.0f);
    int64_t slot = 0; // the row's slots so far, over its pieces
    forEachPass([&](const int32_t *ids, int64_t count) {
      for (int64_t s = 0; s < count; ++s, ++slot)
        for (int64_t k = 0; k < heads; ++k) {
          const int64_t p = static_cast<int64_t>(ids[s]) * heads + k;
          lanes[k * kLanes + slot % kLanes] += y[p] * dy[p];
        }
    });
    for (int64_t k = 0; k < heads; ++k)
      total[k] = kernel::laneButterflySum(lanes + k * kLanes);
    forEachPass([&](const int32_t *ids, int64_t count) {
      for (int64_t s = 0; s < count; ++s)
        for (int64_t k = 0; k < heads; ++k) {
          const int64_t p = static_cast<int64_t>(ids[s]) * heads + k;
          dx[p] = y[p] * (dy[p] - total[k]);
        }
    });
  };
  return wholeRowsOnThreads(g, sets, level, buffer, bytes, heads,
                            heads + heads * kLanes, rowOps, moved);
}

} // namespace

extern "C" {

int gnnrt_cpu_spmm_tiles(const gnnrt_graph *g, int aggr, const float *x,
                         int64_t d, const float *weights, int64_t weight_heads,
                         const int32_t *row_sets, int64_t hops, int64_t level,
                         int64_t skip, int zero_rest, void *graph_tile,
                         int64_t graph_tile_bytes, void *weights_tile,
                         int64_t weights_tile_bytes, float *y, int64_t *moved) {
  int64_t nd;
  const int64_t heads = weights ? weight_heads : 1;
  if (int status = spmmKernelArgs(g, aggr, x, d, weights, heads, y, nd))
    return status;
  GNNRT_CHECK(aggr != GNNRT_AGGR_MAX, GNNRT_ERR_BAD_ARGUMENT);
  GNNRT_CHECK(graph_tile && moved, GNNRT_ERR_NULL_POINTER);
  GNNRT_CHECK(!weights_tile || weights, GNNRT_ERR_BAD_ARGUMENT);
  RowSets sets{};
  if (row_sets) {
    if (int status = rowSetArgs(row_sets, g->num_nodes, hops, level, sets))
      return status;
  }
  // Slots per tile: what both buffers hold, at least one.
  int64_t capacity = graph_tile_bytes / kGraphBytesPerSlot;
  if (weights_tile)
    capacity = std::min<int64_t>(
        capacity, weights_tile_bytes / (heads * int64_t(sizeof(float))));
  GNNRT_CHECK(capacity >= 1, GNNRT_ERR_BAD_SIZE);

  Tile tile = graphTile(graph_tile, capacity);
  tile.weights = static_cast<float *>(weights_tile);

  const int64_t rows = row_sets ? sets.count[level] : g->num_nodes;
  const bool mean = aggr == GNNRT_AGGR_MEAN;
  const Level *levels = row_sets && skip <= hops ? sets.level : nullptr;
  const float *deviceWeights = tile.weights ? nullptr : weights;
  int64_t pieces = 0, slots = 0;
  auto pack = [&](Tile &t, int64_t first, int64_t last, int64_t room) {
    const int64_t take = std::min(last - first, room), at = t.numSlots;
    copyInts(t.src + at, g->in.src + first, take);
    copyInts(t.eid + at, g->in.edge_id + first, take);
    if (t.weights) {
      // Gathered by edge id: a plain loop, not a memcpy call per slot.
      float *to = t.weights + at * heads;
      for (int64_t k = 0; k < take; ++k) {
        const float *from = weights + int64_t(g->in.edge_id[first + k]) * heads;
        for (int64_t h = 0; h < heads; ++h)
          to[k * heads + h] = from[h];
      }
    }
    return Packed{first + take, take};
  };
  auto sum = [&](const Tile &t) {
    withRowWidth(d, [&](auto fixed) {
      sumPieces<fixed()>(t, x, d, deviceWeights, heads, mean, levels, skip, y);
    });
  };
  packTilesOnThreads(
      tile, capacity, heads, rows, g->in.indptr,
      [&](int64_t t) { return row_sets ? int64_t(sets.order[t]) : t; }, pack,
      sum, worthThreads(g->num_edges + rows, d), pieces, slots);
  if (row_sets && zero_rest)
    zeroOtherRows(sets.level, g->num_nodes, level, d, y);
  *moved += static_cast<int64_t>(sizeof(Piece)) * pieces +
            (2 * int64_t(sizeof(int32_t)) +
             (tile.weights ? heads * int64_t(sizeof(float)) : 0)) *
                slots;
  return GNNRT_OK;
}

int gnnrt_cpu_csr_matmul_tiles(const void *a, int64_t rows, int64_t cols,
                               int64_t nnz, int transpose_a, const float *b,
                               int64_t n, const int32_t *row_sets, int64_t hops,
                               int64_t level, int zero_rest, void *tile,
                               int64_t tile_bytes, float *c, int64_t *moved) {
  int64_t cSize;
  if (int status = kernel::csrMatmulArgs(a, rows, cols, nnz, transpose_a, b, n,
                                         c, cSize))
    return status;
  GNNRT_CHECK(tile && moved, GNNRT_ERR_NULL_POINTER);
  gnnrt_csr_matrix m;
  RowSets sets{};
  if (row_sets) {
    if (int status =
            csrRowSetArgs(a, rows, cols, nnz, row_sets, hops, level, m, sets))
      return status;
  } else {
    m = constView(a, rows, cols, nnz);
    if (int status = checkOffsets(m))
      return status;
  }
  const int64_t capacity = tile_bytes / kCsrBytesPerSlot;
  GNNRT_CHECK(capacity >= 1, GNNRT_ERR_BAD_SIZE);
  if (cSize == 0)
    return GNNRT_OK;

  Tile whole;
  whole.pieces = static_cast<Piece *>(tile);
  whole.src = reinterpret_cast<int32_t *>(whole.pieces + capacity);
  whole.eid = nullptr;
  whole.weights = reinterpret_cast<float *>(whole.src + capacity);

  const bool transpose = transpose_a != 0;
  // `a^T b` with row sets leaves out the slots of the rows of a outside
  // R_level, as gnnrt_cpu_csr_matmul_rows does: when packing, so that the
  // tiles do not carry them.
  const Level *levels = transpose && row_sets ? sets.level : nullptr;
  auto pack = [&](Tile &t, int64_t first, int64_t last, int64_t room) {
    const int64_t at = t.numSlots;
    if (!transpose) {
      const int64_t take = std::min(last - first, room);
      copyInts(t.src + at, m.indices + first, take);
      if (take > 0)
        std::memcpy(t.weights + at, m.values + first,
                    static_cast<size_t>(take) * sizeof(float));
      return Packed{first + take, take};
    }
    // The CSC slots, their values gathered by CSR slot. A left-out slot is
    // written where the next kept one goes rather than branched around: a
    // filter that keeps about half the slots would mispredict half the time.
    const int32_t *rowidx = m.rowidx, *perm = m.perm;
    int64_t s = first, k = at;
    for (const int64_t full = at + room; s < last && k < full; ++s) {
      t.src[k] = rowidx[s];
      t.weights[k] = m.values[perm[s]];
      k += !levels || levels[rowidx[s]] <= level;
    }
    // Past the left-out slots that follow, so that a column whose last kept
    // slot fills the tile ends in it rather than in an empty piece.
    while (levels && s < last && levels[rowidx[s]] > level)
      ++s;
    return Packed{s, k - at};
  };
  auto sum = [&](const Tile &t) {
    withRowWidth(n, [&](auto fixed) {
      sumPieces<fixed()>(t, b, n, nullptr, 1, false, nullptr, 0, c);
    });
  };
  int64_t pieces = 0, slots = 0;
  // Every column of a is an output row of `a^T b`, read through the CSC
  // sections; `a b` reads the rows of a, or a row set's.
  const int64_t count = transpose  ? cols
                        : row_sets ? int64_t(sets.count[level])
                                   : rows;
  const bool par = worthThreads(nnz + count, n);
  if (transpose)
    packTilesOnThreads(
        whole, capacity, 1, count, m.colptr, [](int64_t j) { return j; }, pack,
        sum, par, pieces, slots);
  else if (row_sets)
    packTilesOnThreads(
        whole, capacity, 1, count, m.indptr,
        [&](int64_t k) { return int64_t(sets.order[k]); }, pack, sum, par,
        pieces, slots);
  else
    packTilesOnThreads(
        whole, capacity, 1, count, m.indptr, [](int64_t i) { return i; }, pack,
        sum, par, pieces, slots);
  if (row_sets && zero_rest && !transpose)
    zeroOtherRows(sets.level, rows, level, n, c);
  *moved += static_cast<int64_t>(sizeof(Piece)) * pieces +
            int64_t(sizeof(int32_t) + sizeof(float)) * slots;
  return GNNRT_OK;
}

int gnnrt_cpu_sddmm_tiles(const gnnrt_graph *g, const float *lhs,
                          const float *rhs, int64_t d, int64_t heads,
                          void *graph_tile, int64_t graph_tile_bytes, float *y,
                          int64_t *moved) {
  if (int status = sddmmKernelArgs(g, lhs, rhs, d, heads, y))
    return status;
  GNNRT_CHECK(graph_tile && moved, GNNRT_ERR_NULL_POINTER);
  // Each slot's heads are gnnrt_cpu_sddmm's dot products (sddmmSlot): the
  // same bits, wherever the tiles cut a row.
  return slotsOnTiles(
      g, nullptr, 0, graph_tile, graph_tile_bytes, d,
      [&](int64_t i, int64_t source, int64_t edge) {
        sddmmSlot(lhs, rhs, d, heads, y, i, source, edge);
      },
      moved);
}

int gnnrt_cpu_edge_softmax_tiles(const gnnrt_graph *g, const float *x,
                                 int64_t heads, void *graph_tile,
                                 int64_t graph_tile_bytes, float *y,
                                 int64_t *moved) {
  if (int status = edgeSoftmaxKernelArgs(g, x, heads, y))
    return status;
  GNNRT_CHECK(graph_tile && moved, GNNRT_ERR_NULL_POINTER);
  return softmaxOnTiles(g, x, heads, nullptr, 0, graph_tile, graph_tile_bytes,
                        y, moved);
}

int gnnrt_cpu_edge_softmax_grad_tiles(const gnnrt_graph *g, const float *y,
                                      const float *dy, int64_t heads,
                                      void *graph_tile,
                                      int64_t graph_tile_bytes, float *dx,
                                      int64_t *moved) {
  if (int status = edgeSoftmaxGradKernelArgs(g, y, dy, heads, dx))
    return status;
  GNNRT_CHECK(graph_tile && moved, GNNRT_ERR_NULL_POINTER);
  return softmaxGradOnTiles(g, y, dy, heads, nullptr, 0, graph_tile,
                            graph_tile_bytes, dx, moved);
}

//===----------------------------------------------------------------------===//
// The edge kernels at the rows of one set (gnn-restrict-rows), tiled
//===----------------------------------------------------------------------===//

// Each packs only the slots of the rows of R_level (the set's order), so no
// other edge row is written, and computes them as the kernel above or
// gnnrt_cpu_spmm_tiles does, with the per-row operations of its `_rows`
// kernel (Sparse.cpp): the same bits.

int gnnrt_cpu_sddmm_rows_tiles(const gnnrt_graph *g, const float *lhs,
                               const float *rhs, int64_t d, int64_t heads,
                               const int32_t *row_sets, int64_t hops,
                               int64_t level, void *graph_tile,
                               int64_t graph_tile_bytes, float *y,
                               int64_t *moved) {
  if (int status = sddmmKernelArgs(g, lhs, rhs, d, heads, y))
    return status;
  RowSets sets;
  if (int status =
          tiledRowSetArgs(g, row_sets, hops, level, graph_tile, moved, sets))
    return status;
  return slotsOnTiles(
      g, &sets, level, graph_tile, graph_tile_bytes, d,
      [&](int64_t i, int64_t source, int64_t edge) {
        sddmmSlot(lhs, rhs, d, heads, y, i, source, edge);
      },
      moved);
}

int gnnrt_cpu_edge_add_rows_tiles(const gnnrt_graph *g, const float *a,
                                  const float *b, int64_t d,
                                  const int32_t *row_sets, int64_t hops,
                                  int64_t level, void *graph_tile,
                                  int64_t graph_tile_bytes, float *y,
                                  int64_t *moved) {
  if (int status = edgeAddKernelArgs(g, a, b, d, y))
    return status;
  RowSets sets;
  if (int status =
          tiledRowSetArgs(g, row_sets, hops, level, graph_tile, moved, sets))
    return status;
  return slotsOnTiles(
      g, &sets, level, graph_tile, graph_tile_bytes, d,
      [&](int64_t i, int64_t source, int64_t edge) {
        edgeAddSlot(a, b, d, y, i, source, edge);
      },
      moved);
}

int gnnrt_cpu_edge_softmax_rows_tiles(const gnnrt_graph *g, const float *x,
                                      int64_t heads, const int32_t *row_sets,
                                      int64_t hops, int64_t level,
                                      void *graph_tile,
                                      int64_t graph_tile_bytes, float *y,
                                      int64_t *moved) {
  if (int status = edgeSoftmaxKernelArgs(g, x, heads, y))
    return status;
  RowSets sets;
  if (int status =
          tiledRowSetArgs(g, row_sets, hops, level, graph_tile, moved, sets))
    return status;
  return softmaxOnTiles(g, x, heads, &sets, level, graph_tile, graph_tile_bytes,
                        y, moved);
}

int gnnrt_cpu_edge_softmax_grad_rows_tiles(
    const gnnrt_graph *g, const float *y, const float *dy, int64_t heads,
    const int32_t *row_sets, int64_t hops, int64_t level, void *graph_tile,
    int64_t graph_tile_bytes, float *dx, int64_t *moved) {
  if (int status = edgeSoftmaxGradKernelArgs(g, y, dy, heads, dx))
    return status;
  RowSets sets;
  if (int status =
          tiledRowSetArgs(g, row_sets, hops, level, graph_tile, moved, sets))
    return status;
  return softmaxGradOnTiles(g, y, dy, heads, &sets, level, graph_tile,
                            graph_tile_bytes, dx, moved);
}

int gnnrt_cpu_scatter_rows_tiles(const gnnrt_graph *g, int end, const float *x,
                                 int64_t d, const int32_t *row_sets,
                                 int64_t hops, int64_t level, int64_t skip,
                                 int zero_rest, void *graph_tile,
                                 int64_t graph_tile_bytes, float *y,
                                 int64_t *moved) {
  const gnnrt_csr *viewOf = nullptr;
  if (int status = scatterKernelArgs(g, end, x, d, y, viewOf))
    return status;
  const gnnrt_csr &view = *viewOf;
  RowSets sets;
  if (int status =
          tiledRowSetArgs(g, row_sets, hops, level, graph_tile, moved, sets))
    return status;
  const int64_t capacity = graph_tile_bytes / kGraphBytesPerSlot;
  GNNRT_CHECK(capacity >= 1, GNNRT_ERR_BAD_SIZE);

  // scatterRow's sums (Sparse.cpp) as gnnrt_cpu_spmm_tiles's: each row's
  // edge rows of x, read by the edge ids the tile holds, added in slot order
  // to +0.0 or to what the previous tile left in the output row. With skip,
  // the tile also holds each slot's other end (the view's src), and the
  // slots whose other end is above skip are left out as scatterRow leaves
  // them out.
  Tile tile = graphTile(graph_tile, capacity);
  const int64_t rows = sets.count[level];
  const Level *levels = skip <= hops ? sets.level : nullptr;
  auto pack = [&](Tile &t, int64_t first, int64_t last, int64_t room) {
    const int64_t take = std::min(last - first, room), at = t.numSlots;
    if (levels)
      copyInts(t.src + at, view.src + first, take);
    copyInts(t.eid + at, view.edge_id + first, take);
    return Packed{first + take, take};
  };
  auto sum = [&](const Tile &t) {
    withRowWidth(d, [&](auto fixed) {
      sumPieces<fixed(), true>(t, x, d, nullptr, 1, false, levels, skip, y);
    });
  };
  int64_t pieces = 0, slots = 0;
  packTilesOnThreads(
      tile, capacity, 1, rows, view.indptr,
      [&](int64_t t) { return static_cast<int64_t>(sets.order[t]); }, pack, sum,
      worthThreads(slotsOfRows(view.indptr, sets.order, rows) + rows, d),
      pieces, slots);
  if (zero_rest)
    zeroOtherRows(sets.level, g->num_nodes, level, d, y);
  *moved += static_cast<int64_t>(sizeof(Piece)) * pieces +
            (levels ? 2 : 1) * static_cast<int64_t>(sizeof(int32_t)) * slots;
  return GNNRT_OK;
}

int gnnrt_cpu_receptive_rows_tiles(const gnnrt_graph *g, const uint8_t *mask,
                                   int64_t hops, void *graph_tile,
                                   int64_t graph_tile_bytes, int32_t *out,
                                   int64_t *moved) {
  if (int status = checkIn(g))
    return status;
  GNNRT_CHECK(hops >= 0 && hops <= kMaxHops, GNNRT_ERR_BAD_ARGUMENT);
  const int64_t n = g->num_nodes;
  GNNRT_CHECK(present(mask, n) && out && graph_tile && moved,
              GNNRT_ERR_NULL_POINTER);
  int32_t *count = out, *order = out + hops + 1;
  auto *level = reinterpret_cast<Level *>(order + n);
  const auto unreached = static_cast<Level>(hops + 1);
  std::memset(level + n, 0, static_cast<size_t>((n + 3) / 4 * 4 - n));
  for (int64_t i = 0; i < n; ++i)
    level[i] = mask[i] != 0 ? 0 : unreached;
  // Every node sorted by (level, id), with the counts of the levels up to
  // \p last (a counting sort, as gnnrt_cpu_receptive_rows ends with).
  auto sortByLevel = [&](int64_t last) {
    int64_t cursor[kMaxHops + 3] = {};
    for (int64_t i = 0; i < n; ++i)
      ++cursor[level[i] + 1];
    for (int64_t k = 1; k <= hops + 2; ++k)
      cursor[k] += cursor[k - 1];
    for (int64_t k = 0; k <= last; ++k)
      count[k] = static_cast<int32_t>(cursor[k + 1]);
    for (int64_t i = 0; i < n; ++i)
      order[cursor[level[i]]++] = static_cast<int32_t>(i);
  };
  sortByLevel(0);
  // R_{k+1}: R_k and the sources of the slots of R_k's rows, which come
  // through the tiles; one thread (width 0), since sources repeat.
  for (int64_t k = 0; k < hops; ++k) {
    const RowSets sets{count, order, level};
    if (int status = slotsOnTiles(
            g, &sets, k, graph_tile, graph_tile_bytes, 0,
            [&](int64_t, int64_t source, int64_t) {
              if (level[source] > k + 1)
                level[source] = static_cast<Level>(k + 1);
            },
            moved))
      return status;
    sortByLevel(k + 1);
  }
  return GNNRT_OK;
}

int gnnrt_cpu_receptive_edges_tiles(const gnnrt_graph *g,
                                    const int32_t *node_sets, int64_t node_hops,
                                    int64_t hops, void *graph_tile,
                                    int64_t graph_tile_bytes, int32_t *out,
                                    int64_t *moved) {
  if (int status = checkIn(g))
    return status;
  GNNRT_CHECK(out, GNNRT_ERR_NULL_POINTER);
  RowSets nodes;
  if (int status = tiledRowSetArgs(g, node_sets, node_hops, hops, graph_tile,
                                   moved, nodes))
    return status;
  const int64_t e = g->num_edges;
  Level *level = clearLevels(out, e, hops);
  // Each slot of R_hops's rows through the tiles: its edge takes its
  // destination's level (each edge is one slot, so the threads never
  // write one byte twice).
  if (int status = slotsOnTiles(
          g, &nodes, hops, graph_tile, graph_tile_bytes, 1,
          [&](int64_t i, int64_t, int64_t edge) {
            level[edge] = nodes.level[i];
          },
          moved))
    return status;
  // The counts and the order from the levels alone, the graph being in
  // host memory.
  placeByLevel(level, e, hops, out, out + hops + 1);
  return GNNRT_OK;
}

} // extern "C"
