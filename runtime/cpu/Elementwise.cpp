//===- Elementwise.cpp - Element-wise primitives and dropout --------------===//
//
// Flat loops over n elements. The kind of an activation is dispatched once
// per call (a template per kind), never per element. Activations compute in
// fp32 with the libm float functions, as the CUDA backend will; dropout and
// scale take their one product or quotient in double so they equal the fp64
// reference rounded once.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "PhiloxLanes.h"
#include "RowSets.h"
#include "SignBits.h"

#include "gnnrt/Convert.h"
#include "gnnrt/Philox.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

using namespace gnnrt::cpu;

namespace {

constexpr float kInvSqrt2 = 0.70710678118654752440f;
constexpr float kInvSqrt2Pi = 0.39894228040143267794f;

template <typename Fn>
int binary(const float *a, const float *b, int64_t n, float *y, Fn fn) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(a, n) && present(b, n) && present(y, n),
              GNNRT_ERR_NULL_POINTER);
#pragma omp parallel for schedule(static) if (worthThreads(n))
  for (int64_t i = 0; i < n; ++i)
    y[i] = fn(a[i], b[i]);
  return GNNRT_OK;
}

/// act(v): the one expression of an activation, shared by the kernel and
/// the fused chains so that both round alike.
template <int Kind> GNNRT_ALWAYS_INLINE float activateOne(float v, float s) {
  if constexpr (Kind == GNNRT_ACT_RELU)
    return v > 0 ? v : 0.0f;
  else if constexpr (Kind == GNNRT_ACT_LEAKY_RELU)
    return v > 0 ? v : s * v;
  else if constexpr (Kind == GNNRT_ACT_ELU)
    return v > 0 ? v : std::expm1(v);
  else if constexpr (Kind == GNNRT_ACT_GELU)
    return 0.5f * v * (1.0f + std::erf(v * kInvSqrt2));
  else if constexpr (Kind == GNNRT_ACT_SIGMOID)
    return 1.0f / (1.0f + std::exp(-v));
  else
    return std::tanh(v);
}

/// dy * f'(x); at the kinks of relu and leaky_relu the derivative is the
/// left one (0 and the slope), as gnn.activation_grad specifies.
template <int Kind>
GNNRT_ALWAYS_INLINE float activateGradOne(float v, float dy, float s) {
  float d;
  if constexpr (Kind == GNNRT_ACT_RELU) {
    d = v > 0 ? 1.0f : 0.0f;
  } else if constexpr (Kind == GNNRT_ACT_LEAKY_RELU) {
    d = v > 0 ? 1.0f : s;
  } else if constexpr (Kind == GNNRT_ACT_ELU) {
    d = v > 0 ? 1.0f : std::exp(v);
  } else if constexpr (Kind == GNNRT_ACT_GELU) {
    d = 0.5f * (1.0f + std::erf(v * kInvSqrt2)) +
        v * kInvSqrt2Pi * std::exp(-0.5f * v * v);
  } else if constexpr (Kind == GNNRT_ACT_SIGMOID) {
    const float sg = 1.0f / (1.0f + std::exp(-v));
    d = sg * (1.0f - sg);
  } else {
    const float t = std::tanh(v);
    d = 1.0f - t * t;
  }
  return dy * d;
}

/// Calls \p fn with the activation kind as a template argument
/// (std::integral_constant); false for an unknown kind.
template <typename Fn> bool withActivation(int kind, Fn &&fn) {
  switch (kind) {
  case GNNRT_ACT_RELU:
    fn(std::integral_constant<int, GNNRT_ACT_RELU>());
    return true;
  case GNNRT_ACT_LEAKY_RELU:
    fn(std::integral_constant<int, GNNRT_ACT_LEAKY_RELU>());
    return true;
  case GNNRT_ACT_ELU:
    fn(std::integral_constant<int, GNNRT_ACT_ELU>());
    return true;
  case GNNRT_ACT_GELU:
    fn(std::integral_constant<int, GNNRT_ACT_GELU>());
    return true;
  case GNNRT_ACT_SIGMOID:
    fn(std::integral_constant<int, GNNRT_ACT_SIGMOID>());
    return true;
  case GNNRT_ACT_TANH:
    fn(std::integral_constant<int, GNNRT_ACT_TANH>());
    return true;
  default:
    return false;
  }
}

template <int Kind>
void activate(const float *x, int64_t n, float s, float *y) {
#pragma omp parallel for schedule(static) if (worthThreads(n))
  for (int64_t i = 0; i < n; ++i)
    y[i] = activateOne<Kind>(x[i], s);
}

template <int Kind>
void activateGrad(const float *x, const float *dy, int64_t n, float s,
                  float *dx) {
#pragma omp parallel for schedule(static) if (worthThreads(n))
  for (int64_t i = 0; i < n; ++i)
    dx[i] = activateGradOne<Kind>(x[i], dy[i], s);
}

