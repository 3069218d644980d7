//===- Builtins.cpp - Signatures of operators and settings ----------------===//
//
// Defaults follow PyTorch Geometric and PyTorch where language.md is silent
// (see docs/Language.md): Adam's betas (0.9, 0.999) and eps 1e-8, AdamW's
// weight decay 0.01, PyG's NeighborLoader fan-out and ClusterGCN sizes.
//
//===----------------------------------------------------------------------===//
#include "lang/Sema/Builtins.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace gnnc;
using namespace gnnc::sema;

llvm::StringRef sema::describe(ArgKind kind) {
  switch (kind) {
  case ArgKind::Tensor:
    return "a node tensor";
  case ArgKind::Int:
    return "an integer";
  case ArgKind::Real:
    return "a number";
  case ArgKind::Bool:
    return "true or false";
  case ArgKind::Choice:
    return "one of the listed words";
  case ArgKind::String:
    return "a string";
  case ArgKind::Size:
    return "a size such as 256 MiB";
  case ArgKind::IntList:
    return "a list of integers";
  }
  return "a value";
}

//===----------------------------------------------------------------------===//
// Spec construction helpers
//===----------------------------------------------------------------------===//

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMaxWidth = 1 << 24; // 16M features: beyond any real layer.
/// Counts index int32 node and edge arrays.
constexpr double kMaxCount = 2147483647.0;

ArgSpec tensor(llvm::StringRef name) {
  ArgSpec a{name, ArgKind::Tensor};
  a.required = true;
  return a;
}
ArgSpec tensors(llvm::StringRef name) {
  ArgSpec a = tensor(name);
  a.variadic = true;
  return a;
}
ArgSpec intReq(llvm::StringRef name, double min, double max = kMaxCount) {
  ArgSpec a{name, ArgKind::Int};
  a.required = true;
  a.min = min;
  a.max = max;
  return a;
}
ArgSpec intOpt(llvm::StringRef name, int64_t def, double min,
               double max = kMaxCount) {
  ArgSpec a{name, ArgKind::Int};
  a.defInt = def;
  a.min = min;
  a.max = max;
  return a;
}
ArgSpec real(llvm::StringRef name, double def, double min, double max,
             bool minExclusive = false, bool maxExclusive = false) {
  ArgSpec a{name, ArgKind::Real};
  a.defReal = def;
  a.min = min;
  a.max = max;
  a.minExclusive = minExclusive;
  a.maxExclusive = maxExclusive;
  return a;
}
ArgSpec boolean(llvm::StringRef name, bool def) {
  ArgSpec a{name, ArgKind::Bool};
  a.defBool = def;
  return a;
}
ArgSpec choice(llvm::StringRef name, llvm::StringRef def,
               std::vector<llvm::StringRef> choices) {
  ArgSpec a{name, ArgKind::Choice};
  a.defString = def;
  a.choices = std::move(choices);
  return a;
}
ArgSpec stringReq(llvm::StringRef name) {
  ArgSpec a{name, ArgKind::String};
  a.required = true;
  return a;
}
ArgSpec sizeReq(llvm::StringRef name) {
  ArgSpec a{name, ArgKind::Size};
  a.required = true;
  a.min = 1;
  return a;
}
ArgSpec intList(llvm::StringRef name, std::vector<int64_t> def, double min,
                std::optional<int64_t> sentinel) {
  ArgSpec a{name, ArgKind::IntList};
  a.defList = std::move(def);
  a.min = min;
  a.max = kMaxCount;
  a.listSentinel = sentinel;
  return a;
}
} // namespace

