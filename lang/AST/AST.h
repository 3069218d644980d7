//===- AST.h - Syntax tree of the .gnn language -------------------*- C++
//-*-===//
//
// Plain C++ structures, one per construct of language v1, each with the
// source location of its first token. The parser builds them and nothing
// else in the compiler sees ANTLR; Sema reads them and nothing here knows
// about MLIR. Casting follows LLVM-style RTTI (isa/dyn_cast on a kind field).
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_LANG_AST_AST_H
#define GNNC_LANG_AST_AST_H

#include "lang/Basic/Location.h"

#include "llvm/Support/Casting.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace gnnc::ast {

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

class Expr {
public:
  enum class Kind {
    Number,
    Size,
    String,
    Bool,
    Ident,
    Unary,
    Binary,
    Call,
    List
  };

  Expr(Kind kind, Location loc) : kind(kind), loc(loc) {}
  virtual ~Expr() = default;

  Kind getKind() const { return kind; }
  Location getLoc() const { return loc; }

private:
  const Kind kind;
  Location loc;
};

using ExprPtr = std::unique_ptr<Expr>;

/// A number literal: `16`, `0.01`, `5e-4`.
class NumberExpr : public Expr {
public:
  NumberExpr(Location loc, double value, bool isInteger, std::string spelling)
      : Expr(Kind::Number, loc), value(value), integer(isInteger),
        spelling(std::move(spelling)) {}
  double getValue() const { return value; }
  /// Written without '.' or exponent, and exactly representable as int64.
  bool isInteger() const { return integer; }
  const std::string &getSpelling() const { return spelling; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Number; }

private:
  double value;
  bool integer;
  std::string spelling;
};

/// A size literal: `256 MiB`, `1.5GB`. Already converted to whole bytes.
class SizeExpr : public Expr {
public:
  SizeExpr(Location loc, uint64_t bytes, std::string spelling)
      : Expr(Kind::Size, loc), bytes(bytes), spelling(std::move(spelling)) {}
  uint64_t getBytes() const { return bytes; }
  const std::string &getSpelling() const { return spelling; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Size; }

private:
  uint64_t bytes;
  std::string spelling;
};

/// A string literal, with escapes already resolved.
class StringExpr : public Expr {
public:
  StringExpr(Location loc, std::string value)
      : Expr(Kind::String, loc), value(std::move(value)) {}
  const std::string &getValue() const { return value; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::String; }

private:
  std::string value;
};

class BoolExpr : public Expr {
public:
  BoolExpr(Location loc, bool value) : Expr(Kind::Bool, loc), value(value) {}
  bool getValue() const { return value; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Bool; }

private:
  bool value;
};

/// A bare name: a variable, a model parameter, or a word such as `fp32`.
class IdentExpr : public Expr {
public:
  IdentExpr(Location loc, std::string name)
      : Expr(Kind::Ident, loc), name(std::move(name)) {}
  const std::string &getName() const { return name; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Ident; }

private:
  std::string name;
};

/// Unary minus, the only unary operator.
class UnaryExpr : public Expr {
public:
  UnaryExpr(Location loc, ExprPtr operand)
      : Expr(Kind::Unary, loc), operand(std::move(operand)) {}
  const Expr &getOperand() const { return *operand; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Unary; }

private:
  ExprPtr operand;
};

/// `a + b`, `a - b`, `a * b`; the location is the operator's.
class BinaryExpr : public Expr {
public:
  BinaryExpr(Location loc, char op, ExprPtr lhs, ExprPtr rhs)
      : Expr(Kind::Binary, loc), op(op), lhs(std::move(lhs)),
        rhs(std::move(rhs)) {}
  char getOp() const { return op; }
  const Expr &getLHS() const { return *lhs; }
  const Expr &getRHS() const { return *rhs; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Binary; }

private:
  char op;
  ExprPtr lhs, rhs;
};

/// `name = value` or a positional `value` in a call or a train header.
struct Arg {
  std::string name; ///< Empty for a positional argument.
  Location nameLoc; ///< Location of the name (or of the value if positional).
  ExprPtr value;

  bool isNamed() const { return !name.empty(); }
};

/// `callee(args...)`: an operator in a model, a constructor in a setting.
class CallExpr : public Expr {
public:
  CallExpr(Location loc, std::string callee, std::vector<Arg> args)
      : Expr(Kind::Call, loc), callee(std::move(callee)),
        args(std::move(args)) {}
  const std::string &getCallee() const { return callee; }
  const std::vector<Arg> &getArgs() const { return args; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Call; }

private:
  std::string callee;
  std::vector<Arg> args;
};