//===----------------------------------------------------------------------===//
// dropout
//===----------------------------------------------------------------------===//
//
// Element i takes word i % 4 of the Philox4x32-10 block i / 4 (the counter
// of gnnrt::dropoutBits, (b lo, b hi, stream, step)). Three things make
// this fast without changing a bit of the result:
//
// * A block whose four inputs are all +0.0 (bit pattern 0) needs no random
//   bits: kept, +0.0 / keep with keep in (0, 1] is +0.0; dropped, the
//   kernel writes +0.0. -0.0 (kept as -0.0) and NaN (kept as NaN) are not
//   such inputs, which is why the test is on the bits and not `== 0`. Input
//   features are mostly +0.0 (Cora's are 98.7% zeros).
// * The blocks that do need bits are generated kLanes at a time in
//   struct-of-arrays form with SSE2 (part of every x86-64), four blocks per
//   vector, instead of one block's ten dependent rounds at a time. GCC does
//   not vectorise the widening products of a portable loop, hence the
//   intrinsics. Integer arithmetic gives the same bits however it is done.
// * Keeping or dropping is a mask, not a branch (which mispredicts half the
//   time at p = 0.5), over the quotients of all four elements. cvtps2pd,
//   divpd and cvtpd2ps round, and treat NaN and subnormals, exactly as their
//   scalar forms do, so the quotient is the scalar code's. When keep is a
//   power of two (p = 0.5, GCN's rate) the quotient is a float product
//   instead, which is exact (DropoutKey::pow2Scale says why); the divisions
//   were most of the kernel's time.

/// Blocks of four elements per tile of the parallel loop: enough for the
/// blocks that need bits to fill whole kLanes batches on sparse inputs.
constexpr int64_t kTileBlocks = 256;

#if defined(__SSE2__)
/// The dropout of the four elements \p x of one block into \p y, given the
/// block's four words \p bits. \p bias flips the sign bit so that a signed
/// compare with \p below, `(threshold - 1) ^ bias`, is the unsigned
/// `bits >= threshold`. With \p Pow2, keep is a power of two and the
/// quotient is the float product with \p scale (DropoutKey::pow2Scale).
template <bool Pow2>
inline void dropBlock(const float *x, float *y, __m128i bits, __m128i bias,
                      __m128i below, __m128d keep, __m128 scale) {
  const __m128 v = _mm_loadu_ps(x);
  __m128 q;
  if constexpr (Pow2) {
    q = _mm_mul_ps(v, scale);
  } else {
    const __m128d lo = _mm_div_pd(_mm_cvtps_pd(v), keep);
    const __m128d hi = _mm_div_pd(_mm_cvtps_pd(_mm_movehl_ps(v, v)), keep);
    q = _mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi));
  }
  const __m128i kept = _mm_cmpgt_epi32(_mm_xor_si128(bits, bias), below);
  _mm_storeu_ps(y, _mm_and_ps(q, _mm_castsi128_ps(kept)));
}

/// dropBlock's operands for one call's key, set up once per call.
struct DropVectors {
  __m128i bias, below;
  __m128d keep;
  __m128 scale;
  bool pow2;
  explicit DropVectors(const DropoutKey &key)
      : bias(_mm_set1_epi32(INT32_MIN)),
        below(_mm_set1_epi32(
            static_cast<int>((key.threshold - 1) ^ 0x80000000u))),
        keep(_mm_set1_pd(key.keep)), scale(_mm_set1_ps(key.pow2Scale)),
        pow2(key.pow2Scale != 0) {}
  /// The dropout of the four elements \p x into \p y, given their words.
  void drop(const float *x, float *y, __m128i bits) const {
    if (pow2)
      dropBlock<true>(x, y, bits, bias, below, keep, scale);
    else
      dropBlock<false>(x, y, bits, bias, below, keep, scale);
  }
};
#endif

/// The dropout of the blocks `need[l]` of \p x and \p y (counted from
/// their start), l < \p lanes <= kLanes, whose words philoxLanes left in
/// \p bits.
inline void dropLanes(const float *x, float *y, const uint32_t *need, int lanes,
                      const uint32_t bits[4][kLanes], const DropoutKey &key) {
#if defined(__SSE2__)
  const DropVectors v(key);
  for (int g = 0; g < lanes; g += 4) {
    // Transpose four lanes' words into four blocks' words.
    __m128i words[4];
    for (int j = 0; j < 4; ++j)
      words[j] =
          _mm_loadu_si128(reinterpret_cast<const __m128i *>(bits[j] + g));
    const __m128i t0 = _mm_unpacklo_epi32(words[0], words[1]);
    const __m128i t1 = _mm_unpacklo_epi32(words[2], words[3]);
    const __m128i t2 = _mm_unpackhi_epi32(words[0], words[1]);
    const __m128i t3 = _mm_unpackhi_epi32(words[2], words[3]);
    const __m128i block[4] = {
        _mm_unpacklo_epi64(t0, t1), _mm_unpackhi_epi64(t0, t1),
        _mm_unpacklo_epi64(t2, t3), _mm_unpackhi_epi64(t2, t3)};
    const int count = lanes - g < 4 ? lanes - g : 4;
    for (int l = 0; l < count; ++l) {
      const int64_t e = 4 * static_cast<int64_t>(need[g + l]);
      v.drop(x + e, y + e, block[l]);
    }
  }
#else
  for (int l = 0; l < lanes; ++l) {
    const int64_t e = 4 * static_cast<int64_t>(need[l]);
    for (int j = 0; j < 4; ++j)
      y[e + j] = dropElement(x[e + j], bits[j][l], key);
  }
#endif
}

