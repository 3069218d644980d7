//===- Parser.cpp - .gnn source to AST ------------------------------------===//
//
// Runs the ANTLR lexer and parser and turns the parse tree into the AST.
// This file is compiled with exceptions: ANTLR's runtime may throw, and every
// exception is caught here.
//
// Diagnostics are rephrased from ANTLR's ("mismatched input 'x' expecting
// ';'") into compiler style ("expected ';' after statement").
//
//===----------------------------------------------------------------------===//
#include "lang/Parser/Parser.h"

#include "lang/Basic/Diagnostics.h"
#include "lang/Basic/Suggest.h"
#include "lang/Parser/Literals.h"

#include "GnnLexer.h"
#include "GnnParser.h"
#include "antlr4-runtime.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ConvertUTF.h"

#include <cctype>
#include <exception>

using namespace gnnc;
using namespace gnnc::ast;
using gnnc_antlr::GnnLexer;
using gnnc_antlr::GnnParser;

namespace {

/// Maps ANTLR's code-point positions to byte columns, which is what
/// llvm::SourceMgr (and every editor's "column") counts.
class PositionMap {
public:
  explicit PositionMap(llvm::StringRef source) {
    // ANTLR's input stream drops a UTF-8 byte-order mark, so its code-point
    // indices start one later than ours.
    if (source.starts_with("\xEF\xBB\xBF"))
      cpBias = 1;
    for (size_t i = 0; i < source.size(); ++i) {
      unsigned char c = source[i];
      if ((c & 0xC0) != 0x80)
        cpToByte.push_back(i);
      if (c == '\n')
        lineStarts.push_back(i + 1);
    }
    cpToByte.push_back(source.size());
  }

  /// Location of the code point at \p cpIndex of ANTLR's input.
  Location at(size_t cpIndex) const {
    cpIndex += cpBias;
    return atByte(cpIndex < cpToByte.size() ? cpToByte[cpIndex]
                                            : cpToByte.back());
  }

  /// Location of byte offset \p byte of the source.
  Location atByte(size_t byte) const {
    auto it = std::upper_bound(lineStarts.begin(), lineStarts.end(), byte);
    size_t line = it - lineStarts.begin(); // lineStarts[0] == 0
    return {static_cast<unsigned>(line),
            static_cast<unsigned>(byte - lineStarts[line - 1] + 1)};
  }

  Location of(const antlr4::Token *tok) const {
    if (!tok)
      return {};
    return at(tok->getStartIndex());
  }

  /// The location just after the token's last character.
  Location after(const antlr4::Token *tok) const {
    if (!tok)
      return {};
    return at(tok->getStopIndex() + 1);
  }

private:
  std::vector<size_t> cpToByte;
  std::vector<size_t> lineStarts{0};
  size_t cpBias = 0;
};

std::string describe(const antlr4::Token *tok) {
  if (!tok || tok->getType() == antlr4::Token::EOF)
    return "end of file";
  return "'" + tok->getText() + "'";
}

std::string tokenName(size_t type, const antlr4::dfa::Vocabulary &vocab) {
  switch (type) {
  case GnnParser::IDENT:
    return "a name";
  case GnnParser::NUMBER:
    return "a number";
  case GnnParser::SIZE:
    return "a size";
  case GnnParser::STRING:
    return "a string";
  case antlr4::Token::EOF:
    return "end of file";
  default:
    return vocab.getDisplayName(type);
  }
}

/// Reports syntax errors in compiler style and keeps ANTLR's recovery going.
class SyntaxErrorListener : public antlr4::BaseErrorListener {
public:
  SyntaxErrorListener(DiagnosticEngine &diags, const PositionMap &pos)
      : diags(diags), pos(pos) {}

