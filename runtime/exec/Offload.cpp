//===- Offload.cpp - Host and disk tiers for offloaded tensors ------------===//
//
// The host tier is an Arena, so placement, budget and high-water mark are
// the device arena's, measured the same way; host homes are blocks of the
// same arena that are never released, so they count in its high-water mark
// like offloaded tensors. The disk tier is one file per
// live handle, written by a single background thread from a bounded pool of
// staging slots:
//
//   caller: offloadToDisk -> take a free slot (wait if none) -> memcpy ->
//           queue {handle, offset, slot}      ... and on to the next chunk
//   IO:     pop -> pwrite -> give the slot back, count the handle's write
//           done (or keep its failure)
//
// A tensor is cut into slot-sized chunks, so a tensor larger than the
// staging limit still goes through (the caller waits for room, chunk by
// chunk), and a long write of one tensor never holds more than the limit.
// One mutex guards what both threads touch: the queue, the free slots and
// each handle's pending-write count and failure. Everything else (the handle
// table's tiers, sizes, file descriptors; the arena; the counters) belongs to
// the caller thread alone.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Offload.h"

#include "gnnrt/Arena.h"
#include "gnnrt/ProcessStats.h"

#include "HostCopy.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <mutex>
#include <new>
#include <sys/stat.h>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace gnnrt;

namespace {

/// The largest staging chunk: big enough that a pwrite's system-call cost
/// vanishes next to the copy, small enough that the default 64 MiB limit
/// keeps 16 chunks in flight, so copying one overlaps writing another.
constexpr uint64_t kMaxChunk = 4 << 20;
/// The most staging slots, whatever the limit (a 64 GiB limit gets 16 MiB
/// chunks rather than a table of 16384 slots).
constexpr uint64_t kMaxSlots = 4096;

using detail::kCopyPiece;
using detail::kThreadedCopyBytes;

/// Copies \p count rows of \p rowBytes bytes: row t from `from` at byte
/// `fromAt(t)` to `to` at `toAt(t)`.
template <typename ToAt, typename FromAt>
void copyRows(char *to, const char *from, int64_t count, int64_t rowBytes,
              ToAt toAt, FromAt fromAt) {
  const uint64_t bytes = static_cast<uint64_t>(count * rowBytes);
  const int64_t perPiece = std::max<int64_t>(
      1, static_cast<int64_t>(kCopyPiece) / std::max<int64_t>(rowBytes, 1));
  const int64_t pieces = (count + perPiece - 1) / perPiece;
#pragma omp parallel for schedule(static) if (bytes >= kThreadedCopyBytes)
  for (int64_t k = 0; k < pieces; ++k)
    for (int64_t t = k * perPiece; t < std::min(count, (k + 1) * perPiece); ++t)
      std::memcpy(to + toAt(t), from + fromAt(t),
                  static_cast<size_t>(rowBytes));
}

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Objects in this process, numbered so that two of them sharing a spill
/// directory never pick the same file name (mkostemp makes the names unique
/// anyway; the number makes them readable).
std::atomic<uint64_t> nextInstance{0};

enum class Tier : uint8_t { None, Host, Disk };

const char *tierName(Tier tier) {
  return tier == Tier::Host ? "host memory" : "disk";
}

struct Entry {
  // The caller thread's alone.
  int32_t handle = 0;
  Tier tier = Tier::None;
  uint64_t bytes = 0;
  void *host = nullptr;
  int fd = -1;
  std::string path;

  // Shared with the IO thread, under Impl::mutex. `failure` is written by
  // the IO thread only while the handle has writes pending and read by the
  // caller only once it has none.
  int64_t pendingWrites = 0;
  bool failed = false;
  bool failureReported = false;
  std::string failure;
};

/// The rows a row copy moves: order[0, count).
struct RowList {
  const int32_t *order = nullptr;
  int64_t count = 0;
};

/// One chunk to write: `length` bytes of `data` (a staging slot) at
/// `offset` in the handle's file.
struct Job {
  Entry *entry;
  uint32_t slot;
  char *data;
  uint64_t offset;
  uint64_t length;
};

std::string quote(const std::string &path) { return "'" + path + "'"; }

std::string handleName(int32_t handle) {
  return "handle " + std::to_string(handle);
}

} // namespace

struct OffloadTiers::Impl {
  OffloadConfig config;
  Arena host;
  bool hasHost = false, hasDisk = false;
  uint64_t instance = 0;
  std::vector<std::unique_ptr<Entry>> entries;
  std::string lastError;

  uint64_t liveDiskBytes = 0, diskHighWaterBytes = 0;
  uint64_t toHost = 0, toDisk = 0, fromHost = 0, fromDisk = 0;
  double ioWait = 0;

  uint64_t chunkBytes = 0;
  /// One per slot, allocated when the slot is first used: a run that
  /// never spills costs no staging memory.
  std::vector<std::unique_ptr<char[]>> slotMemory;
  uint64_t stagingAllocatedBytes = 0;

  std::mutex mutex;
  std::condition_variable workReady; ///< The IO thread waits on it.
  std::condition_variable workDone;  ///< The caller waits on it.
  std::deque<Job> queue;
  std::vector<uint32_t> freeSlots;
  int64_t pendingTotal = 0; ///< Queued plus in flight.
  bool stopping = false;
  std::thread io;

  int fail(int status, std::string message) {
    lastError = std::move(message);
    return status;
  }

  /// The entry of \p handle, growing the table; nullptr (and the error
  /// set) if the handle is out of range.
  Entry *entryFor(int32_t handle, int &status);
  /// The entry of a free \p handle that \p bytes at \p src may be
  /// offloaded to, or nullptr with the error set; \p operation names the
  /// call in messages ("offload to disk"). Without \p hasSource the caller
  /// fills the block itself (reserveHost) and \p src is not checked.
  Entry *offloadEntry(int32_t handle, const void *src, int64_t bytes,
                      const char *operation, int &status,
                      bool hasSource = true);
  /// Gives the free \p entry of \p handle a block of \p size bytes of the
  /// host tier and counts them to the host; nullptr with the error set
  /// when the tier has no room.
  void *placeOnHost(Entry &entry, int32_t handle, uint64_t size, int &status);
  /// The entry of a live \p handle, or nullptr with the error set.
  Entry *liveEntry(int32_t handle, const char *operation, int &status);
  /// liveEntry, also checking that the handle holds \p bytes bytes (the
  /// callers that read the whole copy: prefetch, host block).
  Entry *wholeEntry(int32_t handle, int64_t bytes, const char *operation,
                    int &status);

