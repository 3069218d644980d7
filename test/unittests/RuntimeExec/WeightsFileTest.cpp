//===- WeightsFileTest.cpp - The weights file format ----------------------===//
//
// FileBuilder below encodes the format independently from its description
// in docs/WeightsFormat.md. The writer must produce the same bytes, and the
// builder crafts files that are well formed except for one defect (with
// correct checksums), so each validation is reached on its own rather
// than hidden behind a checksum mismatch.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/WeightsFile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <unistd.h>

using namespace gnnrt;

namespace {

using Bytes = std::vector<unsigned char>;

/// Appends little-endian fields; finish() appends the file's CRC.
struct FileBuilder {
  Bytes bytes;

  FileBuilder &raw(const void *data, size_t size) {
    auto *p = static_cast<const unsigned char *>(data);
    bytes.insert(bytes.end(), p, p + size);
    return *this;
  }
  FileBuilder &u32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
      bytes.push_back(static_cast<unsigned char>(v >> (8 * i)));
    return *this;
  }
  FileBuilder &u64(uint64_t v) {
    for (int i = 0; i < 8; ++i)
      bytes.push_back(static_cast<unsigned char>(v >> (8 * i)));
    return *this;
  }
  FileBuilder &header(uint32_t count, const std::string &model,
                      uint32_t version = 1) {
    raw("GNNCWTS\0", 8).u32(version).u32(count).u64(model.size());
    return raw(model.data(), model.size());
  }
  /// A tensor whose stored byte count, data and CRC agree with \p data;
  /// \p dims is written as given.
  FileBuilder &tensor(const std::string &name, std::vector<int64_t> dims,
                      const std::vector<float> &data, uint32_t dtype = 0) {
    u32(static_cast<uint32_t>(name.size())).raw(name.data(), name.size());
    u32(dtype).u32(static_cast<uint32_t>(dims.size()));
    for (int64_t d : dims)
      u64(static_cast<uint64_t>(d));
    u64(data.size() * 4);
    size_t start = bytes.size();
    for (float f : data) {
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      u32(bits);
    }
    return u32(crc32(bytes.data() + start, bytes.size() - start));
  }
  Bytes finish() {
    u32(crc32(bytes.data(), bytes.size()));
    return bytes;
  }
};

class WeightsFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "gnnc-weights-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    ASSERT_NE(mkdtemp(buffer.data()), nullptr);
    dir = buffer.data();
  }
  void TearDown() override {
    for (const char *name :
         {"model.weights", "model.weights.tmp", "bad.weights"})
      std::remove((dir + "/" + name).c_str());
    rmdir(dir.c_str());
  }

  std::string path(const char *name) const { return dir + "/" + name; }

  static Bytes readAll(const std::string &file) {
    std::ifstream in(file, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), {});
  }
  static void writeAll(const std::string &file, const Bytes &bytes) {
    std::FILE *f = std::fopen(file.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    size_t written =
        bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    ASSERT_EQ(written, bytes.size());
  }
  /// The error reading \p bytes as a file gives ("" if it reads fine).
  std::string readError(const Bytes &bytes) {
    std::string file = path("bad.weights");
    writeAll(file, bytes);
    std::string model = "untouched", error;
    std::vector<NamedTensor> tensors(1);
    if (readWeights(file, model, tensors, error))
      return "";
    // A failed read leaves the outputs alone.
    EXPECT_EQ(model, "untouched");
    EXPECT_EQ(tensors.size(), 1u);
    return error;
  }

  static std::vector<NamedTensor> smallModel() {
    return {{"gcn_conv_0.weight", {3, 2}, {1, -2, 3.5f, 0, -0.0f, 1e-30f}},
            {"gcn_conv_0.bias", {2}, {0.25f, -0.5f}},
            {"gcn_conv_1.weight", {2, 1}, {7, 8}}};
  }

  std::string dir;
};