  void syntaxError(antlr4::Recognizer *recognizer, antlr4::Token *offending,
                   size_t, size_t, const std::string &,
                   std::exception_ptr) override {
    auto *parser = dynamic_cast<antlr4::Parser *>(recognizer);
    std::vector<size_t> expected;
    if (parser) {
      try {
        for (ssize_t t : parser->getExpectedTokens().toList())
          expected.push_back(static_cast<size_t>(t));
      } catch (...) {
        // No expectation available: fall back to "unexpected X".
      }
    }
    Location loc = pos.of(offending);
    bool wantsSemi = llvm::is_contained(expected, GnnParser::SEMI);
    // A missing ';' is noticed on the next line; point where it belongs.
    if (parser && wantsSemi && expected.size() <= 3) {
      const antlr4::Token *prev = parser->getTokenStream()->LT(-1);
      if (prev && offending && prev->getLine() < offending->getLine()) {
        diags.error(pos.after(prev),
                    "expected ';' at the end of the statement");
        return;
      }
    }
    diags.error(loc, message(parser, offending, expected));
  }

private:
  std::string message(antlr4::Parser *parser, const antlr4::Token *offending,
                      const std::vector<size_t> &expected) {
    std::string found = describe(offending);
    if (!parser || expected.empty())
      return "unexpected " + found;
    const auto &vocab = parser->getVocabulary();
    bool exprStart = llvm::is_contained(expected, GnnParser::NUMBER) &&
                     llvm::is_contained(expected, GnnParser::STRING);
    std::vector<std::string> names;
    if (exprStart)
      names.push_back("an expression");
    for (size_t t : expected) {
      // Tokens that can start an expression are summed up above.
      if (exprStart && (t == GnnParser::IDENT || isExpressionStart(t)))
        continue;
      names.push_back(tokenName(t, vocab));
    }
    std::string list;
    for (size_t i = 0; i < names.size(); ++i) {
      if (i)
        list += i + 1 == names.size() ? " or " : ", ";
      list += names[i];
    }
    // "expected X but found Y" reads well for one or two choices; longer
    // lists put the surprise first.
    if (names.size() <= 2)
      return "expected " + list + ", found " + found;
    return "unexpected " + found + "; expected " + list;
  }

  static bool isExpressionStart(size_t t) {
    return t == GnnParser::NUMBER || t == GnnParser::SIZE ||
           t == GnnParser::STRING || t == GnnParser::TRUE ||
           t == GnnParser::FALSE || t == GnnParser::MINUS ||
           t == GnnParser::LPAREN || t == GnnParser::LBRACK;
  }

  DiagnosticEngine &diags;
  const PositionMap &pos;
};

/// ANTLR's default recovery deletes one unexpected token when the next one
/// fits; for `a = ;` + newline + `b = 1;` that deletes the ';' and makes a
/// valid next statement look broken. Statement ends are never deleted.
class StatementAwareErrorStrategy : public antlr4::DefaultErrorStrategy {
protected:
  antlr4::Token *singleTokenDeletion(antlr4::Parser *recognizer) override {
    size_t next = recognizer->getCurrentToken()->getType();
    if (next == GnnParser::SEMI || next == GnnParser::RBRACE ||
        next == GnnParser::LBRACE)
      return nullptr;
    return antlr4::DefaultErrorStrategy::singleTokenDeletion(recognizer);
  }
};

/// Builds the AST from ANTLR's parse tree. With error recovery, any child
/// may be missing; those become `<error>` placeholders (never read, since
/// Sema does not run on a program with syntax errors).
class ASTBuilder {
public:
  ASTBuilder(DiagnosticEngine &diags, const PositionMap &pos,
             const ParserLimits &limits)
      : diags(diags), pos(pos), limits(limits) {}

  std::unique_ptr<Program> build(GnnParser::ProgramContext *ctx,
                                 std::string filename) {
    auto program = std::make_unique<Program>();
    program->filename = std::move(filename);
    if (!ctx)
      return program;
    for (auto *decl : ctx->decl()) {
      if (!decl)
        continue;
      if (auto *m = decl->modelDecl())
        program->decls.push_back(buildModel(m));
      else if (auto *t = decl->trainDecl())
        program->decls.push_back(buildTrain(t));
    }
    return program;
  }

private:
  Location loc(antlr4::ParserRuleContext *ctx) const {
    return ctx ? pos.of(ctx->getStart()) : Location{};
  }
  static std::string text(antlr4::tree::TerminalNode *node) {
    return node ? node->getText() : std::string("<error>");
  }
  static std::string text(antlr4::Token *tok) {
    return tok ? tok->getText() : std::string("<error>");
  }
  ExprPtr placeholder(Location l) {
    return std::make_unique<IdentExpr>(l, "<error>");
  }

