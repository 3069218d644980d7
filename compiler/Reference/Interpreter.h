//===- Interpreter.h - Reference interpreter for gnn/train IR ---*- C++ -*-===//
//
// The oracle, as StableHLO's reference interpreter is: executes `gnn`,
// `train`, `func` and `arith` IR on small graphs in fp64 on the CPU, one
// straightforward loop nest per op, written from the op documentation and
// sharing no code with the backends it judges. Gradient checks, decomposition
// checks and (later) the CPU and CUDA backends are compared against it.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_COMPILER_REFERENCE_INTERPRETER_H
#define GNNC_COMPILER_REFERENCE_INTERPRETER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <variant>
#include <vector>

namespace mlir {
class ModuleOp;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace gnnc::ref {

/// A float tensor of any rank (0-d for a loss), row-major, held in fp64
/// whatever its IR element type.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<double> data;

  static Tensor zeros(std::vector<int64_t> shape);
  int64_t numElements() const;
  /// Row-major element (i, j) of a matrix.
  double &at(int64_t i, int64_t j) { return data[i * shape[1] + j]; }
  double at(int64_t i, int64_t j) const { return data[i * shape[1] + j]; }
};

/// An integer tensor: labels (i32) and masks (i1, stored as 0/1).
struct IntTensor {
  std::vector<int64_t> shape;
  std::vector<int64_t> data;
};

/// A graph as edge lists: edge e goes from src[e] to dst[e]; ids are the
/// positions in these vectors (see the gnn dialect's conventions).
struct Graph {
  int64_t nodes = 0;
  std::vector<int64_t> src, dst;
  int64_t numEdges() const { return static_cast<int64_t>(src.size()); }
};

/// The value of a `!gnn.rng_key`.
struct RngKey {
  uint64_t seed = 0;
  uint64_t step = 0;
};

/// One SSA value: tensors, graphs, keys and scalar integers (i64, index).
using Value = std::variant<Tensor, IntTensor, Graph, RngKey, int64_t>;

/// Runs \p func on \p args (one per argument, matching its types). Errors,
/// such as an argument of the wrong kind or shape or an op the interpreter
/// does not know, name the op and its location.
llvm::Expected<std::vector<Value>> run(mlir::func::FuncOp func,
                                       llvm::ArrayRef<Value> args);
/// Runs the function called \p name in \p module.
llvm::Expected<std::vector<Value>>
run(mlir::ModuleOp module, llvm::StringRef name, llvm::ArrayRef<Value> args);

/// Test inputs: a random directed graph without self loops or duplicate
/// edges where every node has between 0 and maxInDegree incoming edges
/// (some nodes isolated when \p allowIsolated), deterministic in \p seed.
Graph randomGraph(int64_t nodes, int64_t maxInDegree, uint64_t seed,
                  bool allowIsolated = true);
/// A tensor with elements uniform in [lo, hi), deterministic in \p seed.
Tensor randomTensor(std::vector<int64_t> shape, uint64_t seed, double lo = -1,
                    double hi = 1);

} // namespace gnnc::ref

#endif // GNNC_COMPILER_REFERENCE_INTERPRETER_H
