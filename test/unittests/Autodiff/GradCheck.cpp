//===- GradCheck.cpp - Gradient checks against finite differences ---------===//
#include "GradCheck.h"

#include "passes/Autodiff/ReverseMode.h"
#include "passes/Pipeline/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace gnnc::autodiff::test {

namespace {
llvm::Error fail(const std::string &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Expected<std::vector<Tensor>> runTensors(mlir::func::FuncOp f,
                                               const std::vector<Value> &args) {
  auto results = ref::run(f, args);
  if (!results)
    return results.takeError();
  std::vector<Tensor> tensors;
  for (Value &v : *results) {
    auto *t = std::get_if<Tensor>(&v);
    if (!t)
      return fail("a result of @" + f.getSymName().str() +
                  " is not a float tensor");
    tensors.push_back(std::move(*t));
  }
  return tensors;
}
} // namespace

llvm::Expected<GradCheckResult>
compareWithFiniteDifferences(mlir::func::FuncOp forward, mlir::func::FuncOp vjp,
                             const std::vector<Value> &args,
                             const std::vector<unsigned> &wrt, uint64_t seed) {
  auto outputs = runTensors(forward, args);
  if (!outputs)
    return outputs.takeError();
  std::vector<Value> vjpArgs(args);
  std::vector<Tensor> cotangents;
  for (auto [k, out] : llvm::enumerate(*outputs)) {
    cotangents.push_back(ref::randomTensor(out.shape, seed * 1000 + k));
    vjpArgs.push_back(cotangents.back());
  }
  auto vjpOutputs = runTensors(vjp, vjpArgs);
  if (!vjpOutputs)
    return vjpOutputs.takeError();
  if (vjpOutputs->size() != outputs->size() + wrt.size())
    return fail("the vjp returns " + std::to_string(vjpOutputs->size()) +
                " values, expected " +
                std::to_string(outputs->size() + wrt.size()));

  GradCheckResult result;
  for (auto [k, out] : llvm::enumerate(*outputs)) {
    const Tensor &again = (*vjpOutputs)[k];
    if (again.shape != out.shape)
      return fail("the vjp's result " + std::to_string(k) +
                  " has another shape than the forward's");
    for (size_t i = 0; i < out.data.size(); ++i)
      result.forwardMismatch = std::max(result.forwardMismatch,
                                        std::abs(again.data[i] - out.data[i]));
  }

  for (auto [w, argIndex] : llvm::enumerate(wrt)) {
    const Tensor &ad = (*vjpOutputs)[outputs->size() + w];
    auto *x = std::get_if<Tensor>(&args[argIndex]);
    if (!x)
      return fail("argument " + std::to_string(argIndex) +
                  " is not a float tensor");
    if (ad.shape != x->shape)
      return fail("gradient of argument " + std::to_string(argIndex) +
                  " has another shape than the argument");
    for (size_t j = 0; j < x->data.size(); ++j) {
      double h = kStep * std::max(std::abs(x->data[j]), 1.0);
      std::vector<Value> plus(args), minus(args);
      std::get<Tensor>(plus[argIndex]).data[j] += h;
      std::get<Tensor>(minus[argIndex]).data[j] -= h;
      auto fPlus = runTensors(forward, plus);
      if (!fPlus)
        return fPlus.takeError();
      auto fMinus = runTensors(forward, minus);
      if (!fMinus)
        return fMinus.takeError();
      // Differences first, then the dot product: outputs the perturbation
      // does not reach cancel exactly instead of adding rounding noise.
      double dL = 0;
      for (size_t k = 0; k < cotangents.size(); ++k)
        for (size_t i = 0; i < cotangents[k].data.size(); ++i)
          dL += ((*fPlus)[k].data[i] - (*fMinus)[k].data[i]) *
                cotangents[k].data[i];
      double fd = dL / (2 * h), got = ad.data[j];
      double err =
          std::abs(fd - got) / std::max({std::abs(fd), std::abs(got), kFloor});
      ++result.entries;
      if (err > result.maxError || result.worst.empty()) {
        result.maxError = std::max(result.maxError, err);
        std::ostringstream os;
        os.precision(12);
        os << "gradient of argument " << argIndex << ", element " << j
           << ": ad " << got << " fd " << fd;
        result.worst = os.str();
      }
    }
  }
  return result;
}

AutodiffTest::AutodiffTest() {
  mlir::gnn::loadGnncDialects(context);
  context.getDiagEngine().registerHandler([this](mlir::Diagnostic &d) {
    diagnostics += d.str() + "\n";
    for (mlir::Diagnostic &note : d.getNotes())
      diagnostics += "  note: " + note.str() + "\n";
    return mlir::success();
  });
}

mlir::OwningOpRef<mlir::ModuleOp>
AutodiffTest::parse(const std::string &source,
                    const std::map<std::string, std::string> &subst) {
  std::string text = source;
  for (const auto &[key, value] : subst) {
    std::string pattern = "{" + key + "}";
    for (size_t pos = text.find(pattern); pos != std::string::npos;
         pos = text.find(pattern, pos + value.size()))
      text.replace(pos, pattern.size(), value);
  }
  diagnostics.clear();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  EXPECT_TRUE(module) << "parse failed:\n" << diagnostics << text;
  return module;
}

bool AutodiffTest::runPasses(
    mlir::ModuleOp module,
    const std::function<void(mlir::OpPassManager &)> &addPasses) {
  diagnostics.clear();
  mlir::PassManager pm(&context);
  addPasses(pm);
  if (mlir::failed(pm.run(module))) {
    ADD_FAILURE() << "passes failed:\n" << diagnostics;
    return false;
  }
  return true;
}

void AutodiffTest::checkGradients(mlir::ModuleOp module,
                                  const std::string &name,
                                  const std::vector<Value> &args,
                                  const std::vector<unsigned> &wrt,
                                  uint64_t seed) {
  auto f = module.lookupSymbol<mlir::func::FuncOp>(name);
  ASSERT_TRUE(f) << "no @" << name;
  diagnostics.clear();
  mlir::FailureOr<mlir::func::FuncOp> vjp = mlir::gnn::buildVJP(f, wrt);
  ASSERT_TRUE(mlir::succeeded(vjp)) << "buildVJP failed:\n" << diagnostics;
  ASSERT_TRUE(mlir::succeeded(mlir::verify(*vjp))) << "invalid vjp:\n"
                                                   << diagnostics;
  auto result = compareWithFiniteDifferences(f, *vjp, args, wrt, seed);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_GT(result->entries, 0);
  EXPECT_LT(result->maxError, kTolerance) << result->worst << "\n"
                                          << printed(vjp->getOperation());
  // Both runs are the same fp64 ops in the same order.
  EXPECT_EQ(result->forwardMismatch, 0.0);
}

std::vector<Value> AutodiffTest::run(mlir::ModuleOp module,
                                     const std::string &name,
                                     const std::vector<Value> &args) {
  auto results = ref::run(module, name, args);
  if (!results) {
    ADD_FAILURE() << "interpreter error in @" << name << ": "
                  << llvm::toString(results.takeError());
    return {};
  }
  return std::move(*results);
}

Graph testGraph() {
  Graph g;
  g.nodes = 5;
  // dst: 1 1 1 2 2 0 3 3 0 -> in-degrees 2, 3, 2, 2, 0.
  g.src = {0, 2, 3, 1, 4, 2, 0, 1, 3};
  g.dst = {1, 1, 1, 2, 2, 0, 3, 3, 0};
  return g;
}

Tensor awayFromZero(std::vector<int64_t> shape, uint64_t seed, double gap) {
  Tensor t = ref::randomTensor(std::move(shape), seed);
  for (double &v : t.data)
    v = (v < 0 ? -1 : 1) * (gap + (1 - gap) * std::abs(v));
  return t;
}

std::string printed(mlir::Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

const Tensor &asTensor(const Value &v) {
  static const Tensor empty;
  auto *t = std::get_if<Tensor>(&v);
  EXPECT_TRUE(t) << "not a float tensor";
  return t ? *t : empty;
}

} // namespace gnnc::autodiff::test
