//===- RunGeneratedTest.cpp - Generated C++ against the interpreter -------===//
//
// End to end for the CPU target: a `.gnn` program goes through the pipeline
// to stage cpp, its C++ is compiled with the system compiler into a shared
// object linking GnncRtCpu, and @M.init, a few @M.step and @M.predict run
// from it. Each call's results are compared with the fp64 reference
// interpreter run on the same inputs (the generated code's own fp32 state,
// so errors do not compound): init exactly (rounded once from the same
// Philox draws), everything else within kRtol of the result's scale.
//
//===----------------------------------------------------------------------===//
#include "CpuTestUtil.h"
#include "gnnrt/Offload.h"
#include "test/unittests/ExampleFiles.h"

#include "compiler/Driver/Driver.h"
#include "compiler/Target/CPU/EmitCpp.h"
#include "dialects/Gnn/GnnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>

using namespace gnnrt::cpu::test;

namespace {

using EntryFn = int (*)(void *const *, void *const *, char *, gnnrt_offload *);
using ArenaFn = int64_t (*)(void);

constexpr int64_t kNodes = 30, kAvgDegree = 3, kFeatures = 6, kClasses = 3;

/// A random directed graph with exactly \p edges distinct edges and no self
/// loops (the graph type fixes E).
ref::Graph exactGraph(int64_t nodes, int64_t edges, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::set<std::pair<int64_t, int64_t>> seen;
  ref::Graph g;
  g.nodes = nodes;
  while (g.numEdges() < edges) {
    int64_t s = rng() % nodes, d = rng() % nodes;
    if (s == d || !seen.insert({s, d}).second)
      continue;
    g.src.push_back(s);
    g.dst.push_back(d);
  }
  return g;
}

/// A tensor as both sides see it: fp32 data for the generated code.
struct Buffer {
  std::vector<int64_t> shape;
  std::vector<float> data;
  ref::Value value() const {
    ref::Tensor t;
    t.shape = shape;
    t.data.assign(data.begin(), data.end());
    return t;
  }
};

std::vector<int64_t> shapeOf(mlir::Type type) {
  auto t = mlir::cast<mlir::RankedTensorType>(type);
  return std::vector<int64_t>(t.getShape().begin(), t.getShape().end());
}

class RunGenerated : public ::testing::Test {
protected:
  void TearDown() override {
    if (handle)
      dlclose(handle);
  }

  /// Compiles \p source to stage cpp and loads the generated code.
  void build(const std::string &name, const std::string &source) {
    llvm::SmallString<128> dir;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("gnnc-cpu-" + name, dir));
    std::string gnn = (dir + "/model.gnn").str();
    std::ofstream(gnn) << source;
    gnnc::DriverOptions options;
    options.inputFile = gnn;
    std::string diags;
    llvm::raw_string_ostream diagOS(diags);
    compilation = std::make_unique<gnnc::Compilation>(options, diagOS);
    ASSERT_TRUE(compilation->runFrontend()) << diags;
    module = compilation->lowerTo(gnnc::Stage::Cpp);
    ASSERT_TRUE(module) << diags;