/// Dropout of the whole blocks [first, last), at most kTileBlocks of them;
/// \p x and \p y point at block \p first.
void dropoutTile(const float *x, float *y, int64_t first, int64_t last,
                 const DropoutKey &key) {
  // Copy every block to y and list those that are not all +0.0, without a
  // branch per block. A copied +0.0 block is its final output; the others
  // are overwritten below from x, which in place is y but still holds the
  // input, since nothing but a copy of itself was written there.
  uint32_t need[kTileBlocks];
  int count = 0;
  for (int64_t b = 0; b < last - first; ++b) {
    uint64_t w[2];
    std::memcpy(w, x + 4 * b, sizeof(w));
    std::memcpy(y + 4 * b, w, sizeof(w));
    need[count] = static_cast<uint32_t>(b);
    count += (w[0] | w[1]) != 0;
  }
  for (int start = 0; start < count; start += kLanes) {
    const int lanes = count - start < kLanes ? count - start : kLanes;
    uint32_t lo[kLanes], hi[kLanes], bits[4][kLanes];
    for (int l = 0; l < kLanes; ++l) {
      // Lanes past the end repeat the last block; their bits go unused.
      const uint64_t block = static_cast<uint64_t>(
          first + need[start + (l < lanes ? l : lanes - 1)]);
      lo[l] = static_cast<uint32_t>(block);
      hi[l] = static_cast<uint32_t>(block >> 32);
    }
    philoxLanes(lo, hi, key, bits);
    dropLanes(x, y, need + start, lanes, bits, key);
  }
}

/// What every element of one dropout call shares: p = 0 keeps every
/// element whatever its bits (no Philox at all; still the quotient, which
/// is what the general path writes: it quiets a signalling NaN, for one),
/// p > 1 - 2^-32 drops every element, anything else goes by the bits.
struct Dropout {
  enum { KeepAll, DropAll, Random } mode;
  double keep;
  DropoutKey key; // Random only
};

Dropout dropoutOf(uint64_t seed, uint64_t step, uint64_t stream, double p) {
  // Comparing the raw bits with the threshold is exactly `u >= p`.
  const uint64_t threshold = gnnrt::dropoutThreshold(p);
  const double keep = 1.0 - p;
  if (threshold == 0)
    return {Dropout::KeepAll, keep, {}};
  if (threshold > UINT32_MAX)
    return {Dropout::DropAll, keep, {}};
  return {Dropout::Random, keep,
          dropoutKey(seed, step, stream, threshold, keep)};
}

/// Dropout of the elements [from, to) of one Philox block (to - from < 4),
/// \p x and \p y pointing at element \p begin of the call.
void dropoutPartialBlock(const float *x, float *y, int64_t begin, int64_t from,
                         int64_t to, const Dropout &d) {
  const uint64_t block = static_cast<uint64_t>(from / 4);
  const uint32_t ctr[4] = {static_cast<uint32_t>(block),
                           static_cast<uint32_t>(block >> 32), d.key.stream,
                           d.key.step};
  const uint32_t k[2] = {d.key.k0, d.key.k1};
  uint32_t bits[4];
  gnnrt::philox4x32(ctr, k, bits);
  for (int64_t i = from; i < to; ++i)
    y[i - begin] = dropElement(x[i - begin], bits[i % 4], d.key);
}

/// Dropout of the elements at(k), k in [begin, end), of a column slice
/// (\p width of each row's \p cols elements, from column \p offset),
/// counted in the slice: element e is element
/// (e / width) * cols + offset + e % width of the whole call, and takes that
/// element's word, kLanes blocks at a time. \p Contiguous says that at is
/// the identity, so that four consecutive elements are a vector of x and y;
/// else (the listed rows of gnnrt_cpu_dropout_columns_rows) each element is
/// dropped on its own, still from its lane's bits.
template <bool Contiguous, typename AtFn>
void dropoutNarrow(const float *x, float *y, int64_t begin, int64_t end,
                   int64_t width, int64_t cols, int64_t offset,
                   const DropoutKey &key, AtFn at) {
#if defined(__SSE2__)
  const DropVectors v(key);
#endif
  for (int64_t k = begin; k < end; k += kLanes) {
    const int lanes = end - k < kLanes ? static_cast<int>(end - k) : kLanes;
    uint32_t lo[kLanes], hi[kLanes], word[kLanes], bits[4][kLanes];
    int64_t elem[kLanes];
    for (int l = 0; l < kLanes; ++l) {
      // Lanes past the end repeat the last element; their bits go unused.
      const int64_t s = at(k + (l < lanes ? l : lanes - 1));
      const int64_t i = (s / width) * cols + offset + s % width;
      const uint64_t block = static_cast<uint64_t>(i / 4);
      elem[l] = s;
      lo[l] = static_cast<uint32_t>(block);
      hi[l] = static_cast<uint32_t>(block >> 32);
      word[l] = static_cast<uint32_t>(i % 4);
    }
    philoxLanes(lo, hi, key, bits);
    uint32_t chosen[kLanes];
    for (int l = 0; l < kLanes; ++l)
      chosen[l] = bits[word[l]][l];
    int l = 0;
#if defined(__SSE2__)
    // The elements are contiguous in x and y: four at a time as a block.
    if constexpr (Contiguous)
      for (; l + 4 <= lanes; l += 4)
        v.drop(x + k + l, y + k + l,
               _mm_loadu_si128(reinterpret_cast<const __m128i *>(chosen + l)));
#endif
    for (; l < lanes; ++l)
      y[elem[l]] = dropElement(x[elem[l]], chosen[l], key);
  }
}

/// dropoutNarrow over the slice elements [begin, end), contiguous.
void dropoutNarrowColumns(const float *x, float *y, int64_t begin, int64_t end,
                          int64_t width, int64_t cols, int64_t offset,
                          const DropoutKey &key) {
  dropoutNarrow<true>(x, y, begin, end, width, cols, offset, key,
                      [](int64_t e) { return e; });
}

