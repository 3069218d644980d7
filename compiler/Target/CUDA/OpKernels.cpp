//===- OpKernels.cpp - Generated reductions, softmax, loss, optimizers ---===//
//
// Kernels the CUDA target prints for ops that have a CPU kernel of their
// own, specialized to the op's sizes and options (literals in the body, so
// a unit's kernels share a body only when they compute the same thing).
// Each reproduces its CPU kernel's arithmetic in the same order:
//
// * gnn.reduce along dim 1: a thread per row, columns in order. Along dim
//   0: a thread per (block, column) sums the block's rows in order into a
//   double in the scratch (kReductionBlocks blocks, blockRows' split), then
//   a thread per column adds the blocks in order: the CPU's
//   blockedColumnSums, 64 times the parallelism of a thread per column.
// * gnn.edge_softmax(_grad): a warp per (destination, head), a lane per
//   32nd slot, the lanes' sums met by __shfl_xor_sync; the CPU adds in
//   that order too (kEdgeLanes, laneButterflySum). Where no warp can run
//   (the emulator runs threads one at a time) lane 0 computes the 32 lanes
//   in turn, in the same order.
// * train.cross_entropy: a thread per chunk of kLossChunkRows rows of a
//   block sums the chunk's terms in row order, a thread per block adds its
//   chunks in order, one thread the blocks (gnnrt_cpu_cross_entropy's
//   order), and leaves the weight sum in the scratch for the gradient,
//   which is a thread per row (crossEntropyGradNode).
// * train.adam and train.sgd: one launch for a run of them, a thread per
//   element of all their parameters (adamElement, sgdElement).
//
// An element-wise run before or after some of them can be computed inside
// their kernels (generate's prologue and epilogue, as __device__
// functions of the element). No kernel uses shared memory or atomics, and
// only the edge softmax's warp form uses warp intrinsics: each thread's
// sums are sequential, which is what makes the order (and the bits) the
// CPU's, and what lets the emulator run them (runtime/cuda/emu).
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/CUDA/KernelText.h"
#include "compiler/Target/CUDA/Kernels.h"

#include "dialects/Gnn/GnnOps.h"
#include "dialects/Gnn/RowSets.h"
#include "dialects/Train/TrainOps.h"

#include "common/KernelCommon.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::gnn;
using cuda::doubleLiteral;
using cuda::GeneratedOp;
using cuda::gridStrideLoop;
using cuda::KernelArg;

