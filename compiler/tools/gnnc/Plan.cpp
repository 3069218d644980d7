//===- Plan.cpp - gnnc plan -----------------------------------------------===//
//
// Reads the memory plan gnn-plan-memory left on each step function and
// prints it three ways: a table for people, JSON for scripts
// (docs/MemoryPlanning.md lists its keys), and a hand-written SVG of each
// tier's bytes over the step's timeline. Sizes print with gnnrt's
// formatBytes, the formatter of `gnnc run`'s report, so the two agree.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/gnnc/Plan.h"

#include "dialects/Mem/MemOps.h"

#include "gnnrt/ProcessStats.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <vector>

using namespace gnnc;

namespace {

enum Tier { Device, Host, Disk, NumTiers };
const char *const kTierNames[NumTiers] = {"device", "host", "disk"};

/// One row of `mem.fates`: a saved tensor and what the plan does with it.
struct TensorFate {
  std::string name, location, fate;
  int64_t bytes = 0;
  double seconds = 0; ///< Added to the step by this fate.
  int64_t def = 0, lastForward = 0, firstBackward = 0;
};

/// Everything `gnnc plan` prints about one train block's step.
struct StepPlan {
  std::string function, model, dataset, policy, solver;
  std::optional<int64_t> budget;       ///< Unset: no `memory` setting.
  std::optional<int64_t> hostCapacity; ///< Unset: no `host_memory`.
  int64_t diskCapacity = 0;            ///< 0: no `disk = spill(...)`.
  std::string spillDir;
  std::array<int64_t, NumTiers> peak = {};
  double predictedSeconds = 0, keepAllSeconds = 0;
  /// The cache's part of predicted - keep-all (mem.cache_seconds): the
  /// result writes one of the two saves by staying in the cache and the
  /// other does not; 0 when both or neither do (docs/CostModel.md,
  /// "Results written within the cache").
  double cacheSeconds = 0;
  /// The split aggregations' part of it (mem.split_seconds): their blocks
  /// with every tensor kept, beyond the unsplit step's keep-all.
  double splitSeconds = 0;
  std::vector<TensorFate> fates;
  std::array<std::vector<int64_t>, NumTiers> curves;
  std::optional<int64_t> lossPoint;

  double overheadPercent() const {
    return keepAllSeconds > 0
               ? (predictedSeconds / keepAllSeconds - 1.0) * 100.0
               : 0.0;
  }
  /// Bytes of the tensors whose fate is \p fate.
  int64_t bytesWithFate(llvm::StringRef fate) const {
    int64_t sum = 0;
    for (const TensorFate &f : fates)
      if (f.fate == fate)
        sum += f.bytes;
    return sum;
  }
  /// The limit of \p tier, when there is one.
  std::optional<int64_t> capacity(Tier tier) const {
    if (tier == Device)
      return budget;
    if (tier == Host)
      return hostCapacity;
    return diskCapacity > 0 ? std::optional<int64_t>(diskCapacity)
                            : std::nullopt;
  }
};

/// The fates in the order the table and the totals list them.
const char *const kFates[] = {"keep", "recompute", "host",
                              "disk", "narrow",    "sign"};

std::string bytesText(int64_t bytes) {
  return gnnrt::formatBytes(static_cast<uint64_t>(std::max<int64_t>(bytes, 0)));
}

llvm::Error malformed(llvm::StringRef function, const llvm::Twine &what) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "the plan of @" + function + " is malformed: " + what +
          " (was it made by this gnnc's gnn-plan-memory?)");
}