  /// A block of \p size bytes of the host tier, or nullptr with the error
  /// set (GNNRT_ERR_HOST_FULL); \p what names the tensor in messages
  /// ("handle 3").
  void *hostBlock(uint64_t size, const std::string &what, int &status);
  /// The checks of homeLoad and homeStore; \p operation names the call.
  /// The rows of R_level in a gnnrt_cpu_receptive_rows buffer (\p rowSets,
  /// \p hops) over the \p rows rows of a matrix of \p rowBytes-byte rows,
  /// into \p list, checked: sizes that multiply, a level within the hops,
  /// and row ids in range (read, not trusted: a wrong buffer would copy out
  /// of bounds). On failure the error names \p what.
  int readRows(const std::string &what, int64_t rows, int64_t rowBytes,
               const int32_t *rowSets, int64_t hops, int64_t level,
               RowList &list);
  int checkHomeCopy(const char *operation, const void *dst, const void *src,
                    int64_t bytes);
  /// A checked copy between a home and the device, counted in \p counter
  /// (bytes from or to the host tier).
  int homeCopy(const char *what, void *dst, const void *src, int64_t bytes,
               uint64_t &counter);

  /// Waits until \p entry has no writes pending; the caller holds \p lock.
  void waitForWrites(std::unique_lock<std::mutex> &lock, Entry &entry);
  /// Cancels \p entry's queued writes, waits for the one in flight, closes
  /// and deletes its file, and makes it free. Returns GNNRT_OK or
  /// GNNRT_ERR_IO (an unreported write failure, or the file could not be
  /// deleted) with lastError set.
  int dropDiskEntry(Entry &entry);

  /// Copies \p size bytes of \p from into staging slots, chunk by chunk,
  /// and queues their writes to \p entry's file. Throws std::bad_alloc with
  /// nothing of the failed chunk taken (the chunks queued before stay
  /// queued; dropDiskEntry takes them back).
  void queueWrites(Entry &entry, const char *from, uint64_t size);

  void ioLoop();
};

OffloadTiers::OffloadTiers(std::unique_ptr<Impl> state)
    : impl(std::move(state)) {}

bool OffloadTiers::create(const OffloadConfig &config,
                          std::unique_ptr<OffloadTiers> &out,
                          std::string &error) {
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  impl->instance = nextInstance++;

  if (config.hostBudget > 0) {
    if (config.hostBudget > Arena::kMaxBudget) {
      error = "host memory: a budget of " + formatBytes(config.hostBudget) +
              " is out of range (at most " + formatBytes(Arena::kMaxBudget) +
              ")";
      return false;
    }
    std::string arenaError;
    if (config.hostRegion
            ? !Arena::createOver(config.hostRegion, config.hostBudget,
                                 impl->host, arenaError)
            : !Arena::create(config.hostBudget, impl->host, arenaError)) {
      error = "host memory: " + arenaError;
      return false;
    }
    impl->hasHost = true;
  }

  if (config.spillDir.empty()) {
    if (config.diskBudget > 0) {
      error = "disk spill: a budget of " + formatBytes(config.diskBudget) +
              " but no spill directory";
      return false;
    }
  } else {
    const std::string &dir = config.spillDir;
    if (config.diskBudget == 0) {
      error = "disk spill: the budget for " + quote(dir) + " is 0 bytes";
      return false;
    }
    if (config.stagingLimit == 0 || config.stagingLimit > Arena::kMaxBudget) {
      error = "disk spill: a staging limit of " +
              std::to_string(config.stagingLimit) +
              " bytes is out of range (1 B to " +
              formatBytes(Arena::kMaxBudget) + ")";
      return false;
    }
    struct stat info;
    if (stat(dir.c_str(), &info) != 0) {
      int err = errno;
      error = "disk spill: the directory " + quote(dir) +
              (err == ENOENT || err == ENOTDIR ? " does not exist"
                                               : " cannot be used") +
              " (" + std::strerror(err) + ")";
      return false;
    }
    if (!S_ISDIR(info.st_mode)) {
      error = "disk spill: " + quote(dir) + " is not a directory";
      return false;
    }
    // access(W_OK) would say yes to root on any directory, and nothing about
    // file systems that refuse new files (/proc, read-only mounts): only
    // creating a file tells.
    std::string probe =
        dir + "/gnnrt-" + std::to_string(getpid()) + "-probe-XXXXXX";
    int fd = mkostemp(probe.data(), O_CLOEXEC);
    if (fd < 0) {
      error = "disk spill: the directory " + quote(dir) +
              " is not writable: cannot create a file in it (" +
              std::strerror(errno) + ")";
      return false;
    }
    close(fd);
    unlink(probe.c_str());

    impl->hasDisk = true;
    // At least two slots where the limit allows, so copying one chunk
    // overlaps writing another; chunks grow past kMaxChunk only for limits
    // so large that the slot table itself would be big.
    impl->chunkBytes =
        std::max<uint64_t>({1, std::min(kMaxChunk, config.stagingLimit / 2),
                            config.stagingLimit / kMaxSlots});
    uint64_t slots = config.stagingLimit / impl->chunkBytes;
    impl->slotMemory.resize(slots);
    impl->freeSlots.reserve(slots);
    // Hand out slot 0 first: a run that spills little uses one slot.
    for (uint64_t s = slots; s-- > 0;)
      impl->freeSlots.push_back(static_cast<uint32_t>(s));
  }

  // The thread starts last, once the object exists: from then on only its
  // destructor (which joins) may destroy the state the thread uses.
  std::unique_ptr<OffloadTiers> tiers(new OffloadTiers(std::move(impl)));
  if (tiers->impl->hasDisk) {
    try {
      Impl *self = tiers->impl.get();
      self->io = std::thread([self] { self->ioLoop(); });
    } catch (const std::system_error &e) {
      error =
          std::string("disk spill: cannot start the IO thread: ") + e.what();
      return false;
    }
  }
  out = std::move(tiers);
  return true;
}

