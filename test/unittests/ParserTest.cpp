//===- ParserTest.cpp - .gnn source to AST --------------------------------===//
#include "lang/Parser/Parser.h"
#include "lang/AST/AST.h"
#include "lang/Basic/Diagnostics.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <string>

using namespace gnnc;
using namespace gnnc::ast;
using llvm::dyn_cast;
using llvm::dyn_cast_or_null;
using llvm::isa;
using llvm::isa_and_nonnull;

namespace {

/// A parse of one in-memory file, with its diagnostics recorded.
struct Parsed {
  llvm::SourceMgr sm;
  std::unique_ptr<DiagnosticEngine> diags;
  std::unique_ptr<Program> program;

  const std::vector<Diagnostic> &diagnostics() const {
    return diags->diagnostics();
  }
  unsigned errors() const { return diags->errorCount(); }
  /// All diagnostics as "line:col: message" lines, for failure output.
  std::string dump() const {
    std::string s;
    for (const Diagnostic &d : diagnostics())
      s += std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " +
           d.message + "\n";
    return s;
  }
};

std::unique_ptr<Parsed> parse(llvm::StringRef source,
                              ParserLimits limits = {}) {
  auto p = std::make_unique<Parsed>();
  unsigned id = p->sm.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, "test.gnn"), llvm::SMLoc());
  p->diags = std::make_unique<DiagnosticEngine>(p->sm, id, nullptr);
  p->program = parseProgram(*p->diags, limits);
  return p;
}

/// Parses `model M() { a = EXPR; return a; }` and returns EXPR.
struct ExprParse {
  std::unique_ptr<Parsed> parsed;
  const Expr *expr = nullptr;
};
ExprParse parseExpr(const std::string &expr) {
  ExprParse r;
  r.parsed = parse("model M() { a = " + expr + "; return a; }");
  if (r.parsed->program->decls.size() != 1)
    return r;
  const auto *m = dyn_cast<ModelDecl>(r.parsed->program->decls[0].get());
  if (!m || m->getBody().empty())
    return r;
  if (const auto *a = dyn_cast<AssignStmt>(m->getBody()[0].get()))
    r.expr = &a->getValue();
  return r;
}

::testing::AssertionResult locIs(Location loc, unsigned line, unsigned col) {
  if (loc.line == line && loc.col == col)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "location is " << loc.line << ":" << loc.col << ", expected "
         << line << ":" << col;
}

const char *kProgram = R"(# Kipf & Welling GCN.
model GCN(hidden = 16, p = 0.5, depth) {
  h = gcn_conv(x, out = hidden);
  repeat 2 {
    h = relu(h);
    h = dropout(h, p = p);
  }
  return gcn_conv(h, out = classes);
}

train GCN(hidden = 32, 3) on dataset("cora") {
  loss      = cross_entropy();
  optimizer = adam(lr = 0.01, weight_decay = 5e-4);
  epochs    = 200;
  memory    = 256 MiB;
  metrics   = [accuracy, f1];
}
)";

//===----------------------------------------------------------------------===//
// AST shapes
//===----------------------------------------------------------------------===//

TEST(ParserTest, ProgramHasModelThenTrain) {
  auto p = parse(kProgram);
  ASSERT_EQ(p->errors(), 0u) << p->dump();
  EXPECT_TRUE(p->diagnostics().empty()) << p->dump();
  EXPECT_EQ(p->program->filename, "test.gnn");
  ASSERT_EQ(p->program->decls.size(), 2u);
  EXPECT_TRUE(isa<ModelDecl>(p->program->decls[0].get()));
  EXPECT_TRUE(isa<TrainDecl>(p->program->decls[1].get()));
  EXPECT_EQ(p->program->decls[0]->getName(), "GCN");
  EXPECT_EQ(p->program->decls[1]->getName(), "GCN");
}

TEST(ParserTest, ModelParamsAndDefaults) {
  auto p = parse(kProgram);
  ASSERT_EQ(p->errors(), 0u) << p->dump();
  const auto *m = dyn_cast<ModelDecl>(p->program->decls[0].get());
  ASSERT_NE(m, nullptr);
  const auto &params = m->getParams();
  ASSERT_EQ(params.size(), 3u);

  EXPECT_EQ(params[0].name, "hidden");
  EXPECT_TRUE(locIs(params[0].loc, 2, 11));
  const auto *d0 = dyn_cast_or_null<NumberExpr>(params[0].defaultValue.get());
  ASSERT_NE(d0, nullptr);
  EXPECT_EQ(d0->getValue(), 16.0);
  EXPECT_TRUE(d0->isInteger());
  EXPECT_EQ(d0->getSpelling(), "16");

  EXPECT_EQ(params[1].name, "p");
  EXPECT_TRUE(locIs(params[1].loc, 2, 24));
  const auto *d1 = dyn_cast_or_null<NumberExpr>(params[1].defaultValue.get());
  ASSERT_NE(d1, nullptr);
  EXPECT_EQ(d1->getValue(), 0.5);
  EXPECT_FALSE(d1->isInteger());

  EXPECT_EQ(params[2].name, "depth");
  EXPECT_EQ(params[2].defaultValue, nullptr) << "a required parameter";
  EXPECT_TRUE(locIs(params[2].loc, 2, 33));
}

TEST(ParserTest, ModelLocations) {
  auto p = parse(kProgram);
  ASSERT_EQ(p->errors(), 0u) << p->dump();
  const auto *m = dyn_cast<ModelDecl>(p->program->decls[0].get());
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(locIs(m->getLoc(), 2, 1));
  EXPECT_TRUE(locIs(m->getNameLoc(), 2, 7));
  EXPECT_TRUE(locIs(m->getEndLoc(), 9, 1)) << "the closing brace";
}