llvm::Expected<StepPlan> readPlan(mlir::func::FuncOp func) {
  StepPlan plan;
  plan.function = func.getSymName().str();
  auto planAttr = func->getAttrOfType<mlir::mem::PlanAttr>("mem.plan");
  if (!planAttr)
    return malformed(plan.function, "no mem.plan");
  if (planAttr.getBudget() > 0)
    plan.budget = planAttr.getBudget();
  plan.peak = {planAttr.getPeakDevice(), planAttr.getPeakHost(),
               planAttr.getPeakDisk()};
  plan.predictedSeconds = planAttr.getPredictedSeconds().convertToDouble();
  plan.keepAllSeconds = planAttr.getKeepAllSeconds().convertToDouble();
  if (auto cache = func->getAttrOfType<mlir::FloatAttr>("mem.cache_seconds"))
    plan.cacheSeconds = cache.getValueAsDouble();
  if (auto split = func->getAttrOfType<mlir::FloatAttr>("mem.split_seconds"))
    plan.splitSeconds = split.getValueAsDouble();
  plan.policy = planAttr.getPolicy().str();
  if (auto solver = func->getAttrOfType<mlir::StringAttr>("mem.solver"))
    plan.solver = solver.getValue().str();
  else
    return malformed(plan.function, "no mem.solver");
  if (auto model = func->getAttrOfType<mlir::StringAttr>("gnn.model"))
    plan.model = model.getValue().str();
  // The limits the planner read, from the same train.config.
  if (auto config = func->getAttrOfType<mlir::DictionaryAttr>("train.config")) {
    if (auto dataset = config.getAs<mlir::StringAttr>("dataset"))
      plan.dataset = dataset.getValue().str();
    if (auto host = config.getAs<mlir::IntegerAttr>("host_memory"))
      plan.hostCapacity = host.getInt();
    if (auto disk = config.getAs<mlir::DictionaryAttr>("disk")) {
      if (auto bytes = disk.getAs<mlir::IntegerAttr>("bytes"))
        plan.diskCapacity = bytes.getInt();
      if (auto dir = disk.getAs<mlir::StringAttr>("dir"))
        plan.spillDir = dir.getValue().str();
    }
  }
  if (plan.model.empty())
    plan.model = llvm::StringRef(plan.function).split('.').first.str();

  auto rows = func->getAttrOfType<mlir::ArrayAttr>("mem.fates");
  if (!rows)
    return malformed(plan.function, "no mem.fates");
  for (mlir::Attribute a : rows) {
    auto row = llvm::cast<mlir::DictionaryAttr>(a); // The verifier's promise.
    TensorFate f;
    auto str = [&](llvm::StringRef key, std::string &out) {
      auto s = row.getAs<mlir::StringAttr>(key);
      if (s)
        out = s.getValue().str();
      return static_cast<bool>(s);
    };
    auto integer = [&](llvm::StringRef key, int64_t &out) {
      auto i = row.getAs<mlir::IntegerAttr>(key);
      if (i)
        out = i.getInt();
      return static_cast<bool>(i);
    };
    auto seconds = row.getAs<mlir::FloatAttr>("seconds");
    if (!str("name", f.name) || !str("fate", f.fate) ||
        !str("loc", f.location) || !integer("bytes", f.bytes) ||
        !integer("def", f.def) || !integer("last_forward", f.lastForward) ||
        !integer("first_backward", f.firstBackward) || !seconds)
      return malformed(plan.function, "a mem.fates row lacks a key");
    f.seconds = seconds.getValueAsDouble();
    if (!llvm::is_contained(kFates, f.fate))
      return malformed(plan.function, "unknown fate '" + f.fate + "'");
    plan.fates.push_back(std::move(f));
  }
  for (int t = 0; t < NumTiers; ++t) {
    std::string name = std::string("mem.") + kTierNames[t] + "_curve";
    auto curve = func->getAttrOfType<mlir::DenseI64ArrayAttr>(name);
    if (!curve)
      return malformed(plan.function, "no " + name);
    plan.curves[t].assign(curve.asArrayRef().begin(), curve.asArrayRef().end());
  }
  if (auto loss = func->getAttrOfType<mlir::IntegerAttr>("mem.loss_point"))
    plan.lossPoint = loss.getInt();
  return plan;
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

std::string limitText(const StepPlan &plan, Tier tier) {
  std::optional<int64_t> limit = plan.capacity(tier);
  switch (tier) {
  case Device:
    if (!limit)
      return "(no memory budget)";
    return "of " + bytesText(*limit) + " budget (" +
           bytesText(*limit - plan.peak[Device]) + " spare)";
  case Host:
    return limit ? "of " + bytesText(*limit) + " host_memory"
                 : "(no host_memory limit)";
  default:
    if (!limit)
      return "(no spill directory)";
    return "of " + bytesText(*limit) + " spill in '" + plan.spillDir + "'";
  }
}

std::string solverText(const StepPlan &plan) {
  if (plan.solver == "none")
    return "no solver (a forced policy)";
  return "solver " + plan.solver;
}

void printTable(const StepPlan &plan, llvm::raw_ostream &os) {
  os << plan.model << " on " << plan.dataset << ": ";
  if (plan.budget)
    os << "memory " << bytesText(*plan.budget);
  else
    os << "no memory budget";
  os << ", plan " << plan.policy << ", " << solverText(plan) << "\n";

  if (plan.fates.empty()) {
    os << "  no saved tensor has an op between its forward and backward "
          "uses: nothing to plan\n";
  } else {
    size_t nameWidth = 6, locWidth = 8, sizeWidth = 4, fateWidth = 4;
    for (const TensorFate &f : plan.fates) {
      nameWidth = std::max(nameWidth, f.name.size());
      locWidth = std::max(locWidth, f.location.size());
      sizeWidth = std::max(sizeWidth, bytesText(f.bytes).size());
      fateWidth = std::max(fateWidth, f.fate.size());
    }
    auto row = [&](llvm::StringRef name, llvm::StringRef loc,
                   llvm::StringRef size, llvm::StringRef fate,
                   llvm::StringRef cost) {
      os << "  " << llvm::left_justify(name, nameWidth) << "  "
         << llvm::left_justify(loc, locWidth) << "  "
         << llvm::right_justify(size, sizeWidth) << "  "
         << llvm::left_justify(fate, fateWidth) << "  " << cost << "\n";
    };
    row("tensor", "location", "size", "fate", "added time");
    for (const TensorFate &f : plan.fates)
      row(f.name, f.location, bytesText(f.bytes), f.fate,
          f.fate == "keep" ? std::string("-")
                           : llvm::formatv("{0:f3} ms", f.seconds * 1e3).str());
  }

  std::string totals;
  for (const char *fate : kFates) {
    llvm::StringRef label = llvm::StringSwitch<llvm::StringRef>(fate)
                                .Case("keep", "kept")
                                .Case("recompute", "recomputed")
                                .Case("host", "to host")
                                .Case("disk", "to disk")
                                .Case("narrow", "narrowed")
                                .Default("as signs");
    // The newest fate only where a plan has it, so older plans read as
    // they always did.
    if (llvm::StringRef(fate) == "sign" && plan.bytesWithFate(fate) == 0)
      continue;
    totals += (totals.empty() ? "" : ", ") + label.str() + " " +
              bytesText(plan.bytesWithFate(fate));
  }
  auto line = [&](llvm::StringRef label, const llvm::Twine &text) {
    os << "  " << llvm::left_justify(label, 13) << text << "\n";
  };
  line("totals", totals);
  for (int t = 0; t < NumTiers; ++t)
    line((std::string(kTierNames[t]) + " peak"),
         bytesText(plan.peak[t]) + " " + limitText(plan, Tier(t)));
  if (plan.cacheSeconds != 0)
    line("cache", llvm::formatv(
                      "{0}{1:f3} ms against keep-all: the cache holds more "
                      "of {2} step",
                      plan.cacheSeconds > 0 ? "+" : "", plan.cacheSeconds * 1e3,
                      plan.cacheSeconds < 0 ? "this plan's" : "keep-all's"));
  if (plan.splitSeconds != 0)
    line("blocks", llvm::formatv("{0}{1:f3} ms against keep-all: aggregations "
                                 "run by blocks of columns",
                                 plan.splitSeconds > 0 ? "+" : "",
                                 plan.splitSeconds * 1e3));
  line("step time",
       llvm::formatv("{0:f3} ms predicted, {1:f3} ms keeping every tensor "
                     "({2}{3:f1}% overhead)",
                     plan.predictedSeconds * 1e3, plan.keepAllSeconds * 1e3,
                     plan.overheadPercent() < 0 ? "" : "+",
                     plan.overheadPercent()));
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

llvm::json::Value optionalBytes(std::optional<int64_t> bytes) {
  return bytes ? llvm::json::Value(*bytes) : llvm::json::Value(nullptr);
}

llvm::json::Object toJson(const StepPlan &plan) {
  llvm::json::Array tensors;
  for (const TensorFate &f : plan.fates)
    tensors.push_back(llvm::json::Object{{"name", f.name},
                                         {"location", f.location},
                                         {"bytes", f.bytes},
                                         {"fate", f.fate},
                                         {"added_seconds", f.seconds},
                                         {"def", f.def},
                                         {"last_forward", f.lastForward},
                                         {"first_backward", f.firstBackward}});
  llvm::json::Object totals;
  for (const char *fate : kFates)
    totals[std::string(fate) + "_bytes"] = plan.bytesWithFate(fate);
  llvm::json::Object timeline{
      {"loss_point", plan.lossPoint ? llvm::json::Value(*plan.lossPoint)
                                    : llvm::json::Value(nullptr)}};
  for (int t = 0; t < NumTiers; ++t)
    timeline[std::string(kTierNames[t]) + "_bytes"] =
        llvm::json::Array(plan.curves[t]);
  return llvm::json::Object{
      {"function", plan.function},
      {"model", plan.model},
      {"dataset", plan.dataset},
      {"policy", plan.policy},
      {"solver", plan.solver},
      {"budget_bytes", optionalBytes(plan.budget)},
      {"capacity",
       llvm::json::Object{{"host_bytes", optionalBytes(plan.hostCapacity)},
                          {"disk_bytes", optionalBytes(plan.capacity(Disk))}}},
      {"tensors", std::move(tensors)},
      {"totals", std::move(totals)},
      {"peak", llvm::json::Object{{"device_bytes", plan.peak[Device]},
                                  {"host_bytes", plan.peak[Host]},
                                  {"disk_bytes", plan.peak[Disk]}}},
      {"predicted_seconds", plan.predictedSeconds},
      {"keep_all_seconds", plan.keepAllSeconds},
      {"cache_seconds", plan.cacheSeconds},
      {"split_seconds", plan.splitSeconds},
      {"overhead_percent", plan.overheadPercent()},
      {"timeline", std::move(timeline)}};
}

//===----------------------------------------------------------------------===//
// SVG
//===----------------------------------------------------------------------===//

std::string xmlEscape(llvm::StringRef text) {
  std::string s;
  for (char c : text) {
    switch (c) {
    case '&':
      s += "&amp;";
      break;
    case '<':
      s += "&lt;";
      break;
    case '>':
      s += "&gt;";
      break;
    case '"':
      s += "&quot;";
      break;
    default:
      s += c;
    }
  }
  return s;
}

// Tier colours (Tableau 10: distinct for the colour-blind), the limit's red.
const char *const kTierFill[NumTiers] = {"#4e79a7", "#f28e2b", "#59a14f"};
const char *const kLimitColor = "#d62728";

/// Restore markers: offloaded tensors in their tier's colour.
const char *fateColor(llvm::StringRef fate) {
  return llvm::StringSwitch<const char *>(fate)
      .Case("recompute", "#b07aa1")
      .Case("host", kTierFill[Host])
      .Case("disk", kTierFill[Disk])
      .Default("#9c755f");
}

constexpr double kWidth = 960, kLeft = 92, kRight = 24;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPanelHeight[NumTiers] = {230, 100, 100};
constexpr double kPanelGap = 40; // Room for the panel's caption.

/// A byte step for about four ticks: a power of two, so the labels read as
/// round binary sizes (512 KiB, 1.00 MiB, ...).
int64_t tickStep(int64_t top) {
  int64_t step = 1;
  while (step * 4 < top)
    step *= 2;
  return step;
}

/// A point step for at most about twelve labelled ticks: 1, 2, 5, 10, ...
int64_t pointStep(int64_t points) {
  for (int64_t scale = 1;; scale *= 10)
    for (int64_t m : {1, 2, 5})
      if (points / (m * scale) <= 12)
        return m * scale;
}

class SvgFigure {
public:
  SvgFigure(const StepPlan &plan, llvm::raw_ostream &os)
      : plan(plan), os(os),
        points(static_cast<int64_t>(plan.curves[Device].size())) {}

  static double height() {
    double h = 92;
    for (double p : kPanelHeight)
      h += kPanelGap + p;
    return h + 52;
  }

  void write(double top) {
    os << llvm::formatv("<g transform=\"translate(0,{0})\">\n", top);
    header();
    double y = 92;
    for (int t = 0; t < NumTiers; ++t) {
      y += kPanelGap;
      panel(Tier(t), y);
      panelTop[t] = y;
      y += kPanelHeight[t];
    }
    boundary(panelTop[Device], y);
    xAxis(y);
    os << "</g>\n";
  }

private:
  double x(int64_t point) const {
    return kLeft + kPlotWidth * static_cast<double>(point) /
                       static_cast<double>(std::max<int64_t>(points, 1));
  }

  void text(double tx, double ty, llvm::StringRef s,
            llvm::StringRef attrs = "") {
    os << llvm::formatv("<text x=\"{0:f1}\" y=\"{1:f1}\"{2}{3}>{4}</text>\n",
                        tx, ty, attrs.empty() ? "" : " ", attrs, xmlEscape(s));
  }

  void header() {
    text(kLeft, 26,
         plan.model + " on " + plan.dataset +
             ": bytes held per tier over one training step",
         "class=\"title\"");
    std::string sub =
        (plan.budget ? "memory " + bytesText(*plan.budget)
                     : std::string("no memory budget")) +
        ", plan " + plan.policy + ", " + solverText(plan) +
        llvm::formatv("; predicted step {0:f3} ms, {1}{2:f1}% vs keeping "
                      "every tensor",
                      plan.predictedSeconds * 1e3,
                      plan.overheadPercent() < 0 ? "" : "+",
                      plan.overheadPercent())
            .str();
    text(kLeft, 46, sub);
    // The legend.
    double lx = kLeft, ly = 70;
    for (int t = 0; t < NumTiers; ++t) {
      os << llvm::formatv(
          "<rect x=\"{0:f1}\" y=\"{1:f1}\" width=\"14\" "
          "height=\"10\" fill=\"{2}\" fill-opacity=\"0.75\"/>\n",
          lx, ly - 9, kTierFill[t]);
      text(lx + 19, ly, kTierNames[t]);
      lx += 70;
    }
    auto legendLine = [&](llvm::StringRef stroke, llvm::StringRef dash,
                          llvm::StringRef label, double width) {
      os << llvm::formatv(
          "<line x1=\"{0:f1}\" y1=\"{1:f1}\" x2=\"{2:f1}\" "
          "y2=\"{1:f1}\" stroke=\"{3}\" stroke-width=\"2\"{4}/>\n",
          lx, ly - 4, lx + 22, stroke, dash);
      text(lx + 27, ly, label);
      lx += width;
    };
    legendLine(kLimitColor, "", "budget / capacity", 150);
    legendLine("#222", " stroke-dasharray=\"6 3\"", "planned device peak", 165);
    if (plan.lossPoint)
      legendLine("#777", " stroke-dasharray=\"2 3\"",
                 "loss: forward | backward", 180);
    if (llvm::any_of(plan.fates,
                     [](const TensorFate &f) { return f.fate != "keep"; })) {
      os << llvm::formatv("<path d=\"M{0:f1},{1:f1} l-5,-8 h10 Z\" "
                          "fill=\"{2}\"/>\n",
                          lx + 11, ly, fateColor("recompute"));
      text(lx + 22, ly, "a tensor comes back");
    }
  }

  void panel(Tier tier, double top) {
    const std::vector<int64_t> &curve = plan.curves[tier];
    double height = kPanelHeight[tier];
    double bottom = top + height;
    int64_t curveMax = 0;
    for (int64_t v : curve)
      curveMax = std::max(curveMax, v);
    int64_t held = std::max(curveMax, plan.peak[tier]);
    std::optional<int64_t> limit = plan.capacity(tier);
    // A limit far above what the tier holds would flatten the band to a
    // line; it is named in the caption instead.
    bool drawLimit = limit && (held == 0 || *limit <= 4 * held);
    int64_t scaleTop = std::max<int64_t>(held, 1);
    if (drawLimit)
      scaleTop = std::max(scaleTop, *limit);
    // Headroom above the highest line for its label, the restore markers
    // and the forward/backward labels.
    scaleTop += scaleTop / 6;
    auto y = [&](int64_t bytes) {
      return bottom - height * static_cast<double>(bytes) /
                          static_cast<double>(scaleTop);
    };

    std::string caption = std::string(kTierNames[tier]) + ": peak " +
                          bytesText(plan.peak[tier]) + " " +
                          limitText(plan, tier);
    if (limit && !drawLimit)
      caption += ", off the scale";
    text(kLeft, top - 8, caption, "class=\"caption\"");

    // Frame, grid and byte ticks.
    os << llvm::formatv(
        "<rect x=\"{0:f1}\" y=\"{1:f1}\" width=\"{2:f1}\" "
        "height=\"{3:f1}\" fill=\"#fafafa\" stroke=\"#bbb\"/>\n",
        kLeft, top, kPlotWidth, height);
    if (held == 0 && !drawLimit) {
      text(kLeft + 12, top + height / 2 + 4,
           std::string("nothing is held in this tier"), "fill=\"#888\"");
      text(kLeft - 6, bottom + 4, "0 B", "text-anchor=\"end\"");
    } else {
      int64_t step = tickStep(scaleTop);
      for (int64_t b = 0; b <= scaleTop; b += step) {
        if (b > 0)
          os << llvm::formatv("<line x1=\"{0:f1}\" y1=\"{1:f1}\" x2=\"{2:f1}\" "
                              "y2=\"{1:f1}\" stroke=\"#e3e3e3\"/>\n",
                              kLeft, y(b), kLeft + kPlotWidth);
        text(kLeft - 6, y(b) + 4, bytesText(b), "text-anchor=\"end\"");
      }
    }

    // The band: a step function, one level per timeline point.
    if (!curve.empty() && curveMax > 0) {
      os << llvm::formatv(
          "<path fill=\"{0}\" fill-opacity=\"0.75\" "
          "stroke=\"{0}\" stroke-width=\"1\" d=\"M{1:f1},{2:f1}",
          kTierFill[tier], x(0), bottom);
      for (size_t i = 0; i < curve.size(); ++i) {
        if (i > 0 && curve[i] == curve[i - 1])
          continue;
        os << llvm::formatv(" L{0:f1},{1:f1}", x(i), y(curve[i]));
        size_t j = i;
        while (j + 1 < curve.size() && curve[j + 1] == curve[i])
          ++j;
        os << llvm::formatv(" L{0:f1},{1:f1}", x(j + 1), y(curve[i]));
      }
      os << llvm::formatv(" L{0:f1},{1:f1} Z\"/>\n", x(points), bottom);
    }

    // The limit, and on the device the peak the placed arena reaches.
    if (drawLimit) {
      os << llvm::formatv("<line class=\"limit\" x1=\"{0:f1}\" y1=\"{1:f1}\" "
                          "x2=\"{2:f1}\" y2=\"{1:f1}\" stroke=\"{3}\" "
                          "stroke-width=\"2\"/>\n",
                          kLeft, y(*limit), kLeft + kPlotWidth, kLimitColor);
      std::string what = tier == Device ? "budget"
                         : tier == Host ? "host_memory"
                                        : "spill";
      text(kLeft + kPlotWidth - 4, y(*limit) - 4,
           what + " " + bytesText(*limit),
           llvm::formatv("class=\"halo\" text-anchor=\"end\" fill=\"{0}\"",
                         kLimitColor)
               .str());
    }
    if (tier == Device) {
      os << llvm::formatv("<line class=\"peak\" x1=\"{0:f1}\" y1=\"{1:f1}\" "
                          "x2=\"{2:f1}\" y2=\"{1:f1}\" stroke=\"#222\" "
                          "stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>\n",
                          kLeft, y(plan.peak[Device]), kLeft + kPlotWidth);
      // At the left, where a step holds little beyond the session's bytes,
      // so the label rarely hides the band.
      text(kLeft + 4, y(plan.peak[Device]) + 14,
           "planned peak " + bytesText(plan.peak[Device]) +
               " (the arena as placed, with the session's bytes)",
           "class=\"halo\"");
      restoreMarkers(top);
    }
  }

  /// A triangle where each tensor that left the device comes back (the
  /// boundary before its first backward use), in its fate's colour; the
  /// tensor's name and fate show on hover.
  void restoreMarkers(double top) {
    for (const TensorFate &f : plan.fates) {
      if (f.fate == "keep")
        continue;
      double mx = x(2 * f.firstBackward);
      os << llvm::formatv("<path class=\"restore\" d=\"M{0:f1},{1:f1} "
                          "l-5,-8 h10 Z\" fill=\"{2}\"><title>{3}</title>"
                          "</path>\n",
                          mx, top + 10, fateColor(f.fate),
                          xmlEscape(f.fate + " " + f.name + " (" + f.location +
                                    ", " + bytesText(f.bytes) + ")"));
    }
  }

  void boundary(double top, double bottom) {
    if (!plan.lossPoint)
      return;
    double bx = x(*plan.lossPoint + 1);
    os << llvm::formatv("<line x1=\"{0:f1}\" y1=\"{1:f1}\" x2=\"{0:f1}\" "
                        "y2=\"{2:f1}\" stroke=\"#777\" stroke-width=\"1.5\" "
                        "stroke-dasharray=\"2 3\"/>\n",
                        bx, top, bottom);
    text(bx - 6, top + 24, "forward",
         "class=\"halo\" text-anchor=\"end\" fill=\"#555\"");
    text(bx + 6, top + 24, "backward", "class=\"halo\" fill=\"#555\"");
  }

  void xAxis(double bottom) {
    int64_t step = pointStep(points);
    for (int64_t p = 0; p <= points; p += step) {
      os << llvm::formatv("<line x1=\"{0:f1}\" y1=\"{1:f1}\" x2=\"{0:f1}\" "
                          "y2=\"{2:f1}\" stroke=\"#888\"/>\n",
                          x(p), bottom, bottom + 5);
      text(x(p), bottom + 18, std::to_string(p), "text-anchor=\"middle\"");
    }
    text(kLeft + kPlotWidth / 2, bottom + 40,
         "schedule point (two per op: the boundary before it, then the op)",
         "text-anchor=\"middle\"");
  }

  const StepPlan &plan;
  llvm::raw_ostream &os;
  int64_t points;
  double panelTop[NumTiers] = {};
};

void writeSvg(llvm::ArrayRef<StepPlan> plans, llvm::raw_ostream &os) {
  double height = SvgFigure::height() * static_cast<double>(plans.size());
  os << llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                      "width=\"{0:f0}\" height=\"{1:f0}\" "
                      "viewBox=\"0 0 {0:f0} {1:f0}\" "
                      "font-family=\"Helvetica, Arial, sans-serif\" "
                      "font-size=\"12\">\n",
                      kWidth, height);
  os << "<title>gnnc plan: memory over the training step</title>\n"
        "<style>.title{font-size:16px;font-weight:bold}"
        ".caption{font-weight:bold}"
        // Labels over the bands stay readable on a white halo.
        ".halo{paint-order:stroke;stroke:white;stroke-width:3px;"
        "stroke-linejoin:round}</style>\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  for (auto [i, plan] : llvm::enumerate(plans))
    SvgFigure(plan, os).write(SvgFigure::height() * static_cast<double>(i));
  os << "</svg>\n";
}

} // namespace

