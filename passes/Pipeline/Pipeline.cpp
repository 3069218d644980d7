//===- Pipeline.cpp - The one named gnnc pipeline -------------------------===//
#include "passes/Pipeline/Pipeline.h"

#include "dialects/Mem/MemOps.h"
#include "passes/Autodiff/Adjoints.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::gnn;

LogicalResult mlir::gnn::buildGnncPipeline(OpPassManager &pm,
                                           const PipelineOptions &options) {
  StringRef stage = options.stage;
  if (stage != "gnn" && stage != "decomposed" && stage != "train" &&
      stage != "plan" && stage != "cpp")
    return failure();
  if (stage == "gnn")
    return success();
  GnnDecomposeOptions decompose;
  decompose.splitHeads = options.splitHeads;
  pm.addPass(createGnnDecompose(decompose));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (stage == "decomposed")
    return success();
  pm.addPass(createGnnAutodiff());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (stage == "train")
    return success();
  // plan: the step with its storage decided, every saved tensor's fate as
  // `mem` ops.
  // Sparse features first: gnn-restrict-rows restricts the CSR dropout
  // and products, for which the CPU target has kernels; then the hoisting,
  // after the pass has seen which graphs are transposes.
  GnnSparseFeaturesOptions sparse;
  sparse.maxDensity = options.sparseFeatures;
  pm.addPass(createGnnSparseFeatures(sparse));
  if (options.restrictRows) {
    GnnRestrictRowsOptions restrict;
    restrict.edgeRows = options.edgeRows;
    pm.addPass(createGnnRestrictRows(restrict));
  }
  pm.addPass(createGnnHoistGraphPrep());
  GnnPlanMemoryOptions planning;
  planning.policy = options.policy;
  planning.solver = options.solver;
  planning.profile = options.profile;
  planning.budget = options.budget;
  planning.cache = options.cache;
  planning.signs = options.signs;
  planning.hostReads = options.hostReads;
  pm.addPass(createGnnPlanMemory(planning));
  if (stage == "plan")
    return success();
  // cpp: every buffer placed, what the CPU emitter prints. No CSE from
  // here on: it would merge recomputed ops with the originals.
  pm.addPass(createMemExpandRecompute());
  pm.addPass(createGnnAssignBuffers());
  if (options.hoistPrefetches)
    pm.addPass(createMemHoistPrefetches());
  return success();
}

void mlir::gnn::registerGnncPassesAndPipeline() {
  registerGnncPasses();
  PassPipelineRegistration<PipelineOptions>(
      "gnnc-pipeline",
      "gnnc's pipeline from MLIRGen's output up to a stage (stage=gnn|"
      "decomposed|train|plan|cpp)",
      [](OpPassManager &pm, const PipelineOptions &options) {
        // The registration API cannot fail; an unknown stage leaves the
        // pipeline empty and is reported by gnnc's own option checking.
        (void)buildGnncPipeline(pm, options);
      });
}

void mlir::gnn::registerGnncDialects(DialectRegistry &registry) {
  registry
      .insert<GnnDialect, train::TrainDialect, mem::MemDialect,
              func::FuncDialect, arith::ArithDialect, tensor::TensorDialect>();
  registerDifferentiableOpInterfaceExternalModels(registry);
}

void mlir::gnn::loadGnncDialects(MLIRContext &context) {
  DialectRegistry registry;
  registerGnncDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}