  std::unique_ptr<Decl> buildModel(GnnParser::ModelDeclContext *ctx) {
    std::vector<Param> params;
    for (auto *p : ctx->param()) {
      if (!p)
        continue;
      Param param;
      param.name = text(p->IDENT());
      param.loc = loc(p);
      if (p->expr())
        param.defaultValue = buildExpr(p->expr());
      params.push_back(std::move(param));
    }
    Block body;
    Location end = loc(ctx);
    if (auto *block = ctx->block()) {
      body = buildBlock(block);
      end = pos.of(block->getStop());
    }
    return std::make_unique<ModelDecl>(loc(ctx), text(ctx->name),
                                       pos.of(ctx->name), std::move(params),
                                       std::move(body), end);
  }

  Block buildBlock(GnnParser::BlockContext *ctx) {
    Block block;
    for (auto *s : ctx->stmt())
      if (s)
        if (StmtPtr stmt = buildStmt(s))
          block.push_back(std::move(stmt));
    return block;
  }

  StmtPtr buildStmt(GnnParser::StmtContext *ctx) {
    if (auto *a = dynamic_cast<GnnParser::AssignStmtContext *>(ctx))
      return std::make_unique<AssignStmt>(loc(a), text(a->IDENT()),
                                          buildExpr(a->expr()));
    if (auto *r = dynamic_cast<GnnParser::RepeatStmtContext *>(ctx)) {
      Block body;
      if (r->block())
        body = buildBlock(r->block());
      return std::make_unique<RepeatStmt>(loc(r), buildExpr(r->expr()),
                                          std::move(body));
    }
    if (auto *r = dynamic_cast<GnnParser::ReturnStmtContext *>(ctx))
      return std::make_unique<ReturnStmt>(loc(r), buildExpr(r->expr()));
    return nullptr;
  }

  std::unique_ptr<Decl> buildTrain(GnnParser::TrainDeclContext *ctx) {
    std::vector<Arg> args;
    for (auto *a : ctx->arg())
      if (a)
        args.push_back(buildArg(a));
    std::vector<Setting> settings;
    for (auto *s : ctx->setting()) {
      if (!s)
        continue;
      Setting setting;
      setting.name = text(s->IDENT());
      setting.loc = loc(s);
      setting.value = buildExpr(s->expr());
      settings.push_back(std::move(setting));
    }
    return std::make_unique<TrainDecl>(
        loc(ctx), text(ctx->name), pos.of(ctx->name), std::move(args),
        buildExpr(ctx->expr()), std::move(settings), pos.of(ctx->getStop()));
  }

  Arg buildArg(GnnParser::ArgContext *ctx) {
    Arg arg;
    if (ctx->IDENT()) {
      arg.name = ctx->IDENT()->getText();
      arg.nameLoc = pos.of(ctx->IDENT()->getSymbol());
    } else {
      arg.nameLoc = loc(ctx);
    }
    arg.value = buildExpr(ctx->expr());
    return arg;
  }

  /// Depth of the tree under \p root, computed without recursion.
  static unsigned depthOf(const Expr &root) {
    unsigned maxDepth = 0;
    std::vector<std::pair<const Expr *, unsigned>> stack{{&root, 1}};
    while (!stack.empty()) {
      auto [e, d] = stack.back();
      stack.pop_back();
      maxDepth = std::max(maxDepth, d);
      if (const auto *u = llvm::dyn_cast<UnaryExpr>(e)) {
        stack.push_back({&u->getOperand(), d + 1});
      } else if (const auto *b = llvm::dyn_cast<BinaryExpr>(e)) {
        stack.push_back({&b->getLHS(), d + 1});
        stack.push_back({&b->getRHS(), d + 1});
      } else if (const auto *c = llvm::dyn_cast<CallExpr>(e)) {
        for (const Arg &a : c->getArgs())
          stack.push_back({a.value.get(), d + 1});
      } else if (const auto *l = llvm::dyn_cast<ListExpr>(e)) {
        for (const ExprPtr &x : l->getElements())
          stack.push_back({x.get(), d + 1});
      }
    }
    return maxDepth;
  }

