/*===- Offload.h - Host and disk tiers for offloaded tensors -------*- C++
-*-===//
//
// Where the memory planner's `mem.offload` / `mem.prefetch` / `mem.free`
// put a tensor that must survive from the forward to the backward pass but
// need not stay on the device: host memory (the `host_memory` setting) or
// spill files on disk (`disk = spill("dir", size)`). Generated
// code calls the C functions below; the session owns the C++ object.
//
// Handles: the compiler numbers the tensors it offloads 0..N-1 and passes
// the number (`handle`) to every call. A handle is live from its offload to
// its free; it may be prefetched any number of times in between (the
// tensor is read again in the backward pass, or recomputed from it twice);
// offloading to a live handle is an error. The handle table grows on
// demand, so the object needs no count up front.
//
// Measured, not estimated: the host tier is a gnnrt::Arena of exactly the
// host budget, so its high-water mark is the host peak the planner
// predicted; the disk tier counts live spill-file bytes against its budget.
// Exceeding either budget is an error naming the handle and the bytes, never
// an abort, because a plan that does not fit is the compiler's bug to
// report, not a crash.
//
// Disk writes are write-behind: gnnrt_offload_to_disk copies the tensor to
// a staging buffer and returns, and one background IO thread writes it to
// the file while the step goes on computing; the device buffer can be reused
// as soon as the call returns. An IO error in that thread is kept with its
// handle and returned by the next call that touches the handle (prefetch,
// free) or by gnnrt_offload_sync, so it is never lost, and a handle whose
// write failed is never read back as garbage.
//
// Threads: one caller thread at a time (the training driver), besides the
// object's own IO thread.
//
// Plain C and C++17, no LLVM: the runtime does not depend on the compiler.
//
//===----------------------------------------------------------------------===*/
#ifndef GNNRT_OFFLOAD_H
#define GNNRT_OFFLOAD_H

#include "gnnrt/Kernels.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Statuses of this header, continuing gnnrt_status (Kernels.h, 0..5) from
   16 so that the kernels' codes can grow without a clash. The functions
   below also return GNNRT_ERR_NULL_POINTER, GNNRT_ERR_BAD_SIZE (a negative
   size, or a prefetch whose size is not the offloaded size) and
   GNNRT_ERR_OUT_OF_MEMORY (staging or bookkeeping allocation failed). */
enum {
  /* The host tier's budget (`host_memory`) has no room for the tensor, or
     there is no host tier. */
  GNNRT_ERR_HOST_FULL = 16,
  /* The disk tier's budget (`spill(dir, size)`) has no room for the
     tensor, or there is no disk tier. */
  GNNRT_ERR_DISK_FULL = 17,
  /* Creating, writing, reading or deleting a spill file failed; the
     message has the file, the operation and the system's reason. */
  GNNRT_ERR_IO = 18,
  /* The handle is negative or too large, live where it must not be
     (offload), or not live where it must be (prefetch, free). */
  GNNRT_ERR_BAD_HANDLE = 19
};

/* The tiers of one training session; C++: gnnrt::OffloadTiers. */
typedef struct gnnrt_offload gnnrt_offload;

/* Copies \p bytes from \p src into a new block of the host tier for
   \p handle. */
int gnnrt_offload_to_host(gnnrt_offload *t, int32_t handle, const void *src,
                          int64_t bytes);

/* gnnrt_offload_to_host without the copy: sets *\p block to the new block
   of \p bytes for \p handle, which the caller fills itself (the CUDA
   target's copy stream, asynchronously, from the device). */
int gnnrt_offload_host_reserve(gnnrt_offload *t, int32_t handle, int64_t bytes,
                               void **block);

/* Copies \p bytes from \p src to staging and queues their write to a new
   spill file for \p handle; returns once \p src may be overwritten. Blocks
   only while the staging buffers are full of unwritten data. */
int gnnrt_offload_to_disk(gnnrt_offload *t, int32_t handle, const void *src,
                          int64_t bytes);

/* Copies the \p bytes offloaded for \p handle into \p dst and returns when
   they are there (waiting for the handle's pending writes first). \p bytes
   must equal the offloaded size. The handle stays live. */
