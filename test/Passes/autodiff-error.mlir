// RUN: gnnc-opt %s -gnn-autodiff -split-input-file -verify-diagnostics

// Layer ops must be decomposed first; the error names the layer.
func.func @Layer(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                 %x: tensor<4x3xf32> {gnn.input = "features"},
                 %w: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 3, 2>})
    -> tensor<4x2xf32>
    attributes {train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none",
      optimizer = "sgd", lr = 0.1 : f64, weight_decay = 0.0 : f64,
      momentum = 0.0 : f64, nesterov = false, accumulate = 1 : i64}} {
  // expected-error @+1 {{op 'gnn.linear' must be decomposed before gnn-autodiff}}
  %y = gnn.linear %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// expected-error @+1 {{'train.config' needs 'lr' (a float)}}
func.func @NoLr(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                %x: tensor<4x3xf32> {gnn.input = "features"},
                %w: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 3, 2>})
    -> tensor<4x2xf32>
    attributes {train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none",
      optimizer = "sgd", weight_decay = 0.0 : f64,
      momentum = 0.0 : f64, nesterov = false, accumulate = 1 : i64}} {
  %y = gnn.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Adam's hyper-parameters are required only for Adam.
// expected-error @+1 {{'train.config' needs 'beta2' (a float)}}
func.func @NoBeta2(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                   %x: tensor<4x3xf32> {gnn.input = "features"},
                   %w: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 3, 2>})
    -> tensor<4x2xf32>
    attributes {train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none",
      optimizer = "adam", lr = 0.01 : f64, beta1 = 0.9 : f64, eps = 1.0e-8 : f64,
      weight_decay = 0.0 : f64, accumulate = 1 : i64}} {
  %y = gnn.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// expected-error @+1 {{unknown optimizer 'rmsprop' in 'train.config' (expected adam, adamw or sgd)}}
func.func @Rmsprop(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                   %x: tensor<4x3xf32> {gnn.input = "features"},
                   %w: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 3, 2>})
    -> tensor<4x2xf32>
    attributes {train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none",
      optimizer = "rmsprop", lr = 0.1 : f64, weight_decay = 0.0 : f64,
      momentum = 0.0 : f64, nesterov = false, accumulate = 1 : i64}} {
  %y = gnn.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// expected-error @+1 {{'train.config' accumulate must be at least 1, got 0}}
func.func @NoMicroBatches(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                          %x: tensor<4x3xf32> {gnn.input = "features"},
                          %w: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 3, 2>})
    -> tensor<4x2xf32>
    attributes {train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none",
      optimizer = "sgd", lr = 0.1 : f64, weight_decay = 0.0 : f64,
      momentum = 0.0 : f64, nesterov = false, accumulate = 0 : i64}} {
  %y = gnn.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// expected-error @+1 {{'train.config' must be a dictionary}}
func.func @NotADict(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                    %x: tensor<4x3xf32> {gnn.input = "features"},
                    %w: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 3, 2>})
    -> tensor<4x2xf32> attributes {train.config = "adam"} {
  %y = gnn.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// expected-error @+1 {{argument 2 of a model function must be the graph, the features, the rng key (gnn.input) or a parameter (gnn.param)}}
func.func @Stray(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                 %x: tensor<4x3xf32> {gnn.input = "features"},
                 %w: tensor<3x2xf32>)
    -> tensor<4x2xf32>
    attributes {train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none",
      optimizer = "sgd", lr = 0.1 : f64, weight_decay = 0.0 : f64,
      momentum = 0.0 : f64, nesterov = false, accumulate = 1 : i64}} {
  %y = gnn.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// A primitive on the path from a parameter to the loss needs a rule...
func.func @MaxReduce(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                     %x: tensor<4x3xf32> {gnn.input = "features"},
                     %w: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 3, 2>},
                     %v: tensor<2xf32> {gnn.param = "scale_0.weight", train.init = #train<init ones>})
    -> tensor<4x2xf32>
    attributes {train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none",
      optimizer = "sgd", lr = 0.1 : f64, weight_decay = 0.0 : f64,
      momentum = 0.0 : f64, nesterov = false, accumulate = 1 : i64}} {
  %h = gnn.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  // expected-error @+1 {{op 'gnn.reduce' has no derivative rule for 'max'}}
  %m = gnn.reduce max %h {dim = 0 : i64} : tensor<4x2xf32> -> tensor<2xf32>
  %s = gnn.add %m, %v : tensor<2xf32>
  %y = gnn.row_mul %h, %s : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// ... and backward-only ops have none (no second derivatives).
func.func @SecondOrder(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                       %x: tensor<4x3xf32> {gnn.input = "features"},
                       %w: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 3, 2>})
    -> tensor<4x2xf32>
    attributes {train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "none",
      optimizer = "sgd", lr = 0.1 : f64, weight_decay = 0.0 : f64,
      momentum = 0.0 : f64, nesterov = false, accumulate = 1 : i64}} {
  %h = gnn.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  // expected-error @+1 {{op 'gnn.activation_grad' has no derivative rule}}
  %y = gnn.activation_grad tanh %h, %h : tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// expected-error @+1 {{unknown class_weights 'inverse' in 'train.config' (expected none or balanced)}}
func.func @Weights(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                   %x: tensor<4x3xf32> {gnn.input = "features"},
                   %w: tensor<3x2xf32> {gnn.param = "linear_0.weight", train.init = #train<init glorot>, train.fan = array<i64: 3, 2>})
    -> tensor<4x2xf32>
    attributes {train.config = {
      loss = "cross_entropy", label_smoothing = 0.0 : f64, class_weights = "inverse",
      optimizer = "sgd", lr = 0.1 : f64, weight_decay = 0.0 : f64,
      momentum = 0.0 : f64, nesterov = false, accumulate = 1 : i64}} {
  %y = gnn.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