TEST(ParserTest, ModelStatements) {
  auto p = parse(kProgram);
  ASSERT_EQ(p->errors(), 0u) << p->dump();
  const auto *m = dyn_cast<ModelDecl>(p->program->decls[0].get());
  ASSERT_NE(m, nullptr);
  const Block &body = m->getBody();
  ASSERT_EQ(body.size(), 3u);

  const auto *a = dyn_cast<AssignStmt>(body[0].get());
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->getName(), "h");
  EXPECT_TRUE(locIs(a->getLoc(), 3, 3));
  const auto *call = dyn_cast<CallExpr>(&a->getValue());
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->getCallee(), "gcn_conv");
  EXPECT_TRUE(locIs(call->getLoc(), 3, 7));

  const auto *rep = dyn_cast<RepeatStmt>(body[1].get());
  ASSERT_NE(rep, nullptr);
  EXPECT_TRUE(locIs(rep->getLoc(), 4, 3));
  const auto *count = dyn_cast<NumberExpr>(&rep->getCount());
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(count->getValue(), 2.0);
  EXPECT_TRUE(count->isInteger());
  const Block &repBody = rep->getBody();
  ASSERT_EQ(repBody.size(), 2u);
  const auto *r0 = dyn_cast<AssignStmt>(repBody[0].get());
  const auto *r1 = dyn_cast<AssignStmt>(repBody[1].get());
  ASSERT_NE(r0, nullptr);
  ASSERT_NE(r1, nullptr);
  EXPECT_TRUE(locIs(r0->getLoc(), 5, 5));
  EXPECT_TRUE(locIs(r1->getLoc(), 6, 5));
  const auto *relu = dyn_cast<CallExpr>(&r0->getValue());
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->getCallee(), "relu");
  ASSERT_EQ(relu->getArgs().size(), 1u);
  const auto *drop = dyn_cast<CallExpr>(&r1->getValue());
  ASSERT_NE(drop, nullptr);
  EXPECT_EQ(drop->getCallee(), "dropout");

  const auto *ret = dyn_cast<ReturnStmt>(body[2].get());
  ASSERT_NE(ret, nullptr);
  EXPECT_TRUE(locIs(ret->getLoc(), 8, 3));
  const auto *rc = dyn_cast<CallExpr>(&ret->getValue());
  ASSERT_NE(rc, nullptr);
  EXPECT_EQ(rc->getCallee(), "gcn_conv");
  ASSERT_EQ(rc->getArgs().size(), 2u);
  const auto *classes = dyn_cast<IdentExpr>(rc->getArgs()[1].value.get());
  ASSERT_NE(classes, nullptr);
  EXPECT_EQ(classes->getName(), "classes");
}

TEST(ParserTest, CallArgsNamedAndPositional) {
  auto p = parse(kProgram);
  ASSERT_EQ(p->errors(), 0u) << p->dump();
  const auto *m = dyn_cast<ModelDecl>(p->program->decls[0].get());
  ASSERT_NE(m, nullptr);
  const auto *a = dyn_cast<AssignStmt>(m->getBody()[0].get());
  ASSERT_NE(a, nullptr);
  const auto *call = dyn_cast<CallExpr>(&a->getValue());
  ASSERT_NE(call, nullptr);
  const auto &args = call->getArgs();
  ASSERT_EQ(args.size(), 2u);

  // gcn_conv(x, out = hidden): 'x' at 3:16, 'out' at 3:19.
  EXPECT_FALSE(args[0].isNamed());
  EXPECT_TRUE(args[0].name.empty());
  EXPECT_TRUE(locIs(args[0].nameLoc, 3, 16)) << "positional: the value";
  const auto *x = dyn_cast<IdentExpr>(args[0].value.get());
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->getName(), "x");
  EXPECT_TRUE(locIs(x->getLoc(), 3, 16));

  EXPECT_TRUE(args[1].isNamed());
  EXPECT_EQ(args[1].name, "out");
  EXPECT_TRUE(locIs(args[1].nameLoc, 3, 19));
  const auto *hidden = dyn_cast<IdentExpr>(args[1].value.get());
  ASSERT_NE(hidden, nullptr);
  EXPECT_EQ(hidden->getName(), "hidden");
  EXPECT_TRUE(locIs(hidden->getLoc(), 3, 25));
}

TEST(ParserTest, CallWithoutArgs) {
  ExprParse e = parseExpr("cross_entropy()");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  const auto *call = dyn_cast_or_null<CallExpr>(e.expr);
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->getCallee(), "cross_entropy");
  EXPECT_TRUE(call->getArgs().empty());
}

TEST(ParserTest, TrainHeaderAndArgs) {
  auto p = parse(kProgram);
  ASSERT_EQ(p->errors(), 0u) << p->dump();
  const auto *t = dyn_cast<TrainDecl>(p->program->decls[1].get());
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->getName(), "GCN");
  EXPECT_TRUE(locIs(t->getLoc(), 11, 1));
  EXPECT_TRUE(locIs(t->getNameLoc(), 11, 7));
  EXPECT_TRUE(locIs(t->getEndLoc(), 17, 1));

  const auto &args = t->getArgs();
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[0].name, "hidden");
  EXPECT_TRUE(locIs(args[0].nameLoc, 11, 11));
  const auto *v0 = dyn_cast<NumberExpr>(args[0].value.get());
  ASSERT_NE(v0, nullptr);
  EXPECT_EQ(v0->getValue(), 32.0);
  EXPECT_FALSE(args[1].isNamed());
  EXPECT_TRUE(locIs(args[1].nameLoc, 11, 24));
  const auto *v1 = dyn_cast<NumberExpr>(args[1].value.get());
  ASSERT_NE(v1, nullptr);
  EXPECT_EQ(v1->getValue(), 3.0);

  const auto *data = dyn_cast<CallExpr>(&t->getData());
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->getCallee(), "dataset");
  EXPECT_TRUE(locIs(data->getLoc(), 11, 30));
  ASSERT_EQ(data->getArgs().size(), 1u);
  const auto *name = dyn_cast<StringExpr>(data->getArgs()[0].value.get());
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->getValue(), "cora");
}

