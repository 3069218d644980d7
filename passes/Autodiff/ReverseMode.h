//===- ReverseMode.h - Reverse sweeps over gnn primitives -------*- C++ -*-===//
//
// The reusable core of gnn-autodiff: given straight-line forward ops, emit the
// ops computing cotangents through DifferentiableOpInterface. The training
// step builder and the gradient-check tests (through buildVJP) share it, so
// what the tests check is what training runs.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_PASSES_AUTODIFF_REVERSEMODE_H
#define GNNC_PASSES_AUTODIFF_REVERSEMODE_H

#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <utility>

namespace mlir {
class OpBuilder;
class Operation;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace mlir::gnn {

/// A value and the cotangent it is seeded with (same type).
using CotangentSeed = std::pair<Value, Value>;

/// Emits, at \p builder's insertion point, the reverse sweep of \p forward
/// (ops in program order, all dominating the insertion point): starting from
/// \p seeds, walks the ops backwards, applies each op's adjoint rule and sums
/// the cotangents that reach a value with `gnn.add`. Only ops that both
/// depend on some value of \p wrt and lead to some seeded value are
/// differentiated; ops of the rules whose results end up unused are erased
/// again. Returns one gradient per value of \p wrt (a `gnn.zeros` where no
/// cotangent reaches it). Fails, with a diagnostic at the op, on a layer op or
/// an op without a derivative rule. \p numAdjoints, when given, is increased
/// by the number of rules applied.
FailureOr<SmallVector<Value>>
buildReverseSweep(OpBuilder &builder, ArrayRef<Operation *> forward,
                  ArrayRef<CotangentSeed> seeds, ArrayRef<Value> wrt,
                  uint64_t *numAdjoints = nullptr);

/// Creates, right after \p f in its module, the vector-Jacobian product
/// `@<f>.vjp(args..., one cotangent per result) -> (results..., the gradient
/// of every argument in \p wrtArgs)`, i.e. the gradient of
/// `sum_k <f(args)_k, cotangent_k>`. \p f must have one block, and every
/// result and every argument in \p wrtArgs must be a float tensor. Fails
/// with a diagnostic (and leaves nothing behind) otherwise.
FailureOr<func::FuncOp> buildVJP(func::FuncOp f, ArrayRef<unsigned> wrtArgs);

} // namespace mlir::gnn

#endif // GNNC_PASSES_AUTODIFF_REVERSEMODE_H
