// RUN: gnnc-opt %s -gnn-autodiff -split-input-file | FileCheck %s

// A two-layer perceptron with dropout between the layers, trained by Adam:
// the step functions' signatures and roles, the forward pass with a key made
// from (seed, step), and the reverse sweep of linear + relu + dropout.

// CHECK-LABEL: func.func @Mlp.init(
// CHECK-SAME:      %[[SEED:.*]]: i64 {gnn.input = "seed"})
// CHECK-SAME:      -> (tensor<3x4xf32> {gnn.param = "linear_0.weight", train.role = "param"},
// CHECK-SAME:          tensor<4xf32> {gnn.param = "linear_0.bias", train.role = "param"},
// CHECK-SAME:          tensor<4x2xf32> {gnn.param = "linear_1.weight", train.role = "param"},
// CHECK-SAME:          tensor<3x4xf32> {gnn.param = "linear_0.weight", train.role = "adam.m"},
// CHECK-SAME:          tensor<3x4xf32> {gnn.param = "linear_0.weight", train.role = "adam.v"},
// CHECK-SAME:          tensor<4xf32> {gnn.param = "linear_0.bias", train.role = "adam.m"},
// CHECK-SAME:          tensor<4xf32> {gnn.param = "linear_0.bias", train.role = "adam.v"},
// CHECK-SAME:          tensor<4x2xf32> {gnn.param = "linear_1.weight", train.role = "adam.m"},
// CHECK-SAME:          tensor<4x2xf32> {gnn.param = "linear_1.weight", train.role = "adam.v"})
// CHECK-SAME:      attributes {gnn.model = "Mlp"
// CHECK-NEXT:    %[[W0:.*]] = train.init glorot %[[SEED]] {fan_in = 3 : i64, fan_out = 4 : i64, stream = 0 : i64} : tensor<3x4xf32>
// CHECK-NEXT:    %[[B0:.*]] = train.init zeros %[[SEED]] {{.*}}stream = 1 : i64} : tensor<4xf32>
// CHECK-NEXT:    %[[W1:.*]] = train.init kaiming %[[SEED]] {fan_in = 4 : i64, fan_out = 2 : i64, stream = 2 : i64} : tensor<4x2xf32>
// CHECK-COUNT-6: gnn.zeros
// CHECK-NEXT:    return %[[W0]], %[[B0]], %[[W1]],

