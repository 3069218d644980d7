//===- Calibrate.cpp - Measuring this machine's rates for the planner -----===//
//
// Each rate is a real kernel (or the runtime's host copy, or file IO) timed
// on this machine: repeated until it has run long enough, and the fastest
// repetition kept.
// Other work on the machine (a build, another test) only ever slows a
// repetition down, and on a small machine it does so by whole scheduler
// quanta (a kernel's OpenMP barrier waits for a descheduled thread): the
// fastest repetition is what the machine does, the median is what it did
// while busy. See docs/CostModel.md for what each measurement stands for in
// the model.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Calibrate.h"

#include "gnnrt/Kernels.h"

#include "HostCopy.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

using namespace gnnrt;

CalibrationSizes CalibrationSizes::quick() {
  CalibrationSizes s;
  s.gemmM = 2048;
  s.gemmN = 64;
  s.gemmK = 256;
  s.streamElements = int64_t(2) << 20;
  s.spmmNodes = 100000;
  s.spmmDegree = 8;
  s.spmmWidth = 16;
  s.copyBytes = int64_t(16) << 20;
  s.diskBytes = int64_t(8) << 20;
  s.diskChunkBytes = int64_t(1) << 20;
  s.coldWriteSliceBytes = int64_t(256) << 10;
  s.coldWriteRegionBytes = int64_t(32) << 20;
  s.minSeconds = 0.02;
  s.minRepetitions = 3;
  return s;
}

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// 64-byte aligned, zero-initialised (so every page is touched before it
/// is timed) storage of \p count elements of T.
template <typename T> struct Buffer {
  struct Free {
    void operator()(T *p) const { std::free(p); }
  };
  std::unique_ptr<T, Free> data;
  int64_t count = 0;

  bool allocate(int64_t n) {
    size_t bytes = static_cast<size_t>(std::max<int64_t>(n, 1)) * sizeof(T);
    bytes = (bytes + 63) / 64 * 64;
    data.reset(static_cast<T *>(std::aligned_alloc(64, bytes)));
    if (!data)
      return false;
    std::memset(static_cast<void *>(data.get()), 0, bytes);
    count = n;
    return true;
  }
  T *get() const { return data.get(); }
};

/// A small deterministic generator (the values do not matter, only that
/// they are not all equal).
struct Lcg {
  uint64_t state;
  uint32_t next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(state >> 33);
  }
  float unit() { return static_cast<float>(next() & 0xFFFF) / 65536.0f; }
};

void fill(float *p, int64_t n, uint64_t seed) {
  Lcg rng{seed};
  for (int64_t i = 0; i < n; ++i)
    p[i] = rng.unit() - 0.5f;
}

struct Timing {
  double seconds = 0; ///< Seconds of the fastest call.
  int repetitions = 0;
};

/// The fastest of \p times (never 0: a clock that did not advance would
/// make an infinite rate).
double fastest(const std::vector<double> &times) {
  return std::max(*std::min_element(times.begin(), times.end()), 1e-9);
}

/// Times \p fn: after one warm-up call, repetitions of a batch of calls
/// (with \p batched, enough calls that a batch takes about 100 us, so that
/// tiny kernels are not timer noise; else one call) until `minSeconds` and
/// `minRepetitions` are reached. Returns the seconds of one call in the
/// fastest batch, or false with \p error when \p fn fails.
template <typename Fn>
bool measure(const CalibrationSizes &sizes, Fn fn, Timing &timing,
             std::string &error, bool batched = true) {
  Clock::time_point start = Clock::now();
  if (!fn(error))
    return false;
  double once = secondsSince(start);
  const int64_t batch = !batched || once >= 1e-4
                            ? 1
                            : std::min<int64_t>(100000, std::ceil(1e-4 / once));
  std::vector<double> times;
  double total = 0;
  while (total < sizes.minSeconds ||
         static_cast<int>(times.size()) < sizes.minRepetitions) {
    start = Clock::now();
    for (int64_t b = 0; b < batch; ++b)
      if (!fn(error))
        return false;
    double t = secondsSince(start);
    total += t;
    times.push_back(t / static_cast<double>(batch));
    // A measurement that cannot repeat often enough in a reasonable time
    // (a very slow disk) stops at its minimum count anyway.
    if (static_cast<int>(times.size()) >= sizes.minRepetitions &&
        total > 20 * std::max(sizes.minSeconds, 0.05))
      break;
  }
  timing.seconds = fastest(times);
  timing.repetitions = static_cast<int>(times.size());
  return true;
}

