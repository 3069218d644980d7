//===- Validate.h - Checks shared by every way to make a dataset -*- C++
//-*-===//
//
// Files and host arrays pass the same checks, so a defect gets the same
// message whichever way the data arrived; only the names in it differ.
// Private to runtime/data.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_RUNTIME_DATA_VALIDATE_H
#define GNNC_RUNTIME_DATA_VALIDATE_H

#include "gnnrt/Dataset.h"

#include <string>

namespace gnnrt::detail {

/// What messages call each array: a file path (or "host 'NAME'") and a field.
struct Where {
  std::string file, field;
};

/// The names of every part of a dataset, for messages.
struct DatasetNames {
  Where src, dst, edges;
  Where labels;
  Where split[3]; ///< train, val, test.
  Where featIndptr, featIndices, featValues;
};

/// Node ids in range, no self loops, no repeated (src, dst) pair, and, with
/// \p requireSymmetric, (v, u) present for every (u, v). Reports the lowest
/// offending edge id of the first kind of defect found, in that order.
bool checkEdges(const EdgeList &g, bool requireSymmetric,
                const DatasetNames &names, DatasetError &err);

/// Removes self loops and every repeat of an earlier (src, dst) pair,
/// keeping edge order. Ids must already be in range.
void dropSelfLoopsAndDuplicates(EdgeList &g);

/// Labels: one per node, each in [-1, numClasses).
bool checkLabels(const Dataset &d, const DatasetNames &names,
                 DatasetError &err);

/// Splits: in range, strictly increasing, labelled, pairwise disjoint.
bool checkSplits(const Dataset &d, const DatasetNames &names,
                 DatasetError &err);

/// Feature CSR: shape, indptr from 0 and non-decreasing to nnz, columns in
/// range and strictly increasing per row, values finite.
bool checkFeatures(const SparseMatrix &m, const DatasetNames &names,
                   DatasetError &err);

} // namespace gnnrt::detail

#endif // GNNC_RUNTIME_DATA_VALIDATE_H