TEST(Crc32, MatchesTheStandardCheckValue) {
  const char *check = "123456789";
  EXPECT_EQ(crc32(check, 9), 0xCBF43926u);
  EXPECT_EQ(crc32(nullptr, 0), 0u);
  EXPECT_EQ(crc32("a", 1), 0xE8B7BE43u);
  // Continuing over a split gives the CRC of the whole.
  EXPECT_EQ(crc32(check + 4, 5, crc32(check, 4)), 0xCBF43926u);
}

TEST_F(WeightsFileTest, RoundTripsEveryBit) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float denormal = std::numeric_limits<float>::denorm_min();
  std::vector<NamedTensor> tensors = {
      {"w", {2, 3}, {1, 2, 3, -0.0f, nan, -inf}},
      {"scalar", {}, {denormal}},
      {"empty", {0, 5}, {}},
      {"b", {4}, {0.1f, 0.2f, 0.3f, 0.4f}}};
  std::string error;
  ASSERT_TRUE(writeWeights(path("model.weights"), "GCN", tensors, error))
      << error;
  EXPECT_NE(access(path("model.weights.tmp").c_str(), F_OK), 0)
      << "the temporary file must be renamed away";

  std::string model;
  std::vector<NamedTensor> back;
  ASSERT_TRUE(readWeights(path("model.weights"), model, back, error)) << error;
  EXPECT_EQ(model, "GCN");
  ASSERT_EQ(back.size(), tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    EXPECT_EQ(back[i].name, tensors[i].name);
    EXPECT_EQ(back[i].shape, tensors[i].shape);
    ASSERT_EQ(back[i].data.size(), tensors[i].data.size());
    if (!tensors[i].data.empty()) {
      EXPECT_EQ(std::memcmp(back[i].data.data(), tensors[i].data.data(),
                            tensors[i].data.size() * 4),
                0)
          << tensors[i].name;
    }
  }

  // Overwriting an existing file replaces it.
  ASSERT_TRUE(writeWeights(path("model.weights"), "", {}, error)) << error;
  ASSERT_TRUE(readWeights(path("model.weights"), model, back, error)) << error;
  EXPECT_EQ(model, "");
  EXPECT_TRUE(back.empty());
}

TEST_F(WeightsFileTest, WriterMatchesTheDocumentedLayout) {
  std::string error;
  ASSERT_TRUE(writeWeights(path("model.weights"), "GCN", smallModel(), error))
      << error;
  FileBuilder expected;
  expected.header(3, "GCN");
  for (const NamedTensor &t : smallModel())
    expected.tensor(t.name, t.shape, t.data);
  EXPECT_EQ(readAll(path("model.weights")), expected.finish());
}

TEST_F(WeightsFileTest, WritesTheExampleOfTheFormatDocument) {
  // docs/WeightsFormat.md, "Example", byte for byte (CRCs from Python's
  // zlib.crc32).
  std::string error;
  ASSERT_TRUE(writeWeights(path("model.weights"), "GCN",
                           {{"b", {2}, {0.25f, -0.5f}}}, error))
      << error;
  Bytes expected = {
      0x47, 0x4e, 0x4e, 0x43, 0x57, 0x54, 0x53, 0x00, 0x01, 0x00, 0x00, 0x00,
      0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x47, 0x43, 0x4e, 0x01, 0x00, 0x00, 0x00, 0x62, 0x00, 0x00, 0x00, 0x00,
      0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x3e,
      0x00, 0x00, 0x00, 0xbf, 0x4b, 0x63, 0x5d, 0x3e, 0x10, 0xd8, 0x52, 0x74};
  EXPECT_EQ(readAll(path("model.weights")), expected);
}

TEST_F(WeightsFileTest, EveryFlippedByteIsDetected) {
  std::string error;
  ASSERT_TRUE(writeWeights(path("model.weights"), "GCN", smallModel(), error))
      << error;
  Bytes good = readAll(path("model.weights"));
  ASSERT_EQ(readError(good), "");
  for (unsigned char mask : {0x01, 0x80, 0xFF}) {
    for (size_t i = 0; i < good.size(); ++i) {
      Bytes bad = good;
      bad[i] ^= mask;
      EXPECT_NE(readError(bad), "")
          << "byte " << i << " xor " << int(mask) << " went unnoticed";
    }
  }
}