TEST(ParserTest, TrainSettings) {
  auto p = parse(kProgram);
  ASSERT_EQ(p->errors(), 0u) << p->dump();
  const auto *t = dyn_cast<TrainDecl>(p->program->decls[1].get());
  ASSERT_NE(t, nullptr);
  const auto &s = t->getSettings();
  ASSERT_EQ(s.size(), 5u);
  const char *names[] = {"loss", "optimizer", "epochs", "memory", "metrics"};
  for (unsigned i = 0; i < 5; ++i) {
    EXPECT_EQ(s[i].name, names[i]);
    EXPECT_TRUE(locIs(s[i].loc, 12 + i, 3)) << names[i];
  }

  const auto *loss = dyn_cast<CallExpr>(s[0].value.get());
  ASSERT_NE(loss, nullptr);
  EXPECT_EQ(loss->getCallee(), "cross_entropy");
  EXPECT_TRUE(loss->getArgs().empty());

  const auto *opt = dyn_cast<CallExpr>(s[1].value.get());
  ASSERT_NE(opt, nullptr);
  EXPECT_EQ(opt->getCallee(), "adam");
  ASSERT_EQ(opt->getArgs().size(), 2u);
  EXPECT_EQ(opt->getArgs()[0].name, "lr");
  EXPECT_EQ(opt->getArgs()[1].name, "weight_decay");
  const auto *wd = dyn_cast<NumberExpr>(opt->getArgs()[1].value.get());
  ASSERT_NE(wd, nullptr);
  EXPECT_EQ(wd->getValue(), 5e-4);
  EXPECT_EQ(wd->getSpelling(), "5e-4");

  const auto *epochs = dyn_cast<NumberExpr>(s[2].value.get());
  ASSERT_NE(epochs, nullptr);
  EXPECT_EQ(epochs->getValue(), 200.0);

  const auto *mem = dyn_cast<SizeExpr>(s[3].value.get());
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(mem->getBytes(), 256ull << 20);
  EXPECT_TRUE(locIs(mem->getLoc(), 15, 15));

  const auto *metrics = dyn_cast<ListExpr>(s[4].value.get());
  ASSERT_NE(metrics, nullptr);
  ASSERT_EQ(metrics->getElements().size(), 2u);
  const auto *m0 = dyn_cast<IdentExpr>(metrics->getElements()[0].get());
  const auto *m1 = dyn_cast<IdentExpr>(metrics->getElements()[1].get());
  ASSERT_NE(m0, nullptr);
  ASSERT_NE(m1, nullptr);
  EXPECT_EQ(m0->getName(), "accuracy");
  EXPECT_EQ(m1->getName(), "f1");
}

TEST(ParserTest, TrainWithoutParensHasNoArgs) {
  auto p = parse("train M on synthetic(nodes = 100) { epochs = 1; }");
  ASSERT_EQ(p->errors(), 0u) << p->dump();
  ASSERT_EQ(p->program->decls.size(), 1u);
  const auto *t = dyn_cast<TrainDecl>(p->program->decls[0].get());
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->getName(), "M");
  EXPECT_TRUE(t->getArgs().empty());
  const auto *data = dyn_cast<CallExpr>(&t->getData());
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->getCallee(), "synthetic");
  ASSERT_EQ(t->getSettings().size(), 1u);

  // Empty parentheses are allowed too.
  p = parse("train M() on dataset(\"cora\") { }");
  ASSERT_EQ(p->errors(), 0u) << p->dump();
  t = dyn_cast<TrainDecl>(p->program->decls[0].get());
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->getArgs().empty());
  EXPECT_TRUE(t->getSettings().empty());
}

TEST(ParserTest, EmptyModelAndParamList) {
  auto p = parse("model M() { }");
  ASSERT_EQ(p->errors(), 0u) << p->dump();
  const auto *m = dyn_cast<ModelDecl>(p->program->decls[0].get());
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->getParams().empty());
  EXPECT_TRUE(m->getBody().empty());
  EXPECT_TRUE(locIs(m->getEndLoc(), 1, 13));
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

TEST(ParserTest, MultiplicationBindsTighterThanAddition) {
  ExprParse e = parseExpr("1 + 2 * 3");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  const auto *add = dyn_cast_or_null<BinaryExpr>(e.expr);
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->getOp(), '+');
  // "model M() { a = 1 + 2 * 3; ..." : '+' at col 19, '*' at col 23.
  EXPECT_TRUE(locIs(add->getLoc(), 1, 19)) << "the operator's location";
  const auto *one = dyn_cast<NumberExpr>(&add->getLHS());
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(one->getValue(), 1.0);
  const auto *mul = dyn_cast<BinaryExpr>(&add->getRHS());
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->getOp(), '*');
  EXPECT_TRUE(locIs(mul->getLoc(), 1, 23));
  const auto *two = dyn_cast<NumberExpr>(&mul->getLHS());
  const auto *three = dyn_cast<NumberExpr>(&mul->getRHS());
  ASSERT_NE(two, nullptr);
  ASSERT_NE(three, nullptr);
  EXPECT_EQ(two->getValue(), 2.0);
  EXPECT_EQ(three->getValue(), 3.0);
}

TEST(ParserTest, MultiplicationFirstThenAddition) {
  ExprParse e = parseExpr("2 * 3 + 1");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  const auto *add = dyn_cast_or_null<BinaryExpr>(e.expr);
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->getOp(), '+');
  const auto *mul = dyn_cast<BinaryExpr>(&add->getLHS());
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->getOp(), '*');
  EXPECT_TRUE(isa<NumberExpr>(&add->getRHS()));
}

TEST(ParserTest, SubtractionIsLeftAssociative) {
  ExprParse e = parseExpr("a - b - c");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  const auto *outer = dyn_cast_or_null<BinaryExpr>(e.expr);
  ASSERT_NE(outer, nullptr);
  EXPECT_EQ(outer->getOp(), '-');
  const auto *inner = dyn_cast<BinaryExpr>(&outer->getLHS());
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->getOp(), '-');
  const auto *c = dyn_cast<IdentExpr>(&outer->getRHS());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->getName(), "c");
  const auto *a = dyn_cast<IdentExpr>(&inner->getLHS());
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->getName(), "a");
}

TEST(ParserTest, MultiplicationIsLeftAssociative) {
  ExprParse e = parseExpr("a * b * c");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  const auto *outer = dyn_cast_or_null<BinaryExpr>(e.expr);
  ASSERT_NE(outer, nullptr);
  EXPECT_EQ(outer->getOp(), '*');
  EXPECT_TRUE(locIs(outer->getLoc(), 1, 23));
  const auto *inner = dyn_cast<BinaryExpr>(&outer->getLHS());
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->getOp(), '*');
  EXPECT_TRUE(locIs(inner->getLoc(), 1, 19));
  EXPECT_TRUE(isa<IdentExpr>(&outer->getRHS()));
}

TEST(ParserTest, ParenthesesOverridePrecedence) {
  ExprParse e = parseExpr("(1 + 2) * 3");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  const auto *mul = dyn_cast_or_null<BinaryExpr>(e.expr);
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->getOp(), '*');
  const auto *add = dyn_cast<BinaryExpr>(&mul->getLHS());
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->getOp(), '+');
}

