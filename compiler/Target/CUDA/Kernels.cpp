//===- Kernels.cpp - Generated CUDA kernels for element-wise chains -------===//
//
// Each op of a run becomes one `const float tK = ...;` in a grid-stride
// loop over the run's elements; inputs are loaded once, on first use.
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/CUDA/Kernels.h"

#include "dialects/Gnn/GnnOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <utility>

using namespace mlir;
using namespace mlir::gnn;

namespace {

/// A float literal that reads back exactly (C++17 hexadecimal), as the CPU
/// target prints them.
std::string floatLiteral(double value) {
  std::string s;
  llvm::raw_string_ostream(s)
      << llvm::format("%af", static_cast<double>(static_cast<float>(value)));
  return s;
}

/// A double literal that reads back exactly.
std::string doubleLiteral(double value) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%.17g", value);
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s;
}

RankedTensorType resultType(Operation *op) {
  return dyn_cast<RankedTensorType>(op->getResult(0).getType());
}

/// The f32 element-wise ops, their one result the shape of the run.
bool isElementwise(Operation *op) {
  if (!isa<AddOp, SubOp, MulOp, ScaleOp, ActivationOp, ActivationGradOp,
           BiasAddOp, RowMulOp, ZerosOp>(op))
    return false;
  RankedTensorType type = resultType(op);
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32() ||
      type.getEncoding())
    return false;
  // Every tensor operand plain f32 (no CSR, no narrow storage).
  return llvm::all_of(op->getOperandTypes(), [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return !tensor ||
           (tensor.getElementType().isF32() && !tensor.getEncoding());
  });
}

int64_t lastDim(RankedTensorType type) {
  return type.getRank() == 0 ? 1 : type.getShape().back();
}

/// The bytes [first, last) of the arena that gnn-assign-buffers gave \p v,
/// if any (arguments and result slots are memory of their own).
std::optional<std::pair<int64_t, int64_t>> arenaBytes(Value v) {
  auto result = dyn_cast<OpResult>(v);
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!result || !type || !type.hasStaticShape())
    return std::nullopt;
  auto offsets =
      result.getOwner()->getAttrOfType<DenseI64ArrayAttr>("gnn.offsets");
  if (!offsets || offsets.size() <= result.getResultNumber())
    return std::nullopt;
  int64_t first = offsets[result.getResultNumber()];
  if (first < 0)
    return std::nullopt;
  int64_t bytes = type.getNumElements() *
                  (type.getElementType().getIntOrFloatBitWidth() / 8);
  return std::make_pair(first, first + bytes);
}

/// Whether a kernel may read \p in (at i, or at the column when
/// \p broadcast) and write \p out at i. Buffers were placed for the ops one
/// at a time, so a result may lie over an input that died at an earlier op
/// of the run, at another offset: a thread's store would then land on an
/// element another thread has yet to read. The same bytes are safe, since
/// each thread loads its inputs before it stores.
bool safeToFuse(Value in, bool broadcast, Value out) {
  auto a = arenaBytes(in), b = arenaBytes(out);
  if (!a || !b || a->second <= b->first || b->second <= a->first)
    return true;
  return !broadcast && *a == *b;
}

/// The operands of an element-wise op, each with whether it is read at the
/// column ([cols] bias or scale) rather than at the element.
SmallVector<std::pair<Value, bool>> reads(Operation *op) {
  SmallVector<std::pair<Value, bool>> values;
  for (Value v : op->getOperands())
    values.push_back(
        {v, isa<BiasAddOp, RowMulOp>(op) && v == op->getOperand(1)});
  return values;
}

} // namespace

bool cuda::isFusible(Operation *op) { return isElementwise(op); }

SmallVector<SmallVector<Operation *>> cuda::fusionGroups(Block &block) {
  SmallVector<SmallVector<Operation *>> groups;
  SmallVector<Operation *> current;
  RankedTensorType shape;
  // Whether \p op may join `current` as far as its buffers go: none of its
  // results over a value the run reads, none of its operands under a value
  // the run writes (safeToFuse).
  auto buffersAllow = [&](Operation *op) {
    for (Operation *member : current) {
      for (auto [in, broadcast] : reads(member))
        for (Value out : op->getResults())
          if (!safeToFuse(in, broadcast, out))
            return false;
      for (auto [in, broadcast] : reads(op))
        for (Value out : member->getResults())
          if (!safeToFuse(in, broadcast, out))
            return false;
    }
    for (auto [in, broadcast] : reads(op))
      for (Value out : op->getResults())
        if (!safeToFuse(in, broadcast, out))
          return false;
    return true;
  };
  for (Operation &op : block) {
    if (!isElementwise(&op)) {
      if (!current.empty())
        groups.push_back(std::move(current));
      current.clear();
      continue;
    }
    RankedTensorType type = resultType(&op);
    if (!current.empty() &&
        (type.getShape() != shape.getShape() || !buffersAllow(&op))) {
      groups.push_back(std::move(current));
      current.clear();
    }
    shape = type;
    current.push_back(&op);
  }
  if (!current.empty())
    groups.push_back(std::move(current));
  return groups;
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

std::string cuda::KernelUnit::fill(StringRef ctype) {
  std::string body = ("(long long n, " + ctype + " value, " + ctype +
                      " *out) {\n"
                      "  for (long long i = (long long)blockIdx.x * "
                      "blockDim.x + threadIdx.x; i < n;\n"
                      "       i += (long long)gridDim.x * blockDim.x)\n"
                      "    out[i] = value;\n}\n")
                         .str();
  return add(("fill with one " + ctype + " value").str(), body);
}

FailureOr<cuda::KernelLaunch>
cuda::KernelUnit::fuse(ArrayRef<Operation *> group,
                       function_ref<bool(Value)> escapes) {
  KernelLaunch launch;
  RankedTensorType shape = resultType(group.front());
  launch.n = shape.getNumElements();
  launch.cols = lastDim(shape);

  llvm::DenseMap<Value, std::string> temps;      // group results
  llvm::DenseMap<Value, std::string> fullLoads;  // inputs read at i
  llvm::DenseMap<Value, std::string> broadcasts; // [cols] inputs read at c
  std::string body, comment;
  llvm::raw_string_ostream b(body);
  bool usesColumn = false;
  unsigned temp = 0;

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
    b << "    out" << launch.outputs.size() << "[i] = " << temps[result]
      << ";\n";
    launch.outputs.push_back(result);
  }

  std::string signature = "(long long n, long long cols";
  for (unsigned k = 0; k < launch.inputs.size(); ++k)
    signature += ", const float *in" + std::to_string(k);
  for (unsigned k = 0; k < launch.outputs.size(); ++k)
    signature += ", float *out" + std::to_string(k);
  signature += ") {\n";
  std::string full = signature +
                     "  for (long long i = (long long)blockIdx.x * blockDim.x "
                     "+ threadIdx.x; i < n;\n"
                     "       i += (long long)gridDim.x * blockDim.x) {\n";
  if (usesColumn)
    full += "    const long long c = i % cols;\n";
  else
    full += "    (void)cols;\n";
  full += body + "  }\n}\n";
  launch.kernel = add(comment, full);
  return launch;
}
