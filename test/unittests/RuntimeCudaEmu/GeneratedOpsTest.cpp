//===- GeneratedOpsTest.cpp - Generated op kernels against the CPU's ------===//
//
// The CUDA target's generated reductions, edge softmax, loss and optimizer
// kernels (compiler/Target/CUDA/OpKernels.cpp), run on the emulator, against
// the CPU kernels of the same ops on the same inputs, byte for byte. The
// same file builds GnncRuntimeCudaGeneratedTests against the real library
// (GNNC_GENERATED_OPS_ON_DEVICE): on a GPU it runs the kernels there (the
// warp shuffles included) and allows for the GPU's exp and log; without
// one it skips. The inputs
// are chosen so that another summation order gives other bits even after
// the sums are rounded to float (huge terms that cancel next to small
// ones); each test checks that this is so, so a generated kernel that adds
// in another order than the CPU's fails here, where whole training runs
// (run-cuda-emulated.test) may round the difference away.
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/CUDA/Kernels.h"
#include "passes/Pipeline/Pipeline.h"

#include "common/KernelCommon.h"
#include "gnnrt/Cuda.h"
#include "gnnrt/Kernels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace mlir;

namespace {

constexpr int64_t kRows = 5000, kCols = 6;
constexpr int64_t kNodes = 700, kHeads = 3;

/// Floats whose sums depend on their order, after rounding to float too:
/// mostly small values, with +-2^60 pairs that cancel, so a double sum
/// loses the small terms added while a huge one is pending.
std::vector<float> orderSensitive(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> small(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = small(rng);
  for (size_t i = 0; i + 600 < n; i += 997) {
    v[i] = 0x1p60f;
    v[i + 600] = -0x1p60f;
  }
  return v;
}

class GeneratedOps : public ::testing::Test {
protected:
  void SetUp() override {
    gnn::loadGnncDialects(context);
    char error[256] = "";
    ctx = gnnrt_cuda_open(-1, error, sizeof error);
#ifdef GNNC_GENERATED_OPS_ON_DEVICE
    if (!ctx)
      GTEST_SKIP() << "needs a CUDA device: " << error;
#endif
    ASSERT_NE(ctx, nullptr) << error;
    gnnrt_cuda_device_info info;
    ASSERT_EQ(gnnrt_cuda_info(ctx, &info), GNNRT_OK);
    emulated = std::strstr(info.name, "emulator") != nullptr;
    gnnrt_cuda_set_current(ctx);
    buildGraph();
  }
  void TearDown() override {
    if (!ctx)
      return;
    gnnrt_cuda_set_current(nullptr);
    gnnrt_cuda_close(ctx);
  }

  /// A graph with a hub: node 0 receives an edge from every node, the
  /// others a few each; CSR by destination, slots in edge order.
  void buildGraph() {
    std::mt19937 rng(7);
    std::vector<std::vector<int32_t>> in(kNodes);
    std::vector<int32_t> src;
    for (int32_t j = 0; j < kNodes; ++j) {
      in[0].push_back(static_cast<int32_t>(src.size()));
      src.push_back(j);
    }
    for (int32_t i = 1; i < kNodes; ++i)
      for (int k = 0; k < 1 + static_cast<int>(rng() % 5); ++k) {
        in[i].push_back(static_cast<int32_t>(src.size()));
        src.push_back(static_cast<int32_t>(rng() % kNodes));
      }
    edges = static_cast<int64_t>(src.size());
    indptr.assign(1, 0);
    for (auto &row : in) {
      for (int32_t e : row) {
        slotSrc.push_back(src[e]);
        slotId.push_back(e);
      }
      indptr.push_back(static_cast<int32_t>(slotId.size()));
    }
    graph.num_nodes = hostGraph.num_nodes = kNodes;
    graph.num_edges = hostGraph.num_edges = edges;
    graph.in = {device(indptr), device(slotSrc), device(slotId)};
    graph.out = hostGraph.out = {nullptr, nullptr, nullptr};
    hostGraph.in = {indptr.data(), slotSrc.data(), slotId.data()};
  }

  /// A device copy of \p host.
  template <typename T> T *device(const std::vector<T> &host) {
    void *p = nullptr;
    EXPECT_EQ(gnnrt_cuda_malloc(ctx, sizeof(T) * (host.size() + 1), &p),
              GNNRT_OK);
    if (!host.empty()) {
      EXPECT_EQ(gnnrt_cuda_copy(ctx, p, host.data(), sizeof(T) * host.size()),
                GNNRT_OK);
    }
    return static_cast<T *>(p);
  }
  float *deviceFloats(size_t n) { return device(std::vector<float>(n, 0.0f)); }
  /// A host copy of \p n floats at \p p (after the kernels before it).
  std::vector<float> fetch(const float *p, size_t n) {
    std::vector<float> host(n);
    EXPECT_EQ(gnnrt_cuda_copy(ctx, host.data(), p, sizeof(float) * n),
              GNNRT_OK);
    return host;
  }
  /// Whether the \p n floats at \p p are \p want's bits.
  bool same(const float *p, const float *want, size_t n) {
    return std::memcmp(fetch(p, n).data(), want, n * sizeof(float)) == 0;
  }
  /// For kernels with exp, expf or log: \p want's bits in the emulator
  /// (the host's math library on both sides); on a GPU, whose math library
  /// rounds those within 2 ulp of glibc's, each element within 1e-5 of the
  /// largest |want| (a softmax gradient subtracts nearly equal terms).
  ::testing::AssertionResult close(const float *p, const float *want,
                                   size_t n) {
    if (emulated)
      return same(p, want, n) ? ::testing::AssertionSuccess()
                              : ::testing::AssertionFailure() << "bits differ";
    std::vector<float> got = fetch(p, n);
    double scale = 0;
    for (size_t i = 0; i < n; ++i)
      scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
    for (size_t i = 0; i < n; ++i)
      if (!(std::fabs(static_cast<double>(got[i]) - want[i]) <= 1e-5 * scale))
        return ::testing::AssertionFailure()
               << "element " << i << ": " << got[i] << " vs " << want[i];
    return ::testing::AssertionSuccess();
  }

  /// The function @f of \p body's ops over the arguments of SetUp's sizes.
  /// The function @f of \p source.
  func::FuncOp parseFunction(const std::string &source) {
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << source;
    return module ? cast<func::FuncOp>(module->getBody()->front())
                  : func::FuncOp();
  }
  func::FuncOp parse(const std::string &body) {
    std::string source = llvm::formatv(
        "func.func @f(%g: !gnn.graph<{0}x{1}>, %x: tensor<{2}x{3}xf32>, "
        "%s: tensor<{1}x{4}xf32>, %dy: tensor<{1}x{4}xf32>, "
        "%y: tensor<{2}xi32>, %m: tensor<{2}xi1>, %one: tensor<f32>, "
        "%b: tensor<{3}xf32>) {{\n"
        "{5}  return\n}\n",
        kNodes, edges, kRows, kCols, kHeads, body);
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << source;
    return module ? cast<func::FuncOp>(module->getBody()->front())
                  : func::FuncOp();
  }
  Value arg(func::FuncOp f, unsigned i) { return f.getArgument(i); }

  /// Runs the generated kernels of \p op on the emulator, with the runs
  /// \p prologue and \p epilogue fused into them (storing the values
  /// \p stored); \p pointers gives each tensor value's device memory.
  void run(Operation *op, const llvm::DenseMap<Value, void *> &pointers,
           ArrayRef<Operation *> prologue = {},
           ArrayRef<Operation *> epilogue = {}, ArrayRef<Value> stored = {}) {
    auto unit = std::make_unique<gnn::cuda::KernelUnit>();
    FailureOr<gnn::cuda::GeneratedOp> generated =
        unit->generate(op, prologue, epilogue,
                       [&](Value v) { return llvm::is_contained(stored, v); });
    ASSERT_TRUE(succeeded(generated));
    launch(*unit, *generated, pointers);
  }

  /// Launches \p generated, whose kernels \p unit holds, on the emulator.
  void launch(const gnn::cuda::KernelUnit &unit,
              const gnn::cuda::GeneratedOp &generated,
              const llvm::DenseMap<Value, void *> &pointers) {
    sources.push_back(std::make_unique<std::string>(unit.source()));
    // A new address per unit: the emulator caches units by address.
    tables.push_back(std::make_unique<gnnrt_cuda_kernels>());
    gnnrt_cuda_kernels *table = tables.back().get();
    table->name = "GeneratedOpsTest";
    table->source = sources.back()->c_str();
    char *scratch = nullptr;
    if (generated.scratchBytes > 0) {
      ASSERT_EQ(gnnrt_cuda_scratch(ctx, generated.scratchBytes,
                                   reinterpret_cast<void **>(&scratch)),
                GNNRT_OK);
    }
    for (const gnn::cuda::KernelStep &step : generated.steps) {
      std::vector<void *> values;
      for (const gnn::cuda::KernelArg &a : step.args) {
        switch (a.kind) {
        case gnn::cuda::KernelArg::Kind::Tensor:
          ASSERT_TRUE(pointers.count(a.value));
          values.push_back(pointers.lookup(a.value));
          break;
        case gnn::cuda::KernelArg::Kind::Indptr:
          values.push_back(const_cast<int32_t *>(graph.in.indptr));
          break;
        case gnn::cuda::KernelArg::Kind::EdgeId:
          values.push_back(const_cast<int32_t *>(graph.in.edge_id));
          break;
        case gnn::cuda::KernelArg::Kind::Scratch:
          values.push_back(scratch + a.offset);
          break;
        case gnn::cuda::KernelArg::Kind::BiasCorrection:
          // What the host code computes (1 - pow(base, step)), in a
          // double that outlives the launch.
          ASSERT_TRUE(steps.count(a.value));
          doubles.push_back(std::make_unique<double>(
              1.0 -
              std::pow(a.base, static_cast<double>(steps.lookup(a.value)))));
          values.push_back(doubles.back().get());
          break;
        case gnn::cuda::KernelArg::Kind::KeySeed:
        case gnn::cuda::KernelArg::Kind::KeyStep:
        case gnn::cuda::KernelArg::Kind::Literal:
          FAIL() << "op kernels take no dropout key or literal";
        }
      }
      std::vector<void *> params;
      for (auto [v, a] : llvm::zip(values, step.args))
        params.push_back(a.kind == gnn::cuda::KernelArg::Kind::BiasCorrection
                             ? v    // the double itself
                             : &v); // the pointer's address

      ASSERT_EQ(gnnrt_cuda_launch(ctx, table, step.kernel.c_str(), step.items,
                                  params.data()),
                GNNRT_OK)
          << gnnrt_cuda_last_error() << "\n"
          << *sources.back();
    }
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  gnnrt_cuda *ctx = nullptr;
  int64_t edges = 0;
  std::vector<int32_t> indptr, slotSrc, slotId;
  gnnrt_graph graph{};
  std::vector<std::unique_ptr<std::string>> sources;
  /// The Adam step of each step operand (BiasCorrection arguments).
  llvm::DenseMap<Value, int64_t> steps;
  std::vector<std::unique_ptr<double>> doubles;
  std::vector<std::unique_ptr<gnnrt_cuda_kernels>> tables;
  /// The emulator (the CPU's math library): every result must be the CPU
  /// kernel's bits. On a GPU, `close` allows for its exp and log.
  bool emulated = true;
  /// The same graph in host memory, for the CPU kernels.
  gnnrt_graph hostGraph{};
};

TEST_F(GeneratedOps, ReductionsGiveTheCpuKernelsBits) {
  func::FuncOp f =
      parse("  %0 = gnn.reduce sum %x {dim = 0 : i64} : tensor<5000x6xf32> -> "
            "tensor<6xf32>\n"
            "  %1 = gnn.reduce mean %x {dim = 0 : i64} : tensor<5000x6xf32> -> "
            "tensor<6xf32>\n"
            "  %2 = gnn.reduce max %x {dim = 0 : i64} : tensor<5000x6xf32> -> "
            "tensor<6xf32>\n"
            "  %3 = gnn.reduce sum %x {dim = 1 : i64} : tensor<5000x6xf32> -> "
            "tensor<5000xf32>\n"
            "  %4 = gnn.reduce mean %x {dim = 1 : i64} : tensor<5000x6xf32> -> "
            "tensor<5000xf32>\n"
            "  %5 = gnn.reduce max %x {dim = 1 : i64} : tensor<5000x6xf32> -> "
            "tensor<5000xf32>\n");
  ASSERT_TRUE(f);
  // Column c's huge pairs sit 600 rows (several blocks) apart.
  const std::vector<float> host = orderSensitive(kRows * kCols, 1);
  float *x = device(host);
  const int kinds[] = {GNNRT_REDUCE_SUM, GNNRT_REDUCE_MEAN, GNNRT_REDUCE_MAX};
  int index = 0;
  for (Operation &op : f.getBody().front().without_terminator()) {
    const int dim = index / 3, kind = kinds[index % 3];
    ++index;
    const int64_t n = dim == 0 ? kCols : kRows;
    float *got = deviceFloats(n);
    std::vector<float> want(n);
    ASSERT_EQ(
        gnnrt_cpu_reduce(kind, host.data(), kRows, kCols, dim, want.data()),
        GNNRT_OK);
    run(&op, {{arg(f, 1), x}, {op.getResult(0), got}});
    EXPECT_TRUE(same(got, want.data(), n))
        << "reduce kind " << kind << " dim " << dim;
  }
  // The data tells orders apart: the column sums taken in one pass, row
  // after row, differ from the CPU's blocked ones.
  std::vector<float> blocked(kCols);
  ASSERT_EQ(gnnrt_cpu_reduce(GNNRT_REDUCE_SUM, host.data(), kRows, kCols, 0,
                             blocked.data()),
            GNNRT_OK);
  int differing = 0;
  for (int64_t c = 0; c < kCols; ++c) {
    double sum = 0;
    for (int64_t r = 0; r < kRows; ++r)
      sum += host[r * kCols + c];
    differing += static_cast<float>(sum) != blocked[c];
  }
  EXPECT_GT(differing, 0);
}

TEST_F(GeneratedOps, EdgeSoftmaxAndItsGradientGiveTheCpuKernelsBits) {
  std::string type = "tensor<" + std::to_string(edges) + "x3xf32>";
  std::string gtype = "!gnn.graph<700x" + std::to_string(edges) + ">";
  func::FuncOp f =
      parse("  %0 = gnn.edge_softmax %g, %s : (" + gtype + ", " + type +
            ") -> " + type + "\n  %1 = gnn.edge_softmax_grad %g, %0, %dy : (" +
            gtype + ", " + type + ", " + type + ") -> " + type + "\n");
  ASSERT_TRUE(f);
  // Scores up to 30 apart in a row: exp spans many binades, so the float
  // sum of the hub's 700 terms depends on their order.
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> score(-15.0f, 15.0f);
  std::vector<float> s(edges * kHeads), dy(edges * kHeads);
  for (float &v : s)
    v = score(rng);
  dy = orderSensitive(edges * kHeads, 5);
  float *ds = device(s), *ddy = device(dy);
  float *y = deviceFloats(edges * kHeads), *dx = deviceFloats(edges * kHeads);
  auto ops = f.getBody().front().without_terminator();
  Operation *softmax = &*ops.begin(), *grad = &*std::next(ops.begin());
  run(softmax, {{arg(f, 2), ds}, {softmax->getResult(0), y}});
  std::vector<float> want(edges * kHeads), wantDx(edges * kHeads);
  ASSERT_EQ(gnnrt_cpu_edge_softmax(&hostGraph, s.data(), kHeads, want.data()),
            GNNRT_OK);
  EXPECT_TRUE(close(y, want.data(), want.size()));
  run(grad,
      {{softmax->getResult(0), y}, {arg(f, 3), ddy}, {grad->getResult(0), dx}});
  ASSERT_EQ(gnnrt_cpu_edge_softmax_grad(&hostGraph, want.data(), dy.data(),
                                        kHeads, wantDx.data()),
            GNNRT_OK);
  EXPECT_TRUE(close(dx, wantDx.data(), wantDx.size()));
  // The data tells orders apart: the hub's softmax sum of head 0 in
  // 32 lanes (the CPU's and a warp's order, KernelCommon.h) differs from
  // the same terms added one after another.
  float serial = 0.0f, lanes[gnnrt::kernel::kEdgeLanes] = {};
  float m = -INFINITY;
  for (int32_t k = indptr[0]; k < indptr[1]; ++k)
    m = std::max(m, s[slotId[k] * kHeads]);
  for (int32_t k = indptr[0]; k < indptr[1]; ++k) {
    const float ev = std::exp(s[slotId[k] * kHeads] - m);
    serial += ev;
    lanes[(k - indptr[0]) % gnnrt::kernel::kEdgeLanes] += ev;
  }
  EXPECT_NE(serial, gnnrt::kernel::laneButterflySum(lanes));
}

// Without class weights and with balanced ones (scikit-learn's n / (C n_c),
// whose counts the generated kernels take per block and class).
TEST_F(GeneratedOps, LossAndItsGradientGiveTheCpuKernelsBits) {
  for (bool balanced : {false, true}) {
    const std::string options =
        balanced ? "{class_weights = #train<class_weights balanced>, "
                   "label_smoothing = 0.1 : f64}"
                 : "{label_smoothing = 0.1 : f64}";
    func::FuncOp f =
        parse("  %0 = train.cross_entropy %x, %y, %m " + options +
              " : (tensor<5000x6xf32>, tensor<5000xi32>, tensor<5000xi1>) -> "
              "tensor<f32>\n"
              "  %1 = train.cross_entropy_grad %x, %y, %m, %one " +
              options +
              " : (tensor<5000x6xf32>, tensor<5000xi32>, tensor<5000xi1>, "
              "tensor<f32>) -> tensor<5000x6xf32>\n");
    ASSERT_TRUE(f);
    // Logits far apart give per-row losses from 0 to ~1e3, so the loss's
    // sum depends on its order; some rows are masked out or unlabelled, and
    // the classes are uneven (class 5 rare), so balanced weights differ.
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> logit(-1.0f, 1.0f);
    std::vector<float> x(kRows * kCols);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = logit(rng) * (i % 7 == 0 ? 900.0f : 1.0f);
    std::vector<int32_t> labels(kRows);
    std::vector<uint8_t> mask(kRows);
    for (int64_t i = 0; i < kRows; ++i) {
      const int32_t y = static_cast<int32_t>(rng() % kCols);
      labels[i] = i % 13 == 0 ? -1 : y == 5 && i % 4 ? 1 : y;
      mask[i] = i % 5 != 0;
    }
    const std::vector<float> one = {0.75f};
    float *dx = device(x), *done = device(one);
    int32_t *dlabels = device(labels);
    uint8_t *dmask = device(mask);
    float *loss = deviceFloats(1), *grad = deviceFloats(kRows * kCols);
    auto ops = f.getBody().front().without_terminator();
    Operation *forward = &*ops.begin(), *backward = &*std::next(ops.begin());
    ASSERT_TRUE(gnn::cuda::KernelUnit::generates(forward, nullptr));
    ASSERT_TRUE(gnn::cuda::KernelUnit::generates(backward, forward));
    EXPECT_FALSE(gnn::cuda::KernelUnit::generates(backward, nullptr));
    llvm::DenseMap<Value, void *> pointers = {{arg(f, 1), dx},
                                              {arg(f, 4), dlabels},
                                              {arg(f, 5), dmask},
                                              {arg(f, 6), done},
                                              {forward->getResult(0), loss},
                                              {backward->getResult(0), grad}};
    run(forward, pointers);
    run(backward, pointers);
    const int weights =
        balanced ? GNNRT_CLASS_WEIGHTS_BALANCED : GNNRT_CLASS_WEIGHTS_NONE;
    float want = 0.0f;
    std::vector<float> wantGrad(kRows * kCols);
    ASSERT_EQ(gnnrt_cpu_cross_entropy(x.data(), labels.data(), mask.data(),
                                      kRows, kCols, 0.1, weights, &want),
              GNNRT_OK);
    ASSERT_EQ(gnnrt_cpu_cross_entropy_grad(x.data(), labels.data(), mask.data(),
                                           one.data(), kRows, kCols, 0.1,
                                           weights, wantGrad.data()),
              GNNRT_OK);
    EXPECT_TRUE(close(loss, &want, 1)) << (balanced ? "balanced" : "none");
    EXPECT_TRUE(close(grad, wantGrad.data(), wantGrad.size()))
        << (balanced ? "balanced" : "none");
    if (balanced) {
      // The weights matter here: the loss without them is another number.
      float unweighted = 0.0f;
      ASSERT_EQ(gnnrt_cpu_cross_entropy(x.data(), labels.data(), mask.data(),
                                        kRows, kCols, 0.1,
                                        GNNRT_CLASS_WEIGHTS_NONE, &unweighted),
                GNNRT_OK);
      EXPECT_NE(unweighted, want);
    }
  }
}

TEST_F(GeneratedOps, RunsFusedIntoOpKernelsGiveTheCpuKernelsBits) {
  std::string type = "tensor<" + std::to_string(edges) + "x3xf32>";
  std::string gtype = "!gnn.graph<700x" + std::to_string(edges) + ">";
  func::FuncOp f = parse(
      "  %0 = gnn.activation leaky_relu %s {slope = 2.0e-01 : f64} : " + type +
      "\n  %1 = gnn.edge_softmax %g, %0 : (" + gtype + ", " + type + ") -> " +
      type + "\n  %2 = gnn.edge_softmax_grad %g, %1, %dy : (" + gtype + ", " +
      type + ", " + type + ") -> " + type +
      "\n  %3 = gnn.activation_grad leaky_relu %s, %2 {slope = 2.0e-01 : f64} "
      ": " +
      type +
      "\n  %4 = gnn.bias_add %x, %b : (tensor<5000x6xf32>, tensor<6xf32>) -> "
      "tensor<5000x6xf32>\n"
      "  %5 = gnn.reduce sum %4 {dim = 0 : i64} : tensor<5000x6xf32> -> "
      "tensor<6xf32>\n");
  ASSERT_TRUE(f);
  SmallVector<Operation *> ops;
  for (Operation &op : f.getBody().front().without_terminator())
    ops.push_back(&op);
  // Scores where leaky_relu's slope matters (half negative) and the
  // order-sensitive gradient and columns of the other tests.
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> score(-15.0f, 15.0f);
  std::vector<float> s(edges * kHeads);
  for (float &v : s)
    v = score(rng);
  const std::vector<float> dy = orderSensitive(edges * kHeads, 17);
  const std::vector<float> x = orderSensitive(kRows * kCols, 19);
  const std::vector<float> b = {0.5f, -0.25f, 1e-3f, 3.0f, -7.0f, 0x1p40f};
  float *ds = device(s), *ddy = device(dy), *dxs = device(x), *db = device(b);
  float *y = deviceFloats(edges * kHeads), *dx = deviceFloats(edges * kHeads);
  float *dscore = deviceFloats(edges * kHeads), *sums = deviceFloats(kCols);
  llvm::DenseMap<Value, void *> pointers = {{arg(f, 1), dxs},
                                            {arg(f, 2), ds},
                                            {arg(f, 3), ddy},
                                            {arg(f, 7), db},
                                            {ops[1]->getResult(0), y},
                                            {ops[2]->getResult(0), dx},
                                            {ops[3]->getResult(0), dscore},
                                            {ops[5]->getResult(0), sums}};
  run(ops[1], pointers, {ops[0]});
  run(ops[2], pointers, {}, {ops[3]}, {ops[3]->getResult(0)});
  run(ops[5], pointers, {ops[4]});

  // The CPU kernels one after another, every intermediate stored.
  const size_t n = s.size();
  std::vector<float> act(n), want(n), grad(n), wantScore(n);
  ASSERT_EQ(
      gnnrt_cpu_activation(GNNRT_ACT_LEAKY_RELU, s.data(), n, 0.2, act.data()),
      GNNRT_OK);
  ASSERT_EQ(gnnrt_cpu_edge_softmax(&hostGraph, act.data(), kHeads, want.data()),
            GNNRT_OK);
  ASSERT_EQ(gnnrt_cpu_edge_softmax_grad(&hostGraph, want.data(), dy.data(),
                                        kHeads, grad.data()),
            GNNRT_OK);
  ASSERT_EQ(gnnrt_cpu_activation_grad(GNNRT_ACT_LEAKY_RELU, s.data(),
                                      grad.data(), n, 0.2, wantScore.data()),
            GNNRT_OK);
  std::vector<float> biased(x.size()), wantSums(kCols);
  ASSERT_EQ(gnnrt_cpu_bias_add(x.data(), b.data(), kRows, kCols, biased.data()),
            GNNRT_OK);
  ASSERT_EQ(gnnrt_cpu_reduce(GNNRT_REDUCE_SUM, biased.data(), kRows, kCols, 0,
                             wantSums.data()),
            GNNRT_OK);
  EXPECT_TRUE(close(y, want.data(), n));
  EXPECT_TRUE(close(dscore, wantScore.data(), n));
  EXPECT_TRUE(same(sums, wantSums.data(), kCols));
  // The softmax gradient itself is not stored: only the epilogue reads it.
  const std::vector<float> unstored = fetch(dx, n);
  EXPECT_TRUE(std::all_of(unstored.begin(), unstored.end(),
                          [](float v) { return v == 0.0f; }));
}

// Adam over several parameters in one launch (what the CUDA target makes
// of adjacent train.adam ops), L2 and decoupled weight decay, against
// gnnrt_cpu_adam on each parameter: the same bits.
TEST_F(GeneratedOps, OneAdamLaunchUpdatesEveryParameterAsTheCpu) {
  for (bool decoupled : {false, true}) {
    const int64_t sizes[] = {1433 * 16, 16, 7, 1};
    std::string source = "func.func @f(%step: i64";
    for (int k = 0; k < 4; ++k)
      for (const char *role : {"p", "g", "m", "v"})
        source += llvm::formatv(", %{0}{1}: tensor<{2}xf32>", role, k, sizes[k])
                      .str();
    source += ") {\n";
    for (int k = 0; k < 4; ++k)
      source += llvm::formatv("  %r{0}:3 = train.adam %p{0}, %g{0}, %m{0}, "
                              "%v{0}, %step {{beta1 = 9.0e-01 : f64, beta2 = "
                              "9.99e-01 : f64, eps = 1.0e-08 : f64, lr = "
                              "1.0e-02 : f64, weight_decay = 5.0e-04 : f64{1}}"
                              " : tensor<{2}xf32>\n",
                              k, decoupled ? ", decoupled" : "", sizes[k])
                    .str();
    source += "  return\n}\n";
    func::FuncOp f = parseFunction(source);
    ASSERT_TRUE(f);
    SmallVector<SmallVector<Operation *>> groups =
        gnn::cuda::KernelUnit::optimizerGroups(f.getBody().front());
    ASSERT_EQ(groups.size(), 1u);
    ASSERT_EQ(groups[0].size(), 4u);
    const int64_t step = 7;
    steps[arg(f, 0)] = step;
    llvm::DenseMap<Value, void *> pointers;
    std::vector<std::vector<float>> host(16);
    std::vector<float *> outs;
    for (int k = 0; k < 4; ++k) {
      for (int r = 0; r < 4; ++r) {
        host[4 * k + r] = orderSensitive(sizes[k], 31 + 4 * k + r);
        if (r == 3) // v >= 0
          for (float &x : host[4 * k + r])
            x = x * x;
        pointers[arg(f, 1 + 4 * k + r)] = device(host[4 * k + r]);
      }
      for (int r = 0; r < 3; ++r) {
        outs.push_back(deviceFloats(sizes[k]));
        pointers[groups[0][k]->getResult(r)] = outs.back();
      }
    }
    gnn::cuda::KernelUnit unit;
    FailureOr<gnn::cuda::GeneratedOp> generated =
        unit.fusedOptimizer(groups[0]);
    ASSERT_TRUE(succeeded(generated));
    ASSERT_EQ(generated->steps.size(), 1u);
    launch(unit, *generated, pointers);
    for (int k = 0; k < 4; ++k) {
      std::vector<float> p(sizes[k]), m(sizes[k]), v(sizes[k]);
      ASSERT_EQ(gnnrt_cpu_adam(host[4 * k].data(), host[4 * k + 1].data(),
                               host[4 * k + 2].data(), host[4 * k + 3].data(),
                               sizes[k], step, 0.01, 0.9, 0.999, 1e-8, 5e-4,
                               decoupled, p.data(), m.data(), v.data()),
                GNNRT_OK);
      EXPECT_TRUE(same(outs[3 * k], p.data(), sizes[k]))
          << "parameter " << k << (decoupled ? " (decoupled)" : "");
      EXPECT_TRUE(same(outs[3 * k + 1], m.data(), sizes[k]));
      EXPECT_TRUE(same(outs[3 * k + 2], v.data(), sizes[k]));
    }
    steps.clear();
  }
}

// SGD likewise: without momentum, with it, and Nesterov's, against
// gnnrt_cpu_sgd on each parameter.
TEST_F(GeneratedOps, OneSgdLaunchUpdatesEveryParameterAsTheCpu) {
  struct Variant {
    double momentum;
    bool nesterov;
  };
  for (Variant variant :
       {Variant{0.0, false}, Variant{0.9, false}, Variant{0.9, true}}) {
    const bool buffered = variant.momentum > 0;
    const int64_t sizes[] = {333, 5, 64};
    std::string source = "func.func @f(";
    for (int k = 0; k < 3; ++k)
      for (const char *role : {"p", "g", "b"})
        source +=
            llvm::formatv("{0}%{1}{2}: tensor<{3}xf32>",
                          k || *role != 'p' ? ", " : "", role, k, sizes[k])
                .str();
    source += ") {\n";
    for (int k = 0; k < 3; ++k)
      source +=
          llvm::formatv(
              "  %r{0}:{1} = train.sgd %p{0}, %g{0}{2} {{lr = 0.1 : f64, "
              "momentum = {3} : f64, weight_decay = 1.0e-03 : f64{4}} : "
              "({5}) -> ({6})\n",
              k, buffered ? 2 : 1,
              buffered ? ", %b" + std::to_string(k) : std::string(),
              variant.momentum, variant.nesterov ? ", nesterov" : "",
              buffered
                  ? "tensor<" + std::to_string(sizes[k]) + "xf32>, tensor<" +
                        std::to_string(sizes[k]) + "xf32>, tensor<" +
                        std::to_string(sizes[k]) + "xf32>"
                  : "tensor<" + std::to_string(sizes[k]) + "xf32>, tensor<" +
                        std::to_string(sizes[k]) + "xf32>",
              buffered
                  ? "tensor<" + std::to_string(sizes[k]) + "xf32>, tensor<" +
                        std::to_string(sizes[k]) + "xf32>"
                  : "tensor<" + std::to_string(sizes[k]) + "xf32>")
              .str();
    source += "  return\n}\n";
    func::FuncOp f = parseFunction(source);
    ASSERT_TRUE(f);
    SmallVector<SmallVector<Operation *>> groups =
        gnn::cuda::KernelUnit::optimizerGroups(f.getBody().front());
    ASSERT_EQ(groups.size(), 1u);
    ASSERT_EQ(groups[0].size(), 3u);
    llvm::DenseMap<Value, void *> pointers;
    std::vector<std::vector<float>> host(9);
    std::vector<float *> outs;
    for (int k = 0; k < 3; ++k) {
      for (int r = 0; r < 3; ++r) {
        host[3 * k + r] = orderSensitive(sizes[k], 61 + 3 * k + r);
        pointers[arg(f, 3 * k + r)] = device(host[3 * k + r]);
      }
      for (Value result : groups[0][k]->getResults()) {
        outs.push_back(deviceFloats(sizes[k]));
        pointers[result] = outs.back();
      }
    }
    gnn::cuda::KernelUnit unit;
    FailureOr<gnn::cuda::GeneratedOp> generated =
        unit.fusedOptimizer(groups[0]);
    ASSERT_TRUE(succeeded(generated));
    launch(unit, *generated, pointers);
    const int results = buffered ? 2 : 1;
    for (int k = 0; k < 3; ++k) {
      std::vector<float> p(sizes[k]), b(sizes[k]);
      ASSERT_EQ(gnnrt_cpu_sgd(host[3 * k].data(), host[3 * k + 1].data(),
                              buffered ? host[3 * k + 2].data() : nullptr,
                              sizes[k], 0.1, variant.momentum, 1e-3,
                              variant.nesterov, p.data(),
                              buffered ? b.data() : nullptr),
                GNNRT_OK);
      EXPECT_TRUE(same(outs[results * k], p.data(), sizes[k]))
          << "parameter " << k << " momentum " << variant.momentum;
      if (buffered) {
        EXPECT_TRUE(same(outs[results * k + 1], b.data(), sizes[k]));
      }
    }
  }
}

TEST_F(GeneratedOps, AnOutOfRangeLabelGivesNaNNotGarbage) {
  func::FuncOp f = parse(
      "  %0 = train.cross_entropy %x, %y, %m : (tensor<5000x6xf32>, "
      "tensor<5000xi32>, tensor<5000xi1>) -> tensor<f32>\n"
      "  %1 = train.cross_entropy_grad %x, %y, %m, %one : "
      "(tensor<5000x6xf32>, tensor<5000xi32>, tensor<5000xi1>, tensor<f32>) "
      "-> tensor<5000x6xf32>\n");
  ASSERT_TRUE(f);
  std::vector<int32_t> labels(kRows, 1);
  labels[4321] = kCols; // one past the last class
  float *x = device(std::vector<float>(kRows * kCols, 0.5f));
  float *one = device(std::vector<float>{1.0f});
  float *loss = deviceFloats(1), *grad = deviceFloats(kRows * kCols);
  auto ops = f.getBody().front().without_terminator();
  Operation *forward = &*ops.begin(), *backward = &*std::next(ops.begin());
  llvm::DenseMap<Value, void *> pointers = {
      {arg(f, 1), x},
      {arg(f, 4), device(labels)},
      {arg(f, 5), device(std::vector<uint8_t>(kRows, 1))},
      {arg(f, 6), one},
      {forward->getResult(0), loss},
      {backward->getResult(0), grad}};
  run(forward, pointers);
  run(backward, pointers);
  EXPECT_TRUE(std::isnan(fetch(loss, 1)[0]));
  EXPECT_TRUE(std::isnan(fetch(grad, kRows * kCols)[4321 * kCols]));
  // The CPU refuses the call instead.
  float cpu = 0.0f;
  const std::vector<float> logits(kRows * kCols, 0.5f);
  EXPECT_EQ(gnnrt_cpu_cross_entropy(logits.data(), labels.data(), nullptr,
                                    kRows, kCols, 0.0, GNNRT_CLASS_WEIGHTS_NONE,
                                    &cpu),
            GNNRT_ERR_BAD_ARGUMENT);
}

} // namespace