bool kernelOk(int status, const char *kernel, std::string &error) {
  if (status == GNNRT_OK)
    return true;
  error = std::string(kernel) + " failed: " + gnnrt_status_string(status);
  return false;
}

std::string dims(int64_t a, int64_t b) {
  return std::to_string(a) + "x" + std::to_string(b);
}

std::string mebibytes(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%g MiB",
                static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

class Calibrator {
public:
  Calibrator(const CalibrationOptions &options, CalibrationResult &result,
             std::string &error)
      : options(options), sizes(options.sizes), result(result), error(error) {}

  bool run();

private:
  void progress(const std::string &what) {
    if (options.progress)
      options.progress("calibrate: " + what);
  }
  void record(const char *name, std::string workload, double work,
              const Timing &timing, double rate, const char *unit) {
    result.measurements.push_back({name, std::move(workload), work,
                                   timing.seconds, timing.repetitions, rate,
                                   unit});
  }
  /// Sets \p rate to \p work per second of \p timing and records the row.
  void recordRate(const char *name, std::string workload, double work,
                  const Timing &timing, double &rate, const char *unit) {
    rate = work / timing.seconds;
    record(name, std::move(workload), work, timing, rate, unit);
  }
  /// Times \p call (measure), then recordRate; the fastest repetition
  /// also goes to \p kept when given.
  template <typename Fn>
  bool measureRate(const char *name, std::string workload, double work, Fn call,
                   double &rate, const char *unit, Timing *kept = nullptr) {
    Timing timing;
    if (!measure(sizes, call, timing, error))
      return false;
    recordRate(name, std::move(workload), work, timing, rate, unit);
    if (kept)
      *kept = timing;
    return true;
  }
  /// Times \p sweep(false) and \p sweep(true), the same calls on lines the
  /// cache holds and on lines it does not, one call at a time; sets \p rate
  /// to \p bytes per second of the difference (0 if the cold sweep was not
  /// slower) and records the row with the cold sweep's timing.
  template <typename Sweep>
  bool measureColdRate(const char *name, std::string workload, double bytes,
                       Sweep sweep, double &rate) {
    Timing hot, cold;
    if (!measure(sizes, sweep(false), hot, error, /*batched=*/false) ||
        !measure(sizes, sweep(true), cold, error, /*batched=*/false))
      return false;
    const double extra = cold.seconds - hot.seconds;
    rate = extra > 0 ? bytes / extra : 0;
    record(name, std::move(workload), bytes, cold, rate, "B/s");
    return true;
  }
  bool checkSizes();
  bool gemm();
  bool stream();
  bool dropout();
  bool spmm();
  bool hostCopy();
  bool coldWrite();
  bool coldRead();
  bool kernelCall();
  bool disk();
  bool diskOverlap();

  // Disk helpers: the file lives in spillDir for the whole disk test.
  bool openSpillFile();
  bool writeFile(int fd, std::string &err);
  bool readFileCold(std::string &err);
  std::string ioError(const char *what) const {
    return std::string(what) + " '" + path + "': " + std::strerror(errno);
  }

  const CalibrationOptions &options;
  const CalibrationSizes &sizes;
  CalibrationResult &result;
  std::string &error;

  Timing gemmTiming;
  Buffer<char> chunk;
  std::string path;
};

bool Calibrator::checkSizes() {
  const CalibrationSizes &s = sizes;
  if (s.gemmM < 1 || s.gemmN < 1 || s.gemmK < 1 || s.streamElements < 1 ||
      s.spmmNodes < 1 || s.spmmDegree < 1 || s.spmmWidth < 1 ||
      s.copyBytes < 1 || s.diskBytes < 1 || s.diskChunkBytes < 1 ||
      s.coldWriteSliceBytes < 4 ||
      s.coldWriteRegionBytes < s.coldWriteSliceBytes || s.minRepetitions < 1 ||
      !(s.minSeconds >= 0) || s.spmmNodes * s.spmmDegree > INT32_MAX) {
    error = "calibration sizes must be positive (and the SpMM graph within "
            "int32 edges)";
    return false;
  }
  return true;
}

bool Calibrator::gemm() {
  const int64_t m = sizes.gemmM, n = sizes.gemmN, k = sizes.gemmK;
  std::string workload = "gnnrt_cpu_matmul " + dims(m, k) + " * " + dims(k, n);
  progress("gemm (" + workload + ")");
  Buffer<float> a, b, c;
  if (!a.allocate(m * k) || !b.allocate(k * n) || !c.allocate(m * n)) {
    error = "out of memory for the GEMM test";
    return false;
  }
  fill(a.get(), m * k, 1);
  fill(b.get(), k * n, 2);
  auto call = [&](std::string &err) {
    return kernelOk(gnnrt_cpu_matmul(a.get(), b.get(), m, n, k, 0, 0, c.get()),
                    "gnnrt_cpu_matmul", err);
  };
  return measureRate("gemm", workload, gemmFlops(m, n, k), call,
                     result.gemmFlopsPerSecond, "FLOP/s", &gemmTiming);
}

bool Calibrator::stream() {
  const int64_t n = sizes.streamElements;
  std::string workload = "gnnrt_cpu_add 3 x " + std::to_string(n) + " f32";
  progress("stream (" + workload + ")");
  Buffer<float> a, b, y;
  if (!a.allocate(n) || !b.allocate(n) || !y.allocate(n)) {
    error = "out of memory for the streaming test";
    return false;
  }
  fill(a.get(), n, 3);
  fill(b.get(), n, 4);
  auto call = [&](std::string &err) {
    return kernelOk(gnnrt_cpu_add(a.get(), b.get(), n, y.get()),
                    "gnnrt_cpu_add", err);
  };
  return measureRate("stream", workload, streamBytes(n, 2, 1), call,
                     result.memBytesPerSecond, "B/s");
}

bool Calibrator::dropout() {
  // Dropout is bound by its random bits (a Philox block of 10 rounds gives
  // four values), not by its bytes, so it gets its own rate: the values per
  // second of gnnrt_cpu_dropout at p = 0.5 on the streaming test's size.
  const int64_t n = sizes.streamElements;
  std::string workload = "gnnrt_cpu_dropout " + std::to_string(n) + " f32";
  progress("dropout (" + workload + ")");
  Buffer<float> x, y;
  if (!x.allocate(n) || !y.allocate(n)) {
    error = "out of memory for the dropout test";
    return false;
  }
  fill(x.get(), n, 5);
  uint64_t step = 0;
  auto call = [&](std::string &err) {
    return kernelOk(gnnrt_cpu_dropout(x.get(), n, 7, ++step, 0, 0.5, y.get()),
                    "gnnrt_cpu_dropout", err);
  };
  return measureRate("dropout", workload, static_cast<double>(n), call,
                     result.randomValuesPerSecond, "values/s");
}

bool Calibrator::spmm() {
  const int64_t nodes = sizes.spmmNodes, degree = sizes.spmmDegree,
                d = sizes.spmmWidth, edges = nodes * degree;
  std::string workload = "gnnrt_cpu_spmm sum N=" + std::to_string(nodes) +
                         " E=" + std::to_string(edges) +
                         " d=" + std::to_string(d) + " weighted";
  progress("spmm (" + workload + ")");
  // Every node has `degree` incoming edges from uniformly random sources:
  // the gathers of a graph without locality, the planner's safe side.
  Buffer<int32_t> indptr, src, edgeId;
  Buffer<float> x, w, y;
  if (!indptr.allocate(nodes + 1) || !src.allocate(edges) ||
      !edgeId.allocate(edges) || !x.allocate(nodes * d) || !w.allocate(edges) ||
      !y.allocate(nodes * d)) {
    error = "out of memory for the SpMM test";
    return false;
  }
  Lcg rng{5};
  for (int64_t i = 0; i <= nodes; ++i)
    indptr.get()[i] = static_cast<int32_t>(i * degree);
  for (int64_t e = 0; e < edges; ++e) {
    src.get()[e] = static_cast<int32_t>(rng.next() % nodes);
    edgeId.get()[e] = static_cast<int32_t>(e);
  }
  fill(x.get(), nodes * d, 6);
  fill(w.get(), edges, 7);
  gnnrt_graph g{};
  g.num_nodes = nodes;
  g.num_edges = edges;
  g.in = {indptr.get(), src.get(), edgeId.get()};
  if (!kernelOk(gnnrt_graph_check(&g), "gnnrt_graph_check", error))
    return false;
  auto call = [&](std::string &err) {
    return kernelOk(
        gnnrt_cpu_spmm(&g, GNNRT_AGGR_SUM, x.get(), d, w.get(), 1, y.get()),
        "gnnrt_cpu_spmm", err);
  };
  return measureRate("spmm", workload, spmmBytes(nodes, edges, d, 1), call,
                     result.sparseBytesPerSecond, "B/s");
}

bool Calibrator::hostCopy() {
  const int64_t bytes = sizes.copyBytes;
  // The runtime's own copy (threads and pieces included), which is what a
  // plan's offloads and prefetches run: a lone memcpy moves a third less.
  std::string workload = "host tier copy " + mebibytes(bytes);
  progress("host copy (" + workload + ")");
  Buffer<char> from, to;
  if (!from.allocate(bytes) || !to.allocate(bytes)) {
    error = "out of memory for the host copy test";
    return false;
  }
  std::memset(from.get(), 0x5a, static_cast<size_t>(bytes));
  auto call = [&](std::string &) {
    detail::copyHostBytes(to.get(), from.get(), static_cast<uint64_t>(bytes));
    return true;
  };
  if (!measureRate("host copy", workload, static_cast<double>(bytes), call,
                   result.hostLinkBytesPerSecond, "B/s"))
    return false;
  Timing none;
  record("host overlap", "not measured: host copies run on the compute cores",
         0, none, result.hostTransferOverlap, "fraction");
  return true;
}

/// The last-level data cache of this machine in bytes, 0 if unknown: the
/// largest cache sysfs lists for cpu0, else glibc's sysconf (which, in a
/// VM, may report the host's whole L3: 384 MiB for a 32 MiB slice here).
double lastLevelCacheBytes() {
  double largest = 0;
  for (int index = 0; index < 8; ++index) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::FILE *f = std::fopen((dir + "/size").c_str(), "r");
    if (!f)
      break;
    char unit = 0;
    long long size = 0;
    int fields = std::fscanf(f, "%lld%c", &size, &unit);
    std::fclose(f);
    if (fields < 1 || size <= 0)
      continue;
    double bytes = static_cast<double>(size) * (unit == 'K'   ? 1024.0
                                                : unit == 'M' ? 1048576.0
                                                              : 1.0);
    largest = std::max(largest, bytes);
  }
  if (largest > 0)
    return largest;
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE})
    if (long bytes = sysconf(name); bytes > 0)
      return static_cast<double>(bytes);
  return 0;
}

