//===- Progress.h - Training progress on a terminal or in a log -*- C++ -*-===//
//
// One status line per epoch, e.g.
//
//   epoch  57/200 [#####---------------]  loss 0.5432  val_acc 0.7820
//       12.3 ms/epoch  ETA 1.8 s
//
// (on one line). On a terminal the line is redrawn in place with '\r'; in a
// log (stderr redirected to a file or a CI console) a plain line is printed
// every few epochs instead, so logs stay short and readable. Time is
// measured with std::chrono::steady_clock from construction.
//
// Plain C++17, no LLVM: the runtime does not depend on the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_PROGRESS_H
#define GNNRT_PROGRESS_H

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace gnnrt {

struct ProgressOptions {
  /// False: print nothing at all (--quiet, or a host program's own UI).
  bool enabled = true;
  /// True for a terminal: redraw one line with '\r' (at most every 50 ms,
  /// and always the last epoch). False: one plain line every `plainEvery`
  /// epochs and one for the last epoch.
  bool interactive = false;
  /// Epochs between plain lines; <= 0 prints only the last epoch's line.
  int64_t plainEvery = 10;
};

/// Per-epoch metrics in the order they are shown, e.g. {"val_acc", 0.78}.
using ProgressMetrics = std::vector<std::pair<std::string, double>>;

class Progress {
public:
  /// Reports to \p out (normally stderr) on \p totalEpochs epochs; a total
  /// <= 0 means unknown (no bar, no ETA). The clock starts here.
  Progress(std::FILE *out, int64_t totalEpochs, ProgressOptions options);
  /// Calls finish() if it was not called.
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  /// Epoch \p epoch (counted from 1, so 1..totalEpochs) has finished with
  /// training loss \p loss and \p metrics.
  void update(int64_t epoch, double loss, const ProgressMetrics &metrics);

  /// Ends the report: prints the last update if it was not shown yet and,
  /// on a terminal, ends the redrawn line. Idempotent.
  void finish();

  /// The status line, without '\r' or newline, for \p epoch after
  /// \p elapsedSeconds since the start: what update() prints, as a pure
  /// function for tests and for callers with their own output.
  std::string formatLine(int64_t epoch, double loss,
                         const ProgressMetrics &metrics,
                         double elapsedSeconds) const;

  /// Whether stderr is a terminal (isatty(2)): the usual way to choose
  /// ProgressOptions::interactive.
  static bool stderrIsTerminal();

  /// The width of the bar, in characters between the brackets.
  static constexpr int kBarWidth = 20;

private:
  using Clock = std::chrono::steady_clock;

  void draw(const std::string &line);
  double elapsedSeconds() const;

  std::FILE *out;
  int64_t totalEpochs;
  ProgressOptions options;
  Clock::time_point start, lastDraw;
  /// The latest update, kept so finish() can show it if it was skipped.
  std::string pendingLine;
  bool pending = false, drewAny = false, finished = false;
  size_t lastLength = 0; ///< Of the line on screen, to blank its tail.
};

/// A duration for a human, as precise as a progress line needs:
/// "850 ms" below a second, "12.3 s" below a minute, "4 min 05 s" below an
/// hour, then "1 h 02 min" (each rounded to its last unit). Negative, NaN,
/// infinite or absurdly long (> 10^9 s) durations read "--".
std::string formatDuration(double seconds);

} // namespace gnnrt

#endif // GNNRT_PROGRESS_H
