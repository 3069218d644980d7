//===- ProcessStats.h - Memory use of the running process -------*- C++ -*-===//
//
// What the operating system says this process uses, for training reports
// and for cross-checking the memory planner: the planner's peak is a
// prediction, the resident set size is the measurement.
//
// Plain C++17, no LLVM: the runtime does not depend on the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_PROCESSSTATS_H
#define GNNRT_PROCESSSTATS_H

#include <cstdint>
#include <string>

namespace gnnrt {

/// The largest resident set size the process has had so far, in bytes:
/// getrusage's ru_maxrss, raised to any RSS this process has read through
/// these functions (the kernel's counters are approximate, and its mark
/// can trail the current RSS by a few pages). Never decreases from one
/// call to the next, and is never below a currentRssBytes() read before
/// it. 0 if the system cannot tell.
uint64_t peakRssBytes();

/// The resident set size now, in bytes (/proc/self/statm on Linux). 0 if
/// the system cannot tell.
uint64_t currentRssBytes();

/// \p bytes for a human, in binary units with three significant digits:
/// below 1 KiB the exact count ("512 B"); otherwise the largest unit (KiB,
/// MiB, GiB, TiB, PiB, EiB) in which the value is at least 1, with two
/// decimals below 10, one below 100 and none from 100 on ("3.25 MiB",
/// "12.0 KiB", "256 MiB"). Rounding never shows 1024 of a unit: 1048575 B
/// is "1.00 MiB".
std::string formatBytes(uint64_t bytes);

} // namespace gnnrt

#endif // GNNRT_PROCESSSTATS_H
