//===- TestPrintMemoryPlan.cpp - test-print-memory-plan -------------------===//
//
// Prints the memory planner's analyses (passes/MemoryPlan/Liveness.h) of
// every function as a table, so lit tests can FileCheck sizes, live
// intervals, the forward/backward split and the arena's peak on
// hand-written IR and on real steps. The IR is left unchanged.
//
// One line per value (arguments in order, then op results in schedule
// order; an in-place result also names the value whose slot it takes
// over, `over <value> from <its def>`), one line per schedule point with the
// arena bytes live there, then the totals:
//
// On a function gnn-plan-memory planned (it has `mem.fates`), the plan
// follows: policy, budget and solver, one line per saved tensor with its
// bytes and fate, and the predicted peak per tier.
//
//   memory plan @M.step: 28 ops, loss at 11 (train.cross_entropy)
//     value            bytes  def  last  storage   saved
//     %arg6:param[w]    1024    -    24  argument  no
//     gnn.dropout#0      512    2    19  arena     yes
//     ...
//     point  op              live
//     0      gnn.dropout      512
//     ...
//     resident 4096 bytes (arguments 3072, results 1024)
//     saved 512 bytes in 1 values
//     arena peak 1536 bytes at 5 (gnn.matmul), gnn.arena_bytes 1536
//     plan auto, budget 4096, solver exact; tensors planned: 1
//     fate gnn.dropout@2  512  recompute
//     predicted peak device 4096, host 0, disk 0
//
//===----------------------------------------------------------------------===//
#include "dialects/Mem/MemOps.h"
#include "passes/MemoryPlan/Liveness.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/FormatAdapters.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::gnn;

namespace {

/// `%argN:role[detail]` for an argument, `op.name#K` for result K of an op.
std::string label(func::FuncOp func, Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    std::string s = "%arg" + std::to_string(arg.getArgNumber());
    ArgumentRole role = getArgumentRole(func, arg.getArgNumber());
    if (!role.role.empty())
      s += ":" + role.role;
    if (!role.detail.empty())
      s += "[" + role.detail + "]";
    return s;
  }
  auto result = cast<OpResult>(value);
  return result.getOwner()->getName().getStringRef().str() + "#" +
         std::to_string(result.getResultNumber());
}

/// A schedule index, or "-" for kEntry (an argument's def, or the last use
/// of an argument nothing reads).
std::string point(int64_t index) {
  return index == StepLiveness::kEntry ? "-" : std::to_string(index);
}

/// What gnn-plan-memory decided, when it planned \p func: the policy and
/// solver, one line per saved tensor (name, bytes, fate) and the predicted
/// peak of each tier, all from the attributes `gnnc plan` reads.
void printPlan(func::FuncOp func, raw_ostream &os) {
  auto fates = func->getAttrOfType<ArrayAttr>("mem.fates");
  if (!fates)
    return;
  os << "  plan";
  auto plan = func->getAttrOfType<mem::PlanAttr>("mem.plan");
  if (plan)
    os << " " << plan.getPolicy() << ", budget " << plan.getBudget();
  if (auto solver = func->getAttrOfType<StringAttr>("mem.solver"))
    os << ", solver " << solver.getValue();
  os << "; tensors planned: " << fates.size() << "\n";
  for (auto row : fates.getAsRange<DictionaryAttr>()) {
    auto name = row.getAs<StringAttr>("name");
    auto bytes = row.getAs<IntegerAttr>("bytes");
    auto fate = row.getAs<StringAttr>("fate");
    os << llvm::formatv("  fate {0}  {1}  {2}\n", name ? name.getValue() : "?",
                        bytes ? std::to_string(bytes.getInt()) : "?",
                        fate ? fate.getValue() : "?");
  }
  if (plan)
    os << "  predicted peak device " << plan.getPeakDevice() << ", host "
       << plan.getPeakHost() << ", disk " << plan.getPeakDisk() << "\n";
}

