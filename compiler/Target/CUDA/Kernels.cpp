//===- Kernels.cpp - Generated CUDA kernels for element-wise chains -------===//
//
// Each op of a run becomes one `const float tK = ...;` in a grid-stride
// loop over the run's elements; inputs are loaded once, on first use. A run
// with a dropout loops over Philox blocks instead: a thread draws the four
// words of block b once per dropout and computes elements 4b .. 4b + 3, so
// the generator runs once per four elements, as in the library's dropout
// kernel (runtime/cuda/Dense.cu).
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/CUDA/Kernels.h"
#include "compiler/Target/CUDA/KernelText.h"
#include "compiler/Target/ElementwiseRuns.h"

#include "dialects/Gnn/Elementwise.h"
#include "dialects/Gnn/GnnOps.h"

#include "gnnrt/Philox.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::gnn;

namespace {

RankedTensorType resultType(Operation *op) {
  return dyn_cast<RankedTensorType>(op->getResult(0).getType());
}

int64_t lastDim(RankedTensorType type) {
  return type.getRank() == 0 ? 1 : type.getShape().back();
}

#include "PhiloxSource.inc"

/// Philox4x32-10 as gnnrt/Philox.h has it (the same text,
/// runtime/include/gnnrt/PhiloxCore.inc) and dropout's counter for block b,
/// in the plain C types NVRTC knows without headers. Printed once per unit
/// that drops out.
std::string philoxSource() {
  return std::string("#define GNNRT_PHILOX_QUALIFIERS __device__ "
                     "__forceinline__\n") +
         kPhiloxCoreSource +
         R"(
// The four words of block b of a gnn.dropout: key (seed lo, seed hi),
// counter (b lo, b hi, stream, step).
__device__ __forceinline__ void gnnc_philox(unsigned long long b,
                                            unsigned int stream,
                                            unsigned int step,
                                            unsigned long long seed,
                                            unsigned int out[4]) {
  gnnrt_philox4x32_10((unsigned int)b, (unsigned int)(b >> 32), stream, step,
                      (unsigned int)seed, (unsigned int)(seed >> 32), out);
}

)";
}

/// A dropout a generated kernel computes: of a whole f32 tensor (the CUDA
/// target restricts no rows; a head's columns index another matrix's mask).
bool isFusibleDropout(Operation *op) {
  auto dropout = dyn_cast<DropoutOp>(op);
  return dropout && isDenseDropout(op) && !dropout.getRowSets() &&
         !dropout.getMaskColumns();
}

} // namespace

bool cuda::isFusible(Operation *op, bool dropout) {
  return isElementwiseOp(op) || (dropout && isFusibleDropout(op));
}

std::string cuda::KernelUnit::source() const {
  return (usesPhilox ? philoxSource() : std::string()) + deviceText + text;
}

bool cuda::KernelUnit::fusibleIntoOp(ArrayRef<Operation *> run) {
  return !run.empty() &&
         llvm::none_of(run, [](Operation *op) { return isa<DropoutOp>(op); });
}

std::string cuda::KernelUnit::addDevice(StringRef comment,
                                        const std::string &signatureAndBody) {
  auto it = byBody.find("device " + signatureAndBody);
  if (it != byBody.end())
    return it->second;
  std::string name = "gnnc_f" + std::to_string(devices++);
  byBody["device " + signatureAndBody] = name;
  deviceText += "// " + comment.str() + "\n";
  deviceText +=
      "__device__ __forceinline__ float " + name + signatureAndBody + "\n";
  return name;
}

FailureOr<cuda::KernelUnit::RunFunction>
cuda::KernelUnit::runFunction(ArrayRef<Operation *> run,
                              function_ref<bool(Value)> escapes, Value given) {
  FailureOr<RunBody> body = buildRun(run, escapes, given, "x");
  if (failed(body))
    return failure();
  if (!body->draws.empty())
    return run.front()->emitError(
        "a run fused into a generated op kernel may not drop out");
  RunFunction f;
  f.inputs = body->inputs;
  f.outputs = body->outputs;
  std::string signature = "(long long i, long long c";
  if (given)
    signature += ", float x";
  for (unsigned k = 0; k < f.inputs.size(); ++k)
    signature += ", const float *in" + std::to_string(k);
  for (unsigned k = 0; k < f.outputs.size(); ++k)
    signature += ", float *out" + std::to_string(k);
  signature += ") {\n";
  if (!body->usesColumn)
    signature += "  (void)c;\n";
  // Two-space indentation in a function of its own.
  std::string code = body->text + body->stores;
  std::string lines;
  SmallVector<StringRef> split;
  StringRef(code).rtrim('\n').split(split, '\n');
  for (StringRef line : split)
    lines += line.drop_front(2).str() + "\n";
  f.name = addDevice(body->comment,
                     signature + lines + "  return " + body->last + ";\n}\n");
  return f;
}

