//===- Philox.h - Philox4x32-10 counter-based random numbers ----*- C++ -*-===//
//
// The one random number generator of gnnc: dropout masks and parameter
// initialisation are pure functions of (key, counter), so the reference
// interpreter, the CPU runtime and the CUDA kernels draw identical bits
// without sharing state, and a recomputed dropout reproduces its mask.
//
// Philox4x32-10 as in Salmon, Moraes, Dror and Shaw, "Parallel Random
// Numbers: As Easy as 1, 2, 3" (SC11) and the Random123 library; checked
// against Random123's known-answer vectors. Header-only and plain C++17 with
// no containers, so that the CUDA kernels (runtime/cuda) call the very same
// functions: GNNRT_HD makes them host and device functions under nvcc and
// expands to nothing for a host compiler, so the CPU build is unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_PHILOX_H
#define GNNRT_PHILOX_H

#include "gnnrt/HostDevice.h"

#include <cstdint>

namespace gnnrt {

namespace philox_detail {
// The algorithm's one text (PhiloxCore.inc), which generated CUDA units
// print too.
#define GNNRT_PHILOX_QUALIFIERS GNNRT_HD inline
#include "gnnrt/PhiloxCore.inc"
#undef GNNRT_PHILOX_QUALIFIERS
static_assert(sizeof(unsigned int) == 4 && sizeof(unsigned long long) == 8,
              "PhiloxCore.inc needs 32-bit unsigned int");

constexpr uint32_t kMul0 = GNNRT_PHILOX_M0;
constexpr uint32_t kMul1 = GNNRT_PHILOX_M1;
constexpr uint32_t kWeyl0 = GNNRT_PHILOX_W0;
constexpr uint32_t kWeyl1 = GNNRT_PHILOX_W1;
} // namespace philox_detail

/// One Philox4x32-10 block: 10 rounds of the bijection keyed by \p key,
/// with the key bumped by the Weyl constants between rounds.
GNNRT_HD inline void philox4x32(const uint32_t counter[4],
                                const uint32_t key[2], uint32_t out[4]) {
  unsigned int words[4];
  philox_detail::gnnrt_philox4x32_10(counter[0], counter[1], counter[2],
                                     counter[3], key[0], key[1], words);
  for (int i = 0; i < 4; ++i)
    out[i] = words[i];
}

/// Word `index mod 4` of the block whose counter is
/// `(b mod 2^32, b / 2^32, word2, word3)`, `b = index / 4`, under the key
/// `(seed mod 2^32, seed / 2^32)`: the element-to-counter mapping both
/// `gnn.dropout` and `train.init` use.
GNNRT_HD inline uint32_t philoxElementBits(uint64_t seed, uint32_t word2,
                                           uint32_t word3, uint64_t index) {
  uint64_t block = index / 4;
  uint32_t ctr[4] = {static_cast<uint32_t>(block),
                     static_cast<uint32_t>(block >> 32), word2, word3};
  uint32_t key[2] = {static_cast<uint32_t>(seed),
                     static_cast<uint32_t>(seed >> 32)};
  uint32_t out[4];
  philox4x32(ctr, key, out);
  return out[index % 4];
}

/// The 32 random bits of element \p index of a `gnn.dropout` with key
/// (\p seed, \p step) and \p stream: counter `(b lo, b hi, stream, step)`.
/// `stream` and `step` enter the counter modulo 2^32.
GNNRT_HD inline uint32_t dropoutBits(uint64_t seed, uint64_t step,
                                     uint64_t stream, uint64_t index) {
  return philoxElementBits(seed, static_cast<uint32_t>(stream),
                           static_cast<uint32_t>(step), index);
}

/// `u(i)` of `gnn.dropout`: the bits times 2^-32, in [0, 1). Exact in
/// double, which is why it is double: an element is kept iff `u >= p`.
GNNRT_HD inline double dropoutUniform(uint64_t seed, uint64_t step,
                                      uint64_t stream, uint64_t index) {
  return dropoutBits(seed, step, stream, index) * 0x1p-32;
}

/// The smallest bits value that `gnn.dropout` keeps for rate \p p in
/// [0, 1): `bits >= dropoutThreshold(p)` iff `bits * 2^-32 >= p`. Lets a
/// kernel compare integers instead of rounding u to float. Returns 2^32
/// (keep nothing) when p > 1 - 2^-32.
GNNRT_HD inline uint64_t dropoutThreshold(double p) {
  if (!(p > 0))
    return 0;
  double scaled = p * 0x1p32; // exact: scaling by a power of two
  uint64_t t = static_cast<uint64_t>(scaled);
  return static_cast<double>(t) < scaled ? t + 1 : t;
}

/// `u` of `train.init` for element \p index of the parameter numbered
/// \p stream: counter `(b lo, b hi, stream, 0xFFFFFFFF)`, `u = (r + 0.5)
/// 2^-32`, strictly inside (0, 1) so that `(2u - 1) a` never reaches the
/// bounds.
GNNRT_HD inline double initUniform(uint64_t seed, uint64_t stream,
                                   uint64_t index) {
  uint32_t r = philoxElementBits(seed, static_cast<uint32_t>(stream),
                                 0xFFFFFFFFu, index);
  return (static_cast<double>(r) + 0.5) * 0x1p-32;
}

} // namespace gnnrt

#endif // GNNRT_PHILOX_H