void print(const StepLiveness &live, raw_ostream &os) {
  func::FuncOp func = live.getFunction();
  ArrayRef<Operation *> schedule = live.getSchedule();
  os << "memory plan @" << func.getSymName() << ": " << schedule.size()
     << " ops, ";
  if (Operation *loss = live.getLossOp())
    os << "loss at " << live.getIndex(loss) << " (" << loss->getName() << ")\n";
  else
    os << "no loss\n";

  std::vector<std::string> labels;
  size_t width = 5; // "value"
  for (const ValueLiveness &info : live.getValues()) {
    labels.push_back(label(func, info.value));
    width = std::max(width, labels.back().size());
  }
  os << llvm::formatv("  {0}  {1,12}  {2,5}  {3,5}  {4,-8}  saved\n",
                      llvm::fmt_align("value", llvm::AlignStyle::Left, width),
                      "bytes", "def", "last", "storage");
  int64_t savedBytes = 0, numSaved = 0;
  for (auto [info, name] : llvm::zip_equal(live.getValues(), labels)) {
    std::string bytes = info.bytes < 0 ? "?" : std::to_string(info.bytes);
    // An in-place result names the value whose slot it takes over.
    std::string over;
    if (info.inPlaceOf)
      over = "  over " + label(func, info.inPlaceOf) + " from " +
             point(live.lookup(info.inPlaceOf).def);
    os << llvm::formatv("  {0}  {1,12}  {2,5}  {3,5}  {4,-8}  {5}{6}\n",
                        llvm::fmt_align(name, llvm::AlignStyle::Left, width),
                        bytes, point(info.def), point(info.lastUse),
                        stringifyStorage(info.storage),
                        info.saved ? "yes" : "no", over);
    if (info.saved) {
      savedBytes += info.bytes;
      ++numSaved;
    }
  }

  size_t opWidth = 2; // "op"
  for (Operation *op : schedule)
    opWidth = std::max(opWidth, op->getName().getStringRef().size());
  os << llvm::formatv("  point  {0}  {1,12}\n",
                      llvm::fmt_align("op", llvm::AlignStyle::Left, opWidth),
                      "live");
  for (auto [i, op] : llvm::enumerate(schedule))
    os << llvm::formatv("  {0,-5}  {1}  {2,12}\n", i,
                        llvm::fmt_align(op->getName().getStringRef(),
                                        llvm::AlignStyle::Left, opWidth),
                        live.getLiveBytes()[i]);

  os << "  resident " << live.getResidentBytes() << " bytes (arguments "
     << live.getArgumentBytes() << ", results " << live.getResultBytes()
     << ")\n";
  os << "  saved " << savedBytes << " bytes in " << numSaved << " values\n";
  os << "  arena peak " << live.getPeakBytes() << " bytes at ";
  if (live.getPeakIndex() < 0)
    os << "-";
  else
    os << live.getPeakIndex() << " ("
       << schedule[live.getPeakIndex()]->getName() << ")";
  // Placed functions: the arena first fit chose, never below the peak.
  if (auto arena = func->getAttrOfType<IntegerAttr>("gnn.arena_bytes"))
    os << ", gnn.arena_bytes " << arena.getInt();
  os << "\n";
  printPlan(func, os);
}

struct TestPrintMemoryPlanPass
    : public PassWrapper<TestPrintMemoryPlanPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintMemoryPlanPass)

  StringRef getArgument() const final { return "test-print-memory-plan"; }
  StringRef getDescription() const final {
    return "Print each function's value sizes, live intervals, saved values "
           "and arena peak (the memory planner's analyses)";
  }
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<StepLiveness> live =
          StepLiveness::compute(func, "test-print-memory-plan");
      if (failed(live))
        return signalPassFailure();
      print(*live, llvm::outs());
    }
    markAllAnalysesPreserved();
  }
};

} // namespace

namespace mlir::gnn::test {
void registerTestPrintMemoryPlanPass() {
  PassRegistration<TestPrintMemoryPlanPass>();
}
} // namespace mlir::gnn::test
