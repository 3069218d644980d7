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
                     "runs), decomposed, train, cpp (train with "
                     "its buffers assigned)"),
      llvm::cl::init("train")};
  Option<double> sparseFeatures{
      *this, "sparse-features",
      llvm::cl::desc("cpp: input features with at most this fraction of "
                     "non-zeros are stored as CSR (gnn-sparse-features' "
                     "max-density; 0 keeps them dense)"),
      llvm::cl::init(0.1)};
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