/// Slice elements per chunk of the narrow dropouts' parallel loops: 64
/// batches of kLanes blocks.
constexpr int64_t kNarrowChunk = 64 * kLanes;

/// Dropout of the elements [begin, end) of a call, \p x and \p y pointing
/// at element \p begin. The output is a pure function of the input and the
/// element indices, so it does not depend on how a call is cut into ranges
/// (a range of a row-restricted chain may start inside a Philox block).
void dropoutRange(const float *x, float *y, int64_t begin, int64_t end,
                  const Dropout &d) {
  const int64_t n = end - begin;
  if (d.mode == Dropout::KeepAll) {
    for (int64_t i = 0; i < n; ++i)
      y[i] = keepElement(x[i], d.keep);
    return;
  }
  if (d.mode == Dropout::DropAll) {
    for (int64_t i = 0; i < n; ++i)
      y[i] = 0.0f;
    return;
  }
  // A first, partial block up to the next multiple of four.
  const int64_t aligned = std::min(end, (begin + 3) / 4 * 4);
  if (begin < aligned)
    dropoutPartialBlock(x, y, begin, begin, aligned, d);
  const int64_t first = aligned / 4, last = end / 4;
  for (int64_t b = first; b < last; b += kTileBlocks) {
    const int64_t to = last - b < kTileBlocks ? last : b + kTileBlocks;
    dropoutTile(x + 4 * b - begin, y + 4 * b - begin, b, to, d.key);
  }
  // A last, partial block of end % 4 elements.
  if (4 * last >= aligned && 4 * last < end)
    dropoutPartialBlock(x, y, begin, 4 * last, end, d);
}

//===----------------------------------------------------------------------===//
// fused element-wise chains
//===----------------------------------------------------------------------===//
//
// gnnrt_cpu_fused runs a chain tile by tile: each op reads its operands'
// part of the tile (an input's elements, or an earlier op's result kept in
// the tile's scratch) and writes its result's part to the scratch, which
// stays in L1; the escaping results are then copied out. Each op computes
// its elements with the same expression as its own kernel, so the bits are
// the same; the tiles are fixed by n, not by the thread count.

constexpr int kMaxFusedOps = GNNRT_FUSED_MAX_OPS;
/// Elements per tile: a multiple of four (a dropout's Philox block), small
/// enough that a chain's scratch stays in L1.
constexpr int64_t kFusedTile = 512;

/// An op of a chain, its parameters decoded once per call.
struct FusedStep {
  gnnrt_fused_op op;
  int arity = 0;          // operands read: a, then b
  bool broadcast = false; // b is a [cols] input (bias_add, row_mul)
  int32_t output = -1;    // the output written directly, if any
  Dropout dropout;        // GNNRT_FUSED_DROPOUT only
};

/// `y[i] = fn(a[i], row[(c0 + i) % cols])` for i < len, in runs of whole
/// columns so that the inner loop is a plain vector loop.
template <typename Fn>
GNNRT_ALWAYS_INLINE void columnwise(const float *a, const float *row,
                                    int64_t c0, int64_t cols, int64_t len,
                                    float *y, Fn fn) {
  int64_t i = 0, c = c0;
  while (i < len) {
    const int64_t run = len - i < cols - c ? len - i : cols - c;
    for (int64_t j = 0; j < run; ++j)
      y[i + j] = fn(a[i + j], row[c + j]);
    i += run;
    c = 0;
  }
}

/// One op over the elements [begin, begin + len) of the chain.
GNNRT_VECTOR_CLONES
void fusedStep(const FusedStep &step, const float *a, const float *b,
               int64_t begin, int64_t len, int64_t cols, float *y) {
  const gnnrt_fused_op &op = step.op;
  const float s = static_cast<float>(op.param);
  switch (op.kind) {
  case GNNRT_FUSED_ADD:
    for (int64_t i = 0; i < len; ++i)
      y[i] = a[i] + b[i];
    return;
  case GNNRT_FUSED_SUB:
    for (int64_t i = 0; i < len; ++i)
      y[i] = a[i] - b[i];
    return;
  case GNNRT_FUSED_MUL:
    for (int64_t i = 0; i < len; ++i)
      y[i] = a[i] * b[i];
    return;
  case GNNRT_FUSED_SCALE:
    for (int64_t i = 0; i < len; ++i)
      y[i] = static_cast<float>(static_cast<double>(a[i]) * op.param);
    return;
  case GNNRT_FUSED_ACTIVATION:
    withActivation(op.activation, [&](auto k) {
      for (int64_t i = 0; i < len; ++i)
        y[i] = activateOne<decltype(k)::value>(a[i], s);
    });
    return;
  case GNNRT_FUSED_ACTIVATION_GRAD:
    withActivation(op.activation, [&](auto k) {
      for (int64_t i = 0; i < len; ++i)
        y[i] = activateGradOne<decltype(k)::value>(a[i], b[i], s);
    });
    return;
  case GNNRT_FUSED_BIAS_ADD:
    columnwise(a, b, begin % cols, cols, len, y,
               [](float u, float v) { return u + v; });
    return;
  case GNNRT_FUSED_ROW_MUL:
    columnwise(a, b, begin % cols, cols, len, y,
               [](float u, float v) { return u * v; });
    return;
  case GNNRT_FUSED_ZEROS:
    for (int64_t i = 0; i < len; ++i)
      y[i] = 0.0f;
    return;
  case GNNRT_FUSED_DROPOUT:
    dropoutRange(a, y, begin, begin + len, step.dropout);
    return;
  default:
    return; // rejected by fusedArgs
  }
}

