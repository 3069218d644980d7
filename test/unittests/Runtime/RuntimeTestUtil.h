//===- RuntimeTestUtil.h - Helpers for the runtime data tests ---*- C++ -*-===//
//
// Independent readers (std::ifstream, no runtime code) so that the loader's
// results are compared with the files themselves, and temporary dataset
// copies for the corrupted-file tests.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_TEST_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H
#define GNNC_TEST_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace gnnrt::test {

inline const std::string kDataDir = GNNC_TEST_DATA_DIR;
inline const std::string kTinyDir =
    std::string(GNNC_SOURCE_DIR) + "/test/Inputs/tiny";

/// The whole file as 4-byte little-endian values (the test machines are
/// little-endian, which the first test asserts).
template <typename T> std::vector<T> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

template <typename T>
void writeFile(const std::string &path, const std::vector<T> &v) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(v.data()),
            static_cast<std::streamsize>(v.size() * sizeof(T)));
}

/// A fresh directory under the test temp dir, removed by the destructor.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return dir; }
  /// Copies every regular file of \p from into this directory.
  void copyFrom(const std::string &from) const;

private:
  std::string dir;
};

/// FNV-1a over a vector's bytes, for golden values.
template <typename T> uint64_t checksum(const std::vector<T> &v) {
  uint64_t h = 1469598103934665603ull;
  const unsigned char *p = reinterpret_cast<const unsigned char *>(v.data());
  for (size_t i = 0; i < v.size() * sizeof(T); ++i)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

} // namespace gnnrt::test

#endif // GNNC_TEST_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H
