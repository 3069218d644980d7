//===- Calibrate.h - This machine's rates for the planner -------*- C++ -*-===//
//
// `gnnc calibrate` runs the real CPU kernels (gnnrt/Kernels.h), memcpy and
// file IO on this machine and turns the times into the rates of the memory
// planner's cost model (passes/MemoryPlan/CostModel.h, docs/CostModel.md):
// dense GEMM FLOP/s, streaming bytes/s, dropout's random values/s,
// gather-bound bytes/s (SpMM), host copy bytes/s, disk write and read
// bytes/s, how much of a disk write hides behind compute, and the fixed
// cost of one kernel call.
//
// A rate is only as meaningful as the traffic formula that divides the
// measured time, so the formulas of the kernels calibrated here are defined
// once, below, and the compiler's cost model predicts those kernels with the
// same functions: a profile measured by this code and the predictions made
// from it agree on what "a byte of SpMM" is.
//
// Plain C++17, no LLVM: the runtime does not depend on the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_CALIBRATE_H
#define GNNRT_CALIBRATE_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gnnrt {

//===----------------------------------------------------------------------===//
// Traffic formulas shared with the compiler's cost model
//===----------------------------------------------------------------------===//

/// FLOPs of a dense product `[m, k] x [k, n]`: one multiply and one add per
/// term.
inline double gemmFlops(int64_t m, int64_t n, int64_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) *
         static_cast<double>(k);
}

/// Bytes a dense product moves at least once: both operands read, the
/// result written (\p elementBytes each).
inline double gemmBytes(int64_t m, int64_t n, int64_t k,
                        int64_t elementBytes = 4) {
  return static_cast<double>(elementBytes) *
         (static_cast<double>(m) * k + static_cast<double>(k) * n +
          static_cast<double>(m) * n);
}

/// Bytes of an element-wise kernel over \p n elements reading \p reads
/// tensors and writing \p writes (gnnrt_cpu_add: 2 and 1).
inline double streamBytes(int64_t n, int reads, int writes,
                          int64_t elementBytes = 4) {
  return static_cast<double>(elementBytes) * static_cast<double>(n) *
         (reads + writes);
}

/// Bytes of the int32 graph index arrays a kernel over the CSR by
/// destination reads: `indptr` (N + 1) and \p perEdgeArrays arrays of E
/// (`src`, `edge_id`).
inline double graphIndexBytes(int64_t nodes, int64_t edges, int perEdgeArrays) {
  return 4.0 * (static_cast<double>(nodes) + 1.0 +
                static_cast<double>(perEdgeArrays) * edges);
}

/// Bytes gnnrt_cpu_spmm moves for `y[N, d]` from `x[N, d]` over E edges:
///   indptr (N + 1) and src (E) as int32, plus edge_id (E) when weighted;
///   one input row of d elements gathered per edge (E * d);
///   the weights, E * weightHeads elements, when weighted (weightHeads > 0);
///   the output written once (N * d).
/// Every input row is counted once per edge that reads it: the kernel's
/// cost is the gather, whether or not a repeated row hits cache, which is
/// what the calibrated sparse rate absorbs.
inline double spmmBytes(int64_t nodes, int64_t edges, int64_t d,
                        int64_t weightHeads, int64_t elementBytes = 4) {
  const bool weighted = weightHeads > 0;
  double bytes = graphIndexBytes(nodes, edges, weighted ? 2 : 1);
  bytes += static_cast<double>(elementBytes) * static_cast<double>(edges) * d;
  if (weighted)
    bytes += static_cast<double>(elementBytes) * static_cast<double>(edges) *
             weightHeads;
  bytes += static_cast<double>(elementBytes) * static_cast<double>(nodes) * d;
  return bytes;
}

/// FLOPs of gnnrt_cpu_spmm: one add per edge and column, and one multiply
/// more when weighted.
inline double spmmFlops(int64_t edges, int64_t d, int64_t weightHeads) {
  return (weightHeads > 0 ? 2.0 : 1.0) * static_cast<double>(edges) *
         static_cast<double>(d);
}

//===----------------------------------------------------------------------===//
// Calibration
//===----------------------------------------------------------------------===//