// CHECK-LABEL: func.func @Mlp.step(
// CHECK-SAME:      %[[G:[^:]*]]: !gnn.graph<5x8> {gnn.input = "graph"},
// CHECK-SAME:      %[[X:[^:]*]]: tensor<5x3xf32> {gnn.input = "features"},
// CHECK-SAME:      %[[LABELS:[^:]*]]: tensor<5xi32> {gnn.input = "labels"},
// CHECK-SAME:      %[[MASK:[^:]*]]: tensor<5xi1> {gnn.input = "train_mask"},
// CHECK-SAME:      %[[SEED:[^:]*]]: i64 {gnn.input = "seed"},
// CHECK-SAME:      %[[STEP:[^:]*]]: i64 {gnn.input = "step"},
// CHECK-SAME:      %[[W0:[^:]*]]: tensor<3x4xf32> {gnn.param = "linear_0.weight", train.role = "param"},
// CHECK-SAME:      %[[B0:[^:]*]]: tensor<4xf32> {gnn.param = "linear_0.bias", train.role = "param"},
// CHECK-SAME:      %[[W1:[^:]*]]: tensor<4x2xf32> {gnn.param = "linear_1.weight", train.role = "param"},
// CHECK-SAME:      %[[W0M:[^:]*]]: tensor<3x4xf32> {gnn.param = "linear_0.weight", train.role = "adam.m"},
// CHECK-SAME:      %[[W0V:[^:]*]]: tensor<3x4xf32> {gnn.param = "linear_0.weight", train.role = "adam.v"},
// CHECK-SAME:      %[[B0M:[^:]*]]: tensor<4xf32> {gnn.param = "linear_0.bias", train.role = "adam.m"},
// CHECK-SAME:      %[[B0V:[^:]*]]: tensor<4xf32> {gnn.param = "linear_0.bias", train.role = "adam.v"},
// CHECK-SAME:      %[[W1M:[^:]*]]: tensor<4x2xf32> {gnn.param = "linear_1.weight", train.role = "adam.m"},
// CHECK-SAME:      %[[W1V:[^:]*]]: tensor<4x2xf32> {gnn.param = "linear_1.weight", train.role = "adam.v"})
// CHECK-SAME:      -> (tensor<f32> {train.role = "loss"},
// CHECK-SAME:          tensor<3x4xf32> {gnn.param = "linear_0.weight", train.role = "param"},
// CHECK-SAME:          tensor<4x2xf32> {gnn.param = "linear_1.weight", train.role = "adam.v"})
// Forward, with the key of this step.
// CHECK-NEXT:    %[[KEY:.*]] = gnn.rng_key %[[SEED]], %[[STEP]]
// CHECK-NEXT:    %[[H:.*]] = gnn.matmul %[[X]], %[[W0]]
// CHECK-NEXT:    %[[HB:.*]] = gnn.bias_add %[[H]], %[[B0]]
// CHECK-NEXT:    %[[R:.*]] = gnn.activation relu %[[HB]]
// CHECK-NEXT:    %[[D:.*]] = gnn.dropout %[[R]], %[[KEY]] {p = 5.000000e-01 : f64, stream = 3 : i64}
// CHECK-NEXT:    %[[Y:.*]] = gnn.matmul %[[D]], %[[W1]]
// CHECK-NEXT:    %[[LOSS:.*]] = train.cross_entropy %[[Y]], %[[LABELS]], %[[MASK]] :
// Reverse: seeded with 1, through the loss, the second matmul, the dropout
// (same key and stream), relu (from its input) and the first layer.
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[DY:.*]] = train.cross_entropy_grad %[[Y]], %[[LABELS]], %[[MASK]], %[[ONE]]
// CHECK-DAG:     %[[DW1:.*]] = gnn.matmul %[[D]], %[[DY]] {transpose_a} : (tensor<5x4xf32>, tensor<5x2xf32>) -> tensor<4x2xf32>
// CHECK-DAG:     %[[DD:.*]] = gnn.matmul %[[DY]], %[[W1]] {transpose_b} : (tensor<5x2xf32>, tensor<4x2xf32>) -> tensor<5x4xf32>
// CHECK:         %[[DR:.*]] = gnn.dropout %[[DD]], %[[KEY]] {p = 5.000000e-01 : f64, stream = 3 : i64}
// CHECK-NEXT:    %[[DHB:.*]] = gnn.activation_grad relu %[[HB]], %[[DR]]
// CHECK-DAG:     %[[DB0:.*]] = gnn.reduce sum %[[DHB]] {dim = 0 : i64} : tensor<5x4xf32> -> tensor<4xf32>
// CHECK-DAG:     %[[DW0:.*]] = gnn.matmul %[[X]], %[[DHB]] {transpose_a}
// The features are not differentiated.
// CHECK-NOT:     gnn.matmul %[[DHB]], %[[W0]]
// CHECK:         %[[NW0:[^,]*]], %[[NW0M:[^,]*]], %[[NW0V:[^ ]*]] = train.adam %[[W0]], %[[DW0]], %[[W0M]], %[[W0V]], %[[STEP]]
// CHECK-SAME:        {beta1 = 9.000000e-01 : f64, beta2 = 0.99899999999999999 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-02 : f64, weight_decay = 5.000000e-04 : f64} : tensor<3x4xf32>
// CHECK-NEXT:    %[[NB0:[^,]*]], %[[NB0M:[^,]*]], %[[NB0V:[^ ]*]] = train.adam %[[B0]], %[[DB0]], %[[B0M]], %[[B0V]], %[[STEP]]
// CHECK-NEXT:    %[[NW1:[^,]*]], %[[NW1M:[^,]*]], %[[NW1V:[^ ]*]] = train.adam %[[W1]], %[[DW1]], %[[W1M]], %[[W1V]], %[[STEP]]
// CHECK-NEXT:    return %[[LOSS]], %[[NW0]], %[[NB0]], %[[NW1]], %[[NW0M]], %[[NW0V]], %[[NB0M]], %[[NB0V]], %[[NW1M]], %[[NW1V]] :

