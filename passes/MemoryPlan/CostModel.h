//===- CostModel.h - Prices of ops, transfers, conversions ------*- C++ -*-===//
//
// The memory planner (issue 5) chooses among fates by predicted step time,
// so it needs a price for every op of the step (a recomputation repeats
// some of them), for every transfer to and from host memory or disk, and
// for every precision conversion. The prices come from a machine profile:
// a handful of rates (GEMM FLOP/s; streaming, gather-bound, host-copy and
// disk bytes/s; dropout's random values/s; the fraction of a transfer hidden
// behind compute; the fixed cost of a kernel call) that `gnnc calibrate`
// measures on the machine at hand and that ships as a default for the CPU
// target.
//
// The model, per kernel:
//   seconds = secondsPerOp + max(flops / gemmFlopsPerSecond,
//                                bytes / <the kernel's bandwidth>)
// with FLOPs and bytes counted from the static shapes of the op's operands
// and results (graph types carry the node and edge counts) as the CPU
// runtime's kernels move them. docs/CostModel.md gives every formula and
// the profile's JSON format.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_PASSES_MEMORYPLAN_COSTMODEL_H
#define GNNC_PASSES_MEMORYPLAN_COSTMODEL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
class Operation;
class Value;
} // namespace mlir
namespace gnnrt {
struct CalibrationResult;
} // namespace gnnrt

namespace mlir::gnn {

/// One machine's rates. Every rate is finite and positive, the overlaps are
/// in [0, 1] and secondsPerOp is finite and >= 0 (parseProfile checks).
struct MachineProfile {
  /// "cpu-default", or the host name calibrate ran on.
  std::string name;
  /// The target whose kernels were measured: "cpu" (or "cuda").
  std::string target;
  /// Dense matmul (gnnrt_cpu_matmul), FLOP/s.
  double gemmFlopsPerSecond = 0;
  /// Streaming element-wise kernels on the device (gnnrt_cpu_add), bytes/s.
  double memBytesPerSecond = 0;
  /// Dropout's values per second (gnnrt_cpu_dropout): its Philox bits, not
  /// its bytes, bound it. Optional in the JSON: a profile written before
  /// the field existed gets gemmFlopsPerSecond / 10 (a value priced as ten
  /// GEMM FLOPs, as the model did then).
  double randomValuesPerSecond = 0;
  /// Effective bytes/s of gather-bound kernels (spmm, sddmm, gather,
  /// scatter, edge softmax, CSR products), bytes counted as
  /// gnnrt::spmmBytes counts them.
  double sparseBytesPerSecond = 0;
  /// Device <-> host copies (on the CPU target: memcpy between the arena
  /// and the host pool), bytes/s.
  double hostLinkBytesPerSecond = 0;
  /// Spill files: write + fdatasync, and cold reads, bytes/s.
  double diskWriteBytesPerSecond = 0, diskReadBytesPerSecond = 0;
  /// Fraction of a host transfer hidden behind compute (0 on the CPU
  /// target: the copies use the cores the kernels use).
  double hostTransferOverlap = 0;
  /// Fraction of a disk write hidden behind compute (the runtime's
  /// write-behind thread); prefetches from disk are synchronous.
  double diskTransferOverlap = 0;
  /// Fixed cost of one kernel call (call, checks, thread fork/join), s.
  double secondsPerOp = 0;
  /// The last-level cache, bytes; 0: the model has no cache (the CUDA
  /// target, or a machine that did not say). Optional in the JSON.
  double cacheBytes = 0;
  /// The extra cost of writing results into memory the cache does not hold
  /// (each line is read before it is written), as result bytes per second
  /// of that extra; 0: none. Saved on every result of the step as far as
  /// the session's device peak stays in the cache (cachedSavings).
  /// Optional in the JSON.
  double coldWriteBytesPerSecond = 0;
  /// The extra cost of reading operands from memory the cache does not
  /// hold, as operand bytes per second of that extra; 0: none. Saved on
  /// every arena operand the step reads, as coldWriteBytesPerSecond.
  /// Optional in the JSON.
  double coldReadBytesPerSecond = 0;
  /// Host copies while the session's device peak stays in the cache (see
  /// cachedArenaBytes), bytes/s: only the host side of a copy then crosses
  /// the memory bus. 0: as hostLinkBytesPerSecond. Optional in the JSON.
  double cachedHostLinkBytesPerSecond = 0;
  /// The kernel threads the rates were measured with; 0 when unknown.
  int64_t threads = 0;
  /// Free text: how and when the profile was made.
  std::string comment;