OffloadTiers::~OffloadTiers() {
  Impl &d = *impl;
  if (d.io.joinable()) {
    {
      std::lock_guard<std::mutex> lock(d.mutex);
      d.stopping = true;
      // Queued writes are dropped: their files are deleted below anyway.
      for (const Job &job : d.queue) {
        d.freeSlots.push_back(job.slot);
        --job.entry->pendingWrites;
        --d.pendingTotal;
      }
      d.queue.clear();
    }
    d.workReady.notify_all();
    d.io.join();
  }
  for (auto &entry : d.entries) {
    if (!entry || entry->tier != Tier::Disk)
      continue;
    close(entry->fd);
    unlink(entry->path.c_str());
  }
}

void OffloadTiers::Impl::ioLoop() {
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    workReady.wait(lock, [&] { return stopping || !queue.empty(); });
    if (queue.empty())
      return;
    Job job = queue.front();
    queue.pop_front();
    Entry &entry = *job.entry;
    // After a failed chunk the file is useless: skip the rest, and keep the
    // first failure, which names the cause.
    if (!entry.failed) {
      lock.unlock();
      uint64_t done = 0;
      int err = 0;
      while (done < job.length) {
        ssize_t n = pwrite(entry.fd, job.data + done, job.length - done,
                           static_cast<off_t>(job.offset + done));
        if (n < 0 && errno == EINTR)
          continue;
        if (n <= 0) {
          // A write of 0 bytes makes no progress; report it as the disk
          // being full, what every file system means by it.
          err = n < 0 ? errno : ENOSPC;
          break;
        }
        done += static_cast<uint64_t>(n);
      }
      lock.lock();
      if (err != 0) {
        entry.failed = true;
        try {
          entry.failure = "disk spill: writing " + handleName(entry.handle) +
                          " (" + formatBytes(entry.bytes) + ") to " +
                          quote(entry.path) + " failed at byte " +
                          std::to_string(job.offset + done) + ": " +
                          std::strerror(err);
        } catch (...) {
          entry.failure.clear(); // Reported without details below.
        }
      }
    }
    freeSlots.push_back(job.slot);
    --entry.pendingWrites;
    --pendingTotal;
    workDone.notify_all();
  }
}

Entry *OffloadTiers::Impl::entryFor(int32_t handle, int &status) {
  if (handle < 0 || handle >= kMaxHandles) {
    status = fail(GNNRT_ERR_BAD_HANDLE,
                  "offload: " + handleName(handle) + " is out of range (0 to " +
                      std::to_string(kMaxHandles - 1) + ")");
    return nullptr;
  }
  if (static_cast<size_t>(handle) >= entries.size())
    entries.resize(static_cast<size_t>(handle) + 1);
  auto &slot = entries[static_cast<size_t>(handle)];
  if (!slot) {
    slot = std::make_unique<Entry>();
    slot->handle = handle;
  }
  return slot.get();
}

Entry *OffloadTiers::Impl::liveEntry(int32_t handle, const char *operation,
                                     int &status) {
  if (handle < 0 || static_cast<size_t>(handle) >= entries.size() ||
      !entries[static_cast<size_t>(handle)] ||
      entries[static_cast<size_t>(handle)]->tier == Tier::None) {
    status = fail(GNNRT_ERR_BAD_HANDLE,
                  std::string(operation) + ": " + handleName(handle) +
                      " is not live (never offloaded, or already freed)");
    return nullptr;
  }
  return entries[static_cast<size_t>(handle)].get();
}

void OffloadTiers::Impl::waitForWrites(std::unique_lock<std::mutex> &lock,
                                       Entry &entry) {
  if (entry.pendingWrites == 0)
    return;
  Clock::time_point start = Clock::now();
  workDone.wait(lock, [&] { return entry.pendingWrites == 0; });
  ioWait += secondsSince(start);
}

int OffloadTiers::Impl::dropDiskEntry(Entry &entry) {
  int status = GNNRT_OK;
  {
    std::unique_lock<std::mutex> lock(mutex);
    // Writes not started yet are pointless now; only one in flight must be
    // waited for, since the file descriptor is closed below.
    for (auto it = queue.begin(); it != queue.end();) {
      if (it->entry != &entry) {
        ++it;
        continue;
      }
      freeSlots.push_back(it->slot);
      --entry.pendingWrites;
      --pendingTotal;
      it = queue.erase(it);
    }
    waitForWrites(lock, entry);
    if (entry.failed && !entry.failureReported)
      status = fail(GNNRT_ERR_IO, entry.failure.empty()
                                      ? "disk spill: a write failed"
                                      : entry.failure);
    entry.failed = entry.failureReported = false;
    entry.failure.clear();
  }
  close(entry.fd);
  if (unlink(entry.path.c_str()) != 0 && errno != ENOENT && status == GNNRT_OK)
    status = fail(GNNRT_ERR_IO,
                  "disk spill: cannot delete " + quote(entry.path) + " of " +
                      handleName(entry.handle) + ": " + std::strerror(errno));
  liveDiskBytes -= entry.bytes;
  entry.tier = Tier::None;
  entry.fd = -1;
  entry.path.clear();
  entry.bytes = 0;
  return status;
}

