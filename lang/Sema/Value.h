//===- Value.h - Compile-time values of Sema ----------------------*- C++
//-*-===//
//
// Private to lang/Sema. What an expression evaluates to at compile time: a
// number, size, string, bool, list, a word (an identifier read as a choice
// such as `fp32`), or a node tensor (an op of the model being instantiated,
// with its width). `Unknown` stands for "already diagnosed" or "not known
// without a dataset" and silences follow-on errors.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_LANG_SEMA_VALUE_H
#define GNNC_LANG_SEMA_VALUE_H

#include "lang/Basic/Location.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gnnc::sema {

struct Value {
  enum class Kind {
    Unknown,
    Int,
    Real,
    Bool,
    String,
    Size,
    List,
    Word,
    Tensor
  };
  Kind kind = Kind::Unknown;
  int64_t i = 0;      ///< Int
  double r = 0;       ///< Real
  bool b = false;     ///< Bool
  std::string s;      ///< String, Word
  uint64_t bytes = 0; ///< Size
  std::vector<Value> list;
  unsigned op = 0;              ///< Tensor: index into the model's ops
  std::optional<int64_t> width; ///< Tensor
  Location loc;                 ///< Where the value was written.

  static Value unknown(Location l = {}) {
    Value v;
    v.loc = l;
    return v;
  }
  static Value ofInt(int64_t x, Location l) {
    Value v;
    v.kind = Kind::Int;
    v.i = x;
    v.loc = l;
    return v;
  }
  static Value ofReal(double x, Location l) {
    Value v;
    v.kind = Kind::Real;
    v.r = x;
    v.loc = l;
    return v;
  }
  static Value ofBool(bool x, Location l) {
    Value v;
    v.kind = Kind::Bool;
    v.b = x;
    v.loc = l;
    return v;
  }
  static Value ofString(std::string x, Location l, Kind k = Kind::String) {
    Value v;
    v.kind = k;
    v.s = std::move(x);
    v.loc = l;
    return v;
  }
  static Value ofSize(uint64_t x, Location l) {
    Value v;
    v.kind = Kind::Size;
    v.bytes = x;
    v.loc = l;
    return v;
  }
  static Value ofTensor(unsigned op, std::optional<int64_t> width, Location l) {
    Value v;
    v.kind = Kind::Tensor;
    v.op = op;
    v.width = width;
    v.loc = l;
    return v;
  }

  bool isUnknown() const { return kind == Kind::Unknown; }
  bool isNumber() const { return kind == Kind::Int || kind == Kind::Real; }
  double asReal() const { return kind == Kind::Int ? double(i) : r; }
  /// "an integer (3)", "a node tensor of width 16", ... for messages.
  std::string describe() const;
};

} // namespace gnnc::sema

#endif // GNNC_LANG_SEMA_VALUE_H
