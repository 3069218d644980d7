//===- ProcessStats.cpp - Memory use of the running process ---------------===//
//
// ru_maxrss is in kilobytes on Linux (bytes on macOS); statm counts pages.
// Both are read on demand: they are cheap system calls, and a report wants
// the value at the moment it is printed.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/ProcessStats.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <sys/resource.h>
#include <unistd.h>

/// The largest RSS any call here has seen. Linux keeps RSS in approximate
/// per-CPU (older kernels: per-thread) counters, so ru_maxrss can trail
/// the current RSS by a few pages, even one read earlier. A peak below a
/// value already reported, or one that falls, would only confuse a report.
static std::atomic<uint64_t> highestSeen{0};

static uint64_t noteRss(uint64_t bytes) {
  uint64_t seen = highestSeen.load(std::memory_order_relaxed);
  while (seen < bytes && !highestSeen.compare_exchange_weak(
                             seen, bytes, std::memory_order_relaxed))
    ;
  return std::max(seen, bytes);
}

static uint64_t readCurrentRss() {
  std::FILE *f = std::fopen("/proc/self/statm", "r");
  if (!f)
    return 0;
  unsigned long long sizePages = 0, residentPages = 0;
  int fields = std::fscanf(f, "%llu %llu", &sizePages, &residentPages);
  std::fclose(f);
  long pageSize = sysconf(_SC_PAGESIZE);
  if (fields != 2 || pageSize <= 0)
    return 0;
  return residentPages * static_cast<uint64_t>(pageSize);
}

uint64_t gnnrt::peakRssBytes() {
  struct rusage usage;
  uint64_t peak = 0;
  if (getrusage(RUSAGE_SELF, &usage) == 0 && usage.ru_maxrss > 0) {
#ifdef __APPLE__
    peak = static_cast<uint64_t>(usage.ru_maxrss);
#else
    peak = static_cast<uint64_t>(usage.ru_maxrss) * 1024;
#endif
  }
  return noteRss(std::max(peak, readCurrentRss()));
}

uint64_t gnnrt::currentRssBytes() {
  uint64_t current = readCurrentRss();
  noteRss(current);
  return current;
}

std::string gnnrt::formatBytes(uint64_t bytes) {
  if (bytes < 1024)
    return std::to_string(bytes) + " B";
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  constexpr int numUnits = sizeof(units) / sizeof(units[0]);
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit + 1 < numUnits) {
    value /= 1024;
    ++unit;
  }
  // Choose the decimals from the rounded value, so 9.999 prints as "10.0"
  // rather than "10.00", and carry to the next unit when the value rounds
  // to 1024 ("1024 KiB" would read as a mistake).
  int decimals = value < 10 ? 2 : value < 100 ? 1 : 0;
  if (decimals == 2 && std::round(value * 100) >= 1000)
    decimals = 1;
  if (decimals == 1 && std::round(value * 10) >= 1000)
    decimals = 0;
  if (decimals == 0 && std::round(value) >= 1024 && unit + 1 < numUnits) {
    value /= 1024;
    ++unit;
    decimals = 2;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.*f %s", decimals, value,
                units[unit]);
  return buffer;
}