SmallVector<SmallVector<Operation *>> cuda::fusionGroups(Block &block,
                                                         bool dropout) {
  return elementwiseRuns(block,
                         [&](Operation *op) { return isFusible(op, dropout); });
}

std::string cuda::KernelUnit::add(StringRef comment,
                                  const std::string &signatureAndBody) {
  auto it = byBody.find(signatureAndBody);
  if (it != byBody.end())
    return it->second;
  std::string name = "gnnc_k" + std::to_string(count++);
  byBody[signatureAndBody] = name;
  text += "// " + comment.str() + "\n";
  text += "extern \"C\" __global__ void " + name + signatureAndBody + "\n";
  return name;
}

namespace {

/// A literal argument of type \p ctype (a launch's size, a fill's value).
cuda::KernelArg literalArg(StringRef ctype, std::string value) {
  cuda::KernelArg arg{cuda::KernelArg::Kind::Literal, Value(), 0,
                      (ctype + " ").str()};
  arg.literal = std::move(value);
  return arg;
}

cuda::KernelArg valueArg(cuda::KernelArg::Kind kind, Value v, StringRef ctype) {
  return {kind, v, 0, ctype.str()};
}

} // namespace

cuda::GeneratedOp cuda::KernelUnit::fill(StringRef ctype, int64_t n,
                                         StringRef value, Value out) {
  std::string body =
      ("(long long n, " + ctype + " value, " + ctype + " *out) {\n").str() +
      gridStrideLoop("i", "n") + "    out[i] = value;\n  }\n}\n";
  GeneratedOp launch;
  launch.steps.push_back(
      {add(("fill with one " + ctype + " value").str(), body),
       n,
       {literalArg("long long", std::to_string(n)),
        literalArg(ctype, value.str()),
        valueArg(KernelArg::Kind::Tensor, out, (ctype + " *").str())}});
  return launch;
}

