//===- ProgressTest.cpp - The training progress line ----------------------===//
//
// Lines are checked exactly through formatLine (time passed in) and by shape
// through update() (time measured, so the numbers vary), both written to a
// tmpfile() and read back.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <regex>
#include <thread>

using namespace gnnrt;

namespace {

/// Everything written to \p file so far.
std::string contents(std::FILE *file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
    text.append(buffer, n);
  return text;
}

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == separator) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

struct TmpFile {
  std::FILE *file = std::tmpfile();
  ~TmpFile() {
    if (file)
      std::fclose(file);
  }
};

ProgressOptions plain(int64_t every = 10) {
  ProgressOptions options;
  options.interactive = false;
  options.plainEvery = every;
  return options;
}

TEST(FormatDuration, PicksTheUnitFromTheRoundedValue) {
  EXPECT_EQ(formatDuration(0), "0 ms");
  EXPECT_EQ(formatDuration(0.85), "850 ms");
  EXPECT_EQ(formatDuration(0.9996), "1.0 s");
  EXPECT_EQ(formatDuration(1.8), "1.8 s");
  EXPECT_EQ(formatDuration(12.34), "12.3 s");
  EXPECT_EQ(formatDuration(59.96), "1 min 00 s");
  EXPECT_EQ(formatDuration(245), "4 min 05 s");
  EXPECT_EQ(formatDuration(3599.4), "59 min 59 s");
  EXPECT_EQ(formatDuration(3599.6), "1 h 00 min");
  EXPECT_EQ(formatDuration(3720), "1 h 02 min");
  EXPECT_EQ(formatDuration(100 * 3600 + 59), "100 h 01 min");
  EXPECT_EQ(formatDuration(-1), "--");
  EXPECT_EQ(formatDuration(std::nan("")), "--");
  EXPECT_EQ(formatDuration(std::numeric_limits<double>::infinity()), "--");
}

TEST(Progress, FormatsTheStatusLine) {
  Progress progress(nullptr, 200, plain());
  EXPECT_EQ(progress.formatLine(57, 0.54321, {{"val_acc", 0.782}}, 57 * 0.0123),
            "epoch  57/200 [#####---------------]  loss 0.5432  val_acc "
            "0.7820  12.3 ms/epoch  ETA 1.8 s");
  EXPECT_EQ(progress.formatLine(200, 0.1, {}, 2.5),
            "epoch 200/200 [####################]  loss 0.1000  12.5 "
            "ms/epoch  total 2.5 s");
  EXPECT_EQ(progress.formatLine(1, std::nan(""), {}, 0.00042),
            "epoch   1/200 [--------------------]  loss nan  0.42 ms/epoch  "
            "ETA 84 ms");
  EXPECT_EQ(progress.formatLine(100, 1, {{"a", 1}, {"b", 0.5}}, 300),
            "epoch 100/200 [##########----------]  loss 1.0000  a 1.0000  b "
            "0.5000  3.0 s/epoch  ETA 5 min 00 s");

  Progress unknown(nullptr, 0, plain());
  EXPECT_EQ(unknown.formatLine(7, 0.5, {}, 0.7),
            "epoch 7  loss 0.5000  100 ms/epoch  elapsed 700 ms");
}

TEST(Progress, PlainPrintsEveryNthEpochAndTheLast) {
  TmpFile out;
  ASSERT_NE(out.file, nullptr);
  {
    Progress progress(out.file, 25, plain(10));
    for (int64_t epoch = 1; epoch <= 25; ++epoch)
      progress.update(epoch, 1.0 / epoch, {{"val_acc", 0.5}});
    progress.finish();
  }
  std::vector<std::string> lines = split(contents(out.file), '\n');
  ASSERT_EQ(lines.size(), 4u); // Three lines and the empty rest.
  EXPECT_EQ(lines[3], "");
  std::regex shape(R"(epoch (10|20|25)/25 \[#*-*\]  loss \d\.\d{4}  )"
                   R"(val_acc 0\.5000  [0-9.]+ ms/epoch  (ETA|total) .+)");
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(std::regex_match(lines[i], shape)) << lines[i];
  EXPECT_EQ(lines[0].substr(0, 34), "epoch 10/25 [########------------]");
  EXPECT_EQ(lines[1].substr(0, 34), "epoch 20/25 [################----]");
  EXPECT_NE(lines[2].find("total "), std::string::npos);
  EXPECT_EQ(contents(out.file).find('\r'), std::string::npos);
}

