//===- ConvertTest.cpp - fp32 <-> bf16 / fp16 storage conversions ---------===//
//
// The kernels' bit tricks are checked against a reference that knows no
// tricks: the two 16-bit neighbours of the input found by binary search over
// the 16-bit patterns (their values computed in double, where every
// difference involved is exact), the nearer one taken, ties to the even
// pattern. The largest finite pattern's upper neighbour is the infinity,
// standing for 2^128 (bf16) or 2^16 (fp16), which gives IEEE's overflow
// rule. Every 16-bit pattern is widened and narrowed back; a few million
// random fp32 inputs, with exact ties planted, are narrowed.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Convert.h"

#include "FloatBits.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <vector>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

using namespace gnnrt::cpu::test;
using gnnrt::cpu::bitsOf;
using gnnrt::cpu::fromBits;

namespace {

constexpr uint16_t kBf16Inf = 0x7f80, kF16Inf = 0x7c00;

double bf16Value(uint16_t h) {
  // Patterns up to the infinity only; it stands for 2^128 here.
  return h == kBf16Inf ? std::ldexp(1.0, 128)
                       : static_cast<double>(fromBits(uint32_t(h) << 16));
}

double f16Value(uint16_t h) {
  if (h == kF16Inf)
    return 65536.0;
  int exponent = h >> 10, mantissa = h & 0x3ff;
  return exponent == 0 ? std::ldexp(mantissa, -24)
                       : std::ldexp(1024 + mantissa, exponent - 25);
}

/// The nearest pattern to the non-NaN \p x, ties to even, among the
/// non-negative patterns up to \p inf (sign added after).
uint16_t referenceRound(float x, double (*value)(uint16_t), uint16_t inf) {
  double ax = std::fabs(static_cast<double>(x));
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  // The largest pattern whose value is <= ax.
  uint32_t lo = 0, hi = inf;
  if (value(static_cast<uint16_t>(hi)) <= ax)
    return sign | inf;
  while (hi - lo > 1) {
    uint32_t mid = (lo + hi) / 2;
    (value(static_cast<uint16_t>(mid)) <= ax ? lo : hi) = mid;
  }
  double below = ax - value(static_cast<uint16_t>(lo));
  double above = value(static_cast<uint16_t>(hi)) - ax;
  bool up = above < below || (above == below && (lo & 1));
  return static_cast<uint16_t>(sign | (up ? hi : lo));
}

uint16_t referenceBf16(float x) {
  return referenceRound(x, bf16Value, kBf16Inf);
}
uint16_t referenceF16(float x) { return referenceRound(x, f16Value, kF16Inf); }

bool isBf16NaN(uint16_t h) { return (h & 0x7fff) > 0x7f80; }
bool isF16NaN(uint16_t h) { return (h & 0x7fff) > 0x7c00; }

uint16_t toBf16(float x) {
  uint16_t h = 0;
  EXPECT_EQ(gnnrt_cpu_f32_to_bf16(&x, &h, 1), GNNRT_OK);
  return h;
}

uint16_t toF16(float x) {
  uint16_t h = 0;
  EXPECT_EQ(gnnrt_cpu_f32_to_f16(&x, &h, 1), GNNRT_OK);
  return h;
}

float fromF16(uint16_t h) {
  float x = 0;
  EXPECT_EQ(gnnrt_cpu_f16_to_f32(&h, &x, 1), GNNRT_OK);
  return x;
}

std::vector<uint16_t> allPatterns() {
  std::vector<uint16_t> patterns(1 << 16);
  for (uint32_t i = 0; i < patterns.size(); ++i)
    patterns[i] = static_cast<uint16_t>(i);
  return patterns;
}

TEST(Convert, Bf16RoundTripsEveryPattern) {
  std::vector<uint16_t> patterns = allPatterns(), back(patterns.size());
  std::vector<float> wide(patterns.size());
  const auto n = static_cast<int64_t>(patterns.size());
  ASSERT_EQ(gnnrt_cpu_bf16_to_f32(patterns.data(), wide.data(), n), GNNRT_OK);
  ASSERT_EQ(gnnrt_cpu_f32_to_bf16(wide.data(), back.data(), n), GNNRT_OK);
  int failures = 0;
  for (uint32_t h = 0; h < patterns.size() && failures < 10; ++h) {
    uint32_t w = bitsOf(wide[h]);
    if (isBf16NaN(static_cast<uint16_t>(h))) {
      // NaN stays NaN, of the same sign, quiet, with its payload.
      bool ok = std::isnan(wide[h]) && (w >> 31) == (h >> 15) &&
                (w & 0x400000u) && ((w >> 16) & 0x3fu) == (h & 0x3fu) &&
                isBf16NaN(back[h]) && (back[h] & 0x40) &&
                (back[h] & 0x8000) == (h & 0x8000);
      failures += !ok;
      EXPECT_TRUE(ok) << std::hex << h << " -> " << w << " -> " << back[h];
      continue;
    }
    failures += w != h << 16 || back[h] != h;
    EXPECT_EQ(w, h << 16) << std::hex << h;
    EXPECT_EQ(back[h], h) << std::hex << h;
  }
}

TEST(Convert, F16RoundTripsEveryPattern) {
  std::vector<uint16_t> patterns = allPatterns(), back(patterns.size());
  std::vector<float> wide(patterns.size());
  const auto n = static_cast<int64_t>(patterns.size());
  ASSERT_EQ(gnnrt_cpu_f16_to_f32(patterns.data(), wide.data(), n), GNNRT_OK);
  ASSERT_EQ(gnnrt_cpu_f32_to_f16(wide.data(), back.data(), n), GNNRT_OK);
  int failures = 0;
  for (uint32_t h = 0; h < patterns.size() && failures < 10; ++h) {
    uint16_t magnitude = h & 0x7fff;
    if (isF16NaN(static_cast<uint16_t>(h))) {
      uint32_t w = bitsOf(wide[h]);
      bool ok = std::isnan(wide[h]) && (w >> 31) == (h >> 15) &&
                (w & 0x400000u) && ((w >> 13) & 0x1ffu) == (h & 0x1ffu) &&
                isF16NaN(back[h]) && (back[h] & 0x200) &&
                (back[h] & 0x8000) == (h & 0x8000);
      failures += !ok;
      EXPECT_TRUE(ok) << std::hex << h << " -> " << w << " -> " << back[h];
      continue;
    }
    // The widened value is exact (infinity is checked by its bits).
    double expected = magnitude == kF16Inf ? INFINITY : f16Value(magnitude);
    if (h & 0x8000)
      expected = -expected;
    bool ok = static_cast<double>(wide[h]) == expected &&
              std::signbit(wide[h]) == bool(h & 0x8000) && back[h] == h;
    failures += !ok;
    EXPECT_TRUE(ok) << std::hex << h << " -> " << wide[h] << " -> " << back[h];
  }
}

/// Random fp32 inputs: uniform bit patterns (every exponent, NaNs
/// included) and, every other one, a value near the 16-bit grid whose
/// dropped bits are set to an exact tie or one unit beside it.
std::vector<float> randomInputs(uint64_t seed, int64_t count,
                                uint32_t droppedBits, uint32_t minExponent,
                                uint32_t maxExponent) {
  std::vector<float> xs(static_cast<size_t>(count));
  uint64_t state = seed;
  const uint32_t half = 1u << (droppedBits - 1), mask = (1u << droppedBits) - 1;
  for (auto &x : xs) {
    uint64_t r = nextRandom(state);
    auto bits = static_cast<uint32_t>(r);
    if (r >> 63) {
      uint32_t exponent =
          minExponent + static_cast<uint32_t>((r >> 32) % 1024) %
                            (maxExponent - minExponent + 1);
      bits = (bits & 0x807fffffu) | (exponent << 23);
      switch ((r >> 50) % 4) {
      case 0:
        bits = (bits & ~mask) | half; // an exact tie
        break;
      case 1:
        bits = (bits & ~mask) | (half - 1);
        break;
      case 2:
        bits = (bits & ~mask) | (half + 1);
        break;
      default:
        break;
      }
    }
    x = fromBits(bits);
  }
  return xs;
}

TEST(Convert, F32ToBf16RoundsLikeTheReference) {
  // Ties everywhere from subnormals to overflow.
  std::vector<float> xs = randomInputs(0xB16, 4'000'000, 16, 0, 254);
  std::vector<uint16_t> got(xs.size());
  ASSERT_EQ(gnnrt_cpu_f32_to_bf16(xs.data(), got.data(),
                                  static_cast<int64_t>(xs.size())),
            GNNRT_OK);
  int failures = 0;
  for (size_t i = 0; i < xs.size() && failures < 10; ++i) {
    if (std::isnan(xs[i])) {
      bool ok = isBf16NaN(got[i]) && (got[i] & 0x40) &&
                (got[i] >> 15) == (bitsOf(xs[i]) >> 31);
      failures += !ok;
      EXPECT_TRUE(ok) << std::hex << bitsOf(xs[i]) << " -> " << got[i];
      continue;
    }
    uint16_t expected = referenceBf16(xs[i]);
    failures += got[i] != expected;
    EXPECT_EQ(got[i], expected) << std::hex << "input " << bitsOf(xs[i]);
  }
}

TEST(Convert, F32ToF16RoundsLikeTheReference) {
  // Exponents from below half's subnormals (2^-27) to past its overflow
  // (2^17), where the interesting cases are; uniform bits cover the rest.
  std::vector<float> xs = randomInputs(0xF16, 4'000'000, 13, 100, 144);
  // Ties on the subnormal grid too: k/2 units of 2^-24 for odd k.
  uint64_t state = 99;
  for (size_t i = 0; i < 100000; ++i) {
    auto k = static_cast<int>(nextRandom(state) % 2048) | 1;
    xs.push_back(std::ldexp(static_cast<float>(k), -25) *
                 (i % 2 ? 1.0f : -1.0f));
  }
  std::vector<uint16_t> got(xs.size());
  ASSERT_EQ(gnnrt_cpu_f32_to_f16(xs.data(), got.data(),
                                 static_cast<int64_t>(xs.size())),
            GNNRT_OK);
  int failures = 0;
  for (size_t i = 0; i < xs.size() && failures < 10; ++i) {
    if (std::isnan(xs[i])) {
      bool ok = isF16NaN(got[i]) && (got[i] & 0x200) &&
                (got[i] >> 15) == (bitsOf(xs[i]) >> 31);
      failures += !ok;
      EXPECT_TRUE(ok) << std::hex << bitsOf(xs[i]) << " -> " << got[i];
      continue;
    }
    uint16_t expected = referenceF16(xs[i]);
#if defined(__FLT16_MAX__)
    // A second, independent oracle where the compiler has _Float16.
    _Float16 h = static_cast<_Float16>(xs[i]);
    uint16_t compiler;
    std::memcpy(&compiler, &h, sizeof(compiler));
    ASSERT_EQ(compiler, expected)
        << "the reference itself is wrong for " << std::hex << bitsOf(xs[i]);
#endif
    failures += got[i] != expected;
    EXPECT_EQ(got[i], expected) << std::hex << "input " << bitsOf(xs[i]);
  }
}

TEST(Convert, F16EdgeCases) {
  struct Case {
    float x;
    uint16_t h;
  } cases[] = {
      {65504.0f, 0x7bff},                         // the largest half
      {std::nextafter(65520.0f, 0.0f), 0x7bff},   // just below halfway
      {65520.0f, 0x7c00},                         // halfway: to even, inf
      {1e10f, 0x7c00},                            // overflow
      {-1e10f, 0xfc00},                           //
      {FLT_MAX, 0x7c00},                          //
      {INFINITY, 0x7c00},                         //
      {-INFINITY, 0xfc00},                        //
      {0.0f, 0x0000},                             //
      {-0.0f, 0x8000},                            // -0 keeps its sign
      {1.0f, 0x3c00},                             //
      {-2.0f, 0xc000},                            //
      {1.0f + std::ldexp(1.0f, -11), 0x3c00},     // tie, to even (down)
      {1.0f + 3 * std::ldexp(1.0f, -11), 0x3c02}, // tie, to even (up)
      {std::ldexp(1.0f, -14), 0x0400},            // least normal
      {std::ldexp(1.0f, -24), 0x0001},            // least subnormal
      {std::ldexp(1.0f, -25), 0x0000},            // half of it: to even, 0
      {std::nextafter(std::ldexp(1.0f, -25), 1.0f), 0x0001},
      {-std::ldexp(1.0f, -25), 0x8000},    // -0
      {3 * std::ldexp(1.0f, -25), 0x0002}, // 1.5 units: to even
      {std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25), 0x0400}, // 1023.5
      {1023 * std::ldexp(1.0f, -24), 0x03ff}, // the largest subnormal
      {std::ldexp(1.0f, -30), 0x0000},        // far below
      {FLT_TRUE_MIN, 0x0000},                 // fp32 subnormal
      {-FLT_TRUE_MIN, 0x8000},                //
  };
  for (const Case &c : cases)
    EXPECT_EQ(toF16(c.x), c.h) << std::hex << "input " << bitsOf(c.x);