int gnnc::planProgram(Compilation &compilation, const PlanOptions &options,
                      llvm::raw_ostream &os) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      compilation.lowerTo(Stage::Plan, /*cpuTarget=*/!options.cudaTarget);
  if (!module)
    return 1;
  std::vector<StepPlan> plans;
  for (auto func : module->getOps<mlir::func::FuncOp>()) {
    if (!func->hasAttr("mem.plan"))
      continue;
    llvm::Expected<StepPlan> plan = readPlan(func);
    if (!plan) {
      reportToolError(llvm::errs(), llvm::toString(plan.takeError()));
      return 1;
    }
    plans.push_back(std::move(*plan));
  }

  if (options.json) {
    llvm::json::Array trains;
    for (const StepPlan &plan : plans)
      trains.push_back(toJson(plan));
    os << llvm::formatv("{0:2}",
                        llvm::json::Value(llvm::json::Object{
                            {"gnnc_plan_version", 1},
                            {"file", compilation.getChecked().filename},
                            {"trains", std::move(trains)}}))
       << "\n";
  } else {
    for (auto [i, plan] : llvm::enumerate(plans)) {
      if (i > 0)
        os << "\n";
      printTable(plan, os);
    }
  }
  os.flush();

  if (!options.svgFile.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream file(options.svgFile, ec, llvm::sys::fs::OF_Text);
    if (!ec) {
      writeSvg(plans, file);
      file.close();
      ec = file.error();
      // Reported below; an unchecked stream error would abort instead.
      file.clear_error();
    }
    if (ec) {
      reportToolError(llvm::errs(), "cannot write the SVG to '" +
                                        options.svgFile + "': " + ec.message());
      return 1;
    }
  }
  return 0;
}