TEST(ParserTest, UnaryMinus) {
  ExprParse e = parseExpr("-0.01");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  const auto *neg = dyn_cast_or_null<UnaryExpr>(e.expr);
  ASSERT_NE(neg, nullptr);
  EXPECT_TRUE(locIs(neg->getLoc(), 1, 17));
  const auto *num = dyn_cast<NumberExpr>(&neg->getOperand());
  ASSERT_NE(num, nullptr);
  EXPECT_EQ(num->getValue(), 0.01) << "the literal itself is positive";
  EXPECT_TRUE(locIs(num->getLoc(), 1, 18));
}

TEST(ParserTest, UnaryMinusBindsTighterThanBinary) {
  ExprParse e = parseExpr("-x * 2");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  const auto *mul = dyn_cast_or_null<BinaryExpr>(e.expr);
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->getOp(), '*');
  EXPECT_TRUE(isa<UnaryExpr>(&mul->getLHS()));

  e = parseExpr("1 - -2");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  const auto *sub = dyn_cast_or_null<BinaryExpr>(e.expr);
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(sub->getOp(), '-');
  EXPECT_TRUE(isa<NumberExpr>(&sub->getLHS()));
  EXPECT_TRUE(isa<UnaryExpr>(&sub->getRHS()));

  e = parseExpr("- - 3");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  const auto *outer = dyn_cast_or_null<UnaryExpr>(e.expr);
  ASSERT_NE(outer, nullptr);
  const auto *inner = dyn_cast<UnaryExpr>(&outer->getOperand());
  ASSERT_NE(inner, nullptr);
  EXPECT_TRUE(isa<NumberExpr>(&inner->getOperand()));
}

TEST(ParserTest, Lists) {
  ExprParse e = parseExpr("[15, 10, -1]");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  const auto *list = dyn_cast_or_null<ListExpr>(e.expr);
  ASSERT_NE(list, nullptr);
  EXPECT_TRUE(locIs(list->getLoc(), 1, 17));
  const auto &el = list->getElements();
  ASSERT_EQ(el.size(), 3u);
  const auto *a = dyn_cast<NumberExpr>(el[0].get());
  const auto *b = dyn_cast<NumberExpr>(el[1].get());
  const auto *c = dyn_cast<UnaryExpr>(el[2].get());
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(a->getValue(), 15.0);
  EXPECT_EQ(b->getValue(), 10.0);

  e = parseExpr("[]");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  list = dyn_cast_or_null<ListExpr>(e.expr);
  ASSERT_NE(list, nullptr);
  EXPECT_TRUE(list->getElements().empty());

  e = parseExpr("[[1], [2, 3]]");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  list = dyn_cast_or_null<ListExpr>(e.expr);
  ASSERT_NE(list, nullptr);
  ASSERT_EQ(list->getElements().size(), 2u);
  const auto *inner = dyn_cast<ListExpr>(list->getElements()[1].get());
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->getElements().size(), 2u);
}

TEST(ParserTest, SizesInBytes) {
  struct Case {
    const char *text;
    uint64_t bytes;
    const char *spelling;
  } cases[] = {
      {"256 MiB", 256ull << 20, "256 MiB"},
      {"256MiB", 256ull << 20, "256 MiB"},
      {"1.5GB", 1500000000ull, "1.5 GB"},
      {"1.5 KiB", 1536ull, "1.5 KiB"},
      {"4 B", 4ull, "4 B"},
      {"2 TB", 2000000000000ull, "2 TB"},
      {"1e3 KB", 1000000ull, "1e3 KB"},
      {"3GiB", 3ull << 30, "3 GiB"},
  };
  for (const Case &c : cases) {
    ExprParse e = parseExpr(c.text);
    ASSERT_EQ(e.parsed->errors(), 0u) << c.text << "\n" << e.parsed->dump();
    const auto *size = dyn_cast_or_null<SizeExpr>(e.expr);
    ASSERT_NE(size, nullptr) << c.text;
    EXPECT_EQ(size->getBytes(), c.bytes) << c.text;
    EXPECT_EQ(size->getSpelling(), c.spelling) << c.text;
    EXPECT_TRUE(locIs(size->getLoc(), 1, 17)) << c.text;
  }
}

TEST(ParserTest, SizeArithmeticParses) {
  ExprParse e = parseExpr("2 * 512 MiB");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  const auto *mul = dyn_cast_or_null<BinaryExpr>(e.expr);
  ASSERT_NE(mul, nullptr);
  const auto *size = dyn_cast<SizeExpr>(&mul->getRHS());
  ASSERT_NE(size, nullptr);
  EXPECT_EQ(size->getBytes(), 512ull << 20);
}

TEST(ParserTest, StringsAndBools) {
  ExprParse e = parseExpr(R"("say \"hi\" \\ bye")");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  const auto *s = dyn_cast_or_null<StringExpr>(e.expr);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->getValue(), "say \"hi\" \\ bye");

  e = parseExpr("true");
  const auto *t = dyn_cast_or_null<BoolExpr>(e.expr);
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->getValue());
  e = parseExpr("false");
  const auto *f = dyn_cast_or_null<BoolExpr>(e.expr);
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->getValue());

  // Keywords are not identifiers, but words that merely contain them are.
  e = parseExpr("true_ish");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  EXPECT_TRUE(isa_and_nonnull<IdentExpr>(e.expr));
}

TEST(ParserTest, CommentsAreSkipped) {
  auto p = parse("# a comment\n"
                 "// another one\n"
                 "model M() { // trailing\n"
                 "  return x; # the end\n"
                 "}");
  ASSERT_EQ(p->errors(), 0u) << p->dump();
  ASSERT_EQ(p->program->decls.size(), 1u);
  const auto *m = dyn_cast<ModelDecl>(p->program->decls[0].get());
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(locIs(m->getLoc(), 3, 1));
  ASSERT_EQ(m->getBody().size(), 1u);
  EXPECT_TRUE(locIs(m->getBody()[0]->getLoc(), 4, 3));
}