std::string ArgSpec::rangeText() const {
  if (kind == ArgKind::Choice) {
    std::string s;
    for (llvm::StringRef c : choices)
      s += (s.empty() ? "" : ", ") + ("\"" + c.str() + "\"");
    return "one of " + s;
  }
  if (kind != ArgKind::Int && kind != ArgKind::Real && kind != ArgKind::IntList)
    return "";
  bool lo = min != -kInf, hi = max != kInf;
  auto num = [](double v) { return formatReal(v); };
  std::string s;
  if (lo && hi)
    s = std::string(minExclusive ? "(" : "[") + num(min) + ", " + num(max) +
        (maxExclusive ? ")" : "]");
  else if (lo)
    s = std::string(minExclusive ? "> " : ">= ") + num(min);
  else if (hi)
    s = std::string(maxExclusive ? "< " : "<= ") + num(max);
  if (listSentinel)
    s += " (or " + std::to_string(*listSentinel) + ")";
  return s;
}

std::string ArgSpec::defaultText() const {
  if (required)
    return "required";
  switch (kind) {
  case ArgKind::Int:
    return std::to_string(defInt);
  case ArgKind::Real:
    return formatReal(defReal);
  case ArgKind::Bool:
    return defBool ? "true" : "false";
  case ArgKind::Choice:
  case ArgKind::String:
    return "\"" + defString.str() + "\"";
  case ArgKind::IntList: {
    std::string s = "[";
    for (size_t i = 0; i < defList.size(); ++i)
      s += (i ? ", " : "") + std::to_string(defList[i]);
    return s + "]";
  }
  case ArgKind::Tensor:
  case ArgKind::Size:
    return "required";
  }
  return "";
}

const ArgSpec *CallSpec::find(llvm::StringRef arg) const {
  for (const ArgSpec &a : args)
    if (a.name == arg)
      return &a;
  return nullptr;
}

std::vector<llvm::StringRef> CallSpec::argNames() const {
  std::vector<llvm::StringRef> names;
  for (const ArgSpec &a : args)
    names.push_back(a.name);
  return names;
}

//===----------------------------------------------------------------------===//
// The tables
//===----------------------------------------------------------------------===//

const std::vector<CallSpec> &sema::operatorSpecs() {
  static const std::vector<CallSpec> specs = {
      {"gcn_conv",
       {tensor("h"), intReq("out", 1, kMaxWidth), boolean("bias", true),
        boolean("self_loops", true), boolean("normalize", true)},
       "Kipf & Welling propagation D^-1/2 (A+I) D^-1/2 H W",
       OpKind::GcnConv},
      {"sage_conv",
       {tensor("h"), intReq("out", 1, kMaxWidth),
        choice("aggr", "mean", {"mean", "sum", "add", "max"}),
        boolean("root_weight", true)},
       "GraphSAGE: W1 h_i + W2 aggr_j h_j",
       OpKind::SageConv},
      {"gat_conv",
       {tensor("h"), intReq("out", 1, kMaxWidth), intOpt("heads", 1, 1, 1024),
        boolean("concat", true), real("negative_slope", 0.2, 0, kInf),
        real("attn_dropout", 0, 0, 1, false, true)},
       "graph attention with a per-edge softmax; width out*heads if concat",
       OpKind::GatConv},
      {"graph_conv",
       {tensor("h"), intReq("out", 1, kMaxWidth),
        choice("aggr", "add", {"add", "sum", "mean", "max"})},
       "W1 h_i + W2 aggr_j h_j (Morris et al.)",
       OpKind::GraphConv},
      {"gin_conv",
       {tensor("h"), intReq("out", 1, kMaxWidth), real("eps", 0, -kInf, kInf)},
       "GIN: MLP((1 + eps) h_i + sum_j h_j), a 2-layer MLP",
       OpKind::GinConv},
      {"linear",
       {tensor("h"), intReq("out", 1, kMaxWidth), boolean("bias", true)},
       "dense layer h W + b",
       OpKind::Linear},
      {"relu", {tensor("h")}, "max(h, 0)", OpKind::Relu},
      {"leaky_relu",
       {tensor("h"), real("slope", 0.01, 0, kInf)},
       "h if h > 0 else slope * h",
       OpKind::LeakyRelu},
      {"elu", {tensor("h")}, "h if h > 0 else exp(h) - 1", OpKind::Elu},
      {"gelu",
       {tensor("h")},
       "Gaussian error linear unit (erf form)",
       OpKind::Gelu},
      {"sigmoid", {tensor("h")}, "1 / (1 + exp(-h))", OpKind::Sigmoid},
      {"tanh", {tensor("h")}, "hyperbolic tangent", OpKind::Tanh},
      {"dropout",
       {tensor("h"), real("p", 0.5, 0, 1, false, true)},
       "inverted dropout, training only",
       OpKind::Dropout},
      {"batch_norm",
       {tensor("h")},
       "normalise each feature over the nodes",
       OpKind::BatchNorm},
      {"layer_norm",
       {tensor("h")},
       "normalise each node over its features",
       OpKind::LayerNorm},
      {"concat", {tensors("h")}, "feature-wise concatenation", OpKind::Concat},
  };
  return specs;
}