    std::string cpp = (dir + "/model.cpp").str(),
                so = (dir + "/model.so").str();
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(cpp, ec);
      ASSERT_FALSE(ec);
      ASSERT_TRUE(mlir::succeeded(mlir::gnn::emitCpp(*module, os))) << diags;
    }
    std::string command =
        std::string(GNNC_CXX) +
        " -O2 -shared -fPIC -I" GNNC_RT_INCLUDE_DIR " " + cpp + " -o " + so +
        " " GNNC_RTCPU_LIBRARY " " GNNC_RTCPU_LINK_FLAGS " 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle, nullptr) << dlerror();
  }

  mlir::func::FuncOp func(const std::string &name) {
    return module->lookupSymbol<mlir::func::FuncOp>(name);
  }

  /// Runs @\p name from the shared object and the interpreter on the same
  /// arguments; returns the generated code's results after comparing.
  /// Tensor arguments not given by role come from \p state in order.
  std::vector<Buffer> call(const std::string &name,
                           const std::vector<Buffer> &state, int64_t step,
                           bool exact = false) {
    SCOPED_TRACE(name + " step " + std::to_string(step));
    mlir::func::FuncOp f = func(name);
    EXPECT_TRUE(f) << name;
    if (!f)
      return {};
    std::string id = name;
    for (char &c : id)
      if (!llvm::isAlnum(c))
        c = '_';
    auto entry =
        reinterpret_cast<EntryFn>(dlsym(handle, ("gnnc_" + id).c_str()));
    auto arenaBytes = reinterpret_cast<ArenaFn>(
        dlsym(handle, ("gnnc_" + id + "_arena_bytes").c_str()));
    EXPECT_TRUE(entry && arenaBytes) << name;
    if (!entry || !arenaBytes)
      return {};
    EXPECT_EQ(arenaBytes(),
              f->getAttrOfType<mlir::IntegerAttr>("gnn.arena_bytes").getInt());

    std::vector<void *> args;
    std::vector<ref::Value> refArgs;
    std::vector<int64_t> scalars(f.getNumArguments());
    size_t next = 0;
    for (unsigned i = 0; i < f.getNumArguments(); ++i) {
      auto role = f.getArgAttrOfType<mlir::StringAttr>(i, "gnn.input");
      std::string r = role ? role.str() : "";
      if (r == "graph") {
        args.push_back(const_cast<gnnrt_graph *>(&view));
        refArgs.push_back(graph);
      } else if (r == "features") {
        args.push_back(features.data.data());
        refArgs.push_back(features.value());
      } else if (r == "labels") {
        args.push_back(labels.data());
        refArgs.push_back(labelsRef);
      } else if (r == "train_mask") {
        args.push_back(mask.data());
        refArgs.push_back(maskRef);
      } else if (r == "prepared") {
        auto k = f.getArgAttrOfType<mlir::IntegerAttr>(i, "gnn.prepared");
        EXPECT_TRUE(k && k.getInt() < static_cast<int64_t>(preparedRef.size()))
            << "argument " << i;
        if (!k || k.getInt() >= static_cast<int64_t>(preparedRef.size()))
          return {};
        args.push_back(preparedArgs[k.getInt()]);
        refArgs.push_back(preparedRef[k.getInt()]);
      } else if (r == "seed" || r == "step") {
        scalars[i] = r == "seed" ? kSeed : step;
        args.push_back(&scalars[i]);
        refArgs.push_back(scalars[i]);
      } else {
        EXPECT_LT(next, state.size()) << "argument " << i;
        if (next >= state.size())
          return {};
        args.push_back(const_cast<float *>(state[next].data.data()));
        refArgs.push_back(state[next++].value());
      }
    }
    std::vector<Buffer> results;
    for (mlir::Type t : f.getResultTypes()) {
      Buffer b;
      b.shape = shapeOf(t);
      int64_t n = 1;
      for (int64_t d : b.shape)
        n *= d;
      b.data.assign(n, std::nanf(""));
      results.push_back(std::move(b));
    }
    std::vector<void *> resultPtrs;
    for (Buffer &b : results)
      resultPtrs.push_back(b.data.data());
    // Poisoned arena: a value read before it is written shows up.
    std::vector<char> arena(arenaBytes() + 64, static_cast<char>(0xff));
    char *aligned = arena.data() +
                    (64 - reinterpret_cast<uintptr_t>(arena.data()) % 64) % 64;
    EXPECT_EQ(entry(args.data(), resultPtrs.data(), aligned, nullptr),
              GNNRT_OK);
    // A result left in the arena (predict's logits, gnn.result_offsets) is
    // read from there, as the session does; its buffer stays poisoned.
    if (auto inArena =
            f->getAttrOfType<mlir::DenseI64ArrayAttr>("gnn.result_offsets"))
      for (size_t k = 0; k < results.size(); ++k)
        if (static_cast<int64_t>(k) < inArena.size() && inArena[k] >= 0)
          std::memcpy(results[k].data.data(), aligned + inArena[k],
                      4 * results[k].data.size());

    llvm::Expected<std::vector<ref::Value>> want = ref::run(f, refArgs);
    if (!want) {
      ADD_FAILURE() << llvm::toString(want.takeError());
      return results;
    }
    EXPECT_EQ(want->size(), results.size());
    for (size_t k = 0; k < results.size() && k < want->size(); ++k) {
      SCOPED_TRACE("result " + std::to_string(k));
      if (exact)
        EXPECT_TRUE(roundedEqual(results[k].data, (*want)[k]));
      else
        EXPECT_TRUE(closeTo(results[k].data, (*want)[k], kRtol, atol));
    }
    return results;
  }

  /// @M.prepare (gnn-hoist-graph-prep), when there is one, from the shared
  /// object and the interpreter: the other functions then take the
  /// generated code's values and the interpreter its own. Graphs are
  /// compared by their arrays, edge weights within kRtol.
  void prepare() {
    mlir::func::FuncOp f = func(name + ".prepare");
    if (!f)
      return;
    auto entry = reinterpret_cast<EntryFn>(
        dlsym(handle, ("gnnc_" + name + "_prepare").c_str()));
    auto arenaBytes = reinterpret_cast<ArenaFn>(
        dlsym(handle, ("gnnc_" + name + "_prepare_arena_bytes").c_str()));
    ASSERT_TRUE(entry && arenaBytes);
    // Kept: the prepared graphs' arrays live in this arena.
    prepareArena.assign(arenaBytes() + 64, static_cast<char>(0xff));
    char *aligned =
        prepareArena.data() +
        (64 - reinterpret_cast<uintptr_t>(prepareArena.data()) % 64) % 64;
    preparedGraphs.assign(f.getNumResults(), gnnrt_graph{});
    preparedTensors.assign(f.getNumResults(), Buffer());
    std::vector<void *> results;
    for (unsigned k = 0; k < f.getNumResults(); ++k) {
      mlir::Type t = f.getResultTypes()[k];
      if (mlir::isa<mlir::gnn::GraphType>(t)) {
        results.push_back(&preparedGraphs[k]);
        continue;
      }
      Buffer &b = preparedTensors[k];
      b.shape = shapeOf(t);
      int64_t n = 1;
      for (int64_t d : b.shape)
        n *= d;
      b.data.assign(n, std::nanf(""));
      results.push_back(b.data.data());
    }
    void *args[] = {const_cast<gnnrt_graph *>(&view)};
    ASSERT_EQ(entry(args, results.data(), aligned, nullptr), GNNRT_OK);
    preparedArgs = results;
    llvm::Expected<std::vector<ref::Value>> want = ref::run(f, {graph});
    ASSERT_TRUE(!!want) << llvm::toString(want.takeError());
    ASSERT_EQ(want->size(), results.size());
    preparedRef = *want;
    for (unsigned k = 0; k < results.size(); ++k) {
      SCOPED_TRACE("prepared " + std::to_string(k));
      if (auto *g = std::get_if<ref::Graph>(&(*want)[k])) {
        // Same edges by id: edge e of the generated graph is src -> dst.
        const gnnrt_graph &got = preparedGraphs[k];
        ASSERT_EQ(got.num_nodes, g->nodes);
        ASSERT_EQ(got.num_edges, g->numEdges());
        ASSERT_EQ(gnnrt_graph_check(&got), GNNRT_OK);
        for (int64_t i = 0; i < got.num_nodes; ++i)
          for (int32_t s = got.in.indptr[i]; s < got.in.indptr[i + 1]; ++s) {
            int32_t e = got.in.edge_id[s];
            EXPECT_EQ(g->dst[e], i) << "edge " << e;
            EXPECT_EQ(g->src[e], got.in.src[s]) << "edge " << e;
          }
      } else {
        EXPECT_TRUE(closeTo(preparedTensors[k].data, (*want)[k], kRtol, atol));
      }
    }
  }

  /// prepare, init, three steps, predict.
  void trainAndPredict() {
    prepare();
    ASSERT_FALSE(HasFatalFailure());
    std::vector<Buffer> state = call(name + ".init", {}, 0, /*exact=*/true);
    ASSERT_FALSE(state.empty());
    for (int64_t step = 1; step <= 3; ++step) {
      std::vector<Buffer> out = call(name + ".step", state, step);
      ASSERT_EQ(out.size(), state.size() + 1);
      EXPECT_TRUE(std::isfinite(out[0].data[0]));
      state.assign(out.begin() + 1, out.end());
    }
    std::vector<Buffer> logits = call(name + ".predict", state, 0);
    ASSERT_EQ(logits.size(), 1u);
  }

  void setUpInputs(const std::string &model) {
    name = model;
    mlir::func::FuncOp step = func(model + ".step");
    ASSERT_TRUE(step);
    auto g = mlir::cast<mlir::gnn::GraphType>(step.getArgumentTypes()[0]);
    ASSERT_EQ(g.getNodes(), kNodes);
    graph = exactGraph(kNodes, g.getEdges(), 3);
    csr = toCsr(graph);
    view = csr.view();
    ASSERT_EQ(gnnrt_graph_check(&view), GNNRT_OK);
    features.shape = {kNodes, kFeatures};
    features.data = toF32(randomF32({kNodes, kFeatures}, 7));
    labelsRef.shape = maskRef.shape = {kNodes};
    for (int64_t i = 0; i < kNodes; ++i) {
      labels.push_back(static_cast<int32_t>((i * 7) % kClasses));
      mask.push_back(i % 3 != 0);
      labelsRef.data.push_back(labels.back());
      maskRef.data.push_back(mask.back());
    }
  }

  static constexpr int64_t kSeed = 42;
  /// Added to the relative bound; see ExampleModels.
  double atol = 0;
  std::unique_ptr<gnnc::Compilation> compilation;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  void *handle = nullptr;
  std::string name;
  ref::Graph graph;
  CsrGraph csr;
  gnnrt_graph view{};
  Buffer features;
  std::vector<int32_t> labels;
  std::vector<uint8_t> mask;
  ref::IntTensor labelsRef, maskRef;
  std::vector<char> prepareArena;
  std::vector<gnnrt_graph> preparedGraphs;
  std::vector<Buffer> preparedTensors;
  std::vector<void *> preparedArgs;
  std::vector<ref::Value> preparedRef;
};