TEST(ParserTest, ColumnsCountBytes) {
  // 'é' is two bytes in UTF-8: the columns after it shift by two.
  auto p = parse("train M on dataset(\"\xC3\xA9\") { epochs = 1; }");
  ASSERT_EQ(p->errors(), 0u) << p->dump();
  const auto *t = dyn_cast<TrainDecl>(p->program->decls[0].get());
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->getSettings().size(), 1u);
  EXPECT_TRUE(locIs(t->getSettings()[0].loc, 1, 28));
  EXPECT_TRUE(locIs(t->getEndLoc(), 1, 40));
  const auto *data = dyn_cast<CallExpr>(&t->getData());
  ASSERT_NE(data, nullptr);
  const auto *s = dyn_cast<StringExpr>(data->getArgs()[0].value.get());
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->getValue(), "\xC3\xA9");
}

TEST(ParserTest, ToSourceRoundTrip) {
  ExprParse e = parseExpr("adam(lr = 0.01, 1 + 2 * 3, [a, \"q\\\"\"], -x)");
  ASSERT_EQ(e.parsed->errors(), 0u) << e.parsed->dump();
  ASSERT_NE(e.expr, nullptr);
  EXPECT_EQ(toSource(*e.expr),
            "adam(lr = 0.01, (1 + (2 * 3)), [a, \"q\\\"\"], -x)");
}

//===----------------------------------------------------------------------===//
// Syntax errors
//===----------------------------------------------------------------------===//

TEST(ParserTest, MissingSemicolonReportedAtEndOfPreviousLine) {
  auto p = parse("model M() {\n"
                 "  h = relu(x)\n"
                 "  return h;\n"
                 "}\n");
  ASSERT_EQ(p->errors(), 1u) << p->dump();
  const Diagnostic &d = p->diagnostics()[0];
  EXPECT_EQ(d.kind, DiagKind::Error);
  EXPECT_TRUE(locIs(d.loc, 2, 14)) << "just after ')'";
  EXPECT_NE(d.message.find("expected ';'"), std::string::npos) << d.message;
  // Recovery keeps both statements.
  const auto *m = dyn_cast<ModelDecl>(p->program->decls[0].get());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->getBody().size(), 2u);
}

TEST(ParserTest, MissingSemicolonAfterWordValue) {
  auto p = parse("train M on dataset(\"cora\") {\n"
                 "  precision = fp32\n"
                 "  memory = 256 MiB;\n"
                 "}\n");
  ASSERT_EQ(p->errors(), 1u) << p->dump();
  EXPECT_TRUE(locIs(p->diagnostics()[0].loc, 2, 19));
  EXPECT_EQ(p->diagnostics()[0].message,
            "expected ';' at the end of the statement");
}

// A number at the end of a line must not swallow the next line's first word
// as a size unit: `epochs = 10` followed by `seed = 1;` is a missing ';'.
TEST(ParserTest, MissingSemicolonInSettings) {
  auto p = parse("train M on dataset(\"cora\") {\n"
                 "  epochs = 10\n"
                 "  seed = 1;\n"
                 "}\n");
  ASSERT_EQ(p->errors(), 1u) << p->dump();
  const Diagnostic &d = p->diagnostics()[0];
  EXPECT_TRUE(locIs(d.loc, 2, 14));
  EXPECT_NE(d.message.find("expected ';'"), std::string::npos) << d.message;
}

TEST(ParserTest, SeveralSyntaxErrorsReportedAtOnce) {
  auto p = parse("model M() {\n"
                 "  a = relu(x)\n"
                 "  b = relu(a)\n"
                 "  return b;\n"
                 "}\n"
                 "model N() {\n"
                 "  return x\n"
                 "}\n");
  ASSERT_EQ(p->errors(), 3u) << p->dump();
  EXPECT_TRUE(locIs(p->diagnostics()[0].loc, 2, 14));
  EXPECT_TRUE(locIs(p->diagnostics()[1].loc, 3, 14));
  EXPECT_TRUE(locIs(p->diagnostics()[2].loc, 7, 11));
  for (const Diagnostic &d : p->diagnostics())
    EXPECT_NE(d.message.find("expected ';'"), std::string::npos) << d.message;
  EXPECT_EQ(p->program->decls.size(), 2u) << "both models survive recovery";
}

TEST(ParserTest, MissingSemicolonOnSameLine) {
  // Not at a line break: reported at the token that should have been ';'.
  auto p = parse("model M() { a = x b = x; return a; }");
  ASSERT_GE(p->errors(), 1u);
  const Diagnostic &d = p->diagnostics()[0];
  EXPECT_TRUE(locIs(d.loc, 1, 19)) << p->dump();
  EXPECT_NE(d.message.find("'b'"), std::string::npos) << d.message;
}