FailureOr<cuda::KernelUnit::RunBody>
cuda::KernelUnit::buildRun(ArrayRef<Operation *> group,
                           function_ref<bool(Value)> escapes, Value given,
                           StringRef givenName) {
  RunBody run;
  RunBody &launch = run; // its keys and inputs, as a launch lists them
  llvm::DenseMap<Value, std::string> temps;      // group results
  llvm::DenseMap<Value, std::string> fullLoads;  // inputs read at i
  llvm::DenseMap<Value, std::string> broadcasts; // [cols] inputs read at c
  if (given)
    temps[given] = givenName.str();
  std::string &body = run.text, &comment = run.comment;
  llvm::raw_string_ostream b(body);
  bool &usesColumn = run.usesColumn;
  unsigned temp = 0;
  // The Philox blocks the run draws, one per (key, stream): `rK[4]`.
  std::string &draws = run.draws;
  llvm::DenseMap<std::pair<Value, int64_t>, std::string> words;
  auto wordsOf = [&](Value key, int64_t stream) {
    auto [it, added] = words.try_emplace({key, stream});
    if (!added)
      return it->second;
    const auto *at = llvm::find(launch.keys, key);
    const size_t k = at - launch.keys.begin();
    if (at == launch.keys.end())
      launch.keys.push_back(key);
    it->second = "r" + std::to_string(words.size() - 1);
    // stream and step enter the counter modulo 2^32 (gnnrt::dropoutBits).
    draws += "    unsigned int " + it->second + "[4];\n    gnnc_philox(b, " +
             std::to_string(static_cast<uint32_t>(stream)) +
             "u, (unsigned int)step" + std::to_string(k) + ", seed" +
             std::to_string(k) + ", " + it->second + ");\n";
    return it->second;
  };

  auto input = [&](Value v, bool broadcast) -> std::string {
    if (auto it = temps.find(v); it != temps.end())
      return it->second;
    auto &loads = broadcast ? broadcasts : fullLoads;
    if (auto it = loads.find(v); it != loads.end())
      return it->second;
    unsigned index = launch.inputs.size();
    launch.inputs.push_back(v);
    std::string t = "t" + std::to_string(temp++);
    b << "    const float " << t << " = in" << index << "["
      << (broadcast ? "c" : "i") << "];\n";
    usesColumn |= broadcast;
    return loads[v] = t;
  };

  for (Operation *op : group) {
    std::string expr;
    std::string kind;
    LogicalResult ok =
        llvm::TypeSwitch<Operation *, LogicalResult>(op)
            .Case<AddOp, SubOp, MulOp>([&](auto o) {
              StringRef sign = isa<AddOp>(op)   ? " + "
                               : isa<SubOp>(op) ? " - "
                                                : " * ";
              std::string lhs = input(o.getLhs(), false);
              expr = lhs + sign.str() + input(o.getRhs(), false);
              kind = isa<AddOp>(op) ? "add" : isa<SubOp>(op) ? "sub" : "mul";
              return success();
            })
            .Case([&](ScaleOp o) {
              // The product in double, rounded once (gnnrt_cpu_scale).
              expr = "(float)((double)" + input(o.getInput(), false) + " * " +
                     doubleLiteral(o.getFactorAttr().getValueAsDouble()) + ")";
              kind = "scale";
              return success();
            })
            .Case([&](BiasAddOp o) {
              std::string x = input(o.getInput(), false);
              expr = x + " + " + input(o.getBias(), true);
              kind = "bias_add";
              return success();
            })
            .Case([&](RowMulOp o) {
              std::string x = input(o.getInput(), false);
              expr = x + " * " + input(o.getScale(), true);
              kind = "row_mul";
              return success();
            })
            .Case([&](ZerosOp) {
              expr = "0.0f";
              kind = "zeros";
              return success();
            })
            .Case([&](DropoutOp o) {
              if (!isFusibleDropout(op))
                return LogicalResult(op->emitError(
                    "the CUDA target generates dropout of whole f32 tensors "
                    "only"));
              // gnnrt_cpu_dropout's element: the quotient by keep in
              // double, rounded once, where the bits reach the threshold
              // (0 keeps everything, 2^32 nothing, without drawing).
              const double p = o.getPAttr().getValueAsDouble();
              const uint64_t threshold = gnnrt::dropoutThreshold(p);
              std::string x = input(o.getInput(), false);
              std::string kept =
                  "(float)((double)" + x + " / " + doubleLiteral(1.0 - p) + ")";
              if (threshold == 0)
                expr = kept;
              else if (threshold > UINT32_MAX)
                expr = "0.0f";
              else
                expr = wordsOf(o.getKey(), o.getStream()) +
                       "[j] >= " + std::to_string(threshold) + "u ? " + kept +
                       " : 0.0f";
              kind = "dropout";
              return success();
            })
            .Case([&](ActivationOp o) {
              std::string v = input(o.getInput(), false);
              std::string s = floatLiteral(o.getSlopeAttr().getValueAsDouble());
              switch (o.getKind()) {
              case Activation::relu:
                expr = v + " > 0 ? " + v + " : 0.0f";
                break;
              case Activation::leaky_relu:
                expr = v + " > 0 ? " + v + " : " + s + " * " + v;
                break;
              case Activation::elu:
                expr = v + " > 0 ? " + v + " : expm1f(" + v + ")";
                break;
              case Activation::gelu:
                expr = "0.5f * " + v + " * (1.0f + erff(" + v +
                       " * 0.70710678118654752440f))";
                break;
              case Activation::sigmoid:
                expr = "1.0f / (1.0f + expf(-" + v + "))";
                break;
              case Activation::tanh:
                expr = "tanhf(" + v + ")";
                break;
              }
              kind = stringifyActivation(o.getKind()).str();
              return success();
            })
            .Case([&](ActivationGradOp o) {
              std::string v = input(o.getInput(), false);
              std::string dy = input(o.getResultGrad(), false);
              std::string s = floatLiteral(o.getSlopeAttr().getValueAsDouble());
              std::string d;
              switch (o.getKind()) {
              case Activation::relu:
                d = "(" + v + " > 0 ? 1.0f : 0.0f)";
                break;
              case Activation::leaky_relu:
                d = "(" + v + " > 0 ? 1.0f : " + s + ")";
                break;
              case Activation::elu:
                d = "(" + v + " > 0 ? 1.0f : expf(" + v + "))";
                break;
              case Activation::gelu:
                d = "(0.5f * (1.0f + erff(" + v +
                    " * 0.70710678118654752440f)) + " + v +
                    " * 0.39894228040143267794f * expf(-0.5f * " + v + " * " +
                    v + "))";
                break;
              case Activation::sigmoid: {
                std::string sg = "(1.0f / (1.0f + expf(-" + v + ")))";
                d = "(" + sg + " * (1.0f - " + sg + "))";
                break;
              }
              case Activation::tanh:
                d = "(1.0f - tanhf(" + v + ") * tanhf(" + v + "))";
                break;
              }
              expr = dy + " * " + d;
              kind = stringifyActivation(o.getKind()).str() + "_grad";
              return success();
            })
            .Default([&](Operation *) {
              return op->emitError("not an element-wise op the CUDA target "
                                   "fuses");
            });
    if (failed(ok))
      return failure();
    std::string t = "t" + std::to_string(temp++);
    b << "    const float " << t << " = " << expr << ";\n";
    temps[op->getResult(0)] = t;
    comment += (comment.empty() ? "" : ", ") + kind;
  }

  // Stores of the values read after the run.
  for (Operation *op : group) {
    Value result = op->getResult(0);
    if (!escapes(result))
      continue;
    run.stores += "    out" + std::to_string(run.outputs.size()) +
                  "[i] = " + temps[result] + ";\n";
    run.outputs.push_back(result);
  }
  run.last = temps[group.back()->getResult(0)];
  return run;
}

