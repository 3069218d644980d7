//===- Interpreter.cpp - Reference interpreter for gnn/train IR -----------===//
//
// One handler per op, each a plain loop nest in fp64 written from the op's
// description in GnnOps.td / TrainOps.td. Layer ops are computed here
// directly rather than through gnn-decompose, so that the decomposition can
// be checked against them. Speed is no goal; every shape is checked at run
// time (types may be dynamic), and a bad program or argument comes back as
// an llvm::Error naming the op and its location, never as a crash.
//
//===----------------------------------------------------------------------===//
#include "compiler/Reference/Interpreter.h"

#include "dialects/Gnn/GnnOps.h"
#include "dialects/Gnn/RowSets.h"
#include "dialects/Train/TrainOps.h"

#include "gnnrt/Kernels.h"
#include "gnnrt/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>

namespace gnnc::ref {

Tensor Tensor::zeros(std::vector<int64_t> shape) {
  Tensor t;
  t.shape = std::move(shape);
  t.data.assign(t.numElements(), 0.0);
  return t;
}

int64_t Tensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

namespace {

using llvm::Error;
using llvm::Twine;
using mlir::gnn::Activation;
using mlir::gnn::Aggregation;

// Calls nest at most this deep; deeper means runaway recursion in the IR.
constexpr unsigned kMaxCallDepth = 64;

Error makeError(const Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

//===----------------------------------------------------------------------===//
// Describing values and locations in messages
//===----------------------------------------------------------------------===//

std::string shapeText(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

std::string describe(const Value &v) {
  if (auto *t = std::get_if<Tensor>(&v))
    return "a float tensor " + shapeText(t->shape);
  if (auto *t = std::get_if<IntTensor>(&v))
    return "an integer tensor " + shapeText(t->shape);
  if (auto *g = std::get_if<Graph>(&v))
    return "a graph with " + std::to_string(g->nodes) + " nodes and " +
           std::to_string(g->numEdges()) + " edges";
  if (std::holds_alternative<RngKey>(v))
    return "an rng key";
  return "an integer scalar";
}

std::string typeText(mlir::Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// `file:line:col` of the first file location inside \p loc (fused and
/// named locations wrap the one the user wants to see).
std::string locText(mlir::Location loc) {
  std::optional<mlir::FileLineColLoc> found;
  loc->walk([&](mlir::Location l) {
    if (auto fl = mlir::dyn_cast<mlir::FileLineColLoc>(l)) {
      found = fl;
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  if (found)
    return (found->getFilename().getValue() + ":" + Twine(found->getLine()) +
            ":" + Twine(found->getColumn()))
        .str();
  std::string s;
  llvm::raw_string_ostream os(s);
  os << loc;
  return s;
}

//===----------------------------------------------------------------------===//
// Values against types
//===----------------------------------------------------------------------===//

bool dimMatches(int64_t typeDim, int64_t dim) {
  return mlir::ShapedType::isDynamic(typeDim) || typeDim == dim;
}

bool shapeMatches(llvm::ArrayRef<int64_t> typeShape,
                  llvm::ArrayRef<int64_t> shape) {
  if (typeShape.size() != shape.size())
    return false;
  for (auto [t, d] : llvm::zip_equal(typeShape, shape))
    if (!dimMatches(t, d))
      return false;
  return true;
}

/// Whether \p v can be the value of an SSA value of type \p type.
bool fitsType(mlir::Type type, const Value &v) {
  return llvm::TypeSwitch<mlir::Type, bool>(type)
      .Case<mlir::RankedTensorType>([&](mlir::RankedTensorType tt) {
        if (mlir::isa<mlir::FloatType>(tt.getElementType())) {
          auto *t = std::get_if<Tensor>(&v);
          return t && shapeMatches(tt.getShape(), t->shape);
        }
        if (mlir::isa<mlir::IntegerType>(tt.getElementType())) {
          auto *t = std::get_if<IntTensor>(&v);
          return t && shapeMatches(tt.getShape(), t->shape);
        }
        return false;
      })
      .Case<mlir::gnn::GraphType>([&](mlir::gnn::GraphType gt) {
        auto *g = std::get_if<Graph>(&v);
        return g && dimMatches(gt.getNodes(), g->nodes) &&
               dimMatches(gt.getEdges(), g->numEdges());
      })
      .Case<mlir::gnn::RngKeyType>(
          [&](auto) { return std::holds_alternative<RngKey>(v); })
      .Case<mlir::IntegerType, mlir::IndexType>(
          [&](auto) { return std::holds_alternative<int64_t>(v); })
      .Default([](mlir::Type) { return false; });
}

/// What is wrong inside a value handed in from outside, if anything.
std::optional<std::string> malformed(const Value &v) {
  auto checkShape = [](llvm::ArrayRef<int64_t> shape,
                       size_t size) -> std::optional<std::string> {
    int64_t n = 1;
    for (int64_t d : shape) {
      if (d < 0)
        return "negative dimension in " + shapeText(shape);
      n *= d;
    }
    if (static_cast<size_t>(n) != size)
      return "shape " + shapeText(shape) + " needs " + std::to_string(n) +
             " elements, the data has " + std::to_string(size);
    return std::nullopt;
  };
  if (auto *t = std::get_if<Tensor>(&v))
    return checkShape(t->shape, t->data.size());
  if (auto *t = std::get_if<IntTensor>(&v))
    return checkShape(t->shape, t->data.size());
  if (auto *g = std::get_if<Graph>(&v)) {
    if (g->nodes < 0)
      return std::string("graph with a negative node count");
    if (g->src.size() != g->dst.size())
      return "graph with " + std::to_string(g->src.size()) + " sources but " +
             std::to_string(g->dst.size()) + " destinations";
    for (int64_t e = 0; e < g->numEdges(); ++e)
      if (g->src[e] < 0 || g->src[e] >= g->nodes || g->dst[e] < 0 ||
          g->dst[e] >= g->nodes)
        return "graph edge " + std::to_string(e) + " (" +
               std::to_string(g->src[e]) + " -> " + std::to_string(g->dst[e]) +
               ") leaves the " + std::to_string(g->nodes) + " nodes";
  }
  return std::nullopt;
}

/// The static shape of a tensor type, if it has one.
std::optional<std::vector<int64_t>> staticShape(mlir::Type type) {
  auto tt = mlir::dyn_cast<mlir::RankedTensorType>(type);
  if (!tt || !tt.hasStaticShape())
    return std::nullopt;
  return std::vector<int64_t>(tt.getShape().begin(), tt.getShape().end());
}

double toDouble(llvm::APFloat f) {
  bool losesInfo = false;
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &losesInfo);
  return f.convertToDouble();
}

/// Integer width of a scalar or element type (index is 64 bits).
unsigned intWidth(mlir::Type t) {
  if (auto it = mlir::dyn_cast<mlir::IntegerType>(t))
    return it.getWidth();
  return 64;
}

/// \p v reduced to \p width bits: i1 as 0/1 (masks), wider types
/// sign-extended, the way arith's wrapping arithmetic leaves them.
int64_t wrapTo(uint64_t v, unsigned width) {
  if (width >= 64)
    return static_cast<int64_t>(v);
  if (width == 1)
    return static_cast<int64_t>(v & 1);
  uint64_t mask = (uint64_t(1) << width) - 1, sign = uint64_t(1) << (width - 1);
  v &= mask;
  return static_cast<int64_t>((v ^ sign) - sign);
}

int64_t fromAPInt(const llvm::APInt &v) {
  return v.getBitWidth() == 1 ? static_cast<int64_t>(v.getZExtValue())
                              : v.getSExtValue();
}

//===----------------------------------------------------------------------===//
// Graph and tensor computations shared by primitives and layers
//===----------------------------------------------------------------------===//

/// Incoming edge ids of every node, in increasing id order.
std::vector<std::vector<int64_t>> incomingEdges(const Graph &g) {
  std::vector<std::vector<int64_t>> in(g.nodes);
  for (int64_t e = 0; e < g.numEdges(); ++e)
    in[g.dst[e]].push_back(e);
  return in;
}

std::vector<int64_t> inDegrees(const Graph &g) {
  std::vector<int64_t> deg(g.nodes, 0);
  for (int64_t d : g.dst)
    ++deg[d];
  return deg;
}

Graph withSelfLoops(const Graph &g) {
  Graph r = g;
  for (int64_t i = 0; i < g.nodes; ++i) {
    r.src.push_back(i);
    r.dst.push_back(i);
  }
  return r;
}

Graph reversed(const Graph &g) {
  Graph r = g;
  std::swap(r.src, r.dst);
  return r;
}

Tensor edgeNorm(const Graph &g, mlir::gnn::EdgeNorm kind) {
  std::vector<int64_t> deg = inDegrees(g);
  Tensor w = Tensor::zeros({g.numEdges()});
  for (int64_t e = 0; e < g.numEdges(); ++e) {
    double ds = static_cast<double>(deg[g.src[e]]);
    double dd = static_cast<double>(deg[g.dst[e]]);
    if (kind == mlir::gnn::EdgeNorm::symmetric)
      w.data[e] = ds == 0 || dd == 0
                      ? 0.0
                      : 1.0 / std::sqrt(ds) * (1.0 / std::sqrt(dd));
    else
      w.data[e] = dd == 0 ? 0.0 : 1.0 / dd;
  }
  return w;
}

/// op(a) op(b); shapes checked by the caller.
Tensor matmul(const Tensor &a, const Tensor &b, bool ta = false,
              bool tb = false) {
  int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
  int64_t n = tb ? b.shape[0] : b.shape[1];
  Tensor y = Tensor::zeros({m, n});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l)
        s += (ta ? a.at(l, i) : a.at(i, l)) * (tb ? b.at(j, l) : b.at(l, j));
      y.at(i, j) = s;
    }
  return y;
}

void addRowVector(Tensor &y, const Tensor &b) {
  for (int64_t i = 0; i < y.shape[0]; ++i)
    for (int64_t c = 0; c < y.shape[1]; ++c)
      y.at(i, c) += b.data[c];
}

void addInPlace(Tensor &y, const Tensor &x) {
  for (size_t i = 0; i < y.data.size(); ++i)
    y.data[i] += x.data[i];
}

/// gnn.spmm: `y[i, c] = aggr over incoming e of w(e, head(c)) x[src(e), c]`
/// with weights absent, [E] or [E, H]; no incoming edges gives 0.
Tensor aggregate(const Graph &g, const Tensor &x, Aggregation aggr,
                 const Tensor *w) {
  int64_t d = x.shape[1];
  int64_t heads = w && w->shape.size() == 2 ? w->shape[1] : 1;
  int64_t width = d / heads;
  auto weight = [&](int64_t e, int64_t c) {
    return w ? w->data[e * heads + c / width] : 1.0;
  };
  auto in = incomingEdges(g);
  Tensor y = Tensor::zeros({g.nodes, d});
  for (int64_t i = 0; i < g.nodes; ++i) {
    if (in[i].empty())
      continue;
    for (int64_t c = 0; c < d; ++c) {
      double acc = aggr == Aggregation::max
                       ? -std::numeric_limits<double>::infinity()
                       : 0.0;
      for (int64_t e : in[i]) {
        double m = weight(e, c) * x.at(g.src[e], c);
        acc = aggr == Aggregation::max ? std::max(acc, m) : acc + m;
      }
      if (aggr == Aggregation::mean)
        acc /= static_cast<double>(in[i].size());
      y.at(i, c) = acc;
    }
  }
  return y;
}

/// gnn.edge_softmax over `s : [E, H]`, subtracting each group's maximum.
Tensor edgeSoftmax(const Graph &g, const Tensor &s) {
  int64_t heads = s.shape[1];
  Tensor y = Tensor::zeros(s.shape);
  for (const auto &edges : incomingEdges(g))
    for (int64_t k = 0; k < heads; ++k) {
      if (edges.empty())
        continue;
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t e : edges)
        m = std::max(m, s.at(e, k));
      double sum = 0;
      for (int64_t e : edges)
        sum += std::exp(s.at(e, k) - m);
      for (int64_t e : edges)
        y.at(e, k) = std::exp(s.at(e, k) - m) / sum;
    }
  return y;
}

/// gnn.normalize: mean and biased variance over rows (dim 0, per column)
/// or over columns (dim 1, per row).
Tensor standardize(const Tensor &x, int64_t dim, double eps) {
  int64_t rows = x.shape[0], cols = x.shape[1];
  int64_t groups = dim == 0 ? cols : rows, n = dim == 0 ? rows : cols;
  auto at = [&](int64_t grp, int64_t j) -> int64_t {
    return dim == 0 ? j * cols + grp : grp * cols + j;
  };
  Tensor y = Tensor::zeros(x.shape);
  for (int64_t grp = 0; grp < groups; ++grp) {
    double mean = 0;
    for (int64_t j = 0; j < n; ++j)
      mean += x.data[at(grp, j)];
    mean /= static_cast<double>(n);
    double var = 0;
    for (int64_t j = 0; j < n; ++j)
      var += (x.data[at(grp, j)] - mean) * (x.data[at(grp, j)] - mean);
    var /= static_cast<double>(n);
    double r = 1.0 / std::sqrt(var + eps);
    for (int64_t j = 0; j < n; ++j)
      y.data[at(grp, j)] = (x.data[at(grp, j)] - mean) * r;
  }
  return y;
}

/// gnn.normalize_grad: `r (dy - mean(dy) - xhat mean(dy xhat))` per group.
Tensor standardizeGrad(const Tensor &x, const Tensor &dy, int64_t dim,
                       double eps) {
  int64_t rows = x.shape[0], cols = x.shape[1];
  int64_t groups = dim == 0 ? cols : rows, n = dim == 0 ? rows : cols;
  auto at = [&](int64_t grp, int64_t j) -> int64_t {
    return dim == 0 ? j * cols + grp : grp * cols + j;
  };
  Tensor xhat = standardize(x, dim, eps);
  Tensor dx = Tensor::zeros(x.shape);
  for (int64_t grp = 0; grp < groups; ++grp) {
    double mean = 0, var = 0, meanDy = 0, meanDyXhat = 0;
    for (int64_t j = 0; j < n; ++j)
      mean += x.data[at(grp, j)];
    mean /= static_cast<double>(n);
    for (int64_t j = 0; j < n; ++j) {
      int64_t p = at(grp, j);
      var += (x.data[p] - mean) * (x.data[p] - mean);
      meanDy += dy.data[p];
      meanDyXhat += dy.data[p] * xhat.data[p];
    }
    var /= static_cast<double>(n);
    meanDy /= static_cast<double>(n);
    meanDyXhat /= static_cast<double>(n);
    double r = 1.0 / std::sqrt(var + eps);
    for (int64_t j = 0; j < n; ++j) {
      int64_t p = at(grp, j);
      dx.data[p] = r * (dy.data[p] - meanDy - xhat.data[p] * meanDyXhat);
    }
  }
  return dx;
}

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

double activate(Activation kind, double x, double slope) {
  switch (kind) {
  case Activation::relu:
    return x > 0 ? x : 0.0;
  case Activation::leaky_relu:
    return x > 0 ? x : slope * x;
  case Activation::elu:
    return x > 0 ? x : std::expm1(x);
  case Activation::gelu:
    return 0.5 * x * (1.0 + std::erf(x * kInvSqrt2));
  case Activation::sigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case Activation::tanh:
    return std::tanh(x);
  }
  llvm_unreachable("unknown activation");
}

/// f'(x), from the left at the kinks of relu and leaky_relu.
double activateDerivative(Activation kind, double x, double slope) {
  switch (kind) {
  case Activation::relu:
    return x > 0 ? 1.0 : 0.0;
  case Activation::leaky_relu:
    return x > 0 ? 1.0 : slope;
  case Activation::elu:
    return x > 0 ? 1.0 : std::exp(x);
  case Activation::gelu:
    return 0.5 * (1.0 + std::erf(x * kInvSqrt2)) +
           x * kInvSqrt2Pi * std::exp(-0.5 * x * x);
  case Activation::sigmoid: {
    double s = 1.0 / (1.0 + std::exp(-x));
    return s * (1.0 - s);
  }
  case Activation::tanh: {
    double t = std::tanh(x);
    return 1.0 - t * t;
  }
  }
  llvm_unreachable("unknown activation");
}

/// gnn.dropout in place: element i (row-major) survives, scaled by
/// 1/(1-p), iff the Philox uniform of mask element `index(i)` is >= p
/// (i itself, or with mask_columns the element of the whole matrix).
void dropout(
    Tensor &t, const RngKey &key, uint64_t stream, double p,
    llvm::function_ref<uint64_t(uint64_t)> index = [](uint64_t i) {
      return i;
    }) {
  for (size_t i = 0; i < t.data.size(); ++i)
    t.data[i] = gnnrt::dropoutUniform(key.seed, key.step, stream, index(i)) >= p
                    ? t.data[i] / (1.0 - p)
                    : 0.0;
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

/// The values of one function activation. Node-based storage keeps
/// references to operands valid while results are inserted.
class Frame {
public:
  const Value *lookup(mlir::Value v) const {
    auto it = values.find(v.getAsOpaquePointer());
    return it == values.end() ? nullptr : &it->second;
  }
  void bind(mlir::Value v, Value value) {
    values.insert_or_assign(v.getAsOpaquePointer(), std::move(value));
  }

private:
  std::unordered_map<const void *, Value> values;
};

llvm::Expected<std::vector<Value>> callFunction(mlir::func::FuncOp func,
                                                llvm::ArrayRef<Value> args,
                                                unsigned depth);

/// Executes one op. Operand accessors note the first problem and return
/// null; a handler fetches its operands, returns `fail()` if any was
/// wrong, then checks shapes against each other before computing.
class OpRunner {
public:
  OpRunner(Frame &frame, mlir::Operation *op, unsigned depth)
      : frame(frame), op(op), depth(depth) {}

  Error run();

private:
  /// Runs the op's own handler.
  Error dispatch();

  Frame &frame;
  mlir::Operation *op;
  unsigned depth;
  std::string problem;

  Error error(const Twine &msg) const {
    return makeError("'" + op->getName().getStringRef() + "' at " +
                     locText(op->getLoc()) + ": " + msg);
  }
  Error fail() const { return error(problem); }
  bool failed() const { return !problem.empty(); }
  /// Notes \p msg unless \p ok or a problem is already noted.
  bool check(bool ok, const Twine &msg) {
    if (!ok && problem.empty())
      problem = msg.str();
    return ok && problem.empty();
  }

  std::string operandName(mlir::Value v, llvm::StringRef what) const {
    if (!what.empty())
      return what.str();
    for (mlir::OpOperand &o : op->getOpOperands())
      if (o.get() == v)
        return "operand #" + std::to_string(o.getOperandNumber());
    return "operand";
  }

  const Value *operand(mlir::Value v, llvm::StringRef what) {
    const Value *value = frame.lookup(v);
    check(value != nullptr,
          operandName(v, what) + " has no value (defined after its use?)");
    return value;
  }

  /// A float tensor operand of rank \p rank (any rank when negative).
  const Tensor *tensor(mlir::Value v, llvm::StringRef what, int rank = -1) {
    const Value *value = operand(v, what);
    if (!value)
      return nullptr;
    auto *t = std::get_if<Tensor>(value);
    if (!check(t != nullptr, operandName(v, what) +
                                 " must be a float tensor, got " +
                                 describe(*value)))
      return nullptr;
    if (rank >= 0 && !check(static_cast<int>(t->shape.size()) == rank,
                            operandName(v, what) + " must have rank " +
                                Twine(rank) + ", got " + shapeText(t->shape)))
      return nullptr;
    return t;
  }
  const Tensor *matrix(mlir::Value v, llvm::StringRef what) {
    return tensor(v, what, 2);
  }
  const Tensor *vector(mlir::Value v, llvm::StringRef what) {
    return tensor(v, what, 1);
  }

  const IntTensor *intVector(mlir::Value v, llvm::StringRef what) {
    const Value *value = operand(v, what);
    if (!value)
      return nullptr;
    auto *t = std::get_if<IntTensor>(value);
    if (!check(t != nullptr,
               what + " must be an integer tensor, got " + describe(*value)) ||
        !check(t->shape.size() == 1,
               what + " must have rank 1, got " + shapeText(t->shape)))
      return nullptr;
    return t;
  }

  const Graph *graph(mlir::Value v) {
    const Value *value = operand(v, "graph");
    if (!value)
      return nullptr;
    auto *g = std::get_if<Graph>(value);
    check(g != nullptr, "graph must be a graph, got " + describe(*value));
    return g;
  }

  const RngKey *rngKey(mlir::Value v) {
    const Value *value = operand(v, "key");
    if (!value)
      return nullptr;
    auto *k = std::get_if<RngKey>(value);
    check(k != nullptr, "key must be an rng key, got " + describe(*value));
    return k;
  }

  std::optional<int64_t> scalar(mlir::Value v, llvm::StringRef what) {
    const Value *value = operand(v, what);
    if (!value)
      return std::nullopt;
    auto *s = std::get_if<int64_t>(value);
    if (!check(s != nullptr, operandName(v, what) +
                                 " must be an integer scalar, got " +
                                 describe(*value)))
      return std::nullopt;
    return *s;
  }

  /// Checks \p t has the \p expected extent in dimension \p dim.
  bool checkDim(const Tensor &t, size_t dim, int64_t expected,
                const Twine &what) {
    return check(t.shape[dim] == expected, what + ": expected " +
                                               Twine(expected) + ", got " +
                                               Twine(t.shape[dim]));
  }

  /// Binds \p result after checking \p v against its type, which catches
  /// IR whose types disagree with what its ops compute.
  Error bind(mlir::Value result, Value v) {
    if (!fitsType(result.getType(), v))
      return error("result #" +
                   Twine(mlir::cast<mlir::OpResult>(result).getResultNumber()) +
                   " is " + describe(v) + ", but its type is " +
                   typeText(result.getType()));
    frame.bind(result, std::move(v));
    return Error::success();
  }

  /// The static shape of \p result's type, for ops that create tensors.
  std::optional<std::vector<int64_t>> resultShape(mlir::Value result) {
    auto shape = staticShape(result.getType());
    check(shape.has_value(),
          "needs a static result shape, got " + typeText(result.getType()));
    return shape;
  }

  // Graph ops.
  Error exec(mlir::gnn::AddSelfLoopsOp op);
  Error exec(mlir::gnn::TransposeOp op);
  Error exec(mlir::gnn::EdgeNormOp op);
  Error exec(mlir::gnn::ReceptiveRowsOp op);
  Error exec(mlir::gnn::ReceptiveEdgesOp op);
  /// The per-node levels of \p rowSets (gnn.receptive_rows' layout) for
  /// \p nodes nodes, unpacked into `levels` (valid until the next call), or
  /// nullptr after reporting why not.
  const int64_t *rowLevels(mlir::Value rowSets, int64_t nodes);
  std::vector<int64_t> levels;
  /// Row sets of \p hops hops in gnn.receptive_rows' layout, from each
  /// row's level (hops + 1: in no set).
  static IntTensor packRowSets(const std::vector<int64_t> &level, int64_t hops);
  /// Zeroes the rows of \p t whose level exceeds \p level.
  static void zeroOutside(Tensor &t, const int64_t *levels, int64_t level);
  // Layers.
  Error exec(mlir::gnn::GcnConvOp op);
  Error exec(mlir::gnn::SageConvOp op);
  Error exec(mlir::gnn::GraphConvOp op);
  Error neighbourLayer(mlir::Value graphValue, mlir::Value input,
                       mlir::Value weight, mlir::Value rootWeight,
                       mlir::Value bias, mlir::gnn::Aggregation aggr,
                       mlir::Value result);
  Error exec(mlir::gnn::GinConvOp op);
  Error exec(mlir::gnn::GatConvOp op);
  Error exec(mlir::gnn::LinearOp op);
  Error exec(mlir::gnn::BatchNormOp op);
  Error exec(mlir::gnn::LayerNormOp op);
  Error normLayer(mlir::Value input, mlir::Value weight, mlir::Value bias,
                  double eps, int64_t dim, mlir::Value result);
  // Aggregation primitives.
  Error exec(mlir::gnn::SpmmOp op);
  Error exec(mlir::gnn::SpmmMaxGradOp op);
  Error exec(mlir::gnn::SddmmOp op);
  Error exec(mlir::gnn::GatherOp op);
  Error exec(mlir::gnn::ScatterOp op);
  Error exec(mlir::gnn::EdgeAddOp op);
  Error exec(mlir::gnn::EdgeSoftmaxOp op);
  Error exec(mlir::gnn::EdgeSoftmaxGradOp op);
  // Dense primitives.
  Error exec(mlir::gnn::MatmulOp op);
  Error exec(mlir::gnn::BiasAddOp op);
  Error exec(mlir::gnn::RowMulOp op);
  Error exec(mlir::gnn::ReduceOp op);
  Error exec(mlir::gnn::HeadMatrixOp op);
  Error exec(mlir::gnn::ZerosOp op);
  // Element-wise primitives.
  Error exec(mlir::gnn::AddOp op) { return binary(op, std::plus<double>()); }
  Error exec(mlir::gnn::SubOp op) { return binary(op, std::minus<double>()); }
  Error exec(mlir::gnn::MulOp op) {
    return binary(op, std::multiplies<double>());
  }
  template <typename OpT, typename Fn> Error binary(OpT op, Fn fn);
  Error exec(mlir::gnn::ScaleOp op);
  Error exec(mlir::gnn::ActivationOp op);
  Error exec(mlir::gnn::ActivationGradOp op);
  Error exec(mlir::gnn::RngKeyOp op);
  Error exec(mlir::gnn::DropoutOp op);
  Error exec(mlir::gnn::ConcatOp op);
  Error exec(mlir::gnn::SliceOp op);
  Error exec(mlir::gnn::InsertColumnsOp op);
  Error exec(mlir::gnn::NormalizeOp op);
  Error exec(mlir::gnn::NormalizeGradOp op);
  // train.
  Error exec(mlir::train::InitOp op);
  Error exec(mlir::train::CrossEntropyOp op);
  Error exec(mlir::train::CrossEntropyGradOp op);
  Error exec(mlir::train::AdamOp op);
  Error exec(mlir::train::SgdOp op);
  // func and arith.
  Error exec(mlir::func::CallOp op);
  Error exec(mlir::arith::ConstantOp op);
  Error exec(mlir::arith::AddIOp op) { return integer(op, std::plus<>()); }
  Error exec(mlir::arith::SubIOp op) { return integer(op, std::minus<>()); }
  Error exec(mlir::arith::MulIOp op) {
    return integer(op, std::multiplies<>());
  }
  template <typename OpT, typename Fn> Error integer(OpT op, Fn fn);

  /// The parts of the loss ops shared by the loss and its gradient.
  struct LossInputs {
    const Tensor *logits;
    std::vector<bool> counted;
    std::vector<double> classWeight;
    double weightSum = 0;
    int64_t classes = 0;
  };
  std::optional<LossInputs> lossInputs(mlir::Value logits, mlir::Value labels,
                                       mlir::Value mask,
                                       mlir::train::ClassWeights weights,
                                       const IntTensor *&labelValues);
};

Error OpRunner::run() {
  if (Error e = dispatch())
    return e;
  // An edge kernel given row sets: the edges into rows outside its set are
  // 0.
  if (std::optional<mlir::gnn::RowRestriction> edges =
          mlir::gnn::getEdgeRestriction(op)) {
    const Graph *g = graph(op->getOperand(0));
    const Tensor *computed = tensor(op->getResult(0), "result");
    if (failed())
      return fail();
    const int64_t *levels = rowLevels(edges->rowSets, g->nodes);
    if (!levels)
      return fail();
    Tensor y = *computed;
    const int64_t width = y.shape[1];
    for (int64_t e = 0; e < g->numEdges(); ++e)
      if (levels[g->dst[e]] > edges->level)
        std::fill(y.data.begin() + e * width, y.data.begin() + (e + 1) * width,
                  0.0);
    return bind(op->getResult(0), std::move(y));
  }
  // A row-wise op (element-wise, bias, dropout, concat) given row sets:
  // the rows outside its set are 0. (SpMM, products and sums read their
  // operands differently with them, in their own handlers.)
  if (!mlir::isa<mlir::gnn::BiasAddOp, mlir::gnn::RowMulOp, mlir::gnn::AddOp,
                 mlir::gnn::SubOp, mlir::gnn::MulOp, mlir::gnn::ScaleOp,
                 mlir::gnn::ActivationOp, mlir::gnn::ActivationGradOp,
                 mlir::gnn::DropoutOp, mlir::gnn::ConcatOp>(op))
    return Error::success();
  std::optional<mlir::gnn::RowRestriction> rows =
      mlir::gnn::getRowRestriction(op);
  if (!rows)
    return Error::success();
  const Tensor *computed = tensor(op->getResult(0), "result");
  if (failed())
    return fail();
  const int64_t *levels = rowLevels(rows->rowSets, computed->shape[0]);
  if (!levels)
    return fail();
  Tensor y = *computed;
  zeroOutside(y, levels, rows->level);
  return bind(op->getResult(0), std::move(y));
}

Error OpRunner::dispatch() {
  using namespace mlir;
  return llvm::TypeSwitch<Operation *, Error>(op)
      .Case<gnn::AddSelfLoopsOp, gnn::TransposeOp, gnn::EdgeNormOp,
            gnn::ReceptiveRowsOp, gnn::ReceptiveEdgesOp, gnn::GcnConvOp,
            gnn::SageConvOp, gnn::GraphConvOp, gnn::GinConvOp, gnn::GatConvOp,
            gnn::LinearOp, gnn::BatchNormOp, gnn::LayerNormOp, gnn::SpmmOp,
            gnn::SpmmMaxGradOp, gnn::SddmmOp, gnn::GatherOp, gnn::ScatterOp,
            gnn::EdgeAddOp, gnn::EdgeSoftmaxOp, gnn::EdgeSoftmaxGradOp,
            gnn::MatmulOp, gnn::BiasAddOp, gnn::RowMulOp, gnn::ReduceOp,
            gnn::HeadMatrixOp, gnn::ZerosOp, gnn::AddOp, gnn::SubOp, gnn::MulOp,
            gnn::ScaleOp, gnn::ActivationOp, gnn::ActivationGradOp,
            gnn::RngKeyOp, gnn::DropoutOp, gnn::ConcatOp, gnn::SliceOp,
            gnn::InsertColumnsOp, gnn::NormalizeOp, gnn::NormalizeGradOp,
            train::InitOp, train::CrossEntropyOp, train::CrossEntropyGradOp,
            train::AdamOp, train::SgdOp, func::CallOp, arith::ConstantOp,
            arith::AddIOp, arith::SubIOp, arith::MulIOp>(
          [&](auto concrete) { return exec(concrete); })
      .Default([&](Operation *) {
        return error("the reference interpreter does not know this op");
      });
}

//===----------------------------------------------------------------------===//
// Graph ops
//===----------------------------------------------------------------------===//

Error OpRunner::exec(mlir::gnn::AddSelfLoopsOp op) {
  const Graph *g = graph(op.getGraph());
  if (failed())
    return fail();
  return bind(op.getResult(), withSelfLoops(*g));
}

Error OpRunner::exec(mlir::gnn::TransposeOp op) {
  const Graph *g = graph(op.getGraph());
  if (failed())
    return fail();
  return bind(op.getResult(), reversed(*g));
}

Error OpRunner::exec(mlir::gnn::ReceptiveRowsOp op) {
  const Graph *g = graph(op.getGraph());
  const IntTensor *mask = intVector(op.getMask(), "mask");
  if (failed() || !check(static_cast<int64_t>(mask->data.size()) == g->nodes,
                         "mask length: expected " + Twine(g->nodes)))
    return fail();
  // Breadth-first from the mask, straight from the definition.
  const int64_t n = g->nodes, hops = static_cast<int64_t>(op.getHops());
  std::vector<int64_t> level(n, hops + 1);
  for (int64_t i = 0; i < n; ++i)
    if (mask->data[i] != 0)
      level[i] = 0;
  for (int64_t k = 1; k <= hops; ++k)
    for (int64_t e = 0; e < g->numEdges(); ++e)
      if (level[g->dst[e]] == k - 1 && level[g->src[e]] > k)
        level[g->src[e]] = k;
  return bind(op.getResult(), packRowSets(level, hops));
}

Error OpRunner::exec(mlir::gnn::ReceptiveEdgesOp op) {
  const Graph *g = graph(op.getGraph());
  if (failed())
    return fail();
  const int64_t *nodeLevels = rowLevels(op.getSets(), g->nodes);
  if (!nodeLevels)
    return fail();
  // An edge is at its destination's level, straight from the definition.
  const int64_t hops = static_cast<int64_t>(op.getHops());
  std::vector<int64_t> level(g->numEdges());
  for (int64_t e = 0; e < g->numEdges(); ++e)
    level[e] = std::min(nodeLevels[g->dst[e]], hops + 1);
  return bind(op.getResult(), packRowSets(level, hops));
}

IntTensor OpRunner::packRowSets(const std::vector<int64_t> &level,
                                int64_t hops) {
  // The counts, the order, then the levels a byte each, four to an int32
  // (little-endian, as the runtime lays them out). The order lists every
  // row, those in no set last, where the runtime may leave them unwritten.
  const int64_t n = static_cast<int64_t>(level.size());
  const int64_t length = mlir::gnn::rowSetsLength(n, hops);
  IntTensor out{{length}, std::vector<int64_t>(length)};
  for (int64_t k = 0; k <= hops; ++k)
    out.data[k] = std::count_if(level.begin(), level.end(),
                                [&](int64_t l) { return l <= k; });
  int64_t next = hops + 1;
  for (int64_t l = 0; l <= hops + 1; ++l)
    for (int64_t i = 0; i < n; ++i)
      if (level[i] == l)
        out.data[next++] = i;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t word = static_cast<uint32_t>(out.data[next + i / 4]);
    word |= static_cast<uint32_t>(level[i]) << (8 * (i % 4));
    out.data[next + i / 4] = static_cast<int32_t>(word);
  }
  return out;
}

const int64_t *OpRunner::rowLevels(mlir::Value rowSets, int64_t nodes) {
  const IntTensor *t = intVector(rowSets, "row sets");
  if (failed())
    return nullptr;
  int64_t size = static_cast<int64_t>(t->data.size());
  int64_t hops = mlir::gnn::rowSetsHops(size, nodes);
  if (!check(hops >= 0, "row sets of " + Twine(size) +
                            " integers cannot describe " + Twine(nodes) +
                            " nodes"))
    return nullptr;
  const int64_t *bytes = t->data.data() + hops + 1 + nodes;
  levels.resize(static_cast<size_t>(nodes));
  for (int64_t i = 0; i < nodes; ++i)
    levels[i] = (static_cast<uint32_t>(bytes[i / 4]) >> (8 * (i % 4))) & 0xff;
  return levels.data();
}

void OpRunner::zeroOutside(Tensor &t, const int64_t *levels, int64_t level) {
  const int64_t width = t.shape.size() == 2 ? t.shape[1] : 1;
  for (int64_t i = 0; i < t.shape[0]; ++i)
    if (levels[i] > level)
      std::fill(t.data.begin() + i * width, t.data.begin() + (i + 1) * width,
                0.0);
}

Error OpRunner::exec(mlir::gnn::EdgeNormOp op) {
  const Graph *g = graph(op.getGraph());
  if (failed())
    return fail();
  return bind(op.getResult(), edgeNorm(*g, op.getKind()));
}

//===----------------------------------------------------------------------===//
// Layers, each straight from its description
//===----------------------------------------------------------------------===//

Error OpRunner::exec(mlir::gnn::GcnConvOp op) {
  const Graph *g = graph(op.getGraph());
  const Tensor *x = matrix(op.getInput(), "input");
  const Tensor *w = matrix(op.getWeight(), "weight");
  const Tensor *b = op.getBias() ? vector(op.getBias(), "bias") : nullptr;
  if (failed() || !checkDim(*x, 0, g->nodes, "input rows (one per node)") ||
      !checkDim(*w, 0, x->shape[1], "weight rows (input width)") ||
      (b && !checkDim(*b, 0, w->shape[1], "bias length")))
    return fail();
  Graph ga = op.getSelfLoops() ? withSelfLoops(*g) : *g;
  std::optional<Tensor> norm;
  if (op.getNormalize())
    norm = edgeNorm(ga, mlir::gnn::EdgeNorm::symmetric);
  Tensor y =
      aggregate(ga, matmul(*x, *w), Aggregation::sum, norm ? &*norm : nullptr);
  if (b)
    addRowVector(y, *b);
  return bind(op.getResult(), std::move(y));
}

// sage_conv and graph_conv are one layer: `aggr(x) W (+ x W_root) (+ b)`;
// graph_conv always has the root term and the bias.
Error OpRunner::exec(mlir::gnn::SageConvOp op) {
  return neighbourLayer(op.getGraph(), op.getInput(), op.getWeight(),
                        op.getRootWeight(), op.getBias(), op.getAggr(),
                        op.getResult());
}

Error OpRunner::exec(mlir::gnn::GraphConvOp op) {
  return neighbourLayer(op.getGraph(), op.getInput(), op.getWeight(),
                        op.getRootWeight(), op.getBias(), op.getAggr(),
                        op.getResult());
}

Error OpRunner::neighbourLayer(mlir::Value graphValue, mlir::Value input,
                               mlir::Value weight, mlir::Value rootWeight,
                               mlir::Value bias, Aggregation aggr,
                               mlir::Value result) {
  const Graph *g = graph(graphValue);
  const Tensor *x = matrix(input, "input");
  const Tensor *w = matrix(weight, "weight");
  const Tensor *wr = rootWeight ? matrix(rootWeight, "root_weight") : nullptr;
  const Tensor *b = bias ? vector(bias, "bias") : nullptr;
  if (failed() || !checkDim(*x, 0, g->nodes, "input rows (one per node)") ||
      !checkDim(*w, 0, x->shape[1], "weight rows (input width)") ||
      (wr && (!checkDim(*wr, 0, x->shape[1], "root_weight rows") ||
              !checkDim(*wr, 1, w->shape[1], "root_weight columns"))) ||
      (b && !checkDim(*b, 0, w->shape[1], "bias length")))
    return fail();
  // Aggregate first: max does not commute with the weight.
  Tensor y = matmul(aggregate(*g, *x, aggr, nullptr), *w);
  if (wr)
    addInPlace(y, matmul(*x, *wr));
  if (b)
    addRowVector(y, *b);
  return bind(result, std::move(y));
}

Error OpRunner::exec(mlir::gnn::GinConvOp op) {
  const Graph *g = graph(op.getGraph());
  const Tensor *x = matrix(op.getInput(), "input");
  const Tensor *w1 = matrix(op.getWeight1(), "weight1");
  const Tensor *b1 = vector(op.getBias1(), "bias1");
  const Tensor *w2 = matrix(op.getWeight2(), "weight2");
  const Tensor *b2 = vector(op.getBias2(), "bias2");
  if (failed() || !checkDim(*x, 0, g->nodes, "input rows (one per node)") ||
      !checkDim(*w1, 0, x->shape[1], "weight1 rows (input width)") ||
      !checkDim(*b1, 0, w1->shape[1], "bias1 length") ||
      !checkDim(*w2, 0, w1->shape[1], "weight2 rows (weight1 columns)") ||
      !checkDim(*b2, 0, w2->shape[1], "bias2 length"))
    return fail();
  double eps = op.getEps().convertToDouble();
  Tensor z = aggregate(*g, *x, Aggregation::sum, nullptr);
  for (size_t i = 0; i < z.data.size(); ++i)
    z.data[i] += (1.0 + eps) * x->data[i];
  Tensor h = matmul(z, *w1);
  addRowVector(h, *b1);
  for (double &v : h.data)
    v = v > 0 ? v : 0.0;
  Tensor y = matmul(h, *w2);
  addRowVector(y, *b2);
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::GatConvOp op) {
  const Graph *g = graph(op.getGraph());
  const Tensor *x = matrix(op.getInput(), "input");
  const Tensor *w = matrix(op.getWeight(), "weight");
  const Tensor *as = vector(op.getAttSrc(), "att_src");
  const Tensor *ad = vector(op.getAttDst(), "att_dst");
  const Tensor *b = op.getBias() ? vector(op.getBias(), "bias") : nullptr;
  double p = op.getAttnDropout().convertToDouble();
  const RngKey *key = op.getKey() ? rngKey(op.getKey()) : nullptr;
  int64_t heads = static_cast<int64_t>(op.getHeads());
  if (failed() || !checkDim(*x, 0, g->nodes, "input rows (one per node)") ||
      !checkDim(*w, 0, x->shape[1], "weight rows (input width)") ||
      !check(heads > 0 && w->shape[1] % heads == 0,
             "weight columns (" + Twine(w->shape[1]) +
                 ") must be a multiple of heads (" + Twine(heads) + ")") ||
      !checkDim(*as, 0, w->shape[1], "att_src length") ||
      !checkDim(*ad, 0, w->shape[1], "att_dst length") ||
      !check(p >= 0 && p < 1, "attn_dropout must be in [0, 1)") ||
      !check(p == 0 || key, "attn_dropout > 0 needs a key"))
    return fail();
  int64_t hf = w->shape[1], f = hf / heads;
  int64_t out = op.getConcat() ? hf : f;
  if (b && !checkDim(*b, 0, out, "bias length"))
    return fail();

  Graph gl = withSelfLoops(*g);
  Tensor z = matmul(*x, *w);
  // Per-node, per-head halves of the score: a_src.z_j and a_dst.z_i.
  Tensor scoreSrc = Tensor::zeros({g->nodes, heads});
  Tensor scoreDst = Tensor::zeros({g->nodes, heads});
  for (int64_t n = 0; n < g->nodes; ++n)
    for (int64_t c = 0; c < hf; ++c) {
      scoreSrc.at(n, c / f) += z.at(n, c) * as->data[c];
      scoreDst.at(n, c / f) += z.at(n, c) * ad->data[c];
    }
  double slope = op.getNegativeSlope().convertToDouble();
  Tensor e = Tensor::zeros({gl.numEdges(), heads});
  for (int64_t id = 0; id < gl.numEdges(); ++id)
    for (int64_t k = 0; k < heads; ++k) {
      double s = scoreSrc.at(gl.src[id], k) + scoreDst.at(gl.dst[id], k);
      e.at(id, k) = s > 0 ? s : slope * s;
    }
  Tensor alpha = edgeSoftmax(gl, e);
  if (p > 0)
    dropout(alpha, *key, op.getStream(), p);
  Tensor y = aggregate(gl, z, Aggregation::sum, &alpha);
  if (!op.getConcat()) {
    Tensor mean = Tensor::zeros({g->nodes, f});
    for (int64_t n = 0; n < g->nodes; ++n)
      for (int64_t c = 0; c < hf; ++c)
        mean.at(n, c % f) += y.at(n, c) / static_cast<double>(heads);
    y = std::move(mean);
  }
  if (b)
    addRowVector(y, *b);
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::LinearOp op) {
  const Tensor *x = matrix(op.getInput(), "input");
  const Tensor *w = matrix(op.getWeight(), "weight");
  const Tensor *b = op.getBias() ? vector(op.getBias(), "bias") : nullptr;
  if (failed() || !checkDim(*w, 0, x->shape[1], "weight rows (input width)") ||
      (b && !checkDim(*b, 0, w->shape[1], "bias length")))
    return fail();
  Tensor y = matmul(*x, *w);
  if (b)
    addRowVector(y, *b);
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::normLayer(mlir::Value input, mlir::Value weight,
                          mlir::Value bias, double eps, int64_t dim,
                          mlir::Value result) {
  const Tensor *x = matrix(input, "input");
  const Tensor *s = vector(weight, "weight");
  const Tensor *b = vector(bias, "bias");
  if (failed() || !checkDim(*s, 0, x->shape[1], "weight length") ||
      !checkDim(*b, 0, x->shape[1], "bias length"))
    return fail();
  Tensor y = standardize(*x, dim, eps);
  for (int64_t i = 0; i < y.shape[0]; ++i)
    for (int64_t c = 0; c < y.shape[1]; ++c)
      y.at(i, c) = y.at(i, c) * s->data[c] + b->data[c];
  return bind(result, std::move(y));
}

Error OpRunner::exec(mlir::gnn::BatchNormOp op) {
  return normLayer(op.getInput(), op.getWeight(), op.getBias(),
                   op.getEps().convertToDouble(), 0, op.getResult());
}

Error OpRunner::exec(mlir::gnn::LayerNormOp op) {
  return normLayer(op.getInput(), op.getWeight(), op.getBias(),
                   op.getEps().convertToDouble(), 1, op.getResult());
}

//===----------------------------------------------------------------------===//
// Aggregation primitives
//===----------------------------------------------------------------------===//

Error OpRunner::exec(mlir::gnn::SpmmOp op) {
  const Graph *g = graph(op.getGraph());
  const Tensor *x = matrix(op.getInput(), "input");
  const Tensor *w =
      op.getWeights() ? tensor(op.getWeights(), "weights") : nullptr;
  if (failed() || !checkDim(*x, 0, g->nodes, "input rows (one per node)"))
    return fail();
  if (w) {
    if (!check(op.getAggr() != Aggregation::max,
               "max aggregation takes no edge weights") ||
        !check(w->shape.size() == 1 || w->shape.size() == 2,
               "weights must be [E] or [E, heads], got " +
                   shapeText(w->shape)) ||
        !checkDim(*w, 0, g->numEdges(), "weights rows (one per edge)") ||
        !check(w->shape.size() == 1 ||
                   (w->shape[1] > 0 && x->shape[1] % w->shape[1] == 0),
               "weight heads must divide the width " + Twine(x->shape[1]) +
                   ", got " + shapeText(w->shape)))
      return fail();
  }
  if (!op.getRowSets())
    return bind(op.getResult(), aggregate(*g, *x, op.getAggr(), w));
  // Rows: the sources outside R_skip read as 0, the rows outside R_level
  // are 0.
  const int64_t *levels = rowLevels(op.getRowSets(), g->nodes);
  if (!levels)
    return fail();
  Tensor in = *x;
  if (auto skip = op.getSkip())
    zeroOutside(in, levels, static_cast<int64_t>(*skip));
  Tensor y = aggregate(*g, in, op.getAggr(), w);
  zeroOutside(y, levels, static_cast<int64_t>(*op.getLevel()));
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::SpmmMaxGradOp op) {
  const Graph *g = graph(op.getGraph());
  const Tensor *x = matrix(op.getInput(), "input");
  const Tensor *dy = matrix(op.getResultGrad(), "result_grad");
  if (failed() || !checkDim(*x, 0, g->nodes, "input rows (one per node)") ||
      !check(dy->shape == x->shape, "result_grad " + shapeText(dy->shape) +
                                        " must have the input's shape " +
                                        shapeText(x->shape)))
    return fail();
  Tensor dx = Tensor::zeros(x->shape);
  auto in = incomingEdges(*g);
  for (int64_t i = 0; i < g->nodes; ++i)
    for (int64_t c = 0; c < x->shape[1]; ++c) {
      // Strictly greater keeps the lowest edge id among ties.
      int64_t best = -1;
      for (int64_t e : in[i])
        if (best < 0 || x->at(g->src[e], c) > x->at(g->src[best], c))
          best = e;
      if (best >= 0)
        dx.at(g->src[best], c) += dy->at(i, c);
    }
  return bind(op.getResult(), std::move(dx));
}

Error OpRunner::exec(mlir::gnn::SddmmOp op) {
  const Graph *g = graph(op.getGraph());
  const Tensor *lhs = matrix(op.getLhs(), "lhs");
  const Tensor *rhs = matrix(op.getRhs(), "rhs");
  int64_t heads = static_cast<int64_t>(op.getHeads());
  if (failed() || !checkDim(*lhs, 0, g->nodes, "lhs rows (one per node)") ||
      !check(rhs->shape == lhs->shape, "rhs " + shapeText(rhs->shape) +
                                           " must have the lhs shape " +
                                           shapeText(lhs->shape)) ||
      !check(heads > 0 && lhs->shape[1] % heads == 0,
             "heads (" + Twine(heads) + ") must divide the width (" +
                 Twine(lhs->shape[1]) + ")"))
    return fail();
  int64_t f = lhs->shape[1] / heads;
  Tensor y = Tensor::zeros({g->numEdges(), heads});
  for (int64_t e = 0; e < g->numEdges(); ++e)
    for (int64_t c = 0; c < lhs->shape[1]; ++c)
      y.at(e, c / f) += lhs->at(g->dst[e], c) * rhs->at(g->src[e], c);
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::GatherOp op) {
  const Graph *g = graph(op.getGraph());
  const Tensor *x = matrix(op.getInput(), "input");
  if (failed() || !checkDim(*x, 0, g->nodes, "input rows (one per node)"))
    return fail();
  const auto &ends = op.getEnd() == mlir::gnn::EdgeEnd::src ? g->src : g->dst;
  Tensor y = Tensor::zeros({g->numEdges(), x->shape[1]});
  for (int64_t e = 0; e < g->numEdges(); ++e)
    for (int64_t c = 0; c < x->shape[1]; ++c)
      y.at(e, c) = x->at(ends[e], c);
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::ScatterOp op) {
  const Graph *g = graph(op.getGraph());
  const Tensor *x = matrix(op.getInput(), "input");
  if (failed() || !checkDim(*x, 0, g->numEdges(), "input rows (one per edge)"))
    return fail();
  const bool atSources = op.getEnd() == mlir::gnn::EdgeEnd::src;
  const auto &ends = atSources ? g->src : g->dst;
  const int64_t *levels = nullptr;
  if (op.getRowSets() && !(levels = rowLevels(op.getRowSets(), g->nodes)))
    return fail();
  // With skip, the edges whose other end lies outside R_skip read as 0.
  const auto &others = atSources ? g->dst : g->src;
  std::optional<uint64_t> skip = op.getSkip();
  Tensor y = Tensor::zeros({g->nodes, x->shape[1]});
  for (int64_t e = 0; e < g->numEdges(); ++e) {
    if (skip && levels[others[e]] > static_cast<int64_t>(*skip))
      continue;
    for (int64_t c = 0; c < x->shape[1]; ++c)
      y.at(ends[e], c) += x->at(e, c);
  }
  if (levels)
    zeroOutside(y, levels, static_cast<int64_t>(*op.getLevel()));
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::EdgeAddOp op) {
  const Graph *g = graph(op.getGraph());
  const Tensor *a = matrix(op.getSrcInput(), "src_input");
  const Tensor *b = matrix(op.getDstInput(), "dst_input");
  if (failed() || !checkDim(*a, 0, g->nodes, "src_input rows (one per node)") ||
      !checkDim(*b, 0, g->nodes, "dst_input rows (one per node)") ||
      !checkDim(*b, 1, a->shape[1], "dst_input width"))
    return fail();
  Tensor y = Tensor::zeros({g->numEdges(), a->shape[1]});
  for (int64_t e = 0; e < g->numEdges(); ++e)
    for (int64_t c = 0; c < a->shape[1]; ++c)
      y.at(e, c) = a->at(g->src[e], c) + b->at(g->dst[e], c);
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::EdgeSoftmaxOp op) {
  const Graph *g = graph(op.getGraph());
  const Tensor *s = matrix(op.getInput(), "input");
  if (failed() || !checkDim(*s, 0, g->numEdges(), "input rows (one per edge)"))
    return fail();
  return bind(op.getResult(), edgeSoftmax(*g, *s));
}

Error OpRunner::exec(mlir::gnn::EdgeSoftmaxGradOp op) {
  const Graph *g = graph(op.getGraph());
  const Tensor *y = matrix(op.getOutput(), "output");
  const Tensor *dy = matrix(op.getResultGrad(), "result_grad");
  if (failed() ||
      !checkDim(*y, 0, g->numEdges(), "output rows (one per edge)") ||
      !check(dy->shape == y->shape, "result_grad " + shapeText(dy->shape) +
                                        " must have the output's shape " +
                                        shapeText(y->shape)))
    return fail();
  Tensor dx = Tensor::zeros(y->shape);
  for (const auto &edges : incomingEdges(*g))
    for (int64_t k = 0; k < y->shape[1]; ++k) {
      double dot = 0;
      for (int64_t e : edges)
        dot += y->at(e, k) * dy->at(e, k);
      for (int64_t e : edges)
        dx.at(e, k) = y->at(e, k) * (dy->at(e, k) - dot);
    }
  return bind(op.getResult(), std::move(dx));
}

//===----------------------------------------------------------------------===//
// Dense primitives
//===----------------------------------------------------------------------===//

Error OpRunner::exec(mlir::gnn::MatmulOp op) {
  const Tensor *a = matrix(op.getLhs(), "lhs");
  const Tensor *b = matrix(op.getRhs(), "rhs");
  if (failed())
    return fail();
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  int64_t ka = ta ? a->shape[0] : a->shape[1];
  if (!checkDim(*b, tb ? 1 : 0, ka, "contraction dimension of rhs"))
    return fail();
  if (!op.getRowSets())
    return bind(op.getResult(), matmul(*a, *b, ta, tb));
  // Rows of a outside R_level: left out of the contraction (transpose_a),
  // else 0 in the result.
  const int64_t *levels = rowLevels(op.getRowSets(), a->shape[0]);
  if (!levels)
    return fail();
  const int64_t level = static_cast<int64_t>(*op.getLevel());
  if (!ta) {
    Tensor y = matmul(*a, *b, ta, tb);
    zeroOutside(y, levels, level);
    return bind(op.getResult(), std::move(y));
  }
  Tensor ar = *a, br = *b;
  zeroOutside(ar, levels, level);
  zeroOutside(br, levels, level);
  return bind(op.getResult(), matmul(ar, br, ta, tb));
}

Error OpRunner::exec(mlir::gnn::BiasAddOp op) {
  const Tensor *x = matrix(op.getInput(), "input");
  const Tensor *b = vector(op.getBias(), "bias");
  if (failed() || !checkDim(*b, 0, x->shape[1], "bias length"))
    return fail();
  Tensor y = *x;
  addRowVector(y, *b);
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::RowMulOp op) {
  const Tensor *x = matrix(op.getInput(), "input");
  const Tensor *v = vector(op.getScale(), "scale");
  if (failed() || !checkDim(*v, 0, x->shape[1], "scale length"))
    return fail();
  Tensor y = *x;
  for (int64_t i = 0; i < y.shape[0]; ++i)
    for (int64_t c = 0; c < y.shape[1]; ++c)
      y.at(i, c) *= v->data[c];
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::ReduceOp op) {
  const Tensor *x = matrix(op.getInput(), "input");
  if (failed())
    return fail();
  int64_t dim = static_cast<int64_t>(op.getDim());
  int64_t kept = x->shape[1 - dim], n = x->shape[dim];
  // With row sets (sums and means over rows): the other rows count as 0.
  Tensor restricted;
  if (op.getRowSets()) {
    const int64_t *levels = rowLevels(op.getRowSets(), x->shape[0]);
    if (!levels)
      return fail();
    restricted = *x;
    zeroOutside(restricted, levels, static_cast<int64_t>(*op.getLevel()));
    x = &restricted;
  }
  Tensor y = Tensor::zeros({kept});
  for (int64_t k = 0; k < kept; ++k) {
    double acc = op.getKind() == mlir::gnn::ReduceKind::max
                     ? -std::numeric_limits<double>::infinity()
                     : 0.0;
    for (int64_t j = 0; j < n; ++j) {
      double v = dim == 0 ? x->at(j, k) : x->at(k, j);
      acc = op.getKind() == mlir::gnn::ReduceKind::max ? std::max(acc, v)
                                                       : acc + v;
    }
    if (op.getKind() == mlir::gnn::ReduceKind::mean)
      acc /= static_cast<double>(n);
    // An empty reduction gives 0, as an aggregation over no edges does.
    y.data[k] = n == 0 ? 0.0 : acc;
  }
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::HeadMatrixOp op) {
  int64_t heads = static_cast<int64_t>(op.getHeads());
  int64_t width = static_cast<int64_t>(op.getWidth());
  using Kind = mlir::gnn::HeadMatrixKind;
  Kind kind = op.getKind();
  int64_t columns = heads * width;
  Tensor m = kind == Kind::spread
                 ? Tensor::zeros({heads, columns})
                 : Tensor::zeros({columns, kind == Kind::sum ? heads : width});
  for (int64_t c = 0; c < columns; ++c) {
    if (kind == Kind::sum)
      m.at(c, c / width) = 1.0;
    else if (kind == Kind::mean)
      m.at(c, c % width) = 1.0 / static_cast<double>(heads);
    else
      m.at(c / width, c) = 1.0;
  }
  return bind(op.getResult(), std::move(m));
}

Error OpRunner::exec(mlir::gnn::ZerosOp op) {
  auto shape = resultShape(op.getResult());
  if (failed())
    return fail();
  return bind(op.getResult(), Tensor::zeros(*shape));
}

//===----------------------------------------------------------------------===//
// Element-wise primitives
//===----------------------------------------------------------------------===//

template <typename OpT, typename Fn> Error OpRunner::binary(OpT op, Fn fn) {
  const Tensor *a = tensor(op.getLhs(), "lhs");
  const Tensor *b = tensor(op.getRhs(), "rhs");
  if (failed() || !check(a->shape == b->shape,
                         "operand shapes differ: " + shapeText(a->shape) +
                             " and " + shapeText(b->shape)))
    return fail();
  Tensor y = *a;
  for (size_t i = 0; i < y.data.size(); ++i)
    y.data[i] = fn(a->data[i], b->data[i]);
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::ScaleOp op) {
  const Tensor *x = tensor(op.getInput(), "input");
  if (failed())
    return fail();
  Tensor y = *x;
  double f = op.getFactor().convertToDouble();
  for (double &v : y.data)
    v *= f;
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::ActivationOp op) {
  const Tensor *x = tensor(op.getInput(), "input");
  if (failed())
    return fail();
  Tensor y = *x;
  double slope = op.getSlope().convertToDouble();
  for (double &v : y.data)
    v = activate(op.getKind(), v, slope);
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::ActivationGradOp op) {
  const Tensor *x = tensor(op.getInput(), "input");
  const Tensor *dy = tensor(op.getResultGrad(), "result_grad");
  if (failed() ||
      !check(x->shape == dy->shape, "result_grad " + shapeText(dy->shape) +
                                        " must have the input's shape " +
                                        shapeText(x->shape)))
    return fail();
  Tensor dx = *x;
  double slope = op.getSlope().convertToDouble();
  for (size_t i = 0; i < dx.data.size(); ++i)
    dx.data[i] =
        dy->data[i] * activateDerivative(op.getKind(), x->data[i], slope);
  return bind(op.getResult(), std::move(dx));
}

Error OpRunner::exec(mlir::gnn::RngKeyOp op) {
  std::optional<int64_t> seed = scalar(op.getSeed(), "seed");
  std::optional<int64_t> step = scalar(op.getStep(), "step");
  if (failed())
    return fail();
  return bind(op.getResult(), RngKey{static_cast<uint64_t>(*seed),
                                     static_cast<uint64_t>(*step)});
}

Error OpRunner::exec(mlir::gnn::DropoutOp op) {
  const Tensor *x = tensor(op.getInput(), "input");
  const RngKey *key = rngKey(op.getKey());
  double p = op.getP().convertToDouble();
  if (failed() || !check(p >= 0 && p < 1, "p must be in [0, 1)"))
    return fail();
  Tensor y = *x;
  if (std::optional<llvm::ArrayRef<int64_t>> mask = op.getMaskColumns()) {
    // Element (r, c) draws element (r, offset + c) of a [rows, cols] mask.
    if (!check(x->shape.size() == 2 && (*mask)[1] + x->shape[1] <= (*mask)[0],
               "mask_columns must hold the input's columns"))
      return fail();
    const auto width = static_cast<uint64_t>(x->shape[1]);
    const auto cols = static_cast<uint64_t>((*mask)[0]);
    const auto offset = static_cast<uint64_t>((*mask)[1]);
    dropout(y, *key, op.getStream(), p,
            [&](uint64_t i) { return i / width * cols + offset + i % width; });
    return bind(op.getResult(), std::move(y));
  }
  dropout(y, *key, op.getStream(), p);
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::ConcatOp op) {
  std::vector<const Tensor *> inputs;
  for (mlir::Value v : op.getInputs())
    inputs.push_back(matrix(v, ""));
  if (failed() || !check(!inputs.empty(), "needs at least one input"))
    return fail();
  int64_t rows = inputs[0]->shape[0], width = 0;
  for (const Tensor *t : inputs) {
    if (!checkDim(*t, 0, rows, "input rows"))
      return fail();
    width += t->shape[1];
  }
  Tensor y = Tensor::zeros({rows, width});
  int64_t offset = 0;
  for (const Tensor *t : inputs) {
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t c = 0; c < t->shape[1]; ++c)
        y.at(i, offset + c) = t->at(i, c);
    offset += t->shape[1];
  }
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::InsertColumnsOp op) {
  const Tensor *x = matrix(op.getInput(), "input");
  const Tensor *block = matrix(op.getBlock(), "block");
  int64_t offset = static_cast<int64_t>(op.getOffset());
  if (failed() ||
      !check(block->shape[0] == x->shape[0],
             "block has " + Twine(block->shape[0]) + " rows, input " +
                 Twine(x->shape[0])) ||
      !check(offset + block->shape[1] <= x->shape[1],
             "columns [" + Twine(offset) + ", " +
                 Twine(offset + block->shape[1]) + ") are out of the input's " +
                 Twine(x->shape[1])))
    return fail();
  // With row sets only the set's rows take the block; the others stay x's.
  const int64_t *levels = nullptr;
  int64_t level = 0;
  if (op.getRowSets()) {
    levels = rowLevels(op.getRowSets(), x->shape[0]);
    if (!levels)
      return fail();
    level = static_cast<int64_t>(*op.getLevel());
  }
  Tensor y = *x;
  for (int64_t i = 0; i < x->shape[0]; ++i)
    if (!levels || levels[i] <= level)
      for (int64_t c = 0; c < block->shape[1]; ++c)
        y.at(i, offset + c) = block->at(i, c);
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::SliceOp op) {
  const Tensor *x = matrix(op.getInput(), "input");
  auto type = mlir::cast<mlir::RankedTensorType>(op.getResult().getType());
  int64_t width = type.getDimSize(1);
  int64_t offset = static_cast<int64_t>(op.getOffset());
  if (failed() ||
      !check(!mlir::ShapedType::isDynamic(width),
             "needs a static result width, got " + typeText(type)) ||
      !check(offset + width <= x->shape[1],
             "columns [" + Twine(offset) + ", " + Twine(offset + width) +
                 ") are out of the input's " + Twine(x->shape[1])))
    return fail();
  Tensor y = Tensor::zeros({x->shape[0], width});
  for (int64_t i = 0; i < x->shape[0]; ++i)
    for (int64_t c = 0; c < width; ++c)
      y.at(i, c) = x->at(i, offset + c);
  // With row sets the other rows are +0.0 (the kernel may leave them, with
  // gnn.rest_unread, where nothing reads them).
  if (op.getRowSets()) {
    const int64_t *levels = rowLevels(op.getRowSets(), x->shape[0]);
    if (!levels)
      return fail();
    zeroOutside(y, levels, static_cast<int64_t>(*op.getLevel()));
  }
  return bind(op.getResult(), std::move(y));
}

Error OpRunner::exec(mlir::gnn::NormalizeOp op) {
  const Tensor *x = matrix(op.getInput(), "input");
  if (failed())
    return fail();
  return bind(op.getResult(), standardize(*x, static_cast<int64_t>(op.getDim()),
                                          op.getEps().convertToDouble()));
}

Error OpRunner::exec(mlir::gnn::NormalizeGradOp op) {
  const Tensor *x = matrix(op.getInput(), "input");
  const Tensor *dy = matrix(op.getResultGrad(), "result_grad");
  if (failed() ||
      !check(x->shape == dy->shape, "result_grad " + shapeText(dy->shape) +
                                        " must have the input's shape " +
                                        shapeText(x->shape)))
    return fail();
  return bind(op.getResult(),
              standardizeGrad(*x, *dy, static_cast<int64_t>(op.getDim()),
                              op.getEps().convertToDouble()));
}

//===----------------------------------------------------------------------===//
// train
//===----------------------------------------------------------------------===//

Error OpRunner::exec(mlir::train::InitOp op) {
  std::optional<int64_t> seed = scalar(op.getSeed(), "seed");
  auto shape = resultShape(op.getResult());
  if (failed())
    return fail();
  Tensor t = Tensor::zeros(*shape);
  double fanIn = static_cast<double>(op.getFanIn());
  double fanOut = static_cast<double>(op.getFanOut());
  double bound = 0;
  switch (op.getKind()) {
  case mlir::train::InitKind::zeros:
    return bind(op.getResult(), std::move(t));
  case mlir::train::InitKind::ones:
    std::fill(t.data.begin(), t.data.end(), 1.0);
    return bind(op.getResult(), std::move(t));
  case mlir::train::InitKind::glorot:
    if (!check(fanIn + fanOut > 0, "glorot needs fan_in + fan_out > 0"))
      return fail();
    bound = std::sqrt(6.0 / (fanIn + fanOut));
    break;
  case mlir::train::InitKind::kaiming:
    if (!check(fanIn > 0, "kaiming needs fan_in > 0"))
      return fail();
    bound = std::sqrt(6.0 / fanIn);
    break;
  }
  for (size_t i = 0; i < t.data.size(); ++i)
    t.data[i] = (2.0 * gnnrt::initUniform(static_cast<uint64_t>(*seed),
                                          op.getStream(), i) -
                 1.0) *
                bound;
  return bind(op.getResult(), std::move(t));
}

std::optional<OpRunner::LossInputs>
OpRunner::lossInputs(mlir::Value logits, mlir::Value labels, mlir::Value mask,
                     mlir::train::ClassWeights weights,
                     const IntTensor *&labelValues) {
  LossInputs in;
  in.logits = matrix(logits, "logits");
  labelValues = intVector(labels, "labels");
  const IntTensor *m = intVector(mask, "mask");
  if (failed())
    return std::nullopt;
  int64_t n = in.logits->shape[0];
  in.classes = in.logits->shape[1];
  if (!check(labelValues->shape[0] == n && m->shape[0] == n,
             "labels and mask need one entry per logits row (" + Twine(n) +
                 ")"))
    return std::nullopt;
  std::vector<int64_t> perClass(in.classes, 0);
  int64_t counted = 0;
  in.counted.assign(n, false);
  for (int64_t i = 0; i < n; ++i) {
    int64_t y = labelValues->data[i];
    if (!m->data[i] || y < 0)
      continue;
    if (!check(y < in.classes, "label " + Twine(y) + " of node " + Twine(i) +
                                   " is out of range for " + Twine(in.classes) +
                                   " classes"))
      return std::nullopt;
    in.counted[i] = true;
    ++perClass[y];
    ++counted;
  }
  in.classWeight.assign(in.classes, 1.0);
  if (weights == mlir::train::ClassWeights::balanced)
    for (int64_t c = 0; c < in.classes; ++c)
      in.classWeight[c] =
          perClass[c] ? static_cast<double>(counted) /
                            (static_cast<double>(in.classes) * perClass[c])
                      : 0.0;
  for (int64_t i = 0; i < n; ++i)
    if (in.counted[i])
      in.weightSum += in.classWeight[labelValues->data[i]];
  return in;
}

/// log_softmax of one row of logits.
std::vector<double> logSoftmax(const Tensor &logits, int64_t row) {
  int64_t c = logits.shape[1];
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < c; ++j)
    m = std::max(m, logits.at(row, j));
  double sum = 0;
  for (int64_t j = 0; j < c; ++j)
    sum += std::exp(logits.at(row, j) - m);
  double lse = m + std::log(sum);
  std::vector<double> p(c);
  for (int64_t j = 0; j < c; ++j)
    p[j] = logits.at(row, j) - lse;
  return p;
}

Error OpRunner::exec(mlir::train::CrossEntropyOp op) {
  const IntTensor *labels = nullptr;
  auto in = lossInputs(op.getLogits(), op.getLabels(), op.getMask(),
                       op.getClassWeights(), labels);
  if (!in)
    return fail();
  double s = op.getLabelSmoothing().convertToDouble();
  double sum = 0;
  for (int64_t i = 0; i < in->logits->shape[0]; ++i) {
    if (!in->counted[i])
      continue;
    std::vector<double> p = logSoftmax(*in->logits, i);
    double all = 0;
    for (double v : p)
      all += v;
    int64_t y = labels->data[i];
    double l = -((1.0 - s) * p[y] + s / static_cast<double>(in->classes) * all);
    sum += in->classWeight[y] * l;
  }
  Tensor loss = Tensor::zeros({});
  loss.data[0] = in->weightSum > 0 ? sum / in->weightSum : 0.0;
  return bind(op.getResult(), std::move(loss));
}

Error OpRunner::exec(mlir::train::CrossEntropyGradOp op) {
  const Tensor *dl = tensor(op.getLossGrad(), "loss_grad", 0);
  const IntTensor *labels = nullptr;
  auto in = lossInputs(op.getLogits(), op.getLabels(), op.getMask(),
                       op.getClassWeights(), labels);
  if (!in)
    return fail();
  double s = op.getLabelSmoothing().convertToDouble();
  int64_t classes = in->classes;
  Tensor d = Tensor::zeros(in->logits->shape);
  for (int64_t i = 0; i < in->logits->shape[0]; ++i) {
    if (!in->counted[i])
      continue;
    std::vector<double> p = logSoftmax(*in->logits, i);
    int64_t y = labels->data[i];
    double scale = dl->data[0] * in->classWeight[y] / in->weightSum;
    for (int64_t c = 0; c < classes; ++c) {
      double q = (c == y ? 1.0 - s : 0.0) + s / static_cast<double>(classes);
      d.at(i, c) = scale * (std::exp(p[c]) - q);
    }
  }
  return bind(op.getResult(), std::move(d));
}

Error OpRunner::exec(mlir::train::AdamOp op) {
  const Tensor *param = tensor(op.getParam(), "param");
  const Tensor *grad = tensor(op.getGrad(), "grad");
  const Tensor *m = tensor(op.getM(), "m");
  const Tensor *v = tensor(op.getV(), "v");
  std::optional<int64_t> step = scalar(op.getStep(), "step");
  if (failed() ||
      !check(grad->shape == param->shape && m->shape == param->shape &&
                 v->shape == param->shape,
             "param, grad, m and v must have one shape") ||
      !check(*step >= 1, "step counts updates from 1, got " + Twine(*step)))
    return fail();
  double lr = op.getLr().convertToDouble();
  double beta1 = op.getBeta1().convertToDouble();
  double beta2 = op.getBeta2().convertToDouble();
  double eps = op.getEps().convertToDouble();
  double wd = op.getWeightDecay().convertToDouble();
  bool decoupled = op.getDecoupled();
  double t = static_cast<double>(*step);
  double correction1 = 1.0 - std::pow(beta1, t);
  double correction2 = 1.0 - std::pow(beta2, t);
  Tensor p = *param, newM = *m, newV = *v;
  for (size_t i = 0; i < p.data.size(); ++i) {
    double g = grad->data[i] + (decoupled ? 0.0 : wd * p.data[i]);
    newM.data[i] = beta1 * newM.data[i] + (1.0 - beta1) * g;
    newV.data[i] = beta2 * newV.data[i] + (1.0 - beta2) * g * g;
    double mh = newM.data[i] / correction1, vh = newV.data[i] / correction2;
    if (decoupled)
      p.data[i] *= 1.0 - lr * wd;
    p.data[i] -= lr * mh / (std::sqrt(vh) + eps);
  }
  if (Error e = bind(op.getNewParam(), std::move(p)))
    return e;
  if (Error e = bind(op.getNewM(), std::move(newM)))
    return e;
  return bind(op.getNewV(), std::move(newV));
}

Error OpRunner::exec(mlir::train::SgdOp op) {
  const Tensor *param = tensor(op.getParam(), "param");
  const Tensor *grad = tensor(op.getGrad(), "grad");
  const Tensor *buf = op.getMomentumBuffer()
                          ? tensor(op.getMomentumBuffer(), "momentum_buffer")
                          : nullptr;
  double lr = op.getLr().convertToDouble();
  double momentum = op.getMomentum().convertToDouble();
  double wd = op.getWeightDecay().convertToDouble();
  bool nesterov = op.getNesterov();
  if (failed() ||
      !check(grad->shape == param->shape &&
                 (!buf || buf->shape == param->shape),
             "param, grad and momentum_buffer must have one shape") ||
      !check((momentum > 0) == (buf != nullptr) &&
                 (momentum > 0) == bool(op.getNewMomentumBuffer()),
             "has a momentum buffer exactly when momentum > 0"))
    return fail();
  Tensor p = *param;
  std::optional<Tensor> newBuf;
  if (buf)
    newBuf = *buf;
  for (size_t i = 0; i < p.data.size(); ++i) {
    double g = grad->data[i] + wd * p.data[i];
    if (newBuf) {
      double &b = newBuf->data[i];
      b = momentum * b + g;
      g = nesterov ? g + momentum * b : b;
    }
    p.data[i] -= lr * g;
  }
  if (Error e = bind(op.getNewParam(), std::move(p)))
    return e;
  if (newBuf)
    return bind(op.getNewMomentumBuffer(), std::move(*newBuf));
  return Error::success();
}

//===----------------------------------------------------------------------===//
// func and arith
//===----------------------------------------------------------------------===//

Error OpRunner::exec(mlir::func::CallOp op) {
  auto callee = mlir::SymbolTable::lookupNearestSymbolFrom<mlir::func::FuncOp>(
      op, op.getCalleeAttr());
  if (!callee)
    return error("no function @" + op.getCallee() + " in the module");
  if (depth + 1 >= kMaxCallDepth)
    return error("calls nest deeper than " + Twine(kMaxCallDepth));
  std::vector<Value> args;
  for (mlir::Value v : op.getOperands()) {
    const Value *value = operand(v, "");
    if (!value)
      return fail();
    args.push_back(*value);
  }
  auto results = callFunction(callee, args, depth + 1);
  if (!results)
    return error("in @" + op.getCallee() + ": " +
                 llvm::toString(results.takeError()));
  if (results->size() != op.getNumResults())
    return error("@" + op.getCallee() + " returned " + Twine(results->size()) +
                 " values, the call expects " + Twine(op.getNumResults()));
  for (auto [result, value] : llvm::zip_equal(op.getResults(), *results))
    if (Error e = bind(result, std::move(value)))
      return e;
  return Error::success();
}

Error OpRunner::exec(mlir::arith::ConstantOp op) {
  mlir::Attribute value = op.getValue();
  if (auto i = mlir::dyn_cast<mlir::IntegerAttr>(value))
    if (mlir::isa<mlir::IntegerType, mlir::IndexType>(op.getResult().getType()))
      return bind(op.getResult(), fromAPInt(i.getValue()));
  if (auto dense = mlir::dyn_cast<mlir::DenseIntOrFPElementsAttr>(value)) {
    auto type = mlir::cast<mlir::ShapedType>(dense.getType());
    std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
    if (mlir::isa<mlir::FloatType>(type.getElementType())) {
      Tensor t;
      t.shape = shape;
      for (llvm::APFloat f : dense.getValues<llvm::APFloat>())
        t.data.push_back(toDouble(f));
      return bind(op.getResult(), std::move(t));
    }
    IntTensor t;
    t.shape = shape;
    for (const llvm::APInt &v : dense.getValues<llvm::APInt>())
      t.data.push_back(fromAPInt(v));
    return bind(op.getResult(), std::move(t));
  }
  return error("only integer scalars and dense tensors are supported");
}

template <typename OpT, typename Fn> Error OpRunner::integer(OpT op, Fn fn) {
  std::optional<int64_t> a = scalar(op.getLhs(), "lhs");
  std::optional<int64_t> b = scalar(op.getRhs(), "rhs");
  if (failed())
    return fail();
  // Unsigned arithmetic wraps like arith's does, without C++'s signed UB.
  uint64_t r = fn(static_cast<uint64_t>(*a), static_cast<uint64_t>(*b));
  return bind(op.getResult(), wrapTo(r, intWidth(op.getResult().getType())));
}

llvm::Expected<std::vector<Value>> callFunction(mlir::func::FuncOp func,
                                                llvm::ArrayRef<Value> args,
                                                unsigned depth) {
  std::string where =
      ("@" + func.getSymName() + " at " + locText(func.getLoc())).str();
  if (func.isExternal())
    return makeError(where + ": has no body");
  if (!llvm::hasSingleElement(func.getBody()))
    return makeError(where + ": must have a single block");
  mlir::Block &block = func.getBody().front();
  if (args.size() != block.getNumArguments())
    return makeError(where + ": takes " + Twine(block.getNumArguments()) +
                     " arguments, got " + Twine(args.size()));
  Frame frame;
  for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
    if (auto bad = malformed(args[i]))
      return makeError(where + ": argument #" + Twine(i) + ": " + *bad);
    if (!fitsType(arg.getType(), args[i]))
      return makeError(where + ": argument #" + Twine(i) + ": expected " +
                       typeText(arg.getType()) + ", got " + describe(args[i]));
    frame.bind(arg, args[i]);
  }
  for (mlir::Operation &op : block) {
    if (auto ret = mlir::dyn_cast<mlir::func::ReturnOp>(op)) {
      std::vector<Value> results;
      for (mlir::Value v : ret.getOperands()) {
        const Value *value = frame.lookup(v);
        if (!value)
          return makeError("'func.return' at " + locText(ret.getLoc()) +
                           ": an operand has no value");
        results.push_back(*value);
      }
      return results;
    }
    if (Error e = OpRunner(frame, &op, depth).run())
      return std::move(e);
  }
  return makeError(where + ": ends without func.return");
}

/// splitmix64 (Steele, Lea and Flood): tiny, and the same bits on every
/// standard library, unlike std distributions.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  /// Uniform in [0, n), n > 0 (the modulo bias is irrelevant for tests).
  int64_t below(int64_t n) {
    return static_cast<int64_t>(next() % static_cast<uint64_t>(n));
  }
};

} // namespace