namespace {

using gnnrt::kernel::kLossChunkRows;
using gnnrt::kernel::kReductionBlocks;

/// `-inf` as float: NVRTC has no <math.h> and so no INFINITY.
constexpr const char *kNegInf = "(-__int_as_float(0x7f800000))";

/// The lanes of a warp in an edge softmax (KernelCommon.h's order).
using gnnrt::kernel::kEdgeLanes;
static_assert(kEdgeLanes == 32, "the generated edge softmax is a warp per row");

/// laneButterflySum of `lanes`, in C: a warp's __shfl_xor_sync sum at
/// offsets 16, 8, 4, 2, 1, lane 0's value left in lanes[0].
constexpr const char *kButterflyText =
    "    for (int o = 16; o > 0; o /= 2)\n"
    "      for (int j = 0; j < o; ++j)\n"
    "        lanes[j] = lanes[j] + lanes[j + o];\n";

/// Work item t of an edge softmax kernel: lane `lane` of the warp for
/// (row i, head k), and the row's slots [begin, end). On a GPU the warp's
/// 32 threads share the row (every 32nd slot each, the sums across lanes
/// by __shfl_xor_sync); elsewhere (the CUDA emulator, which runs threads
/// one at a time) lane 0 computes all 32 lanes in turn, in the same order.
/// The loops stay warp-uniform: the item count is a multiple of 32.
std::string rowHeadOfWarp(int64_t heads, StringRef indptr) {
  return llvm::formatv(
             "    const long long w = t / 32;\n"
             "    const int lane = (int)(t % 32);\n"
             "    const long long i = w / {0}, k = w % {0};\n"
             "    const long long begin = {1}[i], end = {1}[i + 1];\n",
             heads, indptr)
      .str();
}

/// One pass of an edge softmax kernel over its row's slots, in the warp
/// form (lane `lane` takes every 32nd slot) or the emulator's (lane 0 takes
/// them all): `for (...) {` with `e`, the element of head k, defined.
std::string slotLoop(bool warp, StringRef element) {
  return (Twine(warp ? "    for (long long s = begin + lane; s < end; s += "
                       "32) {\n"
                     : "    for (long long s = begin; s < end; ++s) {\n") +
          "      const long long e = " + element + ";\n")
      .str();
}

/// The statement adding \p term to the lane sum `acc` of the current slot,
/// and the text that then leaves the warp's total in `const float acc`
/// (the butterfly: __shfl_xor_sync, or KernelCommon.h's order in lane 0).
std::string laneAdd(bool warp, StringRef acc, StringRef term) {
  return warp ? (Twine("      ") + acc + " += " + term + ";\n").str()
              : (Twine("      lanes[(s - begin) % 32] += ") + term + ";\n")
                    .str();
}
std::string laneTotal(bool warp, StringRef acc) {
  if (warp)
    return (Twine("    for (int o = 16; o > 0; o /= 2)\n      ") + acc +
            " += "
            "__shfl_xor_sync(0xffffffffu, " +
            acc + ", o);\n")
        .str();
  return std::string(kButterflyText) +
         (Twine("    const float ") + acc + " = lanes[0];\n").str();
}
std::string laneStart(bool warp, StringRef acc) {
  return warp ? (Twine("    float ") + acc + " = 0.0f;\n").str()
              : "    float lanes[32] = {};\n";
}

/// Both forms of a kernel's passes, \p form(warp), chosen where it is
/// compiled: the warp form for a GPU, lane 0 doing the lanes one after
/// another in the emulator (which runs threads one at a time), ending with
/// the last pass's loop bounds `first` and `step`.
std::string bothForms(function_ref<std::string(bool)> form) {
  return "#ifdef __CUDA_ARCH__\n" + form(true) +
         "    const long long first = begin + lane, step = 32;\n#else\n" +
         "    if (lane != 0)\n      continue;\n" + form(false) +
         "    const long long first = begin, step = 1;\n#endif\n";
}

/// An edge softmax kernel's body over \p nodes x \p heads warps of the CSR
/// \p indptr: the row's passes in both forms (\p passes, bothForms), then a
/// last pass over the lane's slots that ends element `e` (\p element of
/// slot s and head k) with \p last.
std::string edgeSoftmaxBody(int64_t nodes, int64_t heads, StringRef indptr,
                            StringRef element,
                            function_ref<std::string(bool)> passes,
                            const std::string &last) {
  return gridStrideLoop("t", std::to_string(nodes * heads * kEdgeLanes)) +
         rowHeadOfWarp(heads, indptr) + bothForms(passes) +
         "    for (long long s = first; s < end; s += step) {\n"
         "      const long long e = " +
         element.str() + ";\n" + last + "    }\n  }\n";
}

/// blockRows(rows, b, begin, end) of KernelCommon.h, in C.
std::string blockRowsText(int64_t rows) {
  return llvm::formatv(
             "    const long long q = {0}LL / {1}, r = {0}LL % {1};\n"
             "    const long long begin = b * q + (b < r ? b : r);\n"
             "    const long long end = begin + q + (b < r ? 1 : 0);\n",
             rows, kReductionBlocks)
      .str();
}

bool plainF32(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape() && type.getElementType().isF32() &&
         !type.getEncoding();
}

KernelArg tensor(Value v, StringRef ctype) {
  return {KernelArg::Kind::Tensor, v, 0, ctype.str()};
}
KernelArg scratchAt(int64_t offset, StringRef ctype) {
  return {KernelArg::Kind::Scratch, Value(), offset, ctype.str()};
}
KernelArg indptr(Value graph) {
  return {KernelArg::Kind::Indptr, graph, 0, "const int *"};
}
KernelArg edgeIds(Value graph) {
  return {KernelArg::Kind::EdgeId, graph, 0, "const int *"};
}

/// What a loss and its gradient agree on: the same inputs and options.
bool sameLoss(train::CrossEntropyOp loss, train::CrossEntropyGradOp grad) {
  return loss.getLogits() == grad.getLogits() &&
         loss.getLabels() == grad.getLabels() &&
         loss.getMask() == grad.getMask() &&
         loss.getLabelSmoothing() == grad.getLabelSmoothing() &&
         loss.getClassWeights() == grad.getClassWeights();
}

/// Scratch layout of a generated loss: the weight sum first (read by the
/// gradient), then the blocks' sums, counts and bad-label flags, then the
/// chunks'.
/// With balanced class weights, the weights of the classes follow the
/// weight sum, and the blocks' class counts the chunks' data.
struct LossScratch {
  int64_t chunksPerBlock, classes;
  static constexpr int64_t kWeightSum = 0;
  static constexpr int64_t kBlockSums = 8;
  static constexpr int64_t kBlockCounts = kBlockSums + 8 * kReductionBlocks;
  static constexpr int64_t kClassWeights = kBlockCounts + 8 * kReductionBlocks;
  int64_t chunkSums() const { return kClassWeights + 8 * classes; }
  int64_t chunkCounts() const {
    return chunkSums() + 8 * kReductionBlocks * chunksPerBlock;
  }
  /// [kReductionBlocks][classes] counts, -1 in a block's class 0 when the
  /// block has a label out of range.
  int64_t classCounts() const {
    return chunkCounts() + 8 * kReductionBlocks * chunksPerBlock;
  }
  int64_t bytes() const {
    return classCounts() + 8 * kReductionBlocks * classes;
  }
};

LossScratch lossScratch(int64_t rows, int64_t classes) {
  const int64_t blockMax = (rows + kReductionBlocks - 1) / kReductionBlocks;
  return {
      std::max<int64_t>(1, (blockMax + kLossChunkRows - 1) / kLossChunkRows),
      classes};
}

/// The C text of crossEntropyTerm's log-sum-exp of `row` (double m, sum,
/// lse), as KernelCommon.h's logSumExp.
std::string logSumExpText(int64_t classes) {
  return llvm::formatv("      double m = row[0];\n"
                       "      for (int c = 1; c < {0}; ++c)\n"
                       "        m = m < row[c] ? row[c] : m;\n"
                       "      double sum = 0;\n"
                       "      for (int c = 0; c < {0}; ++c)\n"
                       "        sum += exp(row[c] - m);\n"
                       "      const double lse = m + log(sum);\n",
                       classes)
      .str();
}

} // namespace

bool cuda::KernelUnit::generates(Operation *op, Operation *previous) {
  if (getAnyRestriction(op))
    return false;
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case([](ReduceOp o) {
        auto type = cast<RankedTensorType>(o.getInput().getType());
        return type.getRank() == 2 && plainF32(o.getInput()) &&
               plainF32(o.getResult());
      })
      .Case([](EdgeSoftmaxOp o) {
        return o.getGraph().getType().hasStaticNodes() &&
               plainF32(o.getInput()) &&
               cast<RankedTensorType>(o.getInput().getType()).getRank() == 2;
      })
      .Case([](EdgeSoftmaxGradOp o) {
        return o.getGraph().getType().hasStaticNodes() &&
               plainF32(o.getOutput()) && plainF32(o.getResultGrad()) &&
               cast<RankedTensorType>(o.getOutput().getType()).getRank() == 2;
      })
      .Case([](train::CrossEntropyOp o) { return plainF32(o.getLogits()); })
      .Case([&](train::CrossEntropyGradOp o) {
        auto loss = dyn_cast_or_null<train::CrossEntropyOp>(previous);
        return loss && generates(loss, nullptr) && sameLoss(loss, o) &&
               plainF32(o.getLossGrad());
      })
      .Default([](Operation *) { return false; });
}