void OffloadTiers::Impl::queueWrites(Entry &entry, const char *from,
                                     uint64_t size) {
  for (uint64_t offset = 0; offset < size; offset += chunkBytes) {
    uint64_t length = std::min(chunkBytes, size - offset);
    uint32_t slot;
    char *data;
    {
      std::unique_lock<std::mutex> lock(mutex);
      if (freeSlots.empty()) {
        // Back-pressure: the disk is slower than the step produces
        // tensors. The time is what overlap failed to hide.
        Clock::time_point start = Clock::now();
        workDone.wait(lock, [&] { return !freeSlots.empty(); });
        ioWait += secondsSince(start);
      }
      slot = freeSlots.back();
      freeSlots.pop_back();
      auto &memory = slotMemory[slot];
      if (!memory) {
        memory.reset(new (std::nothrow) char[chunkBytes]);
        if (!memory) {
          // Cannot throw: freeSlots has room for every slot (create()).
          freeSlots.push_back(slot);
          throw std::bad_alloc();
        }
        stagingAllocatedBytes += chunkBytes;
      }
      data = memory.get();
    }
    // The copy runs unlocked, overlapping the IO thread's earlier writes.
    std::memcpy(data, from + offset, length);
    {
      std::lock_guard<std::mutex> lock(mutex);
      try {
        queue.push_back(Job{&entry, slot, data, offset, length});
      } catch (...) {
        freeSlots.push_back(slot);
        throw;
      }
      ++entry.pendingWrites;
      ++pendingTotal;
    }
    workReady.notify_one();
  }
}

void *OffloadTiers::Impl::hostBlock(uint64_t size, const std::string &what,
                                    int &status) {
  // What the arena will take, so the message's numbers add up.
  uint64_t need = size == 0 ? Arena::kAlignment
                            : (size + Arena::kAlignment - 1) /
                                  Arena::kAlignment * Arena::kAlignment;
  if (!hasHost) {
    status = fail(GNNRT_ERR_HOST_FULL,
                  "host memory: " + what + " needs " + formatBytes(need) +
                      " but there is no host tier (a host budget of 0)");
    return nullptr;
  }
  uint64_t freeBytes = host.budget() - host.inUse();
  if (size > freeBytes || need > freeBytes) {
    status = fail(GNNRT_ERR_HOST_FULL,
                  "host memory: " + what + " needs " + formatBytes(need) +
                      " but only " + formatBytes(freeBytes) + " of the " +
                      formatBytes(host.budget()) + " budget is free");
    return nullptr;
  }
  std::string error;
  void *block = host.allocate(size, "offload", error);
  if (!block)
    status = fail(GNNRT_ERR_HOST_FULL,
                  "host memory: " + what + " needs " + formatBytes(need) +
                      "; " + formatBytes(freeBytes) + " of the " +
                      formatBytes(host.budget()) +
                      " budget is free but fragmented, the largest free "
                      "block is " +
                      formatBytes(host.largestFree()));
  return block;
}

int OffloadTiers::Impl::checkHomeCopy(const char *operation, const void *dst,
                                      const void *src, int64_t bytes) {
  if (bytes < 0)
    return fail(GNNRT_ERR_BAD_SIZE, std::string(operation) + ": size " +
                                        std::to_string(bytes) + " is negative");
  if (bytes > 0 && (!dst || !src))
    return fail(GNNRT_ERR_NULL_POINTER, std::string(operation) + ": the " +
                                            (src ? "destination" : "source") +
                                            " is null");
  return GNNRT_OK;
}

Entry *OffloadTiers::Impl::offloadEntry(int32_t handle, const void *src,
                                        int64_t bytes, const char *operation,
                                        int &status, bool hasSource) {
  Entry *entry = entryFor(handle, status);
  if (!entry)
    return nullptr;
  std::string what = std::string(operation) + ": " + handleName(handle);
  if (entry->tier != Tier::None)
    status = fail(GNNRT_ERR_BAD_HANDLE,
                  what + " is live (offloaded to " + tierName(entry->tier) +
                      ", " + formatBytes(entry->bytes) + "); free it first");
  else if (bytes < 0)
    status = fail(GNNRT_ERR_BAD_SIZE,
                  what + ": size " + std::to_string(bytes) + " is negative");
  else if (hasSource && !src && bytes > 0)
    status = fail(GNNRT_ERR_NULL_POINTER, what + ": the source is null");
  else
    return entry;
  return nullptr;
}

void *OffloadTiers::Impl::placeOnHost(Entry &entry, int32_t handle,
                                      uint64_t size, int &status) {
  void *block = hostBlock(size, handleName(handle), status);
  if (!block)
    return nullptr;
  entry.tier = Tier::Host;
  entry.host = block;
  entry.bytes = size;
  toHost += size;
  return block;
}

int OffloadTiers::offloadToHost(int32_t handle, const void *src,
                                int64_t bytes) {
  Impl &d = *impl;
  int status = GNNRT_OK;
  Entry *entry =
      d.offloadEntry(handle, src, bytes, "offload to host memory", status);
  if (!entry)
    return status;
  auto size = static_cast<uint64_t>(bytes);
  void *block = d.placeOnHost(*entry, handle, size, status);
  if (!block)
    return status;
  detail::copyHostBytes(block, src, size);
  return GNNRT_OK;
}

int OffloadTiers::reserveHost(int32_t handle, int64_t bytes, void **block) {
  Impl &d = *impl;
  if (!block)
    return d.fail(GNNRT_ERR_NULL_POINTER,
                  "offload to host memory: " + handleName(handle) +
                      ": no result pointer");
  *block = nullptr;
  int status = GNNRT_OK;
  Entry *entry =
      d.offloadEntry(handle, nullptr, bytes, "offload to host memory", status,
                     /*hasSource=*/false);
  if (!entry)
    return status;
  *block = d.placeOnHost(*entry, handle, static_cast<uint64_t>(bytes), status);
  return *block ? GNNRT_OK : status;
}

