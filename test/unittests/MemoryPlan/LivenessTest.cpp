//===- LivenessTest.cpp - The planner's analyses on every shipped example -===//
//
// Every `examples/*.gnn` goes through the Driver to stage cpp on its own
// dataset (the shapes the planner will really see), and for each function:
// * every value's interval lies within the schedule and covers its uses;
// * the live-bytes curve is the sum of the arena slots live at each point,
//   recomputed here from the intervals;
// * gnn-assign-buffers placed what the analysis calls arena values at
//   disjoint offsets whenever their intervals overlap, within
//   gnn.arena_bytes; hence the live-bytes peak never exceeds the arena (it
//   is the lower bound any placement must pay, first fit may pay more);
// * a step has a loss, saves something, and saves only forward values
//   read after the loss; other functions save nothing.
//
//===----------------------------------------------------------------------===//
#include "passes/MemoryPlan/Liveness.h"

#include "compiler/Driver/Driver.h"
#include "dialects/Gnn/Elementwise.h"
#include "test/unittests/ExampleFiles.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::gnn;

namespace {

class ExampleLiveness : public ::testing::TestWithParam<std::string> {
protected:
  /// Compiles the example to stage cpp into `module`; a fatal failure on
  /// error, a skip without the shipped datasets.
  void compile() {
    if (!llvm::sys::fs::is_directory(GNNC_TEST_DATA_DIR))
      GTEST_SKIP() << "no shipped datasets at " GNNC_TEST_DATA_DIR;
    std::string path = std::string(GNNC_SOURCE_DIR) + "/examples/" + GetParam();
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    std::stringstream text;
    text << in.rdbuf();
    std::string source = gnnc::test::withoutLaterSettings(text.str());

    gnnc::DriverOptions options;
    options.inputFile = path;
    options.dataDirs = {GNNC_TEST_DATA_DIR};
    diagOS = std::make_unique<llvm::raw_string_ostream>(diags);
    compilation = std::make_unique<gnnc::Compilation>(options, *diagOS);
    ASSERT_TRUE(compilation->runFrontendOn(source)) << diags;
    module = compilation->lowerTo(gnnc::Stage::Cpp);
    ASSERT_TRUE(module) << diags;
  }