bool Calibrator::coldWrite() {
  // The same add, its inputs in cache, writing its results into slices of
  // a region a quarter of the last-level cache (the lines stay in it, as
  // an arena that fits the cache does) and into slices of a region the
  // cache cannot hold: the difference is what a result written into
  // memory beyond the cache costs (the runtime's arena, when the plan's
  // arena is larger than the cache). Both sweeps write the same number of
  // slices; the cold one writes a slice again only after the whole region.
  const int64_t n = sizes.coldWriteSliceBytes / 4;
  const int64_t slices =
      std::max<int64_t>(1, sizes.coldWriteRegionBytes / (n * 4));
  result.cacheBytes = lastLevelCacheBytes();
  const int64_t hotSlices = std::clamp<int64_t>(
      static_cast<int64_t>(result.cacheBytes / 4) / (n * 4), 1, slices);
  std::string workload = "gnnrt_cpu_add 3 x " + std::to_string(n) +
                         " f32, results in " + mebibytes(hotSlices * n * 4) +
                         " vs " + mebibytes(slices * n * 4);
  progress("cold write (" + workload + ")");
  Buffer<float> a, b, hot, region;
  if (!a.allocate(n) || !b.allocate(n) || !hot.allocate(n * hotSlices) ||
      !region.allocate(n * slices)) {
    error = "out of memory for the cold write test";
    return false;
  }
  fill(a.get(), n, 10);
  fill(b.get(), n, 11);
  auto sweep = [&](bool cold) {
    return [&, cold](std::string &err) {
      for (int64_t s = 0; s < slices; ++s)
        if (!kernelOk(gnnrt_cpu_add(a.get(), b.get(), n,
                                    cold ? region.get() + s * n
                                         : hot.get() + s % hotSlices * n),
                      "gnnrt_cpu_add", err))
          return false;
      return true;
    };
  };
  const double bytes = static_cast<double>(slices * n * 4);
  if (!measureColdRate("cold write", workload, bytes, sweep,
                       result.coldWriteBytesPerSecond))
    return false;
  // The host copies of a plan whose arena stays in cache: each slice out
  // of the cached region to the next slice of the large one (an offload)
  // and back (a prefetch). Only the large side crosses the memory bus, so
  // these run faster than the host copy test's memory-to-memory copy.
  auto copies = [&](bool out) {
    return [&, out](std::string &) {
      for (int64_t s = 0; s < slices; ++s) {
        float *cached = hot.get() + s % hotSlices * n;
        float *far = region.get() + s * n;
        detail::copyHostBytes(out ? far : cached, out ? cached : far,
                              static_cast<uint64_t>(n) * 4);
      }
      return true;
    };
  };
  Timing outTiming, inTiming;
  if (!measure(sizes, copies(true), outTiming, error, /*batched=*/false) ||
      !measure(sizes, copies(false), inTiming, error, /*batched=*/false))
    return false;
  Timing both = outTiming;
  both.seconds = outTiming.seconds + inTiming.seconds;
  both.repetitions += inTiming.repetitions;
  recordRate("cached copy",
             "host tier copy " + mebibytes(n * 4) + " slices out of " +
                 mebibytes(hotSlices * n * 4) + " and back",
             2 * bytes, both, result.cachedHostLinkBytesPerSecond, "B/s");
  Timing none;
  record("cache", "last-level data cache (sysfs, else sysconf)", 0, none,
         result.cacheBytes, "B");
  return true;
}