Value cuda::KernelUnit::prologueOperand(Operation *op) {
  if (auto reduce = dyn_cast<ReduceOp>(op))
    return reduce.getInput();
  if (auto softmax = dyn_cast<EdgeSoftmaxOp>(op))
    return softmax.getInput();
  if (auto grad = dyn_cast<EdgeSoftmaxGradOp>(op))
    return grad.getResultGrad();
  return {};
}

bool cuda::KernelUnit::acceptsEpilogue(Operation *op) {
  return isa<EdgeSoftmaxOp, EdgeSoftmaxGradOp>(op);
}

namespace {

/// The parameters of one generated kernel, under the names its body uses.
struct Params {
  SmallVector<KernelArg> args;
  SmallVector<std::string> names;
  std::string add(KernelArg arg, StringRef name) {
    args.push_back(std::move(arg));
    names.push_back(name.str());
    return name.str();
  }
  std::string signature() const {
    std::string s = "(";
    for (auto [k, arg] : llvm::enumerate(args))
      s += (k ? ", " : "") + arg.ctype + names[k];
    return s + ") {\n";
  }
};

/// An edge softmax kernel's graph parameters (the CSR's `indptr` and edge
/// `ids`), and the C expression of the element of slot s and head k.
struct EdgeParams {
  std::string indptr, element;
};
EdgeParams addEdgeParams(Params &params, Value graph, int64_t heads) {
  EdgeParams edge;
  edge.indptr = params.add(indptr(graph), "indptr");
  std::string ids = params.add(edgeIds(graph), "ids");
  edge.element = llvm::formatv("(long long){0}[s] * {1} + k", ids, heads);
  return edge;
}

/// How a kernel reads element (index, column) of the operand a prologue
/// run may compute: a load, or a call of the run's device function.
struct Operand {
  std::string array, function;
  SmallVector<std::string> inputs;
  std::string at(StringRef index, StringRef column) const {
    if (function.empty())
      return (array + "[" + index + "]").str();
    std::string call = (function + "(" + index + ", " + column).str();
    for (const std::string &in : inputs)
      call += ", " + in;
    return call + ")";
  }
};

/// How a kernel stores element (index, column) of its result: a store, and
/// or a call of an epilogue run's device function, which stores the run's
/// escaping results.
struct Result {
  std::string array, function;
  bool store = true;
  SmallVector<std::string> args;
  std::string write(StringRef index, StringRef column, StringRef value,
                    StringRef indent) const {
    if (function.empty())
      return (indent + array + "[" + index + "] = " + value + ";\n").str();
    std::string text =
        (indent + "{\n" + indent + "  const float v = " + value + ";\n").str();
    if (store)
      text += (indent + "  " + array + "[" + index + "] = v;\n").str();
    text +=
        (indent + "  (void)" + function + "(" + index + ", " + column + ", v")
            .str();
    for (const std::string &a : args)
      text += ", " + a;
    return text + (");\n" + indent + "}\n").str();
  }
};

} // namespace