  std::string diags;
  std::unique_ptr<llvm::raw_string_ostream> diagOS;
  std::unique_ptr<gnnc::Compilation> compilation;
  OwningOpRef<ModuleOp> module;
};

/// The intervals against the IR itself.
void checkIntervals(const StepLiveness &live) {
  int64_t n = static_cast<int64_t>(live.getSchedule().size());
  for (const ValueLiveness &info : live.getValues()) {
    if (isa<BlockArgument>(info.value)) {
      EXPECT_EQ(info.def, StepLiveness::kEntry);
      EXPECT_EQ(info.storage, Storage::Argument);
    } else {
      EXPECT_EQ(info.def, live.getIndex(info.value.getDefiningOp()));
      EXPECT_GE(info.def, 0);
      EXPECT_NE(info.storage, Storage::Argument);
    }
    EXPECT_GE(info.lastUse, info.def);
    EXPECT_LT(info.lastUse, n);
    for (Operation *user : info.value.getUsers())
      EXPECT_GE(info.lastUse, live.getIndex(user));
    // A view keeps its source alive as long as itself.
    if (Value source = getViewSource(info.value)) {
      EXPECT_GE(live.lookup(source).lastUse, info.lastUse);
    }
    // Static sizes only; 0 bytes (a tensor<0xf32>) is allowed.
    EXPECT_GE(info.bytes, 0);
    // An in-place result continues the slot of an operand that dies at its
    // op, read at the element, with the same slot size.
    if (Value in = info.inPlaceOf) {
      const ValueLiveness &operand = live.lookup(in);
      Operation *op = info.value.getDefiningOp();
      EXPECT_TRUE(llvm::is_contained(inPlaceReads(op),
                                     std::pair<Value, bool>{in, false}));
      EXPECT_TRUE(operand.handedOn);
      EXPECT_EQ(operand.lastUse, info.def);
      EXPECT_EQ(operand.storage, Storage::Arena);
      EXPECT_EQ(info.storage, Storage::Arena);
      EXPECT_EQ(alignToArena(operand.bytes), alignToArena(info.bytes));
    }
  }
  // Each handed-on value is some result's inPlaceOf, exactly once.
  for (const ValueLiveness &info : live.getValues()) {
    if (!info.handedOn)
      continue;
    int takers = 0;
    for (const ValueLiveness &other : live.getValues())
      takers += other.inPlaceOf == info.value;
    EXPECT_EQ(takers, 1);
  }
}

/// The last schedule index a value's own slot bytes count: a handed-on
/// value gives its slot to its last user's result at that op.
int64_t slotEnd(const ValueLiveness &info) {
  return info.handedOn ? info.lastUse - 1 : info.lastUse;
}

/// The live-bytes curve from the intervals, by brute force.
void checkCurve(const StepLiveness &live) {
  int64_t n = static_cast<int64_t>(live.getSchedule().size());
  ASSERT_EQ(static_cast<int64_t>(live.getLiveBytes().size()), n);
  int64_t peak = 0, peakIndex = -1;
  for (int64_t i = 0; i < n; ++i) {
    int64_t bytes = 0;
    for (const ValueLiveness &info : live.getValues())
      if (info.storage == Storage::Arena && info.def <= i && i <= slotEnd(info))
        bytes += alignToArena(info.bytes);
    EXPECT_EQ(live.getLiveBytes()[i], bytes) << "at point " << i;
    if (bytes > peak) {
      peak = bytes;
      peakIndex = i;
    }
  }
  EXPECT_EQ(live.getPeakBytes(), peak);
  EXPECT_EQ(live.getPeakIndex(), peakIndex);
}

/// gnn-assign-buffers' placement agrees with the analysis it came from,
/// and fits the live-bytes peak inside its arena.
void checkPlacement(const StepLiveness &live) {
  func::FuncOp func = live.getFunction();
  auto arenaAttr = func->getAttrOfType<IntegerAttr>("gnn.arena_bytes");
  ASSERT_TRUE(arenaAttr) << "no gnn.arena_bytes";
  int64_t arena = arenaAttr.getInt();
  EXPECT_LE(live.getPeakBytes(), arena);
  for (int64_t bytes : live.getLiveBytes())
    EXPECT_LE(bytes, arena);

  struct Slot {
    int64_t begin, end, lo, hi;
  };
  std::vector<Slot> slots;
  for (const ValueLiveness &info : live.getValues()) {
    auto result = dyn_cast<OpResult>(info.value);
    if (!result)
      continue;
    auto offsets =
        result.getOwner()->getAttrOfType<DenseI64ArrayAttr>("gnn.offsets");
    ASSERT_TRUE(offsets) << result.getOwner()->getName().getStringRef().str();
    int64_t offset = offsets[result.getResultNumber()];
    switch (info.storage) {
    case Storage::Arena:
      EXPECT_GE(offset, 0);
      EXPECT_EQ(offset % kArenaAlignment, 0);
      EXPECT_LE(offset + alignToArena(info.bytes), arena);
      slots.push_back(
          {info.def, slotEnd(info), offset, offset + alignToArena(info.bytes)});
      // An in-place result is written over its operand's bytes.
      if (Value in = info.inPlaceOf) {
        auto source = cast<OpResult>(in);
        EXPECT_EQ(offset, source.getOwner()->getAttrOfType<DenseI64ArrayAttr>(
                              "gnn.offsets")[source.getResultNumber()]);
      }
      break;
    case Storage::Result:
      EXPECT_EQ(offset, -2);
      break;
    case Storage::None:
    case Storage::Argument:
      EXPECT_EQ(offset, -1);
      break;
    }
  }
  for (size_t i = 0; i < slots.size(); ++i)
    for (size_t j = i + 1; j < slots.size(); ++j) {
      const Slot &a = slots[i], &b = slots[j];
      bool together = a.begin <= b.end && b.begin <= a.end;
      bool apart = a.hi <= b.lo || b.hi <= a.lo || a.lo == a.hi || b.lo == b.hi;
      EXPECT_TRUE(!together || apart)
          << "slots " << i << " and " << j << " share bytes while both live";
    }
}

/// Steps save forward values read after the loss; nothing else saves.
void checkSaved(const StepLiveness &live) {
  llvm::StringRef name = live.getFunction().getSymName();
  Operation *loss = live.getLossOp();
  bool isStep = name.ends_with(".step") || name.ends_with(".grad_step");
  EXPECT_EQ(loss != nullptr, isStep);
  int64_t numSaved = 0;
  for (const ValueLiveness &info : live.getValues()) {
    if (!info.saved)
      continue;
    ++numSaved;
    EXPECT_EQ(info.storage, Storage::Arena);
    ASSERT_TRUE(loss);
    EXPECT_TRUE(live.isForward(info.value.getDefiningOp()));
    EXPECT_LE(info.def, live.getIndex(loss));
    // Unless the memory plan gave it a fate (an offload or narrow copy, or
    // a recompute instead of it, reads it last), it lives past the loss.
    bool planned = llvm::any_of(info.value.getUsers(), [](Operation *user) {
      return user->getDialect()->getNamespace() == "mem";
    });
    if (!planned) {
      EXPECT_GT(info.lastUse, live.getIndex(loss));
    }
  }
  // Every model's backward pass needs at least its logits.
  if (isStep) {
    EXPECT_GT(numSaved, 0);
  }
}

TEST_P(ExampleLiveness, PeakFitsArenaAndIntervalsFitSchedule) {
  compile();
  if (IsSkipped() || HasFatalFailure())
    return;
  int numFunctions = 0;
  for (auto func : module->getOps<func::FuncOp>()) {
    SCOPED_TRACE(func.getSymName().str());
    FailureOr<StepLiveness> live = StepLiveness::compute(func, "test");
    ASSERT_TRUE(succeeded(live)) << diags;
    ++numFunctions;
    checkIntervals(*live);
    checkCurve(*live);
    checkPlacement(*live);
    checkSaved(*live);
    EXPECT_EQ(live->getResidentBytes(),
              live->getArgumentBytes() + live->getResultBytes());
  }
  // init, step, predict at least.
  EXPECT_GE(numFunctions, 3);
}

INSTANTIATE_TEST_SUITE_P(
    Examples, ExampleLiveness,
    ::testing::ValuesIn(gnnc::test::shippedExamples(GNNC_SOURCE_DIR)),
    [](const ::testing::TestParamInfo<std::string> &info) {
      return info.param.substr(0, info.param.find('.'));
    });

} // namespace