const std::vector<CallSpec> &sema::lossSpecs() {
  static const std::vector<CallSpec> specs = {
      {"cross_entropy",
       {real("label_smoothing", 0, 0, 1, false, true),
        choice("class_weights", "none", {"none", "balanced"})},
       "softmax cross-entropy on the training nodes"},
  };
  return specs;
}

const std::vector<CallSpec> &sema::optimizerSpecs() {
  static const std::vector<CallSpec> specs = {
      {"adam",
       {real("lr", 0.001, 0, kInf, true), real("beta1", 0.9, 0, 1, false, true),
        real("beta2", 0.999, 0, 1, false, true),
        real("eps", 1e-8, 0, kInf, true), real("weight_decay", 0, 0, kInf)},
       "Adam; weight_decay is an L2 term added to the gradient"},
      {"adamw",
       {real("lr", 0.001, 0, kInf, true), real("beta1", 0.9, 0, 1, false, true),
        real("beta2", 0.999, 0, 1, false, true),
        real("eps", 1e-8, 0, kInf, true), real("weight_decay", 0.01, 0, kInf)},
       "Adam with decoupled weight decay"},
      {"sgd",
       {real("lr", 0.001, 0, kInf, true), real("momentum", 0, 0, kInf),
        real("weight_decay", 0, 0, kInf), boolean("nesterov", false)},
       "stochastic gradient descent with optional (Nesterov) momentum"},
  };
  return specs;
}

const std::vector<CallSpec> &sema::samplingSpecs() {
  static const std::vector<CallSpec> specs = {
      {"full_graph", {}, "every epoch trains on the whole graph"},
      {"neighbor",
       {intList("fanout", {15, 10}, 1, -1), intOpt("batch", 1024, 1),
        boolean("shuffle", true)},
       "GraphSAGE neighbour sampling; one fan-out per hop, -1 = all"},
      {"cluster",
       {intOpt("parts", 1500, 2), intOpt("batch", 20, 1)},
       "Cluster-GCN: METIS parts, `batch` parts per mini-batch"},
      {"saint_rw",
       {intOpt("roots", 2000, 1), intOpt("length", 2, 1),
        intOpt("steps", 1, 1)},
       "GraphSAINT random-walk sub-graphs"},
  };
  return specs;
}

const std::vector<CallSpec> &sema::dataSpecs() {
  static const std::vector<CallSpec> specs = {
      {"dataset",
       {stringReq("name"), boolean("normalize_features", false)},
       "a dataset directory in the gnnc format: a name or a path; "
       "normalize_features divides each feature row by its sum"},
      {"synthetic",
       {intReq("nodes", 2, 2147483647.0), real("avg_degree", 10, 0, 1e6, true),
        intOpt("features", 64, 1, kMaxWidth), intOpt("classes", 8, 2, 1 << 20),
        intOpt("seed", 0, 0), boolean("normalize_features", false)},
       "a generated power-law graph with planted classes"},
  };
  return specs;
}

const CallSpec &sema::spillSpec() {
  static const CallSpec spec = {"spill",
                                {stringReq("dir"), sizeReq("size")},
                                "files in dir, at most size bytes"};
  return spec;
}