std::string program(const std::string &body, const std::string &optimizer) {
  return body + "train M on synthetic(nodes = " + std::to_string(kNodes) +
         ", avg_degree = " + std::to_string(kAvgDegree) +
         ", features = " + std::to_string(kFeatures) +
         ", classes = " + std::to_string(kClasses) +
         ") {\n  loss = cross_entropy(); optimizer = " + optimizer +
         "; epochs = 3; seed = 42;\n}\n";
}

TEST_F(RunGenerated, TwoLayerGcnWithDropout) {
  build("gcn", program("model M(hidden = 8, p = 0.5) {\n"
                       "  h = dropout(x, p = p);\n"
                       "  h = relu(gcn_conv(h, out = hidden));\n"
                       "  h = dropout(h, p = p);\n"
                       "  return gcn_conv(h, out = classes);\n}\n",
                       "adam(lr = 0.01, weight_decay = 5e-4)"));
  ASSERT_FALSE(HasFatalFailure());
  setUpInputs("M");
  ASSERT_FALSE(HasFatalFailure());
  trainAndPredict();
}

TEST_F(RunGenerated, GatWithTwoHeads) {
  build("gat", program("model M(hidden = 4) {\n"
                       "  h = elu(gat_conv(x, out = hidden, heads = 2));\n"
                       "  return gat_conv(h, out = classes, heads = 1);\n}\n",
                       "adam(lr = 0.01)"));
  ASSERT_FALSE(HasFatalFailure());
  setUpInputs("M");
  ASSERT_FALSE(HasFatalFailure());
  trainAndPredict();
}