bool Calibrator::coldRead() {
  // The converse of coldWrite: the same add writing into one slice that
  // stays in cache, its two inputs read from the slices of two regions of
  // an eighth of the cache each (a quarter in all: an arena that fits the
  // cache) and from the slices of two regions the cache cannot hold. The
  // difference is what reading operands from memory beyond the cache
  // costs. Both sweeps read the same number of slices; the cold one reads
  // a slice again only after the whole region.
  const int64_t n = sizes.coldWriteSliceBytes / 4;
  const int64_t slices =
      std::max<int64_t>(1, sizes.coldWriteRegionBytes / (n * 4));
  const int64_t hotSlices = std::clamp<int64_t>(
      static_cast<int64_t>(result.cacheBytes / 8) / (n * 4), 1, slices);
  std::string workload =
      "gnnrt_cpu_add 3 x " + std::to_string(n) + " f32, inputs from 2 x " +
      mebibytes(hotSlices * n * 4) + " vs 2 x " + mebibytes(slices * n * 4);
  progress("cold read (" + workload + ")");
  Buffer<float> out, a, b;
  if (!out.allocate(n) || !a.allocate(n * slices) || !b.allocate(n * slices)) {
    error = "out of memory for the cold read test";
    return false;
  }
  fill(a.get(), n * slices, 12);
  fill(b.get(), n * slices, 13);
  auto sweep = [&](bool cold) {
    return [&, cold](std::string &err) {
      for (int64_t s = 0; s < slices; ++s) {
        int64_t at = (cold ? s : s % hotSlices) * n;
        if (!kernelOk(gnnrt_cpu_add(a.get() + at, b.get() + at, n, out.get()),
                      "gnnrt_cpu_add", err))
          return false;
      }
      return true;
    };
  };
  return measureColdRate("cold read", std::move(workload),
                         static_cast<double>(2 * slices * n * 4), sweep,
                         result.coldReadBytesPerSecond);
}