FailureOr<cuda::GeneratedOp>
cuda::KernelUnit::generate(Operation *op, ArrayRef<Operation *> prologue,
                           ArrayRef<Operation *> epilogue,
                           function_ref<bool(Value)> escapes) {
  GeneratedOp out;
  // Adds the kernel `body` (comment, params) and a step launching it.
  auto launchStep = [&](StringRef comment, const Params &params,
                        const std::string &body, int64_t items) {
    std::string name = add(comment, params.signature() + body + "}\n");
    out.steps.push_back({name, items, params.args});
  };
  // The same with \p args named p0, p1, ... in the body.
  auto step = [&](StringRef comment, ArrayRef<KernelArg> args,
                  const std::string &body, int64_t items) {
    Params params;
    for (auto [k, arg] : llvm::enumerate(args))
      params.add(arg, "p" + std::to_string(k));
    launchStep(comment, params, body, items);
  };
  if ((!prologue.empty() && !fusibleIntoOp(prologue)) ||
      (!epilogue.empty() && (!fusibleIntoOp(epilogue) || !acceptsEpilogue(op))))
    return op->emitError("cannot fuse this run into the op's kernel");
  // The operand a prologue may compute, as parameter(s) of \p params.
  auto operand = [&](Params &params, Value v,
                     StringRef name) -> FailureOr<Operand> {
    Operand o;
    if (prologue.empty()) {
      o.array = params.add(tensor(v, "const float *"), name);
      return o;
    }
    if (prologue.back()->getResult(0) != v)
      return op->emitError("the fused run does not compute the operand");
    FailureOr<RunFunction> f = runFunction(
        prologue, [](Value) { return false; }, Value());
    if (failed(f))
      return failure();
    o.function = f->name;
    for (auto [k, in] : llvm::enumerate(f->inputs))
      o.inputs.push_back(params.add(tensor(in, "const float *"),
                                    (name + "_in" + Twine(k)).str()));
    return o;
  };
  // The result an epilogue may follow, as parameter(s) of \p params.
  auto result = [&](Params &params, Value v,
                    StringRef name) -> FailureOr<Result> {
    Result r;
    r.array = params.add(tensor(v, "float *"), name);
    if (epilogue.empty())
      return r;
    FailureOr<RunFunction> f = runFunction(epilogue, escapes, v);
    if (failed(f))
      return failure();
    r.function = f->name;
    r.store = escapes(v);
    for (auto [k, in] : llvm::enumerate(f->inputs))
      r.args.push_back(params.add(tensor(in, "const float *"),
                                  (name + "_in" + Twine(k)).str()));
    for (auto [k, o] : llvm::enumerate(f->outputs))
      r.args.push_back(
          params.add(tensor(o, "float *"), (name + "_out" + Twine(k)).str()));
    return r;
  };
  const std::string fused = prologue.empty()
                                ? std::string()
                                : " (after " + std::to_string(prologue.size()) +
                                      " fused element-wise op" +
                                      (prologue.size() > 1 ? "s" : "") + ")";
  const std::string followed =
      epilogue.empty() ? std::string()
                       : " (then " + std::to_string(epilogue.size()) +
                             " fused element-wise op" +
                             (epilogue.size() > 1 ? "s" : "") + ")";
  return llvm::TypeSwitch<Operation *, FailureOr<GeneratedOp>>(op)
      .Case([&](ReduceOp o) -> FailureOr<GeneratedOp> {
        auto type = cast<RankedTensorType>(o.getInput().getType());
        const int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
        const bool max = o.getKind() == ReduceKind::max;
        const bool mean = o.getKind() == ReduceKind::mean;
        const std::string plain =
            llvm::formatv("reduce {0}, dim {1}, of {2} x {3}",
                          stringifyReduceKind(o.getKind()), o.getDim(), rows,
                          cols)
                .str();
        const std::string what = plain + fused;
        const std::string colsText = std::to_string(cols);
        if (o.getDim() == 1) {
          Params params;
          FailureOr<Operand> x = operand(params, o.getInput(), "x");
          if (failed(x))
            return failure();
          std::string y = params.add(tensor(o.getResult(), "float *"), "y");
          std::string at = x->at("i * " + colsText + "LL + c", "c");
          std::string body = gridStrideLoop("i", std::to_string(rows));
          if (max)
            body +=
                llvm::formatv("    float m = {0};\n"
                              "    for (long long c = 0; c < {1}; ++c) {{\n"
                              "      const float v = {2};\n"
                              "      m = m < v ? v : m;\n"
                              "    }\n"
                              "    {3}[i] = {4};\n",
                              kNegInf, cols, at, y, cols == 0 ? "0.0f" : "m")
                    .str();
          else
            body +=
                llvm::formatv("    double sum = 0;\n"
                              "    for (long long c = 0; c < {0}; ++c)\n"
                              "      sum += {1};\n"
                              "    {2}[i] = (float)({3});\n",
                              cols, at, y,
                              mean && cols > 0
                                  ? "sum / " +
                                        doubleLiteral(static_cast<double>(cols))
                                  : std::string("sum"))
                    .str();
          launchStep(what, params, body + "  }\n", rows);
          return out;
        }
        // Along dim 0: block partials, then the blocks in order.
        const int64_t partials = kReductionBlocks * cols;
        StringRef acc = max ? "float" : "double";
        out.scratchBytes = partials * (max ? 4 : 8);
        Params first;
        FailureOr<Operand> x = operand(first, o.getInput(), "x");
        if (failed(x))
          return failure();
        std::string part =
            first.add(scratchAt(0, (acc + " *").str()), "partial");
        std::string at = x->at("i * " + colsText + "LL + c", "c");
        std::string firstBody =
            gridStrideLoop("t", std::to_string(partials)) +
            llvm::formatv("    const long long b = t / {0}, c = t % {0};\n",
                          cols)
                .str() +
            blockRowsText(rows);
        if (max)
          firstBody +=
              llvm::formatv("    float m = {0};\n"
                            "    for (long long i = begin; i < end; ++i) {{\n"
                            "      const float v = {1};\n"
                            "      m = m < v ? v : m;\n"
                            "    }\n"
                            "    {2}[t] = m;\n",
                            kNegInf, at, part)
                  .str();
        else
          firstBody += llvm::formatv("    double sum = 0;\n"
                                     "    for (long long i = begin; i < end; "
                                     "++i)\n"
                                     "      sum += {0};\n"
                                     "    {1}[t] = sum;\n",
                                     at, part)
                           .str();
        launchStep(what + ": block partials", first, firstBody + "  }\n",
                   partials);
        std::string second = gridStrideLoop("c", std::to_string(cols));
        if (max)
          second += llvm::formatv("    float m = {0};\n"
                                  "    for (int b = 0; b < {1}; ++b) {{\n"
                                  "      const float v = p0[b * {2}LL + c];\n"
                                  "      m = m < v ? v : m;\n"
                                  "    }\n"
                                  "    p1[c] = {3};\n",
                                  kNegInf, kReductionBlocks, cols,
                                  rows == 0 ? "0.0f" : "m")
                        .str();
        else
          second +=
              llvm::formatv("    double sum = 0;\n"
                            "    for (int b = 0; b < {0}; ++b)\n"
                            "      sum += p0[b * {1}LL + c];\n"
                            "    p1[c] = (float)({2});\n",
                            kReductionBlocks, cols,
                            mean && rows > 0
                                ? "sum / " +
                                      doubleLiteral(static_cast<double>(rows))
                                : std::string("sum"))
                  .str();
        step(plain + ": block totals",
             {scratchAt(0, ("const " + acc + " *").str()),
              tensor(o.getResult(), "float *")},
             second + "  }\n", cols);
        return out;
      })
      .Case([&](EdgeSoftmaxOp o) -> FailureOr<GeneratedOp> {
        auto type = cast<RankedTensorType>(o.getInput().getType());
        const int64_t heads = type.getDimSize(1);
        const int64_t nodes = o.getGraph().getType().getNodes();
        Params params;
        const EdgeParams edge = addEdgeParams(params, o.getGraph(), heads);
        const std::string &ptr = edge.indptr, &e = edge.element;
        FailureOr<Operand> x = operand(params, o.getInput(), "x");
        if (failed(x))
          return failure();
        // y holds the exponentials between the passes, so it is stored
        // even when only an epilogue reads it.
        FailureOr<Result> y = result(params, o.getResult(), "y");
        if (failed(y))
          return failure();
        y->store = true;
        // softmaxRow for head k of row i, a warp per (row, head); each x is
        // read before its y is written, so y may be x.
        const std::string xe = x->at("e", "k");
        auto form = [&](bool warp) {
          std::string text = std::string("    float m = ") + kNegInf + ";\n" +
                             slotLoop(warp, e) + "      const float v = " + xe +
                             ";\n      m = m < v ? v : m;\n    }\n";
          if (warp)
            text += "    for (int o = 16; o > 0; o /= 2) {\n"
                    "      const float u = __shfl_xor_sync(0xffffffffu, m, "
                    "o);\n"
                    "      m = m < u ? u : m;\n    }\n";
          return text + laneStart(warp, "sum") + slotLoop(warp, e) +
                 "      const float ev = expf(" + xe + " - m);\n      " +
                 y->array + "[e] = ev;\n" + laneAdd(warp, "sum", "ev") +
                 "    }\n" + laneTotal(warp, "sum");
        };
        std::string body = edgeSoftmaxBody(
            nodes, heads, ptr, e, form,
            y->write("e", "k", y->array + "[e] / sum", "      "));
        launchStep(llvm::formatv("edge softmax, {0} heads over {1} nodes{2}{3}",
                                 heads, nodes, fused, followed)
                       .str(),
                   params, body, nodes * heads * kEdgeLanes);
        return out;
      })
      .Case([&](EdgeSoftmaxGradOp o) -> FailureOr<GeneratedOp> {
        auto type = cast<RankedTensorType>(o.getOutput().getType());
        const int64_t heads = type.getDimSize(1);
        const int64_t nodes = o.getGraph().getType().getNodes();
        Params params;
        const EdgeParams edge = addEdgeParams(params, o.getGraph(), heads);
        const std::string &ptr = edge.indptr, &e = edge.element;
        std::string y = params.add(tensor(o.getOutput(), "const float *"), "y");
        FailureOr<Operand> dy = operand(params, o.getResultGrad(), "dy");
        if (failed(dy))
          return failure();
        FailureOr<Result> dx = result(params, o.getResult(), "dx");
        if (failed(dx))
          return failure();
        // softmaxGradRow, a warp per (row, head): dx may be y or dy (each
        // element is written after the dot product read it, from its own y
        // and dy).
        const std::string dye = dy->at("e", "k");
        auto form = [&](bool warp) {
          return laneStart(warp, "dot") + slotLoop(warp, e) +
                 laneAdd(warp, "dot", y + "[e] * " + dye) + "    }\n" +
                 laneTotal(warp, "dot");
        };
        std::string body = edgeSoftmaxBody(
            nodes, heads, ptr, e, form,
            dx->write("e", "k", y + "[e] * (" + dye + " - dot)", "      "));
        launchStep(llvm::formatv(
                       "edge softmax gradient, {0} heads over {1} nodes{2}{3}",
                       heads, nodes, fused, followed)
                       .str(),
                   params, body, nodes * heads * kEdgeLanes);
        return out;
      })
      .Case([&](train::CrossEntropyOp o) -> FailureOr<GeneratedOp> {
        auto type = cast<RankedTensorType>(o.getLogits().getType());
        const int64_t rows = type.getDimSize(0), classes = type.getDimSize(1);
        const double s = o.getLabelSmoothing().convertToDouble();
        const double perClass = s / static_cast<double>(classes);
        const bool balanced =
            o.getClassWeights() == train::ClassWeights::balanced;
        const LossScratch layout = lossScratch(rows, classes);
        out.scratchBytes = layout.bytes();
        const int64_t chunks = kReductionBlocks * layout.chunksPerBlock;
        const std::string what =
            llvm::formatv("cross entropy of {0} x {1}{2}", rows, classes,
                          balanced ? ", balanced class weights" : "")
                .str();
        if (balanced) {
          // 0. lossWeights (gnnrt_cpu_cross_entropy): the classes' counts,
          // a thread per (block, class) over the block's rows; the thread
          // of class 0 flags a label out of range.
          std::string counts =
              gridStrideLoop("t", std::to_string(kReductionBlocks * classes)) +
              llvm::formatv("    const long long b = t / {0}, k = t % {0};\n",
                            classes)
                  .str() +
              blockRowsText(rows) +
              llvm::formatv("    long long count = 0;\n"
                            "    bool bad = false;\n"
                            "    for (long long i = begin; i < end; ++i) {{\n"
                            "      if (!p2[i] || p1[i] < 0)\n"
                            "        continue;\n"
                            "      count += p1[i] == k;\n"
                            "      bad = bad || p1[i] >= {0};\n"
                            "    }\n"
                            "    p3[t] = k == 0 && bad ? -1 : count;\n"
                            "  }\n",
                            classes)
                  .str();
          step(what + ": class counts",
               {tensor(o.getLogits(), "const float *"),
                tensor(o.getLabels(), "const int *"),
                tensor(o.getMask(), "const unsigned char *"),
                scratchAt(layout.classCounts(), "long long *")},
               counts, kReductionBlocks * classes);
          // 1. One thread: scikit-learn's n / (C n_c) per class and the
          // weight sum over the counted nodes, in class order (NaN for a
          // label out of range).
          std::string weights =
              gridStrideLoop("t", "1") +
              llvm::formatv(
                  "    bool bad = false;\n"
                  "    long long total = 0;\n"
                  "    for (int k = 0; k < {0}; ++k) {{\n"
                  "      long long n = 0;\n"
                  "      for (int b = 0; b < {1}; ++b) {{\n"
                  "        bad = bad || (k == 0 && p0[b * {0}] < 0);\n"
                  "        n += p0[b * {0} + k] < 0 ? 0 : p0[b * {0} + k];\n"
                  "      }\n"
                  "      p1[k] = (double)n;\n"
                  "      total += n;\n"
                  "    }\n"
                  "    double weightSum = 0;\n"
                  "    for (int k = 0; k < {0}; ++k) {{\n"
                  "      const double n = p1[k];\n"
                  "      const double w = n != 0 ? (double)total / ({2} * n)"
                  " : 0.0;\n"
                  "      p1[k] = w;\n"
                  "      weightSum += w * n;\n"
                  "    }\n"
                  "    p2[0] = bad ? (double)__int_as_float(0x7fc00000) : "
                  "weightSum;\n"
                  "  }\n",
                  classes, kReductionBlocks,
                  doubleLiteral(static_cast<double>(classes)))
                  .str();
          step(what + ": class weights",
               {scratchAt(layout.classCounts(), "const long long *"),
                scratchAt(LossScratch::kClassWeights, "double *"),
                scratchAt(LossScratch::kWeightSum, "double *")},
               weights, 1);
        }
        // 2. A thread per chunk: its counted rows' terms in row order.
        Params first;
        first.add(tensor(o.getLogits(), "const float *"), "p0");
        first.add(tensor(o.getLabels(), "const int *"), "p1");
        first.add(tensor(o.getMask(), "const unsigned char *"), "p2");
        first.add(scratchAt(layout.chunkSums(), "double *"), "p3");
        first.add(scratchAt(layout.chunkCounts(), "long long *"), "p4");
        if (balanced)
          first.add(scratchAt(LossScratch::kClassWeights, "const double *"),
                    "weight");
        std::string firstBody =
            gridStrideLoop("t", std::to_string(chunks)) +
            llvm::formatv("    const long long b = t / {0}, j = t % {0};\n",
                          layout.chunksPerBlock)
                .str() +
            blockRowsText(rows) +
            llvm::formatv(
                "    const long long from = begin + j * {0};\n"
                "    const long long to = from + {0} < end ? from + {0} : "
                "end;\n"
                "    double acc = 0;\n"
                "    long long count = 0;\n"
                "    bool bad = false;\n"
                "    for (long long i = from; i < to; ++i) {{\n"
                "      if (!p2[i] || p1[i] < 0)\n"
                "        continue;\n"
                "      const int y = p1[i];\n"
                "      if (y >= {1}) {{\n"
                "        bad = true;\n"
                "        continue;\n"
                "      }\n"
                "      const float *row = p0 + i * {1}LL;\n",
                kLossChunkRows, classes)
                .str() +
            logSumExpText(classes) +
            llvm::formatv("      double all = 0;\n"
                          "      for (int c = 0; c < {0}; ++c)\n"
                          "        all += row[c];\n"
                          "      all -= {1} * lse;\n"
                          "      const double py = row[y] - lse;\n"
                          "      acc += {4} * -({2} * py + {3} * all);\n"
                          "      ++count;\n"
                          "    }\n"
                          "    p3[t] = acc;\n"
                          "    p4[t] = bad ? -1 : count;\n"
                          "  }\n",
                          classes, doubleLiteral(static_cast<double>(classes)),
                          doubleLiteral(1.0 - s), doubleLiteral(perClass),
                          balanced ? "weight[y]" : "1.0")
                .str();
        launchStep(what + ": chunk sums", first, firstBody, chunks);
        // 3. A thread per block: its chunks in order.
        std::string second =
            gridStrideLoop("b", std::to_string(kReductionBlocks)) +
            blockRowsText(rows) +
            llvm::formatv(
                "    const long long used = (end - begin + {0} - 1) / {0};\n"
                "    double acc = 0;\n"
                "    long long count = 0;\n"
                "    for (long long j = 0; j < used; ++j) {{\n"
                "      acc += p0[b * {1} + j];\n"
                "      const long long n = p1[b * {1} + j];\n"
                "      count = count < 0 || n < 0 ? -1 : count + n;\n"
                "    }\n"
                "    p2[b] = acc;\n"
                "    p3[b] = count;\n"
                "  }\n",
                kLossChunkRows, layout.chunksPerBlock)
                .str();
        step(what + ": block sums",
             {scratchAt(layout.chunkSums(), "const double *"),
              scratchAt(layout.chunkCounts(), "const long long *"),
              scratchAt(LossScratch::kBlockSums, "double *"),
              scratchAt(LossScratch::kBlockCounts, "long long *")},
             second, kReductionBlocks);
        // 4. One thread: the blocks in order, divided by the weight sum:
        // with every class weight 1 the number of counted nodes (left for
        // the gradient), else the one step 1 left. NaN when a label is out
        // of range (the CPU fails the call).
        std::string third =
            gridStrideLoop("t", "1") +
            llvm::formatv(
                "    double sum = 0;\n"
                "    long long count = 0;\n"
                "    for (int b = 0; b < {0}; ++b) {{\n"
                "      sum += p0[b];\n"
                "      count = count < 0 || p1[b] < 0 ? -1 : count + p1[b];\n"
                "    }\n"
                "    const double nan = (double)__int_as_float(0x7fc00000);\n"
                "    const double weightSum = count < 0 ? nan : {1};\n"
                "    p2[0] = weightSum;\n"
                "    p3[0] = count < 0 ? (float)nan\n"
                "          : weightSum > 0 ? (float)(sum / weightSum) : 0.0f;\n"
                "  }\n",
                kReductionBlocks, balanced ? "p2[0]" : "(double)count")
                .str();
        step(what + ": total",
             {scratchAt(LossScratch::kBlockSums, "const double *"),
              scratchAt(LossScratch::kBlockCounts, "const long long *"),
              scratchAt(LossScratch::kWeightSum, "double *"),
              tensor(o.getResult(), "float *")},
             third, 1);
        return out;
      })
      .Case([&](train::CrossEntropyGradOp o) -> FailureOr<GeneratedOp> {
        auto type = cast<RankedTensorType>(o.getLogits().getType());
        const int64_t rows = type.getDimSize(0), classes = type.getDimSize(1);
        const double s = o.getLabelSmoothing().convertToDouble();
        const double perClass = s / static_cast<double>(classes);
        const bool balanced =
            o.getClassWeights() == train::ClassWeights::balanced;
        // crossEntropyGradNode with the weight sum (and the class weights)
        // the loss just left in the scratch.
        std::string body =
            gridStrideLoop("i", std::to_string(rows)) +
            llvm::formatv(
                "    const float *row = p0 + i * {0}LL;\n"
                "    float *d = p5 + i * {0}LL;\n"
                "    if (!p2[i] || p1[i] < 0) {{\n"
                "      for (int c = 0; c < {0}; ++c)\n"
                "        d[c] = 0.0f;\n"
                "      continue;\n"
                "    }\n"
                "    const int y = p1[i];\n"
                "    if (y >= {0}) {{\n"
                "      for (int c = 0; c < {0}; ++c)\n"
                "        d[c] = __int_as_float(0x7fc00000);\n"
                "      continue;\n"
                "    }\n"
                "    const double scale = (double)p3[0] * {1} / p4[0];\n"
                "    {{\n",
                classes, balanced ? "p6[y]" : "1.0")
                .str() +
            logSumExpText(classes) +
            llvm::formatv(
                "      for (int c = 0; c < {0}; ++c) {{\n"
                "        const double q = (c == y ? {1} : 0.0) + {2};\n"
                "        d[c] = (float)(scale * (exp(row[c] - lse) - "
                "q));\n"
                "      }\n"
                "    }\n"
                "  }\n",
                classes, doubleLiteral(1.0 - s), doubleLiteral(perClass))
                .str();
        SmallVector<KernelArg> args = {
            tensor(o.getLogits(), "const float *"),
            tensor(o.getLabels(), "const int *"),
            tensor(o.getMask(), "const unsigned char *"),
            tensor(o.getLossGrad(), "const float *"),
            scratchAt(LossScratch::kWeightSum, "const double *"),
            tensor(o.getResult(), "float *")};
        if (balanced)
          args.push_back(
              scratchAt(LossScratch::kClassWeights, "const double *"));
        step(llvm::formatv("cross entropy gradient of {0} x {1}{2}", rows,
                           classes, balanced ? ", balanced class weights" : "")
                 .str(),
             args, body, rows);
        // The scratch the loss filled is read, not grown.
        out.scratchBytes = LossScratch::kClassWeights + 8 * classes;
        return out;
      })
      .Default([&](Operation *) -> FailureOr<GeneratedOp> {
        return op->emitError("the CUDA target generates no kernel for this op");
      });
}