TEST_F(RunGenerated, SageMeanWithSgd) {
  build("sage",
        program("model M(hidden = 8) {\n"
                "  h = relu(sage_conv(x, out = hidden, aggr = \"mean\"));\n"
                "  return sage_conv(h, out = classes, aggr = \"max\");\n}\n",
                "sgd(lr = 0.1, momentum = 0.9)"));
  ASSERT_FALSE(HasFatalFailure());
  setUpInputs("M");
  ASSERT_FALSE(HasFatalFailure());
  trainAndPredict();
}

/// Every shipped example's model, on a small synthetic graph in place of
/// its dataset (the fp64 interpreter is the oracle; the real datasets are
/// exercised by the JIT tests and the accuracy runs).
class ExampleModels : public RunGenerated,
                      public ::testing::WithParamInterface<std::string> {};

std::string smallData(std::string text) {
  std::regex data(R"(on\s+(dataset\s*\([^)]*\)|synthetic\s*\([^)]*\)))");
  text = gnnc::test::withoutLaterSettings(text);
  return std::regex_replace(text, data,
                            "on synthetic(nodes = " + std::to_string(kNodes) +
                                ", avg_degree = " + std::to_string(kAvgDegree) +
                                ", features = " + std::to_string(kFeatures) +
                                ", classes = " + std::to_string(kClasses) +
                                ")");
}

