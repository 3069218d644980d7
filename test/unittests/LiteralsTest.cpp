//===- LiteralsTest.cpp - Numbers, sizes and strings of language v1 -------===//
#include "lang/Parser/Literals.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace gnnc;

namespace {

//===----------------------------------------------------------------------===//
// decodeNumber
//===----------------------------------------------------------------------===//

struct Number {
  LiteralResult result;
  double value = -12345;
  bool isInteger = false;
};

Number number(llvm::StringRef text) {
  Number n;
  n.isInteger = !n.isInteger; // Make sure the decoder sets it either way.
  n.result = decodeNumber(text, n.value, n.isInteger);
  return n;
}

TEST(LiteralsTest, DecodeNumberIntegers) {
  Number n = number("16");
  ASSERT_TRUE(n.result.ok) << n.result.error;
  EXPECT_TRUE(n.isInteger);
  EXPECT_EQ(n.value, 16.0);

  n = number("0");
  ASSERT_TRUE(n.result.ok);
  EXPECT_TRUE(n.isInteger);
  EXPECT_EQ(n.value, 0.0);

  // Leading zeros are decimal, not octal.
  n = number("010");
  ASSERT_TRUE(n.result.ok);
  EXPECT_TRUE(n.isInteger);
  EXPECT_EQ(n.value, 10.0);

  n = number("9223372036854775807"); // INT64_MAX still fits.
  ASSERT_TRUE(n.result.ok) << n.result.error;
  EXPECT_TRUE(n.isInteger);
  EXPECT_EQ(n.value, 9223372036854775807.0);
}

TEST(LiteralsTest, DecodeNumberReals) {
  Number n = number("0.01");
  ASSERT_TRUE(n.result.ok) << n.result.error;
  EXPECT_FALSE(n.isInteger);
  EXPECT_EQ(n.value, 0.01); // Same decimal text, same nearest double.

  n = number("2.");
  ASSERT_TRUE(n.result.ok);
  EXPECT_FALSE(n.isInteger);
  EXPECT_EQ(n.value, 2.0);

  n = number(".5");
  ASSERT_TRUE(n.result.ok);
  EXPECT_FALSE(n.isInteger);
  EXPECT_EQ(n.value, 0.5);

  n = number("16.0");
  ASSERT_TRUE(n.result.ok);
  EXPECT_FALSE(n.isInteger) << "a fraction makes a real even if it is whole";
  EXPECT_EQ(n.value, 16.0);
}

TEST(LiteralsTest, DecodeNumberExponents) {
  Number n = number("5e-4");
  ASSERT_TRUE(n.result.ok) << n.result.error;
  EXPECT_FALSE(n.isInteger);
  EXPECT_EQ(n.value, 5e-4);

  n = number("1e3");
  ASSERT_TRUE(n.result.ok);
  EXPECT_FALSE(n.isInteger) << "an exponent makes a real";
  EXPECT_EQ(n.value, 1000.0);

  n = number("2.5E+2");
  ASSERT_TRUE(n.result.ok);
  EXPECT_FALSE(n.isInteger);
  EXPECT_EQ(n.value, 250.0);

  n = number("1E0");
  ASSERT_TRUE(n.result.ok);
  EXPECT_FALSE(n.isInteger);
  EXPECT_EQ(n.value, 1.0);
}

TEST(LiteralsTest, DecodeNumberTooLargeInteger) {
  Number n = number("9223372036854775808"); // INT64_MAX + 1
  EXPECT_FALSE(n.result.ok);
  EXPECT_TRUE(n.isInteger);
  EXPECT_NE(n.result.error.find("too large"), std::string::npos)
      << n.result.error;
  EXPECT_NE(n.result.error.find("9223372036854775808"), std::string::npos)
      << "the message quotes the literal: " << n.result.error;
  EXPECT_NE(n.result.error.find("9223372036854775807"), std::string::npos)
      << "the message states the limit: " << n.result.error;

  n = number("123456789012345678901234567890");
  EXPECT_FALSE(n.result.ok);
}

TEST(LiteralsTest, DecodeNumberTooLargeReal) {
  Number n = number("1e400");
  EXPECT_FALSE(n.result.ok);
  EXPECT_FALSE(n.isInteger);
  EXPECT_NE(n.result.error.find("too large"), std::string::npos)
      << n.result.error;

  // A real that merely loses precision is fine.
  n = number("1e300");
  EXPECT_TRUE(n.result.ok);
  EXPECT_EQ(n.value, 1e300);
}

//===----------------------------------------------------------------------===//
// Size units
//===----------------------------------------------------------------------===//

TEST(LiteralsTest, SizeUnitNamesInMessageOrder) {
  std::vector<std::string> names;
  for (llvm::StringRef n : sizeUnitNames())
    names.push_back(n.str());
  std::vector<std::string> expected = {"B",   "KB",  "MB",  "GB", "TB",
                                       "KiB", "MiB", "GiB", "TiB"};
  EXPECT_EQ(names, expected);
}

TEST(LiteralsTest, SizeUnitBytes) {
  EXPECT_EQ(sizeUnitBytes("B"), 1u);
  EXPECT_EQ(sizeUnitBytes("KB"), 1000u);
  EXPECT_EQ(sizeUnitBytes("MB"), 1000000u);
  EXPECT_EQ(sizeUnitBytes("GB"), 1000000000u);
  EXPECT_EQ(sizeUnitBytes("TB"), 1000000000000u);
  EXPECT_EQ(sizeUnitBytes("KiB"), 1024u);
  EXPECT_EQ(sizeUnitBytes("MiB"), 1048576u);
  EXPECT_EQ(sizeUnitBytes("GiB"), 1073741824u);
  EXPECT_EQ(sizeUnitBytes("TiB"), 1099511627776u);
}

TEST(LiteralsTest, SizeUnitBytesUnknownIsZero) {
  EXPECT_EQ(sizeUnitBytes(""), 0u);
  EXPECT_EQ(sizeUnitBytes("Mib"), 0u) << "units are case-sensitive";
  EXPECT_EQ(sizeUnitBytes("mb"), 0u);
  EXPECT_EQ(sizeUnitBytes("kB"), 0u);
  EXPECT_EQ(sizeUnitBytes("PB"), 0u);
  EXPECT_EQ(sizeUnitBytes("bytes"), 0u);
}

TEST(LiteralsTest, EveryNamedUnitHasBytes) {
  for (llvm::StringRef n : sizeUnitNames())
    EXPECT_NE(sizeUnitBytes(n), 0u) << n.str();
}

//===----------------------------------------------------------------------===//
// decodeSize
//===----------------------------------------------------------------------===//

struct Size {
  LiteralResult result;
  uint64_t bytes = 0xdeadbeef;
};

Size size(llvm::StringRef number, llvm::StringRef unit) {
  Size s;
  s.result = decodeSize(number, unit, s.bytes);
  return s;
}

TEST(LiteralsTest, DecodeSizeEveryUnit) {
  struct Case {
    const char *number, *unit;
    uint64_t bytes;
  } cases[] = {
      {"3", "B", 3ull},
      {"3", "KB", 3000ull},
      {"3", "MB", 3000000ull},
      {"3", "GB", 3000000000ull},
      {"3", "TB", 3000000000000ull},
      {"3", "KiB", 3ull * 1024},
      {"3", "MiB", 3ull * 1024 * 1024},
      {"3", "GiB", 3ull * 1024 * 1024 * 1024},
      {"3", "TiB", 3ull * 1024 * 1024 * 1024 * 1024},
      {"256", "MiB", 268435456ull},
      {"0", "GiB", 0ull},
  };
  for (const Case &c : cases) {
    Size s = size(c.number, c.unit);
    ASSERT_TRUE(s.result.ok)
        << c.number << " " << c.unit << ": " << s.result.error;
    EXPECT_EQ(s.bytes, c.bytes) << c.number << " " << c.unit;
  }
}

TEST(LiteralsTest, DecodeSizeFractions) {
  Size s = size("1.5", "KiB");
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_EQ(s.bytes, 1536u);

  s = size("1.5", "GB");
  ASSERT_TRUE(s.result.ok);
  EXPECT_EQ(s.bytes, 1500000000u);

  s = size("0.25", "KiB");
  ASSERT_TRUE(s.result.ok);
  EXPECT_EQ(s.bytes, 256u);

  s = size("1.0", "B");
  ASSERT_TRUE(s.result.ok);
  EXPECT_EQ(s.bytes, 1u);

  s = size(".5", "KB");
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_EQ(s.bytes, 500u);
}

TEST(LiteralsTest, DecodeSizeNotWholeBytes) {
  Size s = size("0.1", "KiB"); // 102.4 bytes
  EXPECT_FALSE(s.result.ok);
  EXPECT_NE(s.result.error.find("not a whole number of bytes"),
            std::string::npos)
      << s.result.error;
  EXPECT_NE(s.result.error.find("0.1 KiB"), std::string::npos)
      << "the message names the size: " << s.result.error;

  s = size("0.5", "B");
  EXPECT_FALSE(s.result.ok);
  EXPECT_NE(s.result.error.find("not a whole number of bytes"),
            std::string::npos);

  s = size("1e-1", "B");
  EXPECT_FALSE(s.result.ok);
}

TEST(LiteralsTest, DecodeSizeExponents) {
  Size s = size("1e3", "B");
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_EQ(s.bytes, 1000u);

  s = size("2E2", "KiB");
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_EQ(s.bytes, 200u * 1024);

  s = size("1.5e1", "B");
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_EQ(s.bytes, 15u);

  s = size("5e-1", "KB");
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_EQ(s.bytes, 500u);
}

// The grammar's EXPONENT is [eE][+-]?DIGITS, so `1e+3 B` lexes as a size.
TEST(LiteralsTest, DecodeSizeExponentWithPlusSign) {
  Size s = size("1e+3", "B");
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_EQ(s.bytes, 1000u);

  s = size("2.5E+1", "KB");
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_EQ(s.bytes, 25000u);
}

TEST(LiteralsTest, DecodeSizeOverflow) {
  Size s = size("20000000", "TiB"); // 2.2e19 > 2^64 - 1
  EXPECT_FALSE(s.result.ok);
  EXPECT_NE(s.result.error.find("too large"), std::string::npos)
      << s.result.error;
  EXPECT_NE(s.result.error.find("20000000 TiB"), std::string::npos)
      << s.result.error;

  // Exactly 2^64 - 1 bytes still fits; 2^64 does not.
  s = size("18446744073709551615", "B");
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_EQ(s.bytes, UINT64_MAX);
  s = size("18446744073709551616", "B");
  EXPECT_FALSE(s.result.ok);

  s = size("16777215", "TiB"); // (2^24 - 1) * 2^40 < 2^64
  ASSERT_TRUE(s.result.ok) << s.result.error;
  EXPECT_EQ(s.bytes, 16777215ull << 40);
  s = size("16777216", "TiB"); // 2^64
  EXPECT_FALSE(s.result.ok);

  s = size("1e30", "B");
  EXPECT_FALSE(s.result.ok);

  s = size("99999999999999999999999999999999999999999999999", "B");
  EXPECT_FALSE(s.result.ok);
}

TEST(LiteralsTest, DecodeSizeUnknownUnit) {
  Size s = size("256", "Mib");
  EXPECT_FALSE(s.result.ok);
  EXPECT_NE(s.result.error.find("unknown size unit 'Mib'"), std::string::npos)
      << s.result.error;
}

//===----------------------------------------------------------------------===//
// decodeString
//===----------------------------------------------------------------------===//

TEST(LiteralsTest, DecodeStringPlain) {
  std::string v = "junk";
  LiteralResult r = decodeString("\"cora\"", v);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(v, "cora");

  r = decodeString("\"\"", v);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(v, "") << "the previous contents are cleared";

  r = decodeString("\"data/my graph/x\"", v);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(v, "data/my graph/x");
}

TEST(LiteralsTest, DecodeStringEscapes) {
  std::string v;
  LiteralResult r = decodeString(R"("a\"b")", v);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(v, "a\"b");

  r = decodeString(R"("back\\slash")", v);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(v, "back\\slash");

  r = decodeString(R"("\\\"")", v);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(v, "\\\"");

  r = decodeString(R"("\\")", v);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(v, "\\");
}

TEST(LiteralsTest, DecodeStringBadEscape) {
  std::string v;
  // Token:  " a b \ n "
  // Offset: 0 1 2 3 4 5
  LiteralResult r = decodeString(R"("ab\n")", v);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.errorOffset, 3u) << "the offset of the backslash in the token";
  EXPECT_NE(r.error.find("unknown escape sequence '\\n'"), std::string::npos)
      << r.error;

  r = decodeString(R"("\t")", v);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.errorOffset, 1u);
  EXPECT_NE(r.error.find("'\\t'"), std::string::npos) << r.error;

  // A valid escape before the bad one shifts the offset by its two bytes.
  r = decodeString(R"("x\\y\q")", v);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.errorOffset, 5u) << r.error;
}

} // namespace
