//===- CheckedDump.cpp - Printing the checked program ---------------------===//
//
// The second half of `gnnc emit --stage=ast`: each train block as Sema bound
// it. One op per line in SSA-like form with its resolved arguments and its
// output shape, so widths are visible (and FileCheck-able) at a glance.
//
//===----------------------------------------------------------------------===//
#include "lang/Basic/Text.h"
#include "lang/Sema/Builtins.h"
#include "lang/Sema/CheckedProgram.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <charconv>

using namespace gnnc;
using namespace gnnc::sema;

llvm::StringRef sema::getOpName(OpKind kind) {
  switch (kind) {
  case OpKind::Input:
    return "input";
  case OpKind::Add:
    return "add";
  case OpKind::Sub:
    return "sub";
  case OpKind::Mul:
    return "mul";
  case OpKind::Scale:
    return "scale";
  default:
    for (const CallSpec &spec : operatorSpecs())
      if (spec.op == kind)
        return spec.name;
  }
  return "?";
}

bool sema::isGraphOp(OpKind kind) {
  switch (kind) {
  case OpKind::GcnConv:
  case OpKind::SageConv:
  case OpKind::GatConv:
  case OpKind::GraphConv:
  case OpKind::GinConv:
    return true;
  default:
    return false;
  }
}

bool sema::hasParameters(OpKind kind) {
  return isGraphOp(kind) || kind == OpKind::Linear ||
         kind == OpKind::BatchNorm || kind == OpKind::LayerNorm;
}

const AttrValue *LayerOp::getAttr(llvm::StringRef attrName) const {
  for (const NamedAttr &a : attrs)
    if (a.name == attrName)
      return &a.value;
  return nullptr;
}

llvm::StringRef sema::toString(Precision p) {
  static const char *names[] = {"fp32", "bf16", "fp16", "fp64"};
  return names[static_cast<int>(p)];
}
llvm::StringRef sema::toString(SavedPrecision p) {
  static const char *names[] = {"exact", "bf16", "fp16"};
  return names[static_cast<int>(p)];
}
llvm::StringRef sema::toString(InitScheme s) {
  return s == InitScheme::Glorot ? "glorot" : "kaiming";
}
llvm::StringRef sema::toString(PlanPolicy p) {
  static const char *names[] = {"auto", "keep_all", "recompute_all",
                                "offload_all"};
  return names[static_cast<int>(p)];
}
llvm::StringRef sema::toString(Metric m) {
  static const char *names[] = {"accuracy", "precision", "recall",
                                "f1",       "auc_roc",   "auc_pr"};
  return names[static_cast<int>(m)];
}

unsigned sema::elementBytes(Precision p) {
  switch (p) {
  case Precision::FP64:
    return 8;
  case Precision::FP32:
    return 4;
  case Precision::BF16:
  case Precision::FP16:
    return 2;
  }
  return 4;
}

std::string sema::formatReal(double v) {
  // Whole numbers read best as integers ("100000", not "1e+05").
  if (v == static_cast<double>(static_cast<long long>(v)) && v > -1e15 &&
      v < 1e15)
    return std::to_string(static_cast<long long>(v));
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

std::string sema::formatBytes(uint64_t bytes) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024)
    return std::to_string(bytes) + " B";
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%.1f", v) << " " << units[u];
  return os.str();
}

static void printAttr(const AttrValue &v, llvm::raw_ostream &os) {
  switch (v.kind) {
  case AttrValue::Kind::Int:
    os << v.i;
    break;
  case AttrValue::Kind::Real:
    os << formatReal(v.r);
    break;
  case AttrValue::Kind::Bool:
    os << (v.b ? "true" : "false");
    break;
  case AttrValue::Kind::String:
    printQuoted(v.s, os);
    break;
  case AttrValue::Kind::List:
    os << "[";
    for (size_t i = 0; i < v.list.size(); ++i) {
      os << (i ? ", " : "");
      printAttr(v.list[i], os);
    }
    os << "]";
    break;
  }
}

static void printShape(std::optional<int64_t> width, llvm::raw_ostream &os) {
  os << "[N, ";
  if (width)
    os << *width;
  else
    os << "?";
  os << "]";
}

