//===- Literals.cpp - Decoding of .gnn literals ---------------------------===//
#include "lang/Parser/Literals.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

using namespace gnnc;

namespace {
struct Unit {
  llvm::StringRef name;
  uint64_t bytes;
};
constexpr uint64_t kKi = 1024;
const Unit kUnits[] = {
    {"B", 1},
    {"KB", 1000},
    {"MB", 1000 * 1000},
    {"GB", 1000ull * 1000 * 1000},
    {"TB", 1000ull * 1000 * 1000 * 1000},
    {"KiB", kKi},
    {"MiB", kKi *kKi},
    {"GiB", kKi *kKi *kKi},
    {"TiB", kKi *kKi *kKi *kKi},
};
} // namespace

llvm::ArrayRef<llvm::StringRef> gnnc::sizeUnitNames() {
  static const llvm::StringRef names[] = {"B",   "KB",  "MB",  "GB", "TB",
                                          "KiB", "MiB", "GiB", "TiB"};
  return names;
}

uint64_t gnnc::sizeUnitBytes(llvm::StringRef unit) {
  for (const Unit &u : kUnits)
    if (u.name == unit)
      return u.bytes;
  return 0;
}

static LiteralResult failure(std::string message, size_t offset = 0) {
  LiteralResult r;
  r.ok = false;
  r.error = std::move(message);
  r.errorOffset = offset;
  return r;
}

LiteralResult gnnc::decodeNumber(llvm::StringRef text, double &value,
                                 bool &isInteger) {
  isInteger = text.find_first_of(".eE") == llvm::StringRef::npos;
  std::string s = text.str();
  if (isInteger) {
    errno = 0;
    char *end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (errno == ERANGE)
      return failure("integer literal '" + s + "' is too large (the limit is " +
                     std::to_string(INT64_MAX) + ")");
    value = static_cast<double>(v);
    // Integers above 2^53 lose precision as doubles; Sema reads the spelling
    // again when it needs the exact value, so only flag them there.
    return {};
  }
  errno = 0;
  value = std::strtod(s.c_str(), nullptr);
  if (errno == ERANGE && std::isinf(value))
    return failure("number '" + s + "' is too large");
  return {};
}

LiteralResult gnnc::decodeSize(llvm::StringRef number, llvm::StringRef unit,
                               uint64_t &bytes) {
  // Exact decimal arithmetic: "1.5 KiB" is 1536 B, "0.1 KiB" is not whole.
  using u128 = unsigned __int128;
  const u128 limit = static_cast<u128>(1) << 120;
  uint64_t unitBytes = sizeUnitBytes(unit);
  if (unitBytes == 0)
    return failure("unknown size unit '" + unit.str() + "'");
  std::string spelled = number.str() + " " + unit.str();
  u128 mantissa = 0;
  long exp10 = 0;
  size_t i = 0;
  bool seenDot = false;
  for (; i < number.size(); ++i) {
    char c = number[i];
    if (c == '.') {
      seenDot = true;
      continue;
    }
    if (c == 'e' || c == 'E')
      break;
    if (mantissa > limit / 10)
      return failure("size " + spelled + " is too large");
    mantissa = mantissa * 10 + static_cast<unsigned>(c - '0');
    if (seenDot)
      --exp10;
  }
  if (i < number.size()) {
    long e = 0;
    llvm::StringRef exponent = number.substr(i + 1);
    exponent.consume_front("+"); // getAsInteger takes '-' but not '+'
    if (exponent.getAsInteger(10, e) || e > 40 || e < -40)
      return failure("size " + spelled + " is out of range");
    exp10 += e;
  }
  u128 value = mantissa * unitBytes; // mantissa < 2^120 / 10, unit < 2^41.
  if (mantissa != 0 && value / unitBytes != mantissa)
    return failure("size " + spelled + " is too large");
  for (; exp10 > 0; --exp10) {
    if (value > limit / 10)
      return failure("size " + spelled + " is too large");
    value *= 10;
  }
  for (; exp10 < 0; ++exp10) {
    if (value % 10 != 0)
      return failure("size " + spelled + " is not a whole number of bytes");
    value /= 10;
  }
  if (value > static_cast<u128>(UINT64_MAX))
    return failure("size " + spelled + " is too large");
  bytes = static_cast<uint64_t>(value);
  return {};
}

LiteralResult gnnc::decodeString(llvm::StringRef token, std::string &value) {
  value.clear();
  // The lexer guarantees the surrounding quotes.
  llvm::StringRef body = token.drop_front().drop_back();
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    // A NUL would silently cut a path short at every C API below us.
    if (c == '\0')
      return failure("string contains a NUL byte", i + 1);
    if (c != '\\') {
      value.push_back(c);
      continue;
    }
    char next = i + 1 < body.size() ? body[i + 1] : '\0';
    if (next != '"' && next != '\\')
      return failure(std::string("unknown escape sequence '\\") + next +
                         "' in string; only \\\" and \\\\ are allowed",
                     i + 1);
    value.push_back(next);
    ++i;
  }
  return {};
}
