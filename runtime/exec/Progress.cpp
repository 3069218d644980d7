//===- Progress.cpp - Training progress on a terminal or in a log ---------===//
//
// A small GNN epoch can take well under a millisecond, so the terminal is
// redrawn at most every 50 ms: drawing every epoch would make the progress
// bar cost more than the training. Lines are formatted every update anyway
// (microseconds), so finish() can always show the true last state.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Progress.h"

#include <algorithm>
#include <cmath>
#include <unistd.h>

using namespace gnnrt;

static constexpr double kRedrawSeconds = 0.05;

std::string gnnrt::formatDuration(double seconds) {
  if (!(seconds >= 0) || seconds > 1e9)
    return "--";
  char buffer[48];
  // Pick the unit from the rounded value, so 59.96 s reads "1 min 00 s"
  // rather than "60.0 s".
  double ms = std::round(seconds * 1000);
  if (ms < 1000) {
    std::snprintf(buffer, sizeof(buffer), "%.0f ms", ms);
    return buffer;
  }
  double tenths = std::round(seconds * 10);
  if (tenths < 600) {
    std::snprintf(buffer, sizeof(buffer), "%.1f s", tenths / 10);
    return buffer;
  }
  auto wholeSeconds = static_cast<int64_t>(std::round(seconds));
  if (wholeSeconds < 3600) {
    std::snprintf(buffer, sizeof(buffer), "%d min %02d s",
                  static_cast<int>(wholeSeconds / 60),
                  static_cast<int>(wholeSeconds % 60));
    return buffer;
  }
  auto minutes = static_cast<int64_t>(std::round(seconds / 60));
  std::snprintf(buffer, sizeof(buffer), "%lld h %02d min",
                static_cast<long long>(minutes / 60),
                static_cast<int>(minutes % 60));
  return buffer;
}

/// The time per epoch: milliseconds with three significant digits below a
/// second ("0.85 ms", "12.3 ms", "850 ms"), then as formatDuration.
static std::string formatPerEpoch(double seconds) {
  if (!(seconds >= 0) || seconds > 1e9)
    return "--";
  double ms = seconds * 1000;
  char buffer[48];
  if (std::round(ms * 100) < 1000)
    std::snprintf(buffer, sizeof(buffer), "%.2f ms", ms);
  else if (std::round(ms * 10) < 1000)
    std::snprintf(buffer, sizeof(buffer), "%.1f ms", ms);
  else if (std::round(ms) < 1000)
    std::snprintf(buffer, sizeof(buffer), "%.0f ms", ms);
  else
    return formatDuration(seconds);
  return buffer;
}

Progress::Progress(std::FILE *out, int64_t totalEpochs, ProgressOptions options)
    : out(out), totalEpochs(totalEpochs), options(options), start(Clock::now()),
      lastDraw(start) {}

Progress::~Progress() { finish(); }

bool Progress::stderrIsTerminal() { return isatty(2) == 1; }

double Progress::elapsedSeconds() const {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string Progress::formatLine(int64_t epoch, double loss,
                                 const ProgressMetrics &metrics,
                                 double elapsed) const {
  std::string line = "epoch ";
  if (totalEpochs > 0) {
    // The epoch is padded to the total's width so the line does not
    // shift as the count grows.
    std::string total = std::to_string(totalEpochs);
    std::string current = std::to_string(epoch);
    if (current.size() < total.size())
      line.append(total.size() - current.size(), ' ');
    line += current + "/" + total + " [";
    int64_t filled = std::max<int64_t>(0, std::min(epoch, totalEpochs)) *
                     kBarWidth / totalEpochs;
    line.append(static_cast<size_t>(filled), '#');
    line.append(static_cast<size_t>(kBarWidth - filled), '-');
    line += "]";
  } else {
    line += std::to_string(epoch);
  }

  char number[48];
  std::snprintf(number, sizeof(number), "%.4f", loss);
  line += "  loss ";
  line += number;
  for (const auto &[name, value] : metrics) {
    std::snprintf(number, sizeof(number), "%.4f", value);
    line += "  " + name + " " + number;
  }

  if (epoch > 0)
    line += "  " + formatPerEpoch(elapsed / epoch) + "/epoch";
  if (totalEpochs > 0 && epoch >= totalEpochs)
    line += "  total " + formatDuration(elapsed);
  else if (totalEpochs > 0 && epoch > 0)
    line += "  ETA " + formatDuration(elapsed / epoch * (totalEpochs - epoch));
  else
    line += "  elapsed " + formatDuration(elapsed);
  return line;
}

void Progress::draw(const std::string &line) {
  if (options.interactive) {
    // Blank what is left of a longer previous line instead of using an
    // escape sequence, which a dumb terminal would print.
    std::string text = "\r" + line;
    if (line.size() < lastLength)
      text.append(lastLength - line.size(), ' ');
    std::fputs(text.c_str(), out);
    lastLength = line.size();
  } else {
    std::fputs(line.c_str(), out);
    std::fputc('\n', out);
  }
  std::fflush(out);
  drewAny = true;
  pending = false;
  lastDraw = Clock::now();
}

void Progress::update(int64_t epoch, double loss,
                      const ProgressMetrics &metrics) {
  if (!options.enabled || finished || !out)
    return;
  pendingLine = formatLine(epoch, loss, metrics, elapsedSeconds());
  pending = true;
  bool last = totalEpochs > 0 && epoch >= totalEpochs;
  bool show;
  if (options.interactive)
    show = last || !drewAny ||
           std::chrono::duration<double>(Clock::now() - lastDraw).count() >=
               kRedrawSeconds;
  else
    show = last || (options.plainEvery > 0 && epoch % options.plainEvery == 0);
  if (show)
    draw(pendingLine);
}

void Progress::finish() {
  if (finished)
    return;
  finished = true;
  if (!options.enabled || !out)
    return;
  if (pending)
    draw(pendingLine);
  if (options.interactive && drewAny) {
    std::fputc('\n', out);
    std::fflush(out);
  }
}