TEST(ParserTest, ExpectedExpression) {
  auto p = parse("model M() { a = ; return a; }");
  ASSERT_GE(p->errors(), 1u);
  const Diagnostic &d = p->diagnostics()[0];
  EXPECT_TRUE(locIs(d.loc, 1, 17)) << p->dump();
  EXPECT_NE(d.message.find("expression"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("';'"), std::string::npos)
      << "names what was found: " << d.message;
}

TEST(ParserTest, ModelNameMustBeAName) {
  auto p = parse("model 42() { return x; }");
  ASSERT_GE(p->errors(), 1u);
  const Diagnostic &d = p->diagnostics()[0];
  EXPECT_TRUE(locIs(d.loc, 1, 7)) << p->dump();
  EXPECT_NE(d.message.find("'42'"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("a name"), std::string::npos) << d.message;
}

TEST(ParserTest, MissingOnInTrain) {
  auto p = parse("train M dataset(\"cora\") { epochs = 1; }");
  ASSERT_GE(p->errors(), 1u);
  const Diagnostic &d = p->diagnostics()[0];
  EXPECT_TRUE(locIs(d.loc, 1, 9)) << p->dump();
  EXPECT_NE(d.message.find("'on'"), std::string::npos) << d.message;
}

TEST(ParserTest, UnexpectedEndOfFile) {
  auto p = parse("model M() {\n  return x;\n");
  ASSERT_GE(p->errors(), 1u);
  const Diagnostic &d = p->diagnostics()[0];
  EXPECT_NE(d.message.find("end of file"), std::string::npos) << d.message;
  EXPECT_EQ(d.loc.line, 3u) << p->dump();
}

TEST(ParserTest, StrayTopLevelToken) {
  auto p = parse("model M() { return x; }\n"
                 "return x;\n");
  ASSERT_GE(p->errors(), 1u);
  const Diagnostic &d = p->diagnostics()[0];
  EXPECT_TRUE(locIs(d.loc, 2, 1)) << p->dump();
  EXPECT_NE(d.message.find("'return'"), std::string::npos) << d.message;
}

TEST(ParserTest, UnknownSizeUnit) {
  auto p = parse("train M on dataset(\"cora\") {\n"
                 "  memory = 256 Mib;\n"
                 "}\n");
  ASSERT_EQ(p->errors(), 1u) << p->dump();
  const Diagnostic &d = p->diagnostics()[0];
  EXPECT_TRUE(locIs(d.loc, 2, 16)) << "at the unit";
  EXPECT_NE(d.message.find("unknown size unit 'Mib'"), std::string::npos)
      << d.message;
  EXPECT_NE(d.message.find("did you mean 'MiB'"), std::string::npos)
      << d.message;
}

TEST(ParserTest, SizeNotWholeBytes) {
  auto p = parse("train M on dataset(\"cora\") {\n"
                 "  memory = 0.1 KiB;\n"
                 "}\n");
  ASSERT_EQ(p->errors(), 1u) << p->dump();
  const Diagnostic &d = p->diagnostics()[0];
  EXPECT_TRUE(locIs(d.loc, 2, 12));
  EXPECT_NE(d.message.find("not a whole number of bytes"), std::string::npos)
      << d.message;
}

TEST(ParserTest, IntegerTooLarge) {
  auto p = parse("train M on dataset(\"cora\") {\n"
                 "  seed = 99999999999999999999;\n"
                 "}\n");
  ASSERT_EQ(p->errors(), 1u) << p->dump();
  const Diagnostic &d = p->diagnostics()[0];
  EXPECT_TRUE(locIs(d.loc, 2, 10));
  EXPECT_NE(d.message.find("too large"), std::string::npos) << d.message;
}

TEST(ParserTest, BadEscapePointsAtBackslash) {
  auto p = parse("train M on dataset(\"co\\ra\") { }");
  ASSERT_EQ(p->errors(), 1u) << p->dump();
  const Diagnostic &d = p->diagnostics()[0];
  // The string starts at column 20; the backslash is its fourth byte.
  EXPECT_TRUE(locIs(d.loc, 1, 23));
  EXPECT_NE(d.message.find("unknown escape sequence"), std::string::npos)
      << d.message;
}

//===----------------------------------------------------------------------===//
// Lexical errors
//===----------------------------------------------------------------------===//

TEST(ParserTest, BadCharacter) {
  auto p = parse("model M() {\n"
                 "  h = relu(x) @;\n"
                 "  return h;\n"
                 "}\n");
  ASSERT_EQ(p->errors(), 1u) << p->dump();
  const Diagnostic &d = p->diagnostics()[0];
  EXPECT_TRUE(locIs(d.loc, 2, 15));
  EXPECT_EQ(d.message, "unexpected character '@'");
  // The character is dropped and the rest parses.
  const auto *m = dyn_cast<ModelDecl>(p->program->decls[0].get());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->getBody().size(), 2u);
}

TEST(ParserTest, NonAsciiCharacter) {
  auto p = parse("model M() { return x; } \xC3\xA9\n");
  ASSERT_EQ(p->errors(), 1u) << p->dump();
  const Diagnostic &d = p->diagnostics()[0];
  EXPECT_TRUE(locIs(d.loc, 1, 25));
  EXPECT_NE(d.message.find("unexpected character"), std::string::npos);
}

TEST(ParserTest, ControlCharacter) {
  auto p = parse(llvm::StringRef("model M() { return x; }\n\x01", 25));
  ASSERT_EQ(p->errors(), 1u) << p->dump();
  EXPECT_TRUE(locIs(p->diagnostics()[0].loc, 2, 1));
  EXPECT_NE(p->diagnostics()[0].message.find("unexpected character"),
            std::string::npos);
}

TEST(ParserTest, InvalidUtf8) {
  auto p = parse("model M() {\n  return \xFF;\n}\n");
  ASSERT_EQ(p->errors(), 1u) << p->dump();
  const Diagnostic &d = p->diagnostics()[0];
  EXPECT_TRUE(locIs(d.loc, 2, 10));
  EXPECT_NE(d.message.find("not valid UTF-8"), std::string::npos) << d.message;
  EXPECT_TRUE(p->program->decls.empty());

  // Columns count bytes here too: 'é' before the bad byte is two columns.
  p = parse("# \xC3\xA9\xC3\xA9 \xC0\n");
  ASSERT_EQ(p->errors(), 1u) << p->dump();
  EXPECT_TRUE(locIs(p->diagnostics()[0].loc, 1, 8)) << p->dump();
}

TEST(ParserTest, UnterminatedStringAndRecovery) {
  auto p = parse("train M on dataset(\"cora) {\n"
                 "  epochs = 1;\n"
                 "}\n"
                 "model N() { h = relu(x) $; return h; }\n");
  ASSERT_GE(p->errors(), 2u) << p->dump();
  const Diagnostic &first = p->diagnostics()[0];
  EXPECT_TRUE(locIs(first.loc, 1, 20)) << p->dump();
  EXPECT_EQ(first.message, "unterminated string literal");
  // The lexer goes on: the '$' three lines later is reported too.
  bool sawDollar = false;
  for (const Diagnostic &d : p->diagnostics())
    if (d.message == "unexpected character '$'") {
      sawDollar = true;
      EXPECT_TRUE(locIs(d.loc, 4, 25));
    }
  EXPECT_TRUE(sawDollar) << p->dump();
}

TEST(ParserTest, SeveralLexicalErrors) {
  auto p = parse("model M() {\n"
                 "  a = relu(x) ?;\n"
                 "  b = relu(a) !;\n"
                 "  return b;\n"
                 "}\n");
  ASSERT_EQ(p->errors(), 2u) << p->dump();
  EXPECT_TRUE(locIs(p->diagnostics()[0].loc, 2, 15));
  EXPECT_TRUE(locIs(p->diagnostics()[1].loc, 3, 15));
  const auto *m = dyn_cast<ModelDecl>(p->program->decls[0].get());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->getBody().size(), 3u);
}

//===----------------------------------------------------------------------===//
// Limits
//===----------------------------------------------------------------------===//