bool Calibrator::kernelCall() {
  // The fixed cost of a kernel call: the intercept of time against size of
  // gnnrt_cpu_add at the smallest size the kernels run threaded and at four
  // times that (both in cache, so the slope is not DRAM's), kept between
  // the cost of a call too small to be threaded and the smaller time. The
  // threaded calls are timed one by one: under load, some call of a batch
  // nearly always waits a scheduler quantum at its barrier, so the fastest
  // batch would measure the load.
  const int64_t n1 = int64_t(1) << 15, n2 = n1 * 4, tiny = 16;
  progress("kernel call (gnnrt_cpu_add of 16, 32 Ki and 128 Ki floats)");
  Buffer<float> a, b, y;
  if (!a.allocate(n2) || !b.allocate(n2) || !y.allocate(n2)) {
    error = "out of memory for the kernel call test";
    return false;
  }
  fill(a.get(), n2, 8);
  fill(b.get(), n2, 9);
  Timing t0, t1, t2;
  auto add = [&](int64_t n) {
    return [&, n](std::string &err) {
      return kernelOk(gnnrt_cpu_add(a.get(), b.get(), n, y.get()),
                      "gnnrt_cpu_add", err);
    };
  };
  if (!measure(sizes, add(tiny), t0, error) ||
      !measure(sizes, add(n1), t1, error, /*batched=*/false) ||
      !measure(sizes, add(n2), t2, error, /*batched=*/false))
    return false;
  double slope = (t2.seconds - t1.seconds) / static_cast<double>(n2 - n1);
  double intercept = t1.seconds - slope * static_cast<double>(n1);
  result.secondsPerOp =
      std::clamp(intercept, t0.seconds, std::max(t0.seconds, t1.seconds));
  Timing both = t1;
  both.repetitions = t0.repetitions + t1.repetitions + t2.repetitions;
  record("kernel call", "gnnrt_cpu_add of 16, 32Ki, 128Ki f32: intercept", 0,
         both, result.secondsPerOp, "s");
  return true;
}