//===----------------------------------------------------------------------===//
// Adam over several parameters in one launch
//===----------------------------------------------------------------------===//

namespace {

/// What makes two train.adam ops one launch: the same options and step.
bool sameAdam(train::AdamOp a, train::AdamOp b) {
  return a.getStep() == b.getStep() && a.getLr() == b.getLr() &&
         a.getBeta1() == b.getBeta1() && a.getBeta2() == b.getBeta2() &&
         a.getEps() == b.getEps() && a.getWeightDecay() == b.getWeightDecay() &&
         a.getDecoupled() == b.getDecoupled();
}

/// What makes two train.sgd ops one launch: the same options, and both
/// with a momentum buffer or neither.
bool sameSgd(train::SgdOp a, train::SgdOp b) {
  return a.getLr() == b.getLr() && a.getMomentum() == b.getMomentum() &&
         a.getWeightDecay() == b.getWeightDecay() &&
         a.getNesterov() == b.getNesterov() &&
         !a.getMomentumBuffer() == !b.getMomentumBuffer();
}

/// An optimizer op the fused kernels update: f32 tensors, every row.
bool plainOptimizer(Operation *op) {
  return isa<train::AdamOp, train::SgdOp>(op) &&
         llvm::all_of(op->getOperands(),
                      [](Value v) {
                        return !isa<RankedTensorType>(v.getType()) ||
                               plainF32(v);
                      }) &&
         llvm::all_of(op->getResults(), plainF32) && !getAnyRestriction(op);
}

bool sameOptimizer(Operation *a, Operation *b) {
  if (auto adam = dyn_cast<train::AdamOp>(a))
    return isa<train::AdamOp>(b) && sameAdam(adam, cast<train::AdamOp>(b));
  auto sgd = cast<train::SgdOp>(a);
  return isa<train::SgdOp>(b) && sameSgd(sgd, cast<train::SgdOp>(b));
}

} // namespace

