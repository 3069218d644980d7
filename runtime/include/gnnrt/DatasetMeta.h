//===- DatasetMeta.h - gnnc dataset metadata --------------------*- C++ -*-===//
//
// Reads and validates a dataset directory in the gnnc format (format_version 1,
// see ../shared/data/README.md): meta.json's counts and the sizes of the .bin
// files they imply. Deliberately free of LLVM so the runtime can share it; the
// compiler uses it to learn `features` and `classes` at compile time.
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_DATASETMETA_H
#define GNNRT_DATASETMETA_H

#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// The integer fields of meta.json that gnnc relies on.
struct DatasetMeta {
  std::string dir;  ///< Directory the dataset was read from.
  std::string name; ///< "name" from meta.json, or the directory's name.
  int64_t formatVersion = 0;
  int64_t numNodes = 0;
  int64_t numEdges = 0;
  int64_t numFeatures = 0;
  int64_t numClasses = 0;
  bool hasFeatures = false;
  int64_t featureNnz = 0;
  int64_t numTrain = 0;
  int64_t numVal = 0;
  int64_t numTest = 0;
  /// "num_unlabeled" (labels equal to -1), or -1 when meta.json has none:
  /// optional because the compiler does not need it.
  int64_t numUnlabeled = -1;
};

/// An error naming the offending file and, where there is one, the field.
struct DatasetError {
  std::string file;    ///< Path of the file at fault.
  std::string field;   ///< meta.json key or .bin file name; may be empty.
  std::string message; ///< What is wrong, one sentence, no trailing period.
  /// "FILE: field 'F': MESSAGE", the form every tool prints.
  std::string str() const;
};

/// Reads DIR/meta.json and checks it: every required integer field present,
/// format_version 1, counts in range, and each .bin file present with the
/// byte size the counts imply. Returns false and fills \p err on failure.
bool readDatasetMeta(const std::string &dir, DatasetMeta &meta,
                     DatasetError &err);

/// True if DIR looks like a dataset directory (has a meta.json).
bool isDatasetDir(const std::string &dir);

} // namespace gnnrt

#endif // GNNRT_DATASETMETA_H