bool Calibrator::openSpillFile() {
  std::string dir = options.spillDir;
  if (dir.empty()) {
    const char *tmp = std::getenv("TMPDIR");
    dir = tmp && *tmp ? tmp : "/tmp";
  }
  std::string name = dir + "/gnnc-calibrate-XXXXXX";
  std::vector<char> buffer(name.begin(), name.end());
  buffer.push_back('\0');
  int fd = mkstemp(buffer.data());
  if (fd < 0) {
    error = "cannot create a file in the spill directory '" + dir +
            "': " + std::strerror(errno);
    return false;
  }
  ::close(fd);
  path = buffer.data();
  return true;
}

/// Writes sizes.diskBytes to a fresh \p fd in chunks and makes them durable
/// (fdatasync): what a spill has to pay before the device copy may be
/// dropped.
bool Calibrator::writeFile(int fd, std::string &err) {
  int64_t left = sizes.diskBytes;
  while (left > 0) {
    size_t n = static_cast<size_t>(std::min(left, sizes.diskChunkBytes));
    ssize_t written = ::write(fd, chunk.get(), n);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0) {
      if (written == 0)
        errno = ENOSPC;
      err = ioError("cannot write");
      return false;
    }
    left -= written;
  }
  if (::fdatasync(fd) != 0) {
    err = ioError("cannot sync");
    return false;
  }
  return true;
}

/// Reads the file back after asking the kernel to drop its cached pages,
/// so that a disk (not the page cache) is timed. On a RAM file system the
/// pages cannot be dropped and the rate is memory's, which is then the
/// truth about that spill directory.
bool Calibrator::readFileCold(std::string &err) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    err = ioError("cannot open");
    return false;
  }
  int64_t total = 0;
  for (;;) {
    ssize_t got =
        ::read(fd, chunk.get(), static_cast<size_t>(sizes.diskChunkBytes));
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      err = ioError("cannot read");
      ::close(fd);
      return false;
    }
    if (got == 0)
      break;
    total += got;
  }
  ::close(fd);
  if (total != sizes.diskBytes) {
    err = "read " + std::to_string(total) + " bytes back from '" + path +
          "', wrote " + std::to_string(sizes.diskBytes);
    return false;
  }
  return true;
}