/// The problem sizes of one calibration run. full() is what `gnnc
/// calibrate` measures (about 10 s on 2 cores; every working set larger
/// than a 32 MiB L3), quick() what `--quick` and the lit test use (under
/// 1 s; working sets that may fit in cache, so rougher rates); unit tests
/// shrink them further.
struct CalibrationSizes {
  /// gnnrt_cpu_matmul `[m, k] x [k, n]`: a tall, thin GNN-layer product.
  int64_t gemmM = 16384, gemmN = 128, gemmK = 512;
  /// gnnrt_cpu_add over this many floats per operand (3 arrays), and
  /// gnnrt_cpu_dropout over as many.
  int64_t streamElements = int64_t(16) << 20;
  /// gnnrt_cpu_spmm with `[E]` weights on a random graph of this many
  /// nodes, this in-degree for every node, rows of this width.
  int64_t spmmNodes = 200000, spmmDegree = 16, spmmWidth = 64;
  /// memcpy of this many bytes between two buffers (arena to host pool).
  int64_t copyBytes = int64_t(128) << 20;
  /// Disk: a file of this many bytes written in chunks, fdatasync'ed, then
  /// read back cold.
  int64_t diskBytes = int64_t(128) << 20;
  int64_t diskChunkBytes = int64_t(4) << 20;
  /// The cold-write test: gnnrt_cpu_add of two cached inputs into a result
  /// slice of this many bytes, once into the same slice every call (its
  /// lines stay in cache) and once into the next slice of a region of
  /// coldWriteRegionBytes (lines the cache no longer holds, or has never
  /// held).
  int64_t coldWriteSliceBytes = int64_t(1) << 20;
  int64_t coldWriteRegionBytes = int64_t(256) << 20;
  /// Each measurement repeats until it has run this long and at least
  /// minRepetitions times, and reports the fastest repetition.
  double minSeconds = 0.5;
  int minRepetitions = 3;

  static CalibrationSizes full() { return {}; }
  static CalibrationSizes quick();
};

struct CalibrationOptions {
  CalibrationSizes sizes;
  /// Where the disk test creates (and removes) its file; empty: $TMPDIR,
  /// else /tmp.
  std::string spillDir;
  /// Kernel threads (gnnrt_cpu_set_num_threads); <= 0: the default (all
  /// cores). The rates hold for this thread count.
  int threads = 0;
  /// Called with one line (no newline) before each measurement; may be
  /// empty.
  std::function<void(const std::string &)> progress;
};

/// One row of the table `gnnc calibrate` prints.
struct CalibrationMeasurement {
  std::string name;     ///< "gemm", "stream", "spmm", "host copy", ...
  std::string workload; ///< "gnnrt_cpu_matmul 16384x512 * 512x128", ...
  double work = 0;      ///< FLOPs or bytes of one repetition (see unit).
  double seconds = 0;   ///< Seconds of the fastest repetition.
  int repetitions = 0;
  double rate = 0;  ///< The derived value.
  std::string unit; ///< "FLOP/s", "B/s", "s", "fraction".
};

/// The measured rates, in the cost model's units (see MachineProfile in
/// passes/MemoryPlan/CostModel.h, which has one field per member).
struct CalibrationResult {
  double gemmFlopsPerSecond = 0;
  double memBytesPerSecond = 0;
  /// Values per second of gnnrt_cpu_dropout (its random bits bound it).
  double randomValuesPerSecond = 0;
  double sparseBytesPerSecond = 0;
  double hostLinkBytesPerSecond = 0;
  double diskWriteBytesPerSecond = 0;
  double diskReadBytesPerSecond = 0;
  /// 0 on the CPU target, not measured: the runtime copies between arena
  /// and host pool on the compute thread, with the cores the kernels use.
  double hostTransferOverlap = 0;
  /// The fraction of a write-behind disk write (write + fdatasync on its
  /// own thread) hidden behind GEMMs running meanwhile, in [0, 1].
  double diskTransferOverlap = 0;
  double secondsPerOp = 0;
  /// The last-level data cache, bytes (sysconf, else sysfs); 0 when this
  /// machine does not say.
  double cacheBytes = 0;
  /// What writing results to memory outside the cache costs beyond writing
  /// them to cached lines (the line is read before it is written), as
  /// result bytes per second of that extra; 0 when the cold writes were
  /// not slower.
  double coldWriteBytesPerSecond = 0;
  /// What reading operands from memory outside the cache costs beyond
  /// reading them from cached lines, as operand bytes per second of that
  /// extra; 0 when the cold reads were not slower.
  double coldReadBytesPerSecond = 0;
  /// Host copies between an arena that stays in cache and memory, bytes/s
  /// (one side of each copy crosses the memory bus, not both).
  double cachedHostLinkBytesPerSecond = 0;
  int threads = 0; ///< The kernel threads the rates hold for.
  double totalSeconds = 0;
  std::vector<CalibrationMeasurement> measurements;
};

/// Measures every rate with \p options into \p result. Returns false and
/// sets \p error when a measurement cannot run: an unwritable or full
/// spill directory ("cannot create a file in the spill directory '/x':
/// Permission denied", checked before anything is measured), a failed
/// allocation or kernel. The spill file is removed in every case. Every
/// rate of a successful result is finite and positive (the overlaps in
/// [0, 1], secondsPerOp > 0).
bool calibrate(const CalibrationOptions &options, CalibrationResult &result,
               std::string &error);

/// The measurements as a table: a header, then one row per measurement
/// (name, workload, repetitions, fastest repetition, rate), e.g.
///   gemm  gnnrt_cpu_matmul 16384x512 * 512x128  16  14.1 ms  153 GFLOP/s
std::string formatCalibrationTable(const CalibrationResult &result);

/// \p value with an SI prefix and \p unit, three significant digits
/// ("1.23 GB/s", "174 GFLOP/s", "2.10 us").
std::string formatRate(double value, const std::string &unit);

} // namespace gnnrt

#endif // GNNRT_CALIBRATE_H