/// How many operands each kind reads (a, then b).
int fusedArity(int32_t kind) {
  switch (kind) {
  case GNNRT_FUSED_ZEROS:
    return 0;
  case GNNRT_FUSED_SCALE:
  case GNNRT_FUSED_ACTIVATION:
  case GNNRT_FUSED_DROPOUT:
    return 1;
  default:
    return 2;
  }
}

/// gnnrt_cpu_fused's checks: shapes, every operand an input or an earlier
/// result, broadcast operands inputs, parameters in range.
int fusedArgs(const gnnrt_fused_op *ops, int32_t nops, int64_t n, int64_t cols,
              const float *const *inputs, int32_t ninputs,
              float *const *outputs, const int32_t *outputValues,
              int32_t noutputs) {
  GNNRT_CHECK(n >= 0 && cols >= 1 && n % cols == 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(nops >= 1 && nops <= kMaxFusedOps && ninputs >= 0 &&
                  noutputs >= 0,
              GNNRT_ERR_BAD_ARGUMENT);
  GNNRT_CHECK(ops && (ninputs == 0 || inputs) &&
                  (noutputs == 0 || (outputs && outputValues)),
              GNNRT_ERR_NULL_POINTER);
  for (int32_t k = 0; k < nops; ++k) {
    const gnnrt_fused_op &op = ops[k];
    GNNRT_CHECK(op.kind >= GNNRT_FUSED_ADD && op.kind <= GNNRT_FUSED_DROPOUT,
                GNNRT_ERR_BAD_ARGUMENT);
    const int arity = fusedArity(op.kind);
    const int32_t operands[2] = {op.a, op.b};
    for (int j = 0; j < arity; ++j) {
      GNNRT_CHECK(operands[j] >= 0 && operands[j] < ninputs + k,
                  GNNRT_ERR_BAD_ARGUMENT);
      if (operands[j] < ninputs)
        GNNRT_CHECK(n == 0 || inputs[operands[j]], GNNRT_ERR_NULL_POINTER);
    }
    if (op.kind == GNNRT_FUSED_BIAS_ADD || op.kind == GNNRT_FUSED_ROW_MUL)
      GNNRT_CHECK(op.b < ninputs, GNNRT_ERR_BAD_ARGUMENT);
    if (op.kind == GNNRT_FUSED_ACTIVATION ||
        op.kind == GNNRT_FUSED_ACTIVATION_GRAD)
      GNNRT_CHECK(op.activation >= GNNRT_ACT_RELU &&
                      op.activation <= GNNRT_ACT_TANH,
                  GNNRT_ERR_BAD_ARGUMENT);
    if (op.kind == GNNRT_FUSED_DROPOUT) // also rejects NaN
      GNNRT_CHECK(op.param >= 0 && op.param < 1, GNNRT_ERR_BAD_ARGUMENT);
  }
  for (int32_t j = 0; j < noutputs; ++j) {
    GNNRT_CHECK(outputValues[j] >= ninputs && outputValues[j] < ninputs + nops,
                GNNRT_ERR_BAD_ARGUMENT);
    GNNRT_CHECK(n == 0 || outputs[j], GNNRT_ERR_NULL_POINTER);
  }
  return GNNRT_OK;
}

/// A chain ready to run: its ops decoded, and for each stored result
/// whether it is computed straight into its output.
struct FusedChain {
  FusedStep steps[kMaxFusedOps];
  int32_t nops;
  const float *const *inputs;
  int32_t ninputs;
  float *const *outputs;
  const int32_t *outputValues;
  int32_t noutputs;
  int64_t cols;
};

/// Decodes a chain that fusedArgs accepted.
void prepareChain(const gnnrt_fused_op *ops, int32_t nops, int64_t cols,
                  const float *const *inputs, int32_t ninputs,
                  float *const *outputs, const int32_t *outputValues,
                  int32_t noutputs, FusedChain &chain) {
  chain = {};
  chain.nops = nops;
  chain.inputs = inputs;
  chain.ninputs = ninputs;
  chain.outputs = outputs;
  chain.outputValues = outputValues;
  chain.noutputs = noutputs;
  chain.cols = cols;
  FusedStep *steps = chain.steps;
  for (int32_t k = 0; k < nops; ++k) {
    steps[k].op = ops[k];
    steps[k].arity = fusedArity(ops[k].kind);
    steps[k].broadcast = ops[k].kind == GNNRT_FUSED_BIAS_ADD ||
                         ops[k].kind == GNNRT_FUSED_ROW_MUL;
    if (ops[k].kind == GNNRT_FUSED_DROPOUT)
      steps[k].dropout =
          dropoutOf(ops[k].seed, ops[k].step, ops[k].stream, ops[k].param);
  }
  // An op whose result is stored is computed straight into its output,
  // unless a later op reads an input in that very buffer: the tile's
  // elements of it must still be the input's then. Other results, and
  // further copies of a stored one, go through the tile's scratch.
  for (int32_t j = 0; j < noutputs; ++j) {
    FusedStep &step = steps[outputValues[j] - ninputs];
    if (step.output >= 0)
      continue;
    bool readLater = false;
    for (const FusedStep *later = &step + 1; later < steps + nops; ++later) {
      const int32_t operands[2] = {later->op.a, later->op.b};
      for (int i = 0; i < later->arity; ++i)
        readLater |= operands[i] < ninputs && inputs[operands[i]] == outputs[j];
    }
    if (!readLater)
      step.output = j;
  }
}

/// The chain over the elements [begin, begin + len), len <= kFusedTile.
void runTile(const FusedChain &chain, int64_t begin, int64_t len) {
  alignas(64) float scratch[kMaxFusedOps][kFusedTile];
  float *result[kMaxFusedOps];
  const int32_t ninputs = chain.ninputs;
  // Operand v's elements of this tile; a broadcast operand whole.
  auto operand = [&](int32_t v, bool broadcast) -> const float * {
    if (v >= ninputs)
      return result[v - ninputs];
    return broadcast ? chain.inputs[v] : chain.inputs[v] + begin;
  };
  for (int32_t k = 0; k < chain.nops; ++k) {
    const FusedStep &step = chain.steps[k];
    result[k] =
        step.output >= 0 ? chain.outputs[step.output] + begin : scratch[k];
    fusedStep(step, step.arity > 0 ? operand(step.op.a, false) : nullptr,
              step.arity > 1 ? operand(step.op.b, step.broadcast) : nullptr,
              begin, len, chain.cols, result[k]);
  }
  for (int32_t j = 0; j < chain.noutputs; ++j) {
    const int32_t k = chain.outputValues[j] - ninputs;
    if (chain.steps[k].output != j)
      std::memcpy(chain.outputs[j] + begin, result[k], sizeof(float) * len);
  }
}

/// dx = dy * f'(v) for rows [first, last) of the sign gradient (or of
/// \p order's rows), v the 1.0 or 0.0 of each bit put through the
/// activation kernels' own expression, so the result's bits are theirs. The
/// bits are unpacked a block at a time and the expression runs over the
/// block: the loop vectorises, where a shift and a select per element did
/// not (GAT's [E, 4] scores ran at 0.45 G elements/s).
template <int Kind>
void gradFromSigns(const uint8_t *bits, int64_t rowBytes, const float *dy,
                   int64_t cols, float s, const int32_t *order, int64_t first,
                   int64_t last, float *dx) {
  constexpr int64_t kBlock = 256; // floats; a multiple of 8 bits
  // Rows are unpacked in order, each with its last byte's padding, which
  // the next row overwrites; the last row's lands in the 8 spare floats.
  float v[kBlock + 8];
  auto apply = [&](const float *dyr, float *dxr, int64_t n) {
    for (int64_t e = 0; e < n; ++e)
      dxr[e] = activateGradOne<Kind>(v[e], dyr[e], s);
  };
#if defined(__SSE2__)
  if (!order && cols == 4) {
    // A byte a row (GAT's four-head scores): f'(v) for each of the 16
    // bytes, then a vector product a row. dy * f'(v) is the kernels'
    // expression with f'(v) = activateGradOne(v, 1, s) (1 * d is d).
    alignas(16) float d[16][4];
    for (int byte = 0; byte < 16; ++byte)
      for (int k = 0; k < 4; ++k)
        d[byte][k] =
            activateGradOne<Kind>((byte >> k) & 1 ? 1.0f : 0.0f, 1.0f, s);
    for (int64_t r = first; r < last; ++r)
      _mm_storeu_ps(dx + 4 * r, _mm_mul_ps(_mm_loadu_ps(dy + 4 * r),
                                           _mm_load_ps(d[bits[r] & 15])));
    return;
  }
#endif
  if (!order && cols == 1) {
    // A byte a row (GAT's one-head scores): its bit straight into v.
    for (int64_t i = first; i < last; i += kBlock) {
      const int64_t n = std::min(kBlock, last - i);
      for (int64_t e = 0; e < n; ++e)
        v[e] = bits[i + e] & 1 ? 1.0f : 0.0f;
      apply(dy + i, dx + i, n);
    }
    return;
  }
  if (!order && cols <= kBlock) {
    // Consecutive rows are consecutive in dy and dx: a block of whole rows.
    const int64_t perBlock = kBlock / std::max<int64_t>(cols, 1);
    for (int64_t i = first; i < last; i += perBlock) {
      const int64_t end = std::min(last, i + perBlock);
      for (int64_t r = i; r < end; ++r)
        unpackSignRowPadded(bits + r * rowBytes, cols, v + (r - i) * cols);
      apply(dy + i * cols, dx + i * cols, (end - i) * cols);
    }
    return;
  }
  for (int64_t t = first; t < last; ++t) {
    const int64_t i = order ? int64_t(order[t]) : t;
    for (int64_t c = 0; c < cols; c += kBlock) {
      const int64_t n = std::min(kBlock, cols - c);
      unpackSignRowPadded(bits + i * rowBytes + c / 8, n, v);
      apply(dy + i * cols + c, dx + i * cols + c, n);
    }
  }
}

} // namespace