bool Calibrator::disk() {
  if (!chunk.allocate(sizes.diskChunkBytes)) {
    error = "out of memory for the disk test";
    return false;
  }
  // Not zeros: a compressing file system would make them free.
  Lcg rng{10};
  for (int64_t i = 0; i < sizes.diskChunkBytes; ++i)
    chunk.get()[i] = static_cast<char>(rng.next());

  std::string workload = "write+fdatasync " + mebibytes(sizes.diskBytes);
  progress("disk write (" + workload + " in " + path + ")");
  auto write = [&](std::string &err) {
    int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC);
    if (fd < 0) {
      err = ioError("cannot open");
      return false;
    }
    bool ok = writeFile(fd, err);
    if (::close(fd) != 0 && ok) {
      err = ioError("cannot close");
      ok = false;
    }
    return ok;
  };
  const double bytes = static_cast<double>(sizes.diskBytes);
  if (!measureRate("disk write", workload, bytes, write,
                   result.diskWriteBytesPerSecond, "B/s"))
    return false;

  workload = "cold read " + mebibytes(sizes.diskBytes);
  progress("disk read (" + workload + ")");
  // The timed part is the read alone: dropping the cache is done before
  // each repetition, outside measure()'s clock.
  std::vector<double> times;
  double total = 0;
  for (int rep = 0;
       rep < sizes.minRepetitions + 1 ||
       (total < sizes.minSeconds && rep < 20 * sizes.minRepetitions);
       ++rep) {
    int fd = ::open(path.c_str(), O_RDONLY);
    if (fd >= 0) {
      (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
      ::close(fd);
    }
    Clock::time_point start = Clock::now();
    if (!readFileCold(error))
      return false;
    double t = secondsSince(start);
    if (rep == 0)
      continue; // warm-up: the first open of a fresh file
    times.push_back(t);
    total += t;
  }
  Timing readTiming;
  readTiming.seconds = fastest(times);
  readTiming.repetitions = static_cast<int>(times.size());
  recordRate("disk read", workload, bytes, readTiming,
             result.diskReadBytesPerSecond, "B/s");
  return diskOverlap();
}

bool Calibrator::diskOverlap() {
  // A write-behind spill (write + fdatasync on its own thread, as the
  // runtime's spill thread does) started while GEMMs run on the compute
  // threads. With t_c the GEMMs alone, t_w the write alone and t_b both
  // together, the hidden part is t_c + t_w - t_b, as a fraction of t_w.
  // The GEMMs run about twice as long as the write, so a fully hidden write
  // can show as such.
  double writeSeconds = 0;
  for (const CalibrationMeasurement &m : result.measurements)
    if (m.name == "disk write")
      writeSeconds = m.seconds;
  const int64_t gemms = std::clamp<int64_t>(
      static_cast<int64_t>(std::ceil(2 * writeSeconds / gemmTiming.seconds)), 1,
      100000);
  std::string workload = "write-behind vs " + std::to_string(gemms) + " GEMMs";
  progress("disk overlap (" + workload + ")");

  const int64_t m = sizes.gemmM, n = sizes.gemmN, k = sizes.gemmK;
  Buffer<float> a, b, c;
  if (!a.allocate(m * k) || !b.allocate(k * n) || !c.allocate(m * n)) {
    error = "out of memory for the overlap test";
    return false;
  }
  fill(a.get(), m * k, 11);
  fill(b.get(), k * n, 12);
  auto compute = [&](std::string &err) {
    for (int64_t i = 0; i < gemms; ++i)
      if (!kernelOk(gnnrt_cpu_matmul(a.get(), b.get(), m, n, k, 0, 0, c.get()),
                    "gnnrt_cpu_matmul", err))
        return false;
    return true;
  };

  // Fastest of several trials for each side, as everywhere: background
  // load slows both, and comparing single runs would measure the load.
  std::vector<double> aloneTimes, togetherTimes;
  const int trials = sizes.minRepetitions + 2;
  for (int trial = 0; trial < trials; ++trial) {
    Clock::time_point start = Clock::now();
    if (!compute(error))
      return false;
    aloneTimes.push_back(secondsSince(start));

    int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC);
    if (fd < 0) {
      error = ioError("cannot open");
      return false;
    }
    std::string writeError;
    bool writeOk = false;
    start = Clock::now();
    std::thread writer([&] { writeOk = writeFile(fd, writeError); });
    bool computeOk = compute(error);
    writer.join();
    togetherTimes.push_back(secondsSince(start));
    ::close(fd);
    if (!computeOk)
      return false;
    if (!writeOk) {
      error = writeError;
      return false;
    }
  }
  // The write as measured alone (the writer thread's own time is inflated
  // by the compute it competes with).
  const double alone = std::max(writeSeconds, 1e-9);
  const double hidden = fastest(aloneTimes) + alone - fastest(togetherTimes);
  result.diskTransferOverlap = std::clamp(hidden / alone, 0.0, 1.0);
  Timing timing;
  timing.seconds = fastest(togetherTimes);
  timing.repetitions = trials;
  record("disk overlap", workload, 0, timing, result.diskTransferOverlap,
         "fraction");
  return true;
}