TEST(Progress, FinishShowsTheLastEpochOfAnEarlyStop) {
  TmpFile out;
  ASSERT_NE(out.file, nullptr);
  Progress progress(out.file, 200, plain(10));
  for (int64_t epoch = 1; epoch <= 37; ++epoch)
    progress.update(epoch, 0.5, {});
  EXPECT_EQ(split(contents(out.file), '\n').size(), 4u);
  progress.finish();
  progress.finish();            // Idempotent.
  progress.update(38, 0.5, {}); // Ignored after finish.
  std::vector<std::string> lines = split(contents(out.file), '\n');
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[3].substr(0, 14), "epoch  37/200 ");
  EXPECT_NE(lines[3].find("ETA"), std::string::npos);
}

TEST(Progress, PlainEveryZeroPrintsOnlyTheEnd) {
  TmpFile out;
  ASSERT_NE(out.file, nullptr);
  {
    Progress progress(out.file, 30, plain(0));
    for (int64_t epoch = 1; epoch <= 30; ++epoch)
      progress.update(epoch, 0.5, {});
  } // The destructor finishes.
  std::vector<std::string> lines = split(contents(out.file), '\n');
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].substr(0, 12), "epoch 30/30 ");
}

TEST(Progress, DisabledPrintsNothing) {
  TmpFile out;
  ASSERT_NE(out.file, nullptr);
  for (bool interactive : {false, true}) {
    ProgressOptions options;
    options.enabled = false;
    options.interactive = interactive;
    Progress progress(out.file, 5, options);
    for (int64_t epoch = 1; epoch <= 5; ++epoch)
      progress.update(epoch, 0.5, {{"val_acc", 0.1}});
    progress.finish();
  }
  EXPECT_EQ(contents(out.file), "");
}

TEST(Progress, InteractiveRedrawsOneLine) {
  TmpFile out;
  ASSERT_NE(out.file, nullptr);
  ProgressOptions options;
  options.interactive = true;
  {
    Progress progress(out.file, 100, options);
    // The first update draws; the next ones come within 50 ms and wait.
    progress.update(1, 0.5, {{"val_acc", 0.25}, {"val_f1", 0.125}});
    for (int64_t epoch = 2; epoch <= 40; ++epoch)
      progress.update(epoch, 0.5, {});
    // Later than the redraw interval: drawn, and shorter than the first
    // line, so padded with blanks over its tail.
    std::this_thread::sleep_for(std::chrono::milliseconds(80));
    progress.update(41, 0.5, {});
    progress.update(42, 0.25, {});
    progress.finish();
  }
  std::string text = contents(out.file);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.front(), '\r');
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1) << "one line only";
  std::vector<std::string> draws = split(text.substr(1, text.size() - 2), '\r');
  // Normally three draws (epochs 1, 41 and, from finish(), 42); a loaded
  // machine may pause long enough for the throttle to let one more through.
  ASSERT_GE(draws.size(), 3u) << text;
  EXPECT_EQ(draws[0].substr(0, 14), "epoch   1/100 ");
  EXPECT_NE(draws[0].find("val_f1 0.1250"), std::string::npos);
  // The next line is shorter and blanks the rest of the first.
  EXPECT_EQ(draws[1].size(), draws[0].size());
  EXPECT_EQ(draws[1].find("val_acc"), std::string::npos);
  EXPECT_EQ(draws[1].back(), ' ');
  EXPECT_EQ(draws[draws.size() - 2].substr(0, 14), "epoch  41/100 ");
  // finish() shows the update the throttle held back.
  EXPECT_EQ(draws.back().substr(0, 36), "epoch  42/100 [########------------]");
  EXPECT_NE(draws.back().find("loss 0.2500"), std::string::npos);
}

TEST(Progress, StderrIsTerminalAnswers) {
  // Under ctest stderr is a pipe or file; either way the call must not
  // crash and must agree with isatty.
  bool terminal = Progress::stderrIsTerminal();
  EXPECT_EQ(terminal, Progress::stderrIsTerminal());
}

} // namespace