int OffloadTiers::Impl::readRows(const std::string &what, int64_t rows,
                                 int64_t rowBytes, const int32_t *rowSets,
                                 int64_t hops, int64_t level, RowList &list) {
  if (rows < 0 || rowBytes < 0 ||
      (rowBytes > 0 && rows > std::numeric_limits<int64_t>::max() / rowBytes))
    return fail(GNNRT_ERR_BAD_SIZE, what + ": " + std::to_string(rows) +
                                        " rows of " + std::to_string(rowBytes) +
                                        " bytes is not a valid size");
  if (!rowSets)
    return fail(GNNRT_ERR_NULL_POINTER, what + ": the row sets are null");
  if (hops < 0 || hops > GNNRT_ROW_SETS_MAX_HOPS || level < 0 || level > hops)
    return fail(GNNRT_ERR_BAD_ARGUMENT, what + ": level " +
                                            std::to_string(level) + " of " +
                                            std::to_string(hops) + " hops");
  list.count = rowSets[level];
  list.order = rowSets + hops + 1;
  if (list.count < 0 || list.count > rows)
    return fail(GNNRT_ERR_BAD_ARGUMENT, what + ": a set of " +
                                            std::to_string(list.count) +
                                            " rows of " + std::to_string(rows));
  for (int64_t t = 0; t < list.count; ++t)
    if (list.order[t] < 0 || list.order[t] >= rows)
      return fail(GNNRT_ERR_BAD_ARGUMENT,
                  what + ": row " + std::to_string(list.order[t]) +
                      " is not among " + std::to_string(rows));
  return GNNRT_OK;
}

int OffloadTiers::offloadRowsToHost(int32_t handle, const void *src,
                                    int64_t rows, int64_t rowBytes,
                                    const int32_t *rowSets, int64_t hops,
                                    int64_t level) {
  Impl &d = *impl;
  RowList list;
  if (int status =
          d.readRows("offload rows to host memory: " + handleName(handle), rows,
                     rowBytes, rowSets, hops, level, list))
    return status;
  const int32_t *order = list.order;
  const int64_t count = list.count;
  int status = GNNRT_OK;
  Entry *entry = d.offloadEntry(handle, src, rows * rowBytes,
                                "offload rows to host memory", status);
  if (!entry)
    return status;
  auto size = static_cast<uint64_t>(count * rowBytes);
  void *block = d.placeOnHost(*entry, handle, size, status);
  if (!block)
    return status;
  const char *from = static_cast<const char *>(src);
  char *to = static_cast<char *>(block);
  copyRows(
      to, from, count, rowBytes, [&](int64_t t) { return t * rowBytes; },
      [&](int64_t t) { return int64_t(order[t]) * rowBytes; });
  return GNNRT_OK;
}

int OffloadTiers::prefetchRows(int32_t handle, void *dst, int64_t rows,
                               int64_t rowBytes, const int32_t *rowSets,
                               int64_t hops, int64_t level) {
  Impl &d = *impl;
  RowList list;
  if (int status = d.readRows("prefetch rows: " + handleName(handle), rows,
                              rowBytes, rowSets, hops, level, list))
    return status;
  const int32_t *order = list.order;
  const int64_t count = list.count;
  int status = GNNRT_OK;
  Entry *entry = d.liveEntry(handle, "prefetch rows", status);
  if (!entry)
    return status;
  auto size = static_cast<uint64_t>(count * rowBytes);
  if (entry->tier != Tier::Host || entry->bytes != size)
    return d.fail(GNNRT_ERR_BAD_SIZE,
                  "prefetch rows: " + handleName(handle) + " holds " +
                      std::to_string(entry->bytes) + " bytes in " +
                      tierName(entry->tier) + ", not " + std::to_string(count) +
                      " rows of " + std::to_string(rowBytes) +
                      " bytes in host memory");
  if (!dst && size > 0)
    return d.fail(GNNRT_ERR_NULL_POINTER,
                  "prefetch rows: " + handleName(handle) +
                      ": the destination is null");
  const char *from = static_cast<const char *>(entry->host);
  char *to = static_cast<char *>(dst);
  copyRows(
      to, from, count, rowBytes,
      [&](int64_t t) { return int64_t(order[t]) * rowBytes; },
      [&](int64_t t) { return t * rowBytes; });
  d.fromHost += size;
  return GNNRT_OK;
}

void *OffloadTiers::allocateHome(int64_t bytes) {
  Impl &d = *impl;
  if (bytes < 0) {
    d.fail(GNNRT_ERR_BAD_SIZE, "host memory: a home of " +
                                   std::to_string(bytes) +
                                   " bytes: the size is negative");
    return nullptr;
  }
  // Nothing frees a home but the destructor: the arena's region goes with
  // the object, so no table of homes is kept.
  int status = GNNRT_OK;
  try {
    return d.hostBlock(static_cast<uint64_t>(bytes),
                       "a home of " + std::to_string(bytes) + " bytes", status);
  } catch (const std::bad_alloc &) {
    // The arena's bookkeeping (or a message) could not grow.
    d.lastError = "host memory: out of memory allocating a home";
    return nullptr;
  }
}

int OffloadTiers::Impl::homeCopy(const char *what, void *dst, const void *src,
                                 int64_t bytes, uint64_t &counter) {
  if (int status = checkHomeCopy(what, dst, src, bytes))
    return status;
  detail::copyHostBytes(dst, src, static_cast<uint64_t>(bytes));
  counter += static_cast<uint64_t>(bytes);
  return GNNRT_OK;
}

int OffloadTiers::homeLoad(void *dst, const void *src, int64_t bytes) {
  return impl->homeCopy("home load", dst, src, bytes, impl->fromHost);
}

int OffloadTiers::homeLoadRows(void *dst, const void *src, int64_t rows,
                               int64_t rowBytes, const int32_t *rowSets,
                               int64_t hops, int64_t level) {
  Impl &d = *impl;
  RowList list;
  if (int status = d.readRows("home load rows", rows, rowBytes, rowSets, hops,
                              level, list))
    return status;
  const int32_t *order = list.order;
  const int64_t count = list.count;
  if (int status =
          d.checkHomeCopy("home load rows", dst, src, count * rowBytes))
    return status;
  const char *from = static_cast<const char *>(src);
  char *to = static_cast<char *>(dst);
  auto at = [&](int64_t t) { return int64_t(order[t]) * rowBytes; };
  copyRows(to, from, count, rowBytes, at, at);
  d.fromHost += static_cast<uint64_t>(count * rowBytes);
  return GNNRT_OK;
}