int gnnrt_prefetch(gnnrt_offload *t, int32_t handle, void *dst, int64_t bytes);

/* Sets *\p block to the host-tier block offloaded for \p handle, which
   must hold \p bytes, without copying it: for kernels that read it a tile
   at a time (`mem.prefetch {tile_bytes}`, gnnrt_cpu_csr_matmul_tiles), who
   count what they copy with gnnrt_home_note_loaded. A handle on disk is
   an error. The block stays valid until gnnrt_offload_free. */
int gnnrt_offload_host_block(gnnrt_offload *t, int32_t handle, int64_t bytes,
                             const void **block);

/* gnnrt_offload_to_host of some rows only: \p src is a matrix of \p rows
   rows of \p row_bytes bytes, and \p row_sets a gnnrt_cpu_receptive_rows
   buffer over its rows with \p hops hops. The host block holds the rows of
   R_level, in the sets' order (|R_level| * row_bytes bytes, counted as
   such). For a tensor computed at those rows alone whose other rows no op
   reads (`mem.offload ... rows`). */
int gnnrt_offload_rows_to_host(gnnrt_offload *t, int32_t handle,
                               const void *src, int64_t rows, int64_t row_bytes,
                               const int32_t *row_sets, int64_t hops,
                               int64_t level);

/* Brings back a copy that gnnrt_offload_rows_to_host made, given the same
   sizes and sets: the rows of R_level land where they were in \p dst, and
   its other rows are left as they are. The handle stays live. */
int gnnrt_prefetch_rows(gnnrt_offload *t, int32_t handle, void *dst,
                        int64_t rows, int64_t row_bytes,
                        const int32_t *row_sets, int64_t hops, int64_t level);

/* gnnrt_offload_host_block of a copy gnnrt_offload_rows_to_host made,
   given the same sizes and sets: *\p block holds the rows of R_level, in
   the sets' order (gnnrt_cpu_matmul_tiles reads it as `listed`). */
int gnnrt_offload_host_rows_block(gnnrt_offload *t, int32_t handle,
                                  int64_t rows, int64_t row_bytes,
                                  const int32_t *row_sets, int64_t hops,
                                  int64_t level, const void **block);

/* Ends \p handle's life: releases its host block, or cancels its pending
   writes and deletes its spill file. The handle is free afterwards even
   when this returns GNNRT_ERR_IO (a write failure nobody was told of yet,
   or the file could not be deleted). */
int gnnrt_offload_free(gnnrt_offload *t, int32_t handle);

/* Host homes (GNNRT_VALUE_HOME_HOST, gnnrt/Model.h): values whose memory
   plan keeps them in host memory between calls, such as parameters and
   optimizer state, in blocks of the host tier that live as long as the
   object. They count against the host budget and its high-water mark like
   offloaded tensors. */

/* A new block of \p bytes of the host tier, or NULL with the reason in
   gnnrt_offload_last_error (GNNRT_ERR_HOST_FULL when it does not fit). */
void *gnnrt_offload_alloc_home(gnnrt_offload *t, int64_t bytes);

/* Copies \p bytes from a host home (\p src) to the device buffer \p dst,
   counted as bytes from the host tier. */
int gnnrt_home_load(gnnrt_offload *t, void *dst, const void *src,
                    int64_t bytes);

/* gnnrt_home_load of the rows of R_level only: \p src (a host home) and
   \p dst are matrices of \p rows rows of \p row_bytes bytes, and
   \p row_sets a gnnrt_cpu_receptive_rows buffer over their rows with
   \p hops hops. Each listed row is copied to the same row of \p dst; the
   other rows of \p dst are left as they are. For an input the function
   reads at those rows only (`mem.load_home ... rows`). */
int gnnrt_home_load_rows(gnnrt_offload *t, void *dst, const void *src,
                         int64_t rows, int64_t row_bytes,
                         const int32_t *row_sets, int64_t hops, int64_t level);

/* Copies one CSR view (indptr [N + 1], src and edge_id [E], int32) of the
   graph \p home, whose arrays are host memory (a graph of @M.prepare with
   a host home), into \p storage, a device buffer of 4 (N + 1 + 2E) bytes,
   and sets \p result to the graph over it: same counts, that view only.
   The view is `in` (the CSR over destinations), or `out` when \p out is
   non-zero (`mem.load_graph_home`). Counted as bytes from the host tier. */
