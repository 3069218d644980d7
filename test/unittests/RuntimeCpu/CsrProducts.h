//===- CsrProducts.h - The CSR products the tests compare against -*- C++
//-*-===//
//
// gnnrt_cpu_csr_matmul and gnnrt_cpu_csr_matmul_rows into NaN sentinels,
// the references of the restricted (RowsTest) and tiled (TilesTest)
// products.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_TEST_RUNTIMECPU_CSRPRODUCTS_H
#define GNNC_TEST_RUNTIMECPU_CSRPRODUCTS_H

#include "CsrBuffer.h"
#include "RowSetsUtil.h"

#include "gtest/gtest.h"

#include <cmath>
#include <vector>

namespace gnnrt::cpu::test {

/// The output rows of `a b` (a's rows) or `a^T b` (a's columns).
inline int64_t outputRows(const CsrBuffer &a, bool transpose) {
  return transpose ? a.cols : a.rows;
}

/// gnnrt_cpu_csr_matmul over NaN sentinels; the call must succeed.
inline std::vector<float> csrMatmul(const CsrBuffer &a, bool transpose,
                                    const std::vector<float> &b, int64_t n) {
  std::vector<float> c(static_cast<size_t>(outputRows(a, transpose) * n), NAN);
  EXPECT_EQ(gnnrt_cpu_csr_matmul(a.data(), a.rows, a.cols, a.nnz, transpose,
                                 b.data(), n, c.data()),
            GNNRT_OK);
  return c;
}

/// gnnrt_cpu_csr_matmul_rows over NaN sentinels; the call must succeed.
inline std::vector<float> csrMatmulRows(const CsrBuffer &a, bool transpose,
                                        const std::vector<float> &b, int64_t n,
                                        const RowSets &sets, int64_t level,
                                        int zeroRest = 1) {
  std::vector<float> c(static_cast<size_t>(outputRows(a, transpose) * n), NAN);
  EXPECT_EQ(gnnrt_cpu_csr_matmul_rows(a.data(), a.rows, a.cols, a.nnz,
                                      transpose, b.data(), n, sets.data(),
                                      sets.hops, level, zeroRest, c.data()),
            GNNRT_OK);
  return c;
}

} // namespace gnnrt::cpu::test

#endif // GNNC_TEST_RUNTIMECPU_CSRPRODUCTS_H