static void dumpModel(const ModelInstance &model, llvm::raw_ostream &os) {
  os << "  model " << model.name << "(";
  for (size_t i = 0; i < model.args.size(); ++i) {
    os << (i ? ", " : "") << model.args[i].name << " = ";
    printAttr(model.args[i].value, os);
  }
  os << ")\n";
  for (size_t i = 0; i < model.ops.size(); ++i) {
    const LayerOp &op = model.ops[i];
    os << "    %" << i << " = " << getOpName(op.kind);
    if (op.kind == OpKind::Input) {
      os << " x : ";
      printShape(op.width, os);
      os << "\n";
      continue;
    }
    os << " \"" << op.name << "\"(";
    for (size_t j = 0; j < op.operands.size(); ++j)
      os << (j ? ", " : "") << "%" << op.operands[j];
    os << ")";
    if (!op.attrs.empty()) {
      os << " {";
      for (size_t j = 0; j < op.attrs.size(); ++j) {
        os << (j ? ", " : "") << op.attrs[j].name << " = ";
        printAttr(op.attrs[j].value, os);
      }
      os << "}";
    }
    os << " : ";
    printShape(op.width, os);
    os << " @" << op.loc.line << ":" << op.loc.col << "\n";
  }
  os << "    return %" << model.result << " : ";
  printShape(model.ops[model.result].width, os);
  os << "\n";
}

static void dumpConfig(const TrainConfig &c, llvm::raw_ostream &os) {
  os << "  loss = cross_entropy(label_smoothing = "
     << formatReal(c.loss.labelSmoothing) << ", class_weights = "
     << (c.loss.balancedClassWeights ? "balanced" : "none") << ")\n";
  const OptimizerConfig &o = c.optimizer;
  os << "  optimizer = ";
  if (o.kind == OptimizerConfig::Kind::SGD)
    os << "sgd(lr = " << formatReal(o.lr)
       << ", momentum = " << formatReal(o.momentum)
       << ", weight_decay = " << formatReal(o.weightDecay)
       << ", nesterov = " << (o.nesterov ? "true" : "false") << ")\n";
  else
    os << (o.kind == OptimizerConfig::Kind::Adam ? "adam" : "adamw")
       << "(lr = " << formatReal(o.lr) << ", beta1 = " << formatReal(o.beta1)
       << ", beta2 = " << formatReal(o.beta2) << ", eps = " << formatReal(o.eps)
       << ", weight_decay = " << formatReal(o.weightDecay) << ")\n";
  os << "  epochs = " << c.epochs << "\n";
  os << "  init = " << toString(c.init) << "\n";
  os << "  precision = " << toString(c.precision) << "\n";
  os << "  saved_precision = " << toString(c.savedPrecision) << "\n";
  os << "  memory = "
     << (c.memory ? std::to_string(*c.memory) + " B"
                  : std::string("device free memory"))
     << "\n";
  os << "  host_memory = "
     << (c.hostMemory ? std::to_string(*c.hostMemory) + " B"
                      : std::string("half of RAM"))
     << "\n";
  os << "  disk = ";
  if (c.disk) {
    os << "spill(";
    printQuoted(c.disk->dir, os);
    os << ", " << c.disk->bytes << " B)\n";
  } else {
    os << "none\n";
  }
  os << "  plan = " << toString(c.plan) << "\n";
  const SamplingConfig &s = c.sampling;
  os << "  sampling = ";
  switch (s.kind) {
  case SamplingConfig::Kind::FullGraph:
    os << "full_graph\n";
    break;
  case SamplingConfig::Kind::Neighbor:
    os << "neighbor(fanout = [";
    for (size_t i = 0; i < s.fanout.size(); ++i)
      os << (i ? ", " : "") << s.fanout[i];
    os << "], batch = " << s.batch
       << ", shuffle = " << (s.shuffle ? "true" : "false") << ")\n";
    break;
  case SamplingConfig::Kind::Cluster:
    os << "cluster(parts = " << s.parts << ", batch = " << s.batch << ")\n";
    break;
  case SamplingConfig::Kind::SaintRW:
    os << "saint_rw(roots = " << s.roots << ", length = " << s.length
       << ", steps = " << s.steps << ")\n";
    break;
  }
  os << "  accumulate = " << c.accumulate << "\n";
  os << "  metrics = [";
  for (size_t i = 0; i < c.metrics.size(); ++i)
    os << (i ? ", " : "") << toString(c.metrics[i]);
  os << "]\n";
  os << "  eval_every = " << c.evalEvery << "\n";
  os << "  seed = " << c.seed << "\n";
}

void sema::dump(const CheckedProgram &program, llvm::raw_ostream &os) {
  for (const BoundTrain &t : program.trains) {
    os << "Checked train " << t.model.name << " @" << t.loc.line << ":"
       << t.loc.col << "\n";
    const DataSource &d = t.data;
    if (d.kind == DataSource::Kind::Dataset) {
      os << "  data = dataset(";
      printQuoted(d.name, os);
      os << ") at " << d.dir;
    } else {
      os << "  data = synthetic(avg_degree = " << formatReal(d.avgDegree)
         << ", seed = " << d.seed << ")";
    }
    os << ": nodes = " << d.nodes << ", edges = " << d.edges
       << ", features = " << d.features << ", classes = " << d.classes << "\n";
    dumpModel(t.model, os);
    dumpConfig(t.config, os);
  }
}
