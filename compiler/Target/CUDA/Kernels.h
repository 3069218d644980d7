//===- Kernels.h - Generated CUDA kernels -----------------------*- C++ -*-===//
//
// The kernels the CUDA target prints itself rather than calling a library.
// Runs of consecutive element-wise ops over one shape (add, sub, mul, scale,
// activation and its gradient, bias_add, row_mul, zeros, and dropout of a
// whole f32 tensor) become one kernel that reads each input once, keeps
// intermediates in registers and writes only the values used after the run.
// The arithmetic is the CPU kernels' (gnnrt/Kernels.h) expression for
// expression, and a dropout draws gnnrt/Philox.h's bits, so the two targets
// differ only in the last bits of the math library's exp/erf/tanh.
//
// Why only consecutive ops: buffers were placed by gnn-assign-buffers for
// the ops in block order; a run of adjacent ops that reads before it writes
// index i, thread by thread, needs no placement it did not already have.
//
// Reductions, edge softmax and its gradient, and the loss with its
// gradient are generated too (OpKernels.cpp), specialized to the op's
// sizes: kernels without shared memory, atomics or warp intrinsics, whose
// sums follow the CPU's fixed blocks (runtime/common/KernelCommon.h), so
// a run gives the CPU's bits on any GPU and in the emulator.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_COMPILER_TARGET_CUDA_KERNELS_H
#define GNNC_COMPILER_TARGET_CUDA_KERNELS_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::gnn::cuda {

/// Whether the CUDA target computes \p op in a generated kernel; a dropout
/// only with \p dropout.
bool isFusible(Operation *op, bool dropout = true);

/// Splits a block's ops into the runs one kernel each computes
/// (elementwiseRuns over isFusible).
SmallVector<SmallVector<Operation *>> fusionGroups(Block &block,
                                                   bool dropout = true);

/// An argument of a generated kernel, as the host code passes it: a device
/// pointer it has (a tensor, an array of a bound graph's CSR by
/// destination), a place in the context's scratch (gnnrt_cuda_scratch), a
/// value it computes (a dropout key's seed or step, Adam's correction), or
/// a literal.
struct KernelArg {
  enum class Kind {
    Tensor,
    Indptr,
    EdgeId,
    Scratch,
    BiasCorrection,
    KeySeed,
    KeyStep,
    Literal
  } kind;
  /// Tensor: the tensor; Indptr, EdgeId: the graph; BiasCorrection: the
  /// step (an i64); KeySeed, KeyStep: the gnn.rng_key.
  Value value;
  int64_t offset = 0; ///< Scratch: the byte offset.
  std::string ctype;  ///< The parameter's type: "const float *", ...
  /// BiasCorrection: Adam's `1 - base^step` as a double, computed by the
  /// host code with the C library's pow, as adamConstants does for the CPU
  /// (a device pow could round differently).
  double base = 0;
  std::string literal; ///< Literal: the C expression.
};

/// One launch of a generated kernel, over \p items work items.
struct KernelStep {
  std::string kernel;
  int64_t items = 0;
  SmallVector<KernelArg> args;
};

/// How the CUDA target computes an op (or a run of them) in generated
/// kernels: its launches in order, and the scratch bytes they share.
struct GeneratedOp {
  SmallVector<KernelStep> steps;
  int64_t scratchBytes = 0;
  /// fuse: the run's results it stores (those read after the run).
  SmallVector<Value> stored;
};

/// The kernels of one generated unit, each printed once however many
/// launches share its body.
class KernelUnit {
public:
  /// Whether generate() computes \p op: gnn.reduce, gnn.edge_softmax(_grad)
  /// and train.cross_entropy without class weights, all of plain f32
  /// tensors without row sets; train.cross_entropy_grad only right after
  /// the train.cross_entropy of the same logits, labels, mask and options
  /// (\p previous), whose weight sum it reads from the scratch.
  static bool generates(Operation *op, Operation *previous);
  /// The kernels computing \p op (generates() holds): the arithmetic of
  /// its CPU kernel in the same order, so the same bits but for the math
  /// library's exp and log (docs/Cuda.md, "Generated kernels").
  ///
  /// With \p prologue (acceptsPrologue), the element-wise run whose last
  /// result the op reads is computed where the op reads that value,
  /// element by element, and is never stored. With \p epilogue
  /// (acceptsEpilogue), the run that reads the op's result is computed as
  /// each element of it is final, storing the run's results that
  /// \p escapes; the op's result itself is stored only if it escapes.
  /// Neither run may drop out (its Philox blocks are four elements wide).
  FailureOr<GeneratedOp> generate(Operation *op,
                                  ArrayRef<Operation *> prologue = {},
                                  ArrayRef<Operation *> epilogue = {},
                                  function_ref<bool(Value)> escapes = {});
  /// The operand of \p op a prologue run may compute (its input, or an
  /// edge softmax gradient's incoming gradient), or null.
  static Value prologueOperand(Operation *op);
  /// Whether \p op writes each element of its result once, when it is
  /// final, so that an epilogue run can follow it there (the edge softmax
  /// and its gradient).
  static bool acceptsEpilogue(Operation *op);
  /// Whether \p run may be a prologue or an epilogue: no dropout.
  static bool fusibleIntoOp(ArrayRef<Operation *> run);