FailureOr<cuda::GeneratedOp>
cuda::KernelUnit::fuse(ArrayRef<Operation *> group,
                       function_ref<bool(Value)> escapes) {
  FailureOr<RunBody> run = buildRun(group, escapes);
  if (failed(run))
    return failure();
  RankedTensorType shape = resultType(group.front());
  const int64_t n = shape.getNumElements();
  KernelStep step;
  step.args = {literalArg("long long", std::to_string(n)),
               literalArg("long long", std::to_string(lastDim(shape)))};
  for (Value key : run->keys) {
    step.args.push_back(
        valueArg(KernelArg::Kind::KeySeed, key, "unsigned long long "));
    step.args.push_back(
        valueArg(KernelArg::Kind::KeyStep, key, "unsigned long long "));
  }
  for (Value in : run->inputs)
    step.args.push_back(valueArg(KernelArg::Kind::Tensor, in, "const float *"));
  for (Value out : run->outputs)
    step.args.push_back(valueArg(KernelArg::Kind::Tensor, out, "float *"));
  const std::string body = run->text + run->stores;
  const std::string &draws = run->draws, &comment = run->comment;
  const bool usesColumn = run->usesColumn;
  if (!draws.empty())
    usesPhilox = true;
  std::string signature = "(long long n, long long cols";
  for (unsigned k = 0; k < run->keys.size(); ++k)
    signature += ", unsigned long long seed" + std::to_string(k) +
                 ", unsigned long long step" + std::to_string(k);
  for (unsigned k = 0; k < run->inputs.size(); ++k)
    signature += ", const float *in" + std::to_string(k);
  for (unsigned k = 0; k < run->outputs.size(); ++k)
    signature += ", float *out" + std::to_string(k);
  signature += ") {\n";
  std::string full = signature;
  std::string column =
      usesColumn ? "const long long c = i % cols;\n" : "(void)cols;\n";
  if (draws.empty()) {
    step.items = n;
    full += gridStrideLoop("i", "n") + "    " + column + body + "  }\n}\n";
  } else {
    // Indent the per-element body one level deeper, inside the block's
    // loop over its four elements.
    SmallVector<StringRef> lines;
    StringRef(body).rtrim('\n').split(lines, '\n');
    std::string inner;
    for (StringRef line : lines)
      inner += "  " + line.str() + "\n";
    step.items = (n + 3) / 4;
    full += gridStrideLoop("b", "(n + 3) / 4") + draws +
            "    for (int j = 0; j < 4 && 4 * b + j < n; ++j) {\n"
            "      const long long i = 4 * b + j;\n      " +
            column + inner + "    }\n  }\n}\n";
  }
  step.kernel = add(comment, full);
  GeneratedOp launch;
  launch.steps.push_back(std::move(step));
  launch.stored = run->outputs;
  return launch;
}