  /// Every later stage walks expressions recursively; one bound on the
  /// tree's depth here keeps all of them off the end of the stack.
  ExprPtr buildExpr(GnnParser::ExprContext *ctx) {
    // Only the outermost expression is measured: its tree contains every
    // nested one, so measuring those too would walk the same nodes again.
    ++exprNesting;
    ExprPtr e = buildExprUnchecked(ctx);
    --exprNesting;
    if (exprNesting == 0 && e && depthOf(*e) > limits.maxDepth) {
      diags.error(e->getLoc(), "expression nested too deeply (the limit is " +
                                   std::to_string(limits.maxDepth) +
                                   " levels)");
      return placeholder(e->getLoc());
    }
    return e;
  }

  bool tooManyOperands(antlr4::ParserRuleContext *ctx, size_t count) {
    if (count <= limits.maxOperands)
      return false;
    diags.error(loc(ctx), "expression has " + std::to_string(count) +
                              " operands; the limit is " +
                              std::to_string(limits.maxOperands));
    return true;
  }

  ExprPtr buildExprUnchecked(GnnParser::ExprContext *ctx) {
    if (!ctx)
      return placeholder({});
    auto terms = ctx->term();
    auto ops = ctx->addOp();
    if (terms.empty())
      return placeholder(loc(ctx));
    if (tooManyOperands(ctx, terms.size()))
      return placeholder(loc(ctx));
    ExprPtr lhs = buildTerm(terms[0]);
    for (size_t i = 1; i < terms.size(); ++i) {
      auto *op = i - 1 < ops.size() ? ops[i - 1] : nullptr;
      char c = op ? op->getText()[0] : '+';
      lhs = std::make_unique<BinaryExpr>(loc(op), c, std::move(lhs),
                                         buildTerm(terms[i]));
    }
    return lhs;
  }

  ExprPtr buildTerm(GnnParser::TermContext *ctx) {
    if (!ctx)
      return placeholder({});
    auto factors = ctx->factor();
    if (factors.empty())
      return placeholder(loc(ctx));
    if (tooManyOperands(ctx, factors.size()))
      return placeholder(loc(ctx));
    // The '*' tokens sit between the factors among the children.
    std::vector<antlr4::Token *> stars;
    for (auto *child : ctx->children)
      if (auto *term = dynamic_cast<antlr4::tree::TerminalNode *>(child))
        stars.push_back(term->getSymbol());
    ExprPtr lhs = buildFactor(factors[0]);
    for (size_t i = 1; i < factors.size(); ++i) {
      Location l = i - 1 < stars.size() ? pos.of(stars[i - 1]) : loc(ctx);
      lhs = std::make_unique<BinaryExpr>(l, '*', std::move(lhs),
                                         buildFactor(factors[i]));
    }
    return lhs;
  }

