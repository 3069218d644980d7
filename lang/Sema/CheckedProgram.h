//===- CheckedProgram.h - The front end's result ------------------*- C++
//-*-===//
//
// What Sema hands to the rest of the compiler: for every `train` block, the
// dataset it binds (with the counts read from the dataset), the model
// instantiated for it (parameters bound, `repeat` unrolled, every argument
// resolved with defaults, every output width inferred) and its typed
// settings. MLIRGen reads only this, never the syntax tree.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_LANG_SEMA_CHECKEDPROGRAM_H
#define GNNC_LANG_SEMA_CHECKEDPROGRAM_H

#include "lang/Basic/Location.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace gnnc::sema {

/// A resolved operator argument.
struct AttrValue {
  enum class Kind { Int, Real, Bool, String, List };
  Kind kind = Kind::Int;
  int64_t i = 0;
  double r = 0;
  bool b = false;
  std::string s;
  std::vector<AttrValue> list; ///< List: e.g. a model parameter [15, 10].

  static AttrValue getInt(int64_t v) {
    AttrValue a;
    a.i = v;
    return a;
  }
  static AttrValue getReal(double v) {
    AttrValue a;
    a.kind = Kind::Real;
    a.r = v;
    return a;
  }
  static AttrValue getBool(bool v) {
    AttrValue a;
    a.kind = Kind::Bool;
    a.b = v;
    return a;
  }
  static AttrValue getString(std::string v) {
    AttrValue a;
    a.kind = Kind::String;
    a.s = std::move(v);
    return a;
  }
};

struct NamedAttr {
  std::string name;
  AttrValue value;
};

/// The operators of language v1 plus the input and the element-wise forms of
/// `+ - *`. `Scale` is a number times a node tensor.
enum class OpKind {
  Input,
  GcnConv,
  SageConv,
  GatConv,
  GraphConv,
  GinConv,
  Linear,
  Relu,
  LeakyRelu,
  Elu,
  Gelu,
  Sigmoid,
  Tanh,
  Dropout,
  BatchNorm,
  LayerNorm,
  Concat,
  Add,
  Sub,
  Mul,
  Scale,
};

/// The language's spelling of an operator ("gcn_conv"; "add" for `+`).
llvm::StringRef getOpName(OpKind kind);
/// True for operators that aggregate over the graph.
bool isGraphOp(OpKind kind);
/// True for operators that own trainable parameters.
bool hasParameters(OpKind kind);

/// One operator of an instantiated model, in execution order.
struct LayerOp {
  OpKind kind;
  /// Unique within the model: "<op>_<k>" counting from 0 per operator
  /// ("gcn_conv_1"); parameters are named "<name>.weight" etc. from it.
  std::string name;
  std::vector<unsigned> operands; ///< Indices of earlier ops.
  /// Every argument of the operator's signature, defaults filled in, in the
  /// order of the signature; tensor arguments are operands, not attrs.
  std::vector<NamedAttr> attrs;
  std::optional<int64_t> width; ///< Output feature width; unknown if no data.
  Location loc;

  const AttrValue *getAttr(llvm::StringRef name) const;
};

struct ModelInstance {
  std::string name;
  std::vector<NamedAttr> args; ///< The model's parameters as bound.
  std::vector<LayerOp> ops;    ///< ops[0] is the input `x`.
  unsigned result = 0;         ///< Index of the returned op.
};

struct DataSource {
  enum class Kind { Dataset, Synthetic };
  Kind kind = Kind::Dataset;
  std::string name;      ///< As written: "cora", or a path.
  std::string dir;       ///< Resolved directory (datasets only).
  bool resolved = false; ///< Counts below are valid.
  int64_t nodes = 0;
  int64_t edges = 0; ///< Directed edges (synthetic: nodes * avg_degree).
  int64_t features = 0;
  int64_t classes = 0;
  bool hasFeatures = true;
  /// Stored feature values (meta.json's feature_nnz, or what synthetic()
  /// makes); -1 when unknown (a dataset without features gets stand-ins).
  int64_t featureNnz = -1;
  /// normalize_features = true: the runtime divides each feature row by its
  /// sum before training (PyG's NormalizeFeatures).
  bool normalizeFeatures = false;
  /// Nodes in the training mask (meta.json's num_train, or what synthetic()
  /// labels); -1 when unknown. The cost model estimates from it how many
  /// rows a step restricted to the loss's rows computes.
  int64_t trainNodes = -1;
  double avgDegree = 0; ///< Synthetic only.
  int64_t seed = 0;     ///< Synthetic only.
  Location loc;
};