int gnnrt_home_load_graph(gnnrt_offload *t, const gnnrt_graph *home, int out,
                          int32_t *storage, gnnrt_graph *result);

/* Counts \p bytes (>= 0, else GNNRT_ERR_BAD_SIZE) that a kernel copied
   from host homes into the device itself as bytes from the host tier: the
   tiles of gnnrt_cpu_spmm_tiles (`mem.load_graph_home {tile_bytes}`). */
int gnnrt_home_note_loaded(gnnrt_offload *t, int64_t bytes);

/* Copies \p bytes from the device buffer \p src to a host home (\p dst),
   counted as bytes to the host tier. */
int gnnrt_home_store(gnnrt_offload *t, void *dst, const void *src,
                     int64_t bytes);

/* Waits until every queued write is on disk (in the page cache: spill files
   live only as long as the process, so nothing is fsynced) and returns
   GNNRT_ERR_IO for the first write failure not yet reported by another
   call. For the end of a step, so that no failure goes unnoticed. */
int gnnrt_offload_sync(gnnrt_offload *t);

/* The message of the last call that failed on \p t ("" if none has); valid
   until the next call on \p t. */
const char *gnnrt_offload_last_error(const gnnrt_offload *t);

/* gnnrt_status_string extended with the statuses above. */
const char *gnnrt_offload_status_string(int status);

/* For hosts without C++: gnnrt::OffloadConfig field by field. */
typedef struct gnnrt_offload_config {
  uint64_t host_budget;   /* bytes; 0: no host tier */
  const char *spill_dir;  /* NULL or "": no disk tier */
  uint64_t disk_budget;   /* bytes; > 0 with a spill directory */
  uint64_t staging_limit; /* bytes; 0 picks 64 MiB */
} gnnrt_offload_config;

/* A new object, or NULL with the reason in \p error (truncated to
   \p error_size bytes, always terminated when error_size > 0). */
gnnrt_offload *gnnrt_offload_create(const gnnrt_offload_config *config,
                                    char *error, size_t error_size);

/* Cancels pending writes, deletes every spill file, joins the IO thread.
   NULL is ignored. */
void gnnrt_offload_destroy(gnnrt_offload *t);

/* Measurements, as the C++ accessors of the same names describe them. */
typedef struct gnnrt_offload_stats {
  uint64_t host_high_water;
  uint64_t disk_high_water;
  uint64_t bytes_to_host;
  uint64_t bytes_to_disk;
  uint64_t bytes_from_host;
  uint64_t bytes_from_disk;
  double io_wait_seconds;
} gnnrt_offload_stats;

int gnnrt_offload_get_stats(const gnnrt_offload *t, gnnrt_offload_stats *out);

#ifdef __cplusplus
} /* extern "C" */

#include <cstdint>
#include <memory>
#include <string>

namespace gnnrt {

struct OffloadConfig {
  /// The host tier's budget in bytes (`host_memory`); 0: no host tier.
  uint64_t hostBudget = 0;
  /// Where the host tier lives, when its owner allocated it (the CUDA
  /// session's pinned memory, so that copies from the device overlap
  /// compute): hostBudget bytes, kept by the owner until the tiers are
  /// destroyed. Null: the tiers reserve hostBudget bytes themselves.
  void *hostRegion = nullptr;
  /// The directory for spill files (`spill("dir", size)`); empty: no disk
  /// tier. It must exist and be writable.
  std::string spillDir;
  /// The most bytes of live spill files; must be > 0 with a directory.
  uint64_t diskBudget = 0;
  /// The most bytes of staged tensor data not yet written to disk: host
  /// memory beyond the host budget, allocated on first use. A tensor larger
  /// than this is staged and written in pieces.
  uint64_t stagingLimit = 64 << 20;
};

class OffloadTiers {
public:
  /// Checks \p config (budgets in range; the spill directory exists and a
  /// file can be created in it, found by creating and deleting one),
  /// reserves the host tier and starts the IO thread. On failure returns
  /// false with the reason in \p error and leaves \p out unchanged.
  static bool create(const OffloadConfig &config,
                     std::unique_ptr<OffloadTiers> &out, std::string &error);