int OffloadTiers::noteLoaded(int64_t bytes) {
  if (bytes < 0)
    return impl->fail(GNNRT_ERR_BAD_SIZE,
                      "note loaded: " + std::to_string(bytes) + " bytes");
  impl->fromHost += static_cast<uint64_t>(bytes);
  return GNNRT_OK;
}

int OffloadTiers::homeLoadGraph(const gnnrt_graph *home, bool out,
                                int32_t *storage, gnnrt_graph *result) {
  Impl &d = *impl;
  if (!home || !result)
    return d.fail(GNNRT_ERR_NULL_POINTER,
                  "home load graph: the graph or the result is null");
  const int64_t n = home->num_nodes, e = home->num_edges;
  if (n < 0 || e < 0 || n > INT32_MAX || e > INT32_MAX)
    return d.fail(GNNRT_ERR_BAD_SIZE, "home load graph: the graph has " +
                                          std::to_string(n) + " nodes and " +
                                          std::to_string(e) + " edges");
  // The three arrays back to back, as Liveness sizes the buffer.
  gnnrt_graph g{};
  g.num_nodes = n;
  g.num_edges = e;
  const gnnrt_csr &view = out ? home->out : home->in;
  (out ? g.out : g.in) = {storage, storage + n + 1, storage + n + 1 + e};
  const int32_t *from[] = {view.indptr, view.src, view.edge_id};
  int32_t *to[] = {storage, storage + n + 1, storage + n + 1 + e};
  const int64_t count[] = {n + 1, e, e};
  for (int k = 0; k < 3; ++k)
    if (int status = d.homeCopy("home load graph", to[k], from[k], 4 * count[k],
                                d.fromHost))
      return status;
  *result = g;
  return GNNRT_OK;
}

int OffloadTiers::homeStore(void *dst, const void *src, int64_t bytes) {
  return impl->homeCopy("home store", dst, src, bytes, impl->toHost);
}

int OffloadTiers::offloadToDisk(int32_t handle, const void *src,
                                int64_t bytes) {
  Impl &d = *impl;
  int status = GNNRT_OK;
  Entry *entry = d.offloadEntry(handle, src, bytes, "offload to disk", status);
  if (!entry)
    return status;
  auto size = static_cast<uint64_t>(bytes);
  if (!d.hasDisk)
    return d.fail(GNNRT_ERR_DISK_FULL,
                  "disk spill: " + handleName(handle) + " needs " +
                      formatBytes(size) +
                      " but there is no disk tier (no spill directory)");
  const std::string &dir = d.config.spillDir;
  uint64_t freeBytes = d.config.diskBudget - d.liveDiskBytes;
  if (size > freeBytes)
    return d.fail(GNNRT_ERR_DISK_FULL,
                  "disk spill: " + handleName(handle) + " needs " +
                      formatBytes(size) + " but only " +
                      formatBytes(freeBytes) + " of the " +
                      formatBytes(d.config.diskBudget) + " budget in " +
                      quote(dir) + " is free");

  // The pid makes the name unique across processes sharing the directory,
  // the instance across objects in one process, the handle tells a person
  // what the file is; mkostemp's suffix settles any stale file left by a
  // killed process that had the same pid.
  std::string path = dir + "/gnnrt-" + std::to_string(getpid()) + "-" +
                     std::to_string(d.instance) + "-h" +
                     std::to_string(handle) + "-XXXXXX";
  int fd = mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0)
    return d.fail(GNNRT_ERR_IO, "disk spill: cannot create a spill file for " +
                                    handleName(handle) + " in " + quote(dir) +
                                    ": " + std::strerror(errno));
  entry->tier = Tier::Disk;
  entry->fd = fd;
  entry->path = std::move(path);
  entry->bytes = size;
  d.liveDiskBytes += size;
  d.diskHighWaterBytes = std::max(d.diskHighWaterBytes, d.liveDiskBytes);

  const char *from = static_cast<const char *>(src);
  try {
    d.queueWrites(*entry, from, size);
  } catch (...) {
    // A half-queued tensor must not stay live: its file would read back
    // with a hole.
    d.dropDiskEntry(*entry);
    return d.fail(GNNRT_ERR_OUT_OF_MEMORY,
                  "disk spill: out of memory staging " + handleName(handle) +
                      " (staging buffers of " + formatBytes(d.chunkBytes) +
                      ")");
  }
  d.toDisk += size;
  return GNNRT_OK;
}

Entry *OffloadTiers::Impl::wholeEntry(int32_t handle, int64_t bytes,
                                      const char *operation, int &status) {
  Entry *entry = liveEntry(handle, operation, status);
  if (entry && (bytes < 0 || static_cast<uint64_t>(bytes) != entry->bytes)) {
    status = fail(GNNRT_ERR_BAD_SIZE,
                  std::string(operation) + ": " + handleName(handle) +
                      " holds " + std::to_string(entry->bytes) +
                      " bytes, not " + std::to_string(bytes));
    return nullptr;
  }
  return entry;
}

int OffloadTiers::hostBlock(int32_t handle, int64_t bytes, const void **block) {
  Impl &d = *impl;
  if (!block)
    return d.fail(GNNRT_ERR_NULL_POINTER,
                  "host block: " + handleName(handle) + ": no result pointer");
  *block = nullptr;
  int status = GNNRT_OK;
  Entry *entry = d.wholeEntry(handle, bytes, "host block", status);
  if (!entry)
    return status;
  if (entry->tier != Tier::Host)
    return d.fail(GNNRT_ERR_BAD_ARGUMENT,
                  "host block: " + handleName(handle) +
                      " is on disk, not in host memory");
  *block = entry->host;
  return GNNRT_OK;
}