  ExprPtr buildFactor(GnnParser::FactorContext *ctx) {
    if (!ctx)
      return placeholder({});
    Location l = loc(ctx);
    if (auto *f = dynamic_cast<GnnParser::NegFactorContext *>(ctx))
      return std::make_unique<UnaryExpr>(l, buildFactor(f->factor()));
    if (auto *f = dynamic_cast<GnnParser::CallFactorContext *>(ctx))
      return buildCall(f->call());
    if (auto *f = dynamic_cast<GnnParser::IdentFactorContext *>(ctx))
      return std::make_unique<IdentExpr>(l, text(f->IDENT()));
    if (auto *f = dynamic_cast<GnnParser::NumberFactorContext *>(ctx))
      return buildNumber(f);
    if (auto *f = dynamic_cast<GnnParser::SizeFactorContext *>(ctx))
      return buildSize(f);
    if (auto *f = dynamic_cast<GnnParser::StringFactorContext *>(ctx))
      return buildString(f);
    if (auto *f = dynamic_cast<GnnParser::BoolFactorContext *>(ctx))
      return std::make_unique<BoolExpr>(l, f->TRUE() != nullptr);
    if (auto *f = dynamic_cast<GnnParser::ListFactorContext *>(ctx)) {
      std::vector<ExprPtr> elements;
      for (auto *e : f->expr())
        elements.push_back(buildExpr(e));
      return std::make_unique<ListExpr>(l, std::move(elements));
    }
    if (auto *f = dynamic_cast<GnnParser::ParenFactorContext *>(ctx))
      return buildExpr(f->expr());
    return placeholder(l);
  }

  ExprPtr buildCall(GnnParser::CallContext *ctx) {
    if (!ctx)
      return placeholder({});
    std::vector<Arg> args;
    for (auto *a : ctx->arg())
      if (a)
        args.push_back(buildArg(a));
    return std::make_unique<CallExpr>(loc(ctx), text(ctx->IDENT()),
                                      std::move(args));
  }

  ExprPtr buildNumber(GnnParser::NumberFactorContext *ctx) {
    Location l = loc(ctx);
    std::string spelling = text(ctx->NUMBER());
    double value = 0;
    bool isInteger = false;
    LiteralResult r = decodeNumber(spelling, value, isInteger);
    if (!r.ok)
      diags.error(l, r.error);
    return std::make_unique<NumberExpr>(l, value, isInteger, spelling);
  }

  ExprPtr buildSize(GnnParser::SizeFactorContext *ctx) {
    Location l = loc(ctx);
    // SIZE is "<number>[ \t]*<identifier>": split it where the letters
    // start (an exponent's 'e' is followed by a digit or a sign).
    std::string token = text(ctx->SIZE());
    size_t split = 0;
    while (split < token.size()) {
      char c = token[split];
      bool isExp =
          (c == 'e' || c == 'E') && split + 1 < token.size() &&
          (std::isdigit(static_cast<unsigned char>(token[split + 1])) ||
           ((token[split + 1] == '+' || token[split + 1] == '-') &&
            split + 2 < token.size() &&
            std::isdigit(static_cast<unsigned char>(token[split + 2]))));
      if (std::isalpha(static_cast<unsigned char>(c)) && !isExp)
        break;
      if (c == '_')
        break;
      split += isExp ? 2 : 1;
    }
    llvm::StringRef number =
        llvm::StringRef(token).take_front(split).rtrim(" \t");
    std::string unit = token.substr(split);
    Location unitLoc{l.line, static_cast<unsigned>(l.col + split)};
    std::string spelling = number.str() + " " + unit;
    if (sizeUnitBytes(unit) == 0) {
      std::string known;
      for (llvm::StringRef u : sizeUnitNames())
        known += (known.empty() ? "" : ", ") + u.str();
      diags.error(unitLoc, "unknown size unit '" + unit + "'" +
                               didYouMean(unit, sizeUnitNames()) +
                               " (units: " + known + ")");
      return std::make_unique<SizeExpr>(l, 0, spelling);
    }
    uint64_t bytes = 0;
    LiteralResult r = decodeSize(number, unit, bytes);
    if (!r.ok)
      diags.error(l, r.error);
    return std::make_unique<SizeExpr>(l, bytes, spelling);
  }

  ExprPtr buildString(GnnParser::StringFactorContext *ctx) {
    Location l = loc(ctx);
    std::string value;
    LiteralResult r = decodeString(text(ctx->STRING()), value);
    if (!r.ok)
      diags.error({l.line, static_cast<unsigned>(l.col + r.errorOffset)},
                  r.error);
    return std::make_unique<StringExpr>(l, std::move(value));
  }