  /// Cancels queued writes, waits for the one in progress, joins the IO
  /// thread and deletes every spill file this object created.
  ~OffloadTiers();
  OffloadTiers(const OffloadTiers &) = delete;
  OffloadTiers &operator=(const OffloadTiers &) = delete;

  /// The C functions of the same names (release() is gnnrt_offload_free);
  /// each returns a gnnrt_status and, on failure, sets lastError().
  int offloadToHost(int32_t handle, const void *src, int64_t bytes);
  int reserveHost(int32_t handle, int64_t bytes, void **block);
  int offloadToDisk(int32_t handle, const void *src, int64_t bytes);
  int prefetch(int32_t handle, void *dst, int64_t bytes);
  int hostBlock(int32_t handle, int64_t bytes, const void **block);
  int offloadRowsToHost(int32_t handle, const void *src, int64_t rows,
                        int64_t rowBytes, const int32_t *rowSets, int64_t hops,
                        int64_t level);
  int prefetchRows(int32_t handle, void *dst, int64_t rows, int64_t rowBytes,
                   const int32_t *rowSets, int64_t hops, int64_t level);
  int hostRowsBlock(int32_t handle, int64_t rows, int64_t rowBytes,
                    const int32_t *rowSets, int64_t hops, int64_t level,
                    const void **block);
  int release(int32_t handle);
  int sync();
  const std::string &lastError() const;
  /// gnnrt_offload_alloc_home: nullptr on failure, with lastError().
  void *allocateHome(int64_t bytes);
  int homeLoad(void *dst, const void *src, int64_t bytes);
  int homeStore(void *dst, const void *src, int64_t bytes);
  int homeLoadRows(void *dst, const void *src, int64_t rows, int64_t rowBytes,
                   const int32_t *rowSets, int64_t hops, int64_t level);
  int homeLoadGraph(const gnnrt_graph *home, bool out, int32_t *storage,
                    gnnrt_graph *result);
  int noteLoaded(int64_t bytes);

  /// Handles may range over [0, kMaxHandles): the compiler numbers its
  /// offloaded tensors densely, and a larger number is a corrupt call.
  static constexpr int32_t kMaxHandles = 1 << 20;

  /// The largest host-tier bytes live at once since creation or the last
  /// resetHighWater(), each block rounded up to Arena::kAlignment: what
  /// the `host_memory` budget had to cover.
  uint64_t hostHighWater() const;
  /// The largest spill-file bytes live at once, likewise (exact sizes).
  uint64_t diskHighWater() const;
  /// Bytes offloaded to each tier and prefetched from it since creation.
  uint64_t bytesToHost() const;
  uint64_t bytesToDisk() const;
  uint64_t bytesFromHost() const;
  uint64_t bytesFromDisk() const;
  /// Seconds the caller spent blocked on the disk: waiting for staging
  /// room, waiting for a handle's writes, and reading spill files. What the
  /// overlap with compute did not hide.
  double ioWaitSeconds() const;
  /// Staging memory allocated so far (at most the staging limit): host
  /// memory the disk tier uses outside the host budget.
  uint64_t stagingBytes() const;
  /// Restarts both high-water marks from what is live now.
  void resetHighWater();

  /// The configuration, as given to create().
  const OffloadConfig &config() const;

  /// This object as the C ABI sees it, and back.
  gnnrt_offload *c() { return reinterpret_cast<gnnrt_offload *>(this); }
  static OffloadTiers *fromC(gnnrt_offload *t) {
    return reinterpret_cast<OffloadTiers *>(t);
  }
  static const OffloadTiers *fromC(const gnnrt_offload *t) {
    return reinterpret_cast<const OffloadTiers *>(t);
  }

private:
  struct Impl;
  explicit OffloadTiers(std::unique_ptr<Impl> state);
  std::unique_ptr<Impl> impl;
};

} // namespace gnnrt

#endif /* __cplusplus */

#endif /* GNNRT_OFFLOAD_H */