SmallVector<SmallVector<Operation *>>
cuda::KernelUnit::optimizerGroups(Block &block) {
  SmallVector<SmallVector<Operation *>> groups;
  SmallVector<Operation *> current;
  auto flush = [&] {
    if (current.size() > 1)
      groups.push_back(current);
    current.clear();
  };
  for (Operation &op : block) {
    if (!plainOptimizer(&op)) {
      flush();
      continue;
    }
    // 64 parameters are at most 3.6 KB of launch arguments, under the 4 KB
    // a kernel may take on every CUDA version.
    if (!current.empty() &&
        (!sameOptimizer(current.front(), &op) || current.size() == 64))
      flush();
    current.push_back(&op);
  }
  flush();
  return groups;
}

FailureOr<cuda::GeneratedOp>
cuda::KernelUnit::fusedOptimizer(ArrayRef<Operation *> group) {
  if (isa<train::SgdOp>(group.front()))
    return fusedSgd(group);
  auto first = cast<train::AdamOp>(group.front());
  const double lr = first.getLr().convertToDouble();
  const double beta1 = first.getBeta1().convertToDouble();
  const double beta2 = first.getBeta2().convertToDouble();
  const double eps = first.getEps().convertToDouble();
  const double decay = first.getWeightDecay().convertToDouble();
  const bool decoupled = first.getDecoupled();
  // adamConstants (KernelCommon.h): 1 - beta^t on the host, the rest here.
  Params params;
  params.add(
      {KernelArg::Kind::BiasCorrection, first.getStep(), 0, "double ", beta1},
      "correction1");
  params.add(
      {KernelArg::Kind::BiasCorrection, first.getStep(), 0, "double ", beta2},
      "correction2");
  std::string select, sizes;
  int64_t total = 0;
  for (auto [k, op] : llvm::enumerate(group)) {
    auto adam = cast<train::AdamOp>(op);
    const int64_t n =
        cast<RankedTensorType>(adam.getParam().getType()).getNumElements();
    const std::string q = "q" + std::to_string(k);
    static constexpr const char *kInputs[] = {"param", "grad", "m", "v"};
    static constexpr const char *kOutputs[] = {"new_param", "new_m", "new_v"};
    SmallVector<std::string> names;
    for (auto [value, role] :
         llvm::zip(adam->getOperands().take_front(4), kInputs))
      names.push_back(
          params.add(tensor(value, "const float *"), q + "_" + role));
    for (auto [value, role] : llvm::zip(adam->getResults(), kOutputs))
      names.push_back(params.add(tensor(value, "float *"), q + "_" + role));
    // Parameter k holds elements [total, total + n) of the launch.
    select += llvm::formatv("{0}if (t < {1}LL) {{\n"
                            "      i = t - {2}LL;\n"
                            "      param = {3}; grad = {4}; m = {5}; v = {6};\n"
                            "      new_param = {7}; new_m = {8}; new_v = {9};\n"
                            "    }",
                            k ? " else " : "    ", total + n, total, names[0],
                            names[1], names[2], names[3], names[4], names[5],
                            names[6])
                  .str();
    if (k + 1 == group.size())
      select += "\n";
    sizes += (k ? " + " : "") + std::to_string(n);
    total += n;
  }
  std::string body =
      gridStrideLoop("t", std::to_string(total)) +
      "    long long i = 0;\n"
      "    const float *param = 0, *grad = 0, *m = 0, *v = 0;\n"
      "    float *new_param = 0, *new_m = 0, *new_v = 0;\n" +
      select +
      llvm::formatv(
          "    double p = param[i];\n"
          "    const double g = grad[i] + {0} * p;\n"
          "    const double mi = {1} * m[i] + {2} * g;\n"
          "    const double vi = {3} * v[i] + {4} * g * g;\n"
          "    const double mh = mi / correction1, vh = vi / correction2;\n"
          "    p *= {5};\n"
          "    p -= {6} * mh / (sqrt(vh) + {7});\n"
          "    new_m[i] = (float)mi;\n"
          "    new_v[i] = (float)vi;\n"
          "    new_param[i] = (float)p;\n"
          "  }\n",
          doubleLiteral(decoupled ? 0.0 : decay), doubleLiteral(beta1),
          doubleLiteral(1.0 - beta1), doubleLiteral(beta2),
          doubleLiteral(1.0 - beta2),
          doubleLiteral(decoupled ? 1.0 - lr * decay : 1.0), doubleLiteral(lr),
          doubleLiteral(eps))
          .str();
  GeneratedOp out;
  std::string name =
      add(llvm::formatv("adam{0} over {1} parameters ({2} elements)",
                        decoupled ? " (decoupled weight decay)" : "",
                        group.size(), sizes)
              .str(),
          params.signature() + body + "}\n");
  out.steps.push_back({name, total, params.args});
  return out;
}