int OffloadTiers::hostRowsBlock(int32_t handle, int64_t rows, int64_t rowBytes,
                                const int32_t *rowSets, int64_t hops,
                                int64_t level, const void **block) {
  RowList list;
  if (int status = impl->readRows("host block: " + handleName(handle), rows,
                                  rowBytes, rowSets, hops, level, list))
    return status;
  return hostBlock(handle, list.count * rowBytes, block);
}

int OffloadTiers::prefetch(int32_t handle, void *dst, int64_t bytes) {
  Impl &d = *impl;
  int status = GNNRT_OK;
  Entry *entry = d.wholeEntry(handle, bytes, "prefetch", status);
  if (!entry)
    return status;
  if (!dst && bytes > 0)
    return d.fail(GNNRT_ERR_NULL_POINTER, "prefetch: " + handleName(handle) +
                                              ": the destination is null");
  auto size = static_cast<uint64_t>(bytes);
  if (entry->tier == Tier::Host) {
    detail::copyHostBytes(dst, entry->host, size);
    d.fromHost += size;
    return GNNRT_OK;
  }

  {
    std::unique_lock<std::mutex> lock(d.mutex);
    d.waitForWrites(lock, *entry);
    // Sticky: every prefetch of a handle whose file is incomplete fails,
    // not only the first.
    if (entry->failed) {
      entry->failureReported = true;
      return d.fail(GNNRT_ERR_IO, entry->failure.empty()
                                      ? "disk spill: a write failed"
                                      : entry->failure);
    }
  }
  Clock::time_point start = Clock::now();
  char *to = static_cast<char *>(dst);
  uint64_t done = 0;
  while (done < size) {
    ssize_t n =
        pread(entry->fd, to + done, size - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      d.ioWait += secondsSince(start);
      return d.fail(GNNRT_ERR_IO,
                    "disk spill: reading " + handleName(handle) + " from " +
                        quote(entry->path) + " failed at byte " +
                        std::to_string(done) + ": " + std::strerror(errno));
    }
    if (n == 0) {
      d.ioWait += secondsSince(start);
      return d.fail(GNNRT_ERR_IO,
                    "disk spill: reading " + handleName(handle) + " from " +
                        quote(entry->path) + ": the file ends after " +
                        std::to_string(done) + " of " + std::to_string(size) +
                        " bytes (changed by someone else?)");
    }
    done += static_cast<uint64_t>(n);
  }
  d.ioWait += secondsSince(start);
  d.fromDisk += size;
  return GNNRT_OK;
}

int OffloadTiers::release(int32_t handle) {
  Impl &d = *impl;
  int status = GNNRT_OK;
  Entry *entry = d.liveEntry(handle, "free", status);
  if (!entry)
    return status;
  if (entry->tier == Tier::Host) {
    d.host.release(entry->host);
    entry->host = nullptr;
    entry->bytes = 0;
    entry->tier = Tier::None;
    return GNNRT_OK;
  }
  return d.dropDiskEntry(*entry);
}

int OffloadTiers::sync() {
  Impl &d = *impl;
  if (!d.hasDisk)
    return GNNRT_OK;
  std::unique_lock<std::mutex> lock(d.mutex);
  if (d.pendingTotal > 0) {
    Clock::time_point start = Clock::now();
    d.workDone.wait(lock, [&] { return d.pendingTotal == 0; });
    d.ioWait += secondsSince(start);
  }
  for (auto &entry : d.entries) {
    if (entry && entry->failed && !entry->failureReported) {
      entry->failureReported = true;
      return d.fail(GNNRT_ERR_IO, entry->failure.empty()
                                      ? "disk spill: a write failed"
                                      : entry->failure);
    }
  }
  return GNNRT_OK;
}

const std::string &OffloadTiers::lastError() const { return impl->lastError; }
uint64_t OffloadTiers::hostHighWater() const { return impl->host.highWater(); }
uint64_t OffloadTiers::diskHighWater() const {
  return impl->diskHighWaterBytes;
}
uint64_t OffloadTiers::bytesToHost() const { return impl->toHost; }
uint64_t OffloadTiers::bytesToDisk() const { return impl->toDisk; }
uint64_t OffloadTiers::bytesFromHost() const { return impl->fromHost; }
uint64_t OffloadTiers::bytesFromDisk() const { return impl->fromDisk; }
double OffloadTiers::ioWaitSeconds() const { return impl->ioWait; }
uint64_t OffloadTiers::stagingBytes() const {
  return impl->stagingAllocatedBytes;
}
const OffloadConfig &OffloadTiers::config() const { return impl->config; }

void OffloadTiers::resetHighWater() {
  impl->host.resetHighWater();
  impl->diskHighWaterBytes = impl->liveDiskBytes;
}

//===----------------------------------------------------------------------===//
// C ABI
//===----------------------------------------------------------------------===//

namespace {

/// Runs \p fn, turning a C++ exception (std::bad_alloc from the handle
/// table or a message) into a status: none may cross the C boundary.
template <typename Fn> int guarded(gnnrt_offload *t, Fn &&fn) {
  if (!t)
    return GNNRT_ERR_NULL_POINTER;
  try {
    return fn(*OffloadTiers::fromC(t));
  } catch (...) {
    return GNNRT_ERR_OUT_OF_MEMORY;
  }
}

} // namespace

int gnnrt_offload_to_host(gnnrt_offload *t, int32_t handle, const void *src,
                          int64_t bytes) {
  return guarded(
      t, [&](OffloadTiers &o) { return o.offloadToHost(handle, src, bytes); });
}

int gnnrt_offload_host_reserve(gnnrt_offload *t, int32_t handle, int64_t bytes,
                               void **block) {
  return guarded(
      t, [&](OffloadTiers &o) { return o.reserveHost(handle, bytes, block); });
}

int gnnrt_offload_to_disk(gnnrt_offload *t, int32_t handle, const void *src,
                          int64_t bytes) {
  return guarded(
      t, [&](OffloadTiers &o) { return o.offloadToDisk(handle, src, bytes); });
}

