//===- ASTDump.cpp - Textual dump of the .gnn syntax tree -----------------===//
//
// One node per line, two spaces of indent per level, `@line:col` last. Kept
// stable on purpose: lit tests check it line by line.
//
//===----------------------------------------------------------------------===//
#include "lang/AST/AST.h"

#include "llvm/Support/raw_ostream.h"

using namespace gnnc;
using namespace gnnc::ast;

namespace {
class Dumper {
public:
  explicit Dumper(llvm::raw_ostream &os) : os(os) {}

  void dump(const Program &program) {
    os << "Program \"" << program.filename << "\"\n";
    Indent in(*this);
    for (const auto &decl : program.decls) {
      if (const auto *model = llvm::dyn_cast<ModelDecl>(decl.get()))
        dump(*model);
      else
        dump(llvm::cast<TrainDecl>(*decl));
    }
  }

private:
  struct Indent {
    explicit Indent(Dumper &d) : d(d) { ++d.depth; }
    ~Indent() { --d.depth; }
    Dumper &d;
  };

  llvm::raw_ostream &line() { return os.indent(2 * depth); }
  void end(Location loc) { os << " @" << loc.line << ":" << loc.col << "\n"; }

  void dump(const ModelDecl &model) {
    line() << "Model " << model.getName();
    end(model.getLoc());
    Indent in(*this);
    for (const Param &param : model.getParams()) {
      line() << "Param " << param.name
             << (param.defaultValue ? "" : " (required)");
      end(param.loc);
      if (param.defaultValue) {
        Indent in2(*this);
        dump(*param.defaultValue);
      }
    }
    dump(model.getBody());
  }

  void dump(const Block &block) {
    for (const StmtPtr &stmt : block)
      dump(*stmt);
  }

  void dump(const Stmt &stmt) {
    switch (stmt.getKind()) {
    case Stmt::Kind::Assign: {
      const auto &assign = llvm::cast<AssignStmt>(stmt);
      line() << "Assign " << assign.getName();
      end(assign.getLoc());
      Indent in(*this);
      dump(assign.getValue());
      return;
    }
    case Stmt::Kind::Repeat: {
      const auto &repeat = llvm::cast<RepeatStmt>(stmt);
      line() << "Repeat";
      end(repeat.getLoc());
      Indent in(*this);
      line() << "Count\n";
      {
        Indent in2(*this);
        dump(repeat.getCount());
      }
      line() << "Body\n";
      Indent in2(*this);
      dump(repeat.getBody());
      return;
    }
    case Stmt::Kind::Return: {
      const auto &ret = llvm::cast<ReturnStmt>(stmt);
      line() << "Return";
      end(ret.getLoc());
      Indent in(*this);
      dump(ret.getValue());
      return;
    }
    }
  }

  void dump(const TrainDecl &train) {
    line() << "Train " << train.getName();
    end(train.getLoc());
    Indent in(*this);
    dumpArgs(train.getArgs());
    line() << "On\n";
    {
      Indent in2(*this);
      dump(train.getData());
    }
    for (const Setting &setting : train.getSettings()) {
      line() << "Setting " << setting.name;
      end(setting.loc);
      Indent in2(*this);
      dump(*setting.value);
    }
  }

  void dumpArgs(const std::vector<Arg> &args) {
    unsigned position = 0;
    for (const Arg &arg : args) {
      if (arg.isNamed())
        line() << "Arg " << arg.name;
      else
        line() << "Arg #" << position;
      ++position;
      end(arg.nameLoc);
      Indent in(*this);
      dump(*arg.value);
    }
  }

  void dump(const Expr &expr) {
    switch (expr.getKind()) {
    case Expr::Kind::Number: {
      const auto &num = llvm::cast<NumberExpr>(expr);
      line() << (num.isInteger() ? "Int " : "Real ") << num.getSpelling();
      break;
    }
    case Expr::Kind::Size: {
      const auto &size = llvm::cast<SizeExpr>(expr);
      line() << "Size " << size.getSpelling() << " = " << size.getBytes()
             << " B";
      break;
    }
    case Expr::Kind::String:
      line() << "String " << toSource(expr);
      break;
    case Expr::Kind::Bool:
      line() << "Bool " << toSource(expr);
      break;
    case Expr::Kind::Ident:
      line() << "Ident " << llvm::cast<IdentExpr>(expr).getName();
      break;
    case Expr::Kind::Unary: {
      line() << "Neg";
      end(expr.getLoc());
      Indent in(*this);
      dump(llvm::cast<UnaryExpr>(expr).getOperand());
      return;
    }
    case Expr::Kind::Binary: {
      const auto &bin = llvm::cast<BinaryExpr>(expr);
      line() << "Binary '" << bin.getOp() << "'";
      end(expr.getLoc());
      Indent in(*this);
      dump(bin.getLHS());
      dump(bin.getRHS());
      return;
    }
    case Expr::Kind::Call: {
      const auto &call = llvm::cast<CallExpr>(expr);
      line() << "Call " << call.getCallee();
      end(expr.getLoc());
      Indent in(*this);
      dumpArgs(call.getArgs());
      return;
    }
    case Expr::Kind::List: {
      const auto &list = llvm::cast<ListExpr>(expr);
      line() << "List";
      end(expr.getLoc());
      Indent in(*this);
      for (const ExprPtr &e : list.getElements())
        dump(*e);
      return;
    }
    }
    end(expr.getLoc());
  }

  llvm::raw_ostream &os;
  unsigned depth = 0;
};
} // namespace

void gnnc::ast::dump(const Program &program, llvm::raw_ostream &os) {
  Dumper(os).dump(program);
}