TEST_F(WeightsFileTest, EveryTruncationIsDetected) {
  std::string error;
  ASSERT_TRUE(writeWeights(path("model.weights"), "GCN", smallModel(), error))
      << error;
  Bytes good = readAll(path("model.weights"));
  for (size_t length = 0; length < good.size(); ++length) {
    std::string message = readError(Bytes(good.begin(), good.begin() + length));
    EXPECT_NE(message, "") << "truncated to " << length << " bytes";
  }
  EXPECT_EQ(readError(Bytes(good.begin(), good.begin() + 20)),
            path("bad.weights") +
                ": header: truncated: the model name length needs 8 bytes at "
                "offset 16 but the file has 4 left");
  Bytes longer = good;
  longer.push_back(0);
  EXPECT_EQ(readError(longer),
            path("bad.weights") +
                ": end of file: 1 unexpected bytes after the file checksum");
}

TEST_F(WeightsFileTest, ErrorsNameTheFileAndTheTensor) {
  std::string error;
  ASSERT_TRUE(writeWeights(path("model.weights"), "GCN", smallModel(), error))
      << error;
  Bytes bad = readAll(path("model.weights"));
  // The last data byte of tensor 2 sits before its CRC and the file's.
  bad[bad.size() - 9] ^= 0x10;
  EXPECT_EQ(readError(bad), path("bad.weights") +
                                ": tensor 2 ('gcn_conv_1.weight'): checksum "
                                "mismatch");
  // The file's CRC alone.
  bad = readAll(path("model.weights"));
  bad.back() ^= 0x10;
  EXPECT_EQ(readError(bad),
            path("bad.weights") + ": end of file: file checksum mismatch");
}

TEST_F(WeightsFileTest, WrongMagicOrVersion) {
  std::string prefix = path("bad.weights") + ": header: ";
  Bytes png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 0};
  EXPECT_EQ(readError(png),
            prefix + "not a gnnc weights file (the magic bytes are not "
                     "\"GNNCWTS\\0\")");
  EXPECT_EQ(readError(Bytes{'G', 'N', 'N'}),
            prefix + "truncated: the file has 3 bytes, fewer than the 8 "
                     "magic bytes");
  EXPECT_NE(readError(Bytes{}), "");
  EXPECT_EQ(readError(FileBuilder().header(0, "m", 2).finish()),
            prefix + "unsupported format version 2 (this runtime reads "
                     "version 1)");
  EXPECT_EQ(readError(FileBuilder().header(0, "m", 0).finish()),
            prefix + "unsupported format version 0 (this runtime reads "
                     "version 1)");
  EXPECT_EQ(readError(FileBuilder().header(0, "m").finish()), "");
}

TEST_F(WeightsFileTest, CorruptLengthsDoNotAllocate) {
  std::string file = path("bad.weights");
  // A model name of 2^63 bytes.
  FileBuilder name;
  name.raw("GNNCWTS\0", 8).u32(1).u32(0).u64(uint64_t(1) << 63);
  EXPECT_EQ(readError(name.finish()),
            file + ": header: a model name of 9223372036854775808 bytes and "
                   "0 tensors cannot fit in the 4 bytes left in the file");
  // 4 billion tensors in a tiny file.
  EXPECT_NE(readError(FileBuilder().header(0xFFFFFFFFu, "m").finish())
                .find("4294967295 tensors cannot fit"),
            std::string::npos);
  // A consistent but enormous shape: 2^40 x 2^20 floats.
  FileBuilder huge;
  huge.header(1, "m").u32(1).raw("w", 1).u32(0).u32(2);
  huge.u64(uint64_t(1) << 40).u64(uint64_t(1) << 20).u64(uint64_t(1) << 62);
  EXPECT_EQ(readError(huge.finish()),
            file + ": tensor 0 ('w'): truncated: 4611686018427387904 bytes "
                   "of data and a checksum at offset 62 but the file has 4 "
                   "left");
  // A rank of 2^32 - 1, with enough bytes after it for the header's check.
  const Bytes padding(64, 0);
  FileBuilder rank;
  rank.header(1, "m").u32(1).raw("w", 1).u32(0).u32(0xFFFFFFFFu);
  rank.raw(padding.data(), padding.size());
  EXPECT_EQ(readError(rank.finish()),
            file + ": tensor 0 ('w'): rank 4294967295 needs 34359738360 "
                   "bytes of dims but the file has 68 left");
  // A name of 2^32 - 1 bytes.
  FileBuilder longName;
  longName.header(1, "m").u32(0xFFFFFFFFu);
  longName.raw(padding.data(), padding.size());
  EXPECT_EQ(readError(longName.finish()),
            file + ": tensor 0: a name of 4294967295 bytes cannot fit in the "
                   "68 bytes left in the file");
}

