//===- SemaTest.cpp - Semantic analysis and the CheckedProgram ------------===//
#include "lang/Sema/Sema.h"
#include "lang/AST/AST.h"
#include "lang/Basic/Diagnostics.h"
#include "lang/Parser/Parser.h"
#include "lang/Sema/CheckedProgram.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include <unistd.h>

using namespace gnnc;
using namespace gnnc::sema;

namespace {

SemaOptions testOptions() {
  SemaOptions o;
  o.dataSearchPath = {GNNC_TEST_DATA_DIR};
  return o;
}

/// One source string, parsed and checked.
struct Checked {
  std::string source;
  llvm::SourceMgr sm;
  std::unique_ptr<DiagnosticEngine> diags;
  std::unique_ptr<ast::Program> ast;
  CheckedProgram program;
  bool parsed = false;

  const std::vector<Diagnostic> &diagnostics() const {
    return diags->diagnostics();
  }
  unsigned errors() const { return diags->errorCount(); }
  std::vector<Diagnostic> ofKind(DiagKind kind) const {
    std::vector<Diagnostic> out;
    for (const Diagnostic &d : diagnostics())
      if (d.kind == kind)
        out.push_back(d);
    return out;
  }
  /// The first diagnostic of \p kind whose message contains \p text.
  const Diagnostic *find(DiagKind kind, llvm::StringRef text) const {
    for (const Diagnostic &d : diagnostics())
      if (d.kind == kind && llvm::StringRef(d.message).contains(text))
        return &d;
    return nullptr;
  }
  std::string dump() const {
    std::string s;
    for (const Diagnostic &d : diagnostics()) {
      const char *k = d.kind == DiagKind::Error     ? "error"
                      : d.kind == DiagKind::Warning ? "warning"
                                                    : "note";
      s += std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " +
           k + ": " + d.message + "\n";
    }
    return s;
  }
  /// 1-based line:col of the \p nth occurrence of \p needle in the source.
  Location at(llvm::StringRef needle, unsigned nth = 0) const {
    size_t pos = llvm::StringRef::npos, from = 0;
    for (unsigned i = 0; i <= nth; ++i) {
      pos = llvm::StringRef(source).find(needle, from);
      if (pos == llvm::StringRef::npos)
        return {};
      from = pos + 1;
    }
    Location loc{1, 1};
    for (size_t i = 0; i < pos; ++i) {
      if (source[i] == '\n') {
        ++loc.line;
        loc.col = 1;
      } else {
        ++loc.col;
      }
    }
    return loc;
  }
  const BoundTrain &train(unsigned i = 0) const { return program.trains.at(i); }
};

std::unique_ptr<Checked> check(const std::string &source,
                               const SemaOptions &options = testOptions()) {
  auto c = std::make_unique<Checked>();
  c->source = source;
  unsigned id = c->sm.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, "test.gnn"), llvm::SMLoc());
  c->diags = std::make_unique<DiagnosticEngine>(c->sm, id, nullptr);
  c->ast = parseProgram(*c->diags);
  if (c->diags->hasErrors())
    return c;
  c->parsed = true;
  c->program = checkProgram(*c->ast, *c->diags, options);
  return c;
}

::testing::AssertionResult locIs(Location loc, Location expected) {
  if (!expected.isValid())
    return ::testing::AssertionFailure() << "expected location not found";
  if (loc == expected)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "location is " << loc.line << ":" << loc.col << ", expected "
         << expected.line << ":" << expected.col;
}

/// Asserts exactly one error, at \p where, whose message contains \p text.
::testing::AssertionResult oneError(const Checked &c, Location where,
                                    llvm::StringRef text) {
  auto errors = c.ofKind(DiagKind::Error);
  if (!c.parsed)
    return ::testing::AssertionFailure() << "syntax errors:\n" << c.dump();
  if (errors.size() != 1 || c.errors() != 1)
    return ::testing::AssertionFailure()
           << "expected one error, got " << errors.size() << ":\n"
           << c.dump();
  const Diagnostic &d = errors[0];
  if (!where.isValid())
    return ::testing::AssertionFailure() << "expected location not found";
  if (!(d.loc == where))
    return ::testing::AssertionFailure()
           << "error at " << d.loc.line << ":" << d.loc.col << ", expected "
           << where.line << ":" << where.col << "\n"
           << c.dump();
  if (!llvm::StringRef(d.message).contains(text))
    return ::testing::AssertionFailure()
           << "message '" << d.message << "' lacks '" << text.str() << "'";
  return ::testing::AssertionSuccess();
}

const char *kSettings = "  loss = cross_entropy();\n"
                        "  optimizer = adam(lr = 0.01);\n"
                        "  epochs = 10;\n";

/// `model M { BODY }` trained on DATA with minimal settings plus EXTRA.
std::string program(const std::string &body,
                    const std::string &data = "dataset(\"cora\")",
                    const std::string &extra = "",
                    const std::string &params = "") {
  return "model M(" + params + ") {\n" + body + "}\n" + "train M on " + data +
         " {\n" + kSettings + extra + "}\n";
}

const LayerOp *opNamed(const ModelInstance &m, llvm::StringRef name) {
  for (const LayerOp &op : m.ops)
    if (op.name == name)
      return &op;
  return nullptr;
}

unsigned countKind(const ModelInstance &m, OpKind kind) {
  unsigned n = 0;
  for (const LayerOp &op : m.ops)
    n += op.kind == kind;
  return n;
}

