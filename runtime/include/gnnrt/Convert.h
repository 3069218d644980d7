/*===- Convert.h - Storage precision conversions -------------------*- C
-*-===//
//
// The kernels behind `mem.store_as` and `mem.load_as`, and `mem.store_sign`
// and `mem.load_sign` at the end: the memory planner may
// keep a tensor that lives from the forward to the backward pass in 16 bits
// (bfloat16 or IEEE half) and widen it back to fp32 before its use. The
// conversions must be exact functions of their input, not of the machine,
// because the CPU backend is the oracle the CUDA one is compared against
// (CUDA's __float2bfloat16_rn and __float2half_rn round numbers the same
// way; NaN payloads may differ).
//
// Semantics, for every function:
// * Narrowing rounds to nearest, ties to even (IEEE 754 roundTiesToEven),
//   computed with integer operations only, so neither the floating-point
//   environment (rounding mode, flush-to-zero) nor -march changes a bit.
// * Subnormal inputs and outputs are kept, never flushed to zero.
// * A NaN stays a NaN of the same sign, made quiet (the top mantissa bit is
//   set); as much of its payload as fits is kept. Infinities stay
//   infinities.
// * fp32 -> fp16: a magnitude of 65520 or more (halfway between the largest
//   half, 65504, and 2^16) becomes an infinity, as IEEE prescribes; fp32 ->
//   bf16 overflows only above the largest bf16 (same exponent range).
// * Widening (bf16 or fp16 -> fp32) is exact.
// * 16-bit values are passed as uint16_t bit patterns: C has no portable
//   16-bit float type.
//
// The ABI rules of gnnrt/Kernels.h apply: n < 0 is GNNRT_ERR_BAD_SIZE, a
// null pointer with n > 0 is GNNRT_ERR_NULL_POINTER (nothing is written on
// failure), and dst must not overlap src.
//
//===----------------------------------------------------------------------===*/
#ifndef GNNRT_CONVERT_H
#define GNNRT_CONVERT_H

#include "gnnrt/Kernels.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dst[i] = bfloat16(src[i]) for i in [0, n). */
int gnnrt_cpu_f32_to_bf16(const float *src, uint16_t *dst, int64_t n);

/* dst[i] = float(src[i]), src holding bfloat16 bit patterns. */
int gnnrt_cpu_bf16_to_f32(const uint16_t *src, float *dst, int64_t n);

/* dst[i] = half(src[i]) (IEEE 754 binary16) for i in [0, n). */
int gnnrt_cpu_f32_to_f16(const float *src, uint16_t *dst, int64_t n);

/* dst[i] = float(src[i]), src holding binary16 bit patterns. */
int gnnrt_cpu_f16_to_f32(const uint16_t *src, float *dst, int64_t n);

/* mem.store_sign: bit c % 8 of bits[i * ceil(cols / 8) + c / 8] is
 * `x[i * cols + c] > 0` (a NaN is not positive), for every row i in
 * [0, rows); the padding bits of a row's last byte are 0. Only the signs
 * survive: the gradients of relu and leaky_relu need nothing else. */
int gnnrt_cpu_store_sign(const float *x, int64_t rows, int64_t cols,
                         uint8_t *bits);

/* mem.load_sign: y[i * cols + c] = 1.0 where that bit is set, +0.0
 * elsewhere, for every row i in [0, rows). */
int gnnrt_cpu_load_sign(const uint8_t *bits, int64_t rows, int64_t cols,
                        float *y);

/* The same at the rows of R_level of gnnrt_cpu_receptive_rows' buffer
 * (`rows` nodes, `hops` hops) only; other rows are left as they were. */
int gnnrt_cpu_store_sign_rows(const float *x, int64_t rows, int64_t cols,
                              const int32_t *row_sets, int64_t hops,
                              int64_t level, uint8_t *bits);
int gnnrt_cpu_load_sign_rows(const uint8_t *bits, int64_t rows, int64_t cols,
                             const int32_t *row_sets, int64_t hops,
                             int64_t level, float *y);

/* gnn.activation_grad of relu or leaky_relu (`kind`) reading its input as
 * the bits gnnrt_cpu_store_sign{,_rows} packed (a packed mem.load_sign):
 * dx = dy * (bit ? 1 : 0 or the slope), the same bits as
 * gnnrt_cpu_activation_grad over gnnrt_cpu_load_sign's 1.0s and 0.0s,
 * without their rows x cols floats. With `row_sets` (else null) only the
 * rows of R_level are computed, and the others zeroed when `zero_rest`.
 * dx may be dy. Any other kind is GNNRT_ERR_BAD_ARGUMENT. */
int gnnrt_cpu_activation_grad_sign(int kind, const uint8_t *bits,
                                   const float *dy, int64_t rows, int64_t cols,
                                   double slope, const int32_t *row_sets,
                                   int64_t hops, int64_t level, int zero_rest,
                                   float *dx);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GNNRT_CONVERT_H */