enum class Precision { FP32, BF16, FP16, FP64 };
enum class SavedPrecision { Exact, BF16, FP16 };
enum class InitScheme { Glorot, Kaiming };
enum class PlanPolicy { Auto, KeepAll, RecomputeAll, OffloadAll };
enum class Metric { Accuracy, Precision, Recall, F1, AucRoc, AucPr };

llvm::StringRef toString(Precision p);
llvm::StringRef toString(SavedPrecision p);
llvm::StringRef toString(InitScheme s);
llvm::StringRef toString(PlanPolicy p);
llvm::StringRef toString(Metric m);
/// Bytes per element of an activation stored in \p p.
unsigned elementBytes(Precision p);

struct LossConfig {
  enum class Kind { CrossEntropy };
  Kind kind = Kind::CrossEntropy;
  double labelSmoothing = 0;
  bool balancedClassWeights = false;
};

struct OptimizerConfig {
  enum class Kind { Adam, AdamW, SGD };
  Kind kind = Kind::Adam;
  double lr = 0.001;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8; ///< Adam and AdamW.
  double weightDecay = 0;
  double momentum = 0; ///< SGD.
  bool nesterov = false;
};

struct SamplingConfig {
  enum class Kind { FullGraph, Neighbor, Cluster, SaintRW };
  Kind kind = Kind::FullGraph;
  std::vector<int64_t> fanout; ///< neighbor: -1 keeps every neighbour.
  int64_t batch = 0;           ///< neighbor: seed nodes; cluster: parts.
  bool shuffle = true;
  int64_t parts = 0;                        ///< cluster.
  int64_t roots = 0, length = 0, steps = 0; ///< saint_rw.
};

struct DiskConfig {
  std::string dir;
  uint64_t bytes = 0;
};

struct TrainConfig {
  LossConfig loss;
  OptimizerConfig optimizer;
  int64_t epochs = 0;
  InitScheme init = InitScheme::Glorot;
  Precision precision = Precision::FP32;
  SavedPrecision savedPrecision = SavedPrecision::Exact;
  std::optional<uint64_t> memory;     ///< Unset: the device's free memory.
  std::optional<uint64_t> hostMemory; ///< Unset: half of RAM.
  std::optional<DiskConfig> disk;
  PlanPolicy plan = PlanPolicy::Auto;
  SamplingConfig sampling;
  int64_t accumulate = 1;
  std::vector<Metric> metrics{Metric::Accuracy};
  int64_t evalEvery = 1;
  int64_t seed = 0;
};

struct BoundTrain {
  Location loc;
  /// Where each setting the block writes is, by name (later stages report
  /// a setting they cannot implement at its own line).
  std::map<std::string, Location> settingLocs;
  ModelInstance model;
  DataSource data;
  TrainConfig config;
};

struct CheckedProgram {
  std::string filename;
  std::vector<BoundTrain> trains; ///< In file order.
};

/// Prints the checked program (one block per `train`, ops with widths, every
/// setting with its resolved value). Stable: lit tests check it.
void dump(const CheckedProgram &program, llvm::raw_ostream &os);
/// Shortest decimal that reads back as the same double ("0.01", "1e-08").
std::string formatReal(double v);
/// "3.2 MiB"-style rendering of a byte count.
std::string formatBytes(uint64_t bytes);

} // namespace gnnc::sema

#endif // GNNC_LANG_SEMA_CHECKEDPROGRAM_H