int gnnrt_prefetch(gnnrt_offload *t, int32_t handle, void *dst, int64_t bytes) {
  return guarded(
      t, [&](OffloadTiers &o) { return o.prefetch(handle, dst, bytes); });
}

int gnnrt_offload_host_block(gnnrt_offload *t, int32_t handle, int64_t bytes,
                             const void **block) {
  return guarded(
      t, [&](OffloadTiers &o) { return o.hostBlock(handle, bytes, block); });
}

int gnnrt_offload_host_rows_block(gnnrt_offload *t, int32_t handle,
                                  int64_t rows, int64_t row_bytes,
                                  const int32_t *row_sets, int64_t hops,
                                  int64_t level, const void **block) {
  return guarded(t, [&](OffloadTiers &o) {
    return o.hostRowsBlock(handle, rows, row_bytes, row_sets, hops, level,
                           block);
  });
}

int gnnrt_offload_rows_to_host(gnnrt_offload *t, int32_t handle,
                               const void *src, int64_t rows, int64_t row_bytes,
                               const int32_t *row_sets, int64_t hops,
                               int64_t level) {
  return guarded(t, [&](OffloadTiers &o) {
    return o.offloadRowsToHost(handle, src, rows, row_bytes, row_sets, hops,
                               level);
  });
}

int gnnrt_prefetch_rows(gnnrt_offload *t, int32_t handle, void *dst,
                        int64_t rows, int64_t row_bytes,
                        const int32_t *row_sets, int64_t hops, int64_t level) {
  return guarded(t, [&](OffloadTiers &o) {
    return o.prefetchRows(handle, dst, rows, row_bytes, row_sets, hops, level);
  });
}

int gnnrt_home_load_rows(gnnrt_offload *t, void *dst, const void *src,
                         int64_t rows, int64_t row_bytes,
                         const int32_t *row_sets, int64_t hops, int64_t level) {
  return guarded(t, [&](OffloadTiers &o) {
    return o.homeLoadRows(dst, src, rows, row_bytes, row_sets, hops, level);
  });
}

int gnnrt_offload_free(gnnrt_offload *t, int32_t handle) {
  return guarded(t, [&](OffloadTiers &o) { return o.release(handle); });
}

void *gnnrt_offload_alloc_home(gnnrt_offload *t, int64_t bytes) {
  if (!t)
    return nullptr;
  try {
    return OffloadTiers::fromC(t)->allocateHome(bytes);
  } catch (...) {
    return nullptr; // The arena's bookkeeping ran out of memory.
  }
}

int gnnrt_home_load(gnnrt_offload *t, void *dst, const void *src,
                    int64_t bytes) {
  return guarded(t,
                 [&](OffloadTiers &o) { return o.homeLoad(dst, src, bytes); });
}

int gnnrt_home_load_graph(gnnrt_offload *t, const gnnrt_graph *home, int out,
                          int32_t *storage, gnnrt_graph *result) {
  return guarded(t, [&](OffloadTiers &o) {
    return o.homeLoadGraph(home, out != 0, storage, result);
  });
}

int gnnrt_home_note_loaded(gnnrt_offload *t, int64_t bytes) {
  return guarded(t, [&](OffloadTiers &o) { return o.noteLoaded(bytes); });
}

int gnnrt_home_store(gnnrt_offload *t, void *dst, const void *src,
                     int64_t bytes) {
  return guarded(t,
                 [&](OffloadTiers &o) { return o.homeStore(dst, src, bytes); });
}

int gnnrt_offload_sync(gnnrt_offload *t) {
  return guarded(t, [&](OffloadTiers &o) { return o.sync(); });
}

const char *gnnrt_offload_last_error(const gnnrt_offload *t) {
  return t ? OffloadTiers::fromC(t)->lastError().c_str() : "";
}

const char *gnnrt_offload_status_string(int status) {
  switch (status) {
  case GNNRT_ERR_HOST_FULL:
    return "host memory budget exceeded";
  case GNNRT_ERR_DISK_FULL:
    return "disk spill budget exceeded";
  case GNNRT_ERR_IO:
    return "spill file input/output error";
  case GNNRT_ERR_BAD_HANDLE:
    return "bad offload handle";
  default:
    return gnnrt_status_string(status);
  }
}

gnnrt_offload *gnnrt_offload_create(const gnnrt_offload_config *config,
                                    char *error, size_t errorSize) {
  std::string message;
  gnnrt_offload *result = nullptr;
  try {
    if (!config) {
      message = "offload: the configuration is null";
    } else {
      OffloadConfig c;
      c.hostBudget = config->host_budget;
      c.spillDir = config->spill_dir ? config->spill_dir : "";
      c.diskBudget = config->disk_budget;
      if (config->staging_limit > 0)
        c.stagingLimit = config->staging_limit;
      std::unique_ptr<OffloadTiers> tiers;
      if (OffloadTiers::create(c, tiers, message))
        result = tiers.release()->c();
    }
  } catch (...) {
    message = "offload: out of memory";
  }
  if (!result && error && errorSize > 0) {
    size_t n = std::min(message.size(), errorSize - 1);
    std::memcpy(error, message.data(), n);
    error[n] = '\0';
  }
  return result;
}

void gnnrt_offload_destroy(gnnrt_offload *t) { delete OffloadTiers::fromC(t); }

int gnnrt_offload_get_stats(const gnnrt_offload *t, gnnrt_offload_stats *out) {
  if (!t || !out)
    return GNNRT_ERR_NULL_POINTER;
  const OffloadTiers &o = *OffloadTiers::fromC(t);
  out->host_high_water = o.hostHighWater();
  out->disk_high_water = o.diskHighWater();
  out->bytes_to_host = o.bytesToHost();
  out->bytes_to_disk = o.bytesToDisk();
  out->bytes_from_host = o.bytesFromHost();
  out->bytes_from_disk = o.bytesFromDisk();
  out->io_wait_seconds = o.ioWaitSeconds();
  return GNNRT_OK;
}