TEST_F(WeightsFileTest, ValidatesTensorsWithCorrectChecksums) {
  std::string prefix = path("bad.weights") + ": ";
  EXPECT_EQ(readError(FileBuilder()
                          .header(1, "m")
                          .tensor("w", {2}, {1, 2}, /*dtype=*/1)
                          .finish()),
            prefix + "tensor 0 ('w'): unsupported dtype 1 (version 1 has "
                     "only 0 = f32)");
  EXPECT_EQ(
      readError(
          FileBuilder().header(1, "m").tensor("w", {-2, -1}, {1, 2}).finish()),
      prefix + "tensor 0 ('w'): dim 0 is negative (-2)");
  EXPECT_EQ(
      readError(FileBuilder().header(1, "m").tensor("w", {3}, {1, 2}).finish()),
      prefix + "tensor 0 ('w'): the byte count 8 does not match shape [3] "
               "(3 f32 = 12 bytes)");
  EXPECT_EQ(readError(FileBuilder()
                          .header(2, "m")
                          .tensor("w", {1}, {1})
                          .tensor("w", {1}, {2})
                          .finish()),
            prefix + "tensor 1 ('w'): the name repeats an earlier tensor's");
  EXPECT_EQ(
      readError(FileBuilder().header(1, "m").tensor("", {1}, {1}).finish()),
      prefix + "tensor 0: the name is empty");
  // Fewer tensors than the header promised: the next field is the CRC.
  EXPECT_NE(
      readError(FileBuilder().header(2, "m").tensor("w", {1}, {1}).finish()),
      "");
}

TEST_F(WeightsFileTest, WriterRejectsInconsistentTensors) {
  std::string file = path("model.weights"), error;
  auto rejects = [&](std::vector<NamedTensor> tensors) {
    error.clear();
    EXPECT_FALSE(writeWeights(file, "m", tensors, error));
    EXPECT_NE(access(file.c_str(), F_OK), 0);
    EXPECT_NE(access((file + ".tmp").c_str(), F_OK), 0);
    return error;
  };
  EXPECT_EQ(rejects({{"w", {2, 2}, {1, 2, 3}}}),
            file + ": tensor 0 ('w'): shape [2, 2] has 4 elements but the "
                   "data has 3");
  EXPECT_EQ(rejects({{"w", {-1}, {}}}),
            file + ": tensor 0 ('w'): dim 0 is negative (-1)");
  EXPECT_EQ(rejects({{"a", {1}, {1}}, {"a", {1}, {1}}}),
            file + ": tensor 1 ('a'): the name repeats an earlier tensor's");
  EXPECT_EQ(rejects({{"", {1}, {1}}}), file + ": tensor 0: the name is empty");
}

TEST_F(WeightsFileTest, ReportsFilesThatCannotBeOpened) {
  std::string missing = path("missing.weights"), error, model;
  std::vector<NamedTensor> tensors;
  EXPECT_FALSE(readWeights(missing, model, tensors, error));
  EXPECT_EQ(error, missing + ": cannot open: No such file or directory");
  EXPECT_FALSE(readWeights(dir, model, tensors, error));
  EXPECT_NE(error.find(dir + ": "), std::string::npos) << error;

  std::string noDir = path("no/such/dir.weights");
  EXPECT_FALSE(writeWeights(noDir, "m", smallModel(), error));
  EXPECT_EQ(error, noDir + ".tmp: cannot create: No such file or directory");
}

} // namespace