TEST(ParserTest, NestingLimit) {
  ParserLimits limits;
  limits.maxNesting = 8;
  // '{' is level 1, then one level per parenthesis (relu's included).
  auto nested = [](int k) {
    return "model M() { return relu" + std::string(k, '(') + "x" +
           std::string(k, ')') + "; }";
  };
  auto ok = parse(nested(7), limits);
  EXPECT_EQ(ok->errors(), 0u) << ok->dump();

  auto p = parse(nested(8), limits);
  ASSERT_EQ(p->errors(), 1u) << p->dump();
  const Diagnostic &d = p->diagnostics()[0];
  EXPECT_TRUE(locIs(d.loc, 1, 31)) << "the eighth '(' (level 9)";
  EXPECT_EQ(d.message, "expression nested too deeply (the limit is 8 levels)");
  EXPECT_TRUE(p->program->decls.empty());
}

TEST(ParserTest, NestingLimitCountsUnaryMinusRuns) {
  ParserLimits limits;
  limits.maxNesting = 6;
  auto ok = parse("model M() { a = - - - - - 1; return x; }", limits);
  EXPECT_EQ(ok->errors(), 0u) << ok->dump();
  auto p = parse("model M() { a = - - - - - - 1; return x; }", limits);
  ASSERT_EQ(p->errors(), 1u) << p->dump();
  EXPECT_NE(p->diagnostics()[0].message.find("nested too deeply"),
            std::string::npos);
}

TEST(ParserTest, OperandLimit) {
  ParserLimits limits;
  limits.maxOperands = 3;
  auto ok = parse("model M() { a = 1 + 2 + 3; return x; }", limits);
  EXPECT_EQ(ok->errors(), 0u) << ok->dump();
  auto p = parse("model M() { a = 1 + 2 + 3 + 4; return x; }", limits);
  ASSERT_EQ(p->errors(), 1u) << p->dump();
  EXPECT_TRUE(locIs(p->diagnostics()[0].loc, 1, 17));
  EXPECT_EQ(p->diagnostics()[0].message,
            "expression has 4 operands; the limit is 3");
  auto q = parse("model M() { a = 1 * 2 * 3 * 4; return x; }", limits);
  ASSERT_EQ(q->errors(), 1u) << q->dump();
}

TEST(ParserTest, DefaultLimitsStopDeepBrackets) {
  for (const char *open : {"(", "[", "-", "f("}) {
    std::string src = "model M() { a = ";
    for (int i = 0; i < 100000; ++i)
      src += open;
    src += "1";
    auto p = parse(src);
    ASSERT_GE(p->errors(), 1u) << open;
    EXPECT_NE(p->diagnostics()[0].message.find("nested too deeply"),
              std::string::npos)
        << open << ": " << p->diagnostics()[0].message;
  }
}

TEST(ParserTest, NestingWithinDefaultLimitParses) {
  // 255 parentheses inside the model's '{' is exactly the default limit.
  std::string src = "model M() { a = " + std::string(255, '(') + "1" +
                    std::string(255, ')') + "; return x; }";
  auto p = parse(src);
  EXPECT_EQ(p->errors(), 0u) << p->dump();
  ASSERT_EQ(p->program->decls.size(), 1u);

  // Alternating '-(' doubles the recursion without counting as minus runs.
  src = "model M() { a = ";
  for (int i = 0; i < 255; ++i)
    src += "-(";
  src += "1" + std::string(255, ')') + "; return x; }";
  p = parse(src);
  EXPECT_EQ(p->errors(), 0u) << p->dump();
  ASSERT_EQ(p->program->decls.size(), 1u);

  src = "model M() { a = " + std::string(256, '[') + "1" +
        std::string(256, ']') + "; return x; }";
  p = parse(src);
  ASSERT_EQ(p->errors(), 1u) << "257 levels";
}

//===----------------------------------------------------------------------===//
// Robustness
//===----------------------------------------------------------------------===//

TEST(ParserTest, EmptyInput) {
  auto p = parse("");
  EXPECT_EQ(p->errors(), 0u) << p->dump();
  EXPECT_TRUE(p->diagnostics().empty());
  EXPECT_TRUE(p->program->decls.empty());
  EXPECT_EQ(p->program->filename, "test.gnn");
}

TEST(ParserTest, OnlyCommentsAndWhitespace) {
  auto p = parse("# one\n// two\n\n   \t\r\n# no newline at the end");
  EXPECT_EQ(p->errors(), 0u) << p->dump();
  EXPECT_TRUE(p->program->decls.empty());
}

TEST(ParserTest, RandomBytesNeverCrash) {
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 300; ++iter) {
    size_t len = rng() % 200;
    std::string src;
    for (size_t i = 0; i < len; ++i)
      src.push_back(static_cast<char>(rng() & 0xFF));
    auto p = parse(src);
    ASSERT_NE(p->program, nullptr);
    EXPECT_LE(p->errors(), 20u) << "the error limit holds";
  }
}

TEST(ParserTest, RandomAsciiNeverCrashes) {
  std::mt19937 rng(42);
  for (int iter = 0; iter < 300; ++iter) {
    size_t len = rng() % 300;
    std::string src;
    for (size_t i = 0; i < len; ++i)
      src.push_back(static_cast<char>(rng() % 128));
    auto p = parse(src);
    ASSERT_NE(p->program, nullptr);
  }
}

TEST(ParserTest, RandomTokensNeverCrash) {
  const char *tokens[] = {"model", "train", "on", "return", "repeat", "true",
                          "false", "x",     "M",  "(",      ")",      "{",
                          "}",     "[",     "]",  ",",      ";",      "=",
                          "+",     "-",     "*",  "1",      "0.5",    "5e-4",
                          "\"s\"", "MiB",   "\"", "relu",   "@",      "\n"};
  std::mt19937 rng(7);
  for (int iter = 0; iter < 1000; ++iter) {
    size_t len = rng() % 60;
    std::string src;
    for (size_t i = 0; i < len; ++i) {
      src += tokens[rng() % (sizeof(tokens) / sizeof(tokens[0]))];
      src += ' ';
    }
    auto p = parse(src);
    ASSERT_NE(p->program, nullptr) << src;
    // Whatever was recovered is a well-formed tree.
    for (const auto &decl : p->program->decls)
      ASSERT_NE(decl, nullptr) << src;
  }
}