  bool operator==(const MachineProfile &other) const;
  bool operator!=(const MachineProfile &other) const {
    return !(*this == other);
  }
};

/// The version of the profile format this gnnc reads and writes (the JSON
/// field "version").
constexpr int64_t kProfileVersion = 1;

/// The profile shipped with gnnc for \p target, "cpu" or "cuda"
/// (passes/MemoryPlan/profiles/<target>-default.json, embedded at build
/// time); null for another target.
const MachineProfile *getShippedProfile(llvm::StringRef target);
/// The shipped CPU profile (getShippedProfile("cpu")).
const MachineProfile &getDefaultProfile();
/// The shipped profile of \p target as JSON text; empty for another
/// target.
llvm::StringRef getDefaultProfileJson(llvm::StringRef target = "cpu");
/// The target whose shipped profile is named \p name ("cpu-default",
/// "cuda-default"), or empty: gnn-plan-memory's `profile` option takes
/// these names besides paths.
llvm::StringRef shippedProfileTarget(llvm::StringRef name);

/// Parses and validates a profile. Errors name \p nameForErrors and the
/// field: "p.json: field 'disk_read_bytes_per_second': must be a positive
/// finite number, got -1", "p.json: missing field 'seconds_per_op'",
/// "p.json: unknown field 'gemm_flops'", "p.json: invalid JSON: ...".
llvm::Expected<MachineProfile> parseProfile(llvm::StringRef json,
                                            llvm::StringRef nameForErrors);
/// Reads and parses the profile at \p path.
llvm::Expected<MachineProfile> readProfile(llvm::StringRef path);
/// Writes \p profile as JSON (every field, one per line, numbers exact:
/// parseProfile of the text gives back an equal profile).
void writeProfile(const MachineProfile &profile, llvm::raw_ostream &os);

/// The profile of a calibration run (gnnrt/Calibrate.h) for the CPU
/// target, named \p name (the host name) with \p comment.
MachineProfile profileFromCalibration(const gnnrt::CalibrationResult &result,
                                      llvm::StringRef name,
                                      llvm::StringRef comment);

/// Where `gnnc calibrate` writes, and resolveProfile looks, by default:
/// $XDG_CONFIG_HOME/gnnc/profile-<target>.json, else
/// $HOME/.config/gnnc/profile-<target>.json; empty when neither variable
/// is set.
std::string getCalibratedProfilePath(llvm::StringRef target = "cpu");

/// The profile the gnnc driver plans with, for \p target: \p explicitPath
/// when not empty, else $GNNC_PROFILE when set and not empty, else the
/// calibrate output (getCalibratedProfilePath) when that file exists, else
/// the target's shipped profile (getShippedProfile; another target fails). A
/// file that is named but cannot be read or parsed is an error, never a
/// silent fall-back, and so is a profile for another target. \p source, if
/// given, receives where the profile came from (the path, or
/// "<target>-default (built in)").
llvm::Expected<MachineProfile> resolveProfile(llvm::StringRef explicitPath,
                                              llvm::StringRef target = "cpu",
                                              std::string *source = nullptr);

/// The largest session device peak that counts as staying wholly in the
/// cache: half of it (the other half holds what the kernels read besides
/// the arena: the graph, inputs read from host memory in tiles); 0 without
/// a cache.
int64_t cachedArenaBytes(const MachineProfile &profile);

/// How much of a step whose session device peak is \p devicePeak counts as
/// running in the cache: 1 up to cachedArenaBytes, 0 from cacheBytes on,
/// and linear between (a working set between half the cache and all of it
/// keeps part of its lines); 0 without a cache.
double cachedFraction(int64_t devicePeak, const MachineProfile &profile);

/// What a step saves on writing \p resultBytes of results and reading
/// \p readBytes of arena operands when the session's device peak is
/// \p devicePeak: the rates are measured on memory beyond the caches, so
/// the ops' prices include fetching every line from memory; the part of
/// the step in the cache (cachedFraction) saves resultBytes /
/// coldWriteBytesPerSecond + readBytes / coldReadBytesPerSecond. On the
/// CPU target the arena is ordinary memory (docs/CostModel.md, "Steps
/// within the cache").
double cachedSavings(double resultBytes, double readBytes, int64_t devicePeak,
                     const MachineProfile &profile);

/// The seconds of host copies the solver priced at hostLinkBytesPerSecond,
/// \p seconds, for a step whose session device peak is \p devicePeak: the
/// part of the step in the cache (cachedFraction) copies at
/// cachedHostLinkBytesPerSecond, only the host side of each copy crossing
/// the memory bus.
double cachedCopySeconds(double seconds, int64_t devicePeak,
                         const MachineProfile &profile);

/// Which rate bounds a cost (for reports; `seconds` already applies it).
enum class CostRate {
  None,     ///< Nothing to run: a view, a key, a scalar, a free.
  Gemm,     ///< Dense products: gemmFlopsPerSecond.
  Memory,   ///< Streaming kernels and conversions: memBytesPerSecond.
  Sparse,   ///< Gathers over the graph: sparseBytesPerSecond.
  HostLink, ///< mem.offload/prefetch to or from host memory.
  DiskWrite,
  DiskRead,
  Mixed, ///< A sum of costs bound by different rates (a recompute, a layer).
};
llvm::StringRef stringifyCostRate(CostRate rate);

struct OpCost {
  double flops = 0, bytes = 0, seconds = 0;
  /// Random values drawn (dropout, init): priced by randomSeconds.
  double randomValues = 0;
  CostRate rate = CostRate::None;