  DiagnosticEngine &diags;
  const PositionMap &pos;
  const ParserLimits &limits;
  unsigned exprNesting = 0;
};

/// Reports tokens the grammar only has so the lexer never fails, then hides
/// them so the parser continues with the rest. Also enforces the nesting
/// limit before the recursive-descent parser could overflow the stack.
bool screenTokens(antlr4::CommonTokenStream &tokens, DiagnosticEngine &diags,
                  const PositionMap &pos, const ParserLimits &limits) {
  unsigned depth = 0, minusRun = 0;
  for (antlr4::Token *tok : tokens.getTokens()) {
    size_t type = tok->getType();
    if (type == GnnLexer::BAD_CHAR || type == GnnLexer::UNTERMINATED_STRING) {
      std::string t = tok->getText();
      if (type == GnnLexer::UNTERMINATED_STRING)
        diags.error(pos.of(tok), "unterminated string literal");
      else if (static_cast<unsigned char>(t[0]) >= 0x80 || t[0] < 0x20)
        diags.error(pos.of(tok), "unexpected character in source");
      else
        diags.error(pos.of(tok), "unexpected character '" + t + "'");
      if (auto *w = dynamic_cast<antlr4::WritableToken *>(tok))
        w->setChannel(antlr4::Token::HIDDEN_CHANNEL);
      continue;
    }
    if (tok->getChannel() != antlr4::Token::DEFAULT_CHANNEL)
      continue;
    std::string t = tok->getText();
    minusRun = t == "-" ? minusRun + 1 : 0;
    if (t == "(" || t == "[" || t == "{")
      ++depth;
    else if ((t == ")" || t == "]" || t == "}") && depth > 0)
      --depth;
    if (depth + minusRun > limits.maxNesting) {
      diags.error(pos.of(tok), "expression nested too deeply (the limit is " +
                                   std::to_string(limits.maxNesting) +
                                   " levels)");
      return false;
    }
  }
  tokens.seek(0);
  return true;
}

} // namespace

std::unique_ptr<Program> gnnc::parseProgram(DiagnosticEngine &diags,
                                            ParserLimits limits) {
  llvm::SourceMgr &sm = diags.getSourceMgr();
  const llvm::MemoryBuffer *buffer = sm.getMemoryBuffer(sm.getMainFileID());
  llvm::StringRef source = buffer->getBuffer();
  std::string filename = diags.getFilename().str();

  // ANTLR decodes UTF-8 itself and throws on bad input; say where it is.
  const auto *begin = reinterpret_cast<const llvm::UTF8 *>(source.begin());
  const auto *cursor = begin;
  if (!llvm::isLegalUTF8String(
          &cursor, reinterpret_cast<const llvm::UTF8 *>(source.end()))) {
    PositionMap bytes(source.substr(0, cursor - begin));
    diags.error(bytes.atByte(cursor - begin), "source is not valid UTF-8");
    auto program = std::make_unique<Program>();
    program->filename = filename;
    return program;
  }

  PositionMap pos(source);
  try {
    antlr4::ANTLRInputStream input(source.str());
    GnnLexer lexer(&input);
    lexer.removeErrorListeners();
    antlr4::CommonTokenStream tokens(&lexer);
    tokens.fill();
    if (!screenTokens(tokens, diags, pos, limits)) {
      auto program = std::make_unique<Program>();
      program->filename = filename;
      return program;
    }
    GnnParser parser(&tokens);
    parser.setErrorHandler(std::make_shared<StatementAwareErrorStrategy>());
    SyntaxErrorListener listener(diags, pos);
    parser.removeErrorListeners();
    parser.addErrorListener(&listener);
    GnnParser::ProgramContext *tree = parser.program();
    ASTBuilder builder(diags, pos, limits);
    return builder.build(tree, filename);
  } catch (const std::exception &e) {
    diags.error({}, std::string("internal parser error: ") + e.what());
  } catch (...) {
    diags.error({}, "internal parser error");
  }
  auto program = std::make_unique<Program>();
  program->filename = filename;
  return program;
}