  // NaNs: quiet or signaling, either sign, stay NaN and come out quiet.
  for (uint32_t nan : {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7fbfffffu}) {
    uint16_t h = toF16(fromBits(nan));
    EXPECT_TRUE(isF16NaN(h) && (h & 0x200)) << std::hex << nan << " -> " << h;
    EXPECT_EQ(h >> 15, nan >> 31) << std::hex << nan;
  }

  // Widening the special patterns.
  EXPECT_EQ(fromF16(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(fromF16(0x03ff), 1023 * std::ldexp(1.0f, -24));
  EXPECT_EQ(fromF16(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(fromF16(0x7bff), 65504.0f);
  EXPECT_EQ(fromF16(0xfbff), -65504.0f);
  EXPECT_EQ(fromF16(0x7c00), INFINITY);
  EXPECT_EQ(bitsOf(fromF16(0x8000)), 0x80000000u);
  uint32_t signaling = bitsOf(fromF16(0x7d00));
  EXPECT_TRUE(std::isnan(fromBits(signaling)) && (signaling & 0x400000u))
      << std::hex << signaling;
}

TEST(Convert, Bf16EdgeCases) {
  struct Case {
    uint32_t x;
    uint16_t h;
  } cases[] = {
      {0x3f808000, 0x3f80}, // 1 + 2^-8: tie, to even (down)
      {0x3f818000, 0x3f82}, // 1 + 3 * 2^-8: tie, to even (up)
      {0x3f808001, 0x3f81}, // just above the tie
      {0x3f807fff, 0x3f80}, // just below
      {0x7f7f7fff, 0x7f7f}, // below the largest bf16's upper tie
      {0x7f7f8000, 0x7f80}, // that tie: to even, an infinity
      {0x7f7fffff, 0x7f80}, // FLT_MAX
      {0x7f800000, 0x7f80}, // infinity
      {0xff800000, 0xff80}, //
      {0x80000000, 0x8000}, // -0
      {0x00000001, 0x0000}, // fp32's least subnormal
      {0x00008000, 0x0000}, // tie at the bottom: to even, 0
      {0x00018000, 0x0002}, // tie next to an odd subnormal: up
      {0x80018000, 0x8002}, //
      {0x007fffff, 0x0080}, // the largest fp32 subnormal rounds to normal
  };
  for (const Case &c : cases)
    EXPECT_EQ(toBf16(fromBits(c.x)), c.h) << std::hex << "input " << c.x;
  for (uint32_t nan : {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu}) {
    uint16_t h = toBf16(fromBits(nan));
    EXPECT_TRUE(isBf16NaN(h) && (h & 0x40)) << std::hex << nan << " -> " << h;
    EXPECT_EQ(h >> 15, nan >> 31) << std::hex << nan;
  }
}

#if defined(__SSE__)
TEST(Convert, FlushToZeroDoesNotChangeResults) {
  // A host may run with FTZ and DAZ set (fast-math start-up code does);
  // subnormals must still convert exactly. Few elements, so the call stays
  // on this thread, whose control register is the one set here.
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040); // FTZ | DAZ
  uint16_t subnormals[] = {0x0001, 0x0155, 0x03ff, 0x8001};
  float wide[4];
  uint16_t back[4];
  int widened = gnnrt_cpu_f16_to_f32(subnormals, wide, 4);
  int narrowed = gnnrt_cpu_f32_to_f16(wide, back, 4);
  float tiny = fromBits(0x00018000); // an fp32 subnormal
  uint16_t bf = 0;
  int bfStatus = gnnrt_cpu_f32_to_bf16(&tiny, &bf, 1);
  _mm_setcsr(saved);
  ASSERT_EQ(widened, GNNRT_OK);
  ASSERT_EQ(narrowed, GNNRT_OK);
  ASSERT_EQ(bfStatus, GNNRT_OK);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(static_cast<double>(wide[i]),
              (subnormals[i] & 0x8000 ? -1 : 1) *
                  f16Value(subnormals[i] & 0x7fff))
        << i;
    EXPECT_EQ(back[i], subnormals[i]) << i;
  }
  EXPECT_EQ(bf, 0x0002);
}
#endif

TEST(Convert, BadArgumentsWriteNothing) {
  float x[2] = {1.0f, 2.0f};
  uint16_t h[2] = {0x1234, 0x1234};
  EXPECT_EQ(gnnrt_cpu_f32_to_bf16(x, h, -1), GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_f32_to_f16(nullptr, h, 2), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_f32_to_f16(x, nullptr, 2), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(h[0], 0x1234);
  EXPECT_EQ(h[1], 0x1234);
  EXPECT_EQ(gnnrt_cpu_bf16_to_f32(h, x, -5), GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_f16_to_f32(nullptr, x, 1), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_bf16_to_f32(h, nullptr, 1), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(x[0], 1.0f);
  // Empty tensors may be null.
  EXPECT_EQ(gnnrt_cpu_f32_to_bf16(nullptr, nullptr, 0), GNNRT_OK);
  EXPECT_EQ(gnnrt_cpu_f16_to_f32(nullptr, nullptr, 0), GNNRT_OK);
}

} // namespace
