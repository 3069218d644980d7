//===- Pipeline.h - The one named gnnc pipeline -----------------*- C++ -*-===//
//
// `gnnc emit --stage=...` and `gnnc-opt -gnnc-pipeline{stage=...}` build the
// same pass pipeline from here, so what the tests check is what users get.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_PASSES_PIPELINE_PIPELINE_H
#define GNNC_PASSES_PIPELINE_PIPELINE_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class DialectRegistry;
class MLIRContext;
class OpPassManager;
} // namespace mlir

namespace mlir::gnn {

struct PipelineOptions : public PassPipelineOptions<PipelineOptions> {
  Option<std::string> stage{
      *this, "stage",
      llvm::cl::desc("Last stage to produce: gnn (MLIRGen's output, nothing "
                     "runs), decomposed, train, plan (the step with its "
                     "memory plan as mem ops), cpp (plan with its buffers "
                     "assigned)"),
      llvm::cl::init("train")};
  Option<double> sparseFeatures{
      *this, "sparse-features",
      llvm::cl::desc("cpp: input features with at most this fraction of "
                     "non-zeros are stored as CSR (gnn-sparse-features' "
                     "max-density; 0 keeps them dense)"),
      llvm::cl::init(0.1)};
  Option<bool> restrictRows{
      *this, "restrict-rows",
      llvm::cl::desc("plan, cpp: compute only the rows the loss depends on "
                     "(gnn-restrict-rows; the CPU target's kernels)"),
      llvm::cl::init(true)};
  Option<bool> edgeRows{
      *this, "edge-rows",
      llvm::cl::desc("plan, cpp: with restrict-rows, element-wise ops over "
                     "edge tensors compute only the edges the loss depends "
                     "on (gnn-restrict-rows' edge-rows)"),
      llvm::cl::init(true)};
  Option<std::string> splitHeads{
      *this, "split-heads",
      llvm::cl::desc("decomposed and later: rewrite multi-head gat_conv "
                     "head by head (gnn-decompose's split-heads: auto, "
                     "always, never)"),
      llvm::cl::init("auto")};
  Option<std::string> policy{
      *this, "policy",
      llvm::cl::desc("plan, cpp: the memory policy (auto, keep_all, "
                     "recompute_all, offload_all, checkpoint_layers; "
                     "default: the program's `plan`)"),
      llvm::cl::init("")};
  Option<std::string> solver{
      *this, "solver", llvm::cl::desc("plan, cpp: auto, exact, greedy or ilp"),
      llvm::cl::init("auto")};
  Option<std::string> profile{
      *this, "profile",
      llvm::cl::desc("plan, cpp: machine profile JSON, or cpu-default or "
                     "cuda-default (default: cpu-default)"),
      llvm::cl::init("")};
  Option<bool> cache{
      *this, "cache",
      llvm::cl::desc("plan, cpp: price the profile's cache (the CPU target, "
                     "whose arena is host memory; gnn-plan-memory's cache)"),
      llvm::cl::init(true)};
  Option<bool> signs{
      *this, "signs",
      llvm::cl::desc("plan, cpp: offer the sign fate (the CPU target; "
                     "gnn-plan-memory's signs)"),
      llvm::cl::init(true)};
  Option<bool> hostReads{
      *this, "host-reads",
      llvm::cl::desc("plan, cpp: offer host homes and tiled reads from host "
                     "memory (the CPU target; gnn-plan-memory's host-reads)"),
      llvm::cl::init(true)};
  Option<bool> hoistPrefetches{
      *this, "hoist-prefetches",
      llvm::cl::desc("cpp: issue host prefetches as soon as their bytes are "
                     "free (mem-hoist-prefetches; the CUDA target, whose "
                     "copy stream overlaps them with compute)"),
      llvm::cl::init(false)};
  Option<int64_t> budget{
      *this, "budget",
      llvm::cl::desc("plan, cpp: device budget in bytes (-1: the program's "
                     "`memory`)"),
      llvm::cl::init(-1)};
};

/// Appends the passes that take MLIRGen's output to `options.stage`.
/// Returns failure for an unknown stage name.
LogicalResult buildGnncPipeline(OpPassManager &pm,
                                const PipelineOptions &options);

/// Registers `gnnc-pipeline` and every gnnc pass with the global registry.
void registerGnncPassesAndPipeline();

/// Every dialect and interface model the pipeline's input and output use.
void registerGnncDialects(DialectRegistry &registry);

/// Registers (registerGnncDialects) and loads them all into \p context, as
/// every tool and test that parses or builds gnnc IR needs.
void loadGnncDialects(MLIRContext &context);

} // namespace mlir::gnn

#endif // GNNC_PASSES_PIPELINE_PIPELINE_H
