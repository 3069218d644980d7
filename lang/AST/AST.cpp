//===- AST.cpp - Syntax tree of the .gnn language -------------------------===//
#include "lang/AST/AST.h"

#include "lang/Basic/Text.h"

#include "llvm/Support/raw_ostream.h"

using namespace gnnc;
using namespace gnnc::ast;

static void printSource(const Expr &expr, llvm::raw_ostream &os);

static void printArgs(const std::vector<Arg> &args, llvm::raw_ostream &os) {
  bool first = true;
  for (const Arg &arg : args) {
    if (!first)
      os << ", ";
    first = false;
    if (arg.isNamed())
      os << arg.name << " = ";
    printSource(*arg.value, os);
  }
}

static void printSource(const Expr &expr, llvm::raw_ostream &os) {
  switch (expr.getKind()) {
  case Expr::Kind::Number:
    os << llvm::cast<NumberExpr>(expr).getSpelling();
    return;
  case Expr::Kind::Size:
    os << llvm::cast<SizeExpr>(expr).getSpelling();
    return;
  case Expr::Kind::String:
    printQuoted(llvm::cast<StringExpr>(expr).getValue(), os);
    return;
  case Expr::Kind::Bool:
    os << (llvm::cast<BoolExpr>(expr).getValue() ? "true" : "false");
    return;
  case Expr::Kind::Ident:
    os << llvm::cast<IdentExpr>(expr).getName();
    return;
  case Expr::Kind::Unary:
    os << "-";
    printSource(llvm::cast<UnaryExpr>(expr).getOperand(), os);
    return;
  case Expr::Kind::Binary: {
    const auto &bin = llvm::cast<BinaryExpr>(expr);
    os << "(";
    printSource(bin.getLHS(), os);
    os << " " << bin.getOp() << " ";
    printSource(bin.getRHS(), os);
    os << ")";
    return;
  }
  case Expr::Kind::Call: {
    const auto &call = llvm::cast<CallExpr>(expr);
    os << call.getCallee() << "(";
    printArgs(call.getArgs(), os);
    os << ")";
    return;
  }
  case Expr::Kind::List: {
    os << "[";
    bool first = true;
    for (const ExprPtr &e : llvm::cast<ListExpr>(expr).getElements()) {
      if (!first)
        os << ", ";
      first = false;
      printSource(*e, os);
    }
    os << "]";
    return;
  }
  }
}

std::string gnnc::ast::toSource(const Expr &expr) {
  std::string s;
  llvm::raw_string_ostream os(s);
  printSource(expr, os);
  return os.str();
}