/// `[a, b, c]`.
class ListExpr : public Expr {
public:
  ListExpr(Location loc, std::vector<ExprPtr> elements)
      : Expr(Kind::List, loc), elements(std::move(elements)) {}
  const std::vector<ExprPtr> &getElements() const { return elements; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::List; }

private:
  std::vector<ExprPtr> elements;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

class Stmt {
public:
  enum class Kind { Assign, Repeat, Return };
  Stmt(Kind kind, Location loc) : kind(kind), loc(loc) {}
  virtual ~Stmt() = default;
  Kind getKind() const { return kind; }
  Location getLoc() const { return loc; }

private:
  const Kind kind;
  Location loc;
};

using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

/// `name = value;`
class AssignStmt : public Stmt {
public:
  AssignStmt(Location loc, std::string name, ExprPtr value)
      : Stmt(Kind::Assign, loc), name(std::move(name)),
        value(std::move(value)) {}
  const std::string &getName() const { return name; }
  const Expr &getValue() const { return *value; }
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Assign; }

private:
  std::string name;
  ExprPtr value;
};

/// `repeat count { body }`: unrolled by Sema.
class RepeatStmt : public Stmt {
public:
  RepeatStmt(Location loc, ExprPtr count, Block body)
      : Stmt(Kind::Repeat, loc), count(std::move(count)),
        body(std::move(body)) {}
  const Expr &getCount() const { return *count; }
  const Block &getBody() const { return body; }
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Repeat; }

private:
  ExprPtr count;
  Block body;
};

/// `return value;`
class ReturnStmt : public Stmt {
public:
  ReturnStmt(Location loc, ExprPtr value)
      : Stmt(Kind::Return, loc), value(std::move(value)) {}
  const Expr &getValue() const { return *value; }
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Return; }

private:
  ExprPtr value;
};

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

class Decl {
public:
  enum class Kind { Model, Train };
  Decl(Kind kind, Location loc, std::string name, Location nameLoc)
      : kind(kind), loc(loc), name(std::move(name)), nameLoc(nameLoc) {}
  virtual ~Decl() = default;
  Kind getKind() const { return kind; }
  /// Location of the `model`/`train` keyword.
  Location getLoc() const { return loc; }
  /// The model's name (for `train`, the name of the model it trains).
  const std::string &getName() const { return name; }
  Location getNameLoc() const { return nameLoc; }

private:
  const Kind kind;
  Location loc;
  std::string name;
  Location nameLoc;
};

/// A model parameter, `hidden = 16` or a required `hidden`.
struct Param {
  std::string name;
  Location loc;
  ExprPtr defaultValue; ///< Null when the parameter is required.
};

/// `model Name(params) { body }`
class ModelDecl : public Decl {
public:
  ModelDecl(Location loc, std::string name, Location nameLoc,
            std::vector<Param> params, Block body, Location endLoc)
      : Decl(Kind::Model, loc, std::move(name), nameLoc),
        params(std::move(params)), body(std::move(body)), endLoc(endLoc) {}
  const std::vector<Param> &getParams() const { return params; }
  const Block &getBody() const { return body; }
  /// Location of the closing brace.
  Location getEndLoc() const { return endLoc; }
  static bool classof(const Decl *d) { return d->getKind() == Kind::Model; }

private:
  std::vector<Param> params;
  Block body;
  Location endLoc;
};

/// `name = value;` inside a train block.
struct Setting {
  std::string name;
  Location loc;
  ExprPtr value;
};

/// `train Model(args) on data { settings }`
class TrainDecl : public Decl {
public:
  TrainDecl(Location loc, std::string model, Location modelLoc,
            std::vector<Arg> args, ExprPtr data, std::vector<Setting> settings,
            Location endLoc)
      : Decl(Kind::Train, loc, std::move(model), modelLoc),
        args(std::move(args)), data(std::move(data)),
        settings(std::move(settings)), endLoc(endLoc) {}
  const std::vector<Arg> &getArgs() const { return args; }
  const Expr &getData() const { return *data; }
  const std::vector<Setting> &getSettings() const { return settings; }
  Location getEndLoc() const { return endLoc; }
  static bool classof(const Decl *d) { return d->getKind() == Kind::Train; }

private:
  std::vector<Arg> args;
  ExprPtr data;
  std::vector<Setting> settings;
  Location endLoc;
};

/// A whole `.gnn` file: its declarations in source order.
struct Program {
  std::string filename;
  std::vector<std::unique_ptr<Decl>> decls;
};

/// Prints \p program as an indented tree, one node per line with its
/// `@line:col`. The format is stable: tests check it with FileCheck.
void dump(const Program &program, llvm::raw_ostream &os);
/// Prints an expression in source form (`adam(lr = 0.01)`), for messages.
std::string toSource(const Expr &expr);

} // namespace gnnc::ast

#endif // GNNC_LANG_AST_AST_H