  /// Adds \p other's FLOPs, bytes, random values and seconds (a sum of
  /// kernels run one after another); the rate becomes Mixed when the two
  /// differ.
  OpCost &operator+=(const OpCost &other);
};

/// The seconds of one kernel call moving \p bytes and computing \p flops,
/// bound by \p rate: secondsPerOp + max(flops / gemm rate, bytes / rate's
/// bandwidth). 0 for CostRate::None.
double kernelSeconds(double flops, double bytes, CostRate rate,
                     const MachineProfile &profile);

/// The seconds of one dropout-like kernel call drawing \p values random
/// values and moving \p bytes at the streaming rate: secondsPerOp +
/// max(values / randomValuesPerSecond, bytes / memBytesPerSecond).
double randomSeconds(double values, double bytes,
                     const MachineProfile &profile);

/// FLOPs and bytes moved by one op of a step as the CPU runtime runs it,
/// sizes from the static tensor and graph types (a dynamic dimension counts
/// as 0), and the predicted seconds (kernelSeconds). Every gnn, train, mem,
/// arith, tensor and func op has an estimate: views, keys, scalars,
/// `func.return`, `mem.free` cost 0; `mem.offload`/`mem.prefetch` cost
/// their transferSeconds and `mem.store_as`/`mem.load_as` their
/// convertSeconds; `mem.recompute` and the layer ops (before gnn-decompose)
/// the sum of the kernels they run; any other op with tensors is priced as
/// a streaming kernel over its operands and results.
///
/// An op that gnn-restrict-rows restricted to the rows of R_level is priced
/// at the fraction |R_level| / N of its whole cost (estimateSetRows), plus
/// the writes that clear the other rows when its kernel clears them (no
/// gnn.rest_unread); one restricted to E_level of gnn.receptive_edges at
/// |E_level| / E.
OpCost estimateOpCost(Operation *op, const MachineProfile &profile);

/// (estimateSetRows, the planner's estimate of a set's rows, is in
/// dialects/Gnn/RowSets.h.)

/// The share of a tensor of \p rows rows that a transfer restricted to
/// R_level of \p rowSets moves (`mem.offload ... rows`): estimateSetRows
/// over \p rows, or 1 when the estimate is unknown.
double transferredRowShare(Value rowSets, int64_t level, int64_t rows);

enum class TransferTier { Host, Disk };
/// Exposed seconds of moving \p bytes to \p tier (toDevice = false) or back
/// (true), as the CPU runtime moves them (gnnrt/Offload.h); 0 for
/// bytes <= 0. Every transfer pays secondsPerOp, and:
///   host, either way: (1 - hostTransferOverlap) * bytes / host link;
///   to disk:   bytes / host link (the copy to the staging buffer, on the
///              compute thread) + (1 - diskTransferOverlap) * bytes / disk
///              write (the write-behind thread);
///   from disk: bytes / disk read (the prefetch reads synchronously).
double transferSeconds(int64_t bytes, TransferTier tier, bool toDevice,
                       const MachineProfile &profile);

/// The estimated share of its rows that \p op computes: 1 unless
/// gnn-restrict-rows restricted it to a set whose size is estimated.
double estimatedRowShare(Operation *op);

/// Bytes gnnrt_cpu_spmm_tiles copies from host memory into its tiles for
/// \p rows rows of \p edges slots in all: a piece record per row, a source
/// (unless not \p sources) and an edge id per slot, and \p weightHeads
/// weights per slot when the weights are tiled too (0: they are not).
double tiledReadBytes(int64_t rows, int64_t edges, int64_t weightHeads,
                      bool sources = true);

/// Whether \p user, an op that reads its graph in tiles
/// (mem::readsGraphInTiles), copies each slot's source into them: a
/// gnn.spmm or gnn.sddmm does; the soft-max and its gradient copy the edge
/// ids of whole rows only (a row longer than a tile once per pass; rare
/// enough to leave out).
bool tilesCarrySources(Operation *user);

/// The seconds of the weights' share of those copies over \p edges slots
/// (an estimated count, hence a double), at the host link rate.
double tiledWeightSeconds(double edges, int64_t weightHeads,
                          const MachineProfile &profile);

/// Seconds gnnrt_cpu_spmm_tiles adds to an aggregation for its copies: each
/// thread's before the sums of its section of the tile (nothing hides
/// them), tiledReadBytes at the host link rate, plus secondsPerOp per tile
/// of \p tileSlots slots.
double tiledReadSeconds(int64_t rows, int64_t edges, int64_t weightHeads,
                        int64_t tileSlots, const MachineProfile &profile,
                        bool sources = true);

/// Seconds and bytes a product adds to \p matmul when it reads its left
/// operand from host memory in tiles of \p tileBytes, at the share of rows
/// it computes (`A b`) or sums over (`A^T b`). A CSR matrix
/// (gnnrt_cpu_csr_matmul_tiles): a piece record per output row and a
/// column (or row) index and a value per slot read, priced as
/// tiledReadSeconds. A dense one (gnnrt_cpu_matmul_tiles): the rows read,
/// at the host link's rate, and a call's cost per tile.
OpCost tiledProductReads(Operation *matmul, int64_t tileBytes,
                         const MachineProfile &profile);

/// Seconds to convert \p elements between f32 and bf16/f16 once (either
/// way): a streaming kernel reading one width and writing the other,
/// secondsPerOp + 6 * elements / memBytesPerSecond. 0 for elements <= 0.
double convertSeconds(int64_t elements, const MachineProfile &profile);

/// Bytes mem.store_sign or mem.load_sign moves over \p floatBytes of f32
/// elements (the rows they pack or unpack): the floats read or written, a
/// 32nd of that in bits the other way.
double signBytes(double floatBytes);

/// Seconds of mem.store_sign or mem.load_sign over \p floatBytes of f32
/// elements: secondsPerOp + signBytes / memBytesPerSecond. 0 for
/// floatBytes <= 0.
double signSeconds(double floatBytes, const MachineProfile &profile);

} // namespace mlir::gnn

#endif // GNNC_PASSES_MEMORYPLAN_COSTMODEL_H
