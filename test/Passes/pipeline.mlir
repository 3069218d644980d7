// The named pipeline, as gnnc uses it, run from gnnc-opt on MLIRGen-shaped
// input: stage=decomposed leaves primitives only, stage=train replaces the
// model by its init/step/predict functions; the options parse both ways.
// RUN: gnnc-opt %s -gnnc-pipeline=stage=decomposed | FileCheck %s --check-prefix=DEC
// RUN: gnnc-opt %s -pass-pipeline='builtin.module(gnnc-pipeline{stage=train})' | FileCheck %s --check-prefix=TRAIN
// RUN: gnnc-opt %s -gnnc-pipeline=stage=gnn | FileCheck %s --check-prefix=GNN

func.func @M(%g: !gnn.graph<5x8> {gnn.input = "graph"},
             %x: tensor<5x3xf32> {gnn.input = "features"},
             %w: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 3, 2>},
             %b: tensor<2xf32> {gnn.param = "linear_0.bias", train.init = #train<init zeros>})
    -> tensor<5x2xf32>
    attributes {gnn.model = "M", train.config = {loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none", optimizer = "sgd", lr = 0.1 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64, momentum = 0.0 : f64, nesterov = false, epochs = 3 : i64, seed = 1 : i64, accumulate = 1 : i64, eval_every = 1 : i64, init = "glorot", precision = "fp32", saved_precision = "exact", plan = "auto", metrics = ["accuracy"], dataset = "tiny"}} {
  %0 = gnn.gcn_conv %g, %x, %w, %b : (!gnn.graph<5x8>, tensor<5x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// GNN: gnn.gcn_conv

// DEC-LABEL: func.func @M
// DEC-NOT: gnn.gcn_conv
// DEC: %[[L:.*]] = gnn.add_self_loops %{{.*}} : <5x8> -> <5x13>
// DEC: gnn.edge_norm symmetric %[[L]]
// DEC: gnn.matmul
// DEC: gnn.spmm sum %[[L]]
// DEC: gnn.bias_add

// TRAIN-NOT: func.func @M(
// TRAIN-LABEL: func.func @M.init(
// TRAIN: train.init glorot
// TRAIN-LABEL: func.func @M.step(
// TRAIN-SAME: train.role = "param"
// TRAIN: train.cross_entropy
// TRAIN: train.cross_entropy_grad
// TRAIN: gnn.transpose
// TRAIN: train.sgd
// TRAIN: train.sgd
// TRAIN-LABEL: func.func @M.predict(
// TRAIN-NOT: train.cross_entropy
// TRAIN-NOT: train.sgd
// TRAIN: gnn.spmm
// TRAIN: return
