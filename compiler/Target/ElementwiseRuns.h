//===- ElementwiseRuns.h - Runs of adjacent element-wise ops ----*- C++ -*-===//
//
// Both targets compute a run of adjacent element-wise ops over one shape in
// one pass over memory: the CUDA target as a generated kernel, the CPU
// target as one gnnrt_cpu_fused call. Which runs exist follows from the
// block as gnn-assign-buffers left it (op order and arena offsets) and the
// target's list of ops it can fuse (from dialects/Gnn/Elementwise.h);
// nothing is moved or re-placed.
//
// Why only adjacent ops: buffers were placed for the ops in block order, so
// a run that reads all of an element's inputs before it writes that
// element needs no placement it did not already have, except where a result
// lies partly over a value the run reads (elementwiseRuns cuts there).
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_COMPILER_TARGET_ELEMENTWISERUNS_H
#define GNNC_COMPILER_TARGET_ELEMENTWISERUNS_H

#include "dialects/Gnn/Elementwise.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <utility>

namespace mlir::gnn {

/// Splits \p block into maximal runs of adjacent ops that \p fusible
/// accepts, whose results have one shape, which compute the same rows (all
/// of them, or one set of gnn-restrict-rows), and whose arena buffers let one
/// pass read and write them: no result partly over a value the run reads
/// (an identical buffer is fine, since every element is read before it is
/// written), and none over a broadcast operand at all. Every op \p fusible
/// accepts is in exactly one run, possibly of one op.
SmallVector<SmallVector<Operation *>>
elementwiseRuns(Block &block, llvm::function_ref<bool(Operation *)> fusible);

/// Whether one pass over elements may read \p in and write \p out, given
/// their arena buffers: they are disjoint, or \p aligned (each element of
/// \p out is written by the thread that reads the same element of \p in,
/// after it did) and they are the very same bytes. Values outside the arena
/// (arguments, results) are memory of their own.
bool buffersAllowOnePass(Value in, bool aligned, Value out);

} // namespace mlir::gnn

#endif // GNNC_COMPILER_TARGET_ELEMENTWISERUNS_H
