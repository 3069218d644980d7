//===- WeightsFile.h - Trained weights on disk ------------------*- C++ -*-===//
//
// A small binary format for a trained model's parameters, specified byte by
// byte in docs/WeightsFormat.md: a header naming the model, then each
// tensor's name, shape and fp32 data with a CRC-32, then a CRC-32 of the
// whole file. Everything is little-endian.
//
// Writing is atomic (a temporary file renamed over the target), so a
// crash never leaves half a file under the real name. Reading trusts
// nothing: every length is checked against the bytes the file has left
// before anything is allocated, and every checksum is verified, so a
// corrupt or truncated file is an error naming the file and the part that
// is wrong, never a crash or a giant allocation.
//
// Plain C++17, no LLVM: the runtime does not depend on the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_WEIGHTSFILE_H
#define GNNRT_WEIGHTSFILE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// The magic bytes a weights file starts with ("GNNCWTS" and a NUL).
constexpr char kWeightsMagic[8] = {'G', 'N', 'N', 'C', 'W', 'T', 'S', '\0'};
/// The format version this runtime writes and reads.
constexpr uint32_t kWeightsFormatVersion = 1;

/// One parameter tensor: fp32, dense, row-major. A tensor of rank 0 (a
/// scalar) has an empty shape and one element.
struct NamedTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> data;
};

/// Writes \p tensors of model \p model to \p path (through path + ".tmp",
/// renamed when complete). Names must be non-empty and distinct, dims
/// non-negative, and each data size the product of its shape. Returns
/// false and sets \p error (naming the file) on any failure, in which case
/// \p path is untouched and the temporary file removed.
bool writeWeights(const std::string &path, const std::string &model,
                  const std::vector<NamedTensor> &tensors, std::string &error);

/// Reads \p path into \p model and \p tensors (in file order), validating
/// the whole format. On failure returns false, sets \p error, e.g.
/// "model.weights: tensor 2 ('gcn_conv_1.weight'): checksum mismatch"
/// (tensors counted from 0), and leaves \p model and \p tensors unchanged.
bool readWeights(const std::string &path, std::string &model,
                 std::vector<NamedTensor> &tensors, std::string &error);

/// CRC-32 as zlib, PNG and Ethernet define it (IEEE 802.3: reflected,
/// polynomial 0xEDB88320, initial value and final xor 0xFFFFFFFF). Pass a
/// previous result as \p crc to continue over more bytes:
/// crc32(b, m, crc32(a, n)) is the CRC of a then b.
uint32_t crc32(const void *data, size_t size, uint32_t crc = 0);

} // namespace gnnrt

#endif // GNNRT_WEIGHTSFILE_H