llvm::Expected<std::vector<Value>> run(mlir::func::FuncOp func,
                                       llvm::ArrayRef<Value> args) {
  return callFunction(func, args, 0);
}

llvm::Expected<std::vector<Value>>
run(mlir::ModuleOp module, llvm::StringRef name, llvm::ArrayRef<Value> args) {
  auto func = module.lookupSymbol<mlir::func::FuncOp>(name);
  if (!func)
    return makeError("no function @" + name + " in the module");
  return callFunction(func, args, 0);
}

Graph randomGraph(int64_t nodes, int64_t maxInDegree, uint64_t seed,
                  bool allowIsolated) {
  SplitMix64 rng{seed};
  Graph g;
  g.nodes = std::max<int64_t>(nodes, 0);
  int64_t maxDeg = std::min(maxInDegree, g.nodes - 1);
  int64_t minDeg = allowIsolated ? 0 : std::min<int64_t>(1, maxDeg);
  for (int64_t i = 0; i < g.nodes; ++i) {
    if (maxDeg <= 0)
      break;
    int64_t deg = minDeg + rng.below(maxDeg - minDeg + 1);
    // Partial Fisher-Yates over the other nodes: distinct sources, no loop.
    std::vector<int64_t> others;
    for (int64_t j = 0; j < g.nodes; ++j)
      if (j != i)
        others.push_back(j);
    for (int64_t k = 0; k < deg; ++k) {
      int64_t pick = k + rng.below(static_cast<int64_t>(others.size()) - k);
      std::swap(others[k], others[pick]);
      g.src.push_back(others[k]);
      g.dst.push_back(i);
    }
  }
  // Shuffle edge ids so nothing downstream may assume edges sorted by
  // destination.
  for (int64_t e = g.numEdges() - 1; e > 0; --e) {
    int64_t pick = rng.below(e + 1);
    std::swap(g.src[e], g.src[pick]);
    std::swap(g.dst[e], g.dst[pick]);
  }
  return g;
}

Tensor randomTensor(std::vector<int64_t> shape, uint64_t seed, double lo,
                    double hi) {
  SplitMix64 rng{seed};
  Tensor t = Tensor::zeros(std::move(shape));
  for (double &v : t.data)
    v = lo + (hi - lo) * rng.uniform();
  return t;
}

} // namespace gnnc::ref
