//===- WeightsFile.cpp - Trained weights on disk --------------------------===//
//
// The reader streams the file instead of loading it whole: each length
// field is checked against the bytes left in the file before the vector it
// sizes is allocated, so memory never exceeds what the file really holds,
// and a flipped bit in a length is caught as a length error (or by the
// checksums) rather than as an attempt to allocate exabytes.
//
// Integers are encoded byte by byte, so the format is little-endian on any
// host; fp32 data is copied as is on little-endian hosts and byte-swapped
// on big-endian ones.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/WeightsFile.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

using namespace gnnrt;

//===----------------------------------------------------------------------===//
// CRC-32
//===----------------------------------------------------------------------===//

namespace {

struct CrcTable {
  uint32_t entries[256];
  constexpr CrcTable() : entries() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int bit = 0; bit < 8; ++bit)
        c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      entries[i] = c;
    }
  }
};

constexpr CrcTable crcTable;

} // namespace

uint32_t gnnrt::crc32(const void *data, size_t size, uint32_t crc) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  crc = ~crc;
  for (size_t i = 0; i < size; ++i)
    crc = crcTable.entries[(crc ^ bytes[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

namespace {

/// Fixed-size fields: u32 name length, u32 dtype, u32 rank, u64 byte count
/// and u32 CRC, plus at least one byte of name. No tensor is smaller, which
/// bounds the tensor count by the file's size.
constexpr uint64_t kMinTensorBytes = 4 + 4 + 4 + 8 + 4 + 1;
constexpr uint32_t kDtypeF32 = 0;

bool hostIsLittleEndian() {
  const uint32_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

void swapBytes32(unsigned char *bytes, size_t count) {
  for (size_t i = 0; i < count; ++i, bytes += 4) {
    std::swap(bytes[0], bytes[3]);
    std::swap(bytes[1], bytes[2]);
  }
}

std::string tensorLabel(uint64_t index, const std::string &name) {
  std::string label = "tensor " + std::to_string(index);
  if (!name.empty())
    label += " ('" + name + "')";
  return label;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// The element count of \p shape, or false if a dim is negative or the
/// byte count (elements * 4) overflows int64.
bool elementCount(const std::vector<int64_t> &shape, int64_t &count,
                  std::string &why) {
  count = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      why = "dim " + std::to_string(d) + " is negative (" +
            std::to_string(shape[d]) + ")";
      return false;
    }
    if (shape[d] != 0 &&
        count > std::numeric_limits<int64_t>::max() / 4 / shape[d]) {
      why = "shape " + shapeString(shape) + " has too many elements";
      return false;
    }
    count *= shape[d];
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// Appends to a file and to the running whole-file CRC; remembers the
/// first failure so the caller checks once at the end.
struct Writer {
  std::FILE *file;
  uint32_t crc = 0;
  bool ok = true;

  void bytes(const void *data, size_t size) {
    if (!ok || size == 0)
      return;
    crc = crc32(data, size, crc);
    ok = std::fwrite(data, 1, size, file) == size;
  }
  void u32(uint32_t v) {
    unsigned char b[4];
    for (int i = 0; i < 4; ++i)
      b[i] = static_cast<unsigned char>(v >> (8 * i));
    bytes(b, 4);
  }
  void u64(uint64_t v) {
    unsigned char b[8];
    for (int i = 0; i < 8; ++i)
      b[i] = static_cast<unsigned char>(v >> (8 * i));
    bytes(b, 8);
  }
  /// \p data as little-endian fp32; returns the CRC of those bytes alone.
  uint32_t floats(const std::vector<float> &data) {
    uint32_t dataCrc = 0;
    const auto *raw = reinterpret_cast<const unsigned char *>(data.data());
    size_t total = data.size() * 4;
    if (hostIsLittleEndian()) {
      dataCrc = crc32(raw, total);
      bytes(raw, total);
      return dataCrc;
    }
    unsigned char chunk[4096];
    for (size_t done = 0; done < total; done += sizeof(chunk)) {
      size_t n = std::min(sizeof(chunk), total - done);
      std::memcpy(chunk, raw + done, n);
      swapBytes32(chunk, n / 4);
      dataCrc = crc32(chunk, n, dataCrc);
      bytes(chunk, n);
    }
    return dataCrc;
  }
};

bool checkTensorsForWriting(const std::string &path,
                            const std::vector<NamedTensor> &tensors,
                            std::string &error) {
  if (tensors.size() > std::numeric_limits<uint32_t>::max()) {
    error =
        path + ": too many tensors (" + std::to_string(tensors.size()) + ")";
    return false;
  }
  std::set<std::string> names;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const NamedTensor &t = tensors[i];
    std::string label = path + ": " + tensorLabel(i, t.name) + ": ";
    std::string why;
    int64_t count = 0;
    if (t.name.empty())
      why = "the name is empty";
    else if (t.name.size() > std::numeric_limits<uint32_t>::max())
      why = "the name is longer than 4 GiB";
    else if (!names.insert(t.name).second)
      why = "the name repeats an earlier tensor's";
    else if (t.shape.size() > std::numeric_limits<uint32_t>::max())
      why = "the rank is too large";
    else if (elementCount(t.shape, count, why) &&
             static_cast<uint64_t>(count) != t.data.size())
      why = "shape " + shapeString(t.shape) + " has " + std::to_string(count) +
            " elements but the data has " + std::to_string(t.data.size());
    if (!why.empty()) {
      error = label + why;
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// Reads fields in order, checking each against the bytes left in the
/// file and adding them to the running whole-file CRC. Errors name the
/// file, the part being read (\c where) and what is wrong.
struct Reader {
  std::FILE *file;
  std::string path;
  uint64_t size = 0, pos = 0;
  uint32_t crc = 0;
  std::string where = "header";
  std::string error;

  uint64_t left() const { return size - pos; }

  bool fail(const std::string &what) {
    error = path + ": " + where + ": " + what;
    return false;
  }

  bool bytes(void *out, uint64_t n, const char *field) {
    if (n > left())
      return fail("truncated: the " + std::string(field) + " needs " +
                  std::to_string(n) + " bytes at offset " +
                  std::to_string(pos) + " but the file has " +
                  std::to_string(left()) + " left");
    if (n > 0 && std::fread(out, 1, n, file) != n)
      return fail("cannot read the " + std::string(field) + " at offset " +
                  std::to_string(pos) +
                  (std::ferror(file) ? ": " + std::string(std::strerror(errno))
                                     : ": the file got shorter"));
    crc = crc32(out, n, crc);
    pos += n;
    return true;
  }
  bool u32(uint32_t &v, const char *field) {
    unsigned char b[4];
    if (!bytes(b, 4, field))
      return false;
    v = 0;
    for (int i = 0; i < 4; ++i)
      v |= static_cast<uint32_t>(b[i]) << (8 * i);
    return true;
  }
  bool u64(uint64_t &v, const char *field) {
    unsigned char b[8];
    if (!bytes(b, 8, field))
      return false;
    v = 0;
    for (int i = 0; i < 8; ++i)
      v |= static_cast<uint64_t>(b[i]) << (8 * i);
    return true;
  }
};

bool readHeader(Reader &r, std::string &model, uint32_t &count) {
  // Compare the magic before complaining about length, so a short file of
  // another kind is reported as what it is.
  char magic[8] = {};
  size_t present = static_cast<size_t>(std::min<uint64_t>(8, r.size));
  if (std::fread(magic, 1, present, r.file) != present)
    return r.fail("cannot read the magic bytes");
  if (std::memcmp(magic, kWeightsMagic, present) != 0)
    return r.fail("not a gnnc weights file (the magic bytes are not "
                  "\"GNNCWTS\\0\")");
  if (present < 8)
    return r.fail("truncated: the file has " + std::to_string(r.size) +
                  " bytes, fewer than the 8 magic bytes");
  r.crc = crc32(magic, 8);
  r.pos = 8;

  uint32_t version = 0;
  if (!r.u32(version, "format version"))
    return false;
  if (version != kWeightsFormatVersion)
    return r.fail("unsupported format version " + std::to_string(version) +
                  " (this runtime reads version " +
                  std::to_string(kWeightsFormatVersion) + ")");
  if (!r.u32(count, "tensor count"))
    return false;
  uint64_t nameLength = 0;
  if (!r.u64(nameLength, "model name length"))
    return false;
  // The model name, the tensors and the trailing CRC must all fit.
  uint64_t fixedAfterName = uint64_t(count) * kMinTensorBytes + 4;
  if (nameLength > r.left() || r.left() - nameLength < fixedAfterName)
    return r.fail("a model name of " + std::to_string(nameLength) +
                  " bytes and " + std::to_string(count) +
                  " tensors cannot fit in the " + std::to_string(r.left()) +
                  " bytes left in the file");
  model.assign(static_cast<size_t>(nameLength), '\0');
  return r.bytes(&model[0], nameLength, "model name");
}

bool readTensor(Reader &r, uint64_t index, std::set<std::string> &names,
                NamedTensor &t) {
  r.where = tensorLabel(index, "");
  uint32_t nameLength = 0;
  if (!r.u32(nameLength, "name length"))
    return false;
  if (nameLength == 0)
    return r.fail("the name is empty");
  if (nameLength > r.left())
    return r.fail("a name of " + std::to_string(nameLength) +
                  " bytes cannot fit in the " + std::to_string(r.left()) +
                  " bytes left in the file");
  t.name.assign(nameLength, '\0');
  if (!r.bytes(&t.name[0], nameLength, "name"))
    return false;
  r.where = tensorLabel(index, t.name);
  if (!names.insert(t.name).second)
    return r.fail("the name repeats an earlier tensor's");

  uint32_t dtype = 0, rank = 0;
  if (!r.u32(dtype, "dtype"))
    return false;
  if (dtype != kDtypeF32)
    return r.fail("unsupported dtype " + std::to_string(dtype) +
                  " (version 1 has only 0 = f32)");
  if (!r.u32(rank, "rank"))
    return false;
  if (uint64_t(rank) * 8 > r.left())
    return r.fail("rank " + std::to_string(rank) + " needs " +
                  std::to_string(uint64_t(rank) * 8) +
                  " bytes of dims but the file has " +
                  std::to_string(r.left()) + " left");
  t.shape.resize(rank);
  for (uint32_t d = 0; d < rank; ++d) {
    uint64_t dim = 0;
    if (!r.u64(dim, "dims"))
      return false;
    t.shape[d] = static_cast<int64_t>(dim);
  }
  int64_t count = 0;
  std::string why;
  if (!elementCount(t.shape, count, why))
    return r.fail(why);

  uint64_t byteCount = 0;
  if (!r.u64(byteCount, "byte count"))
    return false;
  if (byteCount != uint64_t(count) * 4)
    return r.fail("the byte count " + std::to_string(byteCount) +
                  " does not match shape " + shapeString(t.shape) + " (" +
                  std::to_string(count) +
                  " f32 = " + std::to_string(uint64_t(count) * 4) + " bytes)");
  if (byteCount > r.left() || r.left() - byteCount < 4)
    return r.fail("truncated: " + std::to_string(byteCount) +
                  " bytes of data and a checksum at offset " +
                  std::to_string(r.pos) + " but the file has " +
                  std::to_string(r.left()) + " left");
  // Only now, with the size backed by bytes the file really has.
  t.data.resize(static_cast<size_t>(count));
  auto *raw = reinterpret_cast<unsigned char *>(t.data.data());
  if (!r.bytes(raw, byteCount, "data"))
    return false;
  // CRC-32 cannot be split off the running whole-file CRC, so the data's
  // own is a second pass over bytes that are still in cache.
  uint32_t dataCrc = crc32(raw, static_cast<size_t>(byteCount));
  if (!hostIsLittleEndian())
    swapBytes32(raw, t.data.size());
  uint32_t storedCrc = 0;
  if (!r.u32(storedCrc, "checksum"))
    return false;
  if (storedCrc != dataCrc)
    return r.fail("checksum mismatch");
  return true;
}

} // namespace

bool gnnrt::writeWeights(const std::string &path, const std::string &model,
                         const std::vector<NamedTensor> &tensors,
                         std::string &error) {
  if (!checkTensorsForWriting(path, tensors, error))
    return false;
  std::string tmp = path + ".tmp";
  std::FILE *file = std::fopen(tmp.c_str(), "wb");
  if (!file) {
    error = tmp + ": cannot create: " + std::strerror(errno);
    return false;
  }
  Writer w{file};
  w.bytes(kWeightsMagic, sizeof(kWeightsMagic));
  w.u32(kWeightsFormatVersion);
  w.u32(static_cast<uint32_t>(tensors.size()));
  w.u64(model.size());
  w.bytes(model.data(), model.size());
  for (const NamedTensor &t : tensors) {
    w.u32(static_cast<uint32_t>(t.name.size()));
    w.bytes(t.name.data(), t.name.size());
    w.u32(kDtypeF32);
    w.u32(static_cast<uint32_t>(t.shape.size()));
    for (int64_t dim : t.shape)
      w.u64(static_cast<uint64_t>(dim));
    w.u64(uint64_t(t.data.size()) * 4);
    uint32_t dataCrc = w.floats(t.data);
    w.u32(dataCrc);
  }
  w.u32(w.crc);
  // fsync before the rename: otherwise a crash could leave the new name
  // pointing at data that never reached the disk.
  bool ok = w.ok && std::fflush(file) == 0 && fsync(fileno(file)) == 0;
  int savedErrno = errno;
  ok = (std::fclose(file) == 0) && ok;
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    savedErrno = errno;
    ok = false;
  } else if (!ok && savedErrno == 0) {
    savedErrno = errno;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    error = path + ": cannot write: " + std::strerror(savedErrno);
    return false;
  }
  return true;
}

bool gnnrt::readWeights(const std::string &path, std::string &model,
                        std::vector<NamedTensor> &tensors, std::string &error) {
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  struct stat st;
  if (fstat(fileno(file), &st) != 0 || !S_ISREG(st.st_mode)) {
    error = path + ": not a regular file";
    std::fclose(file);
    return false;
  }
  Reader r{file, path, static_cast<uint64_t>(st.st_size)};
  std::string readModel;
  std::vector<NamedTensor> readTensors;
  std::set<std::string> names;
  uint32_t count = 0;
  bool ok = readHeader(r, readModel, count);
  if (ok) {
    readTensors.resize(count);
    for (uint32_t i = 0; ok && i < count; ++i)
      ok = readTensor(r, i, names, readTensors[i]);
  }
  if (ok) {
    r.where = "end of file";
    uint32_t expected = r.crc, stored = 0;
    ok = r.u32(stored, "file checksum");
    if (ok && stored != expected)
      ok = r.fail("file checksum mismatch");
    if (ok && r.left() != 0)
      ok = r.fail(std::to_string(r.left()) +
                  " unexpected bytes after the file checksum");
  }
  std::fclose(file);
  if (!ok) {
    error = r.error;
    return false;
  }
  model = std::move(readModel);
  tensors = std::move(readTensors);
  return true;
}
