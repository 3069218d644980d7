//===- Random.h - Portable seeded integer sampling -------------*- C++ -*-===//
//
// The data layer's random numbers: splitmix64 for seeding, xoshiro256** for
// streams, and sampling written with integer arithmetic only. std::
// distributions are implementation-defined, so a synthetic graph built with
// them would differ between libstdc++ and libc++; everything here gives the
// same bits on every platform for the same seed.
//
// Private to runtime/data. Training-time randomness (dropout, init) uses
// gnnrt/Philox.h instead; this generator only builds data.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_RUNTIME_DATA_RANDOM_H
#define GNNC_RUNTIME_DATA_RANDOM_H

#include <cstdint>
#include <vector>

namespace gnnrt::detail {

/// splitmix64's output function: a bijective 64-bit mix.
inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The high 64 bits of a 64 x 64-bit product. The portable branch gives the
/// same result as __int128; it exists for compilers without it.
inline uint64_t mulHi64(uint64_t a, uint64_t b, uint64_t &lo) {
#ifdef __SIZEOF_INT128__
  unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  lo = static_cast<uint64_t>(p);
  return static_cast<uint64_t>(p >> 64);
#else
  uint64_t aLo = a & 0xFFFFFFFFull, aHi = a >> 32;
  uint64_t bLo = b & 0xFFFFFFFFull, bHi = b >> 32;
  uint64_t ll = aLo * bLo, lh = aLo * bHi, hl = aHi * bLo, hh = aHi * bHi;
  uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFull) + (hl & 0xFFFFFFFFull);
  lo = (mid << 32) | (ll & 0xFFFFFFFFull);
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

/// xoshiro256** (Blackman and Vigna), seeded through splitmix64 from a
/// (seed, stream, substream) triple so that independent parts of a data set
/// (permutation, edges, feature row i, split) never share a sequence and
/// each can be regenerated on its own.
class Rng {
public:
  Rng(uint64_t seed, uint64_t stream, uint64_t substream = 0) {
    uint64_t x = mix64(seed ^ mix64(0x9E3779B97F4A7C15ull * (stream + 1))) ^
                 mix64(substream + 0xD1B54A32D192ED03ull);
    for (uint64_t &w : s) {
      x += 0x9E3779B97F4A7C15ull;
      w = mix64(x);
    }
  }

  uint64_t next() {
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
  }

  /// Uniform in [0, n) for n >= 1, exactly (Lemire's multiply-and-reject),
  /// so no value is favoured however large n is.
  uint64_t below(uint64_t n) {
    uint64_t lo;
    uint64_t hi = mulHi64(next(), n, lo);
    if (lo < n) {
      uint64_t threshold = (0 - n) % n;
      while (lo < threshold)
        hi = mulHi64(next(), n, lo);
    }
    return hi;
  }

  /// True with probability threshold / 2^64.
  bool chance(uint64_t threshold) { return next() < threshold; }

private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s[4];
};

/// Shuffles \p v in place (Fisher-Yates with Rng::below).
template <typename T> void shuffle(std::vector<T> &v, Rng &rng) {
  for (size_t i = v.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(rng.below(i));
    T tmp = v[i - 1];
    v[i - 1] = v[j];
    v[j] = tmp;
  }
}

/// Walker's alias table over integer weights, built with Vose's method in
/// integers: O(1) draws with exact probabilities w[i] / sum(w). Works on
/// caller-owned arrays so that many small tables (one per class) can share
/// two flat allocations. Requires sum(w) * n < 2^64 (the generator keeps
/// weights below 2^24 and n below 2^31). Returns sum(w).
inline uint64_t buildAlias(const uint64_t *w, size_t n, uint64_t *threshold,
                           uint32_t *alias) {
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i)
    total += w[i];
  // Item i owns w[i] * n units; each bucket holds `total` units.
  std::vector<uint64_t> units(n);
  std::vector<uint32_t> small, large;
  for (size_t i = 0; i < n; ++i) {
    units[i] = w[i] * n;
    alias[i] = static_cast<uint32_t>(i);
    (units[i] < total ? small : large).push_back(static_cast<uint32_t>(i));
  }
  while (!small.empty() && !large.empty()) {
    uint32_t l = small.back(), g = large.back();
    small.pop_back();
    threshold[l] = units[l];
    alias[l] = g;
    units[g] -= total - units[l];
    if (units[g] < total) {
      large.pop_back();
      small.push_back(g);
    }
  }
  // The units left sum to `total` per bucket and none of them is short, so
  // every remaining bucket is exactly full.
  for (uint32_t i : large)
    threshold[i] = total;
  for (uint32_t i : small)
    threshold[i] = total;
  return total;
}

/// An index in [0, n) drawn from a table of buildAlias (total > 0).
inline uint32_t sampleAlias(Rng &rng, const uint64_t *threshold,
                            const uint32_t *alias, size_t n, uint64_t total) {
  uint32_t i = static_cast<uint32_t>(rng.below(n));
  return rng.below(total) < threshold[i] ? i : alias[i];
}

} // namespace gnnrt::detail

#endif // GNNC_RUNTIME_DATA_RANDOM_H