const std::vector<SettingSpec> &sema::settingSpecs() {
  static const std::vector<SettingSpec> specs = {
      {"loss", SettingKind::Loss, true, "", "the training loss"},
      {"optimizer", SettingKind::Optimizer, true, "", "the optimizer"},
      {"epochs", SettingKind::Int, true, "", "passes over the training data"},
      {"init",
       SettingKind::Choice,
       false,
       "glorot",
       "weight initialisation",
       {"glorot", "kaiming"}},
      {"precision",
       SettingKind::Choice,
       false,
       "fp32",
       "storage and compute type of activations",
       {"fp32", "bf16", "fp16", "fp64"}},
      {"saved_precision",
       SettingKind::Choice,
       false,
       "exact",
       "type the planner may store saved activations in",
       {"exact", "bf16", "fp16"}},
      {"memory", SettingKind::Size, false, "the device's free memory",
       "device-memory budget of the training step"},
      {"host_memory", SettingKind::Size, false, "half of RAM",
       "pinned host memory for offloaded tensors"},
      {"disk", SettingKind::Disk, false, "none",
       "spill(\"dir\", size): lets the planner offload to files"},
      {"plan",
       SettingKind::Choice,
       false,
       "auto",
       "memory-planning policy",
       {"auto", "keep_all", "recompute_all", "offload_all"}},
      {"sampling", SettingKind::Sampling, false, "full_graph",
       "how mini-batches are drawn"},
      {"accumulate", SettingKind::Int, false, "1",
       "micro-batches per optimizer step"},
      {"metrics",
       SettingKind::MetricList,
       false,
       "[accuracy]",
       "metrics reported per split (macro over classes)",
       {"accuracy", "precision", "recall", "f1", "auc_roc", "auc_pr"}},
      {"eval_every", SettingKind::Int, false, "1",
       "epochs between validation passes"},
      {"seed",
       SettingKind::Int,
       false,
       "0",
       "fixes weights, dropout masks and sampling",
       {},
       0},
  };
  return specs;
}

const CallSpec *sema::findIn(const std::vector<CallSpec> &specs,
                             llvm::StringRef name) {
  for (const CallSpec &s : specs)
    if (s.name == name)
      return &s;
  return nullptr;
}

std::vector<llvm::StringRef> sema::namesOf(const std::vector<CallSpec> &specs) {
  std::vector<llvm::StringRef> names;
  for (const CallSpec &s : specs)
    names.push_back(s.name);
  return names;
}

const SettingSpec *sema::findSetting(llvm::StringRef name) {
  for (const SettingSpec &s : settingSpecs())
    if (s.name == name)
      return &s;
  return nullptr;
}

static void printCall(const CallSpec &spec, llvm::raw_ostream &os) {
  os << "  " << spec.name << "(";
  bool first = true;
  for (const ArgSpec &a : spec.args) {
    os << (first ? "" : ", ") << a.name << (a.variadic ? "..." : "");
    first = false;
  }
  os << ")  -- " << spec.summary << "\n";
  for (const ArgSpec &a : spec.args) {
    os << "      " << a.name << ": " << describe(a.kind) << ", "
       << a.defaultText();
    std::string range = a.rangeText();
    if (!range.empty())
      os << ", " << range;
    os << "\n";
  }
}

void sema::printBuiltins(llvm::raw_ostream &os) {
  auto group = [&](llvm::StringRef title, const std::vector<CallSpec> &specs) {
    os << title << ":\n";
    for (const CallSpec &s : specs)
      printCall(s, os);
  };
  group("operators", operatorSpecs());
  os << "settings:\n";
  for (const SettingSpec &s : settingSpecs()) {
    os << "  " << s.name << "  -- " << s.summary << "; "
       << (s.required ? std::string("required")
                      : "default " + s.defaultText.str());
    if (!s.choices.empty()) {
      os << "; one of";
      for (llvm::StringRef c : s.choices)
        os << " " << c;
    }
    os << "\n";
  }
  group("losses", lossSpecs());
  group("optimizers", optimizerSpecs());
  group("sampling", samplingSpecs());
  group("data", dataSpecs());
  group("disk", {spillSpec()});
}