extern "C" {

int gnnrt_cpu_add(const float *a, const float *b, int64_t n, float *y) {
  return binary(a, b, n, y, [](float u, float v) { return u + v; });
}

int gnnrt_cpu_sub(const float *a, const float *b, int64_t n, float *y) {
  return binary(a, b, n, y, [](float u, float v) { return u - v; });
}

int gnnrt_cpu_mul(const float *a, const float *b, int64_t n, float *y) {
  return binary(a, b, n, y, [](float u, float v) { return u * v; });
}

int gnnrt_cpu_scale(const float *x, int64_t n, double factor, float *y) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(x, n) && present(y, n), GNNRT_ERR_NULL_POINTER);
#pragma omp parallel for schedule(static) if (worthThreads(n))
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<float>(static_cast<double>(x[i]) * factor);
  return GNNRT_OK;
}

int gnnrt_cpu_activation(int kind, const float *x, int64_t n, double slope,
                         float *y) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(x, n) && present(y, n), GNNRT_ERR_NULL_POINTER);
  const float s = static_cast<float>(slope);
  const bool known = withActivation(
      kind, [&](auto k) { activate<decltype(k)::value>(x, n, s, y); });
  return known ? GNNRT_OK : GNNRT_ERR_BAD_ARGUMENT;
}