  /// The runs of two or more adjacent train.adam (or train.sgd) ops of f32
  /// tensors with the same options (and step), in \p block: each is one
  /// launch of fusedOptimizer instead of one library call per parameter.
  static SmallVector<SmallVector<Operation *>> optimizerGroups(Block &block);
  /// One launch updating every parameter of \p group (one of
  /// optimizerGroups): a thread per element of the parameters end to end,
  /// each element as the CPU's adamElement (sgdElement) computes it; Adam's
  /// bias corrections are launch arguments computed by the host code with
  /// the C library's pow (as gnnrt_cpu_adam's adamConstants).
  FailureOr<GeneratedOp> fusedOptimizer(ArrayRef<Operation *> group);

  /// The kernel computing \p group (one of fusionGroups) and its launch:
  /// `kernel(n, cols, (seed, step) of each dropout key..., inputs...,
  /// outputs...)` over the elements, or over their Philox blocks of four
  /// when the run drops out (a thread draws one block and computes its
  /// elements). Results of the group that \p escapes are stored (`stored`);
  /// the others stay in registers.
  FailureOr<GeneratedOp> fuse(ArrayRef<Operation *> group,
                              function_ref<bool(Value)> escapes);
  /// `name(long long n, T value, T *out)`, T the C type (float, int,
  /// unsigned char), launched to fill \p out's \p n elements with the C
  /// literal \p value: a splat constant.
  GeneratedOp fill(StringRef ctype, int64_t n, StringRef value, Value out);

  /// The device code: every kernel, `extern "C" __global__`, after the
  /// device functions they call (Philox), no #includes (NVRTC compiles it
  /// as is).
  std::string source() const;
  unsigned numKernels() const { return count; }

private:
  /// A run's per-element code: `const float tK = ...;` lines reading
  /// `inK[i]` (and `inK[c]` for [cols] operands), the stores `outK[i] = t;`
  /// of the results \p escapes accepts, and the Philox draws of its
  /// dropouts (`rK[4]`, for a loop over blocks b of four elements j).
  struct RunBody {
    std::string text, stores, draws, comment;
    std::string last; ///< The temporary holding the run's last result.
    SmallVector<Value> keys, inputs, outputs;
    bool usesColumn = false;
  };
  /// \p group's RunBody; \p given, when set, is read as the C expression
  /// \p givenName rather than loaded.
  FailureOr<RunBody> buildRun(ArrayRef<Operation *> group,
                              function_ref<bool(Value)> escapes,
                              Value given = {}, StringRef givenName = {});
  /// A run as a device function `float NAME(long long i, long long c,
  /// [float x,] const float *in0, ..., float *out0, ...)`: computes element
  /// i (column c), stores the escaping results and returns the last.
  struct RunFunction {
    std::string name;
    SmallVector<Value> inputs, outputs;
  };
  FailureOr<RunFunction> runFunction(ArrayRef<Operation *> run,
                                     function_ref<bool(Value)> escapes,
                                     Value given);
  FailureOr<GeneratedOp> fusedSgd(ArrayRef<Operation *> group);
  std::string add(StringRef comment, const std::string &signatureAndBody);
  /// Adds a __device__ function (printed before the kernels) once per body.
  std::string addDevice(StringRef comment, const std::string &signatureAndBody);
  std::string deviceText;
  llvm::StringMap<std::string> byBody;
  std::string text;
  unsigned count = 0, devices = 0;
  bool usesPhilox = false;
};

} // namespace mlir::gnn::cuda

#endif // GNNC_COMPILER_TARGET_CUDA_KERNELS_H