bool Calibrator::run() {
  if (!checkSizes())
    return false;
  // The spill directory first: a typo there should not cost the whole run.
  if (!openSpillFile())
    return false;
  Clock::time_point start = Clock::now();
  if (options.threads > 0)
    gnnrt_cpu_set_num_threads(options.threads);
  result.threads = gnnrt_cpu_get_num_threads();
  bool ok = gemm() && stream() && dropout() && spmm() && hostCopy() &&
            coldWrite() && coldRead() && kernelCall() && disk();
  ::unlink(path.c_str());
  if (options.threads > 0)
    gnnrt_cpu_set_num_threads(0);
  result.totalSeconds = secondsSince(start);
  return ok;
}

} // namespace

bool gnnrt::calibrate(const CalibrationOptions &options,
                      CalibrationResult &result, std::string &error) {
  result = CalibrationResult();
  Calibrator calibrator(options, result, error);
  if (!calibrator.run())
    return false;
  // Every rate must be usable by the planner: positive and finite.
  for (double rate :
       {result.gemmFlopsPerSecond, result.memBytesPerSecond,
        result.randomValuesPerSecond, result.sparseBytesPerSecond,
        result.hostLinkBytesPerSecond, result.diskWriteBytesPerSecond,
        result.diskReadBytesPerSecond}) {
    if (!(rate > 0) || !std::isfinite(rate)) {
      error = "a measured rate is not a positive finite number";
      return false;
    }
  }
  return true;
}

std::string gnnrt::formatRate(double value, const std::string &unit) {
  static const struct {
    double scale;
    const char *prefix;
  } prefixes[] = {{1e12, "T"}, {1e9, "G"},  {1e6, "M"},  {1e3, "k"},
                  {1, ""},     {1e-3, "m"}, {1e-6, "u"}, {1e-9, "n"}};
  char text[64];
  if (unit == "fraction" || unit.empty()) {
    std::snprintf(text, sizeof text, "%.2f", value);
    return text;
  }
  if (value == 0 || !std::isfinite(value)) {
    std::snprintf(text, sizeof text, "%g %s", value, unit.c_str());
    return text;
  }
  for (const auto &p : prefixes) {
    if (std::fabs(value) >= p.scale * 0.9995 || p.scale == 1e-9) {
      double v = value / p.scale;
      int decimals = std::fabs(v) < 9.995 ? 2 : std::fabs(v) < 99.95 ? 1 : 0;
      std::snprintf(text, sizeof text, "%.*f %s%s", decimals, v, p.prefix,
                    unit.c_str());
      return text;
    }
  }
  return text;
}

std::string gnnrt::formatCalibrationTable(const CalibrationResult &result) {
  size_t nameWidth = 11, workloadWidth = 8;
  for (const CalibrationMeasurement &m : result.measurements) {
    nameWidth = std::max(nameWidth, m.name.size());
    workloadWidth = std::max(workloadWidth, m.workload.size());
  }
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-*s  %-*s  %5s  %10s  %s\n",
                static_cast<int>(nameWidth), "measurement",
                static_cast<int>(workloadWidth), "workload", "reps", "best/rep",
                "rate");
  out += line;
  for (const CalibrationMeasurement &m : result.measurements) {
    std::string time =
        m.repetitions ? formatRate(m.seconds, "s") : std::string("-");
    std::string reps = m.repetitions ? std::to_string(m.repetitions) : "-";
    std::snprintf(line, sizeof line, "%-*s  %-*s  %5s  %10s  %s\n",
                  static_cast<int>(nameWidth), m.name.c_str(),
                  static_cast<int>(workloadWidth), m.workload.c_str(),
                  reps.c_str(), time.c_str(),
                  formatRate(m.rate, m.unit).c_str());
    out += line;
  }
  return out;
}