// Evaluation: no key, no dropout; the caller reads the logits from the
// function's arena (gnn.results_in_arena).
// CHECK-LABEL: func.func @Mlp.predict(
// CHECK-SAME:      %[[G:[^:]*]]: !gnn.graph<5x8> {gnn.input = "graph"},
// CHECK-SAME:      %[[X:[^:]*]]: tensor<5x3xf32> {gnn.input = "features"},
// CHECK-SAME:      %[[W0:[^:]*]]: tensor<3x4xf32> {gnn.param = "linear_0.weight", train.role = "param"},
// CHECK-SAME:      %[[B0:[^:]*]]: tensor<4xf32> {gnn.param = "linear_0.bias", train.role = "param"},
// CHECK-SAME:      %[[W1:[^:]*]]: tensor<4x2xf32> {gnn.param = "linear_1.weight", train.role = "param"})
// CHECK-SAME:      -> tensor<5x2xf32> attributes {{{.*}}gnn.results_in_arena
// CHECK-NEXT:    %[[H:.*]] = gnn.matmul %[[X]], %[[W0]]
// CHECK-NEXT:    %[[HB:.*]] = gnn.bias_add %[[H]], %[[B0]]
// CHECK-NEXT:    %[[R:.*]] = gnn.activation relu %[[HB]]
// CHECK-NEXT:    %[[Y:.*]] = gnn.matmul %[[R]], %[[W1]]
// CHECK-NEXT:    return %[[Y]] : tensor<5x2xf32>
// The model function itself is gone.
// CHECK-NOT:   func.func @Mlp(
func.func @Mlp(%g: !gnn.graph<5x8> {gnn.input = "graph"},
               %x: tensor<5x3xf32> {gnn.input = "features"},
               %key: !gnn.rng_key {gnn.input = "rng_key"},
               %w0: tensor<3x4xf32> {gnn.param = "linear_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 3, 4>},
               %b0: tensor<4xf32> {gnn.param = "linear_0.bias", train.init = #train<init zeros>, train.fan = array<i64: 3, 4>},
               %w1: tensor<4x2xf32> {gnn.param = "linear_1.weight", train.init = #train<init kaiming>, train.fan = array<i64: 4, 2>})
    -> tensor<5x2xf32>
    attributes {gnn.model = "Mlp", train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none",
      optimizer = "adam", lr = 0.01 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64,
      eps = 1.0e-8 : f64, weight_decay = 5.0e-4 : f64, momentum = 0.0 : f64,
      nesterov = false, epochs = 10 : i64, seed = 0 : i64, accumulate = 1 : i64}} {
  %h = gnn.matmul %x, %w0 : (tensor<5x3xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  %hb = gnn.bias_add %h, %b0 : (tensor<5x4xf32>, tensor<4xf32>) -> tensor<5x4xf32>
  %r = gnn.activation relu %hb : tensor<5x4xf32>
  %d = gnn.dropout %r, %key {p = 0.5 : f64, stream = 3 : i64} : tensor<5x4xf32>
  %y = gnn.matmul %d, %w1 : (tensor<5x4xf32>, tensor<4x2xf32>) -> tensor<5x2xf32>
  return %y : tensor<5x2xf32>
}

// -----

// AdamW is Adam with decoupled weight decay; the loss settings reach both
// the loss and its gradient. A GCN-style aggregation differentiates through
// the transposed graph with the same (constant) edge weights, and the
// weights themselves get no SDDMM.

// CHECK-LABEL: func.func @Gcn.step(
// CHECK-SAME:      %[[G:[^:]*]]: !gnn.graph<4x6> {gnn.input = "graph"},
// CHECK-SAME:      %[[X:[^:]*]]: tensor<4x3xf64> {gnn.input = "features"},
// CHECK-SAME:      %[[W:[^:]*]]: tensor<3x2xf64> {gnn.param = "gcn_conv_0.weight", train.role = "param"},
// CHECK-SAME:      -> (tensor<f64> {train.role = "loss"},
// CHECK-NOT:     gnn.rng_key
// CHECK:         %[[G1:.*]] = gnn.add_self_loops %[[G]]
// CHECK-NEXT:    %[[NORM:.*]] = gnn.edge_norm symmetric %[[G1]]
// CHECK-NEXT:    %[[XW:.*]] = gnn.matmul %[[X]], %[[W]]
// CHECK-NEXT:    %[[AGG:.*]] = gnn.spmm sum %[[G1]], %[[XW]], %[[NORM]]
// CHECK-NEXT:    %[[LOSS:.*]] = train.cross_entropy %[[AGG]], {{.*}} {class_weights = #train<class_weights balanced>, label_smoothing = 1.000000e-01 : f64}
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT:    %[[DY:.*]] = train.cross_entropy_grad %[[AGG]], {{.*}}, %[[ONE]] {class_weights = #train<class_weights balanced>, label_smoothing = 1.000000e-01 : f64}
// CHECK-NEXT:    %[[GT:.*]] = gnn.transpose %[[G1]]
// CHECK-NEXT:    %[[DXW:.*]] = gnn.spmm sum %[[GT]], %[[DY]], %[[NORM]]
// CHECK-NEXT:    %[[DW:.*]] = gnn.matmul %[[X]], %[[DXW]] {transpose_a}
// CHECK-NEXT:    %{{.*}}, %{{.*}}, %{{.*}} = train.adam %[[W]], %[[DW]], {{.*}} {beta1 = 9.000000e-01 : f64, beta2 = 0.99899999999999999 : f64, decoupled, eps = 1.000000e-08 : f64, lr = 5.000000e-03 : f64, weight_decay = 1.000000e-02 : f64} : tensor<3x2xf64>
// CHECK-NOT:     gnn.sddmm
// CHECK:         return
func.func @Gcn(%g: !gnn.graph<4x6> {gnn.input = "graph"},
               %x: tensor<4x3xf64> {gnn.input = "features"},
               %w: tensor<3x2xf64> {gnn.param = "gcn_conv_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 3, 2>})
    -> tensor<4x2xf64>
    attributes {gnn.model = "Gcn", train.config = {
      loss = "cross_entropy", label_smoothing = 0.1 : f64, class_weights = "balanced",
      optimizer = "adamw", lr = 0.005 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64,
      eps = 1.0e-8 : f64, weight_decay = 0.01 : f64, momentum = 0.0 : f64,
      nesterov = false, accumulate = 1 : i64}} {
  %g1 = gnn.add_self_loops %g : !gnn.graph<4x6> -> !gnn.graph<4x10>
  %norm = gnn.edge_norm symmetric %g1 : !gnn.graph<4x10> -> tensor<10xf64>
  %xw = gnn.matmul %x, %w : (tensor<4x3xf64>, tensor<3x2xf64>) -> tensor<4x2xf64>
  %y = gnn.spmm sum %g1, %xw, %norm : (!gnn.graph<4x10>, tensor<4x2xf64>, tensor<10xf64>) -> tensor<4x2xf64>
  return %y : tensor<4x2xf64>
}

// -----

// SGD with Nesterov momentum keeps one buffer per parameter.

// CHECK-LABEL: func.func @Sgd.init(
// CHECK-SAME:      -> (tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "param"},
// CHECK-SAME:          tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "sgd.momentum"})
// CHECK-LABEL: func.func @Sgd.step(
// CHECK-SAME:      %[[STEP:[^:]*]]: i64 {gnn.input = "step"},
// CHECK-SAME:      %[[W:[^:]*]]: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "param"},
// CHECK-SAME:      %[[BUF:[^:]*]]: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "sgd.momentum"})
// CHECK-SAME:      -> (tensor<f32> {train.role = "loss"},
// CHECK-SAME:          tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "param"},
// CHECK-SAME:          tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "sgd.momentum"})
// CHECK:         %[[NW:[^,]*]], %[[NB:[^ ]*]] = train.sgd %[[W]], %{{.*}}, %[[BUF]] {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, nesterov, weight_decay = 1.000000e-03 : f64}
// CHECK-NEXT:    return %{{.*}}, %[[NW]], %[[NB]] :
func.func @Sgd(%g: !gnn.graph<4x6> {gnn.input = "graph"},
               %x: tensor<4x3xf32> {gnn.input = "features"},
               %w: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 3, 2>})
    -> tensor<4x2xf32>
    attributes {gnn.model = "Sgd", train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none",
      optimizer = "sgd", lr = 0.1 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64,
      eps = 1.0e-8 : f64, weight_decay = 0.001 : f64, momentum = 0.9 : f64,
      nesterov = true, accumulate = 1 : i64}} {
  %y = gnn.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Plain SGD has no state at all.

// CHECK-LABEL: func.func @Plain.init(
// CHECK-SAME:      -> (tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "param"})
// CHECK-LABEL: func.func @Plain.step(
// CHECK-SAME:      %[[W:[^:]*]]: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "param"})
// CHECK-SAME:      -> (tensor<f32> {train.role = "loss"}, tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "param"})
// CHECK:         %[[NW:.*]] = train.sgd %[[W]], %{{[^,]*}} {lr = 5.000000e-01 : f64
// CHECK-NOT:         nesterov
// CHECK-SAME:        : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
func.func @Plain(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                 %x: tensor<4x3xf32> {gnn.input = "features"},
                 %w: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 3, 2>})
    -> tensor<4x2xf32>
    attributes {gnn.model = "Plain", train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none",
      optimizer = "sgd", lr = 0.5 : f64, weight_decay = 0.0 : f64,
      momentum = 0.0 : f64, nesterov = false, accumulate = 1 : i64}} {
  %y = gnn.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// accumulate = 2 splits the step: grad_step adds one micro-batch's gradients
// into accumulators, apply_step updates with their mean and zeroes them.

// CHECK-LABEL: func.func @Acc.init(
// CHECK-SAME:      -> (tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "param"},
// CHECK-SAME:          tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "adam.m"},
// CHECK-SAME:          tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "adam.v"},
// CHECK-SAME:          tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "grad_acc"})
// CHECK-NOT:   func.func @Acc.step(
// CHECK-LABEL: func.func @Acc.grad_step(
// CHECK-SAME:      %{{[^:]*}}: !gnn.graph<4x6> {gnn.input = "graph"},
// CHECK-SAME:      %{{[^:]*}}: tensor<4x3xf32> {gnn.input = "features"},
// CHECK-SAME:      %{{[^:]*}}: tensor<4xi32> {gnn.input = "labels"},
// CHECK-SAME:      %{{[^:]*}}: tensor<4xi1> {gnn.input = "train_mask"},
// CHECK-SAME:      %{{[^:]*}}: i64 {gnn.input = "seed"},
// CHECK-SAME:      %{{[^:]*}}: i64 {gnn.input = "step"},
// CHECK-SAME:      %[[W:[^:]*]]: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "param"},
// CHECK-SAME:      %[[ACC:[^:]*]]: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "grad_acc"})
// CHECK-SAME:      -> (tensor<f32> {train.role = "loss"},
// CHECK-SAME:          tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "grad_acc"})
// CHECK:         %[[DW:.*]] = gnn.matmul %{{.*}}, %{{.*}} {transpose_a}
// CHECK-NEXT:    %[[NACC:.*]] = gnn.add %[[ACC]], %[[DW]]
// CHECK-NEXT:    return %{{.*}}, %[[NACC]]
// CHECK-NOT:     train.adam
// CHECK-LABEL: func.func @Acc.apply_step(
// CHECK-SAME:      %[[STEP:[^:]*]]: i64 {gnn.input = "step"},
// CHECK-SAME:      %[[W:[^:]*]]: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "param"},
// CHECK-SAME:      %[[ACC:[^:]*]]: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "grad_acc"},
// CHECK-SAME:      %[[M:[^:]*]]: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "adam.m"},
// CHECK-SAME:      %[[V:[^:]*]]: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "adam.v"})
// CHECK-SAME:      -> (tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "param"},
// CHECK-SAME:          tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "adam.m"},
// CHECK-SAME:          tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "adam.v"},
// CHECK-SAME:          tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "grad_acc"})
// CHECK-NEXT:    %[[MEAN:.*]] = gnn.scale %[[ACC]] {factor = 5.000000e-01 : f64}
// CHECK-NEXT:    %[[NW:[^,]*]], %[[NM:[^,]*]], %[[NV:[^ ]*]] = train.adam %[[W]], %[[MEAN]], %[[M]], %[[V]], %[[STEP]]
// CHECK-NEXT:    %[[Z:.*]] = gnn.zeros : tensor<3x2xf32>
// CHECK-NEXT:    return %[[NW]], %[[NM]], %[[NV]], %[[Z]]
// CHECK-LABEL: func.func @Acc.predict(
func.func @Acc(%g: !gnn.graph<4x6> {gnn.input = "graph"},
               %x: tensor<4x3xf32> {gnn.input = "features"},
               %w: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 3, 2>})
    -> tensor<4x2xf32>
    attributes {gnn.model = "Acc", train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none",
      optimizer = "adam", lr = 0.01 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64,
      eps = 1.0e-8 : f64, weight_decay = 0.0 : f64, momentum = 0.0 : f64,
      nesterov = false, accumulate = 2 : i64}} {
  %y = gnn.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// A value used twice sums its cotangents with gnn.add; functions without a
// train.config are left alone.

// CHECK-LABEL: func.func @helper(
// CHECK-LABEL: func.func @Twice.step(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<4x2xf32> {gnn.input = "features"},
// CHECK-SAME:      %[[W:[^:]*]]: tensor<2x2xf32> {gnn.param = "linear_0.weight", train.role = "param"})
// CHECK:         %[[H:.*]] = gnn.matmul %[[X]], %[[W]]
// CHECK-NEXT:    %[[Y:.*]] = gnn.mul %[[H]], %[[H]]
// CHECK:         %[[DY:.*]] = train.cross_entropy_grad
// CHECK-NEXT:    %[[D1:.*]] = gnn.mul %[[DY]], %[[H]]
// CHECK-NEXT:    %[[D2:.*]] = gnn.mul %[[DY]], %[[H]]
// CHECK-NEXT:    %[[DH:.*]] = gnn.add %[[D1]], %[[D2]]
// CHECK-NEXT:    %[[DW:.*]] = gnn.matmul %[[X]], %[[DH]] {transpose_a}
// CHECK-NEXT:    train.sgd %[[W]], %[[DW]]
func.func @helper(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
func.func @Twice(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                 %x: tensor<4x2xf32> {gnn.input = "features"},
                 %w: tensor<2x2xf32> {gnn.param = "linear_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 2, 2>})
    -> tensor<4x2xf32>
    attributes {gnn.model = "Twice", train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none",
      optimizer = "sgd", lr = 0.1 : f64, weight_decay = 0.0 : f64,
      momentum = 0.0 : f64, nesterov = false, accumulate = 1 : i64}} {
  %h = gnn.matmul %x, %w : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %y = gnn.mul %h, %h : tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Only ops between a parameter and the loss are differentiated: a max over
// the features (no rule) is a constant of the step.

// CHECK-LABEL: func.func @FeatureMax.step(
// CHECK-SAME:      %[[X:[^:]*]]: tensor<4x3xf32> {gnn.input = "features"},
// CHECK-SAME:      %[[W:[^:]*]]: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.role = "param"})
// CHECK:         %[[M:.*]] = gnn.reduce max %[[X]] {dim = 0 : i64}
// CHECK-NEXT:    %[[XS:.*]] = gnn.row_mul %[[X]], %[[M]]
// CHECK-NEXT:    %[[Y:.*]] = gnn.matmul %[[XS]], %[[W]]
// CHECK:         %[[DY:.*]] = train.cross_entropy_grad %[[Y]]
// CHECK-NEXT:    %[[DW:.*]] = gnn.matmul %[[XS]], %[[DY]] {transpose_a}
// CHECK-NEXT:    train.sgd %[[W]], %[[DW]]
func.func @FeatureMax(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                      %x: tensor<4x3xf32> {gnn.input = "features"},
                      %w: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 3, 2>})
    -> tensor<4x2xf32>
    attributes {gnn.model = "FeatureMax", train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none",
      optimizer = "sgd", lr = 0.1 : f64, weight_decay = 0.0 : f64,
      momentum = 0.0 : f64, nesterov = false, accumulate = 1 : i64}} {
  %m = gnn.reduce max %x {dim = 0 : i64} : tensor<4x3xf32> -> tensor<3xf32>
  %xs = gnn.row_mul %x, %m : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %y = gnn.matmul %xs, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