std::vector<std::string> attrNames(const LayerOp &op) {
  std::vector<std::string> names;
  for (const NamedAttr &a : op.attrs)
    names.push_back(a.name);
  return names;
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

TEST(SemaTest, InputIsOpZero) {
  auto c = check(program("  return linear(x, out = classes);\n"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  ASSERT_EQ(c->program.trains.size(), 1u);
  const ModelInstance &m = c->train().model;
  EXPECT_EQ(m.name, "M");
  ASSERT_EQ(m.ops.size(), 2u);
  EXPECT_EQ(m.ops[0].kind, OpKind::Input);
  EXPECT_EQ(m.ops[0].name, "x");
  EXPECT_EQ(m.ops[0].width, 1433) << "cora's features";
  EXPECT_TRUE(m.ops[0].operands.empty());
  EXPECT_EQ(m.ops[1].kind, OpKind::Linear);
  EXPECT_EQ(m.ops[1].name, "linear_0");
  EXPECT_EQ(m.ops[1].operands, std::vector<unsigned>{0});
  EXPECT_EQ(m.ops[1].width, 7) << "cora's classes";
  EXPECT_EQ(m.result, 1u);
  EXPECT_TRUE(locIs(m.ops[1].loc, c->at("linear(")));
  EXPECT_EQ(c->program.filename, "test.gnn");
}

TEST(SemaTest, GcnConvDefaults) {
  auto c = check(program("  h = gcn_conv(x, out = 16);\n"
                         "  return gcn_conv(h, out = classes, bias = false, "
                         "self_loops = false, normalize = false);\n"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const ModelInstance &m = c->train().model;
  const LayerOp *g0 = opNamed(m, "gcn_conv_0");
  const LayerOp *g1 = opNamed(m, "gcn_conv_1");
  ASSERT_NE(g0, nullptr);
  ASSERT_NE(g1, nullptr);
  EXPECT_EQ(g0->kind, OpKind::GcnConv);
  EXPECT_EQ(attrNames(*g0), (std::vector<std::string>{
                                "out", "bias", "self_loops", "normalize"}));
  EXPECT_EQ(g0->getAttr("out")->kind, AttrValue::Kind::Int);
  EXPECT_EQ(g0->getAttr("out")->i, 16);
  EXPECT_EQ(g0->getAttr("bias")->kind, AttrValue::Kind::Bool);
  EXPECT_TRUE(g0->getAttr("bias")->b);
  EXPECT_TRUE(g0->getAttr("self_loops")->b);
  EXPECT_TRUE(g0->getAttr("normalize")->b);
  EXPECT_EQ(g0->getAttr("h"), nullptr) << "tensors are operands, not attrs";
  EXPECT_EQ(g0->width, 16);
  EXPECT_EQ(g0->operands, std::vector<unsigned>{0});

  EXPECT_EQ(g1->getAttr("out")->i, 7);
  EXPECT_FALSE(g1->getAttr("bias")->b);
  EXPECT_FALSE(g1->getAttr("self_loops")->b);
  EXPECT_FALSE(g1->getAttr("normalize")->b);
  EXPECT_EQ(g1->width, 7);
  EXPECT_EQ(g1->operands, std::vector<unsigned>{1});
  EXPECT_EQ(m.result, 2u);
}

TEST(SemaTest, PositionalOperatorArguments) {
  auto c = check(program("  h = gcn_conv(x, 16, false);\n"
                         "  return linear(h, classes);\n"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const LayerOp *g = opNamed(c->train().model, "gcn_conv_0");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->getAttr("out")->i, 16);
  EXPECT_FALSE(g->getAttr("bias")->b);
  EXPECT_TRUE(g->getAttr("self_loops")->b);
}

TEST(SemaTest, SageConv) {
  auto c =
      check(program("  a = sage_conv(x, out = 8);\n"
                    "  b = sage_conv(a, out = 8, aggr = max, "
                    "root_weight = false);\n"
                    "  return sage_conv(b, out = classes, aggr = \"sum\");\n"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const ModelInstance &m = c->train().model;
  const LayerOp *s0 = opNamed(m, "sage_conv_0");
  const LayerOp *s1 = opNamed(m, "sage_conv_1");
  const LayerOp *s2 = opNamed(m, "sage_conv_2");
  ASSERT_TRUE(s0 && s1 && s2);
  EXPECT_EQ(s0->kind, OpKind::SageConv);
  EXPECT_EQ(attrNames(*s0),
            (std::vector<std::string>{"out", "aggr", "root_weight"}));
  EXPECT_EQ(s0->getAttr("aggr")->kind, AttrValue::Kind::String);
  EXPECT_EQ(s0->getAttr("aggr")->s, "mean");
  EXPECT_TRUE(s0->getAttr("root_weight")->b);
  EXPECT_EQ(s0->width, 8);
  EXPECT_EQ(s1->getAttr("aggr")->s, "max");
  EXPECT_FALSE(s1->getAttr("root_weight")->b);
  EXPECT_EQ(s2->getAttr("aggr")->s, "sum");
  EXPECT_EQ(s2->width, 7);

  // PyG's other spelling of summation.
  c = check(program("  return sage_conv(x, out = classes, aggr = add);\n"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(opNamed(c->train().model, "sage_conv_0")->getAttr("aggr")->s,
            "sum");
}

TEST(SemaTest, GatConvConcatWidthIsOutTimesHeads) {
  auto c =
      check(program("  h = gat_conv(x, out = 8, heads = 4);\n"
                    "  h = gat_conv(h, out = 5, heads = 3, concat = false, "
                    "negative_slope = 0.1, attn_dropout = 0.6);\n"
                    "  return gat_conv(h, out = classes);\n"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const ModelInstance &m = c->train().model;
  const LayerOp *g0 = opNamed(m, "gat_conv_0");
  const LayerOp *g1 = opNamed(m, "gat_conv_1");
  const LayerOp *g2 = opNamed(m, "gat_conv_2");
  ASSERT_TRUE(g0 && g1 && g2);
  EXPECT_EQ(g0->kind, OpKind::GatConv);
  EXPECT_EQ(attrNames(*g0),
            (std::vector<std::string>{"out", "heads", "concat",
                                      "negative_slope", "attn_dropout"}));
  EXPECT_EQ(g0->width, 32) << "out * heads when concat";
  EXPECT_EQ(g0->getAttr("heads")->i, 4);
  EXPECT_TRUE(g0->getAttr("concat")->b);
  EXPECT_EQ(g0->getAttr("negative_slope")->kind, AttrValue::Kind::Real);
  EXPECT_EQ(g0->getAttr("negative_slope")->r, 0.2);
  EXPECT_EQ(g0->getAttr("attn_dropout")->r, 0.0);

  EXPECT_EQ(g1->width, 5) << "out when not concat";
  EXPECT_FALSE(g1->getAttr("concat")->b);
  EXPECT_EQ(g1->getAttr("negative_slope")->r, 0.1);
  EXPECT_EQ(g1->getAttr("attn_dropout")->r, 0.6);

  EXPECT_EQ(g2->getAttr("heads")->i, 1) << "default heads";
  EXPECT_EQ(g2->width, 7);
}

TEST(SemaTest, GatConvConcatWidthMustMatchClasses) {
  // heads = 7 with out = 1 concatenates to 7 = classes.
  auto c = check(program("  return gat_conv(x, out = 1, heads = classes);\n"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  auto bad =
      check(program("  return gat_conv(x, out = classes, heads = 2);\n"));
  const Diagnostic *d = bad->find(DiagKind::Error, "returns width 14");
  ASSERT_NE(d, nullptr) << bad->dump();
}

TEST(SemaTest, GraphConvGinConvLinear) {
  auto c = check(program("  a = graph_conv(x, out = 12);\n"
                         "  b = graph_conv(a, out = 12, aggr = mean);\n"
                         "  d = gin_conv(b, out = 10);\n"
                         "  e = gin_conv(d, out = 10, eps = 0.5);\n"
                         "  f = linear(e, out = 9, bias = false);\n"
                         "  return linear(f, out = classes);\n"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const ModelInstance &m = c->train().model;
  const LayerOp *g0 = opNamed(m, "graph_conv_0");
  const LayerOp *g1 = opNamed(m, "graph_conv_1");
  const LayerOp *i0 = opNamed(m, "gin_conv_0");
  const LayerOp *i1 = opNamed(m, "gin_conv_1");
  const LayerOp *l0 = opNamed(m, "linear_0");
  const LayerOp *l1 = opNamed(m, "linear_1");
  ASSERT_TRUE(g0 && g1 && i0 && i1 && l0 && l1);
  EXPECT_EQ(g0->kind, OpKind::GraphConv);
  EXPECT_EQ(attrNames(*g0), (std::vector<std::string>{"out", "aggr"}));
  EXPECT_EQ(g0->getAttr("aggr")->s, "sum")
      << "the default \"add\" is spelled \"sum\" after Sema";
  EXPECT_EQ(g1->getAttr("aggr")->s, "mean");
  EXPECT_EQ(g0->width, 12);
  EXPECT_EQ(i0->kind, OpKind::GinConv);
  EXPECT_EQ(attrNames(*i0), (std::vector<std::string>{"out", "eps"}));
  EXPECT_EQ(i0->getAttr("eps")->kind, AttrValue::Kind::Real);
  EXPECT_EQ(i0->getAttr("eps")->r, 0.0);
  EXPECT_EQ(i1->getAttr("eps")->r, 0.5);
  EXPECT_EQ(i1->width, 10);
  EXPECT_EQ(l0->kind, OpKind::Linear);
  EXPECT_EQ(attrNames(*l0), (std::vector<std::string>{"out", "bias"}));
  EXPECT_FALSE(l0->getAttr("bias")->b);
  EXPECT_TRUE(l1->getAttr("bias")->b);
  EXPECT_EQ(l0->width, 9);
  EXPECT_EQ(l1->operands, std::vector<unsigned>{5});
}

TEST(SemaTest, ElementwiseOpsKeepWidth) {
  auto c = check(program("  h = linear(x, out = 24);\n"
                         "  h = relu(h);\n"
                         "  h = leaky_relu(h);\n"
                         "  h = leaky_relu(h, slope = 0.2);\n"
                         "  h = elu(h);\n"
                         "  h = gelu(h);\n"
                         "  h = sigmoid(h);\n"
                         "  h = tanh(h);\n"
                         "  h = dropout(h);\n"
                         "  h = dropout(h, p = 0.25);\n"
                         "  h = batch_norm(h);\n"
                         "  h = layer_norm(h);\n"
                         "  return linear(h, out = classes);\n"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const ModelInstance &m = c->train().model;
  struct Expect {
    const char *name;
    OpKind kind;
  } expects[] = {
      {"relu_0", OpKind::Relu},
      {"leaky_relu_0", OpKind::LeakyRelu},
      {"leaky_relu_1", OpKind::LeakyRelu},
      {"elu_0", OpKind::Elu},
      {"gelu_0", OpKind::Gelu},
      {"sigmoid_0", OpKind::Sigmoid},
      {"tanh_0", OpKind::Tanh},
      {"dropout_0", OpKind::Dropout},
      {"dropout_1", OpKind::Dropout},
      {"batch_norm_0", OpKind::BatchNorm},
      {"layer_norm_0", OpKind::LayerNorm},
  };
  ASSERT_EQ(m.ops.size(), 14u);
  for (unsigned i = 0; i < 11; ++i) {
    const LayerOp &op = m.ops[i + 2];
    EXPECT_EQ(op.name, expects[i].name);
    EXPECT_EQ(op.kind, expects[i].kind) << expects[i].name;
    EXPECT_EQ(op.width, 24) << expects[i].name;
    EXPECT_EQ(op.operands, std::vector<unsigned>{i + 1}) << expects[i].name;
    EXPECT_EQ(getOpName(op.kind), llvm::StringRef(expects[i].name).drop_back(2))
        << expects[i].name;
  }
  const LayerOp *lr0 = opNamed(m, "leaky_relu_0");
  const LayerOp *lr1 = opNamed(m, "leaky_relu_1");
  EXPECT_EQ(lr0->getAttr("slope")->r, 0.01);
  EXPECT_EQ(lr1->getAttr("slope")->r, 0.2);
  EXPECT_EQ(opNamed(m, "dropout_0")->getAttr("p")->r, 0.5);
  EXPECT_EQ(opNamed(m, "dropout_1")->getAttr("p")->r, 0.25);
  EXPECT_TRUE(opNamed(m, "relu_0")->attrs.empty());
  EXPECT_TRUE(opNamed(m, "batch_norm_0")->attrs.empty());
}

TEST(SemaTest, ConcatSumsWidths) {
  auto c = check(program("  a = linear(x, out = 16);\n"
                         "  b = gat_conv(x, out = 4, heads = 2);\n"
                         "  h = concat(a, b, x);\n"
                         "  return linear(h, out = classes);\n"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const LayerOp *cat = opNamed(c->train().model, "concat_0");
  ASSERT_NE(cat, nullptr);
  EXPECT_EQ(cat->kind, OpKind::Concat);
  EXPECT_EQ(cat->operands, (std::vector<unsigned>{1, 2, 0}));
  EXPECT_EQ(cat->width, 16 + 8 + 1433);
  EXPECT_TRUE(cat->attrs.empty());
}

TEST(SemaTest, SkipConnectionIsAdd) {
  auto c = check(program("  h0 = linear(x, out = 32);\n"
                         "  h1 = relu(gcn_conv(h0, out = 32));\n"
                         "  h = h0 + h1;\n"
                         "  d = h - h0;\n"
                         "  g = d * h1;\n"
                         "  return linear(g, out = classes);\n"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const ModelInstance &m = c->train().model;
  const LayerOp *add = opNamed(m, "add_0");
  const LayerOp *sub = opNamed(m, "sub_0");
  const LayerOp *mul = opNamed(m, "mul_0");
  ASSERT_TRUE(add && sub && mul) << m.ops.size();
  EXPECT_EQ(add->kind, OpKind::Add);
  EXPECT_EQ(add->operands, (std::vector<unsigned>{1, 3}));
  EXPECT_EQ(add->width, 32);
  EXPECT_TRUE(locIs(add->loc, c->at("+"))) << "at the operator";
  EXPECT_EQ(sub->kind, OpKind::Sub);
  EXPECT_EQ(sub->operands, (std::vector<unsigned>{4, 1}));
  EXPECT_EQ(mul->kind, OpKind::Mul);
  EXPECT_EQ(mul->operands, (std::vector<unsigned>{5, 3}));
  EXPECT_EQ(mul->width, 32);
}

TEST(SemaTest, ScaleByNumberAndNegation) {
  auto c = check(program("  h = linear(x, out = classes);\n"
                         "  a = 0.5 * h;\n"
                         "  b = h * 2;\n"
                         "  return -a + b;\n"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const ModelInstance &m = c->train().model;
  ASSERT_EQ(countKind(m, OpKind::Scale), 3u);
  const LayerOp *s0 = opNamed(m, "scale_0");
  const LayerOp *s1 = opNamed(m, "scale_1");
  const LayerOp *s2 = opNamed(m, "scale_2");
  ASSERT_TRUE(s0 && s1 && s2);
  EXPECT_EQ(s0->getAttr("factor")->r, 0.5);
  EXPECT_EQ(s0->width, 7);
  EXPECT_EQ(s1->getAttr("factor")->r, 2.0);
  EXPECT_EQ(s2->getAttr("factor")->r, -1.0) << "unary minus";
  const LayerOp *add = opNamed(m, "add_0");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(m.result, static_cast<unsigned>(add - m.ops.data()));
}

TEST(SemaTest, CompileTimeArithmeticInArguments) {
  auto c = check(program("  h = linear(x, out = 2 * 8 + 4);\n"
                         "  h = dropout(h, p = 1 - 0.75);\n"
                         "  return linear(h, out = classes);\n"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const ModelInstance &m = c->train().model;
  EXPECT_EQ(opNamed(m, "linear_0")->width, 20);
  EXPECT_DOUBLE_EQ(opNamed(m, "dropout_0")->getAttr("p")->r, 0.25);
}

TEST(SemaTest, WidthMismatchInSkipConnection) {
  auto c = check(program("  h = linear(x, out = 16);\n"
                         "  h = h + x;\n"
                         "  return linear(h, out = classes);\n"));
  EXPECT_TRUE(oneError(*c, c->at("+"),
                       "operands of '+' have different widths: 16 and 1433"));
}

TEST(SemaTest, OpKindHelpers) {
  EXPECT_EQ(getOpName(OpKind::Input), "input");
  EXPECT_EQ(getOpName(OpKind::GcnConv), "gcn_conv");
  EXPECT_EQ(getOpName(OpKind::Concat), "concat");
  EXPECT_EQ(getOpName(OpKind::Add), "add");
  EXPECT_EQ(getOpName(OpKind::Scale), "scale");
  EXPECT_TRUE(isGraphOp(OpKind::GatConv));
  EXPECT_TRUE(isGraphOp(OpKind::GinConv));
  EXPECT_FALSE(isGraphOp(OpKind::Linear));
  EXPECT_FALSE(isGraphOp(OpKind::Add));
  EXPECT_TRUE(hasParameters(OpKind::Linear));
  EXPECT_TRUE(hasParameters(OpKind::BatchNorm));
  EXPECT_TRUE(hasParameters(OpKind::SageConv));
  EXPECT_FALSE(hasParameters(OpKind::Relu));
  EXPECT_FALSE(hasParameters(OpKind::Dropout));
  EXPECT_EQ(elementBytes(Precision::FP32), 4u);
  EXPECT_EQ(elementBytes(Precision::FP64), 8u);
  EXPECT_EQ(elementBytes(Precision::BF16), 2u);
  EXPECT_EQ(elementBytes(Precision::FP16), 2u);
}

//===----------------------------------------------------------------------===//
// repeat
//===----------------------------------------------------------------------===//

TEST(SemaTest, RepeatUnrollsWithFreshWeightsPerIteration) {
  auto c = check(program("  h = x;\n"
                         "  repeat 3 {\n"
                         "    h = gcn_conv(h, out = 16);\n"
                         "    h = relu(h);\n"
                         "  }\n"
                         "  return linear(h, out = classes);\n"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const ModelInstance &m = c->train().model;
  EXPECT_EQ(countKind(m, OpKind::GcnConv), 3u);
  EXPECT_EQ(countKind(m, OpKind::Relu), 3u);
  ASSERT_EQ(m.ops.size(), 8u);
  const char *names[] = {"x",      "gcn_conv_0", "relu_0", "gcn_conv_1",
                         "relu_1", "gcn_conv_2", "relu_2", "linear_0"};
  for (unsigned i = 0; i < 8; ++i) {
    EXPECT_EQ(m.ops[i].name, names[i]);
    if (i > 0) {
      EXPECT_EQ(m.ops[i].operands, std::vector<unsigned>{i - 1}) << names[i];
    }
  }
  // Every unrolled op points at its statement in the source.
  EXPECT_TRUE(locIs(m.ops[1].loc, c->at("gcn_conv(")));
  EXPECT_TRUE(locIs(m.ops[5].loc, c->at("gcn_conv(")));
  EXPECT_EQ(m.ops[1].width, 16);
}

TEST(SemaTest, NestedRepeatAndParameterCount) {
  auto c = check(program("  h = x;\n"
                         "  repeat depth {\n"
                         "    repeat 3 { h = relu(h); }\n"
                         "    h = dropout(h);\n"
                         "  }\n"
                         "  return linear(h, out = classes);\n",
                         "dataset(\"cora\")", "", "depth = 2"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const ModelInstance &m = c->train().model;
  EXPECT_EQ(countKind(m, OpKind::Relu), 6u);
  EXPECT_EQ(countKind(m, OpKind::Dropout), 2u);
  EXPECT_EQ(m.ops.size(), 1u + 6 + 2 + 1);
  EXPECT_EQ(m.ops[4].name, "dropout_0");
  EXPECT_EQ(m.ops[8].name, "dropout_1");
}

TEST(SemaTest, RepeatCountByTrainArgument) {
  std::string src = "model M(depth = 1) {\n"
                    "  h = x;\n"
                    "  repeat depth { h = relu(h); }\n"
                    "  return linear(h, out = classes);\n"
                    "}\n"
                    "train M(depth = 5) on dataset(\"cora\") {\n" +
                    std::string(kSettings) + "}\n";
  auto c = check(src);
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(countKind(c->train().model, OpKind::Relu), 5u);
}

TEST(SemaTest, RepeatCountMustBePositiveInteger) {
  auto c = check(program("  h = x;\n"
                         "  repeat 0 { h = relu(h); }\n"
                         "  return linear(h, out = classes);\n"));
  EXPECT_TRUE(oneError(*c, c->at("0 {"), "the count of 'repeat' must be"));

  c = check(program("  h = x;\n"
                    "  repeat 2.5 { h = relu(h); }\n"
                    "  return linear(h, out = classes);\n"));
  EXPECT_TRUE(
      oneError(*c, c->at("2.5"), "the count of 'repeat' must be an integer"));
}

TEST(SemaTest, UnrollLimit) {
  SemaOptions o = testOptions();
  o.maxUnrolledStatements = 10;
  // 1 (h = x) + 1 (repeat) + 2 per iteration: the 11th statement is the
  // first one of the fifth iteration.
  auto c = check(program("  h = x;\n"
                         "  repeat 5 {\n"
                         "    h = relu(h);\n"
                         "    h = dropout(h);\n"
                         "  }\n"
                         "  return linear(h, out = classes);\n"),
                 o);
  EXPECT_TRUE(oneError(*c, c->at("h = relu"),
                       "model 'M' unrolls to more than 10 statements"));
  EXPECT_TRUE(c->program.trains.empty());

  // Three iterations need 2 + 6 + the return = 9 statements.
  c = check(program("  h = x;\n"
                    "  repeat 3 {\n"
                    "    h = relu(h);\n"
                    "    h = dropout(h);\n"
                    "  }\n"
                    "  return linear(h, out = classes);\n"),
            o);
  EXPECT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(c->program.trains.size(), 1u);
}

TEST(SemaTest, HugeRepeatIsRejectedQuickly) {
  auto c = check(program("  h = x;\n"
                         "  repeat 1000000000 { h = relu(h); }\n"
                         "  return linear(h, out = classes);\n"));
  ASSERT_EQ(c->errors(), 1u) << c->dump();
  EXPECT_TRUE(c->program.trains.empty());
}

//===----------------------------------------------------------------------===//
// Model parameters
//===----------------------------------------------------------------------===//

const char *kParamModel =
    "model P(hidden = 16, p = 0.5, act = true, out = classes, "
    "wide = hidden * 2) {\n"
    "  h = dropout(linear(x, out = wide), p = p);\n"
    "  h = linear(h, out = hidden);\n"
    "  return linear(h, out = out);\n"
    "}\n";

TEST(SemaTest, DefaultsUseEarlierParamsAndClasses) {
  auto c = check(std::string(kParamModel) + "train P on dataset(\"cora\") {\n" +
                 kSettings + "}\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const ModelInstance &m = c->train().model;
  ASSERT_EQ(m.args.size(), 5u);
  EXPECT_EQ(m.args[0].name, "hidden");
  EXPECT_EQ(m.args[0].value.kind, AttrValue::Kind::Int);
  EXPECT_EQ(m.args[0].value.i, 16);
  EXPECT_EQ(m.args[1].name, "p");
  EXPECT_EQ(m.args[1].value.kind, AttrValue::Kind::Real);
  EXPECT_EQ(m.args[1].value.r, 0.5);
  EXPECT_EQ(m.args[2].name, "act");
  EXPECT_EQ(m.args[2].value.kind, AttrValue::Kind::Bool);
  EXPECT_TRUE(m.args[2].value.b);
  EXPECT_EQ(m.args[3].name, "out");
  EXPECT_EQ(m.args[3].value.i, 7) << "classes of cora";
  EXPECT_EQ(m.args[4].name, "wide");
  EXPECT_EQ(m.args[4].value.i, 32) << "hidden * 2";
  EXPECT_EQ(opNamed(m, "linear_0")->width, 32);
  EXPECT_EQ(opNamed(m, "linear_1")->width, 16);
}

TEST(SemaTest, NamedTrainArgumentsOverrideDefaults) {
  auto c = check(std::string(kParamModel) +
                 "train P(p = 0.1, hidden = 64) on dataset(\"citeseer\") {\n" +
                 kSettings + "}\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const ModelInstance &m = c->train().model;
  EXPECT_EQ(m.args[0].value.i, 64);
  EXPECT_EQ(m.args[1].value.r, 0.1);
  EXPECT_EQ(m.args[3].value.i, 6) << "classes of citeseer";
  EXPECT_EQ(m.args[4].value.i, 128) << "defaults see the given hidden";
  EXPECT_EQ(opNamed(m, "dropout_0")->getAttr("p")->r, 0.1);
  EXPECT_EQ(opNamed(m, "linear_0")->width, 128);
  EXPECT_EQ(m.ops[0].width, 3703);
}

TEST(SemaTest, PositionalTrainArguments) {
  auto c = check(std::string(kParamModel) +
                 "train P(8, 0.3, false, out = 7) on dataset(\"cora\") {\n" +
                 kSettings + "}\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const ModelInstance &m = c->train().model;
  EXPECT_EQ(m.args[0].value.i, 8);
  EXPECT_EQ(m.args[1].value.r, 0.3);
  EXPECT_FALSE(m.args[2].value.b);
  EXPECT_EQ(m.args[3].value.i, 7);
  EXPECT_EQ(m.args[4].value.i, 16);
}

TEST(SemaTest, TrainArgumentsMayUseClassesAndFeatures) {
  auto c = check(std::string(kParamModel) +
                 "train P(hidden = classes * 3) on dataset(\"cora\") {\n" +
                 kSettings + "}\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(c->train().model.args[0].value.i, 21);
}

TEST(SemaTest, MissingRequiredParameter) {
  std::string src = "model R(hidden) {\n"
                    "  return linear(linear(x, out = hidden), out = classes);\n"
                    "}\n"
                    "train R on dataset(\"cora\") {\n" +
                    std::string(kSettings) + "}\n";
  auto c = check(src);
  EXPECT_TRUE(oneError(*c, c->at("R on"),
                       "model 'R' needs a value for parameter 'hidden'; "
                       "write train R(hidden = ...)"));
  const Diagnostic *note = c->find(DiagKind::Note, "is declared here");
  ASSERT_NE(note, nullptr) << c->dump();
  EXPECT_TRUE(locIs(note->loc, c->at("hidden)")));
}

TEST(SemaTest, UnknownTrainArgument) {
  auto c =
      check(std::string(kParamModel) +
            "train P(hiden = 8) on dataset(\"cora\") {\n" + kSettings + "}\n");
  EXPECT_TRUE(oneError(*c, c->at("hiden"),
                       "model 'P' has no parameter 'hiden'; did you mean "
                       "'hidden'?"));
}

TEST(SemaTest, PositionalAfterNamedTrainArgument) {
  auto c = check(std::string(kParamModel) +
                 "train P(hidden = 8, 0.3) on dataset(\"cora\") {\n" +
                 kSettings + "}\n");
  EXPECT_TRUE(
      oneError(*c, c->at("0.3)"), "positional argument after named arguments"));
}

TEST(SemaTest, TooManyTrainArguments) {
  auto c = check(std::string(kParamModel) +
                 "train P(1, 0.1, true, 7, 2, 99) on dataset(\"cora\") {\n" +
                 kSettings + "}\n");
  EXPECT_TRUE(oneError(*c, c->at("99"),
                       "too many arguments for model 'P' (it has 5 "
                       "parameters)"));
}

TEST(SemaTest, TrainArgumentGivenTwice) {
  auto c = check(std::string(kParamModel) +
                 "train P(8, hidden = 9) on dataset(\"cora\") {\n" + kSettings +
                 "}\n");
  EXPECT_TRUE(
      oneError(*c, c->at("hidden = 9"), "parameter 'hidden' is given twice"));
}

TEST(SemaTest, ParameterMayNotHideBuiltins) {
  std::string src = "model B(classes = 3) {\n"
                    "  return linear(x, out = classes);\n"
                    "}\n"
                    "train B on dataset(\"cora\") {\n" +
                    std::string(kSettings) + "}\n";
  auto c = check(src);
  EXPECT_TRUE(oneError(*c, c->at("classes = 3"),
                       "parameter 'classes' would hide the built-in name"));
}

//===----------------------------------------------------------------------===//
// Train settings
//===----------------------------------------------------------------------===//

const char *kModel = "model M(hidden = 16) {\n"
                     "  h = gcn_conv(x, out = hidden);\n"
                     "  return gcn_conv(relu(h), out = classes);\n"
                     "}\n";

std::unique_ptr<Checked>
checkSettings(const std::string &settings,
              const std::string &data = "dataset(\"cora\")") {
  return check(std::string(kModel) + "train M on " + data + " {\n" + settings +
               "}\n");
}

TEST(SemaTest, TrainConfigDefaults) {
  auto c = checkSettings("  loss = cross_entropy();\n"
                         "  optimizer = adam();\n"
                         "  epochs = 1;\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const TrainConfig &t = c->train().config;
  EXPECT_EQ(t.loss.kind, LossConfig::Kind::CrossEntropy);
  EXPECT_EQ(t.loss.labelSmoothing, 0.0);
  EXPECT_FALSE(t.loss.balancedClassWeights);
  EXPECT_EQ(t.optimizer.kind, OptimizerConfig::Kind::Adam);
  EXPECT_EQ(t.optimizer.lr, 0.001);
  EXPECT_EQ(t.optimizer.beta1, 0.9);
  EXPECT_EQ(t.optimizer.beta2, 0.999);
  EXPECT_EQ(t.optimizer.eps, 1e-8);
  EXPECT_EQ(t.optimizer.weightDecay, 0.0);
  EXPECT_EQ(t.epochs, 1);
  EXPECT_EQ(t.init, InitScheme::Glorot);
  EXPECT_EQ(t.precision, Precision::FP32);
  EXPECT_EQ(t.savedPrecision, SavedPrecision::Exact);
  EXPECT_FALSE(t.memory.has_value());
  EXPECT_FALSE(t.hostMemory.has_value());
  EXPECT_FALSE(t.disk.has_value());
  EXPECT_EQ(t.plan, PlanPolicy::Auto);
  EXPECT_EQ(t.sampling.kind, SamplingConfig::Kind::FullGraph);
  EXPECT_EQ(t.accumulate, 1);
  EXPECT_EQ(t.metrics, std::vector<Metric>{Metric::Accuracy});
  EXPECT_EQ(t.evalEvery, 1);
  EXPECT_EQ(t.seed, 0);
  EXPECT_TRUE(locIs(c->train().loc, c->at("train")));
}

TEST(SemaTest, TrainConfigEveryField) {
  auto c = checkSettings(
      "  loss = cross_entropy(label_smoothing = 0.1, class_weights = "
      "balanced);\n"
      "  optimizer = adamw(lr = 0.005, beta1 = 0.8, beta2 = 0.99, eps = 1e-6, "
      "weight_decay = 0.05);\n"
      "  epochs = 50;\n"
      "  init = kaiming;\n"
      "  precision = bf16;\n"
      "  saved_precision = fp16;\n"
      "  memory = 2 GiB;\n"
      "  host_memory = 8 GB;\n"
      "  disk = spill(\"/tmp/spill\", 100 GB);\n"
      "  plan = recompute_all;\n"
      "  sampling = neighbor(fanout = [25, -1], batch = 512, shuffle = "
      "false);\n"
      "  accumulate = 4;\n"
      "  metrics = [f1, accuracy, auc_pr];\n"
      "  eval_every = 5;\n"
      "  seed = 7;\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const TrainConfig &t = c->train().config;
  EXPECT_EQ(t.loss.labelSmoothing, 0.1);
  EXPECT_TRUE(t.loss.balancedClassWeights);
  EXPECT_EQ(t.optimizer.kind, OptimizerConfig::Kind::AdamW);
  EXPECT_EQ(t.optimizer.lr, 0.005);
  EXPECT_EQ(t.optimizer.beta1, 0.8);
  EXPECT_EQ(t.optimizer.beta2, 0.99);
  EXPECT_EQ(t.optimizer.eps, 1e-6);
  EXPECT_EQ(t.optimizer.weightDecay, 0.05);
  EXPECT_EQ(t.epochs, 50);
  EXPECT_EQ(t.init, InitScheme::Kaiming);
  EXPECT_EQ(t.precision, Precision::BF16);
  EXPECT_EQ(t.savedPrecision, SavedPrecision::FP16);
  ASSERT_TRUE(t.memory.has_value());
  EXPECT_EQ(*t.memory, 2ull << 30);
  ASSERT_TRUE(t.hostMemory.has_value());
  EXPECT_EQ(*t.hostMemory, 8000000000ull);
  ASSERT_TRUE(t.disk.has_value());
  EXPECT_EQ(t.disk->dir, "/tmp/spill");
  EXPECT_EQ(t.disk->bytes, 100000000000ull);
  EXPECT_EQ(t.plan, PlanPolicy::RecomputeAll);
  EXPECT_EQ(t.sampling.kind, SamplingConfig::Kind::Neighbor);
  EXPECT_EQ(t.sampling.fanout, (std::vector<int64_t>{25, -1}));
  EXPECT_EQ(t.sampling.batch, 512);
  EXPECT_FALSE(t.sampling.shuffle);
  EXPECT_EQ(t.accumulate, 4);
  EXPECT_EQ(t.metrics,
            (std::vector<Metric>{Metric::F1, Metric::Accuracy, Metric::AucPr}));
  EXPECT_EQ(t.evalEvery, 5);
  EXPECT_EQ(t.seed, 7);
}

TEST(SemaTest, AdamWDefaultWeightDecay) {
  auto c = checkSettings("  loss = cross_entropy();\n"
                         "  optimizer = adamw(lr = 0.01);\n"
                         "  epochs = 1;\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const OptimizerConfig &o = c->train().config.optimizer;
  EXPECT_EQ(o.kind, OptimizerConfig::Kind::AdamW);
  EXPECT_EQ(o.lr, 0.01);
  EXPECT_EQ(o.weightDecay, 0.01);
  EXPECT_EQ(o.beta1, 0.9);
  EXPECT_EQ(o.beta2, 0.999);
  EXPECT_EQ(o.eps, 1e-8);
}

TEST(SemaTest, AdamWithWeightDecayFromSpecExample) {
  auto c = checkSettings("  loss = cross_entropy();\n"
                         "  optimizer = adam(lr = 0.01, weight_decay = 5e-4);\n"
                         "  epochs = 200;\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const OptimizerConfig &o = c->train().config.optimizer;
  EXPECT_EQ(o.kind, OptimizerConfig::Kind::Adam);
  EXPECT_EQ(o.weightDecay, 5e-4);
  EXPECT_EQ(c->train().config.epochs, 200);
}

TEST(SemaTest, Sgd) {
  auto c = checkSettings("  loss = cross_entropy();\n"
                         "  optimizer = sgd(lr = 0.1, momentum = 0.9, "
                         "nesterov = true);\n"
                         "  epochs = 1;\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const OptimizerConfig &o = c->train().config.optimizer;
  EXPECT_EQ(o.kind, OptimizerConfig::Kind::SGD);
  EXPECT_EQ(o.lr, 0.1);
  EXPECT_EQ(o.momentum, 0.9);
  EXPECT_EQ(o.weightDecay, 0.0);
  EXPECT_TRUE(o.nesterov);

  c = checkSettings("  loss = cross_entropy();\n"
                    "  optimizer = sgd;\n"
                    "  epochs = 1;\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const OptimizerConfig &d = c->train().config.optimizer;
  EXPECT_EQ(d.kind, OptimizerConfig::Kind::SGD);
  EXPECT_EQ(d.lr, 0.001);
  EXPECT_EQ(d.momentum, 0.0);
  EXPECT_FALSE(d.nesterov);
}

TEST(SemaTest, SgdNesterovNeedsMomentum) {
  auto c = checkSettings("  loss = cross_entropy();\n"
                         "  optimizer = sgd(lr = 0.1, nesterov = true);\n"
                         "  epochs = 1;\n");
  EXPECT_TRUE(oneError(*c, c->at("sgd("), "nesterov = true needs momentum"));
}

TEST(SemaTest, SamplingKindsAndDefaults) {
  const std::string base = "  loss = cross_entropy();\n"
                           "  optimizer = adam();\n"
                           "  epochs = 1;\n";
  auto c = checkSettings(base + "  sampling = neighbor;\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const SamplingConfig *s = &c->train().config.sampling;
  EXPECT_EQ(s->kind, SamplingConfig::Kind::Neighbor);
  EXPECT_EQ(s->fanout, (std::vector<int64_t>{15, 10}));
  EXPECT_EQ(s->batch, 1024);
  EXPECT_TRUE(s->shuffle);

  c = checkSettings(base + "  sampling = neighbor(fanout = [5, 5, 5]);\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  s = &c->train().config.sampling;
  EXPECT_EQ(s->fanout, (std::vector<int64_t>{5, 5, 5}));

  c = checkSettings(base + "  sampling = cluster();\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  s = &c->train().config.sampling;
  EXPECT_EQ(s->kind, SamplingConfig::Kind::Cluster);
  EXPECT_EQ(s->parts, 1500);
  EXPECT_EQ(s->batch, 20);

  c = checkSettings(base + "  sampling = cluster(parts = 100, batch = 10);\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  s = &c->train().config.sampling;
  EXPECT_EQ(s->parts, 100);
  EXPECT_EQ(s->batch, 10);

  c = checkSettings(base + "  sampling = saint_rw();\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  s = &c->train().config.sampling;
  EXPECT_EQ(s->kind, SamplingConfig::Kind::SaintRW);
  EXPECT_EQ(s->roots, 2000);
  EXPECT_EQ(s->length, 2);
  EXPECT_EQ(s->steps, 1);

  c = checkSettings(
      base + "  sampling = saint_rw(roots = 300, length = 4, steps = 2);\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  s = &c->train().config.sampling;
  EXPECT_EQ(s->roots, 300);
  EXPECT_EQ(s->length, 4);
  EXPECT_EQ(s->steps, 2);

  c = checkSettings(base + "  sampling = full_graph;\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(c->train().config.sampling.kind, SamplingConfig::Kind::FullGraph);
}

TEST(SemaTest, ClusterBatchLargerThanParts) {
  auto c = checkSettings("  loss = cross_entropy();\n"
                         "  optimizer = adam();\n"
                         "  epochs = 1;\n"
                         "  sampling = cluster(parts = 10, batch = 20);\n");
  EXPECT_TRUE(oneError(*c, c->at("20)"),
                       "cluster batch = 20 is larger than parts = 10"));
}

TEST(SemaTest, ClusterPartsAtMostNodes) {
  const std::string base = "  loss = cross_entropy();\n"
                           "  optimizer = adam();\n"
                           "  epochs = 1;\n";
  auto c =
      checkSettings(base + "  sampling = cluster(parts = 101, batch = 1);\n",
                    "synthetic(nodes = 100)");
  EXPECT_TRUE(oneError(
      *c, c->at("sampling"),
      "cluster parts = 101 is more than the 100 nodes of 'synthetic'"));
  c = checkSettings(base + "  sampling = cluster(parts = 100, batch = 1);\n",
                    "synthetic(nodes = 100)");
  EXPECT_EQ(c->errors(), 0u) << c->dump();
  // The default of 1500 parts is checked too: fine on cora (2708 nodes),
  // too many for 1000 nodes.
  c = checkSettings(base + "  sampling = cluster;\n");
  EXPECT_EQ(c->errors(), 0u) << c->dump();
  c = checkSettings(base + "  sampling = cluster;\n",
                    "synthetic(nodes = 1000)");
  EXPECT_TRUE(oneError(
      *c, c->at("sampling"),
      "cluster parts = 1500 is more than the 1000 nodes of 'synthetic'"));
  c = checkSettings(base + "  sampling = cluster(parts = 2709);\n");
  EXPECT_TRUE(oneError(*c, c->at("sampling"),
                       "cluster parts = 2709 is more than the 2708 nodes of "
                       "'cora'"));
}

TEST(SemaTest, NeighborFanoutMustBePositiveOrMinusOne) {
  auto c = checkSettings("  loss = cross_entropy();\n"
                         "  optimizer = adam();\n"
                         "  epochs = 1;\n"
                         "  sampling = neighbor(fanout = [10, 0]);\n");
  EXPECT_TRUE(oneError(*c, c->at("0]"), "fanout"));
}

TEST(SemaTest, AccumulateNeedsMiniBatches) {
  auto c = checkSettings("  loss = cross_entropy();\n"
                         "  optimizer = adam();\n"
                         "  epochs = 1;\n"
                         "  accumulate = 2;\n");
  EXPECT_TRUE(
      oneError(*c, c->at("accumulate"), "accumulate = 2 needs mini-batches"));
}

/// Every word of a choice setting reaches the TrainConfig as its enum value,
/// and toString() gives the same word back.
template <typename Enum>
void expectChoiceWords(
    const char *setting, Enum TrainConfig::*field,
    std::initializer_list<std::pair<const char *, Enum>> words) {
  const std::string base = "  loss = cross_entropy();\n"
                           "  optimizer = adam();\n"
                           "  epochs = 1;\n";
  for (const auto &[word, value] : words) {
    auto c = checkSettings(base + "  " + setting + " = " + word + ";\n");
    ASSERT_EQ(c->errors(), 0u) << c->dump();
    EXPECT_EQ(c->train().config.*field, value) << word;
    EXPECT_EQ(toString(value), word);
  }
}

TEST(SemaTest, EveryPrecisionAndPlan) {
  expectChoiceWords<Precision>("precision", &TrainConfig::precision,
                               {{"fp32", Precision::FP32},
                                {"bf16", Precision::BF16},
                                {"fp16", Precision::FP16},
                                {"fp64", Precision::FP64}});
  expectChoiceWords<PlanPolicy>("plan", &TrainConfig::plan,
                                {{"auto", PlanPolicy::Auto},
                                 {"keep_all", PlanPolicy::KeepAll},
                                 {"recompute_all", PlanPolicy::RecomputeAll},
                                 {"offload_all", PlanPolicy::OffloadAll}});
  expectChoiceWords<SavedPrecision>("saved_precision",
                                    &TrainConfig::savedPrecision,
                                    {{"exact", SavedPrecision::Exact},
                                     {"bf16", SavedPrecision::BF16},
                                     {"fp16", SavedPrecision::FP16}});
}

TEST(SemaTest, MetricsOrderAndDuplicates) {
  const std::string base = "  loss = cross_entropy();\n"
                           "  optimizer = adam();\n"
                           "  epochs = 1;\n";
  auto c = checkSettings(base + "  metrics = [auc_roc, recall, precision, "
                                "accuracy, auc_pr, f1];\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(
      c->train().config.metrics,
      (std::vector<Metric>{Metric::AucRoc, Metric::Recall, Metric::Precision,
                           Metric::Accuracy, Metric::AucPr, Metric::F1}));

  c = checkSettings(base + "  metrics = f1;\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(c->train().config.metrics, std::vector<Metric>{Metric::F1});

  c = checkSettings(base + "  metrics = [f1, accuracy, f1];\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(c->train().config.metrics,
            (std::vector<Metric>{Metric::F1, Metric::Accuracy}));
  const Diagnostic *w = c->find(DiagKind::Warning, "listed twice");
  ASSERT_NE(w, nullptr) << c->dump();
  EXPECT_TRUE(locIs(w->loc, c->at("f1", 1)));
  EXPECT_FALSE(c->diags->hasErrors()) << "a warning is not an error";
}

TEST(SemaTest, MetricsErrors) {
  const std::string base = "  loss = cross_entropy();\n"
                           "  optimizer = adam();\n"
                           "  epochs = 1;\n";
  auto c = checkSettings(base + "  metrics = [accuracy, f2];\n");
  EXPECT_TRUE(oneError(*c, c->at("f2"), "'f2' is not a valid value"));
  EXPECT_NE(c->find(DiagKind::Error, "did you mean 'f1'"), nullptr)
      << c->dump();

  c = checkSettings(base + "  metrics = [];\n");
  EXPECT_TRUE(oneError(*c, c->at("[]"), "at least one metric"));
}

TEST(SemaTest, MemorySizes) {
  const std::string base = "  loss = cross_entropy();\n"
                           "  optimizer = adam();\n"
                           "  epochs = 1;\n";
  auto c = checkSettings(base + "  memory = 256 MiB;\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(c->train().config.memory, 268435456ull);

  c = checkSettings(base + "  memory = 2 * 512 MiB + 1 KiB;\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(c->train().config.memory, (1ull << 30) + 1024);

  c = checkSettings(base + "  memory = 1.5 GB;\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(c->train().config.memory, 1500000000ull);

  c = checkSettings(base + "  memory = 256;\n");
  EXPECT_TRUE(oneError(*c, c->at("256"),
                       "setting 'memory' must be a size such as 256 MiB"));
  EXPECT_NE(c->find(DiagKind::Error, "add a unit, e.g. 256 MiB"), nullptr);

  c = checkSettings(base + "  memory = 0 B;\n");
  EXPECT_TRUE(oneError(*c, c->at("0 B"), "at least 1 B"));
}

TEST(SemaTest, SizeUnitMustBeOnItsNumbersLine) {
  const std::string base = "  loss = cross_entropy();\n"
                           "  optimizer = adam();\n";
  // Spaces and tabs may separate the number and the unit on one line.
  auto c = checkSettings(base + "  epochs = 1;\n  memory = 256 \t MiB;\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(c->train().config.memory, 268435456ull);
  // A word on the next line is not a unit: `seed` starts a new statement, so
  // the ';' is missing at the end of `epochs = 10`, not an unknown unit.
  c = checkSettings(base + "  epochs = 10\n  seed = 1;\n");
  auto errors = c->ofKind(DiagKind::Error);
  ASSERT_EQ(errors.size(), 1u) << c->dump();
  EXPECT_EQ(errors[0].message, "expected ';' at the end of the statement");
  Location afterTen = c->at("10\n");
  afterTen.col += 2;
  EXPECT_TRUE(locIs(errors[0].loc, afterTen));
  // The same for a unit alone on the next line.
  c = checkSettings(base + "  epochs = 1;\n  memory = 256\n  MiB;\n");
  errors = c->ofKind(DiagKind::Error);
  ASSERT_EQ(errors.size(), 1u) << c->dump();
  EXPECT_EQ(errors[0].message, "expected ';' at the end of the statement");
  Location after256 = c->at("256\n");
  after256.col += 3;
  EXPECT_TRUE(locIs(errors[0].loc, after256));
}

TEST(SemaTest, SeedAndIntRanges) {
  const std::string base = "  loss = cross_entropy();\n"
                           "  optimizer = adam();\n";
  auto c = checkSettings(base + "  epochs = 0;\n");
  EXPECT_TRUE(oneError(*c, c->at("0;"), "setting 'epochs' must be"));
  EXPECT_NE(c->find(DiagKind::Error, "got 0"), nullptr) << c->dump();

  c = checkSettings(base + "  epochs = 2.5;\n");
  EXPECT_TRUE(
      oneError(*c, c->at("2.5"), "setting 'epochs' must be an integer"));

  c = checkSettings(base + "  epochs = 1;\n  seed = 0;\n");
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(c->train().config.seed, 0);

  c = checkSettings(base + "  epochs = 1;\n  seed = -1;\n");
  EXPECT_TRUE(oneError(*c, c->at("-1"), "setting 'seed' must be"));

  c = checkSettings(base + "  epochs = 1;\n  eval_every = 0;\n");
  EXPECT_TRUE(oneError(*c, c->at("0;"), "setting 'eval_every' must be"));
}

//===----------------------------------------------------------------------===//
// Data sources
//===----------------------------------------------------------------------===//

struct DatasetCounts {
  const char *name;
  int64_t nodes, edges, features, classes;
  bool hasFeatures;
};

void PrintTo(const DatasetCounts &d, std::ostream *os) { *os << d.name; }

class SemaDatasetTest : public ::testing::TestWithParam<DatasetCounts> {};

TEST_P(SemaDatasetTest, CountsFromMetaJson) {
  const DatasetCounts &d = GetParam();
  auto c = check(program("  return linear(x, out = classes);\n",
                         std::string("dataset(\"") + d.name + "\")"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const DataSource &data = c->train().data;
  EXPECT_EQ(data.kind, DataSource::Kind::Dataset);
  EXPECT_EQ(data.name, d.name);
  EXPECT_TRUE(data.resolved);
  EXPECT_EQ(data.nodes, d.nodes);
  EXPECT_EQ(data.edges, d.edges);
  EXPECT_EQ(data.features, d.features);
  EXPECT_EQ(data.classes, d.classes);
  EXPECT_EQ(data.hasFeatures, d.hasFeatures);
  llvm::SmallString<256> expectedDir(GNNC_TEST_DATA_DIR);
  llvm::sys::path::append(expectedDir, d.name);
  EXPECT_EQ(data.dir, std::string(expectedDir));
  EXPECT_TRUE(locIs(data.loc, c->at("dataset(")));
  const ModelInstance &m = c->train().model;
  EXPECT_EQ(m.ops[0].width, d.features);
  EXPECT_EQ(m.ops[1].width, d.classes);
}

INSTANTIATE_TEST_SUITE_P(
    Shipped, SemaDatasetTest,
    ::testing::Values(DatasetCounts{"cora", 2708, 10556, 1433, 7, true},
                      DatasetCounts{"citeseer", 3327, 9104, 3703, 6, true},
                      DatasetCounts{"facebook", 22470, 341646, 4714, 4, true},
                      DatasetCounts{"pubmed", 19717, 88648, 500, 3, false}),
    [](const ::testing::TestParamInfo<DatasetCounts> &info) {
      return std::string(info.param.name);
    });

TEST(SemaTest, DatasetWithoutFeaturesWarns) {
  auto c = check(
      program("  return linear(x, out = classes);\n", "dataset(\"pubmed\")"));
  EXPECT_FALSE(c->diags->hasErrors()) << c->dump();
  const Diagnostic *w = c->find(DiagKind::Warning, "ships no node features");
  ASSERT_NE(w, nullptr) << c->dump();
  EXPECT_TRUE(locIs(w->loc, c->at("\"pubmed\"")));
  c = check(program("  return linear(x, out = classes);\n"));
  EXPECT_TRUE(c->diagnostics().empty()) << c->dump();
}

TEST(SemaTest, ListParameter) {
  std::string src = "model L(sizes = [15, 10]) {\n"
                    "  return linear(x, out = classes);\n"
                    "}\n"
                    "train L on dataset(\"cora\") {\n" +
                    std::string(kSettings) + "}\n";
  auto c = check(src);
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const NamedAttr &a = c->train().model.args.at(0);
  EXPECT_EQ(a.name, "sizes");
  ASSERT_EQ(a.value.kind, AttrValue::Kind::List);
  ASSERT_EQ(a.value.list.size(), 2u);
  EXPECT_EQ(a.value.list[0].i, 15);
  EXPECT_EQ(a.value.list[1].i, 10);
}

TEST(SemaTest, DatasetByAbsolutePath) {
  std::string path = std::string(GNNC_TEST_DATA_DIR) + "/citeseer";
  auto c = check(program("  return linear(x, out = classes);\n",
                         "dataset(\"" + path + "\")"),
                 SemaOptions{});
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(c->train().data.dir, path);
  EXPECT_EQ(c->train().data.classes, 6);
}

TEST(SemaTest, DatasetByRelativePathUsesSourceDir) {
  SemaOptions o;
  o.sourceDir = GNNC_TEST_DATA_DIR;
  auto c = check(
      program("  return linear(x, out = classes);\n", "dataset(\"./cora\")"),
      o);
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(c->train().data.nodes, 2708);
}

TEST(SemaTest, SyntheticCounts) {
  auto c = check(program("  return linear(x, out = classes);\n",
                         "synthetic(nodes = 1001, avg_degree = 2.5)"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const DataSource &d = c->train().data;
  EXPECT_EQ(d.kind, DataSource::Kind::Synthetic);
  EXPECT_TRUE(d.resolved);
  EXPECT_EQ(d.nodes, 1001);
  EXPECT_EQ(d.avgDegree, 2.5);
  EXPECT_EQ(d.edges, 2503) << "round(1001 * 2.5) = round(2502.5)";
  EXPECT_EQ(d.features, 64);
  EXPECT_EQ(d.classes, 8);
  EXPECT_EQ(d.seed, 0);
  EXPECT_EQ(c->train().model.ops[0].width, 64);
  EXPECT_EQ(c->train().model.ops[1].width, 8);
}

TEST(SemaTest, SyntheticPositionalAndDefaults) {
  auto c = check(program("  return linear(x, out = classes);\n",
                         "synthetic(100000, 12, 32, 5, 9)"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  const DataSource &d = c->train().data;
  EXPECT_EQ(d.nodes, 100000);
  EXPECT_EQ(d.edges, 1200000);
  EXPECT_EQ(d.features, 32);
  EXPECT_EQ(d.classes, 5);
  EXPECT_EQ(d.seed, 9);

  c = check(program("  return linear(x, out = classes);\n",
                    "synthetic(nodes = 3000)"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(c->train().data.avgDegree, 10.0);
  EXPECT_EQ(c->train().data.edges, 30000);

  c = check(program("  return linear(x, out = classes);\n",
                    "synthetic(nodes = 7, avg_degree = 0.3)"));
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_EQ(c->train().data.edges, 2) << "round(2.1)";
}

TEST(SemaTest, SyntheticErrors) {
  auto c = check(program("  return linear(x, out = classes);\n",
                         "synthetic(nodes = 10, avg_degree = 20)"));
  EXPECT_TRUE(oneError(*c, c->at("20)"),
                       "avg_degree = 20 is larger than nodes - 1 = 9"));

  c = check(program("  return linear(x, out = classes);\n",
                    "synthetic(avg_degree = 2)"));
  EXPECT_TRUE(oneError(*c, c->at("synthetic("),
                       "missing argument 'nodes' for 'synthetic'"));

  c = check(program("  return linear(x, out = classes);\n",
                    "synthetic(nodes = 2000000000, avg_degree = 100)"));
  EXPECT_TRUE(oneError(*c, c->at("synthetic("), "edges; the limit is"));
}

//===----------------------------------------------------------------------===//
// Errors of language.md §Errors
//===----------------------------------------------------------------------===//

TEST(SemaTest, UndefinedName) {
  auto c = check(program("  h = relu(y);\n"
                         "  return linear(h, out = classes);\n"));
  EXPECT_TRUE(oneError(*c, c->at("y)"), "use of undefined name 'y'"));
}

TEST(SemaTest, UndefinedNameSuggestsClosest) {
  auto c = check(program("  hidden = linear(x, out = 16);\n"
                         "  return linear(hiden, out = classes);\n"));
  EXPECT_TRUE(oneError(*c, c->at("hiden"),
                       "use of undefined name 'hiden'; did you mean "
                       "'hidden'?"));
}

TEST(SemaTest, UndefinedNameSuggestsBuiltin) {
  auto c = check(program("  return linear(x, out = clases);\n"));
  EXPECT_TRUE(oneError(*c, c->at("clases"),
                       "use of undefined name 'clases'; did you mean "
                       "'classes'?"));
  c = check(program("  return linear(relu, out = classes);\n"));
  EXPECT_TRUE(oneError(*c, c->at("relu,"),
                       "'relu' is an operator: call it as relu(...)"));
}

TEST(SemaTest, NameUsedBeforeDefinition) {
  auto c = check(program("  a = relu(b);\n"
                         "  b = relu(x);\n"
                         "  return linear(a, out = classes);\n"));
  ASSERT_GE(c->errors(), 1u);
  const Diagnostic *d = c->find(DiagKind::Error, "use of undefined name 'b'");
  ASSERT_NE(d, nullptr) << c->dump();
  EXPECT_TRUE(locIs(d->loc, c->at("b)")));
}

TEST(SemaTest, OperatorArgumentOfWrongKind) {
  auto c = check(program("  h = dropout(x, p = \"half\");\n"
                         "  return linear(h, out = classes);\n"));
  EXPECT_TRUE(oneError(*c, c->at("\"half\""),
                       "argument 'p' of 'dropout' must be a number, got a "
                       "string (\"half\")"));

  c = check(program("  return linear(x, out = classes, bias = 1);\n"));
  EXPECT_TRUE(oneError(*c, c->at("1)"),
                       "argument 'bias' of 'linear' must be true or false"));

  c = check(program("  return linear(3, out = classes);\n"));
  EXPECT_TRUE(oneError(*c, c->at("3,"),
                       "argument 'h' of 'linear' must be a node tensor"));
}

TEST(SemaTest, OperatorArgumentOutOfRange) {
  auto c = check(program("  h = dropout(x, p = 1.5);\n"
                         "  return linear(h, out = classes);\n"));
  EXPECT_TRUE(oneError(*c, c->at("1.5"),
                       "argument 'p' of 'dropout' must be in [0, 1), got "
                       "1.5"));

  c = check(program("  h = gcn_conv(x, out = 0);\n"
                    "  return linear(h, out = classes);\n"));
  EXPECT_TRUE(oneError(*c, c->at("0)"),
                       "argument 'out' of 'gcn_conv' must be in [1, "));
  EXPECT_NE(c->find(DiagKind::Error, "got 0"), nullptr) << c->dump();
}

TEST(SemaTest, NegativeLearningRateParsesThenFailsRangeCheck) {
  auto c = checkSettings("  loss = cross_entropy();\n"
                         "  optimizer = adam(lr = -0.01);\n"
                         "  epochs = 1;\n");
  EXPECT_TRUE(oneError(*c, c->at("-0.01"),
                       "argument 'lr' of 'adam' must be > 0, got -0.01"));
}

TEST(SemaTest, UnknownOperatorAndArgument) {
  auto c = check(program("  h = gcn_cnv(x, out = 16);\n"
                         "  return linear(h, out = classes);\n"));
  EXPECT_TRUE(oneError(*c, c->at("gcn_cnv"),
                       "unknown operator 'gcn_cnv'; did you mean "
                       "'gcn_conv'?"));

  c = check(program("  h = gcn_conv(x, otu = 16);\n"
                    "  return linear(h, out = classes);\n"));
  ASSERT_GE(c->errors(), 1u);
  const Diagnostic *d =
      c->find(DiagKind::Error, "unknown argument 'otu' for 'gcn_conv'");
  ASSERT_NE(d, nullptr) << c->dump();
  EXPECT_TRUE(locIs(d->loc, c->at("otu")));
  EXPECT_TRUE(llvm::StringRef(d->message).contains("did you mean 'out'?"));
}

TEST(SemaTest, MissingOperatorArgument) {
  auto c = check(program("  return gcn_conv(x);\n"));
  EXPECT_TRUE(oneError(*c, c->at("gcn_conv("),
                       "missing argument 'out' for 'gcn_conv'"));
}

TEST(SemaTest, MissingRequiredSettings) {
  auto c = checkSettings("  optimizer = adam();\n");
  ASSERT_EQ(c->errors(), 2u) << c->dump();
  auto errors = c->ofKind(DiagKind::Error);
  EXPECT_TRUE(locIs(errors[0].loc, c->at("train")));
  EXPECT_TRUE(locIs(errors[1].loc, c->at("train")));
  EXPECT_NE(errors[0].message.find("missing required setting 'loss' in train "
                                   "of 'M'"),
            std::string::npos)
      << errors[0].message;
  EXPECT_NE(errors[1].message.find("missing required setting 'epochs'"),
            std::string::npos)
      << errors[1].message;

  c = checkSettings("  loss = cross_entropy();\n  epochs = 3;\n");
  EXPECT_TRUE(
      oneError(*c, c->at("train"), "missing required setting 'optimizer'"));
}

TEST(SemaTest, UnknownAndDuplicateSettings) {
  auto c = checkSettings("  loss = cross_entropy();\n"
                         "  optimizer = adam();\n"
                         "  epoch = 3;\n"
                         "  epochs = 3;\n");
  EXPECT_TRUE(oneError(*c, c->at("epoch ="),
                       "unknown setting 'epoch'; did you mean 'epochs'?"));

  c = checkSettings("  loss = cross_entropy();\n"
                    "  optimizer = adam();\n"
                    "  epochs = 3;\n"
                    "  epochs = 4;\n");
  EXPECT_TRUE(
      oneError(*c, c->at("epochs", 1), "setting 'epochs' is set twice"));
  const Diagnostic *note = c->find(DiagKind::Note, "first set here");
  ASSERT_NE(note, nullptr);
  EXPECT_TRUE(locIs(note->loc, c->at("epochs")));
}

TEST(SemaTest, UnknownChoiceSuggests) {
  auto c = checkSettings("  loss = cross_entropy();\n"
                         "  optimizer = adam();\n"
                         "  epochs = 3;\n"
                         "  precision = fp23;\n");
  EXPECT_TRUE(oneError(*c, c->at("fp23"), "'fp23' is not a valid value"));
  EXPECT_NE(c->find(DiagKind::Error, "did you mean 'fp32'?"), nullptr);

  c = checkSettings("  loss = cross_entropy();\n"
                    "  optimizer = adamm();\n"
                    "  epochs = 3;\n");
  EXPECT_TRUE(oneError(*c, c->at("adamm"),
                       "unknown optimizer 'adamm'; did you mean 'adam'?"));
}

TEST(SemaTest, TrainOfUnknownModel) {
  std::string src = std::string(kModel) + "train N on dataset(\"cora\") {\n" +
                    kSettings + "}\n";
  auto c = check(src);
  EXPECT_TRUE(oneError(*c, c->at("N on"),
                       "train of unknown model 'N'; did you mean 'M'?"));
  EXPECT_TRUE(c->program.trains.empty());
}

TEST(SemaTest, ReturnWidthMustBeClasses) {
  auto c = check(program("  h = gcn_conv(x, out = 16);\n"
                         "  return h;\n"));
  EXPECT_TRUE(oneError(*c, c->at("return"),
                       "model 'M' returns width 16, but 'cora' has 7 "
                       "classes"));
  const Diagnostic *note = c->find(DiagKind::Note, "has width 16");
  ASSERT_NE(note, nullptr) << c->dump();
  EXPECT_TRUE(locIs(note->loc, c->at("h;")));
  EXPECT_NE(c->find(DiagKind::Note, "while checking model 'M'"), nullptr);
  EXPECT_TRUE(c->program.trains.empty());
}

TEST(SemaTest, ReturnMustBeATensor) {
  auto c = check(program("  return 3;\n"));
  EXPECT_TRUE(oneError(*c, c->at("3;"), "must return a node tensor"));
}

TEST(SemaTest, ModelStructureErrors) {
  auto c = check(program("  h = relu(x);\n"));
  EXPECT_TRUE(oneError(*c, Location{3, 1},
                       "model 'M' must end with a 'return' statement"));

  c = check(program("  h = x;\n"
                    "  repeat 2 { return h; }\n"
                    "  return linear(h, out = classes);\n"));
  ASSERT_GE(c->errors(), 1u);
  const Diagnostic *d =
      c->find(DiagKind::Error, "'return' is not allowed inside 'repeat'");
  ASSERT_NE(d, nullptr) << c->dump();
  EXPECT_TRUE(locIs(d->loc, c->at("return h")));

  c = check(program("  classes = 3;\n"
                    "  return linear(x, out = 7);\n"));
  EXPECT_TRUE(oneError(*c, c->at("classes = 3"),
                       "cannot assign to the built-in name 'classes'"));
}

TEST(SemaTest, ModelRedefinition) {
  std::string src = "model M() { return linear(x, out = classes); }\n"
                    "model M() { return linear(x, out = classes); }\n"
                    "train M on dataset(\"cora\") {\n" +
                    std::string(kSettings) + "}\n";
  auto c = check(src);
  EXPECT_TRUE(oneError(*c, Location{2, 7}, "redefinition of model 'M'"));
  const Diagnostic *note = c->find(DiagKind::Note, "previous definition");
  ASSERT_NE(note, nullptr);
  EXPECT_TRUE(locIs(note->loc, Location{1, 7}));
}

TEST(SemaTest, OperatorOutsideModelAndSettingInsideModel) {
  auto c = check(std::string(kModel) +
                 "train M(hidden = relu(x)) on "
                 "dataset(\"cora\") {\n" +
                 kSettings + "}\n");
  ASSERT_GE(c->errors(), 1u);
  EXPECT_NE(c->find(DiagKind::Error,
                    "operator 'relu' can only be used inside a model body"),
            nullptr)
      << c->dump();

  c = check(program("  h = adam(x);\n"
                    "  return linear(h, out = classes);\n"));
  EXPECT_TRUE(oneError(*c, c->at("adam"),
                       "'adam' belongs in a train block's settings"));
}

TEST(SemaTest, DataSourceErrors) {
  auto c = check(program("  return linear(x, out = classes);\n", "cora"));
  EXPECT_TRUE(oneError(*c, c->at("cora {"),
                       "expected dataset(\"cora\") or synthetic(...) after "
                       "'on'"));

  c = check(
      program("  return linear(x, out = classes);\n", "datasets(\"cora\")"));
  EXPECT_TRUE(oneError(*c, c->at("datasets"),
                       "unknown data source 'datasets'; did you mean "
                       "'dataset'?"));
}

TEST(SemaTest, DatasetNotFound) {
  auto c = check(
      program("  return linear(x, out = classes);\n", "dataset(\"corra\")"));
  EXPECT_TRUE(oneError(*c, c->at("\"corra\""),
                       "dataset 'corra' not found; did you mean 'cora'?"));
  const Diagnostic *note = c->find(DiagKind::Note, "looked for");
  ASSERT_NE(note, nullptr) << c->dump();
  EXPECT_TRUE(llvm::StringRef(note->message).contains("corra"));

  c = check(program("  return linear(x, out = classes);\n"), SemaOptions{});
  EXPECT_TRUE(oneError(*c, c->at("\"cora\""), "dataset 'cora' not found"));
  EXPECT_NE(c->find(DiagKind::Note, "no data directories to search"), nullptr);
}

/// A temporary copy of a shipped dataset that a test may corrupt.
class TempDataset {
public:
  explicit TempDataset(const char *name) {
    llvm::SmallString<128> root;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("gnnc-sema-test", root));
    this->root = std::string(root);
    dir = this->root + "/" + name;
    EXPECT_FALSE(llvm::sys::fs::create_directory(dir));
    std::string src = std::string(GNNC_TEST_DATA_DIR) + "/" + name;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(src, ec), end; it != end && !ec;
         it.increment(ec)) {
      std::string to = dir + "/" + llvm::sys::path::filename(it->path()).str();
      EXPECT_FALSE(llvm::sys::fs::copy_file(it->path(), to));
      llvm::sys::fs::setPermissions(to, llvm::sys::fs::all_read |
                                            llvm::sys::fs::owner_write);
    }
  }
  ~TempDataset() { llvm::sys::fs::remove_directories(root); }
  std::string root, dir;
};

TEST(SemaTest, MalformedDatasetNamesFileAndField) {
  TempDataset tmp("cora");
  // Truncate labels.bin by one int32.
  ASSERT_EQ(::truncate((tmp.dir + "/labels.bin").c_str(), 2708 * 4 - 4), 0);
  SemaOptions o;
  o.dataSearchPath = {tmp.root};
  auto c = check(program("  return linear(x, out = classes);\n"), o);
  EXPECT_TRUE(oneError(*c, c->at("\"cora\""), "dataset 'cora' is malformed"));
  auto errors = c->ofKind(DiagKind::Error);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find(tmp.dir + "/labels.bin"), std::string::npos)
      << errors[0].message;
  EXPECT_NE(errors[0].message.find("field 'num_nodes'"), std::string::npos)
      << errors[0].message;
}

//===----------------------------------------------------------------------===//
// Memory lower bound
//===----------------------------------------------------------------------===//

// The lower bound (Sema.cpp, checkMemoryLowerBound) is the largest, over the
// operators, of what one operator needs on the device at once, with `elt`
// bytes per activation element (4 for fp32, 8 for fp64, 2 for bf16):
//  - its output, N * width * elt;
//  - its operands other than the input x, N * width * elt each; element-wise
//    ops and normalisations work in place, so their first operand is free,
//    and gcn_conv, gat_conv and linear may read theirs from host memory a
//    tile of rows at a time (gnnrt_cpu_matmul_tiles), so it is free too;
//  - for aggregations by max, the CSR with self loops, 4 * (N + 1 + E + N)
//    (a sum or mean may read the graph from host memory a tile at a time,
//    gnnrt_cpu_spmm_tiles);
//  - its fp32 weights (gcn_conv: 4 * in * out);
//  - gat_conv instead counts the most one of its steps needs: the
//    projection (its input unless x, its weights and the projected
//    features, N * heads * out * elt), the scores (the CSR with self loops,
//    which gnn.edge_add reads whole, and one attention logit per edge, self
//    loops included, and head: (E + N) * heads * elt), or the aggregation
//    by the attention (the logits, the projected features and an output as
//    wide; SDDMM, the edge soft-max and the aggregation may read the graph
//    a tile at a time).
// Cora has N = 2708 nodes, E = 10556 edges, F = 1433 features, C = 7 classes.
constexpr uint64_t kN = 2708, kE = 10556, kF = 1433, kC = 7, kHidden = 16;
constexpr uint64_t kCsr = 4 * (kN + 1 + kE + kN); // 63892
// For the model below:
//   gcn_conv_0 (x -> 16):  N*16*elt + 4*F*16
//   relu_0 (in place):     N*16*elt
//   gcn_conv_1 (16 -> C):  N*C*elt + 4*16*C (its input read in tiles)
constexpr uint64_t gcn0Bytes(uint64_t elt) {
  return kN * kHidden * elt + 4 * kF * kHidden;
}
constexpr uint64_t reluBytes(uint64_t elt) { return kN * kHidden * elt; }
constexpr uint64_t gcn1Bytes(uint64_t elt) {
  return kN * kC * elt + 4 * kHidden * kC;
}
// fp32: gcn_conv_0 = 173312 + 91712 = 265024 B (258.8 KiB) is the largest;
// gcn_conv_1 = 75824 + 448 = 76272 B; relu_0 = 173312 B.
static_assert(gcn0Bytes(4) == 265024 && gcn1Bytes(4) == 76272 &&
              reluBytes(4) == 173312);
static_assert(gcn0Bytes(4) > gcn1Bytes(4) && gcn0Bytes(4) > reluBytes(4));
// fp64 doubles the activations but not the fp32 weights: gcn_conv_0 =
// 346624 + 91712 = 438336 B (428.1 KiB) against relu_0's 346624 B. (Until
// products read their input in tiles, gcn_conv_1 counted its input too and
// took over, at 498720 B.)
static_assert(gcn0Bytes(8) == 438336 && reluBytes(8) == 346624 &&
              gcn1Bytes(8) == 152096);
// bf16 halves the activations: gcn_conv_0 = 86656 + 91712 = 178368 B
// (174.2 KiB) against gcn_conv_1's 38360 B.
static_assert(gcn0Bytes(2) == 178368 && gcn1Bytes(2) == 38360);

const char *kBoundModel = "model M() {\n"
                          "  h = gcn_conv(x, out = 16);\n"
                          "  h = relu(h);\n"
                          "  return gcn_conv(h, out = classes);\n"
                          "}\n";

std::unique_ptr<Checked> checkMemory(const std::string &extra,
                                     const char *model = kBoundModel) {
  return check(std::string(model) + "train M on dataset(\"cora\") {\n" +
               kSettings + extra + "}\n");
}

std::string bytes(uint64_t n) {
  return "  memory = " + std::to_string(n) + " B;\n";
}

TEST(SemaTest, MemoryBelowSmallestPlan) {
  EXPECT_EQ(formatBytes(gcn0Bytes(4)), "258.8 KiB");
  auto c = checkMemory("  memory = 250 KiB;\n");
  EXPECT_TRUE(oneError(
      *c, c->at("memory"),
      "memory = 250 KiB is below the smallest plan for this program on 'cora' "
      "(at least 258.8 KiB, " +
          std::to_string(gcn0Bytes(4)) +
          " bytes); the gcn_conv 'gcn_conv_0' alone needs that much on the "
          "device at once"))
      << c->dump();
  const Diagnostic *note = c->find(DiagKind::Note, "'gcn_conv_0' is here");
  ASSERT_NE(note, nullptr) << c->dump();
  EXPECT_TRUE(locIs(note->loc, c->at("gcn_conv(")));
}

TEST(SemaTest, MemoryAtTheBoundIsAccepted) {
  auto c = checkMemory(bytes(gcn0Bytes(4)));
  EXPECT_EQ(c->errors(), 0u) << c->dump();
  c = checkMemory(bytes(gcn0Bytes(4) - 1));
  EXPECT_TRUE(oneError(*c, c->at("memory"), "gcn_conv 'gcn_conv_0'"));
}

TEST(SemaTest, MemoryBoundScalesWithPrecision) {
  auto c = checkMemory("  memory = 322 KiB;\n");
  EXPECT_EQ(c->errors(), 0u) << c->dump();
  // fp64: gcn_conv_0 still, with its activations doubled.
  EXPECT_EQ(formatBytes(gcn0Bytes(8)), "428.1 KiB");
  c = checkMemory("  memory = 322 KiB;\n  precision = fp64;\n");
  EXPECT_TRUE(oneError(*c, c->at("memory"),
                       "(at least 428.1 KiB, " + std::to_string(gcn0Bytes(8)) +
                           " bytes); the gcn_conv 'gcn_conv_0' alone"));
  c = checkMemory(bytes(gcn0Bytes(8)) + "  precision = fp64;\n");
  EXPECT_EQ(c->errors(), 0u) << c->dump();
  c = checkMemory(bytes(gcn0Bytes(8) - 1) + "  precision = fp64;\n");
  EXPECT_TRUE(oneError(*c, c->at("memory"), "gcn_conv 'gcn_conv_0'"));
  // bf16: gcn_conv_0 again, with its fp32 weights unchanged.
  EXPECT_EQ(formatBytes(gcn0Bytes(2)), "174.2 KiB");
  c = checkMemory(bytes(gcn0Bytes(2)) + "  precision = bf16;\n");
  EXPECT_EQ(c->errors(), 0u) << c->dump();
  c = checkMemory(bytes(gcn0Bytes(2) - 1) + "  precision = bf16;\n");
  EXPECT_TRUE(oneError(*c, c->at("memory"),
                       "(at least 174.2 KiB, " + std::to_string(gcn0Bytes(2)) +
                           " bytes); the gcn_conv 'gcn_conv_0' alone"));
}

// gat_conv(x, out = 8, heads = 8) on cora, fp32: width 64 (concat), so
//   projection   4 * F * 64 + N * 64 * 4            = 1060096
//   scores       CSR + (E + N) * 8 heads * 4        =  488340
//   aggregation  (E + N) * 8 * 4 + 2 * N * 64 * 4   = 1810944 B (1.7 MiB)
// linear_0 (64 -> C) needs N*C*4 + N*64*4 + 4*64*C = 770864 B.
constexpr uint64_t kGatBytes = (kE + kN) * 8 * 4 + 2 * kN * 64 * 4;
static_assert(kGatBytes == 1810944 && kGatBytes > 4 * kF * 64 + kN * 64 * 4 &&
              kGatBytes > kCsr + (kE + kN) * 8 * 4);

TEST(SemaTest, MemoryBoundCountsGatAttention) {
  const char *model = "model M() {\n"
                      "  h = gat_conv(x, out = 8, heads = 8);\n"
                      "  return linear(h, out = classes);\n"
                      "}\n";
  auto c = checkMemory(bytes(kGatBytes), model);
  EXPECT_EQ(c->errors(), 0u) << c->dump();
  // Averaged heads stay whole: one byte less than the full bound (the
  // attention logits and two [N, 64] matrices) fails.
  const char *averaged = "model M() {\n"
                         "  h = gat_conv(x, out = 8, heads = 8, concat = "
                         "false);\n"
                         "  return linear(h, out = classes);\n"
                         "}\n";
  c = checkMemory(bytes(kGatBytes - 1), averaged);
  EXPECT_TRUE(oneError(*c, c->at("memory"),
                       "(at least 1.7 MiB, 1810944 bytes); the gat_conv "
                       "'gat_conv_0' alone"));
  // Concatenated heads go head by head below that bound (gnn-decompose's
  // split-heads = auto): a head needs an eighth of the attention, so the
  // projection's 1060096 B binds; one byte less fails.
  c = checkMemory(bytes(kGatBytes - 1), model);
  EXPECT_EQ(c->errors(), 0u) << c->dump();
  c = checkMemory(bytes(1060095), model);
  EXPECT_TRUE(oneError(*c, c->at("memory"),
                       "(at least 1.0 MiB, 1060096 bytes); the gat_conv "
                       "'gat_conv_0' alone"));
}

TEST(SemaTest, MemoryBoundSkippedUnderSampling) {
  // Mini-batches are only sized at run time.
  auto c = checkMemory("  memory = 300 KiB;\n  sampling = neighbor;\n");
  EXPECT_EQ(c->errors(), 0u) << c->dump();
}

//===----------------------------------------------------------------------===//
// Diagnostics engine behaviour through Sema
//===----------------------------------------------------------------------===//

TEST(SemaTest, ErrorInModelTrainedTwiceIsReportedOnce) {
  std::string src = "model M() {\n"
                    "  h = dropout(x, p = 1.5);\n"
                    "  return linear(h, out = classes);\n"
                    "}\n"
                    "train M on dataset(\"cora\") {\n" +
                    std::string(kSettings) +
                    "}\n"
                    "train M on dataset(\"cora\") {\n" +
                    kSettings + "}\n";
  auto c = check(src);
  EXPECT_TRUE(oneError(*c, c->at("1.5"), "argument 'p' of 'dropout'"));
  auto notes = c->ofKind(DiagKind::Note);
  ASSERT_EQ(notes.size(), 1u) << "the repeat's note goes with it\n"
                              << c->dump();
  EXPECT_TRUE(locIs(notes[0].loc, c->at("train")));
}

TEST(SemaTest, WarningInModelTrainedTwiceIsReportedOnce) {
  std::string src = "model M() {\n"
                    "  a = relu(x);\n"
                    "  return linear(x, out = classes);\n"
                    "}\n"
                    "train M on dataset(\"cora\") {\n" +
                    std::string(kSettings) +
                    "}\n"
                    "train M on dataset(\"cora\") {\n" +
                    kSettings + "}\n";
  auto c = check(src);
  EXPECT_EQ(c->errors(), 0u) << c->dump();
  auto warnings = c->ofKind(DiagKind::Warning);
  ASSERT_EQ(warnings.size(), 1u) << c->dump();
  EXPECT_EQ(warnings[0].message, "value of 'a' is never used");
  EXPECT_TRUE(locIs(warnings[0].loc, c->at("a =")));
  EXPECT_EQ(c->program.trains.size(), 2u);
}

TEST(SemaTest, DifferentErrorsPerTrainAreAllReported) {
  std::string src = "model M() {\n"
                    "  return linear(x, out = 7);\n"
                    "}\n"
                    "train M on dataset(\"cora\") {\n" +
                    std::string(kSettings) +
                    "}\n"
                    "train M on dataset(\"citeseer\") {\n" +
                    kSettings + "}\n";
  auto c = check(src);
  ASSERT_EQ(c->errors(), 1u) << c->dump();
  EXPECT_NE(c->find(DiagKind::Error, "'citeseer' has 6 classes"), nullptr);
  ASSERT_EQ(c->program.trains.size(), 1u);
  EXPECT_EQ(c->train().data.name, "cora");
}

TEST(SemaTest, SeveralTrainsInFileOrder) {
  std::string src = std::string(kModel) +
                    "model G() { return gat_conv(x, out = classes); }\n" +
                    "train G on dataset(\"citeseer\") {\n" + kSettings + "}\n" +
                    "train M(hidden = 8) on dataset(\"cora\") {\n" + kSettings +
                    "}\n";
  auto c = check(src);
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  ASSERT_EQ(c->program.trains.size(), 2u);
  EXPECT_EQ(c->train(0).model.name, "G");
  EXPECT_EQ(c->train(0).data.name, "citeseer");
  EXPECT_EQ(c->train(1).model.name, "M");
  EXPECT_EQ(c->train(1).model.args[0].value.i, 8);
}

TEST(SemaTest, WarningsAreNotErrors) {
  std::string src = std::string(kModel) +
                    "model Unused() { return relu(x); }\n" +
                    "train M on dataset(\"cora\") {\n" + kSettings + "}\n";
  auto c = check(src);
  EXPECT_FALSE(c->diags->hasErrors()) << c->dump();
  EXPECT_EQ(c->errors(), 0u);
  const Diagnostic *w = c->find(DiagKind::Warning, "'Unused' is never trained");
  ASSERT_NE(w, nullptr) << c->dump();
  EXPECT_TRUE(locIs(w->loc, c->at("Unused")));
  EXPECT_EQ(c->program.trains.size(), 1u);
}

TEST(SemaTest, UnusedValueWarnings) {
  auto c = check(program("  a = relu(x);\n"
                         "  b = linear(x, out = classes);\n"
                         "  b = linear(x, out = classes);\n"
                         "  return b;\n"));
  EXPECT_FALSE(c->diags->hasErrors()) << c->dump();
  const Diagnostic *unused =
      c->find(DiagKind::Warning, "value of 'a' is never used");
  ASSERT_NE(unused, nullptr) << c->dump();
  EXPECT_TRUE(locIs(unused->loc, c->at("a =")));
  const Diagnostic *over =
      c->find(DiagKind::Warning, "value assigned to 'b' is overwritten");
  ASSERT_NE(over, nullptr) << c->dump();
  EXPECT_TRUE(locIs(over->loc, c->at("b =")));
  EXPECT_EQ(c->program.trains.size(), 1u);
}

TEST(SemaTest, EmptyProgramWarns) {
  auto c = check("# nothing here\n");
  EXPECT_FALSE(c->diags->hasErrors());
  EXPECT_NE(c->find(DiagKind::Warning, "no model and no train block"), nullptr);
  EXPECT_TRUE(c->program.trains.empty());
}

TEST(SemaTest, UntrainedModelIsStillChecked) {
  auto c = check("model U() {\n"
                 "  h = dropout(x, p = 2);\n"
                 "  return h;\n"
                 "}\n");
  EXPECT_TRUE(oneError(*c, c->at("2)"), "argument 'p' of 'dropout'"));
}

TEST(SemaTest, ExampleProgramChecksCleanly) {
  std::string path = std::string(GNNC_SOURCE_DIR) + "/examples/cora_gcn.gnn";
  auto buf = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(buf)) << path;
  auto c = check((*buf)->getBuffer().str());
  ASSERT_EQ(c->errors(), 0u) << c->dump();
  EXPECT_TRUE(c->diagnostics().empty()) << c->dump();
  ASSERT_EQ(c->program.trains.size(), 1u);
  const BoundTrain &t = c->train();
  EXPECT_EQ(t.model.args[0].value.i, 16);
  EXPECT_EQ(t.model.args[1].value.r, 0.5);
  EXPECT_EQ(t.config.optimizer.lr, 0.01);
  EXPECT_EQ(t.config.optimizer.weightDecay, 5e-4);
  EXPECT_EQ(t.config.epochs, 200);
  EXPECT_EQ(t.config.memory, 256ull << 20);
  EXPECT_EQ(t.config.metrics,
            (std::vector<Metric>{Metric::Accuracy, Metric::F1}));
  EXPECT_EQ(t.config.seed, 42);
}

// Every chain below is within ParserLimits (4096 operands, no brackets), but
// together they make a syntax tree 8191 nodes deep; with brackets (each level
// also within the limits) far deeper. Checking must report an error or
// succeed, never overflow the stack.
TEST(SemaDeathTest, DeepExpressionsWithinParserLimitsDoNotCrash) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::string flat = "model M() { a = 1";
  for (int i = 1; i < 4096; ++i)
    flat += "*1";
  for (int i = 1; i < 4096; ++i)
    flat += "+1";
  flat += "; return x; }\n";
  EXPECT_EXIT(
      {
        auto c = check(flat);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");

  std::string nested = "model M() { a = " + std::string(20, '(') + "1";
  for (int level = 0; level < 20; ++level) {
    nested += ")";
    for (int i = 1; i < 4000; ++i)
      nested += "+1";
  }
  nested += "; return x; }\n";
  EXPECT_EXIT(
      {
        auto c = check(nested);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(SemaTest, FormatHelpers) {
  EXPECT_EQ(formatReal(0.01), "0.01");
  EXPECT_EQ(formatReal(1e-8), "1e-08");
  EXPECT_EQ(formatReal(16), "16");
  EXPECT_EQ(formatBytes(1023), "1023 B");
  EXPECT_EQ(formatBytes(1024), "1.0 KiB");
  EXPECT_EQ(formatBytes(346624), "338.5 KiB");
  EXPECT_EQ(formatBytes(256ull << 20), "256.0 MiB");
}

} // namespace
