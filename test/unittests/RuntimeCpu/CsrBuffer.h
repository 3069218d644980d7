//===- CsrBuffer.h - A CSR feature-matrix buffer for the tests --*- C++ -*-===//
#ifndef GNNC_TEST_RUNTIMECPU_CSRBUFFER_H
#define GNNC_TEST_RUNTIMECPU_CSRBUFFER_H

#include "gnnrt/Kernels.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace gnnrt::cpu::test {

/// A 64-byte aligned buffer of gnnrt_csr_matrix_bytes, filled with a
/// pattern no kernel writes (0xA5 bytes: a NaN as a float), so a kernel
/// that fails leaves it visibly untouched and one that forgets a part of
/// its output leaves NaN there.
class CsrBuffer {
public:
  CsrBuffer(int64_t rows, int64_t cols, int64_t nnz)
      : rows(rows), cols(cols), nnz(nnz),
        lines(
            static_cast<size_t>(gnnrt_csr_matrix_bytes(rows, cols, nnz) / 64)) {
    std::memset(data(), 0xA5, bytes());
  }

  void *data() { return lines.data(); }
  const void *data() const { return lines.data(); }
  size_t bytes() const { return lines.size() * 64; }
  gnnrt_csr_matrix view() const {
    return gnnrt_csr_matrix_view(const_cast<void *>(data()), rows, cols, nnz);
  }
  bool untouched() const {
    const unsigned char *p = static_cast<const unsigned char *>(data());
    for (size_t i = 0; i < bytes(); ++i)
      if (p[i] != 0xA5)
        return false;
    return true;
  }

  int64_t rows, cols, nnz;

private:
  struct alignas(64) Line {
    unsigned char b[64];
  };
  std::vector<Line> lines;
};

} // namespace gnnrt::cpu::test

#endif // GNNC_TEST_RUNTIMECPU_CSRBUFFER_H