TEST(ParserTest, TruncatedProgramsNeverCrash) {
  std::string full = kProgram;
  for (size_t n = 0; n <= full.size(); ++n) {
    auto p = parse(llvm::StringRef(full).take_front(n));
    ASSERT_NE(p->program, nullptr) << n;
    if (n == full.size()) {
      EXPECT_EQ(p->errors(), 0u);
    }
  }
}

TEST(ParserTest, LongOperandChainIsBounded) {
  std::string src = "model M() { a = 1";
  for (int i = 0; i < 5000; ++i)
    src += " + 1";
  src += "; return x; }";
  auto p = parse(src);
  ASSERT_EQ(p->errors(), 1u) << p->dump();
  EXPECT_EQ(p->diagnostics()[0].message,
            "expression has 5001 operands; the limit is 4096");
}

//===----------------------------------------------------------------------===//
// The diagnostics engine
//===----------------------------------------------------------------------===//

struct Engine {
  llvm::SourceMgr sm;
  std::string out;
  llvm::raw_string_ostream os{out};
  std::unique_ptr<DiagnosticEngine> diags;
  explicit Engine(llvm::StringRef source) {
    unsigned id = sm.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(source, "f.gnn"), llvm::SMLoc());
    diags = std::make_unique<DiagnosticEngine>(sm, id, &os);
  }
};

TEST(DiagnosticsTest, RendersFileLineColAndCaret) {
  Engine e("model M() {\n  h = relu(x)\n}\n");
  e.diags->error({2, 7}, "something is wrong");
  e.diags->note({1, 7}, "see here");
  e.diags->warning({2, 3}, "careful");
  e.os.flush();
  EXPECT_EQ(e.out, "f.gnn:2:7: error: something is wrong\n"
                   "  h = relu(x)\n"
                   "      ^\n"
                   "f.gnn:1:7: note: see here\n"
                   "model M() {\n"
                   "      ^\n"
                   "f.gnn:2:3: warning: careful\n"
                   "  h = relu(x)\n"
                   "  ^\n");
  EXPECT_EQ(e.diags->errorCount(), 1u);
  EXPECT_EQ(e.diags->diagnostics().size(), 3u);
  EXPECT_EQ(e.diags->getFilename(), "f.gnn");
}

TEST(DiagnosticsTest, EndOfLineAndLocationlessDiagnostics) {
  Engine e("a = 1\n");
  e.diags->error({1, 6}, "expected ';'");
  e.diags->error({}, "whole-file problem");
  e.os.flush();
  EXPECT_NE(e.out.find("f.gnn:1:6: error: expected ';'\na = 1\n     ^\n"),
            std::string::npos)
      << e.out;
  EXPECT_NE(e.out.find("f.gnn: error: whole-file problem"), std::string::npos)
      << e.out;
  EXPECT_EQ(e.diags->errorCount(), 2u);
}

TEST(DiagnosticsTest, DuplicatesAreDroppedWithTheirNotes) {
  Engine e("x\n");
  e.diags->error({1, 1}, "bad");
  e.diags->note({1, 1}, "first note");
  e.diags->error({1, 1}, "bad");        // The same error again...
  e.diags->note({1, 1}, "second note"); // ...and its note are dropped.
  e.diags->error({1, 1}, "worse");      // A different message is kept.
  e.diags->warning({1, 1}, "bad");      // So is the same text as a warning.
  e.diags->note({1, 1}, "third note");
  e.diags->warning({1, 1}, "bad");
  const auto &d = e.diags->diagnostics();
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(d[0].message, "bad");
  EXPECT_EQ(d[1].message, "first note");
  EXPECT_EQ(d[2].message, "worse");
  EXPECT_EQ(d[3].kind, DiagKind::Warning);
  EXPECT_EQ(d[4].message, "third note");
  EXPECT_EQ(e.diags->errorCount(), 2u);
}

TEST(DiagnosticsTest, WarningsAndNotesAreNotErrors) {
  Engine e("x\n");
  e.diags->warning({1, 1}, "w");
  e.diags->note({1, 1}, "n");
  EXPECT_FALSE(e.diags->hasErrors());
  EXPECT_EQ(e.diags->errorCount(), 0u);
}

TEST(DiagnosticsTest, ErrorLimit) {
  Engine e("x\n");
  e.diags->setErrorLimit(2);
  e.diags->error({1, 1}, "e1");
  e.diags->error({1, 1}, "e2");
  EXPECT_FALSE(e.diags->shouldStop());
  e.diags->error({1, 1}, "e3");
  EXPECT_TRUE(e.diags->shouldStop());
  e.diags->note({1, 1}, "n3");
  e.diags->warning({1, 1}, "w");
  e.diags->error({1, 1}, "e4");
  EXPECT_EQ(e.diags->errorCount(), 2u);
  EXPECT_EQ(e.diags->diagnostics().size(), 2u);
  e.os.flush();
  EXPECT_NE(e.out.find("f.gnn: error: too many errors emitted, stopping now"),
            std::string::npos)
      << e.out;
  EXPECT_EQ(e.out.find("e3"), std::string::npos);
}

/// An expression inside every limit whose syntax tree is still 8191 nodes
/// deep: a chain of 4096 '*' factors as the first of 4096 '+' terms. Each
/// chain is within maxOperands and there are no brackets at all.
std::string deepLeftSpine() {
  std::string src = "model M() { a = 1";
  for (int i = 1; i < 4096; ++i)
    src += "*1";
  for (int i = 1; i < 4096; ++i)
    src += "+1";
  return src + "; return x; }\n";
}

// The limits exist so that no input can exhaust the stack; whatever the
// parser accepts, the tools must be able to walk and free.
TEST(ParserDeathTest, DeepTreeWithinLimitsDoesNotCrash) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::string src = deepLeftSpine();
  EXPECT_EXIT(
      {
        auto p = parse(src);
        std::string out;
        llvm::raw_string_ostream os(out);
        dump(*p->program, os);
        p.reset();
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(ParserTest, ErrorLimitStopsReporting) {
  std::string src;
  for (int i = 0; i < 100; ++i)
    src += "@\n";
  auto p = parse(src);
  EXPECT_EQ(p->errors(), 20u);
  EXPECT_TRUE(p->diags->shouldStop());
}

} // namespace