int gnnrt_cpu_activation_grad(int kind, const float *x, const float *dy,
                              int64_t n, double slope, float *dx) {
  GNNRT_CHECK(n >= 0, GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(x, n) && present(dy, n) && present(dx, n),
              GNNRT_ERR_NULL_POINTER);
  const float s = static_cast<float>(slope);
  const bool known = withActivation(
      kind, [&](auto k) { activateGrad<decltype(k)::value>(x, dy, n, s, dx); });
  return known ? GNNRT_OK : GNNRT_ERR_BAD_ARGUMENT;
}

int gnnrt_cpu_activation_grad_sign(int kind, const uint8_t *bits,
                                   const float *dy, int64_t rows, int64_t cols,
                                   double slope, const int32_t *row_sets,
                                   int64_t hops, int64_t level, int zero_rest,
                                   float *dx) {
  GNNRT_CHECK(rows >= 0 && cols >= 0, GNNRT_ERR_BAD_SIZE);
  int64_t n;
  GNNRT_CHECK(mulSize(rows, cols, n), GNNRT_ERR_BAD_SIZE);
  GNNRT_CHECK(present(bits, n) && present(dy, n) && present(dx, n),
              GNNRT_ERR_NULL_POINTER);
  GNNRT_CHECK(kind == GNNRT_ACT_RELU || kind == GNNRT_ACT_LEAKY_RELU,
              GNNRT_ERR_BAD_ARGUMENT);
  RowSets sets{};
  if (row_sets)
    if (int status = rowSetArgs(row_sets, rows, hops, level, sets))
      return status;
  const int32_t *order = row_sets ? sets.order : nullptr;
  const int64_t count = row_sets ? int64_t(sets.count[level]) : rows;
  const int64_t rowBytes = signRowBytes(cols);
  const float s = static_cast<float>(slope);
  withActivation(kind, [&](auto k) {
    constexpr int Kind = decltype(k)::value;
    if constexpr (Kind == GNNRT_ACT_RELU || Kind == GNNRT_ACT_LEAKY_RELU)
      forEachChunk(count, signChunkRows(cols, kRowChunk),
                   worthThreads(count, cols), [&](int64_t first, int64_t last) {
                     gradFromSigns<Kind>(bits, rowBytes, dy, cols, s, order,
                                         first, last, dx);
                   });
  });
  if (row_sets && zero_rest)
    zeroOtherRows(sets.level, rows, level, cols, dx);
  return GNNRT_OK;
}

int gnnrt_cpu_dropout(const float *x, int64_t n, uint64_t seed, uint64_t step,
                      uint64_t stream, double p, float *y) {
  if (int status = kernel::dropoutArgs(x, n, p, y))
    return status;
  const Dropout d = dropoutOf(seed, step, stream, p);
  // Tiles of whole blocks; the last one may end in a partial block.
  constexpr int64_t kTile = 4 * kTileBlocks;
  const int64_t tiles = (n + kTile - 1) / kTile;
  [[maybe_unused]] const bool threads = worthThreads(n / 4);
#pragma omp parallel for schedule(static) if (threads)
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t begin = t * kTile;
    const int64_t end = n - begin < kTile ? n : begin + kTile;
    dropoutRange(x + begin, y + begin, begin, end, d);
  }
  return GNNRT_OK;
}

int gnnrt_cpu_dropout_columns(const float *x, int64_t rows, int64_t width,
                              int64_t cols, int64_t offset, uint64_t seed,
                              uint64_t step, uint64_t stream, double p,
                              float *y) {
  int64_t n;
  if (int status =
          kernel::dropoutColumnsArgs(x, rows, width, cols, offset, p, y, n))
    return status;
  const Dropout d = dropoutOf(seed, step, stream, p);
  [[maybe_unused]] const bool threads = worthThreads(n);
  if (d.mode == Dropout::Random && width < 4) {
    // Narrower than a block (a head's column of GAT's attention is one
    // element wide): each element needs a block of its own, whose other
    // words belong to the other heads. One block at a time that is ten
    // dependent rounds per element; kLanes elements' blocks at a time
    // overlap them, with the same bits (it was most of a head-by-head
    // GAT step's dropout time).
    const int64_t chunks = (n + kNarrowChunk - 1) / kNarrowChunk;
#pragma omp parallel for schedule(static) if (threads)
    for (int64_t c = 0; c < chunks; ++c)
      dropoutNarrowColumns(x, y, c * kNarrowChunk,
                           std::min(n, (c + 1) * kNarrowChunk), width, cols,
                           offset, d.key);
    return GNNRT_OK;
  }
  // Wider columns: whole blocks go through the tiles, and only a row's
  // ends are computed a block per element.
#pragma omp parallel for schedule(static) if (threads)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t first = r * cols + offset;
    dropoutRange(x + r * width, y + r * width, first, first + width, d);
  }
  return GNNRT_OK;
}