FailureOr<cuda::GeneratedOp>
cuda::KernelUnit::fusedSgd(ArrayRef<Operation *> group) {
  auto first = cast<train::SgdOp>(group.front());
  const double lr = first.getLr().convertToDouble();
  const double momentum = first.getMomentum().convertToDouble();
  const double decay = first.getWeightDecay().convertToDouble();
  const bool nesterov = first.getNesterov();
  const bool buffered = static_cast<bool>(first.getMomentumBuffer());
  Params params;
  std::string select, sizes;
  int64_t total = 0;
  for (auto [k, op] : llvm::enumerate(group)) {
    auto sgd = cast<train::SgdOp>(op);
    const int64_t n =
        cast<RankedTensorType>(sgd.getParam().getType()).getNumElements();
    const std::string q = "q" + std::to_string(k);
    std::string param =
        params.add(tensor(sgd.getParam(), "const float *"), q + "_param");
    std::string grad =
        params.add(tensor(sgd.getGrad(), "const float *"), q + "_grad");
    std::string buffer, newBuffer;
    if (buffered)
      buffer = params.add(tensor(sgd.getMomentumBuffer(), "const float *"),
                          q + "_buffer");
    std::string newParam =
        params.add(tensor(sgd.getNewParam(), "float *"), q + "_new_param");
    if (buffered)
      newBuffer = params.add(tensor(sgd.getNewMomentumBuffer(), "float *"),
                             q + "_new_buffer");
    select += llvm::formatv("{0}if (t < {1}LL) {{\n"
                            "      i = t - {2}LL;\n"
                            "      param = {3}; grad = {4}; new_param = {5};\n",
                            k ? " else " : "    ", total + n, total, param,
                            grad, newParam)
                  .str();
    if (buffered)
      select +=
          "      buffer = " + buffer + "; new_buffer = " + newBuffer + ";\n";
    select += "    }";
    if (k + 1 == group.size())
      select += "\n";
    sizes += (k ? " + " : "") + std::to_string(n);
    total += n;
  }
  // sgdElement (KernelCommon.h).
  std::string update = "    const double p = param[i];\n"
                       "    double g = grad[i] + " +
                       doubleLiteral(decay) + " * p;\n";
  if (buffered)
    update +=
        llvm::formatv("    const double buf = {0} * buffer[i] + g;\n"
                      "    g = {1};\n"
                      "    new_buffer[i] = (float)buf;\n",
                      doubleLiteral(momentum),
                      nesterov ? "g + " + doubleLiteral(momentum) + " * buf"
                               : std::string("buf"))
            .str();
  update += "    new_param[i] = (float)(p - " + doubleLiteral(lr) + " * g);\n";
  std::string body = gridStrideLoop("t", std::to_string(total)) +
                     "    long long i = 0;\n"
                     "    const float *param = 0, *grad = 0;\n"
                     "    float *new_param = 0;\n" +
                     (buffered ? "    const float *buffer = 0;\n"
                                 "    float *new_buffer = 0;\n"
                               : "") +
                     select + update + "  }\n";
  GeneratedOp out;
  std::string name = add(
      llvm::formatv(
          "sgd{0} over {1} parameters ({2} elements)",
          buffered ? (nesterov ? " (Nesterov momentum)" : " (momentum)") : "",
          group.size(), sizes)
          .str(),
      params.signature() + body + "}\n");
  out.steps.push_back({name, total, params.args});
  return out;
}