TEST_P(ExampleModels, MatchesInterpreter) {
  std::string path = std::string(GNNC_SOURCE_DIR) + "/examples/" + GetParam();
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  std::string source = smallData(text.str());
  ASSERT_NE(source, text.str()) << "no data clause replaced in " << path;
  std::string id = GetParam();
  id = id.substr(0, id.find('.'));
  // Adam divides each gradient by its running RMS, so on a 16-layer model a
  // gradient near zero turns fp32 rounding (relative 1e-5 after 16 layers)
  // into an update error of the order of lr. The backend's arithmetic is
  // what is checked, so the deep model steps with SGD, whose update error
  // is lr times the gradient's.
  // GIN's linear layers feed batch_norm, which cancels their biases: their
  // exact gradient is zero, and Adam would scale fp32 noise up to lr.
  if (id == "cora_deep_gcn" || id == "synthetic_gin")
    source = std::regex_replace(source, std::regex(R"(adam\([^)]*\))"),
                                "sgd(lr = 0.001)");
  // Those zero-gradient biases come out as fp32 noise of ~1e-11 against an
  // exact ~1e-19: no relative bound holds for a value that is exactly 0,
  // so an absolute floor far below any meaningful value is allowed.
  atol = 1e-9;
  std::smatch model;
  ASSERT_TRUE(
      std::regex_search(source, model, std::regex(R"((^|\n)train\s+(\w+))")));
  const std::string modelName = model[2];
  build(id, source);
  ASSERT_FALSE(HasFatalFailure());
  setUpInputs(modelName);
  ASSERT_FALSE(HasFatalFailure());
  trainAndPredict();
}

const std::vector<std::string> kExamples = {
    "citeseer_gat.gnn", "citeseer_gcn.gnn", "cora_deep_gcn.gnn",
    "cora_gat.gnn",     "cora_gcn.gnn",     "cora_sage.gnn",
    "facebook_gcn.gnn", "synthetic_gin.gnn"};

// A new example must join the list above.
TEST(ExampleList, CoversEveryExample) {
  EXPECT_EQ(gnnc::test::shippedExamples(GNNC_SOURCE_DIR), kExamples);
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleModels,
                         ::testing::ValuesIn(kExamples),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

} // namespace