int gnnrt_cpu_dropout_columns_rows(const float *x, int64_t rows, int64_t width,
                                   int64_t cols, int64_t offset, uint64_t seed,
                                   uint64_t step, uint64_t stream, double p,
                                   const int32_t *row_sets, int64_t hops,
                                   int64_t level, int zero_rest, float *y) {
  int64_t n;
  if (int status =
          kernel::dropoutColumnsArgs(x, rows, width, cols, offset, p, y, n))
    return status;
  RowSets sets;
  if (int status = rowSetArgs(row_sets, rows, hops, level, sets))
    return status;
  const Dropout d = dropoutOf(seed, step, stream, p);
  const int32_t *order = sets.order;
  const int64_t computed = sets.count[level];
  // The listed rows' elements go through gnnrt_cpu_dropout_columns' own
  // paths, whose bits are a function of each element's index alone. Rows
  // narrower than a block are batched across rows, kLanes elements' blocks
  // at a time: row by row, a one-element row would compute kLanes blocks
  // for one word. Every row costs the same, so a chunk holds about
  // kNarrowChunk elements as the whole kernel's do, not kRowChunk rows of a
  // few elements (a dispatch per 32 such rows cost the sign kernels more
  // than their work, SignBits.h).
  const bool narrow = d.mode == Dropout::Random && width < 4;
  const int64_t chunkRows =
      std::max(kRowChunk, kNarrowChunk / std::max<int64_t>(width, 1));
  forEachChunk(
      computed, chunkRows, worthThreads(computed, width),
      [&](int64_t first, int64_t last) {
        if (narrow) {
          dropoutNarrow<false>(x, y, first * width, last * width, width, cols,
                               offset, d.key, [&](int64_t k) {
                                 return int64_t(order[k / width]) * width +
                                        k % width;
                               });
          return;
        }
        for (int64_t t = first; t < last; ++t) {
          const int64_t r = order[t], begin = r * cols + offset;
          dropoutRange(x + r * width, y + r * width, begin, begin + width, d);
        }
      });
  if (zero_rest)
    zeroOtherRows(sets.level, rows, level, width, y);
  return GNNRT_OK;
}

int gnnrt_cpu_fused(const gnnrt_fused_op *ops, int32_t nops, int64_t n,
                    int64_t cols, const float *const *inputs, int32_t ninputs,
                    float *const *outputs, const int32_t *output_values,
                    int32_t noutputs) {
  if (int status = fusedArgs(ops, nops, n, cols, inputs, ninputs, outputs,
                             output_values, noutputs))
    return status;
  FusedChain chain;
  prepareChain(ops, nops, cols, inputs, ninputs, outputs, output_values,
               noutputs, chain);
  const int64_t tiles = (n + kFusedTile - 1) / kFusedTile;
  [[maybe_unused]] const bool threads = worthThreads(n);
#pragma omp parallel for schedule(static) if (threads)
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t begin = t * kFusedTile;
    runTile(chain, begin, n - begin < kFusedTile ? n - begin : kFusedTile);
  }
  return GNNRT_OK;
}

int gnnrt_cpu_fused_rows(const gnnrt_fused_op *ops, int32_t nops, int64_t n,
                         int64_t cols, const float *const *inputs,
                         int32_t ninputs, float *const *outputs,
                         const int32_t *output_values, int32_t noutputs,
                         const int32_t *row_sets, int64_t hops, int64_t level,
                         int zero_rest) {
  if (int status = fusedArgs(ops, nops, n, cols, inputs, ninputs, outputs,
                             output_values, noutputs))
    return status;
  const int64_t rows = n / cols;
  RowSets sets;
  if (int status = rowSetArgs(row_sets, rows, hops, level, sets))
    return status;
  FusedChain chain;
  prepareChain(ops, nops, cols, inputs, ninputs, outputs, output_values,
               noutputs, chain);
  // Each run of consecutive listed rows in tiles of its own: an element's
  // ops and operands are those of the whole chain, so its bits are too (a
  // dropout's mask is a function of the element's index, whatever tile it
  // falls in). The order lists each level by increasing id, so a set that
  // holds most of a block of rows (edge rows: a node's edges, often
  // numbered together) runs as few long tiles, not one short tile a row
  // (a GAT score row is 1 to 8 floats). Narrow rows are dealt out more at a
  // time for the same reason.
  const int32_t *order = sets.order;
  const int64_t computed = sets.count[level];
  const int64_t chunk =
      std::max(kRowChunk, kFusedTile / std::max<int64_t>(cols, 1));
  forEachChunk(computed, chunk, worthThreads(computed, cols),
               [&](int64_t first, int64_t last) {
                 for (int64_t t = first; t < last;) {
                   const int64_t row = order[t];
                   int64_t end = row + 1;
                   for (++t; t < last && order[t] == end; ++t)
                     ++end;
                   const int64_t stop = end * cols;
                   for (int64_t at = row * cols; at < stop; at += kFusedTile)
                     runTile(chain, at, std::min(kFusedTile, stop - at));
                 }
               });
  // After every listed row: an output may be an input's buffer.
  for (int32_t j = 0; zero_rest && j < noutputs; ++j)
    zeroOtherRows(sets.level, rows, level, cols, outputs[j]);
  return GNNRT_OK;
}

} // extern "C"
